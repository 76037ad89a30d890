import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SeriesRun } from '../memtable/memtable.js';
import { cpuRegionMetadata } from '../../../test/support/engine.js';
import { regionId } from '../../types/region-id.js';
import { LastRowCache, lastRowsOf } from './last-row-cache.js';

const md = cpuRegionMetadata(regionId(1, 0));

function run(host: string, ts: number[], op = ts.map(() => 1)): SeriesRun {
  return {
    key: [host],
    ts: BigInt64Array.from(ts.map(BigInt)),
    seq: Float64Array.from(ts, (_, i) => i + 1),
    op: Uint8Array.from(op),
    fields: [{ type: 'float64', data: Float64Array.from(ts, (t) => t * 10), valid: Uint8Array.from(ts, (t) => (t === 3 ? 0 : 1)) }],
  };
}

test('lastRowsOf: each run\'s rows of its latest time, copied (not views of the runs), and whether any row is a delete', () => {
  const runs = [run('a', [1, 2, 3]), run('b', [1, 4, 4]), run('c', [])];
  const rows = lastRowsOf(md, [{ column_id: 2 }], runs);
  assert.equal(rows.deletes, false);
  assert.deepEqual(rows.runs.map((r) => [r.key[0], [...r.ts], [...r.seq], [...r.op]]), [['a', [3n], [3], [1]], ['b', [4n, 4n], [2, 3], [1, 1]]]);
  const v = rows.runs[0]!.fields[0]!;
  assert.ok(v.type === 'float64');
  assert.deepEqual([...v.data, ...v.valid!], [30, 0]);
  assert.notEqual(v.data.buffer, (runs[0]!.fields[0]!.data as Float64Array).buffer);
  assert.equal(lastRowsOf(md, [{ column_id: 2 }], [run('a', [1, 2], [0, 1])]).deletes, true);
});

test('LastRowCache: keeps entries within its bytes, evicting the least recently used; forget drops one', () => {
  const entry = (host: string) => lastRowsOf(md, [{ column_id: 2 }], [run(host, [1])]);
  const one = new LastRowCache(1 << 20);
  one.put('x', entry('a'));
  const size = one.stats().bytes;
  assert.ok(size > 0);
  const cache = new LastRowCache(2 * size);
  cache.put('f1', entry('a'));
  cache.put('f2', entry('b'));
  assert.ok(cache.get('f1') !== undefined, 'f1 now the most recent');
  cache.put('f3', entry('c'));
  assert.equal(cache.get('f2'), undefined);
  assert.deepEqual([cache.get('f1')?.runs[0]?.key, cache.get('f3')?.runs[0]?.key], [['a'], ['c']]);
  cache.forget('f1');
  // Lookups: f1, f1 and f3 found; f2 not.
  assert.deepEqual(cache.stats(), { entries: 1, bytes: size, hits: 3, misses: 1 });
  assert.equal(new LastRowCache(0).stats().entries, 0);
  const off = new LastRowCache(0);
  off.put('f', entry('a'));
  assert.equal(off.get('f'), undefined, '0 keeps nothing');
});
