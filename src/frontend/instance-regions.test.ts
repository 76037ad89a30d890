/**
 * The frontend without an engine: its regions are a fake region server (test/support), read the
 * way a remote one is (region queries answered as Arrow record batches, read by the frontend's own
 * DuckDB). What each statement asks of the regions, and what reaches the user from them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { FakeRegionServer } from '../../test/support/fake-region-server.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { tableRegionIds } from '../catalog/table-info.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { registerArrowScan } from '../query/arrow-scan-function.js';
import { limitErrorSql } from '../query/resource-limits.js';
import { QueryGate } from './query-gate.js';
import { openQueryDuckDb } from '../query/query-duckdb.js';
import type { IngestTable } from './ingest-request.js';
import { FrontendInstance } from './instance.js';
import { newSession } from './session.js';

async function frontend(t: TestContext, regions = new FakeRegionServer(), kv = new MemoryKvBackend()): Promise<{ fe: FrontendInstance; regions: FakeRegionServer; kv: MemoryKvBackend }> {
  const queries = await openQueryDuckDb({ threads: 1, spillDir: join(tempDir(t), 'spill'), readableDirs: [], registerFunctions: registerArrowScan });
  const fe = new FrontendInstance(await CatalogManager.open(kv), regions, queries);
  t.after(async () => {
    fe.close();
    queries.closeSync();
    await regions.close();
  });
  return { fe, regions, kv };
}

async function rows(fe: FrontendInstance, sql: string): Promise<unknown[][]> {
  const [out] = await fe.executeSql(sql, newSession());
  assert.equal(out!.kind, 'records');
  return (out as unknown as { rows: unknown[][] }).rows;
}

async function failure(p: Promise<unknown>): Promise<TsdbError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
  return err;
}

test('CREATE TABLE creates its region with the table schema; INSERT writes there; SELECT reads it by a region query', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE cpu (host STRING, dc STRING, ts TIMESTAMP TIME INDEX, usage DOUBLE, n BIGINT, PRIMARY KEY (host, dc))', s);
  const create = regions.calls.find((c) => c.method === 'createRegion')!;
  const info = (await fe.catalog.table('public', 'cpu'))!;
  assert.equal(create.id, tableRegionIds(info)[0]);
  assert.deepEqual(create.metadata!.columns.map((c) => [c.name, c.type, c.semantic_type]), [
    ['host', 'String', 'tag'],
    ['dc', 'String', 'tag'],
    ['ts', 'TimestampMillisecond', 'timestamp'],
    ['usage', 'Float64', 'field'],
    ['n', 'Int64', 'field'],
  ]);
  await fe.executeSql("INSERT INTO cpu VALUES ('a', 'x', 1000, 1.5, 7), ('b', 'y', 2000, NULL, -9007199254740993)", s);
  const write = regions.calls.find((c) => c.method === 'write')!;
  assert.equal(write.batch!.rowCount, 2);
  assert.deepEqual(await rows(fe, 'SELECT host, dc, ts, usage, n FROM cpu ORDER BY host'), [
    ['a', 'x', 1000, 1.5, 7],
    ['b', 'y', 2000, null, -9007199254740993n],
  ]);
  const query = regions.calls.findLast((c) => c.method === 'query')!;
  assert.equal(query.id, tableRegionIds(info)[0]);
  // The table's one region is remote: it runs the whole query, reading its rows as `region`.
  assert.equal(query.query!.sql, 'SELECT host, dc, ts, usage, n FROM ((SELECT * FROM "region")) AS "cpu" ORDER BY host');
  assert.deepEqual(await rows(fe, 'SELECT count(*), sum(usage) FROM cpu'), [[2, 1.5]]);
});

test("a query's time range and tag values reach the region query", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)', s);
  await fe.executeSql("INSERT INTO m VALUES ('a', 0, 1), ('a', 100000, 2), ('b', 100000, 3)", s);
  assert.deepEqual(await rows(fe, "SELECT sum(v) FROM m WHERE host = 'a' AND ts >= 100000 AND ts < 200000"), [[2]]);
  const scan = regions.calls.findLast((c) => c.method === 'query')!.query!.scan!;
  assert.equal(scan.start, 100000n);
  assert.equal(scan.end, 199999n);
  assert.deepEqual([...(scan.keys ?? new Map())].map(([, v]) => v), [['a']]);
});

test("a lastpoint query asks its remote region for last rows only; tag conditions the index can use cross too", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)', s);
  await fe.executeSql("INSERT INTO m VALUES ('a', 0, 1), ('a', 100000, 2), ('b', 50000, 3), ('c', 7, 4)", s);
  const lastScan = () => regions.calls.findLast((c) => c.method === 'query')!.query!.scan ?? {};
  assert.deepEqual(await rows(fe, "SELECT DISTINCT ON (host) host, ts, v FROM m WHERE host <> 'c' ORDER BY host, ts DESC"), [
    ['a', 100000, 2],
    ['b', 50000, 3],
  ]);
  assert.equal(lastScan().lastRow, true);
  assert.deepEqual([...(lastScan().conditions ?? new Map())].map(([, c]) => c), [[{ kind: 'not_in', values: ['c'] }]]);
  assert.deepEqual(await rows(fe, "SELECT host, last_value(v ORDER BY ts) FROM m WHERE host ~ '^[ab]$' GROUP BY host ORDER BY host"), [
    ['a', 2],
    ['b', 3],
  ]);
  assert.equal(lastScan().lastRow, true);
  assert.deepEqual([...(lastScan().conditions ?? new Map())].map(([, c]) => c), [[{ kind: 'regex', pattern: '^[ab]$', full: false, negated: false }]]);
  // Not a lastpoint: every row.
  assert.deepEqual(await rows(fe, 'SELECT host, max(v) FROM m GROUP BY host ORDER BY host'), [
    ['a', 2],
    ['b', 3],
    ['c', 4],
  ]);
  assert.equal(lastScan().lastRow, undefined);
});

test('ALTER, ADMIN FLUSH/COMPACT, TRUNCATE and DROP become region requests', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES ('a', 1, 1)", s);
  const id = tableRegionIds((await fe.catalog.table('public', 'm'))!)[0]!;
  await fe.executeSql("ALTER TABLE m ADD COLUMN w DOUBLE DEFAULT 5", s);
  const alter = regions.calls.findLast((c) => c.method === 'alterRegion')!;
  assert.equal(alter.id, id);
  assert.deepEqual(alter.metadata!.columns.map((c) => c.name), ['host', 'ts', 'v', 'w']);
  // Rows written before the column was added read its default.
  assert.deepEqual(await rows(fe, 'SELECT host, v, w FROM m'), [['a', 1, 5]]);
  await fe.executeSql("ADMIN FLUSH_TABLE('m'); ADMIN COMPACT_TABLE('m')", s);
  await fe.executeSql('TRUNCATE TABLE m', s);
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM m'), [[0]]);
  await fe.executeSql('DROP TABLE m', s);
  assert.deepEqual(
    regions.calls.filter((c) => ['flushRegion', 'compactRegion', 'truncateRegion', 'dropRegion'].includes(c.method)).map((c) => [c.method, c.id]),
    [['flushRegion', id], ['compactRegion', id], ['truncateRegion', id], ['dropRegion', id]],
  );
  assert.equal(regions.regions.size, 0);
});

test('ingestion creates tables and writes through the region server; deletes too', async (t) => {
  const { fe, regions } = await frontend(t);
  const table: IngestTable = {
    name: 'disk',
    rowCount: 2,
    columns: [
      { name: 'host', semantic: 'tag', type: 'String', vector: { type: 'string', data: ['a', 'b'] } },
      { name: 'free', semantic: 'field', type: 'Float64', vector: { type: 'float64', data: Float64Array.of(1, 2) } },
      { name: 'ts', semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: BigInt64Array.of(10n, 20n) } },
    ],
  };
  assert.equal(await fe.ingest([table], newSession()), 2);
  assert.ok(regions.calls.some((c) => c.method === 'createRegion'));
  assert.deepEqual(await rows(fe, 'SELECT host, free FROM disk ORDER BY host'), [['a', 1], ['b', 2]]);
  await fe.executeSql("DELETE FROM disk WHERE host = 'a'", newSession());
  assert.deepEqual(await rows(fe, 'SELECT host FROM disk'), [['b']]);
});

test('information_schema.region_statistics asks the region server', async (t) => {
  const { fe, regions } = await frontend(t);
  await fe.executeSql("CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES (1, 1), (2, 2), (3, 3)", newSession());
  regions.sstFiles = 4;
  assert.deepEqual(await rows(fe, "SELECT region_rows, sst_num FROM information_schema.region_statistics"), [[3, 4]]);
  assert.ok(regions.calls.some((c) => c.method === 'statistics'));
});

test("a region server's error reaches the user with its status code; a failed write is not acknowledged", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES (1, 1)", s);
  regions.failNext('query', new TsdbError(StatusCode.RegionNotReady, 'Region 4398046511104(1024, 0) is not ready'));
  const q = await failure(fe.executeSql('SELECT * FROM m', s));
  assert.equal(q.code, StatusCode.RegionNotReady);
  assert.match(q.message, /not ready/);
  regions.failNext('write', new TsdbError(StatusCode.StorageUnavailable, 'datanode unreachable'));
  const w = await failure(fe.executeSql('INSERT INTO m VALUES (2, 2)', s));
  assert.equal(w.code, StatusCode.StorageUnavailable);
  assert.deepEqual(await rows(fe, 'SELECT ts, v FROM m'), [[1, 1]]);
});

test("a statement's deadline cancels its region query", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES (1, 1)", s);
  // The same query once first: the first one installs the functions (frontend and region server),
  // which on a busy machine can take the whole deadline before the region query is even sent.
  assert.deepEqual(await rows(fe, 'SELECT * FROM m'), [[1, 1]]);
  const held = regions.holdQueries();
  // The statement's timer does not hold the process open; a server's sockets would.
  const alive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(alive));
  const started = Date.now();
  const err = await failure(fe.executeSql('SELECT * FROM m', s, { timeoutMs: 500 }));
  held.release();
  assert.ok([StatusCode.Cancelled, StatusCode.DeadlineExceeded].includes(err.code), `code ${err.code}: ${err.message}`);
  assert.ok(Date.now() - started < 5000);
  assert.equal(regions.querySignals.at(-1)?.aborted, true, 'the region server saw the cancellation');
  assert.deepEqual(await rows(fe, 'SELECT ts, v FROM m'), [[1, 1]]);
});

test('at start the frontend opens the region of every table it knows', async (t) => {
  const { fe, regions, kv } = await frontend(t);
  await fe.executeSql('CREATE TABLE a (ts TIMESTAMP TIME INDEX, v DOUBLE); CREATE TABLE b (ts TIMESTAMP TIME INDEX, v DOUBLE)', newSession());
  for (const id of regions.regions.keys()) await regions.closeRegion(id);
  const alive = setInterval(() => {}, 1000);
  t.after(() => clearInterval(alive));
  const { fe: again } = await frontend(t, regions, kv);
  assert.equal(await again.openTables(), 2);
  assert.equal(regions.calls.filter((c) => c.method === 'openRegion').length, 2);
  assert.deepEqual(await rows(again, 'SELECT count(*) FROM a'), [[0]]);
});

test("a query whose regions' answers pass query.max_result_bytes fails with a clear error instead of holding them", async (t) => {
  const regions = new FakeRegionServer();
  const queries = await openQueryDuckDb({ threads: 1, spillDir: join(tempDir(t), 'spill'), readableDirs: [], registerFunctions: registerArrowScan });
  const fe = new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), regions, queries, ['File'], { gate: new QueryGate(0, 0), limits: { maxRows: 0, maxBytes: 4096 } });
  t.after(() => {
    fe.close();
    queries.closeSync();
  });
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE); CREATE TABLE k (kt TIMESTAMP TIME INDEX, kv DOUBLE)', s);
  await fe.executeSql(`INSERT INTO m VALUES ${Array.from({ length: 1000 }, (_, i) => `(${i}, ${i})`).join(', ')}; INSERT INTO k VALUES (1, 1)`, s);
  // A join reads each table's rows here: m's 1,000 timestamps are 8,000 bytes.
  const err = await failure(fe.executeSql('SELECT count(*) FROM m JOIN k ON m.ts = k.kt', s));
  assert.equal(err.code, StatusCode.RuntimeResourcesExhausted);
  assert.match(err.message, /query\.max_result_bytes/);
  // A narrower query passes.
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM (SELECT ts FROM m WHERE ts < 100) AS early JOIN k ON early.ts = k.kt'), [[1]]);
  // Run whole on the region, a query of m alone ships its answer, which counts as the rows did.
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM m'), [[1000]]);
  const answer = await failure(fe.executeSql('SELECT ts, v FROM m', s));
  assert.equal(answer.code, StatusCode.RuntimeResourcesExhausted);
  assert.match(answer.message, /query\.max_result_bytes/);
});

test("a query's answer run whole on its region counts against query.max_result_rows as it arrives", async (t) => {
  const regions = new FakeRegionServer();
  const queries = await openQueryDuckDb({ threads: 1, spillDir: join(tempDir(t), 'spill'), readableDirs: [], registerFunctions: registerArrowScan });
  const fe = new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), regions, queries, ['File'], { gate: new QueryGate(0, 0), limits: { maxRows: 10, maxBytes: 0 } });
  t.after(async () => {
    fe.close();
    queries.closeSync();
    await regions.close();
  });
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE)', s);
  await fe.executeSql(`INSERT INTO m VALUES ${Array.from({ length: 100 }, (_, i) => `(${i}, ${i})`).join(', ')}`, s);
  const err = await failure(fe.executeSql('SELECT v FROM m', s));
  assert.equal(err.code, StatusCode.RuntimeResourcesExhausted);
  assert.match(err.message, /more than 10 rows \(query\.max_result_rows\)/);
  assert.deepEqual(await rows(fe, 'SELECT v FROM m ORDER BY v DESC LIMIT 10'), [[99], [98], [97], [96], [95], [94], [93], [92], [91], [90]]);
});

test('a session asking for Arrow (Flight DoGet) gets its query rows as Arrow; INSERT … SELECT and DELETE still read rows', async (t) => {
  const { fe } = await frontend(t);
  const s = { ...newSession(), arrow: true };
  await fe.executeSql("CREATE TABLE a (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); CREATE TABLE b (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)", s);
  await fe.executeSql("INSERT INTO a VALUES ('x', 1, 1), ('y', 2, 2), ('z', 3, 3)", s);
  const [inserted] = await fe.executeSql('INSERT INTO b SELECT * FROM a WHERE v >= 2', s);
  assert.deepEqual(inserted, { kind: 'affected', rows: 2 });
  const [out] = await fe.executeSql('SELECT host, v FROM b ORDER BY host', s);
  assert.equal(out!.kind, 'records');
  const arrow = (out as { arrow?: { batches: Array<{ numRows: number; getChildAt(i: number): { get(r: number): unknown } | null }> } }).arrow;
  assert.ok(arrow !== undefined, 'rows as Arrow');
  assert.deepEqual([arrow.batches[0]!.getChildAt(0)!.get(0), arrow.batches[0]!.getChildAt(1)!.get(1)], ['y', 3]);
  // Without asking, rows as before.
  assert.deepEqual(await rows(fe, 'SELECT host, v FROM b ORDER BY host'), [['y', 2], ['z', 3]]);
});

test('a remote region read here (a query of two tables) is asked for the columns a query names; all of them for *, a whole-row reference or a NATURAL join', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, w DOUBLE); INSERT INTO m VALUES ('a', 1, 1, 2)", s);
  await fe.executeSql('CREATE TABLE k (kt TIMESTAMP TIME INDEX, kv DOUBLE); INSERT INTO k VALUES (1, 1)', s);
  const id = tableRegionIds((await fe.catalog.table('public', 'm'))!)[0]!;
  const asked = async (sql: string) => {
    await fe.executeSql(sql, s);
    return regions.calls.findLast((c) => c.method === 'query' && c.id === id)!.query!.sql;
  };
  assert.equal(await asked('SELECT max(v) FROM m, k WHERE host = \'a\''), 'SELECT "host", "v" FROM region');
  assert.equal(await asked('SELECT count(*) FROM m, k'), 'SELECT "ts" FROM region');
  const all = 'SELECT "host", "ts", "v", "w" FROM region';
  assert.equal(await asked('SELECT * FROM m, k'), all);
  assert.equal(await asked('SELECT m FROM m, k'), all);
  assert.equal(await asked('SELECT x FROM m AS x, k'), all);
  assert.deepEqual(await rows(fe, 'SELECT m FROM m, k'), [[{ host: 'a', ts: 1, v: 1, w: 2 }]]);
});

/** The region queries `sql` sends, in order. */
async function regionQueries(fe: FrontendInstance, regions: FakeRegionServer, sql: string, s = newSession()): Promise<Array<{ sql: string | undefined; start?: bigint; end?: bigint }>> {
  const before = regions.calls.length;
  await fe.executeSql(sql, s);
  return regions.calls.slice(before).filter((c) => c.method === 'query').map((c) => ({ sql: c.query!.sql, ...(c.query!.scan?.start !== undefined && { start: c.query!.scan.start }), ...(c.query!.scan?.end !== undefined && { end: c.query!.scan.end }) }));
}

