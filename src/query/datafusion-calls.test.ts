import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { rewriteDataFusionCalls } from './datafusion-calls.js';
import { duckTypeOfArrow } from './arrow-type-names.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function rewritten(sql: string): Promise<string> {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
  rewriteDataFusionCalls(tree, sql);
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
}

test('~, !~, ~* and !~* search (regexp_matches); a regexp_full_match called by name stays', async () => {
  assert.equal(await rewritten("SELECT a ~ 'x', a !~ 'y', a ~* 'z', a !~* 'w', regexp_full_match(a, 'v') FROM t"), "SELECT regexp_matches(a, 'x'), (NOT regexp_matches(a, 'y')), regexp_matches(a, 'z', 'i'), (NOT regexp_matches(a, 'w', 'i')), regexp_full_match(a, 'v') FROM t");
  const rows = (await conn.runAndReadAll(await rewritten("SELECT 'hello123' ~ '\\d+', 'hello' !~ '\\d+', 'HELLO' ~* 'hel', 'HELLO' !~* 'hel'"))).getRows()[0];
  assert.deepEqual(rows, [true, true, true, false]);
});

test('arrow_cast becomes a CAST to the DuckDB type of the Arrow type named; an unknown name stays a call', async () => {
  assert.equal(await rewritten("SELECT arrow_cast(x, 'UInt8'), arrow_cast(y, 'Decimal128(10, 2)'), arrow_cast(z, 'Timestamp(Millisecond, None)'), arrow_cast(w, 'Nope') FROM t"), "SELECT CAST(x AS UTINYINT), CAST(y AS DECIMAL(10,2)), CAST(z AS TIMESTAMP_MS), arrow_cast(w, 'Nope') FROM t");
  assert.equal(duckTypeOfArrow('Decimal128(39, 2)'), undefined);
  assert.equal(duckTypeOfArrow('Utf8'), 'VARCHAR');
});
