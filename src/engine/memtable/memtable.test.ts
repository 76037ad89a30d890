import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OP_DELETE, OP_PUT, type OpType, type Vector, type WriteBatch } from '../../types/write-batch.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import { createMemtable } from './create-memtable.js';
import { DEFAULT_MEMTABLE_OPTIONS, type Memtable, type MemtableOptions, type ReadMode, type SeriesRun } from './memtable.js';
import { PartitionTreeMemtable } from './partition-tree-memtable.js';
import { PENDING_ROWS } from './time-series-memtable.js';

/** Every memtable kind, partition_tree also with tiny shards and parts so that both come into play. */
const KINDS: ReadonlyArray<[string, MemtableOptions]> = [
  ['time_series', DEFAULT_MEMTABLE_OPTIONS],
  ['partition_tree', { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' }],
  ['partition_tree (2 keys per shard, parts of 7 rows)', { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree', indexMaxKeysPerShard: 2, dataFreezeThreshold: 7 }],
];

const METADATA: RegionMetadata = {
  region_id: '4398046511104',
  schema_version: 0,
  columns: [
    { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'dc', type: 'String', semantic_type: 'tag', nullable: true, default: 'dc0' },
    { column_id: 2, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 3, name: 'usage', type: 'Float64', semantic_type: 'field', nullable: true },
    { column_id: 4, name: 'count', type: 'Int64', semantic_type: 'field', nullable: true, default: 7 },
    { column_id: 5, name: 'note', type: 'String', semantic_type: 'field', nullable: true },
    { column_id: 6, name: 'flag', type: 'Boolean', semantic_type: 'field', nullable: true },
  ],
  primary_key: [0, 1],
  time_index: 2,
  options: { append_mode: false, merge_mode: 'last_row' },
};

type Val = number | bigint | string | boolean | null;
interface ModelRow {
  key: [string | null, string | null];
  ts: bigint;
  seq: number;
  op: OpType;
  fields: [number | null, bigint | null, string | null, boolean | null];
}

/** A deterministic pseudo-random generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomBatch(r: () => number, op: OpType): { batch: WriteBatch; rows: Omit<ModelRow, 'seq'>[] } {
  const n = 1 + Math.floor(r() * 20);
  const withDc = r() < 0.7;
  const withCount = r() < 0.7;
  const host: (string | null)[] = [];
  const dc: (string | null)[] = [];
  const ts = new BigInt64Array(n);
  const usage = new Float64Array(n);
  const usageValid = new Uint8Array(n).fill(1);
  const count = new BigInt64Array(n);
  const note: (string | null)[] = [];
  const flag = new Uint8Array(n);
  const rows: Omit<ModelRow, 'seq'>[] = [];
  for (let i = 0; i < n; i++) {
    host.push(r() < 0.1 ? null : `h${Math.floor(r() * 3)}`);
    dc.push(r() < 0.5 ? 'dc0' : 'dc1');
    ts[i] = BigInt(1_700_000_000_000 + Math.floor(r() * 8) * 1000);
    const u = r() < 0.3 ? null : Math.round(r() * 1000) / 10;
    if (u === null) usageValid[i] = 0;
    else usage[i] = u;
    count[i] = BigInt(Math.floor(r() * 100));
    note.push(r() < 0.3 ? null : `n${Math.floor(r() * 5)}`);
    flag[i] = r() < 0.5 ? 1 : 0;
    rows.push({
      key: [host[i]!, withDc ? dc[i]! : 'dc0'],
      ts: ts[i]!,
      op,
      fields: op === OP_DELETE ? [null, null, null, null] : [u, withCount ? count[i]! : 7n, note[i]!, flag[i] === 1],
    });
  }
  const columns = new Map<number, Vector>([
    [0, { type: 'string', data: host }],
    [2, { type: 'int64', data: ts }],
  ]);
  if (withDc) columns.set(1, { type: 'string', data: dc });
  if (op === OP_PUT) {
    columns.set(3, { type: 'float64', data: usage, valid: usageValid });
    if (withCount) columns.set(4, { type: 'int64', data: count });
    columns.set(5, { type: 'string', data: note });
    columns.set(6, { type: 'bool', data: flag });
  }
  return { batch: { op, rowCount: n, columns }, rows };
}

function cmpKey(a: ModelRow['key'], b: ModelRow['key']): number {
  for (let i = 0; i < 2; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === null) return -1;
    if (b[i] === null) return 1;
    return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

function expected(model: ModelRow[], mode: ReadMode): ModelRow[] {
  const sorted = [...model].sort((a, b) => cmpKey(a.key, b.key) || (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : b.seq - a.seq));
  if (mode === 'append') return sorted;
  const out: ModelRow[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && cmpKey(sorted[j]!.key, sorted[i]!.key) === 0 && sorted[j]!.ts === sorted[i]!.ts) j++;
    const group = sorted.slice(i, j);
    const newest = group[0]!;
    if (mode === 'last_row' || newest.op === OP_DELETE) out.push(newest);
    else {
      const fields = newest.fields.map((_, f) => {
        for (const row of group) {
          if (row.op === OP_DELETE) return null;
          if (row.fields[f] !== null) return row.fields[f];
        }
        return null;
      }) as ModelRow['fields'];
      out.push({ ...newest, fields });
    }
    i = j;
  }
  return out;
}

function vectorValue(v: Vector, i: number): Val {
  switch (v.type) {
    case 'string':
      return v.data[i] ?? null;
    case 'bool':
      return v.valid?.[i] === 0 ? null : v.data[i] === 1;
    case 'binary':
      throw new Error('no binary fields here');
    default:
      return v.valid?.[i] === 0 ? null : v.data[i]!;
  }
}

function actual(mt: Memtable, mode: ReadMode): ModelRow[] {
  const out: ModelRow[] = [];
  for (const run of mt.runs(mode)) {
    for (let i = 0; i < run.ts.length; i++) {
      out.push({
        key: run.key as ModelRow['key'],
        ts: run.ts[i]!,
        seq: run.seq[i]!,
        op: run.op[i] as OpType,
        fields: run.fields.map((v) => vectorValue(v, i)) as ModelRow['fields'],
      });
    }
  }
  return out;
}

/** A metric engine physical region: `__table_id` and `__tsid` lead the key. */
const PHYSICAL: RegionMetadata = {
  region_id: '4398046511105',
  schema_version: 0,
  columns: [
    { column_id: 0, name: '__table_id', type: 'UInt32', semantic_type: 'tag', nullable: false },
    { column_id: 1, name: '__tsid', type: 'UInt64', semantic_type: 'tag', nullable: false },
    { column_id: 2, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 3, name: 'v', type: 'Float64', semantic_type: 'field', nullable: true },
    { column_id: 4, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
  ],
  primary_key: [0, 1, 4],
  time_index: 2,
  options: { append_mode: false, merge_mode: 'last_row' },
};

function physicalBatch(rows: ReadonlyArray<readonly [tableId: number, tsid: bigint, ts: number]>): WriteBatch {
  return {
    op: OP_PUT,
    rowCount: rows.length,
    columns: new Map<number, Vector>([
      [0, { type: 'float64', data: Float64Array.from(rows, (r) => r[0]) }],
      [1, { type: 'uint64', data: BigUint64Array.from(rows, (r) => r[1]) }],
      [2, { type: 'int64', data: BigInt64Array.from(rows, (r) => BigInt(r[2])) }],
      [3, { type: 'float64', data: Float64Array.from(rows, () => 1) }],
      [4, { type: 'string', data: rows.map((r) => `h${r[1]}`) }],
    ]),
  };
}

for (const [kind, opts] of KINDS) {
  test(`${kind}: a physical region counts its series per logical table (__table_id); other regions do not`, () => {
    const mt = createMemtable(PHYSICAL, opts);
    mt.write(physicalBatch([[1024, 1n, 1], [1024, 1n, 2], [1024, 2n, 1], [1025, 3n, 1], [1026, 4n, 1]]), 1);
    // Series seen again, in another batch, are not counted twice; new ones are.
    mt.write(physicalBatch([[1026, 4n, 2], [1024, 2n, 3], [1025, 5n, 1], [1025, 6n, 1]]), 6);
    assert.deepEqual([...mt.seriesByTable()!].sort((a, b) => a[0] - b[0]), [[1024, 2], [1025, 3], [1026, 1]]);
    assert.equal(mt.stats().series, 6);
    const plain = createMemtable(METADATA, opts);
    plain.write(hostBatch(3, 2), 1);
    assert.equal(plain.seriesByTable(), undefined);
  });
}

for (const [kind, opts] of KINDS) {
for (const seed of [1, 2, 3, 42, 1234]) {
  test(`${kind}: random puts and deletes read out like the model in every mode (seed ${seed})`, () => {
    const r = rng(seed);
    const mt = createMemtable(METADATA, opts);
    const model: ModelRow[] = [];
    let seq = 1;
    for (let b = 0; b < 60; b++) {
      const { batch, rows } = randomBatch(r, r() < 0.15 ? OP_DELETE : OP_PUT);
      mt.write(batch, seq);
      rows.forEach((row, i) => model.push({ ...row, seq: seq + i }));
      seq += batch.rowCount;
    }
    for (const mode of ['append', 'last_row', 'last_non_null'] as const) {
      assert.deepEqual(actual(mt, mode), expected(model, mode), mode);
    }
    const stats = mt.stats();
    assert.equal(stats.rows, model.length);
    assert.equal(stats.minSequence, 1);
    assert.equal(stats.maxSequence, seq - 1);
    assert.ok(stats.bytes > model.length * 17, 'memory is accounted');
  });
}

test(`${kind}: read outs between writes match the model then and are not changed by later writes`, () => {
  const r = rng(7);
  const mt = createMemtable(METADATA, opts);
  const model: ModelRow[] = [];
  const snapshots: { runs: SeriesRun[]; want: ModelRow[] }[] = [];
  let seq = 1;
  let clock = 0;
  for (let b = 0; b < 40; b++) {
    // Mostly times moving forward (new series appear as we go); from batch 30 on, some late rows too.
    const n = 1 + Math.floor(r() * 8);
    const host: string[] = [];
    const ts = new BigInt64Array(n);
    const usage = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      host.push(`h${Math.floor(r() * (2 + b))}`);
      ts[i] = BigInt(b >= 30 && r() < 0.3 ? Math.floor(r() * clock) : ++clock);
      usage[i] = Math.round(r() * 1000) / 10;
      model.push({ key: [host[i]!, 'dc0'], ts: ts[i]!, seq: seq + i, op: OP_PUT, fields: [usage[i]!, 7n, null, null] });
    }
    mt.write({ op: OP_PUT, rowCount: n, columns: new Map<number, Vector>([[0, { type: 'string', data: host }], [2, { type: 'int64', data: ts }], [3, { type: 'float64', data: usage }]]) }, seq);
    seq += n;
    if (r() < 0.6) snapshots.push({ runs: [...mt.runs('last_row')], want: expected(model, 'last_row') });
  }
  for (const [i, snap] of snapshots.entries()) {
    assert.deepEqual(actual({ runs: () => snap.runs } as unknown as Memtable, 'last_row'), snap.want, `read out ${i}`);
  }
  assert.deepEqual(actual(mt, 'append'), expected(model, 'append'));
});

test(`${kind}: series in time order need no sort and read out as written`, () => {
  const mt = createMemtable(METADATA, opts);
  const ts = BigInt64Array.from([1n, 2n, 3n]);
  mt.write({ op: OP_PUT, rowCount: 3, columns: new Map<number, Vector>([[0, { type: 'string', data: ['a', 'a', 'a'] }], [2, { type: 'int64', data: ts }]]) }, 10);
  const [run] = [...mt.runs('last_row')];
  assert.deepEqual([...run!.ts], [1n, 2n, 3n]);
  assert.deepEqual([...run!.seq], [10, 11, 12]);
  assert.deepEqual(run!.key, ['a', 'dc0']);
  // Absent fields take their default (count = 7) or NULL.
  assert.deepEqual([...(run!.fields[1]!.data as BigInt64Array)], [7n, 7n, 7n]);
  assert.equal(vectorValue(run!.fields[0]!, 0), null);
});

test(`${kind}: a frozen memtable refuses writes; a batch without a time index is refused`, () => {
  const mt = createMemtable(METADATA, opts);
  assert.throws(() => mt.write({ op: OP_PUT, rowCount: 0, columns: new Map() }, 1), /no int64 time index column ts/);
  mt.freeze();
  assert.throws(() => mt.write({ op: OP_PUT, rowCount: 0, columns: new Map() }, 1), /frozen/);
});

test(`${kind}: times beyond 32 bits and below zero sort correctly`, () => {
  const mt = createMemtable(METADATA, opts);
  const times = [-5n, 2n ** 40n, 0n, -(2n ** 35n), 2n ** 32n, 2n ** 32n - 1n, 1_700_000_000_000_000_000n];
  mt.write({ op: OP_PUT, rowCount: times.length, columns: new Map<number, Vector>([[0, { type: 'string', data: times.map(() => 'x') }], [2, { type: 'int64', data: BigInt64Array.from(times) }]]) }, 1);
  const [run] = [...mt.runs('last_row')];
  assert.deepEqual([...run!.ts], [...times].sort((a, b) => (a < b ? -1 : 1)));
  assert.equal(mt.stats().minTs, -(2n ** 35n));
  assert.equal(mt.stats().maxTs, 1_700_000_000_000_000_000n);
  const inOrder = createMemtable(METADATA, opts);
  const sorted = [-(2n ** 35n), -1n, 2n ** 32n - 1n, 2n ** 32n];
  inOrder.write({ op: OP_PUT, rowCount: 4, columns: new Map<number, Vector>([[0, { type: 'string', data: sorted.map(() => 'x') }], [2, { type: 'int64', data: BigInt64Array.from(sorted) }]]) }, 1);
  assert.deepEqual([...[...inOrder.runs('last_row')][0]!.ts], sorted);
});
}

/** A batch of `hosts` series (tag host = h0, h1, …), `perHost` rows each at times 0, 1, … */
function hostBatch(hosts: number, perHost: number, t0 = 0): WriteBatch {
  const n = hosts * perHost;
  const host = Array.from({ length: n }, (_, i) => `h${i % hosts}`);
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(t0 + Math.floor(i / hosts)));
  const usage = Float64Array.from({ length: n }, (_, i) => i);
  return { op: OP_PUT, rowCount: n, columns: new Map<number, Vector>([[0, { type: 'string', data: host }], [2, { type: 'int64', data: ts }], [3, { type: 'float64', data: usage }]]) };
}

test('partition_tree: keys fill shards of index_max_keys_per_shard; full buffers become sorted parts', () => {
  const mt = new PartitionTreeMemtable(METADATA, { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree', indexMaxKeysPerShard: 4, dataFreezeThreshold: 10 });
  mt.write(hostBatch(10, 5), 1);
  assert.equal(mt.shardCount(), 3, '10 keys, 4 per shard');
  // Shards of 4 keys get 20 rows: one part of 10 each and 10 left in the buffer, which freezes too.
  assert.equal(mt.partCount(), 5);
  const runs = [...mt.runs('last_row')];
  assert.deepEqual(runs.map((r) => r.key[0]), ['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9']);
  for (const r of runs) assert.deepEqual([...r.ts], [0n, 1n, 2n, 3n, 4n]);
  assert.equal(mt.stats().series, 10);
  const wide = new PartitionTreeMemtable(METADATA, { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' });
  wide.write(hostBatch(10, 5), 1);
  assert.equal(wide.shardCount(), 1);
  assert.equal(wide.partCount(), 0, 'the buffer is below data_freeze_threshold');
});

test('partition_tree: the next memtable goes on with the key dictionary up to fork_dictionary_bytes', () => {
  const opts: MemtableOptions = { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' };
  const first = createMemtable(METADATA, opts) as PartitionTreeMemtable;
  first.write(hostBatch(50, 2), 1);
  first.freeze();
  const forked = createMemtable(METADATA, opts, first) as PartitionTreeMemtable;
  assert.equal(forked.dictionary, first.dictionary, 'forked');
  forked.write(hostBatch(5, 1, 10), 101);
  assert.equal(forked.stats().series, 5, 'only keys with rows are series of the new memtable');
  assert.equal(first.dictionary.keys.length, 50, 'known keys take no new entry');
  assert.deepEqual([...forked.runs('last_row')].map((r) => r.key[0]), ['h0', 'h1', 'h2', 'h3', 'h4']);
  assert.equal([...first.runs('last_row')].length, 50, 'the frozen memtable reads as before');
  const small = createMemtable(METADATA, { ...opts, forkDictionaryBytes: 100 }, first) as PartitionTreeMemtable;
  assert.notEqual(small.dictionary, first.dictionary, 'a dictionary above fork_dictionary_bytes starts anew');
  const otherKey = createMemtable({ ...METADATA, primary_key: [0] }, opts, first) as PartitionTreeMemtable;
  assert.notEqual(otherKey.dictionary, first.dictionary, 'a changed primary key starts anew');
});

test('partition_tree holds many series in less memory than time_series', () => {
  const ts = createMemtable(METADATA, DEFAULT_MEMTABLE_OPTIONS);
  const pt = createMemtable(METADATA, { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' });
  const batch = hostBatch(20_000, 2);
  ts.write(batch, 1);
  pt.write(batch, 1);
  assert.ok(pt.stats().bytes < ts.stats().bytes, `partition_tree ${pt.stats().bytes} B < time_series ${ts.stats().bytes} B`);
});

test("a table's memtable.* options choose its memtable over the engine's", () => {
  const own: RegionMetadata = { ...METADATA, options: { ...METADATA.options, memtable: { type: 'partition_tree', index_max_keys_per_shard: 4, data_freeze_threshold: 10 } } };
  const mt = createMemtable(own, DEFAULT_MEMTABLE_OPTIONS);
  assert.ok(mt instanceof PartitionTreeMemtable, 'partition_tree although the engine default is time_series');
  mt.write(hostBatch(10, 5), 1);
  assert.equal(mt.shardCount(), 3, 'index_max_keys_per_shard = 4 from the table');
  assert.equal(mt.partCount(), 5, 'data_freeze_threshold = 10 from the table');
  const engineWide = createMemtable({ ...METADATA, options: { ...METADATA.options, memtable: { index_max_keys_per_shard: 4 } } }, { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' });
  assert.ok(engineWide instanceof PartitionTreeMemtable, 'an unset type follows the engine');
  engineWide.write(hostBatch(10, 5), 1);
  assert.equal(engineWide.shardCount(), 3);
  assert.ok(!(createMemtable({ ...METADATA, options: { ...METADATA.options, memtable: { type: 'time_series' } } }, { ...DEFAULT_MEMTABLE_OPTIONS, type: 'partition_tree' }) instanceof PartitionTreeMemtable));
});

test('time_series: a series of one row reads out its buffers as they are; later rows leave that read out unchanged', () => {
  const mt = createMemtable(METADATA, DEFAULT_MEMTABLE_OPTIONS);
  const write = (hosts: string[], ts: bigint[], usage: (number | null)[], seq: number) =>
    mt.write({
      op: OP_PUT,
      rowCount: hosts.length,
      columns: new Map<number, Vector>([
        [0, { type: 'string', data: hosts }],
        [2, { type: 'int64', data: BigInt64Array.from(ts) }],
        [3, { type: 'float64', data: Float64Array.from(usage, (u) => u ?? 0), valid: Uint8Array.from(usage, (u) => (u === null ? 0 : 1)) }],
      ]),
    }, seq);
  write(['a', 'b'], [1n, 1n], [0.5, null], 1);
  const first = [...mt.runs('last_row')];
  assert.deepEqual(first.map((r) => [r.key[0], [...r.ts], [...r.seq], [...r.op]]), [['a', [1n], [1], [OP_PUT]], ['b', [1n], [2], [OP_PUT]]]);
  assert.deepEqual(first.map((r) => vectorValue(r.fields[0]!, 0)), [0.5, null]);
  // Every later row moves a full buffer to a new one: the first read out keeps one row per series.
  for (let k = 2; k <= 20; k++) write(['a', 'b'], [BigInt(k), BigInt(k)], [k, k % 3 === 0 ? null : -k], 2 * k);
  assert.deepEqual(first.map((r) => [r.ts.length, r.seq.length, r.op.length, r.fields.map((f) => f.data.length)]), [[1, 1, 1, [1, 1, 1, 1]], [1, 1, 1, [1, 1, 1, 1]]]);
  assert.deepEqual(first.map((r) => [r.ts[0], r.seq[0], vectorValue(r.fields[0]!, 0)]), [[1n, 1, 0.5], [1n, 2, null]]);
  const now = [...mt.runs('last_row')];
  assert.deepEqual(now.map((r) => r.ts.length), [20, 20]);
  assert.deepEqual(Array.from({ length: 20 }, (_, i) => vectorValue(now[1]!.fields[0]!, i)), Array.from({ length: 20 }, (_, i) => (i === 0 || (i + 1) % 3 === 0 ? null : -(i + 1))));
});

/** A batch of 200–400 rows over 3,000 hosts: about a row per series. */
function sparseBatch(r: () => number, op: OpType): { batch: WriteBatch; rows: Omit<ModelRow, 'seq'>[] } {
  const n = 200 + Math.floor(r() * 200);
  const host: string[] = [];
  const ts = new BigInt64Array(n);
  const usage = new Float64Array(n);
  const rows: Omit<ModelRow, 'seq'>[] = [];
  for (let i = 0; i < n; i++) {
    host.push(`s${Math.floor(r() * 3000)}`);
    ts[i] = BigInt(1_700_000_000_000 + Math.floor(r() * 50) * 1000);
    usage[i] = Math.round(r() * 1000) / 10;
    rows.push({ key: [host[i]!, 'dc0'], ts: ts[i]!, op, fields: op === OP_DELETE ? [null, null, null, null] : [usage[i]!, 7n, null, null] });
  }
  const columns = new Map<number, Vector>([[0, { type: 'string', data: host }], [2, { type: 'int64', data: ts }]]);
  if (op === OP_PUT) columns.set(3, { type: 'float64', data: usage });
  return { batch: { op, rowCount: n, columns }, rows };
}

test('time_series: rows wait in the pending buffer until a read or PENDING_ROWS of them; either way they read out like the model', () => {
  const r = rng(99);
  const mt = createMemtable(METADATA, DEFAULT_MEMTABLE_OPTIONS);
  const model: ModelRow[] = [];
  let seq = 1;
  let read = false;
  // A read at 20,000 rows, then past the pending limit before the next. Batches of many series with
  // a row or two each (they wait), some of few series with many rows each (they hand out what
  // waits and go to their series at once), puts, deletes and absent columns.
  while (model.length < PENDING_ROWS + 35_000) {
    // None between the read and the pending limit, so that the limit is what hands the rows out.
    const dense = (model.length < 20_000 || model.length > PENDING_ROWS + 26_000) && r() < 0.05;
    const { batch, rows } = dense ? randomBatch(r, r() < 0.1 ? OP_DELETE : OP_PUT) : sparseBatch(r, r() < 0.05 ? OP_DELETE : OP_PUT);
    mt.write(batch, seq);
    rows.forEach((row, i) => model.push({ ...row, seq: seq + i }));
    seq += batch.rowCount;
    if (!read && model.length >= 20_000) {
      read = true;
      assert.deepEqual(actual(mt, 'last_non_null'), expected(model, 'last_non_null'), `read at ${model.length} rows`);
    }
  }
  for (const mode of ['append', 'last_row', 'last_non_null'] as const) assert.deepEqual(actual(mt, mode), expected(model, mode), mode);
  assert.equal(mt.stats().rows, model.length);
  assert.equal(mt.stats().series, new Set(model.map((m) => JSON.stringify(m.key))).size);
});