async function records(fe: FrontendInstance, sql: string, s = newSession()): Promise<{ columns: Array<{ name: string; data_type: string }>; rows: unknown[][] }> {
  const [out] = await fe.executeSql(sql, s);
  assert.equal(out!.kind, 'records');
  return out as unknown as { columns: Array<{ name: string; data_type: string }>; rows: unknown[][] };
}

const SERIES = "INSERT INTO m VALUES ('a', 1000, 1.5, 10), ('a', 2000, 2.5, 20), ('b', 1000, 4, 9007199254740993), ('b', 3000, 8, 1), ('c', 2000, 0.5, -3)";

test('a query of one table whose one region is remote runs whole there: the region query is the query, only its answer comes back, in its order, with its names and types', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)', s);
  await fe.executeSql(SERIES, s);
  const sql = 'SELECT host, avg(v) AS a, sum(n) AS total, count(*) FROM m WHERE ts >= 1000 AND ts < 3000 GROUP BY host ORDER BY a DESC';
  const sent = await regionQueries(fe, regions, sql);
  // One region query: the whole aggregation, over the query's time range.
  assert.equal(sent.length, 1);
  assert.match(sent[0]!.sql!, /^SELECT host, avg\(v\) AS a, sum\(n\) AS total, count\(\*\) FROM \(\(SELECT \* FROM "region"\)\) AS "m" WHERE .+ GROUP BY host ORDER BY a DESC$/);
  assert.deepEqual([sent[0]!.start, sent[0]!.end], [1000n, 2999n]);
  const out = await records(fe, sql);
  assert.deepEqual(out.rows, [['b', 4, 9007199254740993n, 1], ['a', 2, 30, 2], ['c', 0.5, -3, 1]]);
  // sum(BIGINT) is HUGEINT; count(*) is named as GreptimeDB names it.
  assert.deepEqual(out.columns, [
    { name: 'host', data_type: 'String' },
    { name: 'a', data_type: 'Float64' },
    { name: 'total', data_type: 'Int64' },
    { name: 'count(*)', data_type: 'Int64' },
  ]);
  // Names an answer repeats (a column and an alias of one name: DataFusion refuses only two of the same), a sorted answer's order, a LIMIT.
  const repeated = await records(fe, 'SELECT v, v AS v, ts FROM m ORDER BY v DESC LIMIT 3');
  assert.deepEqual(repeated.columns.map((c) => c.name), ['v', 'v', 'ts']);
  assert.deepEqual(repeated.rows, [[8, 8, 3000], [4, 4, 1000], [2.5, 2.5, 2000]]);
  // Decimals, dates, times and booleans cross as they are.
  const typed = await records(fe, "SELECT CAST(v AS DECIMAL(10, 2)) AS d, CAST(ts AS DATE) AS day, v > 2 AS big, NULL AS nothing FROM m WHERE host = 'a' ORDER BY ts");
  assert.deepEqual(typed.rows, [['1.50', 0, false, null], ['2.50', 0, true, null]]);
  assert.deepEqual(typed.columns.map((c) => c.data_type).slice(0, 3), ['Decimal(10, 2)', 'Date', 'Boolean']);
  // A query with a WITH of its own, a DISTINCT ON.
  assert.deepEqual((await records(fe, 'WITH r AS (SELECT host, v FROM m WHERE v > 1) SELECT host, max(v) FROM r GROUP BY host ORDER BY host')).rows, [['a', 2.5], ['b', 8]]);
  assert.deepEqual((await records(fe, 'SELECT DISTINCT ON (host) host, ts FROM m ORDER BY host, ts DESC')).rows, [['a', 2000], ['b', 3000], ['c', 2000]]);
  const withSql = await regionQueries(fe, regions, 'WITH r AS (SELECT host, v FROM m) SELECT count(*) FROM r');
  assert.match(withSql[0]!.sql!, /^WITH r AS/);
});

