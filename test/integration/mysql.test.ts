/**
 * The MySQL server of a real standalone tsdb, driven by Debian's `mysql` (mariadb-client)
 * non-interactively: tables, rows and errors over COM_QUERY, authentication, intercepted
 * statements, `SET time_zone`, unknown databases.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { runClient, type ClientResult } from '../support/run-client.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const MYSQL = ['/usr/bin/mysql', '/usr/bin/mariadb'].find((p) => existsSync(p));

/** Runs `mysql --batch` against `addr` with `args` after the connection options. */
function mysql(addr: string, args: string[], opts: { user?: string; password?: string; database?: string } = {}): Promise<ClientResult> {
  if (MYSQL === undefined) throw new Error('mysql is missing: install the Debian package mariadb-client (.ci/run does)');
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
  const conn = [
    '--no-defaults',
    '--protocol=TCP',
    '--skip-ssl',
    '--connect-timeout=10',
    '-h', host, '-P', port,
    '-u', opts.user ?? 'root',
    ...(opts.password !== undefined ? [`-p${opts.password}`] : []),
    ...(opts.database !== undefined ? ['-D', opts.database] : []),
    '--batch',
  ];
  return runClient(MYSQL, [...conn, ...args], { PATH: process.env['PATH'] });
}

async function start(t: TestContext, args: string[] = []): Promise<string> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  assert.ok(s.mysql, 'the start log names the MySQL address');
  return s.mysql;
}

test('mysql: create a table, insert, select, several statements in one query', async (t) => {
  const my = await start(t);
  const ddl = await mysql(my, [
    '-e',
    "CREATE TABLE cpu (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, usage DOUBLE, n BIGINT); INSERT INTO cpu VALUES (1700000000000, 'a', 1.5, 7), (1700000001000, 'b', NULL, -1)",
  ]);
  assert.equal(ddl.code, 0, ddl.stderr);
  assert.equal(ddl.stdout, '');

  const rows = await mysql(my, ['-D', 'public', '-e', 'SELECT host, ts, usage, n FROM cpu ORDER BY ts']);
  assert.equal(rows.code, 0, rows.stderr);
  assert.equal(rows.stdout, 'host\tts\tusage\tn\na\t2023-11-14 22:13:20\t1.5\t7\nb\t2023-11-14 22:13:21\tNULL\t-1\n');

  const multi = await mysql(my, ['-N', '-e', "SELECT count(*) FROM cpu; SELECT host FROM cpu WHERE n > 0; SELECT 'x;y' AS s"]);
  assert.equal(multi.code, 0, multi.stderr);
  assert.equal(multi.stdout, '2\na\nx;y\n');

  const db = await mysql(my, ['-N', '-e', 'SELECT DATABASE()'], { database: 'tsdb-public' });
  assert.equal(db.code, 0, db.stderr);
  assert.equal(db.stdout, 'public\n');
});

test('mysql: errors carry the mapped errno and SQLSTATE', async (t) => {
  const my = await start(t);
  const missing = await mysql(my, ['-e', 'SELECT * FROM nope']);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /^ERROR 1146 \(42S02\) at line 1: \(TableNotFound\): .*Table not found: .*nope/m);

  const syntax = await mysql(my, ['-e', 'SELEC 42']);
  assert.notEqual(syntax.code, 0);
  assert.match(syntax.stderr, /^ERROR 1235 \(42000\) at line 1: \(Unsupported\): SQL statement is not supported, keyword: SELEC/m);

  // The first error ends a multi-statement query; earlier results are printed.
  const partial = await mysql(my, ['-N', '-e', 'SELECT 1; SELECT * FROM nope; SELECT 3']);
  assert.notEqual(partial.code, 0);
  assert.equal(partial.stdout, '1\n');
});

test('mysql: intercepted statements and SET time_zone', async (t) => {
  const my = await start(t);
  const vars = await mysql(my, ['-e', "SELECT @@version_comment; SELECT @@max_allowed_packet, @@tx_isolation AS iso; SHOW VARIABLES LIKE 'lower_case_table_names'"]);
  assert.equal(vars.code, 0, vars.stderr);
  assert.equal(vars.stdout, '@@version_comment\ntsdb\n@@max_allowed_packet\tiso\n134217728\tREPEATABLE-READ\nVariable_name\tValue\nlower_case_table_names\t0\n');

  const version = await mysql(my, ['-N', '-e', 'SELECT VERSION()']).then(() => mysql(my, ['-N', '-e', 'SELECT @@version']));
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^8\.4\.2-tsdb-/);

  const setup = await mysql(my, ['-e', 'SET NAMES utf8mb4; SET autocommit = 1; START TRANSACTION; COMMIT; /*!40101 SET character_set_client = utf8 */; CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE); INSERT INTO t VALUES (1700000000000, 1)']);
  assert.equal(setup.code, 0, setup.stderr);

  const zoned = await mysql(my, ['-N', '-e', "SET time_zone = '+08:00'; SELECT ts FROM t; SELECT @@time_zone; SET time_zone = 'UTC'; SELECT ts FROM t"]);
  assert.equal(zoned.code, 0, zoned.stderr);
  assert.equal(zoned.stdout, '2023-11-15 06:13:20\n+08:00\n2023-11-14 22:13:20\n');

  const bad = await mysql(my, ['-e', "SET time_zone = 'Mars/Olympus'"]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /^ERROR 1210 \(HY000\).*Mars\/Olympus/m);

  const use = await mysql(my, ['-e', 'USE nope']);
  assert.notEqual(use.code, 0);
  assert.match(use.stderr, /Unknown database 'nope'/);
});

test('mysql: an unknown database in the handshake is refused', async (t) => {
  const my = await start(t);
  const r = await mysql(my, ['-e', 'SELECT 1'], { database: 'nope' });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /ERROR 1049 \(42000\): Unknown database 'nope'/);
});

test('mysql: mysql_native_password against the user provider', async (t) => {
  const my = await start(t, ['--user-provider', 'static_user_provider:cmd:u=PASS,ro:ro=pw']);
  const ok = await mysql(my, ['-N', '-e', 'SELECT 1'], { user: 'u', password: 'PASS' });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '1\n');

  const wrong = await mysql(my, ['-e', 'SELECT 1'], { user: 'u', password: 'nope' });
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /ERROR 1045 \(28000\): Access denied for user 'u'/);

  const unknown = await mysql(my, ['-e', 'SELECT 1'], { user: 'x', password: 'PASS' });
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /Access denied for user 'x'/);

  const ro = await mysql(my, ['-e', 'CREATE TABLE t (ts TIMESTAMP TIME INDEX)'], { user: 'ro', password: 'pw' });
  assert.notEqual(ro.code, 0);
  assert.match(ro.stderr, /ERROR 1045 \(28000\).*not authorized/);
});
