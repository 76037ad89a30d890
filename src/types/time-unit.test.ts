import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromMillis, toMillis, widenRange } from './time-unit.js';

test('time index values convert to and from milliseconds in every unit', () => {
  assert.equal(toMillis(1_700_000_000n, 'TimestampSecond'), 1_700_000_000_000);
  assert.equal(toMillis(1_700_000_000_123n, 'TimestampMillisecond'), 1_700_000_000_123);
  assert.equal(toMillis(1_700_000_000_123_456n, 'TimestampMicrosecond'), 1_700_000_000_123);
  assert.equal(toMillis(1_700_000_000_123_456_789n, 'TimestampNanosecond'), 1_700_000_000_123);
  assert.equal(toMillis(-1n, 'TimestampNanosecond'), -1, 'floored, not truncated');
  assert.equal(fromMillis(1500, 'TimestampSecond'), 1n);
  assert.equal(fromMillis(1500, 'TimestampNanosecond'), 1_500_000_000n);
});

test('ranges of values beyond 2^53 widen, never shrink', () => {
  const min = 1_700_000_000_123_456_789n;
  const max = 1_700_000_000_999_999_999n;
  const [lo, hi] = widenRange(min, max);
  assert.ok(BigInt(lo) <= min && BigInt(hi) >= max);
  assert.ok(max - BigInt(hi) > -1024n, 'by at most a few ulps');
  assert.deepEqual(widenRange(5n, 10n), [5, 10]);
  const [nlo, nhi] = widenRange(-max, -min);
  assert.ok(BigInt(nlo) <= -max && BigInt(nhi) >= -min);
});