test('a query naming one single-region table twice (a self-join) runs whole there over all its rows: one region query, only the answer back', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)', s);
  await fe.executeSql(SERIES, s);
  // The lastpoint form that joins each host's rows to its latest time.
  const sql = "SELECT m.host, m.v FROM m JOIN (SELECT host, max(ts) AS last FROM m WHERE ts < 3000 GROUP BY host) AS l ON m.host = l.host AND m.ts = l.last WHERE m.host <> 'c' ORDER BY m.host";
  const sent = await regionQueries(fe, regions, sql);
  assert.equal(sent.length, 1);
  assert.equal((sent[0]!.sql!.match(/SELECT \* FROM "region"/g) ?? []).length, 2);
  // Both references read every row: neither's time range or key values narrow the one scan.
  assert.deepEqual([sent[0]!.start, sent[0]!.end], [undefined, undefined]);
  assert.deepEqual((await records(fe, sql)).rows, [['a', 2.5], ['b', 4]]);
});

test("a query run whole on its region has been rewritten for the session here: its time zone, now(), database() and tsdb's functions", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession('public', 'Asia/Shanghai');
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)', s);
  await fe.executeSql(SERIES, s);
  // Local midnight in Shanghai is 16:00 UTC: every row is in the day that began at -8 h.
  const sql = "SELECT date_trunc('day', ts) AS day, date_format(max(ts), '%H:%M:%S') AS last, to_unixtime(min(ts)) AS first, database() AS db, now() > ts AS past FROM m WHERE ts > '1970-01-01 08:00:01' GROUP BY day, db, past";
  const sent = await regionQueries(fe, regions, sql, s);
  assert.equal(sent.length, 1);
  assert.doesNotMatch(sent[0]!.sql!, /now\(\)|database\(\)/);
  assert.equal(sent[0]!.start, 1001n);
  assert.deepEqual((await records(fe, sql, s)).rows, [[-8 * 3_600_000, '08:00:03', 2, 'public', true]]);
});

