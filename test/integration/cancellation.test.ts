/**
 * Deadlines and cancellation against a real server, with real clients: `http.timeout` and
 * `x-tsdb-timeout`, HTTP client abort, MySQL max_execution_time (and its hint), KILL and KILL QUERY
 * from another session, PostgreSQL statement_timeout and CancelRequest (pg, postgres.js), and a
 * disconnect on each protocol. Each runaway is a cross join that would run for hours; after each
 * cancellation the server must be idle again: SHOW PROCESSLIST lists nothing but itself, and
 * `SELECT 1` answers at once. Timings are loose (a busy 2-core machine), but a statement that is not
 * cancelled never ends, so a missing cancellation fails the test.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { runClient } from '../support/run-client.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

/** A query that runs for hours: 10^14 rows to count. */
const RUNAWAY = 'SELECT count(*) FROM range(100000000) a, range(1000000) b';
/** How long a cancelled statement may take to leave the process list (loose: a busy machine). */
const SETTLE_MS = 3000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function hostPort(addr: string): { host: string; port: number } {
  return { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) };
}

interface SqlResponse {
  readonly status: number;
  readonly json: { code: number; error?: string; output?: Array<{ records?: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }> };
  readonly ms: number;
}

async function httpSql(baseUrl: string, sql: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<SqlResponse> {
  const started = Date.now();
  const res = await fetch(`${baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ sql }).toString(),
    ...(signal !== undefined && { signal }),
  });
  return { status: res.status, json: (await res.json()) as SqlResponse['json'], ms: Date.now() - started };
}

/** The statements SHOW FULL PROCESSLIST lists (as row objects), the SHOW itself left out. */
async function processes(baseUrl: string): Promise<Array<Record<string, unknown>>> {
  const { json } = await httpSql(baseUrl, 'SHOW FULL PROCESSLIST');
  const rec = json.output![0]!.records!;
  const names = rec.schema.column_schemas.map((c) => c.name);
  return rec.rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]]))).filter((p) => p['Query'] !== 'SHOW FULL PROCESSLIST');
}

/** Waits until `pred` holds of the process list; fails after `ms`. */
async function waitForProcesses(baseUrl: string, pred: (ps: Array<Record<string, unknown>>) => boolean, ms: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const ps = await processes(baseUrl);
    if (pred(ps)) return Date.now() - started;
    if (Date.now() - started > ms) assert.fail(`${what}: still running after ${ms} ms: ${JSON.stringify(ps)}`);
    await sleep(50);
  }
}

const runawayRunning = (ps: Array<Record<string, unknown>>) => ps.some((p) => p['Query'] === RUNAWAY);

/** The server is idle again: nothing but the SHOW in the process list, and SELECT 1 answers at once. */
async function assertIdle(baseUrl: string, what: string): Promise<void> {
  await waitForProcesses(baseUrl, (ps) => ps.length === 0, SETTLE_MS, what);
  const one = await httpSql(baseUrl, 'SELECT 1');
  assert.equal(one.status, 200, what);
  assert.ok(one.ms < 2000, `${what}: SELECT 1 took ${one.ms} ms`);
}

async function start(t: TestContext, extra: string[] = []): Promise<Started> {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...extra]);
}

test('http.timeout ends a runaway query with 408 DeadlineExceeded, and the server is idle after', async (t) => {
  const { baseUrl } = await start(t, ['--http-timeout', '2']);
  const res = await httpSql(baseUrl, RUNAWAY);
  assert.equal(res.status, 408);
  assert.equal(res.json.code, 1008);
  assert.equal(res.json.error, 'Request timed out after 2s');
  assert.ok(res.ms >= 1900 && res.ms < 2000 + 3000, `answered after ${res.ms} ms`);
  await assertIdle(baseUrl, 'after http.timeout');

  // An INSERT … SELECT stopped by the deadline writes nothing.
  assert.equal((await httpSql(baseUrl, 'CREATE TABLE c (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v BIGINT)')).status, 200);
  const insert = await httpSql(baseUrl, `INSERT INTO c SELECT 'h', now(), count(*) FROM range(100000000) a, range(1000000) b`);
  assert.equal(insert.status, 408);
  await assertIdle(baseUrl, 'after the INSERT … SELECT');
  assert.deepEqual((await httpSql(baseUrl, 'SELECT count(*) FROM c')).json.output![0]!.records!.rows, [[0]]);
});

test('x-tsdb-timeout bounds one request; a client that aborts cancels its statement', async (t) => {
  const { baseUrl } = await start(t);
  const res = await httpSql(baseUrl, RUNAWAY, { 'x-tsdb-timeout': '500ms' });
  assert.equal(res.status, 408);
  assert.equal(res.json.code, 1008);
  assert.equal(res.json.error, 'Request timed out after 500ms');
  await assertIdle(baseUrl, 'after x-tsdb-timeout');
  // A recursive CTE that never ends (and grows in memory) stops the same way.
  const cte = await httpSql(baseUrl, 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', { 'x-tsdb-timeout': '1s' });
  assert.equal(cte.status, 408);
  await assertIdle(baseUrl, 'after the recursive CTE');
  const bad = await httpSql(baseUrl, 'SELECT 1', { 'x-tsdb-timeout': 'soon' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error!, /Invalid x-tsdb-timeout header/);

  const client = new AbortController();
  const pending = httpSql(baseUrl, RUNAWAY, {}, client.signal).catch((e: unknown) => e);
  await waitForProcesses(baseUrl, runawayRunning, 5000, 'the runaway to start');
  client.abort();
  assert.equal((await pending as Error).name, 'AbortError');
  const settled = await waitForProcesses(baseUrl, (ps) => ps.length === 0, SETTLE_MS, 'after the HTTP client aborted');
  t.diagnostic(`HTTP abort: process list empty ${settled} ms after the client went away`);
  await assertIdle(baseUrl, 'after the HTTP client aborted');
});

test('SHOW PROCESSLIST and information_schema.process_list show a running statement; KILL stops it', async (t) => {
  const s = await start(t);
  const conn = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'tsdb', database: 'public' });
  t.after(() => conn.end());
  const running = conn.query(RUNAWAY).catch((e: unknown) => e);
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');

  const short = await httpSql(s.baseUrl, 'SHOW PROCESSLIST');
  assert.deepEqual(short.json.output![0]!.records!.schema.column_schemas.map((c) => c.name), ['Id', 'Catalog', 'Query', 'Elapsed Time']);
  const full = await httpSql(s.baseUrl, 'SHOW FULL PROCESSLIST');
  assert.deepEqual(full.json.output![0]!.records!.schema.column_schemas.map((c) => c.name), ['Id', 'Catalog', 'Schema', 'Client', 'Frontend', 'Start Time', 'Elapsed Time', 'Query']);
  const [p] = (await processes(s.baseUrl)).filter((x) => x['Query'] === RUNAWAY);
  assert.ok(p !== undefined);
  assert.equal(p['Catalog'], 'tsdb');
  assert.equal(p['Schema'], 'public');
  assert.match(String(p['Client']), /^mysql\[127\.0\.0\.1:\d+\]$/);
  assert.ok(typeof p['Elapsed Time'] === 'number' && p['Elapsed Time'] >= 0);
  const table = await httpSql(s.baseUrl, `SELECT id, catalog, schemas, client FROM information_schema.process_list WHERE query = '${RUNAWAY}'`);
  assert.deepEqual(table.json.output![0]!.records!.rows, [[p['Id'], 'tsdb', 'public', p['Client']]]);

  // KILL from another session (here HTTP): the MySQL client gets ER_QUERY_INTERRUPTED, its connection stays usable.
  // The id as GreptimeDB shows it: this frontend's gRPC address, then the statement's number.
  assert.match(String(p['Id']), /^127\.0\.0\.1:\d+\/\d+$/);
  assert.equal(p['Frontend'], String(p['Id']).slice(0, String(p['Id']).lastIndexOf('/')));
  const kill = await httpSql(s.baseUrl, `KILL '${String(p['Id'])}'`);
  assert.equal(kill.status, 200, JSON.stringify(kill.json));
  const err = (await running) as { errno?: number; message?: string };
  assert.equal(err.errno, 1317);
  assert.match(err.message!, /Cancelled/);
  await assertIdle(s.baseUrl, 'after KILL');
  assert.deepEqual((await conn.query('SELECT 1 AS x'))[0], [{ x: 1 }]);
  // An id that runs nothing is a clear client error.
  const unknown = await httpSql(s.baseUrl, `KILL '${String(p['Id'])}'`);
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 1004);
});

test('MySQL: max_execution_time and its hint, KILL QUERY from another connection, disconnect, the mysql CLI', async (t) => {
  const s = await start(t);
  const { host, port } = hostPort(s.mysql!);
  const a = await mysql.createConnection({ host, port, user: 'tsdb', database: 'public' });
  const b = await mysql.createConnection({ host, port, user: 'tsdb', database: 'public' });
  t.after(() => b.end());

  await a.query('SET max_execution_time = 700');
  assert.deepEqual((await a.query('SELECT @@max_execution_time'))[0], [{ '@@max_execution_time': '700' }]);
  let started = Date.now();
  await assert.rejects(a.query(RUNAWAY), (e: { errno?: number }) => e.errno === 3024);
  assert.ok(Date.now() - started < 700 + 3000, `timed out after ${Date.now() - started} ms`);
  await assertIdle(s.baseUrl, 'after max_execution_time');
  await a.query('SET max_execution_time = 0');
  started = Date.now();
  await assert.rejects(a.query(`SELECT /*+ MAX_EXECUTION_TIME(500) */ count(*) FROM range(100000000) a, range(1000000) b`), (e: { errno?: number }) => e.errno === 3024);
  await assertIdle(s.baseUrl, 'after the MAX_EXECUTION_TIME hint');
  await assert.rejects(a.query(`SET max_execution_time = 'soon'`), (e: { errno?: number }) => e.errno === 1231);

  // KILL QUERY <connection id> (what the mysql CLI sends on Ctrl-C) from another connection.
  const running = a.query(RUNAWAY).catch((e: unknown) => e);
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');
  const [killed] = await b.query(`KILL QUERY ${a.threadId}`);
  assert.equal((killed as { affectedRows: number }).affectedRows, 1);
  assert.equal(((await running) as { errno?: number }).errno, 1317);
  await assertIdle(s.baseUrl, 'after KILL QUERY');
  assert.deepEqual((await a.query('SELECT 2 AS x'))[0], [{ x: 2 }]);

  // A client that disconnects mid-statement cancels it.
  void a.query(RUNAWAY).catch(() => {});
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');
  a.destroy();
  const settled = await waitForProcesses(s.baseUrl, (ps) => ps.length === 0, SETTLE_MS, 'after the MySQL client disconnected');
  t.diagnostic(`MySQL disconnect: process list empty ${settled} ms after`);
  await assertIdle(s.baseUrl, 'after the MySQL disconnect');

  const cli = await runClient('mysql', ['-h', host, '-P', String(port), '-u', 'tsdb', '--comments', '-e', `SET max_execution_time = 500; SELECT @@max_execution_time; ${RUNAWAY}`], process.env);
  assert.notEqual(cli.code, 0);
  assert.match(cli.stdout, /500/);
  assert.match(cli.stderr, /ERROR 3024 \(HY000\)/);
  await assertIdle(s.baseUrl, 'after the mysql CLI');
});

test('PostgreSQL: statement_timeout, CancelRequest from pg and postgres.js, disconnect, psql', async (t) => {
  const s = await start(t);
  const { host, port } = hostPort(s.postgres!);
  const cfg = { host, port, user: 'tsdb', database: 'public' };

  const c = new pg.Client(cfg);
  // (The server may be stopped before the client: its disconnect is no error of the test.)
  c.on('error', () => {});
  await c.connect();
  t.after(() => c.end());
  await c.query(`SET statement_timeout = '700ms'`);
  assert.deepEqual((await c.query('SHOW statement_timeout')).rows, [{ statement_timeout: '700ms' }]);
  await assert.rejects(c.query(RUNAWAY), (e: { code?: string; message?: string }) => e.code === '57014' && e.message === 'canceling statement due to statement timeout');
  await assertIdle(s.baseUrl, 'after statement_timeout');
  await c.query('SET statement_timeout = 0');

  // pg's cancel: a CancelRequest with the backend's pid and key on a new connection.
  const running = c.query(RUNAWAY).catch((e: unknown) => e);
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');
  const active = (c as unknown as { activeQuery: unknown }).activeQuery;
  const canceller = new pg.Client(cfg);
  // The server closes the cancel connection (as PostgreSQL does), which pg reports as an error of that client.
  canceller.on('error', () => {});
  (canceller as unknown as { cancel(client: pg.Client, query: unknown): void }).cancel(c, active);
  const err = (await running) as { code?: string; message?: string };
  assert.equal(err.code, '57014');
  assert.equal(err.message, 'canceling statement due to user request');
  await assertIdle(s.baseUrl, 'after pg cancel');
  assert.deepEqual((await c.query('SELECT 3 AS x')).rows, [{ x: '3' }]);

  // postgres.js: a query's cancel(); and its statement_timeout connection parameter.
  const sql = postgres({ ...cfg, max: 1, onnotice: () => {}, connection: { statement_timeout: 600 } });
  t.after(() => sql.end());
  // (SHOW answers rows over the simple query protocol only: an intercepted statement's portal has none.)
  assert.deepEqual([...(await sql.unsafe('SHOW statement_timeout').simple())], [{ statement_timeout: '600ms' }]);
  await assert.rejects(sql.unsafe(RUNAWAY), (e: { code?: string }) => e.code === '57014');
  await sql.unsafe('SET statement_timeout = 0');
  const q = sql.unsafe(RUNAWAY);
  const done = q.then(() => undefined, (e: unknown) => e);
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');
  q.cancel();
  assert.equal(((await done) as { code?: string }).code, '57014');
  await assertIdle(s.baseUrl, 'after postgres.js cancel');

  // A disconnect cancels.
  const d = new pg.Client(cfg);
  d.on('error', () => {});
  await d.connect();
  void d.query(RUNAWAY).catch(() => {});
  await waitForProcesses(s.baseUrl, runawayRunning, 5000, 'the runaway to start');
  (d as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  const settled = await waitForProcesses(s.baseUrl, (ps) => ps.length === 0, SETTLE_MS, 'after the PostgreSQL client disconnected');
  t.diagnostic(`PostgreSQL disconnect: process list empty ${settled} ms after`);

  const psql = await runClient('psql', ['-h', host, '-p', String(port), '-U', 'tsdb', '-d', 'public', '-c', 'SHOW statement_timeout', '-c', RUNAWAY], { ...process.env, PGOPTIONS: '-c statement_timeout=500' });
  assert.notEqual(psql.code, 0);
  assert.match(psql.stdout, /500ms/);
  assert.match(psql.stderr, /canceling statement due to statement timeout/);
  await assertIdle(s.baseUrl, 'after psql');
});

test('with authentication, a user sees and kills only their own statements', async (t) => {
  const users = join(tempDir(t), 'users');
  writeFileSync(users, 'alice=pa\nbob=pb\n');
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', `static_user_provider:file:${users}`]);
  const auth = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const alice = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'alice', password: 'pa', database: 'public' });
  t.after(() => alice.end());
  const running = alice.query(RUNAWAY).catch((e: unknown) => e);
  const full = async (u: string, p: string) => {
    const r = await httpSql(`${s.baseUrl}`, 'SHOW FULL PROCESSLIST', { ...auth(u, p), 'x-tsdb-db-name': 'public' });
    return r.json.output![0]!.records!.rows.filter((row) => row[7] === RUNAWAY);
  };
  const started = Date.now();
  while ((await full('alice', 'pa')).length === 0) {
    if (Date.now() - started > 5000) assert.fail('the runaway did not start');
    await sleep(50);
  }
  const [row] = await full('alice', 'pa');
  assert.deepEqual(await full('bob', 'pb'), []);
  const byBob = await httpSql(s.baseUrl, `KILL '${String(row![0])}'`, { ...auth('bob', 'pb'), 'x-tsdb-db-name': 'public' });
  assert.equal(byBob.status, 400);
  assert.equal(byBob.json.code, 1004);
  // Its number alone is this frontend's statement too.
  const byAlice = await httpSql(s.baseUrl, `KILL ${String(row![0]).slice(String(row![0]).lastIndexOf('/') + 1)}`, { ...auth('alice', 'pa'), 'x-tsdb-db-name': 'public' });
  assert.equal(byAlice.status, 200);
  assert.equal(((await running) as { errno?: number }).errno, 1317);
});

test('query.timeout bounds statements whose client sets no shorter limit: MySQL and PostgreSQL sessions, HTTP', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env: { TSDB_STANDALONE__QUERY__TIMEOUT: '2s' } });
  const within = (ms: number, what: string) => assert.ok(ms >= 1500 && ms < 2000 + SETTLE_MS, `${what}: ended after ${ms} ms`);

  // MySQL without max_execution_time.
  const { host, port } = hostPort(s.mysql!);
  const my = await mysql.createConnection({ host, port, user: 'tsdb' });
  t.after(() => my.end().catch(() => {}));
  let started = Date.now();
  await assert.rejects(my.query(RUNAWAY), (e: { message?: string }) => /exceeded its time limit of 2s/.test(e.message ?? ''));
  within(Date.now() - started, 'MySQL');
  await assertIdle(s.baseUrl, 'after the MySQL statement');

  // PostgreSQL: statement_timeout 0 leaves query.timeout; a shorter statement_timeout wins.
  const pgAddr = hostPort(s.postgres!);
  const c = new pg.Client({ host: pgAddr.host, port: pgAddr.port, user: 'tsdb', database: 'public' });
  c.on('error', () => {});
  await c.connect();
  t.after(() => c.end());
  started = Date.now();
  await assert.rejects(c.query(RUNAWAY), (e: { message?: string }) => /time limit of 2s|statement timeout/.test(e.message ?? ''));
  within(Date.now() - started, 'PostgreSQL');
  await c.query(`SET statement_timeout = '300ms'`);
  started = Date.now();
  await assert.rejects(c.query(RUNAWAY), (e: { code?: string }) => e.code === '57014');
  assert.ok(Date.now() - started < 1500, `statement_timeout 300ms: ended after ${Date.now() - started} ms`);
  await assertIdle(s.baseUrl, 'after the PostgreSQL statements');

  // A limit longer than a timer can hold (2^31 ms, ~24.8 days) is no instant timeout.
  const long = await httpSql(s.baseUrl, "SELECT count(*) FROM range(3000000) a, range(3) b", { 'x-tsdb-timeout': '30d' });
  assert.equal(long.status, 200, JSON.stringify(long.json));

  // HTTP: http.timeout (30 s by default) is longer; query.timeout ends the statement first.
  const res = await httpSql(s.baseUrl, RUNAWAY);
  assert.equal(res.json.code, 1008, JSON.stringify(res.json));
  within(res.ms, 'HTTP');
  await assertIdle(s.baseUrl, 'after the HTTP statement');
});
