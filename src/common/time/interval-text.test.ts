import assert from 'node:assert/strict';
import { test } from 'node:test';
import { intervalIso8601, intervalText, parseIntervalText } from './interval-text.js';

const NS = 1_000_000_000n;

test("intervals as Arrow displays them (GreptimeDB's results)", () => {
  assert.equal(intervalText({ months: 14, days: 3, nanos: 14_706_000_100_000n }), '14 mons 3 days 4 hours 5 mins 6.000100000 secs');
  assert.equal(intervalText({ months: 18, days: 0, nanos: 0n }), '18 mons');
  assert.equal(intervalText({ months: -2, days: 0, nanos: 0n }), '-2 mons');
  assert.equal(intervalText({ months: 0, days: 0, nanos: -3_900n * NS }), '-1 hours -5 mins');
  assert.equal(intervalText({ months: 0, days: 0, nanos: -3_300n * NS }), '-55 mins');
  assert.equal(intervalText({ months: 0, days: 0, nanos: -163_343_856_789_000_000n }), '-45373 hours -17 mins -36.789000000 secs');
  assert.equal(intervalText({ months: 0, days: 0, nanos: -500_000_000n }), '-0.500000000 secs');
  assert.equal(intervalText({ months: 0, days: 0, nanos: 0n }), '');
});

test('the display text reads back; other text does not', () => {
  for (const iv of [
    { months: 14, days: 3, nanos: 14_706_000_100_000n },
    { months: 0, days: -1, nanos: -163_343_856_789_000_000n },
    { months: 0, days: 0, nanos: -500_000_000n },
    { months: 0, days: 0, nanos: 0n },
  ]) {
    assert.deepEqual(parseIntervalText(intervalText(iv)), iv);
  }
  assert.equal(parseIntervalText('1 year 2 mons'), undefined);
  assert.equal(parseIntervalText('04:05:06'), undefined);
});

test("ISO 8601 as GreptimeDB's MySQL rows show intervals", () => {
  assert.equal(intervalIso8601({ months: 14, days: 3, nanos: 14_706_500_000_000n }), 'P1Y2M3DT4H5M6.5S');
  assert.equal(intervalIso8601({ months: 0, days: 0, nanos: 0n }), 'PT0S');
  assert.equal(intervalIso8601({ months: 0, days: 0, nanos: 61n * NS + 1000n }), 'P0Y0M0DT0H1M1.000001S');
});