test('a query whose answer has a type that does not cross (a list, an interval) is refused before it runs there, then reads the rows here', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)', s);
  await fe.executeSql(SERIES, s);
  const lists = 'SELECT host, list(v ORDER BY ts) AS vs FROM m GROUP BY host ORDER BY host';
  const sent = await regionQueries(fe, regions, lists);
  assert.deepEqual(sent.map((q) => q.sql), ['SELECT host, list(v ORDER BY ts) AS vs FROM ((SELECT * FROM "region")) AS "m" GROUP BY host ORDER BY host', 'SELECT "host", "ts", "v" FROM region']);
  assert.deepEqual((await records(fe, lists)).rows, [['a', [1.5, 2.5]], ['b', [4, 8]], ['c', [0.5]]]);
  const span = await records(fe, "SELECT max(ts) - min(ts) AS span FROM m WHERE host = 'b'");
  assert.deepEqual(span.columns, [{ name: 'span', data_type: 'IntervalMonthDayNano' }]);
  assert.deepEqual(span.rows, [['2.000000000 secs']]); // as Arrow displays an interval
});

test('EXPLAIN, a query of two tables and one naming a CTE as the region relation is named read the rows here', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT); CREATE TABLE k (kt TIMESTAMP TIME INDEX, kv DOUBLE)', s);
  await fe.executeSql(`${SERIES}; INSERT INTO k VALUES (1000, 1)`, s);
  assert.deepEqual((await regionQueries(fe, regions, 'EXPLAIN SELECT count(*) FROM m')).map((q) => q.sql), ['SELECT "ts" FROM region']);
  assert.deepEqual((await regionQueries(fe, regions, 'SELECT count(*) FROM m, k WHERE ts = kt')).map((q) => q.sql), ['SELECT "ts" FROM region', 'SELECT "kt" FROM region']);
  const cte = 'WITH region AS (SELECT host FROM m WHERE v > 2) SELECT count(*) FROM region';
  assert.deepEqual((await regionQueries(fe, regions, cte)).map((q) => q.sql), ['SELECT "host", "v" FROM region']);
  assert.deepEqual((await records(fe, cte)).rows, [[3]]);
});

