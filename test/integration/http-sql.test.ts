/**
 * `POST /v1/sql` on a real standalone server: output formats, headers, parameters and their
 * errors, time zones, and tables and rows that survive a restart and a SIGKILL.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { tempDir, tempFile } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';
import { MAX_COLUMNS_PER_TABLE } from '../../src/catalog/limits.js';

async function sql(baseUrl: string, statement: string, opts: { query?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${baseUrl}/v1/sql${opts.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
}

async function start(t: TestContext, dir = tempDir(t)) {
  return { dir, ...(await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir])) };
}

test('/v1/sql answers in every format, with its headers', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, "CREATE TABLE f (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO f VALUES ('a', 1, 1.5), ('b, \"x\"', 2, NULL)");
  const q = 'SELECT host, ts, v FROM f ORDER BY ts';

  const v1 = await sql(baseUrl, q);
  assert.equal(v1.status, 200);
  assert.equal(v1.headers.get('x-tsdb-format'), 'greptimedb_v1');
  assert.match(v1.headers.get('x-tsdb-execution-time') ?? '', /^\d+$/);
  const body = (await v1.json()) as Record<string, unknown>;
  assert.equal(body['code'], 0);
  assert.deepEqual(body['output'], [
    {
      records: {
        schema: { column_schemas: [{ name: 'host', data_type: 'String' }, { name: 'ts', data_type: 'TimestampMillisecond' }, { name: 'v', data_type: 'Float64' }] },
        rows: [['a', 1, 1.5], ['b, "x"', 2, null]],
        total_rows: 2,
      },
    },
  ]);
  assert.equal(typeof body['execution_time_ms'], 'number');

  const json = (await (await sql(baseUrl, q, { query: '?format=json' })).json()) as Record<string, unknown>;
  assert.deepEqual(json['data'], [{ host: 'a', ts: 1, v: 1.5 }, { host: 'b, "x"', ts: 2, v: null }]);

  const csv = await sql(baseUrl, q, { query: '?format=csvWithNamesAndTypes' });
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(await csv.text(), 'host,ts,v\r\nString,TimestampMillisecond,Float64\r\na,1,1.5\r\n"b, ""x""",2,\r\n');
  assert.equal(await (await sql(baseUrl, q, { query: '?format=csv' })).text(), 'a,1,1.5\r\n"b, ""x""",2,\r\n');

  const influx = (await (await sql(baseUrl, q, { query: '?format=influxdb_v1' })).json()) as Record<string, unknown>;
  assert.deepEqual(influx['results'], [{ statement_id: 0, series: [{ name: '', columns: ['host', 'ts', 'v'], values: [['a', 1, 1.5], ['b, "x"', 2, null]] }] }]);

  const table = await (await sql(baseUrl, 'SELECT 1 AS x', { query: '?format=table' })).text();
  assert.equal(table, '┌───┐\n│ x │\n├───┤\n│ 1 │\n└───┘\n');
  assert.match(await (await sql(baseUrl, q, { query: '?format=null' })).text(), /^2 rows in set\.\nElapsed: \d+\.\d{3} sec\.\n$/);

  // limit truncates each result; several statements only in the two JSON formats.
  const limited = (await (await sql(baseUrl, q, { query: '?limit=1' })).json()) as { output: Array<{ records: { rows: unknown[]; total_rows: number } }> };
  assert.equal(limited.output[0]!.records.total_rows, 1);
  const multi = await sql(baseUrl, 'SELECT 1; SELECT 2', { query: '?format=csv' });
  assert.equal(multi.status, 400);
  const multiBody = (await multi.json()) as Record<string, unknown>;
  assert.equal(multiBody['code'], 1004);
  assert.equal(multiBody['error'], 'cannot output multi-statements result in csv format');
});

test('/v1/sql refuses bad requests with the reference\'s codes and statuses', async (t) => {
  const { baseUrl } = await start(t);
  const cases: Array<[string, Promise<Response>, number, number, RegExp]> = [
    ['GET', fetch(`${baseUrl}/v1/sql?sql=SELECT%201`), 405, 1004, /POST/],
    ['JSON body', fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sql":"SELECT 1"}' }), 415, 1004, /Content-Type/],
    ['no sql', fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'db=public' }), 400, 1004, /^sql parameter is required\.$/],
    ['unknown db', sql(baseUrl, 'SELECT 1', { query: '?db=nope' }), 400, 4004, /^Database not found: nope$/],
    ['other catalog', sql(baseUrl, 'SELECT 1', { query: '?db=other-public' }), 400, 4004, /^Database not found: other-public$/],
    ['bad time zone', sql(baseUrl, 'SELECT 1', { headers: { 'x-tsdb-timezone': 'Mars/Olympus' } }), 400, 1004, /^Invalid time zone: Mars\/Olympus$/],
    ['syntax', sql(baseUrl, 'SELEC 1'), 400, 1001, /keyword: SELEC/],
    ['missing table', sql(baseUrl, 'SELECT * FROM nope'), 400, 4001, /Table not found: tsdb\.public\.nope/],
    ['unknown format', sql(baseUrl, 'SELECT 1', { query: '?format=nope' }), 400, 1004, /^Invalid format: nope; valid formats: greptimedb_v1, json, csv, csvWithNames, csvWithNamesAndTypes, table, influxdb_v1, null$/],
    ['arrow format', sql(baseUrl, 'SELECT 1', { query: '?format=arrow' }), 400, 1001, /^Unsupported format: arrow is not implemented; valid formats: /],
  ];
  for (const [name, pending, status, code, message] of cases) {
    const res = await pending;
    assert.equal(res.status, status, name);
    assert.equal(res.headers.get('x-tsdb-err-code'), String(code), name);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body['code'], code, name);
    assert.match(String(body['error']), message, name);
  }
  // A refused format runs nothing.
  assert.equal((await sql(baseUrl, 'CREATE TABLE fmt (ts TIMESTAMP TIME INDEX)', { query: '?format=nope' })).status, 400);
  assert.equal(((await (await sql(baseUrl, 'SELECT * FROM fmt')).json()) as Record<string, unknown>)['code'], 4001);
  // db as `<catalog>-<schema>` and the first failing statement replacing the whole response.
  assert.equal(((await (await sql(baseUrl, 'SELECT 1', { query: '?db=tsdb-public' })).json()) as Record<string, unknown>)['code'], 0);
  const failed = (await (await sql(baseUrl, 'SELECT 1; SELECT * FROM nope; SELECT 2')).json()) as Record<string, unknown>;
  assert.equal(failed['code'], 4001);
  assert.equal(failed['output'], undefined);
});

test('X-Tsdb-Timezone reads naive timestamps in that zone', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, 'CREATE TABLE z (ts TIMESTAMP TIME INDEX, v INT)');
  await sql(baseUrl, "INSERT INTO z VALUES ('2024-01-01 08:00:00', 1)", { headers: { 'x-tsdb-timezone': 'Asia/Shanghai' } });
  await sql(baseUrl, "INSERT INTO z VALUES ('2024-01-01 08:00:00', 2)", { headers: { 'x-tsdb-timezone': '-05:00' } });
  await sql(baseUrl, "INSERT INTO z VALUES ('2024-01-01 08:00:00Z', 3)", { headers: { 'x-tsdb-timezone': 'Asia/Shanghai' } });
  const body = (await (await sql(baseUrl, 'SELECT ts, v FROM z ORDER BY v')).json()) as { output: Array<{ records: { rows: unknown[][] } }> };
  assert.deepEqual(body.output[0]!.records.rows, [
    [Date.UTC(2024, 0, 1, 0), 1],
    [Date.UTC(2024, 0, 1, 13), 2],
    [Date.UTC(2024, 0, 1, 8), 3],
  ]);
  // Functions of the session's time zone.
  const shanghai = (await (await sql(baseUrl, "SELECT timezone() AS tz, date_format(ts, '%H:%M') AS local, to_unixtime('2024-01-01 08:00:00') AS secs FROM z WHERE v = 1", { headers: { 'x-tsdb-timezone': 'Asia/Shanghai' } })).json()) as { output: Array<{ records: { rows: unknown[][] } }> };
  assert.deepEqual(shanghai.output[0]!.records.rows, [['Asia/Shanghai', '08:00', Date.UTC(2024, 0, 1) / 1000]]);
});

test('tables and acknowledged rows survive a restart and a SIGKILL mid-ingest', async (t) => {
  const dir = tempDir(t);
  let server = await start(t, dir);
  await sql(server.baseUrl, 'CREATE DATABASE d; CREATE TABLE d.w (writer STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, n BIGINT)');
  await sql(server.baseUrl, "INSERT INTO d.w VALUES ('w', 0, 0)");
  await sql(server.baseUrl, "ADMIN FLUSH_TABLE('d.w')");
  const acknowledged: number[] = [0];
  let stop = false;
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 1; !stop; i++) {
      const n = w * 1_000_000 + i;
      try {
        const res = await sql(server.baseUrl, `INSERT INTO d.w VALUES ('w', ${n}, ${n})`);
        if (((await res.json()) as Record<string, unknown>)['code'] === 0) acknowledged.push(n);
      } catch {
        return; // the server is gone
      }
    }
  });
  await new Promise((r) => setTimeout(r, 700));
  await server.proc.stop('SIGKILL');
  stop = true;
  await Promise.all(writers);
  assert.ok(acknowledged.length > 10, `only ${acknowledged.length} inserts were acknowledged`);

  server = await start(t, dir);
  const res = (await (await sql(server.baseUrl, 'SELECT n FROM w ORDER BY n', { query: '?db=d' })).json()) as { code: number; output: Array<{ records: { rows: number[][] } }> };
  assert.equal(res.code, 0);
  const present = new Set(res.output[0]!.records.rows.map((r) => r[0]));
  for (const n of acknowledged) assert.ok(present.has(n), `acknowledged insert ${n} is missing after the restart`);
  const desc = (await (await sql(server.baseUrl, 'DESC TABLE d.w')).json()) as { code: number };
  assert.equal(desc.code, 0, 'the table is in the catalog after the restart');
});

test('with a user provider, /v1/sql needs Basic credentials and db, and checks permissions', async (t) => {
  const users = tempFile(t, 'users', 'admin=secret\nreader:ro=r3ad\nwriter:wo=wr1te\n');
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', `static_user_provider:file:${users}`]);
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const expect = async (res: Promise<Response>, status: number, code: number, message?: RegExp) => {
    const r = await res;
    const body = (await r.json()) as Record<string, unknown>;
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(body['code'], code, JSON.stringify(body));
    if (message) assert.match(String(body['error']), message);
  };
  await expect(sql(baseUrl, 'SELECT 1', { query: '?db=public' }), 401, 7003, /^Not found http or grpc authorization header$/);
  await expect(sql(baseUrl, 'SELECT 1', { query: '?db=public', headers: basic('admin', 'nope') }), 401, 7002, /^Username and password does not match, username: admin$/);
  await expect(sql(baseUrl, 'SELECT 1', { query: '?db=public', headers: basic('ghost', 'x') }), 401, 7000, /^User not found, username: ghost$/);
  await expect(sql(baseUrl, 'SELECT 1', { query: '?db=public', headers: { authorization: 'Digest abc' } }), 401, 7004);
  await expect(sql(baseUrl, 'SELECT 1', { headers: basic('admin', 'secret') }), 400, 1004, /db parameter is required/);
  await expect(sql(baseUrl, 'CREATE TABLE p (ts TIMESTAMP TIME INDEX, v INT)', { query: '?db=public', headers: basic('admin', 'secret') }), 200, 0);
  await expect(sql(baseUrl, 'INSERT INTO p VALUES (1, 1)', { query: '?db=public', headers: basic('writer', 'wr1te') }), 200, 0);
  await expect(sql(baseUrl, 'SELECT * FROM p', { query: '?db=public', headers: basic('writer', 'wr1te') }), 403, 7006, /^User is not authorized to perform this action$/);
  await expect(sql(baseUrl, 'SELECT * FROM p', { query: '?db=public', headers: basic('reader', 'r3ad') }), 200, 0);
  await expect(sql(baseUrl, 'DROP TABLE p', { query: '?db=public', headers: basic('reader', 'r3ad') }), 403, 7006);
  // The token header works as well as Authorization.
  await expect(sql(baseUrl, 'SELECT 1', { query: '?db=public', headers: { 'x-tsdb-auth': basic('reader', 'r3ad').authorization } }), 200, 0);
});

test('EXPLAIN and EXPLAIN ANALYZE show the plan over the table\'s scan, in GreptimeDB\'s shapes', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, "CREATE TABLE e (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO e VALUES ('a', 1, 1)");
  for (const [stmt, columns] of [
    ['EXPLAIN SELECT count(*) FROM e', ['plan_type', 'plan']],
    ['EXPLAIN ANALYZE SELECT count(*) FROM e WHERE ts > 0', ['stage', 'node', 'plan']],
  ] as const) {
    const body = (await (await sql(baseUrl, stmt)).json()) as { code: number; output: Array<{ records: { schema: { column_schemas: Array<{ name: string }> }; rows: string[][] } }> };
    assert.equal(body.code, 0, stmt);
    const rec = body.output[0]!.records;
    assert.deepEqual(rec.schema.column_schemas.map((c) => c.name), columns, stmt);
    const text = rec.rows.map((r) => r[r.length - 1]).join('\n');
    assert.match(text, /TSDB_MEMTABLE_SCAN|tsdb_memtable_scan/i, stmt);
    // Never DuckDB's catalog, never the statement as tsdb rewrote it.
    assert.doesNotMatch(text, /memory\.main|"c0"/, stmt);
    if (columns.length === 2) assert.deepEqual(rec.rows.map((r) => r[0]), ['logical_plan', 'physical_plan']);
    else assert.deepEqual(rec.rows.at(-1), [null, null, 'Total rows: 1']);
  }
});

test('SHOW CREATE TABLE gives a statement that re-creates the same table', async (t) => {
  const { baseUrl } = await start(t);
  const create =
    "CREATE TABLE r (host STRING, dc STRING DEFAULT 'x' COMMENT 'data center', ts TIMESTAMP(6) NOT NULL DEFAULT current_timestamp(), " +
    "v DOUBLE NOT NULL DEFAULT 0, n INT UNSIGNED, ok BOOLEAN, b VARBINARY, d DATE, TIME INDEX (ts), PRIMARY KEY (host, dc)) " +
    "WITH (ttl = '7d', append_mode = 'false', merge_mode = 'last_non_null', 'compaction.twcs.time_window' = '1h')";
  assert.equal(((await (await sql(baseUrl, create)).json()) as { code: number }).code, 0);
  const show = async () => ((await (await sql(baseUrl, 'SHOW CREATE TABLE r')).json()) as { output: Array<{ records: { rows: string[][] } }> }).output[0]!.records.rows[0]![1]!;
  const first = await show();
  await sql(baseUrl, 'DROP TABLE r');
  const again = (await (await sql(baseUrl, first)).json()) as { code: number; error?: string };
  assert.equal(again.code, 0, again.error);
  assert.equal(await show(), first);
  const desc = (await (await sql(baseUrl, 'DESC r')).json()) as { output: Array<{ records: { rows: string[][] } }> };
  assert.deepEqual(desc.output[0]!.records.rows.map((r) => r.slice(0, 4)), [
    ['host', 'String', 'PRI', 'YES'],
    ['dc', 'String', 'PRI', 'YES'],
    ['ts', 'TimestampMicrosecond', 'PRI', 'NO'],
    ['v', 'Float64', '', 'NO'],
    ['n', 'UInt32', '', 'YES'],
    ['ok', 'Boolean', '', 'YES'],
    ['b', 'Binary', '', 'YES'],
    ['d', 'Date', '', 'YES'],
  ]);
});

test('form bodies: +, percent-encoded UTF-8, and bad encodings', async (t) => {
  const { baseUrl } = await start(t);
  const post = (body: string) => fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body });
  const ok = (await (await post(`sql=${encodeURIComponent("SELECT 'héllo wörld' AS s").replaceAll('%20', '+')}&format=json`)).json()) as Record<string, unknown>;
  assert.deepEqual(ok['data'], [{ s: 'héllo wörld' }]);
  const bad = await post('sql=SELECT%E0%A4%A');
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as Record<string, unknown>)['code'], 1004);
});

test('date_bin and date_trunc keep the unit of the time index', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, "CREATE TABLE u (ts TIMESTAMP(3) TIME INDEX, v DOUBLE); INSERT INTO u VALUES ('2024-01-01 00:00:30', 1)");
  const body = (await (await sql(baseUrl, "SELECT date_bin(INTERVAL '1 minute', ts) AS m, date_trunc('hour', ts) AS h FROM u")).json()) as {
    output: Array<{ records: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] } }>;
  };
  const rec = body.output[0]!.records;
  assert.deepEqual(rec.schema.column_schemas, [{ name: 'm', data_type: 'TimestampMillisecond' }, { name: 'h', data_type: 'TimestampMillisecond' }]);
  assert.deepEqual(rec.rows, [[Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1)]]);
});

test('range queries align their slots in the session time zone by default', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, "CREATE TABLE d (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO d VALUES ('a', '2024-01-01 17:00:00Z', 1), ('a', '2024-01-02 15:00:00Z', 2)");
  const q = "SELECT ts, sum(v) RANGE '1d' AS s FROM d ALIGN '1d' ORDER BY ts";
  const rows = async (zone?: string) =>
    ((await (await sql(baseUrl, q, zone ? { headers: { 'x-tsdb-timezone': zone } } : {})).json()) as { output: Array<{ records: { rows: number[][] } }> }).output[0]!.records.rows;
  // UTC days: both rows on different days.
  assert.deepEqual(await rows(), [[Date.UTC(2024, 0, 1), 1], [Date.UTC(2024, 0, 2), 2]]);
  // Shanghai days (UTC+8) start at 16:00 UTC: both rows fall on 2024-01-02 local.
  assert.deepEqual(await rows('Asia/Shanghai'), [[Date.UTC(2024, 0, 1, 16), 3]]);
});

test('client mistakes are 4xx with a clear code: NUL bytes, a range query cut short, too many columns', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, "CREATE TABLE t (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO t VALUES ('a', 0, 1)");
  const answer = async (statement: string) => {
    const res = await sql(baseUrl, statement);
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, code: body['code'], error: String(body['error']) };
  };
  const nul = (l: number, c: number) => `Invalid SQL syntax: sql parser error: a NUL character (U+0000) is not allowed in SQL text (binary data can be written as a hex literal, X'00') at Line: ${l}, Column: ${c}`;
  assert.deepEqual(await answer("SELECT 'a\u0000b'"), { status: 400, code: 2000, error: nul(1, 10) });
  assert.deepEqual(await answer('SELECT 1\u0000'), { status: 400, code: 2000, error: nul(1, 9) });
  assert.deepEqual(await answer('SELECT "h\u0000" FROM t'), { status: 400, code: 2000, error: nul(1, 10) });
  assert.deepEqual(await answer("INSERT INTO t VALUES ('a\u0000', 1, 2)"), { status: 400, code: 2000, error: nul(1, 25) });
  assert.deepEqual(await answer('CREATE TABLE "x\u0000y" (ts TIMESTAMP TIME INDEX)'), { status: 400, code: 2000, error: nul(1, 16) });
  assert.deepEqual(await answer("SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h"), { status: 400, code: 2000, error: 'Invalid SQL syntax: sql parser error: Expected: ) closing BY (, found: EOF' });

  // At most 65,535 columns (a WAL record counts them in 16 bits): CREATE and ALTER … ADD past it are refused.
  const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i} DOUBLE`).join(', ');
  assert.deepEqual(await answer(`CREATE TABLE wide (ts TIMESTAMP TIME INDEX, ${columns(MAX_COLUMNS_PER_TABLE)})`), { status: 400, code: 1004, error: `Too many columns: table wide would have ${MAX_COLUMNS_PER_TABLE + 1} columns, at most ${MAX_COLUMNS_PER_TABLE}` });
  assert.equal((await answer(`CREATE TABLE wide (ts TIMESTAMP TIME INDEX, ${columns(MAX_COLUMNS_PER_TABLE - 1)})`)).code, 0);
  assert.deepEqual(await answer('ALTER TABLE wide ADD COLUMN one_more DOUBLE'), { status: 400, code: 1004, error: `Too many columns: table wide would have ${MAX_COLUMNS_PER_TABLE + 1} columns, at most ${MAX_COLUMNS_PER_TABLE}` });
  assert.equal((await answer('SELECT count(*) FROM wide')).code, 0);
});
