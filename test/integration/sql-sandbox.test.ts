/**
 * User SQL cannot reach outside the database. An attack matrix: statements that read files, reach
 * the network, read or change DuckDB's settings, or run DuckDB's own file- and settings-statements,
 * plainly and hidden inside other statements, each over HTTP, MySQL and PostgreSQL, as anyone (a
 * server without a user provider) and as a read-write, a read-only and a write-only user (a server
 * with one). Every attack is refused — with a permission error (7006) where the attack reaches
 * outside — no response holds a secret, no file appears where a statement would write, and no
 * connection reaches the listener the network attacks name. Afterwards the engine's own file access
 * still works: flush, compaction, and queries served from the SST Parquet files.
 *
 * No spill check here: spilling under a small `query.memory_pool_size` is tested in
 * test/integration/query-budget.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { HTTP_STATUS, StatusCode } from '../../src/common/error/status-code.js';
import { httpClient, mysqlClient, pgClient, PROTOCOLS, receivedStrings, type Credentials, type Outcome, type Protocol, type SqlClient } from '../support/sql-clients.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

/**
 * What an attack must get back (besides: no leak, no file, no connection, never a 5xx or 1000/1003):
 * - `permission`: 7006 PermissionDenied — HTTP 403 `{"code":7006}`, MySQL 1045 (28000), PostgreSQL 42501;
 * - `permission_or_not_found`: that, or 4001 TableNotFound (a path used as a table name);
 * - `refused`: any error of the client's class (HTTP 4xx).
 */
type Expect = 'permission' | 'permission_or_not_found' | 'refused';

interface Attack {
  readonly name: string;
  /** With placeholders: see `ATTACKS`. */
  readonly sql: string;
  readonly expect: Expect;
  /** Over PostgreSQL, where it differs (`current_setting` is PostgreSQL's there: tsdb's pg_settings, an error for other names). */
  readonly postgres?: Expect;
}

/**
 * Placeholders: `{secret}` a text file holding the secret marker, `{secret_csv}` and `{secret_json}`
 * likewise, all in `{secret_dir}` (with `import/`, a database export whose schema.sql reads
 * `{secret}`); `{home_secret}` a file holding the marker inside the server's data home; `{sst}` the
 * SST Parquet file of table `t`; `{port}` a listener's port; `{out}` an empty directory that must
 * stay empty.
 */