test('a query of a logical metric table runs whole on its physical table region, that table’s rows left out', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE phy (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE=metric WITH ('physical_metric_table' = '')", s);
  await fe.executeSql("CREATE TABLE t1 (ts TIMESTAMP TIME INDEX, val DOUBLE, host STRING PRIMARY KEY) ENGINE=metric WITH ('on_physical_table' = 'phy')", s);
  await fe.executeSql("CREATE TABLE t2 (ts TIMESTAMP TIME INDEX, val DOUBLE, job STRING PRIMARY KEY) ENGINE=metric WITH ('on_physical_table' = 'phy')", s);
  await fe.executeSql("INSERT INTO t1 VALUES (0, 1, 'a'), (1000, 2, 'b'); INSERT INTO t2 VALUES (0, 10, 'x')", s);
  const sql = 'SELECT host, sum(val) FROM t1 WHERE ts >= 0 GROUP BY host ORDER BY host';
  const sent = await regionQueries(fe, regions, sql);
  assert.equal(sent.length, 1);
  assert.match(sent[0]!.sql!, /GROUP BY host/);
  assert.deepEqual((await records(fe, sql)).rows, [['a', 1], ['b', 2]]);
  assert.deepEqual((await records(fe, 'SELECT count(*) FROM t2')).rows, [[1]]);
});

test("a limit a query checks as it runs (a RANGE query's FILL slots), raised on the region that runs the query, is this process's limit error", async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES (1, 1)", s);
  // What DuckDB on another node says of `limitErrorSql`'s error(): this process's marker, its message.
  const marker = /'([^']+)'/.exec(limitErrorSql("''"))![1]!;
  regions.failNext('query', new TsdbError(StatusCode.InvalidArguments, `${marker}Result too large: more than 10 rows (query.max_result_rows)`));
  const err = await failure(fe.executeSql('SELECT count(*) FROM m', s));
  assert.equal(err.code, StatusCode.RuntimeResourcesExhausted);
  assert.equal(err.message, 'Result too large: more than 10 rows (query.max_result_rows)');
});

