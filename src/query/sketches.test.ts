import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRegisters, encodeRegisters, estimateCount, HLL_RANK_BITS, mergeRegisters, registersOfCodes } from './hyperloglog.js';
import { approxQuantile, estimateQuantile, weightedDigestOf } from './tdigest.js';
import { decodeSketch, encodeSketch, mergeSketches, sketchOfCodes, sketchQuantile, ZERO_CODE } from './uddsketch.js';

/** A deterministic 64-bit hash stand-in (splitmix64). */
function mix(i: number): bigint {
  let z = (BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
}

function codeOf(h: bigint): bigint {
  const w = h & ((1n << BigInt(HLL_RANK_BITS)) - 1n);
  const rank = w === 0n ? HLL_RANK_BITS + 1 : HLL_RANK_BITS - (w.toString(2).length - 1);
  return (h >> BigInt(HLL_RANK_BITS)) * 64n + BigInt(rank);
}

test('hll counts within its error bound, small counts about exactly, and merges to the union', () => {
  for (const n of [0, 1, 10, 1000, 100_000]) {
    const codes = Array.from({ length: n }, (_, i) => codeOf(mix(i)));
    const estimate = estimateCount(registersOfCodes(codes));
    assert.ok(Math.abs(estimate - n) <= Math.max(0.5, n * 0.025), `${n} distinct values estimated ${estimate}`);
  }
  const a = encodeRegisters(registersOfCodes(Array.from({ length: 600 }, (_, i) => codeOf(mix(i)))));
  const b = encodeRegisters(registersOfCodes(Array.from({ length: 600 }, (_, i) => codeOf(mix(i + 400)))));
  const merged = estimateCount(mergeRegisters([a, b, new Uint8Array([1, 2, 3])]));
  assert.ok(Math.abs(merged - 1000) <= 25, `union of 1000 estimated ${merged}`);
  // Sparse and dense states decode to the same registers.
  const dense = registersOfCodes(Array.from({ length: 50_000 }, (_, i) => codeOf(mix(i))));
  assert.deepEqual(decodeRegisters(encodeRegisters(dense)), dense);
  assert.throws(() => decodeRegisters(new Uint8Array(20)));
});

test("t-digest answers DataFusion's estimates (GreptimeDB's sqlness answers)", () => {
  const ints = Float64Array.from({ length: 1000 }, (_, i) => i);
  assert.equal(Math.trunc(approxQuantile(ints.slice(), 0.5)!), 499);
  assert.equal(Math.trunc(approxQuantile(ints.slice(), 0.25)!), 249);
  assert.equal(Math.trunc(approxQuantile(ints.slice(), 0.95)!), 949);
  assert.equal(approxQuantile(Float64Array.from({ length: 1000 }, (_, i) => i * 1.5), 0.5), 748.875);
  assert.equal(approxQuantile(Float64Array.from({ length: 1000 }, (_, i) => i * 1.5), 0.9), 1349.25);
  assert.equal(approxQuantile(Float64Array.from([5, 1, 4, 2]), 0.5), 3.25);
  assert.equal(approxQuantile(new Float64Array(0), 0.5), undefined);
  // Weighted (approx_percentile_cont_with_weight): GreptimeDB's 33, 23, 40 and 3.6666666666666665.
  const weighted = weightedDigestOf(Float64Array.from([10, 20, 30, 40, 50]), Float64Array.from([1, 2, 3, 4, 1]));
  assert.deepEqual([0.5, 0.25, 0.75].map((q) => Math.trunc(estimateQuantile(weighted, q)!)), [33, 23, 40]);
  assert.equal(estimateQuantile(weightedDigestOf(Float64Array.from([1.5, 2.5, 3.5, 4.5]), Float64Array.from([0.5, 1, 1.5, 2])), 0.5), 3.6666666666666665);
});

test('uddsketch answers within α, collapses to its bucket limit and merges exactly', () => {
  const gamma = (1 + 0.01) / (1 - 0.01);
  const code = (v: number) => (v === 0 ? ZERO_CODE : BigInt(2 * Math.ceil(Math.log(Math.abs(v)) / Math.log(gamma)) + (v < 0 ? 1 : 0)));
  const values = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  const sketch = sketchOfCodes(128, 0.01, values.map(code), values.map(() => 1n), 550);
  assert.equal(sketchQuantile(sketch, 0.1), 19.886670240866184);
  assert.equal(sketchQuantile(sketch, 0.5), 59.745049810145126);
  // Signed values and zero in order; a wide range collapses to 8 buckets and still answers within the grown α.
  const mixed = [-100, -1, 0, 1, 100];
  const m = sketchOfCodes(128, 0.01, mixed.map(code), mixed.map(() => 1n), 0);
  assert.deepEqual([0, 0.2, 0.4, 0.6, 0.99].map((q) => Math.round(sketchQuantile(m, q)!)), [-100, -1, 0, 1, 100]);
  const wide = Array.from({ length: 200 }, (_, i) => 1.1 ** i);
  const collapsed = sketchOfCodes(8, 0.01, wide.map(code), wide.map(() => 1n), 0);
  assert.ok(collapsed.collapses > 0 && collapsed.positive.size <= 8);
  // The true median is 1.1^99 or 1.1^100; the estimate is within the collapsed γ of it.
  const grown = gamma ** (2 ** collapsed.collapses);
  const median = sketchQuantile(collapsed, 0.5)!;
  assert.ok(median <= 1.1 ** 100 * grown && median >= 1.1 ** 99 / grown, `median ${median}, γ ${grown}`);
  // Two halves merged equal the whole.
  const half = (vs: number[]) => encodeSketch(sketchOfCodes(128, 0.01, vs.map(code), vs.map(() => 1n), vs.reduce((a, b) => a + b, 0)));
  const merged = mergeSketches(128, 0.01, [half(values.slice(0, 4)), half(values.slice(4))]);
  assert.deepEqual(merged, decodeSketch(encodeSketch(sketch)));
  assert.throws(() => mergeSketches(64, 0.01, [half(values)]), /Merging UDDSketch with different parameters: arguments=\(64, 0.01\) vs actual input=\(128, 0.01\)/);
  assert.throws(() => decodeSketch(new Uint8Array(10)));
});
