/**
 * COPY on real servers: a database with a column of every type tsdb has, 1,000,000 rows, exported
 * with COPY DATABASE and restored into an empty server, on the local copy directory and on S3
 * (s3rver) — row counts and checksums of the contents equal, and equal to DuckDB's own checksum of
 * the generated source file; CSV and JSON round trips of every type; the progress lines of the log;
 * `tsdb cli export` / `tsdb cli import`; and the path attacks (`..`, absolute paths, symbolic links
 * out of the copy directory) refused with no file read or written outside it; COPY over MySQL and
 * PostgreSQL; COPY (<query>) TO of a result past the `[query]` result limits, stopped by a timeout
 * or a client gone (no file left), and refusing what a SELECT refuses.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { startS3rver } from '../support/object-servers.js';
import { mysqlClient, pgClient } from '../support/sql-clients.js';
import { tempDir } from '../support/temp.js';
import { runTsdb, startTsdb, type Started } from '../support/tsdb-process.js';

/** Every column type: name, tsdb's SQL type, DuckDB's type, and the generating expression over `i`. */
const COLUMNS: ReadonlyArray<readonly [string, string, string, string]> = [
  ['c_bool', 'BOOLEAN', 'BOOLEAN', 'i % 3 = 0'],
  ['c_i8', 'TINYINT', 'TINYINT', '(i % 256) - 128'],
  ['c_i16', 'SMALLINT', 'SMALLINT', '(i % 65536) - 32768'],
  ['c_i32', 'INT', 'INTEGER', '(i * 7919) % 2147483647 - 1073741823'],
  ['c_i64', 'BIGINT', 'BIGINT', 'i * 1000003 - 500000000000'],
  ['c_u8', 'TINYINT UNSIGNED', 'UTINYINT', 'i % 256'],
  ['c_u16', 'SMALLINT UNSIGNED', 'USMALLINT', 'i % 65536'],
  ['c_u32', 'INT UNSIGNED', 'UINTEGER', '(i * 4099) % 4294967295'],
  ['c_u64', 'BIGINT UNSIGNED', 'UBIGINT', '18446744073709551615 - i'],
  ['c_f32', 'FLOAT', 'FLOAT', 'i / 7.0'],
  ['c_f64', 'DOUBLE', 'DOUBLE', 'i * 1.0000001 - 0.5'],
  ['c_str', 'STRING', 'VARCHAR', "'s' || i || CASE i % 5 WHEN 0 THEN ',\"q\"' WHEN 1 THEN chr(10) || 'line' WHEN 2 THEN '' ELSE 'é✓' END"],
  ['c_bin', 'VARBINARY', 'BLOB', "unhex(printf('%08x00ff', i))"],
  ['c_date', 'DATE', 'DATE', "DATE '1970-01-01' + CAST(i % 40000 - 20000 AS INTEGER)"],
  ['c_ts_s', 'TIMESTAMP(0)', 'TIMESTAMP_S', 'make_timestamp(1500000000000000 + i * 1000000)'],
  ['c_ts_ms', 'TIMESTAMP(3)', 'TIMESTAMP_MS', 'make_timestamp(1500000000000000 + i * 1001)'],
  ['c_ts_us', 'TIMESTAMP(6)', 'TIMESTAMP', 'make_timestamp(1500000000000000 + i * 7)'],
  ['c_ts_ns', 'TIMESTAMP(9)', 'TIMESTAMP_NS', 'make_timestamp_ns(1500000000000000000 + i * 13)'],
  ['c_dec', 'DECIMAL(18,4)', 'DECIMAL(18,4)', 'CAST(i AS DECIMAL(18,4)) * 1.2345 - 5000.0001'],
  ['c_dec38', 'DECIMAL(38,10)', 'DECIMAL(38,10)', "CAST(i AS DECIMAL(38,10)) * CAST('123456789012.3456789012' AS DECIMAL(38,10)) / 1000"],
  // A JSON column's text is canonical (keys sorted, no spaces, common/jsonb.ts): generated so, it reads back the same.
  ['c_json', 'JSON', 'VARCHAR', `'{"a":[' || i || ',null,true],"s":"v' || (i % 7) || '\\n\\"q\\"","x":{"f":' || (i % 5) || '.5}}'`],
  ['c_vec', 'VECTOR(3)', 'FLOAT[3]', '[i / 3.0, -i, 0.5]'],
];