const ATTACKS: readonly Attack[] = [
  // Table functions reading files.
  { name: 'read_text of a secret file', sql: "SELECT content FROM read_text('{secret}')", expect: 'permission' },
  { name: 'read_text of /etc/hostname', sql: "SELECT content FROM read_text('/etc/hostname')", expect: 'permission' },
  { name: 'read_text of /proc/self/environ', sql: "SELECT content FROM read_text('/proc/self/environ')", expect: 'permission' },
  { name: 'read_text of a file in the data home', sql: "SELECT content FROM read_text('{home_secret}')", expect: 'permission' },
  { name: 'read_text of a file:// URL', sql: "SELECT content FROM read_text('file://{secret}')", expect: 'permission' },
  { name: 'read_text of a glob pattern', sql: "SELECT content FROM read_text('{secret_dir}/*.txt')", expect: 'permission' },
  { name: 'read_blob of /etc/passwd', sql: "SELECT content FROM read_blob('/etc/passwd')", expect: 'permission' },
  { name: 'read_csv of /etc/passwd', sql: "SELECT * FROM read_csv('/etc/passwd', delim = '|', header = false)", expect: 'permission' },
  { name: 'read_csv_auto', sql: "SELECT * FROM read_csv_auto('{secret_csv}')", expect: 'permission' },
  { name: 'read_json', sql: "SELECT * FROM read_json('{secret_json}')", expect: 'permission' },
  { name: 'read_json_auto', sql: "SELECT * FROM read_json_auto('{secret_json}')", expect: 'permission' },
  { name: 'read_ndjson', sql: "SELECT * FROM read_ndjson('{secret_json}')", expect: 'permission' },
  { name: 'read_json_objects', sql: "SELECT * FROM read_json_objects('{secret_json}')", expect: 'permission' },
  { name: "read_parquet of the table's own SST file", sql: "SELECT * FROM read_parquet('{sst}')", expect: 'permission' },
  { name: 'parquet_scan (read_parquet alias) of the SST file', sql: "SELECT * FROM parquet_scan('{sst}')", expect: 'permission' },
  { name: 'parquet_metadata', sql: "SELECT * FROM parquet_metadata('{sst}')", expect: 'permission' },
  { name: 'parquet_schema', sql: "SELECT * FROM parquet_schema('{sst}')", expect: 'permission' },
  { name: 'parquet_kv_metadata', sql: "SELECT * FROM parquet_kv_metadata('{sst}')", expect: 'permission' },
  { name: 'glob', sql: "SELECT * FROM glob('{secret_dir}/*')", expect: 'permission' },
  { name: 'sniff_csv', sql: "SELECT * FROM sniff_csv('{secret_csv}')", expect: 'permission' },
  { name: 'query() running a read', sql: "SELECT * FROM query('SELECT content FROM read_text(''{secret}'')')", expect: 'permission' },
  { name: 'query_table of a path', sql: "SELECT * FROM query_table('{secret_csv}')", expect: 'permission' },
  { name: 'json_execute_serialized_sql', sql: "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT content FROM read_text(''{secret}'')'))", expect: 'permission' },
  // Table functions showing or changing the engine.
  { name: 'duckdb_settings()', sql: 'SELECT * FROM duckdb_settings()', expect: 'permission' },
  { name: 'duckdb_extensions()', sql: 'SELECT * FROM duckdb_extensions()', expect: 'permission' },
  { name: 'duckdb_secrets()', sql: 'SELECT * FROM duckdb_secrets()', expect: 'permission' },
  { name: 'duckdb_temporary_files()', sql: 'SELECT * FROM duckdb_temporary_files()', expect: 'permission' },
  { name: 'duckdb_databases()', sql: 'SELECT * FROM duckdb_databases()', expect: 'permission' },
  { name: 'duckdb_logs()', sql: 'SELECT * FROM duckdb_logs()', expect: 'permission' },
  { name: 'pragma_database_size()', sql: 'SELECT * FROM pragma_database_size()', expect: 'permission' },
  { name: 'enable_logging()', sql: 'SELECT * FROM enable_logging()', expect: 'permission' },
  { name: 'checkpoint()', sql: 'SELECT * FROM checkpoint()', expect: 'permission' },
  // Scalar functions reading settings.
  { name: "current_setting('enable_external_access')", sql: "SELECT current_setting('enable_external_access')", expect: 'permission', postgres: 'refused' },
  { name: "current_setting('temp_directory')", sql: "SELECT current_setting('temp_directory')", expect: 'permission', postgres: 'refused' },
  // The network.
  { name: 'read_text of http://', sql: "SELECT content FROM read_text('http://127.0.0.1:{port}/x')", expect: 'permission' },
  { name: 'read_csv of https://', sql: "SELECT * FROM read_csv('https://127.0.0.1:{port}/x.csv')", expect: 'permission' },
  { name: 'read_parquet of s3://', sql: "SELECT * FROM read_parquet('s3://bucket/x.parquet')", expect: 'permission' },
  // DuckDB statements reaching files, extensions and settings.
  { name: 'COPY a table TO a file', sql: "COPY t TO '{out}/x.csv'", expect: 'permission' },
  // DuckDB's spelling of COPY options is no tsdb syntax: refused before any path is looked at.
  { name: "COPY a query TO a Parquet file (DuckDB's options)", sql: "COPY (SELECT 1) TO '{out}/x.parquet' (FORMAT parquet)", expect: 'refused' },
  { name: 'COPY a query TO a Parquet file', sql: "COPY (SELECT 1) TO '{out}/x.parquet' WITH (format = 'parquet')", expect: 'permission' },
  { name: 'COPY a read TO a file', sql: "COPY (SELECT content FROM read_text('{secret}')) TO '{out}/leak.csv'", expect: 'permission' },
  { name: 'COPY a table FROM a file', sql: "COPY t FROM '/etc/hostname'", expect: 'permission' },
  // COPY is tsdb's own statement; its files stay in the copy directory and its query in the sandbox.
  { name: 'COPY a table TO .. of the copy directory', sql: "COPY t TO '../x.csv' WITH (format = 'csv')", expect: 'permission' },
  { name: 'COPY a table FROM a secret file', sql: "COPY t FROM '{secret_csv}' WITH (format = 'csv')", expect: 'permission' },
  { name: 'COPY a table FROM a file:// URL', sql: "COPY t FROM 'file://{secret_csv}' WITH (format = 'csv')", expect: 'permission' },
  { name: 'COPY DATABASE TO a directory outside', sql: "COPY DATABASE public TO '{out}/db/'", expect: 'permission' },
  { name: 'COPY DATABASE FROM a directory outside', sql: "COPY DATABASE public FROM '{secret_dir}/'", expect: 'permission' },
  { name: 'COPY a read into the copy directory', sql: "COPY (SELECT content FROM read_text('{secret}')) TO 'leak.csv' WITH (format = 'csv')", expect: 'permission' },
  { name: 'ATTACH a database file', sql: "ATTACH '{out}/x.db' AS x", expect: 'permission' },
  { name: 'DETACH', sql: 'DETACH x', expect: 'permission' },
  { name: 'INSTALL httpfs', sql: 'INSTALL httpfs', expect: 'permission' },
  { name: 'FORCE INSTALL httpfs', sql: 'FORCE INSTALL httpfs', expect: 'permission' },
  { name: 'LOAD httpfs', sql: 'LOAD httpfs', expect: 'permission' },
  { name: 'LOAD a file as an extension', sql: "LOAD '{secret}'", expect: 'permission' },
  { name: 'SET enable_external_access', sql: 'SET enable_external_access = true', expect: 'permission' },
  { name: 'SET GLOBAL enable_external_access', sql: 'SET GLOBAL enable_external_access = true', expect: 'permission' },
  { name: 'SET allowed_directories', sql: "SET allowed_directories = ['/']", expect: 'permission' },
  { name: 'SET lock_configuration', sql: 'SET lock_configuration = false', expect: 'permission' },
  { name: 'SET temp_directory', sql: "SET temp_directory = '{out}'", expect: 'permission' },
  { name: 'RESET lock_configuration', sql: 'RESET lock_configuration', expect: 'permission' },
  { name: 'PRAGMA enable_profiling', sql: 'PRAGMA enable_profiling', expect: 'permission' },
  { name: 'PRAGMA profiling_output to a file', sql: "PRAGMA profiling_output = '{out}/profile.txt'", expect: 'permission' },
  { name: 'PRAGMA database_list', sql: 'PRAGMA database_list', expect: 'permission' },
  { name: 'CALL pragma_version()', sql: 'CALL pragma_version()', expect: 'permission' },
  { name: 'CALL enable_logging()', sql: 'CALL enable_logging()', expect: 'permission' },
  { name: 'CALL read_text', sql: "CALL read_text('{secret}')", expect: 'permission' },
  { name: 'EXPORT DATABASE', sql: "EXPORT DATABASE '{out}/export'", expect: 'permission' },
  { name: 'IMPORT DATABASE', sql: "IMPORT DATABASE '{secret_dir}/import'", expect: 'permission' },
  { name: 'CREATE SECRET', sql: "CREATE SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')", expect: 'permission' },
  { name: 'CHECKPOINT', sql: 'CHECKPOINT', expect: 'permission' },
  { name: 'FORCE CHECKPOINT', sql: 'FORCE CHECKPOINT', expect: 'permission' },
  { name: 'CREATE MACRO', sql: 'CREATE MACRO m() AS 1', expect: 'refused' },
  { name: 'CREATE VIEW over a read', sql: "CREATE VIEW v AS SELECT * FROM read_text('{secret}')", expect: 'refused' },
  { name: 'CREATE TABLE AS a read', sql: "CREATE TABLE leak AS SELECT content FROM read_text('{secret}')", expect: 'refused' },
  { name: 'PREPARE a read', sql: "PREPARE p AS SELECT content FROM read_text('{secret}')", expect: 'refused' },
  { name: 'SET VARIABLE to a read', sql: "SET VARIABLE x = (SELECT content FROM read_text('{secret}'))", expect: 'refused' },
  { name: 'SUMMARIZE a read', sql: "SUMMARIZE SELECT content FROM read_text('{secret}')", expect: 'refused' },
  { name: 'DESCRIBE a read', sql: "DESCRIBE SELECT content FROM read_text('{secret}')", expect: 'refused' },
  { name: 'FROM-first read', sql: "FROM read_text('{secret}')", expect: 'refused' },
  // Reads hidden inside other statements and spellings.
  { name: 'read in a CTE', sql: "WITH s AS (SELECT content FROM read_text('{secret}')) SELECT * FROM s", expect: 'permission' },
  { name: 'read in a WHERE subquery', sql: "SELECT count(*) AS n FROM t WHERE host IN (SELECT content FROM read_text('{secret}'))", expect: 'permission' },
  { name: 'read in a scalar subquery', sql: "SELECT (SELECT content FROM read_text('{secret}')) AS c", expect: 'permission' },
  { name: 'read in a LATERAL join', sql: "SELECT f.content FROM t, LATERAL (SELECT content FROM read_text('{secret}')) f", expect: 'permission' },
  { name: 'read in a join', sql: "SELECT r.content FROM t JOIN read_text('{secret}') r ON true", expect: 'permission' },
  { name: 'read in a UNION branch', sql: "SELECT host FROM t WHERE false UNION ALL SELECT content FROM read_text('{secret}')", expect: 'permission' },
  { name: 'read under a cast', sql: "SELECT (SELECT content FROM read_text('{secret}'))::VARCHAR AS c", expect: 'permission' },
  { name: 'read of a computed path', sql: "SELECT content FROM read_text(concat('{secret_dir}', '/secret.txt'))", expect: 'permission' },
  { name: 'path as a table name (string)', sql: "SELECT * FROM '{secret_csv}'", expect: 'permission_or_not_found' },
  { name: 'path as a table name (identifier)', sql: 'SELECT * FROM "{secret_csv}"', expect: 'permission_or_not_found' },
  { name: 'SST path as a table name', sql: "SELECT * FROM '{sst}'", expect: 'permission_or_not_found' },
  { name: 'read with a list argument', sql: "SELECT content FROM read_text(['{secret}'])", expect: 'permission' },
  { name: 'schema-qualified read', sql: "SELECT content FROM system.main.read_text('{secret}')", expect: 'permission' },
  { name: 'upper-case READ_TEXT', sql: "SELECT CONTENT FROM READ_TEXT('{secret}')", expect: 'permission' },
  { name: 'mixed-case Read_Text', sql: "SELECT content FROM Read_Text('{secret}')", expect: 'permission' },
  { name: 'quoted "read_text"', sql: "SELECT content FROM \"read_text\"('{secret}')", expect: 'permission' },
  { name: 'comment before the arguments', sql: "SELECT content FROM read_text/**/('{secret}')", expect: 'permission' },
  { name: 'INSERT … SELECT from a read', sql: "INSERT INTO t SELECT content, now(), 1 FROM read_text('{secret}')", expect: 'refused' },
  { name: 'INSERT VALUES with a read', sql: "INSERT INTO t VALUES ((SELECT content FROM read_text('{secret}')), now(), 1)", expect: 'refused' },
  { name: 'DELETE filtered by a read', sql: "DELETE FROM t WHERE host IN (SELECT content FROM read_text('{secret}'))", expect: 'refused' },
  { name: 'DELETE that a read makes match', sql: "DELETE FROM t WHERE host IN (SELECT 'a' FROM read_text('{secret}'))", expect: 'refused' },
  { name: 'SHOW TABLES filtered by a read', sql: "SHOW TABLES WHERE Tables_in_public IN (SELECT content FROM read_text('{secret}'))", expect: 'refused' },
  { name: 'SHOW TABLES filter injection', sql: "SHOW TABLES WHERE 1=1 UNION ALL SELECT content FROM read_text('{secret}')", expect: 'refused' },
  { name: 'EXPLAIN a read', sql: "EXPLAIN SELECT content FROM read_text('{secret}')", expect: 'permission' },
  { name: 'EXPLAIN ANALYZE a read', sql: "EXPLAIN ANALYZE SELECT content FROM read_text('{secret}')", expect: 'permission' },
  { name: 'range query filtered by a read', sql: "SELECT ts, host, avg(v) RANGE '1h' FROM t WHERE host IN (SELECT content FROM read_text('{secret}')) ALIGN '1h' BY (host)", expect: 'permission' },
];

