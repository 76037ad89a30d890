import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { rewriteDecimalArithmetic } from './decimal-arithmetic.js';
import { divisionMacros, rewriteDivision } from './division.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run("CREATE TABLE t AS SELECT CAST('99000000000000000.0' AS DECIMAL(18, 1)) AS d, CAST('1.25' AS DECIMAL(10, 2)) AS p, 3 AS i, 2.5::DOUBLE AS f");
const DECIMALS = new Map([
  ['d', { precision: 18, scale: 1 }],
  ['p', { precision: 10, scale: 2 }],
]);

async function rewritten(sql: string): Promise<{ changed: boolean; text: string }> {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
  rewriteDivision(tree);
  const changed = rewriteDecimalArithmetic(tree, DECIMALS);
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  return { changed, text };
}

async function typesAndRow(sql: string): Promise<{ types: string[]; row: unknown[] }> {
  const r = await conn.runAndReadAll((await rewritten(sql)).text);
  return { types: r.columnTypes().map(String), row: r.getRowsJson()[0]! };
}

test('decimal +, - and * are typed as DataFusion types them, without DuckDB\'s overflow', async () => {
  assert.deepEqual(await typesAndRow('SELECT 2 * d, d + 1, d - d, -d * 3, p * p, p + d, (p + 1) * 2 FROM t'), {
    types: ['DECIMAL(38,1)', 'DECIMAL(22,1)', 'DECIMAL(19,1)', 'DECIMAL(38,1)', 'DECIMAL(21,4)', 'DECIMAL(20,2)', 'DECIMAL(38,2)'],
    row: ['198000000000000000.0', '99000000000000001.0', '0.0', '-297000000000000000.0', '1.5625', '99000000000000001.25', '4.50'],
  });
});

test('decimal division is Arrow\'s: scale s1 + 4, precision p1 - s1 + s2 + scale, truncated and exact; by zero an error', async () => {
  await conn.run(`CREATE OR REPLACE MACRO __tsdb_div(a, b) AS a / b`);
  for (const m of divisionMacros()) await conn.run(m);
  assert.deepEqual(await typesAndRow('SELECT p / p, p / 3, 2 / p, d / p FROM t'), {
    types: ['DECIMAL(16,6)', 'DECIMAL(14,6)', 'DECIMAL(26,4)', 'DECIMAL(24,5)'],
    row: ['1.000000', '0.416666', '1.6000', '79200000000000000.00000'],
  });
  await assert.rejects(conn.runAndReadAll((await rewritten('SELECT p / (p - p) FROM t')).text), /Divide by zero error/);
});

test('ceil and floor keep a decimal\'s type', async () => {
  assert.deepEqual(await typesAndRow("SELECT ceil(p), floor(-p), ceil(CAST('10.5' AS DECIMAL(38, 10))) FROM t"), {
    types: ['DECIMAL(10,2)', 'DECIMAL(10,2)', 'DECIMAL(38,10)'],
    row: ['2.00', '-2.00', '11.0000000000'],
  });
});

test('integer arithmetic, floats, integer columns and decimal division keep DuckDB\'s types', async () => {
  for (const sql of ['SELECT 1 + 2, i * 2 FROM t', 'SELECT p * f, p * i FROM t', 'SELECT p % 2 FROM t']) assert.equal((await rewritten(sql)).changed, false, sql);
  // Arithmetic within other expressions and clauses is reached too.
  const r = await rewritten('SELECT sum(p * 2) FROM t WHERE p + 1 > 0 GROUP BY i HAVING max(d - 1) > 0');
  assert.equal(r.changed, true);
  assert.equal(r.text.match(/AS DECIMAL\(38,/g)?.length, 6, r.text);
});
