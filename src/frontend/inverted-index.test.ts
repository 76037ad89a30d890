import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { tableRegionIds } from '../catalog/table-info.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { StatusCode } from '../common/error/status-code.js';
import type { RegionId } from '../types/region-id.js';
import type { ScanRequest } from '../types/scan-request.js';
import { RegionEngine } from '../engine/region-engine.js';
import type { IndexScanStats } from '../engine/read/region-scan.js';
import { DEFAULT_INVERTED_INDEX_OPTIONS } from '../engine/sst/inverted-index-builder.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { FrontendInstance } from './instance.js';
import { newSession } from './session.js';

/** Region access that records each scan's request and what the inverted indexes did in it. */
class StatsAccess extends LocalRegionServer {
  readonly scans: Array<{ request: ScanRequest; stats: IndexScanStats }> = [];
  get regionEngine(): RegionEngine {
    return this.engine;
  }
  override async scanRelation(id: RegionId, request: ScanRequest = {}, signal?: AbortSignal) {
    const s = await this.engine.scan(id, request, signal);
    const sql = s.relation();
    this.scans.push({ request, stats: s.indexStats });
    return { sql, release: () => s.release() };
  }
}

async function frontend(t: TestContext, applyOnQuery = true) {
  const engine = await RegionEngine.open(testEngineOptions(tempDir(t), { compactAfterFlush: false, invertedIndex: { ...DEFAULT_INVERTED_INDEX_OPTIONS, applyOnQuery } }));
  t.after(() => engine.close());
  const access = new StatsAccess(engine);
  const fe = new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), access, engine.duckdb);
  const s = newSession();
  const sql = async (text: string) => fe.executeSql(text, s);
  return { fe, access, sql };
}

const rowsOf = (out: unknown) => (out as { rows: unknown[][] }).rows;

const HOSTS = 500;
const PER_HOST = 200;
const SETUP = [
  'CREATE TABLE cpu (host STRING INVERTED INDEX, dc STRING INVERTED INDEX, rack STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (host, dc, rack))',
  `INSERT INTO cpu SELECT 'host_' || lpad((i // ${PER_HOST})::VARCHAR, 4, '0'), 'dc' || ((i // ${PER_HOST}) % 5), 'r' || ((i // ${PER_HOST}) % 3), epoch_ms((i % ${PER_HOST}) * 1000), i FROM range(${HOSTS * PER_HOST}) t(i)`,
  "ADMIN FLUSH_TABLE('cpu')",
  // Newer versions of some rows, still in the memtable.
  "INSERT INTO cpu VALUES ('host_0007', 'dc2', 'r1', 0, -1), ('host_0321', 'dc1', 'r0', 5000, -2)",
];

/** Queries, and whether the index must read fewer row groups than the file has. */
const QUERIES: ReadonlyArray<[string, boolean]> = [
  ["SELECT host, ts, v FROM cpu WHERE host = 'host_0007' ORDER BY ts", true],
  ["SELECT host, count(*), sum(v) FROM cpu WHERE host IN ('host_0001', 'host_0250', 'host_0499') GROUP BY host ORDER BY host", true],
  ["SELECT count(*), sum(v) FROM cpu WHERE host != 'host_0003'", false],
  ["SELECT count(*), sum(v) FROM cpu WHERE host NOT IN ('host_0003', 'host_0004')", false],
  ["SELECT host, count(*), sum(v) FROM cpu WHERE host ~ '^host_032[0-4]$' GROUP BY host ORDER BY host", true],
  ["SELECT host, count(*) FROM cpu WHERE regexp_matches(host, '_00[01]') GROUP BY host ORDER BY host", true],
  ["SELECT host, count(*) FROM cpu WHERE host LIKE 'host_042_' AND dc = 'dc1' GROUP BY host ORDER BY host", true],
  ["SELECT count(*) FROM cpu WHERE dc = 'dc9'", true],
  ["SELECT dc, count(*) FROM cpu WHERE dc != 'dc0' GROUP BY dc ORDER BY dc", false],
  ["SELECT count(*) FROM cpu WHERE rack = 'r1'", false],
];

