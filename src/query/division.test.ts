import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { DIVIDE_BY_ZERO, divisionMacros, rewriteDivision } from './division.js';
import { duckdbError } from './duckdb-error.js';
import { StatusCode } from '../common/error/status-code.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
// As the query DuckDB runs (`common/duckdb-sandbox.ts`): integers divide as integers.
await conn.run('SET integer_division = true');
for (const m of divisionMacros()) await conn.run(m);

async function rewritten(sql: string): Promise<{ changed: boolean; text: string }> {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
  const changed = rewriteDivision(tree);
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  return { changed, text };
}

/** The rewritten query's single row and column types, or its error as tsdb reports it. */
async function run(sql: string): Promise<{ row: unknown[]; types: string[] } | { code: StatusCode; message: string }> {
  try {
    const r = await conn.runAndReadAll((await rewritten(sql)).text);
    return { row: r.getRowsJson()[0]!, types: r.columnTypes().map(String) };
  } catch (err) {
    const e = duckdbError(err);
    return { code: e.code, message: e.message };
  }
}

test('the user\'s /, % and mod() become the macros\' calls anywhere in the query; // and other schemas\' functions stay', async () => {
  const r = await rewritten('SELECT a / b, a % b, MOD(a, b), a // b FROM t WHERE x / 2 > (SELECT max(y % 3) FROM u) GROUP BY a / b');
  assert.equal(r.changed, true);
  assert.equal(r.text, 'SELECT __tsdb_div(a, b), __tsdb_mod(a, b), __tsdb_mod(a, b), (a // b) FROM t WHERE (__tsdb_div(x, 2) > (SELECT max(__tsdb_mod(y, 3)) FROM u)) GROUP BY __tsdb_div(a, b)');
  for (const sql of ['SELECT a // b, -a, a * b FROM t', 'SELECT s.mod(a, b) FROM t']) assert.equal((await rewritten(sql)).changed, false, sql);
});

test('integers divide truncating, keeping DuckDB\'s result type; by zero it is DataFusion\'s error (3001)', async () => {
  assert.deepEqual(await run('SELECT 7 / 2, -7 / 2, 7 % 2, -7 % 2, mod(-18, 4), CAST(7 AS BIGINT) / 2'), { row: [3, -3, 1, -1, -2, '3'], types: ['INTEGER', 'INTEGER', 'INTEGER', 'INTEGER', 'INTEGER', 'BIGINT'] });
  for (const sql of ['SELECT 7 / 0', 'SELECT 7 % 0', 'SELECT mod(18, 0)', 'SELECT count(*) / 0 FROM range(3)', 'SELECT x / y FROM (VALUES (1, 1), (2, 0)) t(x, y)']) {
    assert.deepEqual(await run(sql), { code: StatusCode.EngineExecuteQuery, message: DIVIDE_BY_ZERO }, sql);
  }
  // No row reaches the zero divisor: no error.
  assert.deepEqual(await run('SELECT count(*) FROM (VALUES (1, 1), (2, 0)) t(x, y) WHERE y != 0 AND x / y > 0'), { row: ['1'], types: ['BIGINT'] });
});

test('aggregates, subqueries, decimals, floats and strings as operands keep their DuckDB types and values', async () => {
  assert.deepEqual(await run('SELECT count(*) / 2, avg(range) / 2, sum(range) / count(*), (SELECT 9) / 2 FROM range(4)'), { row: ['2', 0.75, '1', 4], types: ['BIGINT', 'DOUBLE', 'HUGEINT', 'INTEGER'] });
  assert.deepEqual(await run("SELECT 7.5 / 2, CAST(7 AS DOUBLE) / 2, '10' / 2, CAST(7.5 AS DOUBLE) % 2"), { row: [3.75, 3.5, 5, 1.5], types: ['DOUBLE', 'DOUBLE', 'INTEGER', 'DOUBLE'] });
  // A floating-point division by zero stays DuckDB's NULL (see the module's note).
  assert.deepEqual(await run('SELECT CAST(7 AS DOUBLE) / 0, avg(range) / 0 FROM range(2)'), { row: [null, null], types: ['DOUBLE', 'DOUBLE'] });
});