/** The region ids the calls of `method` made since call number `from` name, in order. */
function regionsAsked(regions: FakeRegionServer, from: number, method: string): bigint[] {
  return regions.calls.slice(from).filter((c) => c.method === method).map((c) => c.id!);
}

test('a partitioned table has a region per expression; rows are written to theirs; a query reads only the regions its key values reach', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql('CREATE TABLE p (a INT, b STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (a, b)) PARTITION ON COLUMNS (a) (a < 1000, a >= 1000 AND a < 2000, a >= 2000)', s);
  const info = (await fe.catalog.table('public', 'p'))!;
  const [r0, r1, r2] = tableRegionIds(info) as [bigint, bigint, bigint];
  assert.deepEqual(info.region_numbers, [0, 1, 2]);
  assert.deepEqual(regionsAsked(regions, 0, 'createRegion'), [r0, r1, r2]);
  let from = regions.calls.length;
  await fe.executeSql("INSERT INTO p VALUES (100, 'x', 1, 1), (2400, 'y', 2, 2), (1100, 'x', 3, 3), (200, 'z', 4, 4), (NULL, 'n', 5, 5)", s);
  const writes = regions.calls.slice(from).filter((c) => c.method === 'write');
  assert.deepEqual(writes.map((w) => [w.id, w.batch!.rowCount]), [[r0, 3], [r1, 1], [r2, 1]]);
  // Every region read, its rows together.
  from = regions.calls.length;
  assert.deepEqual(await rows(fe, 'SELECT count(*), sum(v) FROM p'), [[5, 15]]);
  assert.deepEqual(regionsAsked(regions, from, 'query'), [r0, r1, r2]);
  const read = async (sql: string, expected: unknown[][], ids: bigint[]) => {
    const at = regions.calls.length;
    assert.deepEqual(await rows(fe, sql), expected, sql);
    assert.deepEqual(regionsAsked(regions, at, 'query'), ids, sql);
  };
  await read('SELECT b FROM p WHERE a = 1100', [['x']], [r1]);
  await read('SELECT b FROM p WHERE a IN (100, 2400) ORDER BY b', [['x'], ['y']], [r0, r2]);
  await read("SELECT a FROM p WHERE 2400 = a AND b = 'y'", [[2400]], [r2]);
  // A column outside the rule, or a range, chooses no region.
  await read("SELECT count(*) FROM p WHERE b = 'x'", [[2]], [r0, r1, r2]);
  await read('SELECT count(*) FROM p WHERE a > 1500', [[1]], [r0, r1, r2]);
  // A delete's tombstones go to the regions of their rows, with the key columns only.
  from = regions.calls.length;
  await fe.executeSql('DELETE FROM p WHERE a = 1100 OR a = 2400', s);
  const deletes = regions.calls.slice(from).filter((c) => c.method === 'write');
  assert.deepEqual(deletes.map((w) => [w.id, w.batch!.rowCount, [...w.batch!.columns.keys()].sort()]), [[r1, 1, [0, 1, 2]], [r2, 1, [0, 1, 2]]]);
  assert.deepEqual(await rows(fe, 'SELECT a FROM p ORDER BY a NULLS FIRST'), [[null], [100], [200]]);
  // Flush, compact and truncate reach every region.
  from = regions.calls.length;
  await fe.executeSql("ADMIN FLUSH_TABLE('p'); TRUNCATE TABLE p", s);
  assert.deepEqual(regionsAsked(regions, from, 'flushRegion'), [r0, r1, r2]);
  assert.deepEqual(regionsAsked(regions, from, 'truncateRegion'), [r0, r1, r2]);
});

test('a field column may partition a table: its equality terms choose the regions, without narrowing the key scan', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE f (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, trace STRING) PARTITION ON COLUMNS (trace) (trace < 'm', trace >= 'm') WITH (append_mode = 'true')", s);
  await fe.executeSql("INSERT INTO f VALUES ('a', 1, 'alpha'), ('a', 2, 'zulu'), ('b', 3, 'mike')", s);
  const [r0, r1] = tableRegionIds((await fe.catalog.table('public', 'f'))!) as [bigint, bigint];
  const from = regions.calls.length;
  assert.deepEqual(await rows(fe, "SELECT host, ts FROM f WHERE trace = 'zulu'"), [['a', 2]]);
  const queries = regions.calls.slice(from).filter((c) => c.method === 'query');
  assert.deepEqual(queries.map((q) => q.id), [r1]);
  assert.equal(queries[0]!.query!.scan!.keys, undefined);
  assert.deepEqual(await rows(fe, "SELECT count(*) FROM f WHERE host = 'a'"), [[2]]);
  assert.deepEqual(regionsAsked(regions, from, 'query').slice(1), [r0, r1]);
});

