/**
 * Timestamps outside their column's range, sent by MySQL and PostgreSQL clients as literals and as
 * parameters (text and binary, strings, numbers and dates), are refused with the value and the
 * range, and nothing is written; the edges of the range are written and read back exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const hostPort = (addr: string) => ({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) });

const RANGE = /is out of range for (column ts )?\(?TimestampNanosecond\)?: it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16\.854775806Z/;

test('MySQL and PostgreSQL: out-of-range timestamps, as literals or parameters, are refused whole; the edges round-trip', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const my = await mysql.createConnection({ ...hostPort(s.mysql!), user: 'root', database: 'public', dateStrings: true, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: true });
  t.after(() => my.end());
  const client = new pg.Client({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public' });
  // The server may stop first when the test ends: not an uncaught error.
  client.on('error', () => {});
  await client.connect();
  t.after(() => client.end());
  const porsager = postgres({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public', max: 1, onnotice: () => {} });
  t.after(() => porsager.end());

  await my.query('CREATE TABLE w (h STRING PRIMARY KEY, ts TIMESTAMP(9) TIME INDEX, v DOUBLE)');
  const mysqlRefused = (err: unknown) => {
    const e = err as { errno?: number; sqlState?: string; message?: string };
    assert.equal(e.errno, 1210, e.message);
    assert.equal(e.sqlState, 'HY000', e.message);
    assert.match(e.message!, RANGE);
    return true;
  };
  const pgRefused = (err: unknown) => {
    const e = err as { code?: string; message?: string };
    assert.equal(e.code, '22023', e.message);
    assert.match(e.message!, RANGE);
    return true;
  };

  // MySQL: literals (a string, an integer epoch beside a good row), a string parameter, a DATETIME parameter (binary).
  await assert.rejects(my.query("INSERT INTO w VALUES ('a', '2263-01-01 00:00:00', 1)"), mysqlRefused);
  await assert.rejects(my.execute('INSERT INTO w VALUES (?, ?, ?)', ['a', '2263-01-01 00:00:00', 1]), mysqlRefused);
  await assert.rejects(my.execute('INSERT INTO w VALUES (?, ?, ?)', ['a', new Date(Date.UTC(2263, 0, 1)), 1]), mysqlRefused);
  await assert.rejects(my.query("INSERT INTO w VALUES ('ok', 0, 1), ('a', 9223372036854775807, 1)"), mysqlRefused);
  await assert.rejects(my.execute('INSERT INTO w VALUES (?, ?, ?), (?, ?, ?)', ['ok', 0, 1, 'a', 9223372036854775807, 1]), mysqlRefused);
  await assert.rejects(my.execute('INSERT INTO w VALUES (?, ?, ?)', ['a', '1677-09-21 00:00:00', 1]), mysqlRefused);

  // PostgreSQL: simple query, extended protocol with a text parameter (pg), typed parameters (porsager: a Date, a bigint).
  await assert.rejects(client.query("INSERT INTO w VALUES ('a', '2263-01-01 00:00:00', 1)"), pgRefused);
  await assert.rejects(client.query('INSERT INTO w VALUES ($1, $2, $3)', ['a', '2263-01-01 00:00:00', 1]), pgRefused);
  await assert.rejects(porsager`INSERT INTO w VALUES (${'a'}, ${new Date(Date.UTC(1600, 0, 1))}, ${1})`, pgRefused);
  await assert.rejects(porsager`INSERT INTO w VALUES (${'ok'}, ${0}, ${1}), (${'a'}, ${'9223372036854775807'}::BIGINT, ${1})`, pgRefused);

  // Nothing of any refused statement was written (the first MySQL batch had a good row too).
  assert.deepEqual((await client.query('SELECT count(*) AS n FROM w')).rows, [{ n: '0' }]);

  // The edges are written and read back exactly, through parameters of both protocols.
  await my.execute('INSERT INTO w VALUES (?, ?, ?)', ['max', '2262-04-11 23:47:16.854775806', 1]);
  await client.query('INSERT INTO w VALUES ($1, $2, $3)', ['min', '1677-09-22 00:00:00', 2]);
  const [rows] = await my.query<mysql.RowDataPacket[]>('SELECT h, ts FROM w ORDER BY v');
  assert.deepEqual(rows.map((r) => ({ ...r })), [
    { h: 'max', ts: '2262-04-11 23:47:16.854775806' },
    { h: 'min', ts: '1677-09-22 00:00:00' },
  ]);
  const res = await fetch(`${s.baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: 'SELECT ts FROM w ORDER BY v' }).toString() });
  assert.match(await res.text(), /"rows":\[\[9223372036854775806\],\[-9223286400000000000\]\]/);
});
