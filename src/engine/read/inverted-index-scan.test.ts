import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../../test/support/engine.js';
import { tempDir } from '../../../test/support/temp.js';
import { OP_PUT, type Vector, type WriteBatch } from '../../types/write-batch.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import { regionId } from '../../types/region-id.js';
import type { KeyCondition, ScanRequest } from '../../types/scan-request.js';
import { RegionEngine, type RegionEngineOptions } from '../region-engine.js';
import { DEFAULT_INVERTED_INDEX_OPTIONS, buildInvertedIndex } from '../sst/inverted-index-builder.js';

const ID = regionId(1024, 0);
const DIR = 'data/tsdb/public/1024/1024_0000000000/';
const HOSTS = 300;
const ROWS_PER_HOST = 400;

/** host (indexed), dc (indexed; not the leading key), rack (not indexed), ts, cpu. */
function metadata(inverted = true): RegionMetadata {
  return {
    region_id: String(ID),
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true, ...(inverted && { inverted_index: true }) },
      { column_id: 1, name: 'dc', type: 'String', semantic_type: 'tag', nullable: true, ...(inverted && { inverted_index: true }) },
      { column_id: 2, name: 'rack', type: 'Int64', semantic_type: 'tag', nullable: true },
      { column_id: 3, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 4, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0, 1, 2],
    time_index: 3,
    options: { append_mode: false, merge_mode: 'last_row' },
  };
}

const hostName = (h: number) => `host_${String(h).padStart(4, '0')}`;
/** Each data centre's hosts are spread over the file: host h is in dc `dc{h % 7}`; host 13 has none. */
const dcOf = (h: number) => (h === 13 ? null : `dc${h % 7}`);

function batch(hosts: readonly number[], from: number, n: number, value: (h: number, i: number) => number): WriteBatch {
  const rows = hosts.length * n;
  const host: string[] = [];
  const dc: Array<string | null> = [];
  const ts = new BigInt64Array(rows);
  const cpu = new Float64Array(rows);
  const rack = new BigInt64Array(rows);
  let r = 0;
  for (const h of hosts) {
    for (let i = 0; i < n; i++, r++) {
      host.push(hostName(h));
      dc.push(dcOf(h));
      rack[r] = BigInt(h % 11);
      ts[r] = BigInt(from + i);
      cpu[r] = value(h, i);
    }
  }
  return {
    op: OP_PUT,
    rowCount: rows,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: host }],
      [1, { type: 'string', data: dc }],
      [2, { type: 'int64', data: rack }],
      [3, { type: 'int64', data: ts }],
      [4, { type: 'float64', data: cpu }],
    ]),
  };
}

const ALL = Array.from({ length: HOSTS }, (_, h) => h);

async function openEngine(t: TestContext, dir: string, over: Partial<RegionEngineOptions> = {}): Promise<RegionEngine> {
  const engine = await RegionEngine.open(testEngineOptions(dir, { compactAfterFlush: false, ...over }));
  t.after(() => engine.close());
  return engine;
}

/** Rows (host, dc, ts, cpu) of a scan that meet `where`, sorted, and what the indexes did. */
async function query(engine: RegionEngine, scan: ScanRequest, where: string) {
  const s = await engine.scan(ID, scan);
  const conn = await engine.duckdb.connect();
  try {
    await s.attach(conn, 'v');
    const rows = (await conn.runAndReadAll(`SELECT host, dc, epoch_ms(ts)::BIGINT, cpu FROM v WHERE ${where} ORDER BY ALL`)).getRows();
    return { rows: rows.map((r) => r.map(String).join('|')), stats: s.indexStats };
  } finally {
    await s.detach(conn);
    s.release();
    conn.closeSync();
  }
}

const cond = (column: number, ...c: KeyCondition[]) => new Map([[column, c]]);

