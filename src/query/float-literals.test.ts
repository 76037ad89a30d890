import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { floatDecimalLiterals } from './float-literals.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function rewritten(sql: string): Promise<{ changed: boolean; text: string; tree: unknown }> {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
  const changed = floatDecimalLiterals(tree);
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  return { changed, text, tree };
}

test('numbers written with a point become DOUBLEs of their text, wide ones included; integers and strings stay', async () => {
  const r = await rewritten("SELECT 1.5 + i, 0.1, -2.50, 1000000000000000.0, 12345678901234567890.123, 7, '1.5' FROM t WHERE d > 0.25");
  assert.equal(r.changed, true);
  assert.equal(r.text, "SELECT (CAST('1.5' AS DOUBLE) + i), CAST('0.1' AS DOUBLE), CAST('-2.50' AS DOUBLE), CAST('1000000000000000.0' AS DOUBLE), CAST('12345678901234567890.123' AS DOUBLE), 7, '1.5' FROM t WHERE (d > CAST('0.25' AS DOUBLE))");
  assert.equal((await rewritten("SELECT 1, 'a', 1e3, 9223372036854775807 FROM t")).changed, false);
  // Integers beyond BIGINT: UInt64 up to 2^64 - 1, else Float64 (DuckDB: HUGEINT), under a DECIMAL cast too.
  assert.equal(
    (await rewritten('SELECT 9223372036854775808, 18446744073709551616, -9223372036854775809, CAST(14751947891758972421513 AS DECIMAL(38, 0))')).text,
    "SELECT CAST('9223372036854775808' AS UBIGINT), CAST('18446744073709551616' AS DOUBLE), CAST('-9223372036854775809' AS DOUBLE), CAST(CAST('14751947891758972421513' AS DOUBLE) AS DECIMAL(38,0))",
  );
});

test('a literal cast to a DECIMAL keeps its exact digits', async () => {
  const r = await rewritten('SELECT CAST(0.1 AS DECIMAL(38, 30)), 1.25::DECIMAL(3, 2), CAST(0.5 AS VARCHAR)');
  assert.equal(r.text, "SELECT CAST(0.1 AS DECIMAL(38,30)), CAST(1.25 AS DECIMAL(3,2)), CAST(CAST('0.5' AS DOUBLE) AS VARCHAR)");
  const rows = (await conn.runAndReadAll(r.text)).getRowsJson()[0]!;
  assert.deepEqual(rows, ['0.100000000000000000000000000000', '1.25', '0.5']);
});

test('the select item stays the same object (result names hold items by identity), alias kept', async () => {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql('SELECT 2.5 AS x')`)).getRows()[0]![0] as string) as { statements: [{ node: { select_list: object[] } }] };
  const item = tree.statements[0].node.select_list[0]!;
  floatDecimalLiterals(tree);
  assert.equal(tree.statements[0].node.select_list[0], item);
  assert.equal((item as { alias: string; class: string }).alias, 'x');
  assert.equal((item as { class: string }).class, 'CAST');
  const values = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  const out = await conn.runAndReadAll(values);
  assert.deepEqual([out.getRowsJson()[0]![0], String(out.columnTypes()[0])], [2.5, 'DOUBLE']);
});
