import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { tableRegionIds } from '../catalog/table-info.js';
import type { RegionId } from '../types/region-id.js';
import { RegionEngine } from '../engine/region-engine.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { FrontendInstance } from './instance.js';
import type { ScanRequest } from '../types/scan-request.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { newSession } from './session.js';

/** Region access that records the time range (and key values) of every scan it attaches. */
class RecordingAccess extends LocalRegionServer {
  readonly ranges: ScanRequest[] = [];
  get regionEngine(): RegionEngine {
    return this.engine;
  }
  override scanRelation(id: RegionId, range: ScanRequest = {}) {
    this.ranges.push(range);
    return super.scanRelation(id, range);
  }
}

async function frontend(t: TestContext): Promise<{ fe: FrontendInstance; access: RecordingAccess }> {
  const dir = tempDir(t);
  const engine = await RegionEngine.open(testEngineOptions(dir, { compactAfterFlush: false }));
  t.after(() => engine.close());
  const access = new RecordingAccess(engine);
  return { fe: new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), access, engine.duckdb), access };
}

test('a query\'s time range reaches the scan: files outside it are not read', async (t) => {
  const { fe, access } = await frontend(t);
  const s = newSession();
  await fe.executeSql("CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO m VALUES ('a', 0, 1), ('a', 1000, 2)", s);
  await fe.executeSql("ADMIN FLUSH_TABLE('m'); INSERT INTO m VALUES ('a', 100000, 3), ('a', 101000, 4); ADMIN FLUSH_TABLE('m')", s);
  const [out] = await fe.executeSql("SELECT sum(v) AS s FROM m WHERE ts >= 100000 AND ts < '1970-01-01 00:01:42'", s);
  assert.deepEqual(out, { kind: 'records', columns: [{ name: 's', data_type: 'Float64' }], rows: [[7]] });
  assert.deepEqual(access.ranges.at(-1), { start: 100000n, end: 102000n });
  const region = access.regionEngine.region([...access.regionEngine.regionIds()][0]!);
  assert.equal(region.files().length, 2);
  assert.equal((await access.regionEngine.scan(region.id, { start: 100000n, end: 102000n })).fileCount, 1, 'the scan of that range reads one of the two files');
  // Through a CTE, as a range query reads its table, the range still reaches the scan.
  const [ranged] = await fe.executeSql("SELECT ts, max(v) RANGE '1s' AS m FROM m WHERE ts >= 100000 ALIGN '1s' BY () ORDER BY ts", s);
  assert.deepEqual((ranged as unknown as { rows: unknown[][] }).rows, [[100000, 3], [101000, 4]]);
  assert.deepEqual(access.ranges.at(-1), { start: 100000n });
  // A query without a usable range reads everything, and answers the same way.
  await fe.executeSql('SELECT sum(v) FROM m WHERE ts >= 100000 OR v > 100', s);
  assert.deepEqual(access.ranges.at(-1), {});
});

test("bounds relative to now() and literals read in the session's time zone reach the scan, on every unit", async (t) => {
  const { fe, access } = await frontend(t);
  const s = newSession();
  const region = async (name: string) => {
    const info = (await fe.catalog.table('public', name))!;
    return access.regionEngine.region(tableRegionIds(info)[0]!);
  };
  for (const [table, precision, perMs] of [['n_ms', 3, 1n], ['n_ns', 9, 1_000_000n], ['n_s', 0, 0n]] as const) {
    await fe.executeSql(`CREATE TABLE ${table} (host STRING PRIMARY KEY, ts TIMESTAMP(${precision}) TIME INDEX, v DOUBLE); INSERT INTO ${table} VALUES ('a', '2024-01-01 00:00:00', 1)`, s);
    await fe.executeSql(`ADMIN FLUSH_TABLE('${table}'); INSERT INTO ${table} VALUES ('a', now() - INTERVAL '1 minute', 2); ADMIN FLUSH_TABLE('${table}')`, s);
    assert.equal((await region(table)).files().length, 2);
    for (const filter of ["ts > now() - INTERVAL '5 minutes'", 'ts >= date_sub(current_timestamp, INTERVAL 5 MINUTE)', "ts BETWEEN now() - INTERVAL '5 minutes' AND now() + INTERVAL 1 DAY"]) {
      const before = Date.now();
      const [out] = await fe.executeSql(`SELECT sum(v) AS s FROM ${table} WHERE ${filter}`, s);
      const after = Date.now();
      assert.deepEqual((out as unknown as { rows: unknown[][] }).rows, [[2]], filter);
      const range = access.ranges.at(-1)!;
      // The bound is now() - 5 minutes in the table's unit (floored): seconds are the coarsest.
      const lo = perMs === 0n ? BigInt(Math.floor((before - 300_000) / 1000)) : BigInt(before - 300_000) * perMs;
      const hi = perMs === 0n ? BigInt(Math.ceil((after - 300_000) / 1000)) + 1n : BigInt(after - 300_000 + 1) * perMs;
      assert.ok(range.start !== undefined && range.start >= lo && range.start <= hi, `${table} ${filter}: ${String(range.start)} in [${lo}, ${hi}]`);
      assert.equal((await access.regionEngine.scan((await region(table)).id, range)).fileCount, 1, `${table} ${filter}: the old file is not read`);
    }
  }
  // A naive literal is read in the session's zone, for the scan as for the filter.
  const ny = newSession('public', 'America/New_York');
  const [out] = await fe.executeSql("SELECT sum(v) AS s FROM n_ms WHERE ts >= '2023-12-31 19:00:00' AND ts < '2023-12-31 19:00:01'", ny);
  assert.deepEqual((out as unknown as { rows: unknown[][] }).rows, [[1]]);
  assert.deepEqual(access.ranges.at(-1), { start: BigInt(Date.UTC(2024, 0, 1)), end: BigInt(Date.UTC(2024, 0, 1)) + 1000n });
});

