/**
 * Views and SQL PREPARE / EXECUTE / DEALLOCATE over the wire protocols, with the clients users run:
 * Debian's `mysql` and `psql` non-interactively, and the `mysql2` and `pg` drivers. A view made over
 * one protocol is read over the others (and survives a restart); prepared statements live as long
 * as the connection that prepared them, and no longer.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { runClient, type ClientResult } from '../support/run-client.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const MYSQL = ['/usr/bin/mysql', '/usr/bin/mariadb'].find((p) => existsSync(p));
const PSQL = '/usr/bin/psql';

function hostPort(addr: string): [string, string] {
  return [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
}

function mysqlCli(addr: string, sql: string): Promise<ClientResult> {
  if (MYSQL === undefined) throw new Error('mysql is missing: install the Debian package mariadb-client (.ci/run does)');
  const [host, port] = hostPort(addr);
  return runClient(MYSQL, ['--no-defaults', '--protocol=TCP', '--skip-ssl', '--connect-timeout=10', '-h', host, '-P', port, '-u', 'root', '-D', 'public', '--batch', '-e', sql], { PATH: process.env['PATH'] });
}

function psql(addr: string, commands: readonly string[]): Promise<ClientResult> {
  if (!existsSync(PSQL)) throw new Error(`${PSQL} is missing: install the Debian package postgresql-client (.ci/run does)`);
  const [host, port] = hostPort(addr);
  return runClient(PSQL, ['-X', '-h', host, '-p', port, '-U', 'tsdb', '-d', 'public', '-v', 'ON_ERROR_STOP=1', '-A', '-t', ...commands.flatMap((c) => ['-c', c])], {
    PATH: process.env['PATH'],
    PGCONNECT_TIMEOUT: '10',
  });
}

const START = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0'];

test('views over MySQL and PostgreSQL: made with one client, read by the others, listed, kept across a restart', async (t) => {
  const home = tempDir(t);
  const s = await startTsdb(t, [...START, '--data-home', home]);
  const made = await mysqlCli(
    s.mysql!,
    "CREATE TABLE vw_cpu (host STRING PRIMARY KEY, usage DOUBLE, ts TIMESTAMP TIME INDEX); INSERT INTO vw_cpu VALUES ('a', 10, 1000), ('b', 50, 1000), ('b', 70, 2000); CREATE VIEW vw_busy (h, u) AS SELECT host, usage FROM vw_cpu WHERE usage > 20",
  );
  assert.equal(made.code, 0, made.stderr);

  // psql's \dv and \d read pg_class, where a view is of kind v.
  const read = await psql(s.postgres!, ['SELECT h, max(u) FROM vw_busy GROUP BY h', "SELECT table_name, table_type FROM information_schema.tables WHERE table_name LIKE 'vw_%' ORDER BY 1", '\\dv', 'SELECT viewname, definition FROM pg_views']);
  assert.equal(read.code, 0, read.stderr);
  assert.equal(read.stdout, 'b|70\nvw_busy|VIEW\nvw_cpu|BASE TABLE\npublic|vw_busy|view|tsdb\nvw_busy|SELECT host, usage FROM vw_cpu WHERE usage > 20\n');

  const listed = await mysqlCli(s.mysql!, "SHOW FULL TABLES LIKE 'vw_%'; SHOW VIEWS; SHOW CREATE VIEW vw_busy");
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(
    listed.stdout,
    'Tables_in_public\tTable_type\nvw_busy\tVIEW\nvw_cpu\tBASE TABLE\nViews\nvw_busy\nView\tCreate View\nvw_busy\tCREATE VIEW vw_busy (h, u) AS SELECT host, usage FROM vw_cpu WHERE usage > 20\n',
  );

  // The drivers: mysql2 (text and binary protocol) and pg (extended protocol) read the view too.
  const [host, port] = hostPort(s.mysql!);
  const my = await mysql.createConnection({ host, port: Number(port), user: 'root', database: 'public' });
  try {
    const [rows] = await my.query('SELECT h, u FROM vw_busy ORDER BY u');
    assert.deepEqual(rows, [
      { h: 'b', u: 50 },
      { h: 'b', u: 70 },
    ]);
    const [bound] = await my.execute('SELECT count(*) AS n FROM vw_busy WHERE u > ?', [60]);
    assert.deepEqual(bound, [{ n: 1 }]);
    await assert.rejects(my.query('INSERT INTO vw_busy VALUES (1)'), (err: { errno?: number; message?: string }) => err.errno === 1210 && /column count mismatch/.test(err.message ?? ''));
  } finally {
    await my.end();
  }
  const [pgHost, pgPort] = hostPort(s.postgres!);
  const client = new pg.Client({ host: pgHost, port: Number(pgPort), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    assert.deepEqual((await client.query('SELECT u FROM vw_busy WHERE h = $1 ORDER BY u', ['b'])).rows, [{ u: 50 }, { u: 70 }]);
    await assert.rejects(client.query('DROP VIEW vw_cpu'), /Invalid view "tsdb.public.vw_cpu": not a view/);
  } finally {
    await client.end();
  }

  // A view is catalog state: it is there after a restart.
  await s.proc.stop();
  const again = await startTsdb(t, [...START, '--data-home', home]);
  const after = await psql(again.postgres!, ['SELECT count(*) FROM vw_busy', 'DROP VIEW vw_busy', 'SHOW VIEWS']);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, '2\nOK 0\n');
});

test('SQL PREPARE / EXECUTE / DEALLOCATE: per connection over MySQL and PostgreSQL, with the CLIs and the drivers', async (t) => {
  const s = await startTsdb(t, [...START, '--data-home', tempDir(t)]);
  const setup = await mysqlCli(s.mysql!, "CREATE TABLE pr_cake (domain STRING PRIMARY KEY, ts TIMESTAMP(3) TIME INDEX); INSERT INTO pr_cake VALUES ('happy', 1000), ('sad', 2000)");
  assert.equal(setup.code, 0, setup.stderr);

  // mysql: MySQL's forms, in one session (one -e: one connection).
  const cli = await mysqlCli(
    s.mysql!,
    "PREPARE stmt FROM 'SELECT domain FROM pr_cake WHERE domain = ? LIMIT ?'; EXECUTE stmt USING 'sad', 5; DEALLOCATE PREPARE stmt; PREPARE two FROM 'SELECT CAST(? AS INTEGER) AS i, CAST(? AS STRING) AS s'; EXECUTE two USING 1, 'hello'",
  );
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout, 'domain\nsad\ni\ts\n1\thello\n');
  // Another connection has none of them.
  const other = await mysqlCli(s.mysql!, 'EXECUTE two USING 1, 2');
  assert.notEqual(other.code, 0);
  assert.match(other.stderr, /ERROR 1210 .*Prepare statement not found: two/);

  // psql: PostgreSQL's forms, each -c its own query on one connection.
  const p = await psql(s.postgres!, ['PREPARE q (STRING) AS SELECT count(*) FROM pr_cake WHERE domain <> $1', "EXECUTE q('happy')", 'DEALLOCATE q']);
  assert.equal(p.code, 0, p.stderr);
  assert.equal(p.stdout, 'OK 0\n1\nOK 0\n');

  // The drivers: the statements over text queries of one connection.
  const [host, port] = hostPort(s.mysql!);
  const my = await mysql.createConnection({ host, port: Number(port), user: 'root', database: 'public' });
  try {
    await my.query("PREPARE ins FROM 'INSERT INTO pr_cake VALUES (?, ?)'");
    await my.query("EXECUTE ins USING 'new', 3000");
    const [rows] = await my.query('SELECT domain FROM pr_cake ORDER BY ts');
    assert.deepEqual(rows, [{ domain: 'happy' }, { domain: 'sad' }, { domain: 'new' }]);
    await my.query('DEALLOCATE PREPARE ins');
    await assert.rejects(my.query("EXECUTE ins USING 'x', 4000"), /Prepare statement not found: ins/);
  } finally {
    await my.end();
  }
  const [pgHost, pgPort] = hostPort(s.postgres!);
  const client = new pg.Client({ host: pgHost, port: Number(pgPort), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    await client.query('PREPARE pick (STRING) AS SELECT domain FROM pr_cake WHERE domain = $1');
    assert.deepEqual((await client.query("EXECUTE pick('sad')")).rows, [{ domain: 'sad' }]);
    await assert.rejects(client.query('EXECUTE pick(1, 2)'), /the statement has 1 parameter, EXECUTE gave 2/);
    await client.query('DEALLOCATE ALL');
    await assert.rejects(client.query("EXECUTE pick('sad')"), /Prepare statement not found: pick/);
  } finally {
    await client.end();
  }
});
