/**
 * The PostgreSQL server of a real standalone tsdb, driven by Debian's `psql` non-interactively:
 * tables, rows and errors over the simple query protocol, authentication, startup checks, SET/SHOW.
 */
import assert from 'node:assert/strict';
import { randomBytes, pbkdf2Sync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { runClient, type ClientResult } from '../support/run-client.js';
import { tempDir, tempFile } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const PSQL = '/usr/bin/psql';


/** Runs psql against `addr` with `args` after the connection options. */
function psql(addr: string, args: string[], opts: { user?: string; database?: string; password?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ClientResult> {
  if (!existsSync(PSQL)) throw new Error(`${PSQL} is missing: install the Debian package postgresql-client (.ci/run does)`);
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
  return runClient(PSQL, ['-X', '-h', host, '-p', port, '-U', opts.user ?? 'tsdb', '-d', opts.database ?? 'public', '-v', 'ON_ERROR_STOP=1', ...args], {
    PATH: process.env['PATH'],
    PGCONNECT_TIMEOUT: '10',
    PGSSLMODE: 'prefer',
    ...(opts.password !== undefined && { PGPASSWORD: opts.password }),
    ...opts.env,
  });
}

async function start(t: TestContext, args: string[] = []): Promise<string> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  assert.ok(s.postgres, 'the start log names the PostgreSQL address');
  return s.postgres;
}

test('psql: create a table, insert, query, in aligned and unaligned output', async (t) => {
  const pg = await start(t);
  const ddl = await psql(pg, [
    '-c', 'CREATE TABLE cpu (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, usage DOUBLE, n BIGINT)',
    '-c', "INSERT INTO cpu VALUES (1700000000000, 'a', 1.5, 7), (1700000001000, 'b', NULL, -1)",
  ]);
  assert.equal(ddl.code, 0, ddl.stderr);
  assert.equal(ddl.stdout, 'OK 0\nOK 2\n');

  const aligned = await psql(pg, ['-c', 'SELECT host, ts, usage, n FROM cpu ORDER BY ts']);
  assert.equal(aligned.code, 0, aligned.stderr);
  assert.equal(
    aligned.stdout,
    [
      ' host |         ts          | usage | n  ',
      '------+---------------------+-------+----',
      ' a    | 2023-11-14 22:13:20 |   1.5 |  7',
      ' b    | 2023-11-14 22:13:21 |       | -1',
      '(2 rows)',
      '',
      '',
    ].join('\n'),
  );

  // Several statements in one Query: each answers; -A -t prints bare rows.
  const bare = await psql(pg, ['-A', '-t', '-c', "SELECT count(*) FROM cpu; SELECT host FROM cpu WHERE n > 0; SELECT 'x;y' AS s"]);
  assert.equal(bare.code, 0, bare.stderr);
  assert.equal(bare.stdout, '2\na\nx;y\n');

  // A script file with psql's own variables.
  const file = tempFile(t, 'q.sql', "\\set h 'b'\nSELECT n FROM cpu WHERE host = :'h';\n");
  const script = await psql(pg, ['-A', '-t', '-f', file]);
  assert.equal(script.code, 0, script.stderr);
  assert.equal(script.stdout, '-1\n');
});

test('psql: errors carry the mapped SQLSTATE; the session goes on', async (t) => {
  const pg = await start(t);
  const r = await psql(pg, ['-v', 'VERBOSITY=verbose', '-c', 'SELECT * FROM nosuch']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /ERROR: {2}42P01: Failed to plan SQL: Table not found: tsdb\.public\.nosuch/);

  const syntax = await psql(pg, ['-v', 'VERBOSITY=verbose', '-c', 'SELEC 1']);
  assert.equal(syntax.code, 1);
  assert.match(syntax.stderr, /ERROR: {2}0A000: SQL statement is not supported, keyword: SELEC/);

  // Without ON_ERROR_STOP, psql goes on after the error on the same connection.
  const goesOn = await psql(pg, ['-v', 'ON_ERROR_STOP=0', '-A', '-t', '-c', 'SELECT * FROM nosuch', '-c', 'SELECT 42']);
  assert.match(goesOn.stderr, /Table not found/);
  assert.equal(goesOn.stdout, '42\n');
});

test('psql: unknown database and invalid TimeZone are FATAL at startup', async (t) => {
  const pg = await start(t);
  const db = await psql(pg, ['-c', 'SELECT 1'], { database: 'nosuch' });
  assert.equal(db.code, 2);
  assert.match(db.stderr, /FATAL: {2}Database not found: nosuch/);

  const catalogDb = await psql(pg, ['-A', '-t', '-c', 'SELECT 1'], { database: 'tsdb-public' });
  assert.equal(catalogDb.code, 0, catalogDb.stderr);
  assert.equal(catalogDb.stdout, '1\n');

  const tz = await psql(pg, ['-c', 'SELECT 1'], { env: { PGTZ: 'Nowhere/Special' } });
  assert.equal(tz.code, 2);
  assert.match(tz.stderr, /FATAL: {2}Invalid TimeZone: Nowhere\/Special/);
});

test('psql: SET TimeZone changes how timestamps read; SHOW and transaction statements are answered', async (t) => {
  const pg = await start(t);
  await psql(pg, ['-c', 'CREATE TABLE t (ts TIMESTAMP TIME INDEX, v INT)', '-c', 'INSERT INTO t VALUES (0, 1)']);
  const r = await psql(pg, [
    '-q', '-A', '-t',
    '-c', 'SHOW TimeZone',
    '-c', "SET TimeZone = 'Asia/Shanghai'; SHOW TimeZone; SELECT ts FROM t",
    '-c', 'SET TIME ZONE \'+01:00\'; SELECT ts FROM t',
    '-c', 'SHOW transaction isolation level',
    '-c', 'SHOW standard_conforming_strings',
    '-c', 'SHOW client_encoding',
    '-c', 'SHOW search_path',
    '-c', 'SHOW server_version',
    '-c', 'BEGIN; SELECT v FROM t; COMMIT',
    '-c', 'START TRANSACTION; ROLLBACK',
    '-c', "SET application_name = 'x'",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, 8), ['UTC', 'Asia/Shanghai', '1970-01-01 08:00:00', '1970-01-01 01:00:00', 'read committed', 'on', 'UTF8', 'public']);
  assert.match(lines[8]!, /^16\.3-tsdb-\d+\.\d+\.\d+/);
  assert.equal(lines[9], '1');
  assert.match(r.stderr, /WARNING: {2}transactions are not supported/);

  const bad = await psql(pg, ['-v', 'VERBOSITY=verbose', '-c', "SET TimeZone = 'Mars/Base'"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /ERROR: {2}22023: Invalid TimeZone: Mars\/Base/);

  // SET search_path switches the schema of later statements.
  const sp = await psql(pg, ['-q', '-A', '-t', '-c', 'CREATE DATABASE other', '-c', 'SET search_path TO other; CREATE TABLE o (ts TIMESTAMP TIME INDEX); SHOW search_path']);
  assert.equal(sp.code, 0, sp.stderr);
  const inOther = await psql(pg, ['-A', '-t', '-c', 'SELECT count(*) FROM o'], { database: 'other' });
  assert.equal(inOther.code, 0, inOther.stderr);
  assert.equal(inOther.stdout, '0\n');
});

test('psql with a user provider: the right password connects (SCRAM-SHA-256 for plain users, cleartext when a verifier needs it), a wrong one is FATAL 28P01', async (t) => {
  // Only plain verifiers: the server offers SCRAM-SHA-256.
  const users = tempFile(t, 'users', 'admin=secret\n');
  const pg = await start(t, ['--user-provider', `static_user_provider:file:${users}`]);
  const ok = await psql(pg, ['-A', '-t', '-c', 'SELECT 1'], { user: 'admin', password: 'secret' });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '1\n');

  const wrong = await psql(pg, ['-c', 'SELECT 1'], { user: 'admin', password: 'nope' });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /FATAL: {2}password authentication failed for user "admin"/);

  const ghost = await psql(pg, ['-c', 'SELECT 1'], { user: 'ghost', password: 'x' });
  assert.equal(ghost.code, 2);
  assert.match(ghost.stderr, /FATAL: {2}password authentication failed for user "ghost"/);
});

test('psql with a pbkdf2 user: the server asks for the cleartext password and checks it', async (t) => {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync('s3cret', salt, 1000, 32, 'sha256');
  const users = tempFile(t, 'users', `hashed=pbkdf2_sha256:1000:${salt.toString('hex')}:${hash.toString('hex')}\nadmin=secret\n`);
  const pg = await start(t, ['--user-provider', `static_user_provider:file:${users}`]);
  for (const [user, password] of [['hashed', 's3cret'], ['admin', 'secret']] as const) {
    const ok = await psql(pg, ['-A', '-t', '-c', 'SELECT 2'], { user, password });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '2\n');
  }
  const wrong = await psql(pg, ['-c', 'SELECT 1'], { user: 'hashed', password: 'nope' });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /FATAL: {2}password authentication failed for user "hashed"/);
});