test('key values of the WHERE reach the scan and never change results (duplicates, deletes, NULL tags)', async (t) => {
  const { fe, access } = await frontend(t);
  const s = newSession();
  const sql = async (q: string) => ((await fe.executeSql(q, s)).at(-1) as unknown as { rows: unknown[][] }).rows;
  await sql('CREATE TABLE m (host STRING, k INT, ts TIMESTAMP TIME INDEX, v DOUBLE, f STRING, PRIMARY KEY (host, k))');
  await sql("INSERT INTO m VALUES ('a', 1, 0, 1, 'x'), ('a', 1, 1000, 2, 'a'), ('b', 2, 0, 3, 'a'), (NULL, 1, 0, 4, 'a'), ('a', NULL, 0, 5, NULL), ('c', 3, 2000, 6, 'c')");
  await sql("ADMIN FLUSH_TABLE('m')");
  // Newer rows in a second file and in the memtable replace older ones of the same key and time.
  await sql("INSERT INTO m VALUES ('a', 1, 0, 10, 'y'), ('b', 2, 5000, 11, 'b')");
  await sql("ADMIN FLUSH_TABLE('m')");
  await sql("INSERT INTO m VALUES ('a', 1, 1000, 20, 'z'), ('b', 2, 0, 21, 'a'), (NULL, 1, 3000, 22, 'a'), ('d', 4, 0, 23, 'd')");
  await sql("DELETE FROM m WHERE host = 'c' AND ts = 2000");
  await sql("DELETE FROM m WHERE host = 'b' AND k = 2 AND ts = 5000");
  const region = access.regionEngine.region([...access.regionEngine.regionIds()][0]!);
  assert.equal(region.files().length, 2);
  assert.ok(region.memtableRows() > 0);
  const hostId = 0;
  const kId = 1;
  const cases: Array<[where: string, keys: Record<number, unknown[]> | undefined]> = [
    ["host = 'a'", { [hostId]: ['a'] }],
    ["'b' = m.host AND k = 2", { [hostId]: ['b'], [kId]: [2n] }],
    ["host IN ('a', 'c', 'zz')", { [hostId]: ['a', 'c', 'zz'] }],
    ["host = 'c'", { [hostId]: ['c'] }],
    ["host = 'a' AND ts = 1000", { [hostId]: ['a'] }],
    ["host = 'a' AND host = 'b'", { [hostId]: [] }],
    ['k IN (1, 4)', { [kId]: [1n, 4n] }],
    ["host = 'a' OR host = 'b'", undefined],
    ["host <> 'a'", undefined],
    ["host > 'a' AND host < 'd'", undefined],
    ['host IS NULL', undefined],
    ["f = 'a'", undefined],
    ['v = 21', undefined],
    // Handed on, but a string for an integer tag filters nothing (DuckDB would cast it).
    ["k = '1'", { [kId]: ['1'] }],
  ];
  for (const [where, keys] of cases) {
    const got = await sql(`SELECT host, k, ts, v, f FROM m WHERE ${where} ORDER BY host, k, ts`);
    const request = access.ranges.at(-1)!;
    assert.deepEqual(request.keys === undefined ? undefined : Object.fromEntries(request.keys), keys, where);
    // The same WHERE over a CTE that reads the whole table: no key values reach that scan.
    const whole = await sql(`WITH w AS MATERIALIZED (SELECT * FROM m) SELECT host, k, ts, v, f FROM w AS m WHERE ${where} ORDER BY host, k, ts`);
    assert.equal(access.ranges.at(-1)!.keys, undefined);
    assert.deepEqual(got, whole, where);
  }
  assert.deepEqual(await sql("SELECT v FROM m WHERE host = 'a' AND k = 1 ORDER BY ts"), [[10], [20]]);
  assert.deepEqual(await sql("SELECT v FROM m WHERE host = 'b' ORDER BY ts"), [[21]]);
  assert.deepEqual(await sql("SELECT count(*) FROM m WHERE host = 'c'"), [[0]]);
  // Compacted into one file, the same answers.
  await sql("ADMIN COMPACT_TABLE('m')");
  assert.deepEqual(await sql("SELECT v FROM m WHERE host IN ('a', 'b') ORDER BY v"), [[5], [10], [20], [21]]);
});