/** Statements run at once on each protocol × identity. */
const BATCH = 4;

interface Fixture {
  /** In the secret files and the data-home file. */
  readonly marker: string;
  /** In the servers' environment (what /proc/self/environ shows). */
  readonly envMarker: string;
  /** A row of table `t`, so in its SST file. */
  readonly sstMarker: string;
  readonly secretDir: string;
  readonly outRoot: string;
  readonly listener: Server;
  readonly port: number;
  readonly connections: number[];
  /** The content of /etc/hostname, when the machine has one. */
  readonly hostname: string | undefined;
  /** The first line of /etc/passwd, when it has the usual root entry. */
  readonly passwdLine: string | undefined;
}

interface Identity {
  readonly name: string;
  readonly creds?: Credentials;
}

interface TsdbUnderTest {
  readonly name: string;
  readonly started: Started;
  readonly home: string;
  readonly sst: string;
  readonly homeSecret: string;
  /** Who sets up and checks the server: anyone, or the read-write user. */
  readonly owner: Identity;
  readonly identities: readonly Identity[];
}

const ADMIN: Identity = { name: 'admin (rw)', creds: { user: 'admin', password: 'adm1n-pw' } };
const READER: Identity = { name: 'reader (ro)', creds: { user: 'reader', password: 'r3ader-pw' } };
const WRITER: Identity = { name: 'writer (wo)', creds: { user: 'writer', password: 'wr1ter-pw' } };
const ANYONE: Identity = { name: 'anyone (no user provider)' };
const USER_PROVIDER = `static_user_provider:cmd:admin=${ADMIN.creds!.password},reader:ro=${READER.creds!.password},writer:wo=${WRITER.creds!.password}`;