test("psql's catalog commands: \\l, \\dt, \\d, \\d table, \\dn read tsdb's pg_catalog", async (t) => {
  const pg = await start(t);
  const ddl = await psql(pg, [
    '-c', 'CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE NOT NULL, n BIGINT DEFAULT 7)',
    '-c', 'CREATE DATABASE other',
    '-c', 'CREATE TABLE other.x (ts TIMESTAMP(6) TIME INDEX, s STRING) WITH (append_mode = \'true\')',
  ]);
  assert.equal(ddl.code, 0, ddl.stderr);

  const l = await psql(pg, ['-c', '\\l']);
  assert.equal(l.code, 0, l.stderr);
  assert.match(l.stdout, /List of databases/);
  assert.deepEqual(l.stdout.split('\n').filter((x) => / UTF8 /.test(x)).map((x) => x.split('|').slice(0, 3).map((c) => c.trim())), [
    ['information_schema', 'tsdb', 'UTF8'],
    ['other', 'tsdb', 'UTF8'],
    ['public', 'tsdb', 'UTF8'],
  ]);

  const dt = await psql(pg, ['-c', '\\dt']);
  assert.equal(dt.code, 0, dt.stderr);
  assert.equal(dt.stdout, ['       List of relations', ' Schema | Name | Type  | Owner ', '--------+------+-------+-------', ' public | m    | table | tsdb', '(1 row)', '', ''].join('\n'));

  const d = await psql(pg, ['-c', '\\d']);
  assert.equal(d.code, 0, d.stderr);
  assert.equal(d.stdout, dt.stdout);

  const dm = await psql(pg, ['-c', '\\d m']);
  assert.equal(dm.code, 0, dm.stderr);
  assert.equal(
    dm.stdout,
    [
      '                             Table "public.m"',
      ' Column |              Type              | Collation | Nullable | Default ',
      '--------+--------------------------------+-----------+----------+---------',
      ' host   | character varying              |           |          | ',
      ' ts     | timestamp(3) without time zone |           | not null | ',
      ' v      | double precision               |           | not null | ',
      ' n      | bigint                         |           |          | 7',
      'Indexes:',
      '    "m_pkey" PRIMARY KEY, btree (host, ts)',
      '',
      '',
    ].join('\n'),
  );

  // Another schema (database), named in the pattern; an append-mode table has no unique index.
  const dx = await psql(pg, ['-c', '\\d other.x']);
  assert.equal(dx.code, 0, dx.stderr);
  assert.match(dx.stdout, /Table "other\.x"/);
  assert.match(dx.stdout, / ts {5}\| timestamp\(6\) without time zone \| +\| not null \|/);
  assert.match(dx.stdout, / s {6}\| character varying +\|/);
  assert.doesNotMatch(dx.stdout, /Indexes/);
  const nothing = await psql(pg, ['-c', '\\d nosuch']);
  assert.match(nothing.stderr, /Did not find any relation named "nosuch"/);

  const dn = await psql(pg, ['-c', '\\dn']);
  assert.equal(dn.code, 0, dn.stderr);
  assert.equal(dn.stdout, ['List of schemas', '  Name  | Owner ', '--------+-------', ' other  | tsdb', ' public | tsdb', '(2 rows)', '', ''].join('\n'));

  // The session's search_path decides what \dt lists.
  const other = await psql(pg, ['-A', '-t', '-c', '\\dt'], { database: 'other' });
  assert.equal(other.code, 0, other.stderr);
  assert.equal(other.stdout, 'other|x|table|tsdb\n');

  // information_schema still answers over PostgreSQL.
  const is = await psql(pg, ['-A', '-t', '-c', "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('public', 'other') ORDER BY 1, 2"]);
  assert.equal(is.code, 0, is.stderr);
  assert.equal(is.stdout, 'other|x\npublic|m\npublic|numbers\n');
});