test('lastpoint queries ask their scan for last rows and answer as a query reading every row does (files and memtables, updates, deletes, last_non_null)', async (t) => {
  const { fe, access } = await frontend(t);
  const s = newSession();
  const sql = async (q: string) => ((await fe.executeSql(q, s))[0] as unknown as { rows: unknown[][] }).rows;
  for (const [table, options] of [['lp', ''], ['lnn', " WITH ('merge_mode' = 'last_non_null')"]] as const) {
    await sql(`CREATE TABLE ${table} (host STRING, dc STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, w DOUBLE, PRIMARY KEY (host, dc))${options}`);
    const values = (from: number, n: number, k: number) => Array.from({ length: n }, (_, i) => `('h${i % 3}', 'dc${i % 2}', ${(from + i) * 1000}, ${i * k}, ${i % 4})`).join(', ');
    await sql(`INSERT INTO ${table} VALUES ${values(0, 24, 1)}`);
    await sql(`ADMIN FLUSH_TABLE('${table}')`);
    // Late rows into the flushed range, updates of the latest rows (a NULL among them), a series only here.
    await sql(`INSERT INTO ${table} VALUES ${values(10, 20, 2)}, ('h9', 'dc0', 1000, 1, 1)`);
    await sql(`INSERT INTO ${table} VALUES ('h2', 'dc0', 24000, NULL, 99), ('h1', 'dc1', 29000, 7, NULL)`);
  }
  /** The last row of each host (and dc) read by a join on max(ts): the table read twice, so in full. */
  const reference = (table: string, keys: string, where = 'true') =>
    `SELECT ${table}.* FROM ${table} JOIN (SELECT ${keys}, max(ts) AS t FROM ${table} WHERE ${where} GROUP BY ${keys}) x USING (${keys}) WHERE ${table}.ts = x.t AND ${where} ORDER BY host, dc`;
  const check = async (table: string) => {
    for (const [q, ref] of [
      [`SELECT DISTINCT ON (host, dc) * FROM ${table} ORDER BY host, dc, ts DESC`, reference(table, 'host, dc')],
      [`SELECT * FROM ${table} QUALIFY row_number() OVER (PARTITION BY host, dc ORDER BY ts DESC) = 1 ORDER BY host, dc`, reference(table, 'host, dc')],
      [
        `SELECT last_value(host ORDER BY ts) AS host, dc, last_value(ts ORDER BY ts) AS ts, last_value(v ORDER BY ts) AS v, last_value(w ORDER BY ts) AS w FROM ${table} GROUP BY host, dc ORDER BY host, dc`,
        reference(table, 'host, dc'),
      ],
      [`SELECT DISTINCT ON (host, dc) * FROM ${table} WHERE ts <= 20000 AND host <> 'h1' ORDER BY host, dc, ts DESC`, reference(table, 'host, dc', "ts <= 20000 AND host <> 'h1'")],
      [`SELECT DISTINCT ON (host, dc) * FROM ${table} WHERE ts >= '1970-01-01 00:00:25' ORDER BY host, dc, ts DESC`, reference(table, 'host, dc', "ts >= '1970-01-01 00:00:25'")],
    ] as const) {
      const got = await sql(q);
      assert.equal(access.ranges.at(-1)!.lastRow, true, q);
      assert.ok(got.length >= 3, q);
      assert.deepEqual(got, await sql(ref), q);
    }
    // A field filter reads every row.
    const filtered = await sql(`SELECT DISTINCT ON (host, dc) * FROM ${table} WHERE v > 10 ORDER BY host, dc, ts DESC`);
    assert.equal(access.ranges.at(-1)!.lastRow, undefined);
    assert.deepEqual(filtered, await sql(reference(table, 'host, dc', 'v > 10')));
  };
  for (const table of ['lp', 'lnn']) await check(table);
  // last_non_null: the NULLs of the latest rows' updates are the older writes' values.
  assert.deepEqual(await sql("SELECT DISTINCT ON (host, dc) v, w FROM lnn WHERE host = 'h2' AND dc = 'dc0' ORDER BY host, dc, ts DESC"), [[28, 99]]);
  assert.deepEqual(await sql("SELECT DISTINCT ON (host, dc) v, w FROM lnn WHERE host = 'h1' AND dc = 'dc1' ORDER BY host, dc, ts DESC"), [[7, 3]]);
  // Deletes of latest rows (in the memtable): the latest rows are older ones.
  for (const table of ['lp', 'lnn']) {
    await sql(`DELETE FROM ${table} WHERE ts >= 28000`);
    await check(table);
  }
});
