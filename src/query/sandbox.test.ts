import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { ENGINE_SETTINGS } from '../sql/engine-settings.js';
import { ALLOWED_TABLE_FUNCTIONS, checkSandbox } from './sandbox.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function parse(sql: string): Promise<unknown> {
  return JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
}

const refused = (what: RegExp) => (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PermissionDenied && what.test(err.message);

test('table functions that read files, URLs or SQL text, or show the engine, are refused wherever they hide', async () => {
  for (const [sql, name] of [
    ["SELECT * FROM read_text('/etc/passwd')", 'read_text'],
    ["SELECT * FROM READ_CSV('/etc/passwd')", 'read_csv'],
    ["SELECT * FROM system.main.read_blob('/x')", 'read_blob'],
    ["FROM read_parquet(['/a', '/b'])", 'read_parquet'],
    ["SELECT 1 WHERE 'x' IN (SELECT content FROM read_text('/x'))", 'read_text'],
    ["WITH c AS (SELECT * FROM glob('/etc/*')) SELECT * FROM c", 'glob'],
    ["SELECT (SELECT content FROM read_text('/x'))::VARCHAR", 'read_text'],
    ["SELECT * FROM range(3) r, LATERAL read_json(r.range::VARCHAR)", 'read_json'],
    ["SELECT 1 UNION ALL SELECT * FROM sniff_csv('/x')", 'sniff_csv'],
    ["SELECT * FROM query('SELECT 1')", 'query'],
    ["SELECT * FROM query_table('t')", 'query_table'],
    ["SELECT * FROM json_execute_serialized_sql('{}')", 'json_execute_serialized_sql'],
    ['SELECT * FROM duckdb_settings()', 'duckdb_settings'],
    ['SELECT * FROM enable_logging()', 'enable_logging'],
    ['SELECT * FROM checkpoint()', 'checkpoint'],
    ["SELECT * FROM parquet_metadata('/x')", 'parquet_metadata'],
  ] as const) {
    const tree = await parse(sql);
    assert.throws(() => checkSandbox(tree), refused(new RegExp(`the table function ${name} is not allowed`)), sql);
  }
});

test("scalar functions that read the engine's settings or state, and DESCRIBE/SUMMARIZE inside a query, are refused", async () => {
  for (const [sql, what] of [
    ["SELECT current_setting('temp_directory')", /the function current_setting/],
    ['SELECT current_query()', /the function current_query/],
    ["SELECT write_log('x')", /the function write_log/],
    ['SELECT setseed(0.5)', /the function setseed/],
    ['SELECT * FROM (DESCRIBE SELECT 1)', /DESCRIBE inside a query/],
    ['SELECT * FROM (SUMMARIZE SELECT 1)', /SUMMARY inside a query/],
  ] as const) {
    const tree = await parse(sql);
    assert.throws(() => checkSandbox(tree), refused(what), sql);
  }
});

test('queries that compute rows pass: allowed table functions, ordinary functions, tables', async () => {
  for (const sql of [
    'SELECT * FROM range(10)',
    'SELECT * FROM generate_series(1, 3), unnest([1, 2])',
    "SELECT * FROM json_each('{\"a\":1}')",
    'SELECT host, avg(v) FROM cpu WHERE ts > now() GROUP BY host',
    "SELECT upper('a'), strftime(now(), '%Y'), regexp_matches('a', 'a')",
  ]) {
    checkSandbox(await parse(sql));
  }
  // The allow-list holds only functions that compute from their arguments.
  for (const f of ALLOWED_TABLE_FUNCTIONS) assert.ok(!/read|scan|glob|query|parquet|csv|json_execute|duckdb|pragma/.test(f), f);
});

test("the engine settings refused by SET are exactly the pinned DuckDB's", async () => {
  const names = (await conn.runAndReadAll('SELECT lower(name) FROM duckdb_settings() ORDER BY 1')).getRows().map((r) => r[0] as string);
  assert.deepEqual([...ENGINE_SETTINGS].sort(), names, 'src/sql/engine-settings.ts must list duckdb_settings() of the pinned DuckDB');
});