/** Query shapes: the scan's terms, the same predicate in SQL, and whether the index must narrow it. */
const CASES: ReadonlyArray<{ name: string; scan: ScanRequest; where: string; narrows: boolean }> = [
  { name: 'host = one', scan: { keys: new Map([[0, [hostName(17)]]]) }, where: `host = '${hostName(17)}'`, narrows: true },
  { name: 'host IN three far apart', scan: { keys: new Map([[0, [hostName(3), hostName(150), hostName(299)]]]) }, where: `host IN ('${hostName(3)}', '${hostName(150)}', '${hostName(299)}')`, narrows: true },
  { name: 'host = missing', scan: { keys: new Map([[0, ['nope']]]) }, where: `host = 'nope'`, narrows: true },
  { name: 'dc = (non-leading tag)', scan: { keys: new Map([[1, ['dc3']]]) }, where: `dc = 'dc3'`, narrows: false },
  { name: 'host != one (cannot narrow much)', scan: { conditions: cond(0, { kind: 'not_in', values: [hostName(5)] }) }, where: `host != '${hostName(5)}'`, narrows: false },
  { name: 'host NOT IN all but two', scan: { conditions: cond(0, { kind: 'not_in', values: ALL.filter((h) => h !== 40 && h !== 41).map(hostName) }) }, where: `host NOT IN (${ALL.filter((h) => h !== 40 && h !== 41).map((h) => `'${hostName(h)}'`).join(', ')})`, narrows: false /* a long NOT IN: whole files only (MAX_NOT_IN_WITH_ROW_RANGES) */ },
  { name: 'host IN and dc NOT IN (short)', scan: { keys: new Map([[0, [hostName(3), hostName(10), hostName(11)]]]), conditions: cond(1, { kind: 'not_in', values: ['dc3', 'dc5'] }) }, where: `host IN ('${hostName(3)}', '${hostName(10)}', '${hostName(11)}') AND dc NOT IN ('dc3', 'dc5')`, narrows: true },
  { name: 'host regex', scan: { conditions: cond(0, { kind: 'regex', pattern: '^host_01[0-2]', full: false, negated: false }) }, where: `regexp_matches(host, '^host_01[0-2]')`, narrows: true },
  { name: 'host full regex negated', scan: { conditions: cond(0, { kind: 'regex', pattern: 'host_0.*', full: true, negated: true }) }, where: `NOT regexp_full_match(host, 'host_0.*')`, narrows: true },
  { name: 'host LIKE', scan: { conditions: cond(0, { kind: 'like', pattern: 'host_029_', negated: false }) }, where: `host LIKE 'host_029_'`, narrows: true },
  { name: 'regex outside the subset (not used)', scan: { conditions: cond(0, { kind: 'regex', pattern: '(?i)HOST_0001', full: false, negated: false }) }, where: `regexp_matches(host, '(?i)HOST_0001')`, narrows: false },
  { name: 'dc = and host IN together', scan: { keys: new Map([[0, [hostName(3), hostName(10)]], [1, ['dc3']]]) }, where: `host IN ('${hostName(3)}', '${hostName(10)}') AND dc = 'dc3'`, narrows: true },
  { name: 'rack (not indexed)', scan: { keys: new Map([[2, [4n]]]) }, where: `rack = 4`, narrows: false },
];

test('scans with tag terms read fewer row groups by the index and give the same rows as without it', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, batch(ALL, 0, ROWS_PER_HOST, (h, i) => h * 1000 + i));
  await engine.flushRegion(ID);
  const [file] = engine.region(ID).files();
  assert.ok(file!.index_file_size! > 0, 'the manifest records the index');
  assert.ok(file!.num_row_groups >= 7);
  assert.ok(existsSync(join(dir, 'data', DIR, `${file!.file_id}.invidx`)), 'the index is beside the SST');
  // Rows in the memtable too (newer versions of some rows of the file, and new ones): merged as ever.
  await engine.write(ID, batch([3, 17, 40, 299], 390, 20, () => -1));

  const plain = await openEngine(t, tempDir(t), { invertedIndex: { ...DEFAULT_INVERTED_INDEX_OPTIONS, applyOnQuery: false } });
  await plain.createRegion(metadata(), DIR);
  await plain.write(ID, batch(ALL, 0, ROWS_PER_HOST, (h, i) => h * 1000 + i));
  await plain.flushRegion(ID);
  await plain.write(ID, batch([3, 17, 40, 299], 390, 20, () => -1));

  for (const c of CASES) {
    const indexed = await query(engine, c.scan, c.where);
    const without = await query(plain, c.scan, c.where);
    const all = await query(engine, {}, c.where);
    assert.deepEqual(indexed.rows, all.rows, `${c.name}: the same rows as a scan without terms`);
    assert.deepEqual(without.rows, all.rows, `${c.name}: the same rows with apply_on_query disabled`);
    assert.equal(without.stats.files, 0, `${c.name}: apply_on_query disabled consults no index`);
    if (c.narrows) {
      assert.equal(indexed.stats.files, 1, c.name);
      assert.ok(indexed.stats.rowGroupsSelected < indexed.stats.rowGroups, `${c.name}: ${JSON.stringify(indexed.stats)}`);
    } else {
      assert.ok(indexed.stats.rowGroupsSelected === indexed.stats.rowGroups, `${c.name}: ${JSON.stringify(indexed.stats)}`);
    }
  }
  const missing = await query(engine, { keys: new Map([[0, ['nope']]]) }, 'true');
  assert.equal(missing.stats.filesSkipped, 1, 'a file without the value is not read at all');
  const one = await query(engine, { keys: new Map([[0, [hostName(17)]]]) }, 'true');
  assert.deepEqual(one.stats, { files: 1, filesSkipped: 0, rowGroups: file!.num_row_groups, rowGroupsSelected: 1 });
});