function randomMarker(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

async function makeFixture(t: TestContext): Promise<Fixture> {
  const marker = randomMarker('SECRETmark');
  const secretDir = tempDir(t, 'tsdb-sandbox-secret-');
  writeFileSync(join(secretDir, 'secret.txt'), marker);
  writeFileSync(join(secretDir, 'secret.csv'), `name,value\n${marker},1\n`);
  writeFileSync(join(secretDir, 'secret.json'), `{"name":"${marker}"}\n`);
  // What EXPORT DATABASE writes and IMPORT DATABASE runs: here a statement reading the secret.
  mkdirSync(join(secretDir, 'import'));
  writeFileSync(join(secretDir, 'import', 'schema.sql'), `CREATE TABLE imported AS SELECT content FROM read_text('${join(secretDir, 'secret.txt')}');\n`);
  writeFileSync(join(secretDir, 'import', 'load.sql'), '');
  const connections: number[] = [];
  const listener = createServer((socket) => {
    connections.push(Date.now());
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => listener.close(() => resolve())));
  const readIf = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  const hostname = readIf('/etc/hostname')?.trim();
  const passwdLine = readIf('/etc/passwd')?.split('\n')[0];
  return {
    marker,
    envMarker: randomMarker('ENVmark'),
    sstMarker: randomMarker('SSTmark'),
    secretDir,
    outRoot: tempDir(t, 'tsdb-sandbox-out-'),
    listener,
    port: (listener.address() as { port: number }).port,
    connections,
    hostname: hostname === '' ? undefined : hostname,
    passwdLine: passwdLine?.startsWith('root:') === true ? passwdLine : undefined,
  };
}

function expand(sql: string, f: Fixture, server: TsdbUnderTest, out: string): string {
  const vars: Record<string, string> = {
    secret: join(f.secretDir, 'secret.txt'),
    secret_csv: join(f.secretDir, 'secret.csv'),
    secret_json: join(f.secretDir, 'secret.json'),
    secret_dir: f.secretDir,
    home_secret: server.homeSecret,
    sst: server.sst,
    port: String(f.port),
    out,
  };
  return sql.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`unknown placeholder ${whole} in ${sql}`);
    return v;
  });
}

function parquetFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.parquet')).map((p) => join(dir, p));
}

function clientFor(protocol: Protocol, s: TsdbUnderTest, who: Identity, size: number): Promise<SqlClient> {
  switch (protocol) {
    case 'http':
      return Promise.resolve(httpClient(s.started.baseUrl, who.creds));
    case 'mysql':
      return mysqlClient(s.started.mysql!, who.creds, size);
    case 'postgres':
      return pgClient(s.started.postgres!, who.creds, size);
  }
}

/** Runs `sql` over HTTP as the server's owner and requires success. */
async function must(s: TsdbUnderTest, sql: string): Promise<unknown[][]> {
  const o = await httpClient(s.started.baseUrl, s.owner.creds).run(sql);
  assert.ok(o.ok, `${sql}: ${describe('http', o)}`);
  const body = (o.received as [string, { output?: Array<{ records?: { rows: unknown[][] } }> }])[1];
  return body.output?.[0]?.records?.rows ?? [];
}

async function startServer(t: TestContext, f: Fixture, name: string, withUsers: boolean): Promise<TsdbUnderTest> {
  const home = tempDir(t, 'tsdb-sandbox-home-');
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', home];
  if (withUsers) args.push('--user-provider', USER_PROVIDER);
  const started = await startTsdb(t, args, { env: { SANDBOX_TEST_ENV_MARKER: f.envMarker } });
  const owner = withUsers ? ADMIN : ANYONE;
  const partial = { name, started, home, owner, identities: withUsers ? [ADMIN, READER, WRITER] : [ANYONE], sst: '', homeSecret: '' };
  await must(partial, 'CREATE TABLE t (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)');
  await must(partial, `INSERT INTO t VALUES ('a', 1000, 1), ('${f.sstMarker}', 2000, 2)`);
  await must(partial, "ADMIN FLUSH_TABLE('t')");
  const ssts = parquetFiles(join(home, 'data'));
  assert.equal(ssts.length, 1, `one SST file of t under ${home}: ${ssts.join(', ')}`);
  const homeSecret = join(home, 'data', 'secret.txt');
  writeFileSync(homeSecret, f.marker);
  return { ...partial, sst: ssts[0]!, homeSecret };
}