test('a partitioned physical metric table: a logical table writes to the regions its tags choose and reads only those its tag values reach', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE phy (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, val DOUBLE) PARTITION ON COLUMNS (host) (host < 'm', host >= 'm') ENGINE = metric WITH (physical_metric_table = '')", s);
  await fe.executeSql("CREATE TABLE cpu (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, val DOUBLE) PARTITION ON COLUMNS (host) ('m' <= host, host < 'm') ENGINE = metric WITH (on_physical_table = 'phy')", s);
  const [r0, r1] = tableRegionIds((await fe.catalog.table('public', 'phy'))!) as [bigint, bigint];
  let from = regions.calls.length;
  await fe.executeSql("INSERT INTO cpu VALUES (1, 'a', 1), (2, 'z', 2), (3, 'b', 3)", s);
  assert.deepEqual(regions.calls.slice(from).filter((c) => c.method === 'write').map((w) => [w.id, w.batch!.rowCount]), [[r0, 2], [r1, 1]]);
  from = regions.calls.length;
  assert.deepEqual(await rows(fe, "SELECT val FROM cpu WHERE host = 'z'"), [[2]]);
  assert.deepEqual(regionsAsked(regions, from, 'query'), [r1]);
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM cpu'), [[3]]);
  // Another rule than the physical table's is refused.
  const err = await failure(fe.executeSql("CREATE TABLE mem (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, val DOUBLE) PARTITION ON COLUMNS (host) (host < 'x', host >= 'x') ENGINE = metric WITH (on_physical_table = 'phy')", s));
  assert.equal(err.code, StatusCode.InvalidArguments);
  assert.match(err.message, /^Invalid partition rule: logical table partition rule must match the corresponding physical table's\n logical table partition exprs:\t\t \[PartitionExpr/);
});

test('ingestion into a partitioned table splits its rows; a row delete goes to the region its partition column chooses, or to every region without it', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  // The partition column is a field: a row delete need not name it.
  await fe.executeSql("CREATE TABLE disk (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, zone STRING) PARTITION ON COLUMNS (zone) (zone < 'm', zone >= 'm')", s);
  const [r0, r1] = tableRegionIds((await fe.catalog.table('public', 'disk'))!) as [bigint, bigint];
  const table = (rows: Array<[string, number, string]>, withZone = true): IngestTable => ({
    name: 'disk',
    rowCount: rows.length,
    columns: [
      { name: 'host', semantic: 'tag', type: 'String', vector: { type: 'string', data: rows.map((r) => r[0]) } },
      { name: 'ts', semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: BigInt64Array.from(rows.map((r) => BigInt(r[1]))) } },
      ...(withZone ? [{ name: 'zone', semantic: 'field' as const, type: 'String' as const, vector: { type: 'string' as const, data: rows.map((r) => r[2]) } }] : []),
    ],
  });
  let from = regions.calls.length;
  assert.equal(await fe.ingest([table([['a', 1, 'east'], ['b', 2, 'west'], ['c', 3, 'apac']])], s), 3);
  assert.deepEqual(regions.calls.slice(from).filter((c) => c.method === 'write').map((w) => [w.id, w.batch!.rowCount]), [[r0, 2], [r1, 1]]);
  from = regions.calls.length;
  assert.equal(await fe.deleteRows([table([['b', 2, 'west']])], s), 1);
  const withZone = regions.calls.slice(from).filter((c) => c.method === 'write');
  assert.deepEqual(withZone.map((w) => [w.id, [...w.batch!.columns.keys()].sort()]), [[r1, [0, 1]]]);
  from = regions.calls.length;
  assert.equal(await fe.deleteRows([table([['a', 1, '']], false)], s), 1);
  assert.deepEqual(regionsAsked(regions, from, 'write'), [r0, r1]);
  assert.deepEqual(await rows(fe, 'SELECT host, zone FROM disk ORDER BY host'), [['c', 'apac']]);
});