test('create_on_flush disabled writes no index; a table without INVERTED INDEX columns has none', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir, { invertedIndex: { ...DEFAULT_INVERTED_INDEX_OPTIONS, createOnFlush: false } });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, batch(ALL.slice(0, 10), 0, 10, () => 1));
  await engine.flushRegion(ID);
  assert.equal(engine.region(ID).files()[0]!.index_file_size, undefined);
  assert.deepEqual(readdirSync(join(dir, 'data', DIR)).filter((f) => f.endsWith('.invidx')), []);

  const other = await openEngine(t, tempDir(t));
  await other.createRegion(metadata(false), DIR);
  await other.write(ID, batch(ALL.slice(0, 10), 0, 10, () => 1));
  await other.flushRegion(ID);
  assert.equal(other.region(ID).files()[0]!.index_file_size, undefined);
});

test('a damaged index file is not used: the scan reads the SST whole and gives the right rows', async (t) => {
  const dir = tempDir(t);
  let engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, batch(ALL, 0, 100, (h, i) => h + i));
  await engine.flushRegion(ID);
  const file = engine.region(ID).files()[0]!;
  const scan = { keys: new Map([[0, [hostName(7)]]]) };
  const good = await query(engine, scan, `host = '${hostName(7)}'`);
  assert.equal(good.rows.length, 100);
  assert.equal(good.stats.files, 1);
  await engine.close();

  // Same size (the manifest checks it), other bytes.
  const path = join(dir, 'data', DIR, `${file.file_id}.invidx`);
  const bytes = readFileSync(path);
  bytes[bytes.length >>> 1]! ^= 0xff;
  writeFileSync(path, bytes);
  engine = await openEngine(t, dir);
  await engine.openRegion(ID, DIR);
  const damaged = await query(engine, scan, `host = '${hostName(7)}'`);
  assert.deepEqual(damaged.rows, good.rows);
  assert.equal(damaged.stats.files, 0, 'the damaged index was not consulted');
});

test('compaction writes the index of its output; purged inputs lose theirs; orphan indexes go at open', async (t) => {
  const dir = tempDir(t);
  let engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  for (let k = 0; k < 3; k++) {
    await engine.write(ID, batch(ALL.slice(k * 50, k * 50 + 100), 0, 50, (h) => h + k));
    await engine.flushRegion(ID);
  }
  const inputs = engine.region(ID).files().map((f) => f.file_id);
  await engine.compactRegion(ID);
  await engine.idle();
  await engine.region(ID).purgeRemovedFiles();
  const [merged] = engine.region(ID).files();
  assert.ok(merged!.index_file_size! > 0);
  const names = readdirSync(join(dir, 'data', DIR));
  for (const id of inputs) assert.ok(!names.includes(`${id}.invidx`) && !names.includes(`${id}.parquet`), `input ${id} deleted with its index`);
  assert.ok(names.includes(`${merged!.file_id}.invidx`));
  const r = await query(engine, { keys: new Map([[0, [hostName(120)]]]) }, `host = '${hostName(120)}'`);
  assert.equal(r.rows.length, 50);
  assert.ok(r.rows.every((row) => row.endsWith('|122')), 'the newest version won');
  await engine.close();

  writeFileSync(join(dir, 'data', DIR, '00000000-0000-0000-0000-000000000000.invidx'), 'orphan');
  engine = await openEngine(t, dir);
  await engine.openRegion(ID, DIR);
  assert.ok(!existsSync(join(dir, 'data', DIR, '00000000-0000-0000-0000-000000000000.invidx')));
  assert.ok(existsSync(join(dir, 'data', DIR, `${merged!.file_id}.invidx`)));
});

test('mem_threshold_on_create: past it the build sorts externally in intermediate_path, with the same index', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, batch(ALL, 0, 200, (h, i) => h + i));
  await engine.flushRegion(ID);
  const file = engine.region(ID).files()[0]!;
  const parquet = join(dir, 'data', DIR, `${file.file_id}.parquet`);
  const conn = await engine.duckdb.connect();
  t.after(() => conn.closeSync());
  const intermediate = join(dir, 'intermediate');
  let spilled = -1;
  const inMemory = await buildInvertedIndex(conn, parquet, metadata(), file.num_rows, { segmentRowCount: 1024, memThreshold: 0, intermediateDir: intermediate });
  const external = await buildInvertedIndex(conn, parquet, metadata(), file.num_rows, { segmentRowCount: 1024, memThreshold: 2048, intermediateDir: intermediate }, (s) => (spilled = s.spilledRuns));
  assert.ok(spilled > 2, `spilled ${spilled} runs`);
  assert.deepEqual(Buffer.from(external!), Buffer.from(inMemory!));
  assert.deepEqual(readdirSync(intermediate), [], 'the runs are removed');
  assert.deepEqual(Buffer.from(inMemory!), readFileSync(join(dir, 'data', DIR, `${file.file_id}.invidx`)), 'the flush wrote the same index');
});