const CREATE = `CREATE TABLE every_type (host STRING, ts TIMESTAMP(3) TIME INDEX, ${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}, PRIMARY KEY (host))`;

/** Rows, and two checksums of every column of every row (order-free: an XOR and a sum of row hashes). */
const CHECKSUM = (table: string) => {
  // Timestamps as nanosecond epochs: Parquet keeps no second or millisecond unit, so a reader of the
  // source file sees those columns as microsecond TIMESTAMPs (same values, another type to hash).
  const value = (n: string, type: string) => (type.startsWith('TIMESTAMP') ? `epoch_ns(${n})` : n);
  const row = `hash(host, epoch_ns(ts), ${COLUMNS.map(([n, , type]) => value(n, type)).join(', ')})`;
  return `SELECT CAST(count(*) AS VARCHAR) AS n, CAST(bit_xor(${row}) AS VARCHAR) AS x, CAST(sum(${row} % 1000003) AS VARCHAR) AS s FROM ${table}`;
};

/** Writes `rows` generated rows (every 11th row NULL in every field) as Parquet at `path`. */
async function generate(path: string, rows: number): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    // DuckDB's CASE takes no fixed-size array: a vector is made a list first.
    const nullable = (type: string, expr: string) => {
      const array = /^(\w+)\[\d+\]$/.exec(type);
      if (array === null) return `CASE WHEN i % 11 = 0 THEN NULL ELSE CAST(${expr} AS ${type}) END`;
      return `CAST(CASE WHEN i % 11 = 0 THEN NULL ELSE CAST(${expr} AS ${array[1]}[]) END AS ${type})`;
    };
    const items = COLUMNS.map(([n, , type, expr]) => `${nullable(type, expr)} AS ${n}`);
    const select = `SELECT 'host' || (i % 1000) AS host, CAST(make_timestamp(1600000000000000 + i * 1000) AS TIMESTAMP_MS) AS ts, ${items.join(', ')} FROM range(${rows}) r(i)`;
    await conn.run(`COPY (${select}) TO '${path}' (FORMAT parquet)`);
    const sum = await conn.runAndReadAll(CHECKSUM(`read_parquet('${path}')`));
    return sum.getRows()[0]!.map(String);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

interface Server extends Started {
  /** `headers` add to the request's (`x-tsdb-timeout: 0` unless given). */
  sql(sql: string, db?: string, headers?: Record<string, string>): Promise<{ code: number; error?: string; columns: string[]; rows: unknown[][]; affected: number }>;
  ok(sql: string, db?: string, headers?: Record<string, string>): Promise<{ columns: string[]; rows: unknown[][]; affected: number }>;
}

