/**
 * TQL over every SQL protocol of a real server (HTTP `/v1/sql`, MySQL, PostgreSQL): the same rows
 * and columns from each, TQL CTEs, a `;` inside a PromQL string among several statements, TQL
 * ANALYZE's measured plan, the statement deadline, the read permission, and PromQL errors with
 * their status codes.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { StatusCode } from '../../src/common/error/status-code.js';
import { httpClient, mysqlClient, pgClient, type Credentials, type Outcome, type SqlClient } from '../support/sql-clients.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

const ADMIN: Credentials = { user: 'admin', password: 'admin-pw' };
const WRITER: Credentials = { user: 'writer', password: 'writer-pw' };
const USERS = `static_user_provider:cmd:${ADMIN.user}=${ADMIN.password},${WRITER.user}:wo=${WRITER.password}`;

async function start(t: TestContext): Promise<Started> {
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-tql-'), '--user-provider', USERS];
  return startTsdb(t, args);
}

async function clients(s: Started, creds: Credentials): Promise<SqlClient[]> {
  return [httpClient(s.baseUrl, creds), await mysqlClient(s.mysql!, creds, 1), await pgClient(s.postgres!, creds, 1)];
}

/** The rows of a successful outcome as arrays of strings (each protocol's own value types aside), and the column names. */
function table(c: SqlClient, o: Outcome): { columns: string[]; rows: string[][] } {
  assert.ok(o.ok, `${c.protocol}: ${o.message}`);
  const text = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  if (c.protocol === 'http') {
    const body = (o.received as [string, { output: Array<{ records: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }> }])[1];
    const rec = body.output[0]!.records;
    return { columns: rec.schema.column_schemas.map((x) => x.name), rows: rec.rows.map((r) => r.map(text)) };
  }
  if (c.protocol === 'mysql') {
    const rows = o.received as Array<Record<string, unknown>>;
    const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
    return { columns, rows: rows.map((r) => columns.map((k) => text(r[k]))) };
  }
  const [rows, fields] = (o.received as Array<[Array<Record<string, unknown>>, string[]]>)[0]!;
  return { columns: fields, rows: rows.map((r) => fields.map((k) => text(r[k]))) };
}

