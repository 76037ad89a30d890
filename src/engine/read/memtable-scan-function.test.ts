import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SeriesRun } from '../memtable/memtable.js';
import { candidateRanges, filterRuns } from './memtable-scan-function.js';

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

test('filterRuns: lastRow keeps each run\'s last row in the time range (every row of that time, where several)', () => {
  assert.deepEqual(ranges({ lastRow: true }), [[0, 4, 5], [1, 1, 2], [2, 1, 2], [3, 0, 1]]);
  assert.deepEqual(ranges({ lastRow: true, end: 2n }), [[0, 1, 3], [1, 0, 1], [2, 1, 2], [3, 0, 1]]);
  assert.deepEqual(ranges({ lastRow: true, start: 3n, end: 4n }), [[0, 3, 4], [1, 1, 2]]);
  assert.deepEqual(ranges({ lastRow: true, start: 2n, end: 2n, keys: [{ keyIndex: 0, values: ['a'] }] }), [[0, 1, 3]]);
});

test('tsdb_memtable_scan: the filter is applied run by run across chunks (keys, time bounds, none)', async (t) => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { TimeSeriesMemtable } = await import('../memtable/time-series-memtable.js');
  const { OP_PUT } = await import('../../types/write-batch.js');
  const { publishRuns, registerMemtableScan } = await import('./memtable-scan-function.js');
  const md = {
    region_id: '4398046511104',
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 2, name: 'v', type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0],
    time_index: 1,
    options: { append_mode: false, merge_mode: 'last_row' },
  } as const;
  const mt = new TimeSeriesMemtable(structuredClone(md) as never);
  // 3,000 series × 5 rows (times 0..4): runs of 5 rows, chunks of 2,048 rows cut through runs.
  const n = 15_000;
  mt.write({
    op: OP_PUT,
    rowCount: n,
    columns: new Map([
      [0, { type: 'string', data: Array.from({ length: n }, (_, i) => `h${i % 3000}`) }],
      [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(Math.floor(i / 3000))) }],
      [2, { type: 'float64', data: Float64Array.from({ length: n }, (_, i) => i) }],
    ]) as never,
  }, 1);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  registerMemtableScan(conn);
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  const count = async (filter: Parameters<typeof publishRuns>[3]) => {
    const h = publishRuns(mt.metadata, mt.fields, mt.runs('last_row'), filter);
    try {
      const [row] = (await conn.runAndReadAll(`SELECT count(*), sum(c2), count(DISTINCT c0) FROM tsdb_memtable_scan('${h.id}')`)).getRows();
      return row!.map(Number);
    } finally {
      h.dispose();
    }
  };
  assert.deepEqual(await count({}), [n, (n * (n - 1)) / 2, 3000]);
  assert.deepEqual(await count({ start: 1n, end: 3n }), [9000, [...Array(n).keys()].filter((i) => i >= 3000 && i < 12000).reduce((a, b) => a + b, 0), 3000]);
  assert.deepEqual(await count({ keys: [{ keyIndex: 0, values: ['h7', 'h2999', 'nope'] }] }), [10, [7, 2999].reduce((a, h) => a + [0, 1, 2, 3, 4].reduce((b, k) => b + h + k * 3000, 0), 0), 2]);
  assert.deepEqual(await count({ start: 4n, keys: [{ keyIndex: 0, values: ['h1'] }] }), [1, 12001, 1]);
  assert.deepEqual(await count({ start: 5n }), [0, 0, 0]);
});

test('tsdb_memtable_scan: short pieces copy times below zero and beyond 32 bits, and sequences beyond 32 bits, exactly', async (t) => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { TimeSeriesMemtable } = await import('../memtable/time-series-memtable.js');
  const { OP_PUT } = await import('../../types/write-batch.js');
  const { publishRuns, registerMemtableScan } = await import('./memtable-scan-function.js');
  const mt = new TimeSeriesMemtable({
    region_id: '4398046511104',
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'ts', type: 'TimestampNanosecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 2, name: 'v', type: 'Int64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0],
    time_index: 1,
    options: { append_mode: false, merge_mode: 'last_row' },
  });
  const times = [-(2n ** 62n), -(2n ** 32n) - 1n, -1n, 0n, 2n ** 31n, 2n ** 32n + 5n, 1_700_000_000_123_456_789n];
  const hosts = 50;
  const n = hosts * times.length;
  const firstSeq = 2 ** 40 + 3;
  mt.write({
    op: OP_PUT,
    rowCount: n,
    columns: new Map([
      [0, { type: 'string', data: Array.from({ length: n }, (_, i) => `h${i % hosts}`) }],
      [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => times[Math.floor(i / hosts)]!) }],
      [2, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) - 2n ** 40n) }],
    ]) as never,
  }, firstSeq);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  registerMemtableScan(conn);
  const h = publishRuns(mt.metadata, mt.fields, mt.runs('last_row'));
  t.after(() => {
    h.dispose();
    conn.closeSync();
    db.closeSync();
  });
  const got = (await conn.runAndReadAll(`SELECT c0, epoch_ns(c1), c2, __sequence FROM tsdb_memtable_scan('${h.id}') WHERE c0 = 'h7' ORDER BY c1`)).getRows();
  assert.deepEqual(got, times.map((ts, k) => ['h7', ts, BigInt(k * hosts + 7) - 2n ** 40n, BigInt(firstSeq + k * hosts + 7)]));
});

