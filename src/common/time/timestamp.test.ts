import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkTimestampRange, civilFromDays, daysFromCivil, formatTimestamp, isValidTimeZone, parseOffset, parseTimestamp, TIMESTAMP_RANGE } from './timestamp.js';

test('timestamp strings: dates, times, fractions, offsets, in every unit', () => {
  const ms = (s: string, zone?: string) => parseTimestamp(s, 'ms', zone);
  assert.equal(ms('2024-01-01'), BigInt(Date.UTC(2024, 0, 1)));
  assert.equal(ms('2024-01-01 08:30'), BigInt(Date.UTC(2024, 0, 1, 8, 30)));
  assert.equal(ms('2024-01-01T08:30:15.123'), BigInt(Date.UTC(2024, 0, 1, 8, 30, 15, 123)));
  assert.equal(ms('2024-01-01T08:30:15Z'), BigInt(Date.UTC(2024, 0, 1, 8, 30, 15)));
  assert.equal(ms('2024-01-01 08:30:15+01:00'), BigInt(Date.UTC(2024, 0, 1, 7, 30, 15)));
  assert.equal(ms('2024-01-01 08:30:15-0530'), BigInt(Date.UTC(2024, 0, 1, 14, 0, 15)));
  assert.equal(parseTimestamp('1970-01-01 00:00:00.123456789', 'ns'), 123_456_789n);
  assert.equal(parseTimestamp('1970-01-01 00:00:00.123456789', 'us'), 123_456n);
  assert.equal(parseTimestamp('1969-12-31 23:59:59.5', 's'), -1n, 'floored before 1970');
  for (const bad of ['yesterday', '2024-13-01', '2024-02-30', '2024-01-01 25:00', '2024-01-01 08:30:15+25:00', '']) assert.equal(ms(bad), undefined, bad);
});

test('a string without an offset is read in the session time zone, DST included', () => {
  assert.equal(parseTimestamp('2024-01-01 08:00:00', 'ms', 'Asia/Shanghai'), BigInt(Date.UTC(2024, 0, 1, 0)));
  assert.equal(parseTimestamp('2024-01-01 08:00:00', 'ms', '+08:00'), BigInt(Date.UTC(2024, 0, 1, 0)));
  assert.equal(parseTimestamp('2024-07-01 12:00:00', 'ms', 'America/New_York'), BigInt(Date.UTC(2024, 6, 1, 16)), 'EDT, UTC-4');
  assert.equal(parseTimestamp('2024-01-01 12:00:00', 'ms', 'America/New_York'), BigInt(Date.UTC(2024, 0, 1, 17)), 'EST, UTC-5');
  assert.equal(parseTimestamp('2024-01-01 08:00:00Z', 'ms', 'Asia/Shanghai'), BigInt(Date.UTC(2024, 0, 1, 8)), 'an explicit offset wins');
});

test('time zones: names, offsets, UTC and SYSTEM are valid; others are not', () => {
  for (const z of ['UTC', 'utc', 'Asia/Shanghai', 'europe/berlin', '+08:00', '-5', 'SYSTEM']) assert.ok(isValidTimeZone(z), z);
  for (const z of ['Mars/Olympus', '+25:00', '', 'x']) assert.ok(!isValidTimeZone(z), z);
  assert.equal(parseOffset('+08:00'), 480);
  assert.equal(parseOffset('-0130'), -90);
  assert.equal(parseOffset('Z'), 0);
});