test('TQL over HTTP, MySQL and PostgreSQL: same columns and values, CTEs, ANALYZE, permissions, errors', async (t) => {
  const s = await start(t);
  const admin = await clients(s, ADMIN);
  t.after(async () => {
    for (const c of admin) await c.close();
  });
  const http = admin[0]!;
  for (const sql of [
    'CREATE TABLE test (i DOUBLE, j TIMESTAMP TIME INDEX, k STRING PRIMARY KEY)',
    "INSERT INTO test VALUES (1, 1, 'a'), (1, 1, 'b'), (2, 2, 'a')",
    'CREATE TABLE big (ts TIMESTAMP TIME INDEX, h STRING PRIMARY KEY, v DOUBLE)',
  ]) {
    const o = await http.run(sql);
    assert.ok(o.ok, `${sql}: ${o.message}`);
  }

  for (const c of admin) {
    // A selector: the table's columns, one row per step.
    const sel = table(c, await c.run(`TQL EVAL (0, 10, '5s') test{k="a"}`));
    assert.deepEqual(sel.columns, ['i', 'j', 'k'], c.protocol);
    assert.equal(sel.rows.length, 2, c.protocol);
    assert.deepEqual(sel.rows.map((r) => [Number(r[0]), r[2]]), [[2, 'a'], [2, 'a']], c.protocol);
    // An aggregation with an alias.
    const agg = table(c, await c.run(`TQL EVAL (5, 5, '1s') sum by (k) (test) AS total`));
    assert.deepEqual(agg.columns, ['total', 'k', 'j'], c.protocol);
    assert.deepEqual(agg.rows.map((r) => [Number(r[0]), r[1]]), [[2, 'a'], [1, 'b']], c.protocol);
    // A CTE mixing TQL and SQL.
    const cte = table(c, await c.run(`WITH x (v, ts, k) AS (TQL EVAL (0, 10, '5s') test), y AS (SELECT * FROM x WHERE v > 1) SELECT count(*) AS n FROM y`));
    assert.deepEqual(cte.rows.map((r) => Number(r[0])), [2], c.protocol);
    // now()-based range: no sample in the last five minutes.
    const recent = table(c, await c.run(`TQL EVAL (now() - interval '5 minutes', now(), '1m') test`));
    assert.equal(recent.rows.length, 0, c.protocol);
    // A PromQL syntax error is a syntax error (2000; MySQL 1064 / SQLSTATE 42000, PostgreSQL 42601).
    const bad = await c.run(`TQL EVAL (0, 10, '5s') sum(`);
    assert.equal(bad.ok, false, c.protocol);
    assert.match(bad.message, /unclosed left parenthesis/, c.protocol);
    if (c.protocol !== 'postgres') assert.equal(bad.code, StatusCode.InvalidSyntax, c.protocol);
    else assert.equal(bad.sqlState, '42601');
  }

  // A `;` in a PromQL string does not end the statement; the next statement still runs.
  const multi = await http.run(`TQL EVAL (0, 10, '5s') test{k=~"a|;"}; SELECT 1 AS one`);
  assert.ok(multi.ok, multi.message);
  const outputs = (multi.received as [string, { output: Array<{ records: { rows: unknown[][] } }> }])[1].output;
  assert.equal(outputs.length, 2);
  assert.equal(outputs[0]!.records.rows.length, 2);
  assert.deepEqual(outputs[1]!.records.rows, [[1]]);

  // ANALYZE runs the query: the scan's rows and the result's rows are measured.
  const analyze = table(http, await http.run(`TQL ANALYZE (0, 10, '5s') test{k="a"}`));
  assert.deepEqual(analyze.columns, ['stage', 'node', 'plan']);
  assert.deepEqual(analyze.rows.map((r) => [r[0], r[1]]), [['0', '0'], ['1', '0']]);
  assert.match(analyze.rows[0]![2]!, /^PromQL: test\{k="a"\}\n {2}Evaluate: range=\[0\.\.10000\], interval=\[5000\], lookback=\[300000\]\n.*metrics=\[output_rows: 2, elapsed: \d+\.\d{3}ms\]$/s);
  assert.match(analyze.rows[1]![2]!, /^Scan: SELECT .* FROM "test" WHERE .*"k" = 'a'.* metrics=\[output_rows: 2, elapsed: \d+\.\d{3}ms\]\n\nTotal rows: 2$/s);

  // The statement's deadline stops a TQL (HTTP `x-tsdb-timeout`): 200 series × 8,641 steps take longer than 50 ms.
  const big = await http.run(`INSERT INTO big SELECT to_timestamp((i // 200) * 300), 'h' || (i % 200), i FROM range(0, 57600) t(i)`);
  assert.ok(big.ok, big.message);
  const res = await fetch(`${s.baseUrl}/v1/sql?db=public`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`, 'x-tsdb-timeout': '50ms' },
    body: new URLSearchParams({ sql: `TQL EVAL (0, 86400, '10s') last_over_time(big[10m])` }).toString(),
  });
  const timedOut = (await res.json()) as { code: number; error: string };
  assert.equal(res.status, 408, `answered ${res.status}, code ${timedOut.code}`);
  assert.equal(timedOut.code, StatusCode.DeadlineExceeded);
  const whole = table(http, await http.run(`TQL EVAL (0, 86400, '10s') count(last_over_time(big[10m]))`));
  assert.equal(whole.rows.length, 8641);

  // TQL reads: a write-only user is refused, as for SELECT.
  const writer = await clients(s, WRITER);
  for (const c of writer) {
    const o = await c.run(`TQL EVAL (0, 10, '5s') test`);
    assert.equal(o.ok, false, c.protocol);
    assert.match(o.message, /not authorized/, c.protocol);
    if (c.protocol === 'http') assert.equal(o.code, StatusCode.PermissionDenied);
    await c.close();
  }
});