test('candidateRanges: a filter on the first key column finds exactly the runs of its string values by binary search', () => {
  // Runs in key order (NULL first), several runs per first value (a second key column).
  const firsts = [null, null, 'a', 'a', 'a', 'ab', 'b', 'b', 'h10', 'h2', 'h2', 'z', 'é', 'é'];
  const sorted = firsts.map((f, i) => run([f, i], [i]));
  const brute = (values: string[]) => {
    const out: number[] = [];
    sorted.forEach((r, i) => {
      if (values.includes(r.key[0] as string)) {
        if (out.length > 0 && out[out.length - 1] === i) out[out.length - 1] = i + 1;
        else out.push(i, i + 1);
      }
    });
    return out;
  };
  const pool = ['a', 'ab', 'b', 'h10', 'h2', 'z', 'é', '', 'aa', 'c', 'zz', 'h1'];
  for (let mask = 0; mask < 1 << pool.length; mask += 7) {
    const values = pool.filter((_, i) => (mask >> i) & 1).reverse();
    assert.deepEqual([...candidateRanges(sorted, { keys: [{ keyIndex: 0, values }] })!], brute(values), values.join(','));
  }
  assert.deepEqual([...candidateRanges(sorted, { keys: [{ keyIndex: 0, values: ['b', 'b', 'a'] }] })!], [2, 5, 6, 8], 'duplicates and order of values do not matter');
  assert.equal(candidateRanges(sorted, {}), undefined, 'no key filter: every run');
  assert.equal(candidateRanges(sorted, { keys: [{ keyIndex: 1, values: [3n] }] }), undefined, 'not the first key column');
  assert.equal(candidateRanges([run([1, 'x'], [1])], { keys: [{ keyIndex: 0, values: [1n] }] }), undefined, 'integer values');
  assert.equal(candidateRanges([run([1, 'x'], [1])], { keys: [{ keyIndex: 0, values: ['1'] }] }), undefined, 'an integer key column');
  assert.deepEqual([...candidateRanges([], { keys: [{ keyIndex: 0, values: ['a'] }] })!], []);
});

test('tsdb_memtable_scan: string tags of every length (inlined or not, multi-byte, NULL) come out as written, across chunks', async (t) => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { TimeSeriesMemtable } = await import('../memtable/time-series-memtable.js');
  const { OP_PUT } = await import('../../types/write-batch.js');
  const { publishRuns, registerMemtableScan } = await import('./memtable-scan-function.js');
  const mt = new TimeSeriesMemtable({
    region_id: '4398046511104',
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'dc', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 2, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 3, name: 'v', type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0, 1],
    time_index: 2,
    options: { append_mode: false, merge_mode: 'last_row' },
  });
  // 12 bytes fit a duckdb_string_t inline, 13 do not; 'é' is 2 bytes (6 of them: 12 bytes, 7: 14).
  const dcs = ['', 'x', 'abcdefghijkl', 'abcdefghijklm', 'é'.repeat(6), 'é'.repeat(7), '日本', 'a-much-longer-data-centre-name', null];
  const hosts = 600; // 600 × 9 = 5,400 series, one row each: chunks of 2,048 rows of 1-row pieces
  const n = hosts * dcs.length;
  mt.write({
    op: OP_PUT,
    rowCount: n,
    columns: new Map([
      [0, { type: 'string', data: Array.from({ length: n }, (_, i) => `host-${i % hosts}`) }],
      [1, { type: 'string', data: Array.from({ length: n }, (_, i) => dcs[Math.floor(i / hosts)]) }],
      [2, { type: 'int64', data: BigInt64Array.from({ length: n }, () => 5n) }],
      [3, { type: 'float64', data: Float64Array.from({ length: n }, (_, i) => i) }],
    ]) as never,
  }, 1);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  registerMemtableScan(conn);
  const h = publishRuns(mt.metadata, mt.fields, mt.runs('last_row'));
  t.after(() => {
    h.dispose();
    conn.closeSync();
    db.closeSync();
  });
  const got = (await conn.runAndReadAll(`SELECT c0, c1, c3 FROM tsdb_memtable_scan('${h.id}') ORDER BY c3`)).getRows();
  assert.equal(got.length, n);
  for (let i = 0; i < n; i++) assert.deepEqual(got[i], [`host-${i % hosts}`, dcs[Math.floor(i / hosts)], i], `row ${i}`);
});
