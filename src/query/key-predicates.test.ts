import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { keyConditionsOf, keyValuesOf } from './key-predicates.js';
import { tableRefs } from './table-refs.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function keys(sql: string, columns: readonly string[] = ['host', 'dc', 'k']): Promise<Record<string, readonly unknown[]> | undefined> {
  const tree = JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string) as unknown;
  const found = keyValuesOf(tree, tableRefs(tree)[0]!, columns);
  return found === undefined ? undefined : Object.fromEntries(found);
}

test('equality and IN with literals on key columns, joined by AND, narrow the scan', async () => {
  assert.deepEqual(await keys("SELECT * FROM t WHERE host = 'a' AND ts = 5"), { host: ['a'] });
  assert.deepEqual(await keys("SELECT * FROM t WHERE 'a' = t.host AND dc IN ('x', 'y', 'x') AND k = 7"), { host: ['a'], dc: ['x', 'y'], k: [7n] });
  assert.deepEqual(await keys("SELECT * FROM t AS u WHERE u.host = 'a'::VARCHAR AND k IN (1, -2)"), { host: ['a'], k: [1n, -2n] });
  // Two terms on one column intersect.
  assert.deepEqual(await keys("SELECT * FROM t WHERE host IN ('a', 'b') AND host = 'b'"), { host: ['b'] });
  assert.deepEqual(await keys("SELECT * FROM t WHERE host = 'a' AND host = 'b'"), { host: [] });
  // In a subquery or CTE, the WHERE of the SELECT reading the table counts.
  assert.deepEqual(await keys("WITH c AS (SELECT * FROM t WHERE host = 'a') SELECT * FROM c WHERE v > 1"), { host: ['a'] });
});

test('anything else leaves the scan whole', async () => {
  for (const sql of [
    "SELECT * FROM t WHERE host = 'a' OR host = 'b'",
    "SELECT * FROM t WHERE NOT (host = 'a')",
    "SELECT * FROM t WHERE host <> 'a' AND host > 'a' AND host LIKE 'a%' AND host IS NULL",
    "SELECT * FROM t WHERE host = NULL AND host IN ('a', NULL)",
    "SELECT * FROM t WHERE host = dc AND host = upper('a') AND host = 'a' COLLATE nocase",
    "SELECT * FROM t WHERE v = 1 AND field = 'a'",
    "SELECT * FROM t WHERE k = '5'::INTEGER AND k = 5.0 AND host = 5::VARCHAR",
    "SELECT * FROM t WHERE other.host = 'a'",
    "SELECT * FROM t JOIN u ON true WHERE host = 'a'",
    "SELECT * FROM t WHERE host = 'a' AND host = 5",
    "SELECT * FROM (SELECT * FROM t) WHERE host = 'a'",
    "SELECT * FROM t WHERE host = 'a'",
  ]) {
    assert.equal(await keys(sql, sql === "SELECT * FROM t WHERE host = 'a'" ? [] : ['host', 'dc', 'k']), undefined, sql);
  }
});

async function conditions(sql: string, columns: readonly string[] = ['host', 'dc', 'k']): Promise<Record<string, readonly unknown[]> | undefined> {
  const tree = JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string) as unknown;
  const found = keyConditionsOf(tree, tableRefs(tree)[0]!, columns);
  return found === undefined ? undefined : Object.fromEntries(found);
}

test('!=, NOT IN, regex and LIKE terms on key columns, joined by AND, are conditions an index may use', async () => {
  assert.deepEqual(await conditions("SELECT * FROM t WHERE host != 'a' AND 'b' <> dc AND k NOT IN (1, 2) AND ts > 5"), {
    host: [{ kind: 'not_in', values: ['a'] }],
    dc: [{ kind: 'not_in', values: ['b'] }],
    k: [{ kind: 'not_in', values: [1n, 2n] }],
  });
  assert.deepEqual(await conditions("SELECT * FROM t WHERE regexp_matches(host, '^h1') AND host ~ 'h.*' AND NOT regexp_matches(t.host, 'x') AND host !~ 'y'"), {
    host: [
      { kind: 'regex', pattern: '^h1', full: false, negated: false },
      { kind: 'regex', pattern: 'h.*', full: true, negated: false },
      { kind: 'regex', pattern: 'x', full: false, negated: true },
      { kind: 'regex', pattern: 'y', full: true, negated: true },
    ],
  });
  assert.deepEqual(await conditions("SELECT * FROM t WHERE host LIKE 'a%' AND dc NOT LIKE '_b' AND NOT (k LIKE 'x')"), {
    host: [{ kind: 'like', pattern: 'a%', negated: false }],
    dc: [{ kind: 'like', pattern: '_b', negated: true }],
    k: [{ kind: 'like', pattern: 'x', negated: true }],
  });
});

test('conditions: anything else is left to DuckDB alone', async () => {
  for (const sql of [
    "SELECT * FROM t WHERE host != 'a' OR dc != 'b'",
    "SELECT * FROM t WHERE NOT (host != 'a')",
    "SELECT * FROM t WHERE regexp_matches(host, 'a', 'i') AND regexp_matches(host, dc) AND regexp_matches(upper(host), 'A')",
    "SELECT * FROM t WHERE host ILIKE 'a%' AND host NOT IN ('a', NULL) AND k NOT IN (1, 'a')",
    "SELECT * FROM t WHERE v != 1 AND regexp_matches(field, 'a')",
    "SELECT * FROM t JOIN u ON true WHERE host != 'a'",
  ]) {
    assert.equal(await conditions(sql), undefined, sql);
  }
});