test('a query of several regions of a partitioned table splits: each region answers the whole query or its partial aggregates, the frontend the rest', async (t) => {
  const { fe, regions } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE sp (host STRING, dc STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT, i INT, PRIMARY KEY (host, dc)) PARTITION ON COLUMNS (host) (host < 'h', host >= 'h' AND host < 'p', host >= 'p')", s);
  const [r0, r1, r2] = tableRegionIds((await fe.catalog.table('public', 'sp'))!) as [bigint, bigint, bigint];
  await fe.executeSql(
    "INSERT INTO sp VALUES ('a', 'x', 1000, 1, 1, 1), ('a', 'y', 2000, 2, 2, 2), ('k', 'x', 1000, 3, 3, 3), ('k', 'x', 61000, NULL, 9223372036854775807, NULL), ('q', 'y', 1000, 5, 9223372036854775807, 7), ('z', 'x', 2000, 6, NULL, 8), (NULL, 'x', 3000, 7, 7, 7)",
    s,
  );
  const answer = async (sql: string): Promise<{ columns: Array<{ name: string; data_type: string }>; rows: unknown[][] }> => {
    const [out] = await fe.executeSql(sql, s);
    return out as unknown as { columns: Array<{ name: string; data_type: string }>; rows: unknown[][] };
  };
  /**
   * `sql`'s answer (`expected`, its names and types those of the query reading the rows here: the
   * same over a CTE of the table) and the fragment each region ran.
   */
  const split = async (sql: string, expected: unknown[][]): Promise<string> => {
    const from = regions.calls.length;
    const got = await answer(sql);
    const queries = regions.calls.slice(from).filter((c) => c.method === 'query');
    assert.deepEqual(queries.map((q) => q.id), [r0, r1, r2], sql);
    assert.ok(queries.every((q) => q.query!.sql === queries[0]!.query!.sql), sql);
    const here = await answer(`WITH w AS (SELECT * FROM sp) ${sql.replace(' FROM sp', ' FROM w AS sp')}`);
    assert.deepEqual(got.columns.map((c) => [c.name, c.data_type]), here.columns.map((c) => [c.name, c.data_type]), sql);
    assert.deepEqual(got.rows, here.rows, sql);
    assert.deepEqual(got.rows, expected, sql);
    return queries[0]!.query!.sql!;
  };
  const max = 9223372036854775807n;
  // GROUP BY the partition column: the whole query per region, ORDER BY and LIMIT (raised by the OFFSET) there and again here.
  assert.equal(
    await split('SELECT host, count(*) AS c, sum(n) FROM sp GROUP BY host ORDER BY c DESC, host LIMIT 2 OFFSET 1', [['k', 2, max + 3n], ['q', 1, max]]),
    'SELECT host, count_star() AS c, sum(n) FROM (SELECT * FROM "region") AS sp GROUP BY host ORDER BY c DESC, host LIMIT 3',
  );
  assert.equal(await split('SELECT host, dc, max(v) FROM sp GROUP BY dc, host HAVING max(v) > 2 ORDER BY 3 DESC', [[null, 'x', 7], ['z', 'x', 6], ['q', 'y', 5], ['k', 'x', 3]]), 'SELECT host, dc, max(v) FROM ((SELECT * FROM "region")) AS "sp" GROUP BY dc, host HAVING max(v) > 2 ORDER BY 3 DESC');
  // A filter and projection: the same.
  assert.equal(await split('SELECT * FROM sp WHERE ts >= 2000 ORDER BY ts DESC, host NULLS FIRST LIMIT 3', [['k', 'x', 61000, null, max, null], [null, 'x', 3000, 7, 7, 7], ['a', 'y', 2000, 2, 2, 2]]), 'SELECT * FROM ((SELECT * FROM "region")) AS "sp" WHERE ts >= CAST(epoch_ms(2000) AS TIMESTAMP_MS) ORDER BY ts DESC, host NULLS FIRST LIMIT 3');
  // Other groups: partial aggregates per region, their final aggregation here (count BIGINT, sum of BIGINT HUGEINT, avg DOUBLE).
  assert.equal(
    await split('SELECT dc, count(*), count(v), sum(n), avg(i), max(v) AS mv, min(ts) FROM sp GROUP BY dc HAVING count(*) > 1 ORDER BY 1', [['x', 5, 4, max + 11n, 19 / 4, 7, 1000], ['y', 2, 2, max + 2n, 4.5, 5, 1000]]),
    'SELECT dc AS __tsdb_part_0, count_star() AS __tsdb_part_1, count(v) AS __tsdb_part_2, sum(n) AS __tsdb_part_3, sum(i) AS __tsdb_part_4, count(i) AS __tsdb_part_5, max(v) AS __tsdb_part_6, min(ts) AS __tsdb_part_7 FROM (SELECT * FROM "region") AS sp GROUP BY dc',
  );
  // No groups; a time bucket; ORDER BY an aggregate not selected; an empty region's answer.
  assert.equal(await split('SELECT count(*), sum(v), min(host), avg(v) FROM sp', [[7, 24, 'a', 4]]), 'SELECT count_star() AS __tsdb_part_0, sum(v) AS __tsdb_part_1, min(host) AS __tsdb_part_2, count(v) AS __tsdb_part_3 FROM (SELECT * FROM "region") AS sp');
  await split("SELECT date_bin(INTERVAL '1 minute', ts) AS b, count(*) AS c FROM sp GROUP BY b ORDER BY sum(v) DESC", [[0, 6], [60000, 1]]);
  await split("SELECT count(*), sum(i) FROM sp WHERE dc = 'y' AND host < 'b'", [[1, 2]]);
  await split("SELECT dc, avg(n) FROM sp WHERE host > 'zz' GROUP BY dc", []);
  // The last row of each host (lastpoint: DISTINCT ON, QUALIFY): every region answers for its hosts.
  const last = [['a', 'y', 2000, 2, 2, 2], ['k', 'x', 61000, null, max, null], ['q', 'y', 1000, 5, max, 7], ['z', 'x', 2000, 6, null, 8], [null, 'x', 3000, 7, 7, 7]];
  assert.match(await split('SELECT DISTINCT ON (host) * FROM sp ORDER BY host, ts DESC', last), /QUALIFY \(row_number\(\) OVER \(PARTITION BY host ORDER BY ts DESC\) = 1\)/);
  await split('SELECT * FROM sp QUALIFY row_number() OVER (PARTITION BY host ORDER BY ts DESC) = 1 ORDER BY host', last);
  // What does not split reads the rows here: a DISTINCT aggregate, a window, a sort by a column not selected.
  for (const sql of ['SELECT count(DISTINCT dc) FROM sp', 'SELECT host, row_number() OVER (ORDER BY ts) FROM sp ORDER BY 2', 'SELECT host FROM sp ORDER BY ts, host']) {
    const from = regions.calls.length;
    await answer(sql);
    assert.ok(regions.calls.slice(from).filter((c) => c.method === 'query').every((q) => /^SELECT "[a-z]+"(, "[a-z]+")* FROM region$/.test(q.query!.sql!)), sql);
  }
  // An answer of a type that cannot cross (an interval): refused by a region before it runs, the others stopped, the rows read here.
  const from = regions.calls.length;
  assert.deepEqual((await answer('SELECT host, max(ts) - min(ts) AS d FROM sp GROUP BY host ORDER BY host')).rows.length, 5);
  const asked = regions.calls.slice(from).filter((c) => c.method === 'query').map((q) => q.query!.sql!);
  assert.equal(asked.filter((q) => q.startsWith('SELECT host, max(ts) - min(ts) AS d FROM')).length, 3);
  assert.deepEqual(asked.filter((q) => !q.startsWith('SELECT host, max(ts) - min(ts) AS d FROM')), ['SELECT "host", "ts" FROM region', 'SELECT "host", "ts" FROM region', 'SELECT "host", "ts" FROM region']);
});
