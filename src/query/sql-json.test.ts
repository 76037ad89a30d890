import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { isLosslessNumber } from 'lossless-json';
import { quoteLiteral } from '../common/sql-quote.js';
import { integerOf, parseSqlJson, stringifySqlJson } from './sql-json.js';
import { rewriteTimeLiterals } from './time-predicates.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function roundTrip(sql: string): Promise<string> {
  const text = (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string;
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(parseSqlJson(text)))})`)).getRows()[0]![0] as string;
}

test('integers beyond 2^53 survive the parse tree exactly: BIGINT, UBIGINT and HUGEINT halves, wide DECIMALs', async () => {
  const cases: Array<[string, string]> = [
    ['SELECT 9223372036854775807', 'SELECT 9223372036854775807'],
    ['SELECT -9223372036854775808', 'SELECT -9223372036854775808'],
    ['SELECT 9007199254740993', 'SELECT 9007199254740993'],
    ['SELECT 18446744073709551615', 'SELECT 18446744073709551615'],
    ['SELECT 170141183460469231731687303715884105727', 'SELECT 170141183460469231731687303715884105727'],
    ['SELECT 123456789012345678.123', 'SELECT 123456789012345678.123'],
    ['SELECT 12345678901234567890123456789.5', 'SELECT 12345678901234567890123456789.5'],
    ['SELECT 1.7976931348623157e308, 5e-324, 0.1', 'SELECT 1.7976931348623157e+308, 5e-324, 0.1'],
  ];
  for (const [sql, expected] of cases) assert.equal(await roundTrip(sql), expected, sql);
  // And the values are what the literals say.
  const rows = (await conn.runAndReadAll(await roundTrip('SELECT 9223372036854775807 - 9223372036854775806, 18446744073709551615::UBIGINT, -9223372036854775808'))).getRows();
  assert.deepEqual(rows, [[1n, 18446744073709551615n, -9223372036854775808n]]);
});

test('parseSqlJson: plain numbers up to 2^53, lossless ones beyond; no-location query_location is 0', () => {
  const tree = parseSqlJson('{"a":9007199254740991,"b":9007199254740993,"c":1.5,"query_location":18446744073709551615,"s":"12345678901234567"}') as Record<string, unknown>;
  assert.equal(tree['a'], 9007199254740991);
  assert.ok(isLosslessNumber(tree['b']));
  assert.equal(tree['c'], 1.5);
  assert.equal(tree['query_location'], 0);
  assert.equal(tree['s'], '12345678901234567');
  assert.equal(stringifySqlJson(tree), '{"a":9007199254740991,"b":9007199254740993,"c":1.5,"query_location":0,"s":"12345678901234567"}');
  assert.equal(integerOf(tree['b']), 9007199254740993n);
  assert.equal(integerOf(7), 7n);
  assert.equal(integerOf(1.5), undefined);
  assert.equal(integerOf('x'), undefined);
});

test('an epoch beyond 2^53 compared with a nanosecond time index becomes its exact timestamp', async () => {
  const text = (await conn.runAndReadAll(`SELECT json_serialize_sql('SELECT * FROM t WHERE ts = 1700000000000000001')`)).getRows()[0]![0] as string;
  const tree = parseSqlJson(text);
  rewriteTimeLiterals(tree, new Map([['ts', 'ns' as const]]));
  const sql = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  assert.equal(sql, 'SELECT * FROM t WHERE (ts = make_timestamp_ns(1700000000000000001))');
});

test('integral DOUBLE and FLOAT constants keep their point through the parse tree (DuckDB refuses an integer there)', async () => {
  for (const [sql, back] of [
    ['SELECT 1e3', 'SELECT 1000.0'],
    ['SELECT -2e0, 1.5e1 FROM t WHERE x > 1e10', 'SELECT -2.0, 15.0 FROM t WHERE (x > 10000000000.0)'],
    ['SELECT 1e300', 'SELECT 1e+300'],
  ] as const) {
    assert.equal(await roundTrip(sql), back, sql);
  }
});
