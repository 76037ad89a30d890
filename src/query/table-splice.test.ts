import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { tableRefs } from './table-refs.js';
import { spliceTableRefs } from './table-splice.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function splice(sql: string): Promise<string | undefined> {
  const tree = JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string) as unknown;
  return spliceTableRefs(sql, tableRefs(tree).map((ref) => ({ ref, relation: `SELECT 1 AS ${ref.table_name}_x` })));
}

test('table names are replaced in the text at the locations DuckDB parsed them', async () => {
  assert.equal(await splice("SELECT * FROM cpu WHERE host = 'cpu'"), 'SELECT * FROM (SELECT 1 AS cpu_x) AS "cpu" WHERE host = \'cpu\'');
  assert.equal(await splice('select cpu.x from  "cpu" c, CPU'), 'select cpu.x from  (SELECT 1 AS cpu_x) c, (SELECT 1 AS CPU_x) AS "CPU"');
  assert.equal(await splice('SELECT * FROM a JOIN b ON true WHERE x IN (SELECT y FROM "we""ird")'), 'SELECT * FROM (SELECT 1 AS a_x) AS "a" JOIN (SELECT 1 AS b_x) AS "b" ON true WHERE x IN (SELECT y FROM (SELECT 1 AS we"ird_x) AS "we""ird")');
  assert.equal(await splice('WITH c AS (SELECT * FROM t) SELECT * FROM c'), 'WITH c AS (SELECT * FROM (SELECT 1 AS t_x) AS "t") SELECT * FROM c');
});

test('qualified names, samples, non-ASCII text: left to the deserialization', async () => {
  assert.equal(await splice('SELECT * FROM public.cpu'), undefined);
  assert.equal(await splice('SELECT * FROM cpu TABLESAMPLE 10%'), undefined);
  assert.equal(await splice("SELECT 'é' FROM cpu"), undefined);
  // A location that does not hold the name.
  assert.equal(spliceTableRefs('SELECT * FROM cpu', [{ ref: { table_name: 'cpu', schema_name: '', catalog_name: '', alias: '', query_location: 0 }, relation: 'x' }]), undefined);
  assert.equal(spliceTableRefs('SELECT * FROM cpux', [{ ref: { table_name: 'cpu', schema_name: '', catalog_name: '', alias: '', query_location: 14 }, relation: 'x' }]), undefined);
});
