/**
 * Slow queries against a real standalone server (`[slow_query]`, README "Slow queries"): statements
 * over HTTP, MySQL, PostgreSQL and gRPC that run past the threshold become rows of
 * `tsdb_private.slow_queries` with their user, database, protocol and duration, and survive a
 * restart; fast ones do not; INSERT values and secrets are cut; PromQL and TQL are recorded with
 * their range and step (and PromQL's own scans are not); `sample_ratio = 0` records nothing; and
 * `record_type = "log"` writes `tsdb-slow-queries.*` in logging.dir.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { greptimeGrpc } from '../support/greptime-grpc.js';
import { tempDir, tempFile } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

/** Counts 60M pairs: about a second on an idle machine, far past THRESHOLD_MS. */
const slow = (tag: string) => `SELECT /* ${tag} */ count(*) FROM range(20000) a, range(3000) b WHERE a.range * 7 + b.range = -1`;
const THRESHOLD_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function hostPort(addr: string): { host: string; port: number } {
  return { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) };
}

interface SqlAnswer {
  code: number;
  error?: string;
  output?: Array<{ records?: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] }; affectedrows?: number }>;
}

async function httpSql(s: Started, sql: string, auth?: [string, string]): Promise<SqlAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth !== undefined) headers['authorization'] = `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`;
  const res = await fetch(`${s.baseUrl}/v1/sql?db=public`, { method: 'POST', headers, body: new URLSearchParams({ sql }).toString() });
  return (await res.json()) as SqlAnswer;
}

/** The rows of a query as objects (the query must succeed). */
async function rowsOf(s: Started, sql: string, auth?: [string, string]): Promise<Array<Record<string, unknown>>> {
  const a = await httpSql(s, sql, auth);
  assert.equal(a.code, 0, `${sql}: ${a.error}`);
  const rec = a.output![0]!.records!;
  const names = rec.schema.column_schemas.map((c) => c.name);
  return rec.rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]])));
}

const SELECT_RECORDED = 'SELECT query, username, schema_name, catalog_name, protocol, cost, threshold, is_promql, promql_range, promql_step, promql_start, promql_end FROM tsdb_private.slow_queries ORDER BY "timestamp"';

/** The recorded slow queries, once `pred` holds of them (they are written after the statements answer). */
async function recorded(s: Started, pred: (rows: Array<Record<string, unknown>>) => boolean, auth?: [string, string]): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const a = await httpSql(s, SELECT_RECORDED, auth);
    if (a.code === 0) {
      // The reads of the table are statements too (recorded when the threshold is 0): left out.
      const rows = (await rowsOf(s, SELECT_RECORDED, auth)).filter((r) => !String(r['query']).includes('tsdb_private.slow_queries'));
      if (pred(rows)) return rows;
    }
    if (Date.now() > deadline) throw new Error(`slow queries not recorded as expected: ${JSON.stringify(a)}`);
    await sleep(100);
  }
}

function config(t: TestContext, body: string): string {
  return tempFile(t, 'tsdb.toml', `[slow_query]\nenable = true\n${body}\n`);
}

async function start(t: TestContext, dataHome: string, cfg: string, extra: string[] = []): Promise<Started> {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dataHome, '-c', cfg, ...extra]);
}

