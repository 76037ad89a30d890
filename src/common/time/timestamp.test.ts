import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidTimeZone, parseOffset, parseTimestamp } from './timestamp.js';

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
