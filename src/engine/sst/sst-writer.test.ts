import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { tempDir } from '../../../test/support/temp.js';
import { OP_DELETE, OP_PUT, type Vector } from '../../types/write-batch.js';
import { TimeSeriesMemtable } from '../memtable/time-series-memtable.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import { METADATA_KEY } from './sst-format.js';
import { quoteLiteral } from '../../common/sql-quote.js';
import { registerMemtableScan } from '../read/memtable-scan-function.js';
import { writeSst } from './sst-writer.js';

const METADATA: RegionMetadata = {
  region_id: '4398046511104',
  schema_version: 0,
  columns: [
    { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'ts', type: 'TimestampNanosecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 2, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true },
    { column_id: 3, name: 'n', type: 'Int32', semantic_type: 'field', nullable: true },
    { column_id: 4, name: 'ok', type: 'Boolean', semantic_type: 'field', nullable: true },
    { column_id: 5, name: 'msg', type: 'String', semantic_type: 'field', nullable: true },
  ],
  primary_key: [0],
  time_index: 1,
  options: { append_mode: false, merge_mode: 'last_row' },
};

test('memtable runs become a sorted, merged Parquet file with footer statistics and metadata', async (t) => {
  const dir = tempDir(t);
  const mt = new TimeSeriesMemtable(METADATA);
  const base = 1_700_000_000_000_000_000n;
  const rows = 5000;
  mt.write(
    {
      op: OP_PUT,
      rowCount: rows,
      columns: new Map<number, Vector>([
        [0, { type: 'string', data: Array.from({ length: rows }, (_, i) => (i % 3 === 2 ? null : `host-${i % 3}`)) }],
        [1, { type: 'int64', data: BigInt64Array.from({ length: rows }, (_, i) => base + BigInt(Math.floor(i / 3))) }],
        [2, { type: 'float64', data: Float64Array.from({ length: rows }, (_, i) => i / 10), valid: Uint8Array.from({ length: rows }, (_, i) => (i % 7 === 0 ? 0 : 1)) }],
        [3, { type: 'float64', data: Float64Array.from({ length: rows }, (_, i) => i - 2500) }],
        [4, { type: 'bool', data: Uint8Array.from({ length: rows }, (_, i) => i % 2) }],
        [5, { type: 'string', data: Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : `m${i}`)) }],
      ]),
    },
    1,
  );
  // Overwrite one row and delete another: the file holds the newest version of each.
  mt.write({ op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([[0, { type: 'string', data: ['host-0'] }], [1, { type: 'int64', data: BigInt64Array.from([base]) }], [2, { type: 'float64', data: Float64Array.from([99]) }]]) }, 5001);
  mt.write({ op: OP_DELETE, rowCount: 1, columns: new Map<number, Vector>([[0, { type: 'string', data: ['host-1'] }], [1, { type: 'int64', data: BigInt64Array.from([base]) }]]) }, 5002);

  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  registerMemtableScan(conn);
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  const path = join(dir, 'f.parquet');
  const meta = await writeSst(conn, { metadata: METADATA, fields: mt.fields, runs: mt.runs('last_row'), path, fileId: 'f', level: 0 });
  assert.ok(meta);
  assert.equal(meta.num_rows, rows);
  assert.equal(meta.max_sequence, 5002);
  assert.equal(meta.num_row_groups, 1);
  assert.ok(BigInt(meta.time_range[0]) <= base && BigInt(meta.time_range[1]) >= base + 1666n);

  const read = await conn.runAndReadAll(
    `SELECT c0, epoch_ns(c1) AS ts, c2, c3, c4, c5, __sequence, __op_type FROM read_parquet(${quoteLiteral(path)})`,
  );
  const got = read.getRows();
  assert.equal(got.length, rows);
  // Sorted by host (NULL first), then time.
  assert.equal(got[0]![0], null);
  assert.deepEqual(got[got.length - 1]!.slice(0, 1), ['host-1']);
  for (let i = 1; i < got.length; i++) {
    const [h0, t0] = got[i - 1]!;
    const [h1, t1] = got[i]!;
    assert.ok(h0 === h1 ? (t0 as bigint) < (t1 as bigint) : h0 === null || (h1 !== null && (h0 as string) < (h1 as string)), `row ${i} is in order`);
  }
  const first0 = got.find((r) => r[0] === 'host-0' && r[1] === base)!;
  assert.deepEqual([first0[2], first0[6], first0[7]], [99, 5001n, 1]);
  const deleted = got.find((r) => r[0] === 'host-1' && r[1] === base)!;
  assert.deepEqual([deleted[2], deleted[3], deleted[7]], [null, null, 0]);
  const row10 = got.find((r) => r[0] === 'host-1' && r[1] === base + 3n)!; // i = 10
  assert.deepEqual(row10.slice(2, 6), [1, -2490, false, null]);
  const row13 = got.find((r) => r[0] === 'host-1' && r[1] === base + 4n)!; // i = 13
  assert.deepEqual(row13.slice(2, 6), [1.3, -2487, true, 'm13']);
  const row7 = got.find((r) => r[0] === 'host-1' && r[1] === base + 2n)!; // i = 7: cpu NULL
  assert.deepEqual(row7.slice(2, 4), [null, -2493]);

  const kv = await conn.runAndReadAll(`SELECT decode(value) FROM parquet_kv_metadata(${quoteLiteral(path)}) WHERE decode(key) = ${quoteLiteral(METADATA_KEY)}`);
  assert.deepEqual(JSON.parse(String(kv.getRows()[0]![0])), METADATA);
  const codec = await conn.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata(${quoteLiteral(path)})`);
  assert.deepEqual(codec.getRows(), [['ZSTD']]);
});

test('string tags of every length read back through the memtable scan and the SST: inlined (≤ 12 bytes) and not', async (t) => {
  const dir = tempDir(t);
  const mt = new TimeSeriesMemtable(METADATA);
  // Empty, 1 byte, exactly 12 bytes (ASCII and 4 × 3-byte characters), 13 bytes, 5 × 3 bytes, astral characters, long, NULL.
  const hosts = ['', 'a', 'host_1234567', '日本語の', 'host_12345678', '日本語のホ', '😀😀😀', '😀😀😀😀', 'x'.repeat(300), null];
  const per = 3000; // several chunks, pieces of every host in one chunk
  const n = hosts.length * per;
  mt.write(
    {
      op: OP_PUT,
      rowCount: n,
      columns: new Map<number, Vector>([
        [0, { type: 'string', data: Array.from({ length: n }, (_, i) => hosts[i % hosts.length]!) }],
        [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(Math.floor(i / hosts.length))) }],
        [2, { type: 'float64', data: Float64Array.from({ length: n }, () => 1) }],
      ]),
    },
    1,
  );
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  registerMemtableScan(conn);
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  // DuckDB orders strings by their UTF-8 bytes.
  const bytes = (h: string | null) => (h === null ? '' : Buffer.from(h).toString('latin1'));
  const want = [...hosts].sort((a, b) => (a === null ? -1 : b === null ? 1 : bytes(a) < bytes(b) ? -1 : bytes(a) > bytes(b) ? 1 : 0)).map((h) => [h, BigInt(per)]);
  const { publishRuns } = await import('../read/memtable-scan-function.js');
  const published = publishRuns(METADATA, mt.fields, mt.runs('last_row'));
  t.after(() => published.dispose());
  const fromScan = await conn.runAndReadAll(`SELECT c0, count(*) FROM tsdb_memtable_scan(${quoteLiteral(published.id)}) GROUP BY c0 ORDER BY c0 NULLS FIRST`);
  assert.deepEqual(fromScan.getRows(), want);
  // Equality against a literal (DuckDB compares inlined strings as 16 bytes: the padding must be zero).
  for (const h of hosts.filter((x) => x !== null)) {
    const one = await conn.runAndReadAll(`SELECT count(*), min(length(c0)) FROM tsdb_memtable_scan(${quoteLiteral(published.id)}) WHERE c0 = ${quoteLiteral(h)}`);
    assert.deepEqual(one.getRows(), [[BigInt(per), BigInt([...h].length)]], JSON.stringify(h));
  }
  const path = join(dir, 'tags.parquet');
  await writeSst(conn, { metadata: METADATA, fields: mt.fields, runs: mt.runs('last_row'), path, fileId: 'tags', level: 0 });
  const fromFile = await conn.runAndReadAll(`SELECT c0, count(*) FROM read_parquet(${quoteLiteral(path)}) GROUP BY c0 ORDER BY c0 NULLS FIRST`);
  assert.deepEqual(fromFile.getRows(), want);
});
