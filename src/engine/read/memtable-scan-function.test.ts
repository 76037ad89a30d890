import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SeriesRun } from '../memtable/memtable.js';
import { filterRuns } from './memtable-scan-function.js';

function run(key: SeriesRun['key'], ts: number[]): SeriesRun {
  return { key, ts: BigInt64Array.from(ts.map(BigInt)), seq: Float64Array.from(ts), op: Uint8Array.from(ts.map(() => 1)), fields: [] };
}

const runs = [run(['a', 1], [1, 2, 2, 3, 5]), run(['b', 2n], [2, 4]), run([null, 3], [1, 2]), run(['c', 1.5], [2])];
const ranges = (f: Parameters<typeof filterRuns>[1]) => filterRuns(runs, f).map((p) => [runs.indexOf(p.run), p.start, p.end]);

test('filterRuns: inclusive time bounds cut each run (rows of equal times stay together)', () => {
  assert.deepEqual(ranges({}), [[0, 0, 5], [1, 0, 2], [2, 0, 2], [3, 0, 1]]);
  assert.deepEqual(ranges({ start: 2n, end: 2n }), [[0, 1, 3], [1, 0, 1], [2, 1, 2], [3, 0, 1]]);
  assert.deepEqual(ranges({ start: 3n }), [[0, 3, 5], [1, 1, 2]]);
  assert.deepEqual(ranges({ end: 1n }), [[0, 0, 1], [2, 0, 1]]);
  assert.deepEqual(ranges({ start: 6n }), []);
});

test('filterRuns: key values keep matching series only; NULL keys never match; integers match numbers and bigints', () => {
  assert.deepEqual(ranges({ keys: [{ keyIndex: 0, values: ['a', 'c'] }] }), [[0, 0, 5], [3, 0, 1]]);
  assert.deepEqual(ranges({ keys: [{ keyIndex: 1, values: [2n, 3n] }] }), [[1, 0, 2], [2, 0, 2]]);
  assert.deepEqual(ranges({ keys: [{ keyIndex: 1, values: [1n] }] }), [[0, 0, 5]], 'a non-integer key is no integer');
  assert.deepEqual(ranges({ keys: [{ keyIndex: 0, values: ['a'] }, { keyIndex: 1, values: [2n] }] }), []);
  assert.deepEqual(ranges({ keys: [{ keyIndex: 0, values: [] }] }), []);
  assert.deepEqual(ranges({ start: 2n, end: 3n, keys: [{ keyIndex: 0, values: ['a'] }] }), [[0, 1, 4]]);
});