test('slow statements over HTTP, MySQL, PostgreSQL and gRPC are rows of tsdb_private.slow_queries; fast ones are not; they survive a restart', async (t) => {
  const dataHome = tempDir(t);
  const cfg = config(t, `threshold = "${THRESHOLD_MS}ms"`);
  const users = ['--user-provider', 'static_user_provider:cmd:alice=pa,bob=pb'];
  const alice: [string, string] = ['alice', 'pa'];
  let s = await start(t, dataHome, cfg, users);

  assert.equal((await httpSql(s, 'SELECT 1 /* fast */', alice)).code, 0);
  assert.equal((await httpSql(s, slow('slow-http'), alice)).code, 0);

  const my = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'bob', password: 'pb', database: 'public' });
  await my.query(slow('slow-mysql'));
  await my.end();

  const pgc = new pg.Client({ ...hostPort(s.postgres!), user: 'alice', password: 'pa', database: 'public' });
  await pgc.connect();
  await pgc.query(slow('slow-pg'));
  await pgc.end();

  // GreptimeDatabase answers statements without rows: an INSERT … SELECT (its query is kept).
  assert.equal((await httpSql(s, 'CREATE TABLE g (h STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, n BIGINT)', alice)).code, 0);
  const grpcText = `INSERT INTO g ${slow('slow-grpc').replace('count(*)', "'x', 0, count(*)")}`;
  const grpc = greptimeGrpc(t, s.grpc!);
  const g = await grpc.handle({ header: { dbname: 'public', authorization: { basic: { username: 'bob', password: 'pb' } } }, query: { sql: grpcText } });
  assert.ok(g.ok, JSON.stringify(g));

  const tags = ['slow-http', 'slow-mysql', 'slow-pg', 'slow-grpc'];
  const tagOf = (r: Record<string, unknown>) => tags.find((tag) => String(r['query']).includes(`/* ${tag} */`));
  const rows = await recorded(s, (rs) => tags.every((tag) => rs.some((r) => tagOf(r) === tag)), alice);
  const byTag = new Map(rows.filter((r) => tagOf(r) !== undefined).map((r) => [tagOf(r)!, r]));
  const expected: Record<string, [string, string]> = { 'slow-http': ['alice', 'http'], 'slow-mysql': ['bob', 'mysql'], 'slow-pg': ['alice', 'postgres'], 'slow-grpc': ['bob', 'grpc'] };
  for (const [tag, [user, protocol]] of Object.entries(expected)) {
    const r = byTag.get(tag)!;
    assert.equal(r['query'], tag === 'slow-grpc' ? grpcText : slow(tag));
    assert.deepEqual([r['username'], r['protocol'], r['schema_name'], r['catalog_name'], r['is_promql'], r['threshold']], [user, protocol, 'public', 'tsdb', false, THRESHOLD_MS], tag);
    assert.ok(Number(r['cost']) >= THRESHOLD_MS, `${tag}: cost ${r['cost']}`);
  }
  assert.ok(!rows.some((r) => String(r['query']).includes('fast')), 'a fast statement is not recorded');
  // Every user who may read reads it (the texts are cut of secrets): bob sees alice's statements.
  assert.ok((await rowsOf(s, 'SELECT username FROM tsdb_private.slow_queries', ['bob', 'pb'])).some((r) => r['username'] === 'alice'));
  const options = await rowsOf(s, 'SHOW CREATE TABLE tsdb_private.slow_queries', alice);
  assert.match(String(Object.values(options[0]!)[1]), /ttl = '2months 29days 2h 52m 48s'[\s\S]*append_mode = 'true'|append_mode = 'true'[\s\S]*ttl = '2months 29days 2h 52m 48s'/);

  // A real table: the rows are still there after a restart.
  await s.proc.stop('SIGTERM');
  s = await start(t, dataHome, cfg, users);
  const after = await rowsOf(s, SELECT_RECORDED, alice);
  for (const tag of tags) assert.ok(after.some((r) => tagOf(r) === tag), `${tag} after the restart`);
});