/** A standalone server copying in `copyDir`; `objectStorage` allows object storage, `prefixes` those locations; `env` adds to its environment. */
async function server(t: TestContext, copyDir: string, opts: { objectStorage?: boolean; prefixes?: string; env?: Record<string, string> } = {}): Promise<Server> {
  const env = {
    TSDB_STANDALONE__COPY__DIR: copyDir,
    ...(opts.objectStorage === true && { TSDB_STANDALONE__COPY__ALLOW_OBJECT_STORAGE: 'true' }),
    ...(opts.prefixes !== undefined && { TSDB_STANDALONE__COPY__OBJECT_STORAGE: opts.prefixes }),
    ...opts.env,
  };
  const started = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env });
  const sql = async (text: string, db = 'public', headers: Record<string, string> = {}) => {
    const res = await fetch(`${started.baseUrl}/v1/sql?db=${db}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-tsdb-timeout': '0', ...headers }, body: new URLSearchParams({ sql: text }).toString() });
    const json = (await res.json()) as { code: number; error?: string; output?: Array<{ affectedrows?: number; records?: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }> };
    const records = json.output?.[0]?.records;
    return { code: json.code, ...(json.error !== undefined && { error: json.error }), columns: records?.schema.column_schemas.map((c) => c.name) ?? [], rows: records?.rows ?? [], affected: json.output?.[0]?.affectedrows ?? 0 };
  };
  const ok = async (text: string, db?: string, headers?: Record<string, string>) => {
    const r = await sql(text, db, headers);
    assert.equal(r.code, 0, `${text}: ${r.error}`);
    return r;
  };
  return { ...started, sql, ok };
}

const checksum = async (s: Server, table: string) => (await s.ok(CHECKSUM(table))).rows[0]!.map(String);

const ROWS = 1_000_000;

test('COPY DATABASE of every type, 1,000,000 rows, to the copy directory and back into an empty server: same rows', async (t) => {
  const copyDir = tempDir(t);
  mkdirSync(join(copyDir, 'gen'));
  const expected = await generate(join(copyDir, 'gen', 'every_type.parquet'), ROWS);
  assert.equal(expected[0], String(ROWS));
  const src = await server(t, copyDir);
  await src.ok('CREATE DATABASE src');
  await src.ok(CREATE, 'src');
  assert.equal((await src.ok("COPY src.every_type FROM 'gen/every_type.parquet'")).affected, ROWS);
  assert.deepEqual(await checksum(src, 'src.every_type'), expected, 'the table holds the file\'s rows');
  // Progress and the end of a copy are in the log, with rows and bytes.
  const done = await src.proc.waitForLog((l) => l.msg === 'copy done' && l['rows'] === ROWS);
  assert.ok((done['bytes'] as number) > 1_000_000);

  assert.equal((await src.ok("COPY DATABASE src TO 'backup/src/' WITH (format = 'parquet')")).affected, ROWS);
  assert.deepEqual(readdirSync(join(copyDir, 'backup', 'src')).sort(), ['create_database.sql', 'create_tables.sql', 'every_type.parquet']);
  await src.proc.stop('SIGTERM');

  // A new server with nothing in it: the database, then COPY DATABASE FROM makes the table and loads it.
  const dst = await server(t, copyDir);
  await dst.ok('CREATE DATABASE src');
  assert.equal((await dst.ok("COPY DATABASE src FROM 'backup/src/'")).affected, ROWS);
  assert.deepEqual(await checksum(dst, 'src.every_type'), expected);
  // The columns are the same, type for type.
  const cols = (await dst.ok("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'src' AND table_name = 'every_type' ORDER BY column_name")).rows;
  assert.equal(cols.length, COLUMNS.length + 2);
  // An export of a time range holds just those rows (half-open: [start, end)).
  assert.equal((await dst.ok("COPY src.every_type TO 'range.parquet' WITH (start_time = '2020-09-13 12:26:40', end_time = '2020-09-13 12:26:40.010')")).affected, 10);
});

test('CSV and JSON: every type survives COPY TO and COPY FROM (strings with commas, quotes, newlines, UTF-8; NULLs; extremes)', async (t) => {
  const copyDir = tempDir(t);
  mkdirSync(join(copyDir, 'gen'));
  const expected = await generate(join(copyDir, 'gen', 'every_type.parquet'), 20_000);
  const s = await server(t, copyDir);
  await s.ok(CREATE);
  await s.ok("COPY every_type FROM 'gen/every_type.parquet'");
  for (const format of ['csv', 'json', 'parquet']) {
    assert.equal((await s.ok(`COPY every_type TO 'out/every_type.${format}' WITH (format = '${format}')`)).affected, 20_000);
    await s.ok(`CREATE TABLE back_${format} LIKE every_type`);
    assert.equal((await s.ok(`COPY back_${format} FROM 'out/every_type.${format}' WITH (format = '${format}')`)).affected, 20_000);
    assert.deepEqual(await checksum(s, `back_${format}`), expected, format);
  }
});

test('COPY DATABASE to S3 (s3rver) and back into an empty server: 1,000,000 rows of every type, same rows', async (t) => {
  const s3 = await startS3rver('copy-test');
  t.after(() => s3.stop());
  const conn = `CONNECTION (ENDPOINT = '${s3.endpoint}', REGION = '${s3.region}', ACCESS_KEY_ID = '${s3.accessKeyId}', SECRET_ACCESS_KEY = '${s3.secretAccessKey}')`;
  const copyDir = tempDir(t);
  mkdirSync(join(copyDir, 'gen'));
  const expected = await generate(join(copyDir, 'gen', 'every_type.parquet'), ROWS);
  const src = await server(t, copyDir, { objectStorage: true });
  await src.ok('CREATE DATABASE src');
  await src.ok(CREATE, 'src');
  await src.ok("COPY src.every_type FROM 'gen/every_type.parquet'");
  assert.equal((await src.ok(`COPY DATABASE src TO 's3://copy-test/backups/src/' WITH (format = 'parquet') ${conn}`)).affected, ROWS);
  // A single table to an object, and a wrong key refused without the secret in the message.
  assert.equal((await src.ok(`COPY src.every_type TO 's3://copy-test/one/every_type.csv' WITH (format = 'csv', start_time = '2020-09-13 12:26:40', end_time = '2020-09-13 12:26:40.010') ${conn}`)).affected, 10);
  const bad = await src.sql(`COPY src.every_type TO 's3://copy-test/x.parquet' CONNECTION (ENDPOINT = '${s3.endpoint}', REGION = 'us-east-1', ACCESS_KEY_ID = 'nobody', SECRET_ACCESS_KEY = 'wrong-secret-123')`);
  assert.notEqual(bad.code, 0);
  assert.ok(!bad.error!.includes('wrong-secret-123'), bad.error);
  // Nothing staged stays behind.
  assert.deepEqual(readdirSync(join(copyDir, '.tsdb-staging')), []);
  await src.proc.stop('SIGTERM');

  const dst = await server(t, tempDir(t), { objectStorage: true });
  await dst.ok('CREATE DATABASE src');
  assert.equal((await dst.ok(`COPY DATABASE src FROM 's3://copy-test/backups/src/' ${conn}`)).affected, ROWS);
  assert.deepEqual(await checksum(dst, 'src.every_type'), expected);
  await dst.ok('CREATE TABLE one LIKE src.every_type');
  assert.equal((await dst.ok(`COPY one FROM 's3://copy-test/one/' WITH (format = 'csv', pattern = 'every.*') ${conn}`)).affected, 10);
});

test('[copy] object_storage: with the switch off, COPY reaches only the configured locations (.. resolved); others refused 7006', async (t) => {
  const s3 = await startS3rver('copy-prefix');
  t.after(() => s3.stop());
  const conn = `CONNECTION (ENDPOINT = '${s3.endpoint}', REGION = '${s3.region}', ACCESS_KEY_ID = '${s3.accessKeyId}', SECRET_ACCESS_KEY = '${s3.secretAccessKey}')`;
  const s = await server(t, tempDir(t), { prefixes: 's3://copy-prefix/allowed/' });
  await s.ok('CREATE TABLE few (ts TIMESTAMP TIME INDEX, v DOUBLE)');
  await s.ok('INSERT INTO few VALUES (1, 1.5), (2, 2.5)');
  assert.equal((await s.ok(`COPY few TO 's3://copy-prefix/allowed/few.parquet' ${conn}`)).affected, 2);
  await s.ok('CREATE TABLE back LIKE few');
  assert.equal((await s.ok(`COPY back FROM 's3://copy-prefix/allowed/few.parquet' ${conn}`)).affected, 2);
  for (const where of ['s3://copy-prefix/other/few.parquet', 's3://copy-prefix/allowed/../other/few.parquet', 's3://copy-prefix/allowedx/few.parquet', 's3://other-bucket/allowed/few.parquet']) {
    const r = await s.sql(`COPY few TO '${where}' ${conn}`);
    assert.equal(r.code, 7006, `${where}: ${r.error}`);
  }
});

test('tsdb cli export and import: a backup of two databases restored into an empty server, with the same rows', async (t) => {
  const copyDir = tempDir(t);
  mkdirSync(join(copyDir, 'gen'));
  const expected = await generate(join(copyDir, 'gen', 'every_type.parquet'), 50_000);
  const src = await server(t, copyDir);
  for (const db of ['a', 'b']) {
    // a's options come back with it (create_database.sql).
    await src.ok(`CREATE DATABASE ${db}${db === 'a' ? " WITH (ttl = '3650d', 'compaction.twcs.time_window' = '2h')" : ''}`);
    await src.ok(CREATE, db);
    await src.ok(`COPY ${db}.every_type FROM 'gen/every_type.parquet'`);
  }
  await src.ok("CREATE TABLE phy (ts TIMESTAMP TIME INDEX, val DOUBLE) ENGINE = metric WITH ('physical_metric_table' = '')", 'b');
  await src.ok("CREATE TABLE up (ts TIMESTAMP TIME INDEX, val DOUBLE, job STRING PRIMARY KEY) ENGINE = metric WITH ('on_physical_table' = 'phy')", 'b');
  await src.ok("INSERT INTO up VALUES (1000, 1, 'x'), (2000, 0, 'y')", 'b');
  const exp = await runTsdb(['cli', 'export', '--addr', src.http, '--database', 'a,b', '--output-dir', 'cli-backup'], { timeoutMs: 180_000 });
  assert.equal(exp.code, 0, exp.stderr);
  // Not a terminal: one plain line per table and a summary per database.
  assert.match(exp.stderr, /^export a: every_type: 50000 rows \[1\/1 tables, 50000 rows\]$/m);
  assert.match(exp.stderr, /^export b: 2 tables, 50002 rows in [\d.]+s$/m);
  assert.ok(!exp.stderr.includes('\r'));
  assert.deepEqual(readdirSync(join(copyDir, 'cli-backup', 'b')).sort(), ['create_database.sql', 'create_tables.sql', 'every_type.parquet', 'up.parquet']);
  await src.proc.stop('SIGTERM');

  const dst = await server(t, copyDir);
  const imp = await runTsdb(['cli', 'import', '--addr', dst.http, '--database', 'a,b', '--input-dir', 'cli-backup'], { timeoutMs: 180_000 });
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stderr, /^import b: 2 tables, 50002 rows in [\d.]+s$/m);
  assert.deepEqual(await checksum(dst, 'a.every_type'), expected);
  assert.deepEqual(await checksum(dst, 'b.every_type'), expected);
  assert.deepEqual((await dst.ok('SELECT job, val FROM up ORDER BY job', 'b')).rows, [['x', 1], ['y', 0]]);
  assert.match(String((await dst.ok('SHOW CREATE DATABASE a')).rows[0]![1]), /'compaction.twcs.time_window' = '2h',\n\s*ttl = '9years 11months 27days 21h 50m 24s'/);
  // A database that was never exported: an error, and the exit status says so.
  const missing = await runTsdb(['cli', 'import', '--addr', dst.http, '--database', 'nope', '--input-dir', 'cli-backup'], { timeoutMs: 180_000 });
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /File not found: cli-backup\/nope\//);
});

test('COPY reaches no file outside the copy directory: .., absolute paths, symbolic links out of it, file:// URLs', async (t) => {
  const copyDir = tempDir(t);
  const outside = tempDir(t);
  writeFileSync(join(outside, 'secret.csv'), 'host,ts\nSECRET-MARKER,1970-01-01 00:00:01\n');
  // A link to a directory outside, a link to a file outside, and a link that stays inside.
  symlinkSync(outside, join(copyDir, 'out-link'));
  symlinkSync(join(outside, 'secret.csv'), join(copyDir, 'secret-link.csv'));
  mkdirSync(join(copyDir, 'inner'));
  writeFileSync(join(copyDir, 'inner', 'ok.csv'), 'host,ts\nfine,1970-01-01 00:00:02\n');
  symlinkSync(join(copyDir, 'inner'), join(copyDir, 'in-link'));
  const s = await server(t, copyDir);
  await s.ok('CREATE TABLE t (host STRING, ts TIMESTAMP TIME INDEX)');
  await s.ok("INSERT INTO t VALUES ('a', 1000)");
  const attacks = [
    "COPY t TO '../escape.csv' WITH (format = 'csv')",
    `COPY t TO '${join(outside, 'abs.csv')}' WITH (format = 'csv')`,
    `COPY t TO 'file://${join(outside, 'url.csv')}' WITH (format = 'csv')`,
    "COPY t TO 'out-link/through-link.csv' WITH (format = 'csv')",
    "COPY t TO 'inner/../../escape2.csv' WITH (format = 'csv')",
    "COPY t FROM 'out-link/secret.csv' WITH (format = 'csv')",
    "COPY t FROM 'out-link/' WITH (format = 'csv')",
    "COPY t FROM 'secret-link.csv' WITH (format = 'csv')",
    `COPY t FROM '${join(outside, 'secret.csv')}' WITH (format = 'csv')`,
    "COPY t FROM '/etc/passwd' WITH (format = 'csv')",
    "COPY DATABASE public TO 'out-link/db/'",
    "COPY DATABASE public FROM 'out-link/'",
  ];
  for (const sql of attacks) {
    const r = await s.sql(sql);
    assert.equal(r.code, 7006, `${sql}: ${r.code} ${r.error}`);
    assert.match(r.error!, /^Permission denied: COPY may only use files in the configured copy directory/);
    assert.ok(!r.error!.includes(outside) || sql.includes(outside), `${sql}: the message names no directory it was not given: ${r.error}`);
  }
  assert.deepEqual(readdirSync(outside), ['secret.csv'], 'nothing was written outside');
  assert.ok(!existsSync(join(copyDir, '..', 'escape.csv')));
  assert.deepEqual((await s.ok('SELECT host FROM t')).rows, [['a']], 'nothing was read from outside');
  // A link that stays inside the directory is followed.
  assert.equal((await s.ok("COPY t FROM 'in-link/ok.csv' WITH (format = 'csv')")).affected, 1);
  assert.equal((await s.ok("COPY t TO 'in-link/written.csv' WITH (format = 'csv')")).affected, 2);
  assert.ok(existsSync(join(copyDir, 'inner', 'written.csv')));
  // User SQL still cannot read what COPY wrote: the sandbox refuses DuckDB's file functions.
  const read = await s.sql(`SELECT * FROM read_csv('${join(copyDir, 'inner', 'written.csv')}')`);
  assert.equal(read.code, 7006);
  // Object storage is off by default ([copy] allow_object_storage): the server connects to no
  // endpoint a statement names.
  const remote = await s.sql("COPY t TO 's3://bucket/x.parquet' CONNECTION (ENDPOINT = 'http://127.0.0.1:1', REGION = 'us-east-1')");
  assert.equal(remote.code, 7006, remote.error);
  assert.match(remote.error ?? '', /allow_object_storage/);
});

test('COPY over MySQL and PostgreSQL (npm drivers): affected rows, and the permission error of each protocol', async (t) => {
  const copyDir = tempDir(t);
  const s = await server(t, copyDir);
  await s.ok('CREATE TABLE w (host STRING PRIMARY KEY, v DOUBLE, ts TIMESTAMP TIME INDEX)');
  await s.ok("INSERT INTO w VALUES ('a', 1.5, 1000), ('b', 2.5, 2000)");
  for (const client of [await mysqlClient(s.mysql!, undefined, 1), await pgClient(s.postgres!, undefined, 1)]) {
    t.after(() => client.close());
    const to = await client.run(`COPY w TO '${client.protocol}/w.parquet'`);
    assert.ok(to.ok, `${client.protocol}: ${to.message}`);
    const from = await client.run(`COPY w FROM '${client.protocol}/w.parquet'`);
    assert.ok(from.ok, `${client.protocol}: ${from.message}`);
    const denied = await client.run("COPY w TO '/etc/w.csv' WITH (format = 'csv')");
    assert.ok(!denied.ok);
    if (client.protocol === 'mysql') assert.equal(denied.errno, 1045);
    else assert.equal(denied.sqlState, '42501');
    assert.match(denied.message, /COPY may only use files in the configured copy directory/);
  }
  assert.ok(existsSync(join(copyDir, 'mysql', 'w.parquet')) && existsSync(join(copyDir, 'postgres', 'w.parquet')));
  assert.deepEqual((await s.ok('SELECT count(*) FROM w')).rows, [[2]]);
});

/** Reads `sql` (over files the test wrote or the server did) with a DuckDB of the test's own. */
async function readBack(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRows();
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/** Rows of the COPY (<query>) test: n = 0 … BIG - 1, v = n / 4, one a second from 2020-09-13 12:26:40 UTC. */
const BIG = 200_000;
const BIG_SUM_N = (BIG * (BIG - 1)) / 2;

/** Waits until no statement whose text holds `marker` is running on `s`. */
async function untilEnded(s: Server, marker: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const running = (await s.ok('SELECT query FROM information_schema.process_list')).rows.filter((r) => String(r[0]).includes(marker) && !String(r[0]).includes('process_list'));
    if (running.length === 0) return;
    assert.ok(Date.now() < deadline, `still running: ${JSON.stringify(running)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('COPY (<query>) TO streams a result past the [query] result limits into Parquet and CSV (format options kept), its columns named as the SELECT names them, in the session time zone', async (t) => {
  const copyDir = tempDir(t);
  mkdirSync(join(copyDir, 'gen'));
  const source = join(copyDir, 'gen', 'big.parquet');
  await readBack(`COPY (SELECT 'host' || (i % 50) AS host, i AS n, i / 4 AS v, CAST(make_timestamp(1600000000000000 + i * 1000000) AS TIMESTAMP_MS) AS ts FROM range(${BIG}) r(i)) TO '${source}' (FORMAT parquet)`);
  const s = await server(t, copyDir, { env: { TSDB_STANDALONE__QUERY__MAX_RESULT_ROWS: '1000', TSDB_STANDALONE__QUERY__MAX_RESULT_BYTES: '64KiB' } });
  await s.ok('CREATE TABLE big (host STRING, n BIGINT, v DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))');
  assert.equal((await s.ok("COPY big FROM 'gen/big.parquet'")).affected, BIG);
  // A SELECT of the rows is held to the limits.
  const select = await s.sql('SELECT host, n, v, ts FROM big WHERE n >= 0');
  assert.equal(select.code, 6000, select.error);

  assert.equal((await s.ok("COPY (SELECT host, n, v, ts FROM big WHERE n >= 0) TO 'out/big.parquet'")).affected, BIG);
  const parquet = await readBack(`SELECT count(*), sum(n), sum(v), count(DISTINCT host) FROM read_parquet('${join(copyDir, 'out', 'big.parquet')}')`);
  assert.deepEqual(parquet, [[BigInt(BIG), BigInt(BIG_SUM_N), BIG_SUM_N / 4, 50n]]);

  // CSV with its options: delimiter, gzip, a timestamp format (here of a millisecond column).
  const odd = await s.ok("COPY (SELECT n, v, ts FROM big WHERE n % 2 = 1) TO 'out/odd.csv.gz' WITH (format = 'csv', delimiter = '|', compression_type = 'gzip', timestamp_format = '%Y/%m/%d %H:%M:%S%.3f')");
  assert.equal(odd.affected, BIG / 2);
  const csv = join(copyDir, 'out', 'odd.csv.gz');
  const csvSums = await readBack(`SELECT count(*), sum(CAST(n AS BIGINT)), min(ts) FROM read_csv('${csv}', delim = '|', header = true, all_varchar = true, compression = 'gzip')`);
  assert.deepEqual(csvSums, [[BigInt(BIG / 2), BigInt((BIG / 2) ** 2), '2020/09/13 12:26:41.000']]);

  // Columns as the SELECT names them (GreptimeDB's names), beyond the limits too.
  const grouped = 'SELECT host, count(*), sum(n) FROM big GROUP BY host';
  const names = (await s.ok(grouped)).columns;
  assert.deepEqual(names, ['host', 'count(*)', 'sum(big.n)']);
  assert.equal((await s.ok(`COPY (${grouped}) TO 'out/by_host.parquet'`)).affected, 50);
  const byHost = join(copyDir, 'out', 'by_host.parquet');
  assert.deepEqual((await readBack(`DESCRIBE SELECT * FROM read_parquet('${byHost}')`)).map((r) => r[0]), names);
  assert.deepEqual(await readBack(`SELECT sum("count(*)"), sum("sum(big.n)") FROM read_parquet('${byHost}')`), [[BigInt(BIG), BigInt(BIG_SUM_N)]]);

  // A timestamp string is read in the session's time zone, as the SELECT reads it: 2020-09-14 00:00 UTC.
  const zone = { 'x-tsdb-timezone': 'Asia/Shanghai' };
  const before = "SELECT count(*) AS c FROM big WHERE ts < '2020-09-14 08:00:00'";
  assert.deepEqual((await s.ok(before, 'public', zone)).rows, [[41_600]]);
  await s.ok(`COPY (${before}) TO 'out/before.csv' WITH (format = 'csv')`, 'public', zone);
  assert.deepEqual(await readBack(`SELECT c FROM read_csv('${join(copyDir, 'out', 'before.csv')}', header = true)`), [[41_600n]]);
  assert.deepEqual(readdirSync(join(copyDir, 'out')).sort(), ['before.csv', 'big.parquet', 'by_host.parquet', 'odd.csv.gz']);
});

test('COPY (<query>) TO stops when its statement times out or its client goes away, and leaves no file; COPY (<query>) refuses what a SELECT refuses', async (t) => {
  const copyDir = tempDir(t);
  const s = await server(t, copyDir);
  await s.ok('CREATE TABLE w (host STRING PRIMARY KEY, n BIGINT, ts TIMESTAMP TIME INDEX)');
  const values = Array.from({ length: 2000 }, (_, i) => `('h${i % 10}', ${i}, ${i * 1000})`).join(', ');
  await s.ok(`INSERT INTO w VALUES ${values}`);
  // 2000^3 rows: written for far longer than the statement may run.
  const endless = (marker: string) => `COPY (SELECT a.n AS x, b.n AS y, c.n AS z, '${marker}' AS m FROM w a, w b, w c) TO 'out/${marker}.csv' WITH (format = 'csv')`;
  const timedOut = await s.sql(endless('timed_out'), 'public', { 'x-tsdb-timeout': '1s' });
  assert.equal(timedOut.code, 1008, timedOut.error);
  await untilEnded(s, 'timed_out');

  const client = new AbortController();
  const request = fetch(`${s.baseUrl}/v1/sql?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-tsdb-timeout': '0' }, body: new URLSearchParams({ sql: endless('abandoned') }).toString(), signal: client.signal });
  // Aborted once the export is writing its file.
  const deadline = Date.now() + 30_000;
  while (!(existsSync(join(copyDir, 'out')) && readdirSync(join(copyDir, 'out')).some((f) => f.includes('abandoned')))) {
    assert.ok(Date.now() < deadline, 'the export began to write');
    await new Promise((r) => setTimeout(r, 50));
  }
  client.abort();
  await assert.rejects(request);
  await untilEnded(s, 'abandoned');
  assert.deepEqual(readdirSync(join(copyDir, 'out')), [], 'no file, whole or partial, is left');

  // The server exports on.
  assert.equal((await s.ok("COPY (SELECT host, count(*) FROM w GROUP BY host) TO 'out/after.parquet'")).affected, 10);

  // What the SELECT path refuses, COPY (<query>) refuses with the same code, and writes nothing.
  const outside = tempDir(t);
  writeFileSync(join(outside, 'secret.csv'), 'a\nSECRET\n');
  for (const query of [`SELECT * FROM read_csv('${join(outside, 'secret.csv')}')`, `SELECT content FROM read_text('${join(outside, 'secret.csv')}')`, "SELECT current_setting('allowed_directories')", 'SELECT * FROM w, (SELECT * FROM duckdb_settings())']) {
    const selected = await s.sql(query);
    assert.notEqual(selected.code, 0, query);
    const copied = await s.sql(`COPY (${query}) TO 'out/refused.csv' WITH (format = 'csv')`);
    assert.equal(copied.code, selected.code, `${query}: ${copied.error}`);
    assert.ok(!existsSync(join(copyDir, 'out', 'refused.csv')), query);
  }
  assert.deepEqual(readdirSync(join(copyDir, 'out')), ['after.parquet']);
});
