import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstOutOfRange, fromHalves, inRangeHalves, RANGE_HALVES } from './range-halves.js';
import { TIMESTAMP_RANGE } from './timestamp.js';
import type { TimeUnit } from '../../types/time-unit.js';

const UNITS: TimeUnit[] = ['s', 'ms', 'us', 'ns'];

/** `v` as (hi, lo) the way the decoders hold it: hi the floor of v / 2^32, lo the rest. */
function halves(v: bigint): [number, number] {
  const hi = v >> 32n;
  return [Number(hi), Number(v - (hi << 32n))];
}

test('RANGE_HALVES are TIMESTAMP_RANGE, bound for bound', () => {
  for (const unit of UNITS) {
    const r = RANGE_HALVES[unit];
    assert.equal(fromHalves(r.minHi, r.minLo), TIMESTAMP_RANGE[unit].min, unit);
    assert.equal(fromHalves(r.maxHi, r.maxLo), TIMESTAMP_RANGE[unit].max, unit);
  }
});

test('inRangeHalves: the bounds are in, one past them out, in every unit; int64 extremes are out', () => {
  for (const unit of UNITS) {
    const { min, max } = TIMESTAMP_RANGE[unit];
    const r = RANGE_HALVES[unit];
    for (const [v, inside] of [[min, true], [max, true], [min - 1n, false], [max + 1n, false], [0n, true], [-1n, true], [-(2n ** 63n), false], [2n ** 63n - 1n, false]] as const) {
      assert.equal(inRangeHalves(...halves(v), r), inside, `${unit} ${v}`);
    }
    // Past int64 (the line-protocol parser's hi can be).
    assert.equal(inRangeHalves(...halves(2n ** 64n), r), false);
    assert.equal(inRangeHalves(...halves(-(2n ** 64n)), r), false);
  }
});

test('firstOutOfRange finds the first value outside the unit\'s range, or -1; views into a larger buffer too', () => {
  for (const unit of UNITS) {
    const { min, max } = TIMESTAMP_RANGE[unit];
    assert.equal(firstOutOfRange(BigInt64Array.from([0n, min, max, -1n, 1n << 32n, -(1n << 32n)]), unit), -1, unit);
    assert.equal(firstOutOfRange(BigInt64Array.from([0n, min, max + 1n, min - 1n]), unit), 2, unit);
    assert.equal(firstOutOfRange(BigInt64Array.from([min - 1n]), unit), 0, unit);
    assert.equal(firstOutOfRange(new BigInt64Array(0), unit), -1, unit);
    const big = BigInt64Array.from([max + 1n, 5n, 6n, min - 1n]);
    assert.equal(firstOutOfRange(big.subarray(1, 3), unit), -1, unit);
    assert.equal(firstOutOfRange(big.subarray(1), unit), 2, unit);
  }
});

test('fromHalves reads lo as unsigned, whatever its sign bit', () => {
  assert.equal(fromHalves(0, -1), 0xffffffffn);
  assert.equal(fromHalves(-1, 0), -(2n ** 32n));
  assert.equal(fromHalves(-1, -1), -1n);
  assert.equal(fromHalves(0x7fffffff, 0xffffffff), 2n ** 63n - 1n);
});