test('threshold 0s: INSERT values and secrets are cut, failures are recorded, PromQL and TQL with range and step, not PromQL scans', async (t) => {
  const s = await start(t, tempDir(t), config(t, 'threshold = "0s"'));
  const run = async (sql: string) => httpSql(s, sql);
  assert.equal((await run('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)')).code, 0);
  assert.equal((await run("INSERT INTO cpu VALUES ('h1', 1000, 1.5), ('hunter2', 2000, 2.5)")).code, 0);
  // Fails (no such column) and is recorded all the same, its secret masked.
  assert.notEqual((await run("SELECT * FROM cpu WHERE host = 'h1' AND api_key = 'k-123'")).code, 0);
  const range = await fetch(`${s.baseUrl}/v1/prometheus/api/v1/query_range?${new URLSearchParams({ query: 'count_over_time(vector(1)[1h:1s])', start: '0', end: '3600', step: '10' })}`);
  assert.equal(range.status, 200);
  // Reads the table through SQL scans: only the PromQL query is recorded.
  const instant = await fetch(`${s.baseUrl}/v1/prometheus/api/v1/query?${new URLSearchParams({ query: 'cpu', time: '2' })}`);
  assert.equal(((await instant.json()) as { data: { result: unknown[] } }).data.result.length, 2);
  assert.equal((await run("TQL EVAL (0, 10, '5s') cpu")).code, 0);

  const rows = await recorded(s, (rs) => rs.some((r) => String(r['query']).startsWith('TQL')));
  const seen = rows.map((r) => [r['query'], r['is_promql'], r['promql_range'], r['promql_step'], r['promql_start'], r['promql_end'], r['protocol'], r['username']]);
  assert.deepEqual(seen, [
    ['CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)', false, 0, 0, 0, 0, 'http', 'tsdb'],
    ['INSERT INTO cpu VALUES …', false, 0, 0, 0, 0, 'http', 'tsdb'],
    ["SELECT * FROM cpu WHERE host = 'h1' AND api_key = '***'", false, 0, 0, 0, 0, 'http', 'tsdb'],
    ['count_over_time(vector(1)[1h:1s])', true, 3_600_000, 10_000, 0, 3_600_000, 'http', 'tsdb'],
    ['cpu', true, 0, 0, 2000, 2000, 'http', 'tsdb'],
    ["TQL EVAL (0, 10, '5s') cpu", true, 10_000, 5000, 0, 10_000, 'http', 'tsdb'],
  ]);
  const all = JSON.stringify(await rowsOf(s, 'SELECT query FROM tsdb_private.slow_queries'));
  assert.ok(!all.includes('hunter2') && !all.includes('k-123'), all);
});

test('sample_ratio 0 records nothing', async (t) => {
  const s = await start(t, tempDir(t), config(t, 'threshold = "0s"\nsample_ratio = 0.0'));
  await s.proc.waitForLog((l) => l.msg.includes('slow_query.sample_ratio is 0'));
  for (let i = 0; i < 5; i++) assert.equal((await httpSql(s, `SELECT ${i}`)).code, 0);
  assert.equal((await httpSql(s, slow('sampled-out'))).code, 0);
  // With threshold 0 a record is written within milliseconds; none comes.
  await sleep(1000);
  const dbs = await rowsOf(s, 'SHOW DATABASES');
  assert.ok(!dbs.some((r) => Object.values(r).includes('tsdb_private')), JSON.stringify(dbs));
});

test('record_type "log": lines of tsdb-slow-queries.* in logging.dir and a warning, no table', async (t) => {
  const dataHome = tempDir(t);
  const s = await start(t, dataHome, config(t, 'record_type = "log"\nthreshold = "0s"'));
  assert.equal((await httpSql(s, "SELECT 42 /* logged */, 'password=pw1;host=h'")).code, 0);
  const logDir = join(dataHome, 'logs');
  const deadline = Date.now() + 10_000;
  let line: Record<string, unknown> | undefined;
  while (line === undefined) {
    const files = readdirSync(logDir).filter((f) => f.startsWith('tsdb-slow-queries.'));
    const lines = files.flatMap((f) => readFileSync(join(logDir, f), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>));
    line = lines.find((l) => String(l['query']).includes('/* logged */'));
    if (line === undefined) {
      assert.ok(Date.now() < deadline, `no slow query line in ${logDir}: ${readdirSync(logDir).join(', ')}`);
      await sleep(100);
    }
  }
  assert.equal(line['query'], "SELECT 42 /* logged */, 'password=***;host=h'");
  assert.deepEqual([line['msg'], line['user'], line['database'], line['protocol'], line['is_promql'], line['threshold']], ['slow query', 'tsdb', 'public', 'http', false, 0]);
  assert.equal(typeof line['cost'], 'number');
  const warn = await s.proc.waitForLog((l) => l.level === 'warn' && l.msg.startsWith('slow query') && l.msg.includes('/* logged */'));
  assert.ok(!JSON.stringify(warn).includes('pw1'));
  const dbs = await rowsOf(s, 'SHOW DATABASES');
  assert.ok(!dbs.some((r) => Object.values(r).includes('tsdb_private')));
});
