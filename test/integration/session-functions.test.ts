/**
 * The session functions as each protocol answers them (GreptimeDB's `version()` per channel, the
 * logged-in user rather than DuckDB's `duckdb`, `@@version` in any query): over HTTP with basic
 * authentication and over PostgreSQL with the `pg` driver. (MySQL: `mysql-grafana.test.ts`.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { buildInfo } from '../../src/common/build-info.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

test('user(), current_user, version() and @@version over HTTP and PostgreSQL', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', 'static_user_provider:cmd:alice=pw1']);
  const http = async (sql: string) => {
    const res = await fetch(`${s.baseUrl}/v1/sql?db=public`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('alice:pw1').toString('base64')}` },
      body: new URLSearchParams({ sql }).toString(),
    });
    return (await res.json()) as { code: number; output?: Array<{ records: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }> };
  };
  const version = buildInfo().version;
  const answer = await http('SELECT user(), current_user, version(), @@version');
  assert.equal(answer.code, 0, JSON.stringify(answer));
  assert.deepEqual(answer.output![0]!.records.schema.column_schemas.map((c) => c.name), ['user()', 'current_user', 'version()', '@@version']);
  assert.deepEqual(answer.output![0]!.records.rows, [['alice', 'alice', version, `8.4.2-tsdb-${version}`]]);
  // A column named current_user is the column.
  assert.equal((await http('CREATE TABLE who (ts TIMESTAMP TIME INDEX, "current_user" STRING)')).code, 0);
  assert.equal((await http("INSERT INTO who VALUES (1, 'bob')")).code, 0);
  assert.deepEqual((await http('SELECT current_user FROM who')).output![0]!.records.rows, [['bob']]);

  const addr = s.postgres!;
  const client = new pg.Client({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)), user: 'alice', password: 'pw1', database: 'public' });
  await client.connect();
  try {
    const rows = (await client.query('SELECT version() AS v, current_user AS u')).rows as Array<Record<string, unknown>>;
    assert.deepEqual(rows, [{ v: `PostgreSQL 16.3 tsdb ${version}`, u: 'alice' }]);
    // pg_backend_pid() is the backend pid the server gave this connection (its CancelRequest key).
    const pid = (client as unknown as { processID: number }).processID;
    assert.ok(pid > 0);
    assert.deepEqual((await client.query('SELECT pg_backend_pid() AS pid')).rows, [{ pid }]);
  } finally {
    await client.end();
  }
});

test('connection_id() is the MySQL connection id of the handshake, one per connection; 0 over HTTP', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.mysql!;
  const open = () => mysql.createConnection({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)), user: 'root', database: 'public' });
  const [a, b] = [await open(), await open()];
  try {
    for (const conn of [a, b]) {
      const [rows, fields] = await conn.query('SELECT connection_id()');
      assert.equal(fields[0]!.name, 'connection_id()');
      assert.deepEqual(rows, [{ 'connection_id()': conn.threadId }]);
    }
    assert.notEqual(a.threadId, b.threadId);
  } finally {
    await a.end();
    await b.end();
  }
  const res = await fetch(`${s.baseUrl}/v1/sql?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: 'SELECT connection_id() AS id' }).toString() });
  assert.deepEqual(((await res.json()) as { output: Array<{ records: { rows: unknown[][] } }> }).output[0]!.records.rows, [[0]]);
});