// ---------------------------------------------------------------------------------------------
// Verdicts

function describe(p: Protocol, o: Outcome): string {
  const msg = o.message.length > 200 ? `${o.message.slice(0, 200)}…` : o.message;
  if (o.ok) return 'answered';
  if (o.broken === true) return `no answer: ${msg}`;
  switch (p) {
    case 'http':
      return `HTTP ${o.httpStatus} code ${o.code}: ${msg}`;
    case 'mysql':
      return `errno ${o.errno} (${o.sqlState}): ${msg}`;
    case 'postgres':
      return `SQLSTATE ${o.sqlState}: ${msg}`;
  }
}

const INTERNAL_CODES: ReadonlySet<number> = new Set([StatusCode.Unknown, StatusCode.Internal]);

/** Why the error is a server fault rather than a refusal, or undefined. */
function serverFault(p: Protocol, o: Outcome): string | undefined {
  if (o.broken === true) return 'no answer (timed out or the connection was lost)';
  if (o.code !== undefined && INTERNAL_CODES.has(o.code)) return `internal error code ${o.code}`;
  switch (p) {
    case 'http':
      if (o.httpStatus === undefined || o.httpStatus >= 500) return `HTTP ${o.httpStatus}`;
      if (o.httpStatus < 400) return `HTTP ${o.httpStatus} for an error`;
      return undefined;
    case 'mysql':
      // Every status code's message starts `(<Name>): `; without one, only the internal errno is a fault.
      if (o.code !== undefined && (HTTP_STATUS as Record<number, number>)[o.code]! >= 500) return `code ${o.code} is a server error (HTTP ${(HTTP_STATUS as Record<number, number>)[o.code]})`;
      if (o.code === undefined && o.errno === 1815) return 'ER_INTERNAL_ERROR without a status code';
      return undefined;
    case 'postgres':
      // XX000 is every internal code (1000, 1003 and the 5xx ones); P0000 (3000/3001) is checked over HTTP.
      return o.sqlState === undefined || o.sqlState.startsWith('XX') || o.sqlState.startsWith('58') ? `SQLSTATE ${o.sqlState}` : undefined;
  }
}