test('daylight-saving edges: an ambiguous time is its first occurrence, a skipped one moves forward by the gap', () => {
  const ny = (s: string) => parseTimestamp(s, 'ms', 'America/New_York');
  // 2024-03-10: 02:00 EST becomes 03:00 EDT; 02:30 does not exist and reads as 03:30 EDT (07:30Z).
  assert.equal(ny('2024-03-10 01:59:59'), BigInt(Date.UTC(2024, 2, 10, 6, 59, 59)));
  assert.equal(ny('2024-03-10 02:30:00'), BigInt(Date.UTC(2024, 2, 10, 7, 30)));
  assert.equal(ny('2024-03-10 03:30:00'), BigInt(Date.UTC(2024, 2, 10, 7, 30)));
  // 2024-11-03: 02:00 EDT becomes 01:00 EST; 01:30 happens twice and reads as the first (EDT, 05:30Z).
  assert.equal(ny('2024-11-03 01:30:00'), BigInt(Date.UTC(2024, 10, 3, 5, 30)));
  assert.equal(ny('2024-11-03 00:59:59'), BigInt(Date.UTC(2024, 10, 3, 4, 59, 59)));
  assert.equal(ny('2024-11-03 02:00:00'), BigInt(Date.UTC(2024, 10, 3, 7, 0)));
  assert.equal(ny('2024-11-03 01:30:00-05:00'), BigInt(Date.UTC(2024, 10, 3, 6, 30)), 'the second occurrence, by its offset');
  assert.equal(parseTimestamp('2024-07-01 12:00:00', 'ms', 'Asia/Kolkata'), BigInt(Date.UTC(2024, 6, 1, 6, 30)));
  // Lord Howe moves by half an hour.
  assert.equal(parseTimestamp('2024-10-06 02:15:00', 'ms', 'Australia/Lord_Howe'), BigInt(Date.UTC(2024, 9, 5, 15, 45)));
});

test('dates of any year: civil arithmetic beyond the range of Date', () => {
  for (const [y, m, d] of [[1970, 1, 1], [2000, 2, 29], [1600, 3, 1], [-4713, 11, 24], [294247, 1, 10], [-290308, 12, 22], [1, 1, 1], [0, 12, 31]] as const) {
    assert.deepEqual(civilFromDays(daysFromCivil(y, m, d)), { year: y, month: m, day: d });
  }
  assert.equal(daysFromCivil(1970, 1, 1), 0);
  assert.equal(daysFromCivil(2024, 1, 1), Date.UTC(2024, 0, 1) / 86_400_000);
  assert.equal(parseTimestamp('294247-01-10 04:00:54.775806', 'us'), TIMESTAMP_RANGE.us.max);
  assert.equal(parseTimestamp('-290308-12-22 00:00:00', 'us'), TIMESTAMP_RANGE.us.min);
  assert.equal(parseTimestamp('2263-01-01 00:00:00', 'ns'), BigInt(Date.UTC(2263, 0, 1)) * 1_000_000n, 'not wrapped');
});

test('timestamp ranges: each unit holds what DuckDB converts; outside them an error names the value and the range', () => {
  assert.equal(formatTimestamp(TIMESTAMP_RANGE.ns.min, 'ns'), '1677-09-22T00:00:00Z');
  assert.equal(formatTimestamp(TIMESTAMP_RANGE.ns.max, 'ns'), '2262-04-11T23:47:16.854775806Z');
  assert.equal(formatTimestamp(TIMESTAMP_RANGE.us.max, 'us'), '+294247-01-10T04:00:54.775806Z');
  assert.equal(formatTimestamp(TIMESTAMP_RANGE.s.min, 's'), '-290308-12-22T00:00:00Z');
  assert.equal(formatTimestamp(-1n, 'ms'), '1969-12-31T23:59:59.999Z');
  for (const unit of ['s', 'ms', 'us', 'ns'] as const) {
    checkTimestampRange(TIMESTAMP_RANGE[unit].min, unit, 'ts');
    checkTimestampRange(TIMESTAMP_RANGE[unit].max, unit, 'ts');
    assert.throws(() => checkTimestampRange(TIMESTAMP_RANGE[unit].max + 1n, unit, 'ts'), /out of range for column ts/);
    assert.throws(() => checkTimestampRange(TIMESTAMP_RANGE[unit].min - 1n, unit, 'ts'), /out of range for column ts/);
  }
  assert.throws(
    () => checkTimestampRange(parseTimestamp('2263-01-01 00:00:00', 'ns')!, 'ns', 'ts', '2263-01-01 00:00:00'),
    (err: Error & { code?: number }) => err.code === 1004 && err.message === "Timestamp '2263-01-01 00:00:00' is out of range for column ts (TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z",
  );
  assert.throws(() => checkTimestampRange(parseTimestamp('1677-09-21', 'ns')!, 'ns', 'ts'), /-9223372036854775808|1677-09-21T00:00:00Z/);
});
