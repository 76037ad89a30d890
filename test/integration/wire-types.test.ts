/**
 * DECIMAL, INTERVAL and TIME values over the MySQL and PostgreSQL wires, as GreptimeDB sends them:
 * MySQL NEWDECIMAL text, intervals in ISO 8601 (VARCHAR), TIME; PostgreSQL numeric (its typmod
 * carries precision and scale), interval and time; text and binary rows over MySQL (mysql2's query
 * and prepared statements), text results and parameters over PostgreSQL (node-postgres). The HTTP
 * rendering is in the golden cases (`test/cases/standalone/types/`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

function hostPort(addr: string): { host: string; port: number } {
  return { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) };
}

const INTERVAL_SQL = "INTERVAL '1 year 2 months 3 days 4 hours 5 minutes 6.5 seconds'";

test('DECIMAL, INTERVAL and TIME over MySQL (text and binary rows) and PostgreSQL (simple and extended queries)', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const my = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'root', database: 'public', dateStrings: true, timezone: 'Z' });
  const client = new pg.Client({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    await check(my, client);
  } finally {
    // Before the server stops (t.after), or the drivers report the closed connections as errors.
    await Promise.all([my.end(), client.end()]);
  }
});

async function check(my: mysql.Connection, client: pg.Client): Promise<void> {
  await my.query('CREATE TABLE prices (sym STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, p DECIMAL(10,2), q DECIMAL)');
  await my.query("INSERT INTO prices VALUES ('a', 1000, 1.5, -0.25), ('b', 2000, '12345678.905', NULL)");

  // MySQL text rows: NEWDECIMAL (246) with the column's scale, values as their text.
  const [rows, fields] = await my.query<mysql.RowDataPacket[]>('SELECT sym, p, q FROM prices ORDER BY sym');
  assert.deepEqual(rows, [
    { sym: 'a', p: '1.50', q: '-0.2500000000' },
    { sym: 'b', p: '12345678.91', q: null },
  ]);
  assert.deepEqual(fields.map((f) => [f.columnType, f.decimals]), [[253, 0], [246, 2], [246, 10]]);
  // Binary rows (COM_STMT_EXECUTE): the same text.
  const [bin] = await my.execute<mysql.RowDataPacket[]>('SELECT p, q, p * 2 AS d FROM prices WHERE sym = ?', ['a']);
  assert.deepEqual(bin, [{ p: '1.50', q: '-0.2500000000', d: '3.00' }]);

  // Intervals: ISO 8601 text over MySQL; TIME as a time of day.
  const [iv] = await my.query<mysql.RowDataPacket[]>(`SELECT ${INTERVAL_SQL} AS i, INTERVAL '-90 minutes' AS n, '12:34:56.789'::TIME AS t`);
  assert.deepEqual(iv, [{ i: 'P1Y2M3DT4H5M6.5S', n: 'P0Y0M0DT-1H-30M0S', t: '12:34:56.789' }]);
  const [ivBin] = await my.execute<mysql.RowDataPacket[]>(`SELECT ${INTERVAL_SQL} AS i, '12:34:56'::TIME AS t WHERE 1 = ?`, [1]);
  assert.deepEqual(ivBin, [{ i: 'P1Y2M3DT4H5M6.5S', t: '12:34:56' }]);

  // PostgreSQL text results: numeric (1700) with typmod ((p << 16) | s) + 4, interval, time.
  const pgRows = await client.query('SELECT sym, p, q FROM prices ORDER BY sym');
  assert.deepEqual(pgRows.rows, [
    { sym: 'a', p: '1.50', q: '-0.2500000000' },
    { sym: 'b', p: '12345678.91', q: null },
  ]);
  assert.deepEqual(pgRows.fields.map((f) => f.dataTypeID), [1043, 1700, 1700]);
  const pgIv = await client.query(`SELECT ${INTERVAL_SQL} AS i, '12:34:56.789'::TIME AS t`);
  const interval = pgIv.rows[0].i as { years?: number; months?: number; days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number };
  assert.deepEqual({ ...interval }, { years: 1, months: 2, days: 3, hours: 4, minutes: 5, seconds: 6, milliseconds: 500 });
  assert.equal(pgIv.rows[0].t, '12:34:56.789');

  // Parameters over the extended protocol (node-postgres reads results as text only; the binary
  // encodings of these cells are checked in src/servers/postgres/type-cells.test.ts).
  const byParam = await client.query('SELECT p, q FROM prices WHERE sym = $1 AND p > $2', ['b', 100]);
  assert.deepEqual(byParam.rows, [{ p: '12345678.91', q: null }]);

  // A failed cast: 3001 (EngineExecuteQuery) with GreptimeDB's text on both wires.
  await assert.rejects(my.query("SELECT 'abc'::INT"), (err: Error & { errno?: number }) => err.errno === 1815 && /Cast error: Cannot cast string 'abc' to value of Int32 type/.test(err.message));
  await assert.rejects(client.query('SELECT 200::TINYINT'), (err: Error & { code?: string }) => err.code === 'P0000' && /Cast error: Can't cast value 200 to type Int8/.test(err.message));
}