function isPermission(p: Protocol, o: Outcome): boolean {
  switch (p) {
    case 'http':
      return o.httpStatus === 403 && o.code === StatusCode.PermissionDenied;
    case 'mysql':
      return o.errno === 1045 && o.sqlState === '28000' && o.code === StatusCode.PermissionDenied;
    case 'postgres':
      return o.sqlState === '42501';
  }
}

function isTableNotFound(p: Protocol, o: Outcome): boolean {
  switch (p) {
    case 'http':
      return o.httpStatus === 400 && o.code === StatusCode.TableNotFound;
    case 'mysql':
      return o.errno === 1146 && o.sqlState === '42S02';
    case 'postgres':
      return o.sqlState === '42P01';
  }
}

/** Why the outcome is not what `expect` asks, or undefined. */
function wrongOutcome(expect: Expect, p: Protocol, o: Outcome): string | undefined {
  if (o.ok) return 'the statement succeeded';
  const fault = serverFault(p, o);
  if (fault !== undefined) return `a server fault (${fault}) instead of a refusal`;
  if (expect === 'permission' && !isPermission(p, o)) return 'refused, but not with a permission error (7006)';
  if (expect === 'permission_or_not_found' && !isPermission(p, o) && !isTableNotFound(p, o)) return 'refused, but neither with 7006 nor 4001';
  return undefined;
}

/** What of the secrets the client received. */
function leaks(f: Fixture, o: Outcome): string[] {
  const strings = receivedStrings(o.received);
  strings.push(o.message);
  const found: string[] = [];
  const has = (needle: string) => strings.some((s) => s.includes(needle));
  if (has(f.marker)) found.push('the secret marker');
  if (has(f.envMarker)) found.push("the server's environment");
  if (has(f.sstMarker)) found.push("the SST file's rows");
  if (f.passwdLine !== undefined && has(f.passwdLine)) found.push('/etc/passwd');
  if (f.hostname !== undefined) {
    const h = f.hostname;
    // A short host name would match too much as a substring: then only as a whole value or quoted.
    const hit = h.length >= 8 ? has(h) : strings.some((s) => s.trim() === h || s.includes(`'${h}'`) || s.includes(`"${h}"`) || s.includes(JSON.stringify(`${h}\n`)));
    if (hit) found.push('/etc/hostname');
  }
  return found;
}

interface RunSummary {
  readonly attacks: number;
  readonly refused: number;
  readonly asExpected: number;
  readonly failures: string[];
}

async function runMatrix(f: Fixture, s: TsdbUnderTest, who: Identity, protocol: Protocol): Promise<RunSummary> {
  const client = await clientFor(protocol, s, who, BATCH);
  const failures: string[] = [];
  let refused = 0;
  let asExpected = 0;
  try {
    for (let i = 0; i < ATTACKS.length; i += BATCH) {
      await Promise.all(
        ATTACKS.slice(i, i + BATCH).map(async (attack, j) => {
          const out = join(f.outRoot, `${s.name}-${who.creds?.user ?? 'anyone'}-${protocol}`, String(i + j));
          mkdirSync(out, { recursive: true });
          const o = await client.run(expand(attack.sql, f, s, out));
          const problems: string[] = [];
          const wrong = wrongOutcome(protocol === 'postgres' ? (attack.postgres ?? attack.expect) : attack.expect, protocol, o);
          if (wrong !== undefined) problems.push(wrong);
          const leaked = leaks(f, o);
          if (leaked.length > 0) problems.push(`LEAKED ${leaked.join(', ')}`);
          const written = readdirSync(out);
          if (written.length > 0) problems.push(`wrote ${written.join(', ')} in the output directory`);
          if (!o.ok) refused++;
          if (problems.length === 0) asExpected++;
          else failures.push(`  [${attack.name}] ${problems.join('; ')} — ${describe(protocol, o)}`);
        }),
      );
    }
  } finally {
    await client.close();
  }
  return { attacks: ATTACKS.length, refused, asExpected, failures };
}

