/**
 * Result column names as GreptimeDB gives them (`src/query/column-names.ts`) reach MySQL and
 * PostgreSQL clients in the result set metadata — text and prepared queries (MySQL's
 * COM_STMT_PREPARE, PostgreSQL's extended protocol) — with integer literals typed Int64 (MySQL
 * LONGLONG, PostgreSQL int8), as over HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const QUERY = "SELECT 1, host, a + 1, avg(v), count(*), IFNULL(NULL, 'd'), max(a) AS m FROM t GROUP BY host ORDER BY host";
const NAMES = ['Int64(1)', 'host', 't.a + Int64(1)', 'avg(t.v)', 'count(*)', 'ifnull(NULL,Utf8("d"))', 'm'];

function hostPort(addr: string): { host: string; port: number } {
  return { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) };
}

test('column names and Int64 literals over MySQL and PostgreSQL, text and prepared', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const my = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'root', database: 'public', supportBigNumbers: true, bigNumberStrings: true });
  await my.query('CREATE TABLE t (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, a INT, v DOUBLE)');
  await my.query("INSERT INTO t VALUES ('h1', 1000, 1, 1.5), ('h1', 2000, 3, 2.5)");
  // a + 1 is not grouped: GROUP BY host needs it aggregated, so the query groups by a too.
  const grouped = QUERY.replace('GROUP BY host', 'GROUP BY host, a');

  const [, textFields] = await my.query<mysql.RowDataPacket[]>({ sql: grouped, rowsAsArray: true });
  assert.deepEqual(textFields.map((f) => f.name), NAMES);
  assert.equal(textFields[0]!.columnType, 8); // LONGLONG: Int64
  const [, preparedFields] = await my.execute<mysql.RowDataPacket[]>({ sql: `${grouped} LIMIT ?`, rowsAsArray: true }, [10]);
  assert.deepEqual(preparedFields.map((f) => f.name), NAMES);
  await assert.rejects(my.query('SELECT 1, 1'), (err: unknown) => {
    assert.match((err as Error).message, /Projections require unique expression names but the expression "Int64\(1\)" at position 0 and "Int64\(1\)" at position 1 have the same name/);
    return true;
  });

  await my.end();

  const client = new pg.Client({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public' });
  await client.connect();
  const simple = await client.query({ text: grouped, rowMode: 'array' });
  assert.deepEqual(simple.fields.map((f) => f.name), NAMES);
  assert.equal(simple.fields[0]!.dataTypeID, 20); // int8: Int64
  const extended = await client.query({ text: `${grouped} LIMIT $1`, values: [10], rowMode: 'array' });
  assert.deepEqual(extended.fields.map((f) => f.name), NAMES);
  assert.deepEqual(extended.rows[0]!.slice(0, 2), ['1', 'h1']);
  await client.end();
});