test('tag predicates (=, IN, !=, NOT IN, regex, LIKE) give the rows they give with apply_on_query disabled, reading fewer row groups', async (t) => {
  const indexed = await frontend(t);
  const plain = await frontend(t, false);
  for (const q of SETUP) {
    await indexed.sql(q);
    await plain.sql(q);
  }
  const info = (await indexed.fe.catalog.table('public', 'cpu'))!;
  const [file] = indexed.access.regionEngine.region(tableRegionIds(info)[0]!).files();
  assert.ok(file!.index_file_size! > 0 && file!.num_row_groups >= 6, JSON.stringify(file));
  for (const [q, narrows] of QUERIES) {
    const [a] = await indexed.sql(q);
    const [b] = await plain.sql(q);
    assert.deepEqual(rowsOf(a), rowsOf(b), q);
    assert.ok(rowsOf(a).length > 0, q);
    const { stats } = indexed.access.scans.at(-1)!;
    assert.equal(plain.access.scans.at(-1)!.stats.files, 0, `${q}: apply_on_query = disable consults no index`);
    if (narrows) assert.ok(stats.files === 1 && stats.rowGroupsSelected < stats.rowGroups, `${q}: ${JSON.stringify(stats)}`);
  }
  // What the scans were asked, for one shape of each kind (`~` searches, as in GreptimeDB: not the whole value).
  const asked = async (q: string) => {
    await indexed.sql(q);
    return indexed.access.scans.at(-1)!.request;
  };
  assert.deepEqual((await asked("SELECT * FROM cpu WHERE host ~ 'x' AND dc NOT LIKE 'd%'")).conditions, new Map([[0, [{ kind: 'regex', pattern: 'x', full: false, negated: false }]], [1, [{ kind: 'like', pattern: 'd%', negated: true }]]]));
  // The memtable's newer versions won over the file's.
  const [seven] = await indexed.sql("SELECT v FROM cpu WHERE host = 'host_0007' AND ts = 0");
  assert.deepEqual(rowsOf(seven), [[-1]]);
});

test('INVERTED INDEX in CREATE TABLE and ALTER … SET / UNSET INVERTED INDEX, shown by SHOW CREATE TABLE; index.inverted_index.* options', async (t) => {
  const { fe, access, sql } = await frontend(t);
  await sql("CREATE TABLE m (host STRING INVERTED INDEX, dc STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (host, dc)) WITH ('index.inverted_index.segment_row_count' = '256')");
  const show = async () => String(rowsOf((await sql('SHOW CREATE TABLE m'))[0])[0]![1]);
  assert.match(await show(), /"host" STRING NULL INVERTED INDEX,\n {2}"dc" STRING NULL,/);
  await sql('ALTER TABLE m MODIFY COLUMN dc SET INVERTED INDEX');
  await sql('ALTER TABLE m MODIFY COLUMN host UNSET INVERTED INDEX');
  assert.match(await show(), /"host" STRING NULL,\n {2}"dc" STRING NULL INVERTED INDEX,/);
  await sql('ALTER TABLE m ADD COLUMN zone STRING PRIMARY KEY INVERTED INDEX');
  assert.match(await show(), /"zone" STRING NULL INVERTED INDEX,/);
  const info = (await fe.catalog.table('public', 'm'))!;
  const md = access.regionEngine.region(tableRegionIds(info)[0]!).metadata;
  assert.deepEqual(md.columns.filter((c) => c.inverted_index === true).map((c) => c.name), ['dc', 'zone'], 'the regions follow the table');
  assert.equal(md.options.inverted_index?.segment_row_count, 256);

  await sql("INSERT INTO m (host, dc, zone, ts, v) VALUES ('a', 'x', 'z1', 0, 1), ('b', 'y', 'z2', 0, 2); ADMIN FLUSH_TABLE('m')");
  const [out] = await sql("SELECT host FROM m WHERE dc = 'y'");
  assert.deepEqual(rowsOf(out), [['b']]);
  assert.equal(access.scans.at(-1)!.stats.files, 1, 'the new file indexes dc');
  await sql("SELECT host FROM m WHERE host = 'b'");
  assert.equal(access.scans.at(-1)!.stats.files, 0, 'and not host any more');

  // SKIPPING / FULLTEXT are kept in the catalog (shown), VECTOR is not supported.
  await assert.rejects(sql('ALTER TABLE m MODIFY COLUMN dc SET VECTOR INDEX'), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.Unsupported);
  await assert.rejects(sql("ALTER TABLE m MODIFY COLUMN dc SET SKIPPING INDEX WITH (type = 'hash')"), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments);
  await assert.rejects(sql('ALTER TABLE m MODIFY COLUMN nope SET INVERTED INDEX'), TsdbError);
  await assert.rejects(sql("CREATE TABLE bad (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX) WITH ('index.inverted_index.segment_row_count' = '0')"), /Invalid index.inverted_index.segment_row_count/);
});