/** After the attacks: t holds exactly its two rows (no INSERT or DELETE got through), no other table appeared. */
async function unchanged(f: Fixture, s: TsdbUnderTest): Promise<void> {
  const hosts = (await must(s, 'SELECT host FROM t')).map((r) => r[0]).sort();
  assert.deepEqual(hosts, ['a', f.sstMarker].sort(), 'rows of t after the attacks');
  const tables = (await must(s, 'SHOW TABLES')).map((r) => r[0]).sort();
  assert.deepEqual(tables, ['numbers', 't'], 'tables after the attacks (and the test table numbers)');
}

/** The engine's own files: INSERT, flush, compaction, and rows read back from the SST Parquet files. */
async function engineFileAccessWorks(s: TsdbUnderTest): Promise<void> {
  await must(s, 'CREATE TABLE pc (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)');
  const others = new Set(parquetFiles(join(s.home, 'data')));
  await must(s, "INSERT INTO pc VALUES ('a', 1000, 1), ('b', 3000, 2)");
  await must(s, "ADMIN FLUSH_TABLE('pc')");
  const first = parquetFiles(join(s.home, 'data')).filter((p) => !others.has(p));
  assert.equal(first.length, 1, `the flush wrote one SST: ${first.join(', ')}`);
  const regionDir = dirname(first[0]!);
  // Overlapping the first file's time range, so that compaction merges the two.
  await must(s, "INSERT INTO pc VALUES ('c', 2000, 3), ('a', 4000, 4)");
  await must(s, "ADMIN FLUSH_TABLE('pc')");
  await must(s, "ADMIN COMPACT_TABLE('pc')");
  // Merged into one file (a compaction the flush started in the background may finish the job).
  const deadline = Date.now() + 10_000;
  while (parquetFiles(regionDir).length !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(parquetFiles(regionDir).length, 1, `compaction left one SST in ${regionDir}: ${parquetFiles(regionDir).join(', ')}`);
  assert.ok(!parquetFiles(regionDir).includes(first[0]!), 'the compacted SST is a new file');
  assert.deepEqual(await must(s, 'SELECT host, ts, v FROM pc ORDER BY ts'), [['a', 1000, 1], ['c', 2000, 3], ['b', 3000, 2], ['a', 4000, 4]]);
  const plan = (await must(s, 'EXPLAIN SELECT host FROM pc')).map((r) => String(r[1])).join('\n');
  assert.match(plan, /READ_PARQUET/, 'rows come from the SST file');
  assert.doesNotMatch(plan, /memtable/i, 'no rows are left in the memtable');
}

test('user SQL cannot reach outside the database: an attack matrix over HTTP, MySQL and PostgreSQL, as each kind of user', { timeout: 180_000 }, async (t) => {
  const f = await makeFixture(t);
  const servers = [await startServer(t, f, 'open', false), await startServer(t, f, 'users', true)];
  t.diagnostic(`${ATTACKS.length} attacks × ${PROTOCOLS.length} protocols × 4 identities`);

  for (const s of servers) {
    for (const who of s.identities) {
      for (const protocol of PROTOCOLS) {
        await t.test(`${protocol} as ${who.name}: ${ATTACKS.length} attacks refused, nothing leaked or written`, async (st) => {
          const r = await runMatrix(f, s, who, protocol);
          st.diagnostic(`${protocol} as ${who.name}: ${r.attacks} attacks, ${r.refused} refused, ${r.asExpected} as expected`);
          assert.equal(r.failures.length, 0, `${r.failures.length} of ${r.attacks} attacks over ${protocol} as ${who.name} were not refused as expected:\n${r.failures.sort().join('\n')}`);
        });
      }
    }
    await t.test(`${s.name} server: the attacks changed no table`, () => unchanged(f, s));
    await t.test(`${s.name} server: the engine still flushes, compacts and reads its SST files`, () => engineFileAccessWorks(s));
  }

  await t.test('no connection reached the listener the network attacks name', () => {
    assert.equal(f.connections.length, 0, `${f.connections.length} connections to 127.0.0.1:${f.port}`);
  });
  await t.test('nothing was written under the attacks\' output directories', () => {
    const written = readdirSync(f.outRoot, { recursive: true, encoding: 'utf8' }).filter((p) => !/^[^/]+(\/\d+)?$/.test(p));
    assert.deepEqual(written, []);
  });
});
