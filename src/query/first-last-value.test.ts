import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { rewriteFirstLastValue } from './first-last-value.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function rewritten(sql: string, timeIndexOf?: (table: string) => string | undefined, aggregates?: ReadonlySet<string>): Promise<{ changed: boolean; text: string }> {
  const tree = parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
  const changed = rewriteFirstLastValue(tree, timeIndexOf, aggregates);
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  return { changed, text };
}

test('aggregate first_value/last_value become DuckDB first/last with their ORDER BY, anywhere in the query', async () => {
  assert.deepEqual(await rewritten('SELECT h, last_value(v ORDER BY ts), FIRST_VALUE(v ORDER BY ts DESC) FROM t GROUP BY h'), {
    changed: true,
    text: 'SELECT h, "last"(v ORDER BY ts), "first"(v ORDER BY ts DESC) FROM t GROUP BY h',
  });
  const nested = await rewritten('SELECT * FROM (SELECT h, last_value(v ORDER BY ts) AS l FROM t GROUP BY h) HAVING 1 = 1');
  assert.match(nested.text, /"last"\(v ORDER BY ts\) AS l/);
});

test('the window forms and a function of another schema are left alone', async () => {
  for (const sql of ['SELECT last_value(v) OVER (PARTITION BY h ORDER BY ts) FROM t', 'SELECT first_value(v IGNORE NULLS) OVER (ORDER BY ts) FROM t', 'SELECT s.last_value(v) FROM t']) {
    const r = await rewritten(sql);
    assert.equal(r.changed, false, sql);
    assert.doesNotMatch(r.text, /"?\blast"?\(|"?\bfirst"?\(/, sql);
  }
});

test('DuckDB runs the rewritten aggregate with DataFusion last_value semantics: the last row by the order, NULL included', async () => {
  await conn.run("CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1, 10.0), ('a', 2, NULL), ('b', 1, 5.0), ('b', 3, 7.0)) v(h, ts, v)");
  const { text } = await rewritten('SELECT h, last_value(v ORDER BY ts) AS l, first_value(v ORDER BY ts) AS f FROM t GROUP BY h ORDER BY h');
  const rows = (await conn.runAndReadAll(text)).getRows().map(([h, l, f]) => [h, l === null ? null : Number(l), Number(f)]);
  assert.deepEqual(rows, [['a', null, 10], ['b', 7, 5]]);
});

test('the lastpoint shape (group columns and last_value calls by the time index) becomes the last row of each group: the same answers', async () => {
  const aggregates = new Set((await conn.runAndReadAll("SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")).getRows().map((r) => r[0] as string));
  const ti = (table: string) => (table === 't' ? 'ts' : undefined);
  const rows = async (text: string) => JSON.stringify((await conn.runAndReadAll(text)).getRows(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  const shapes = [
    'SELECT h, last_value(v ORDER BY ts) AS l, last_value(v * 2 ORDER BY ts) AS l2, last_value(ts ORDER BY ts) FROM t GROUP BY h ORDER BY h',
    'SELECT first_value(v ORDER BY ts DESC) AS l, h FROM t WHERE ts > 0 GROUP BY h ORDER BY h LIMIT 5',
    'SELECT h, first_value(v ORDER BY ts) AS f FROM t GROUP BY h ORDER BY h',
  ];
  for (const sql of shapes) {
    const r = await rewritten(sql, ti, aggregates);
    assert.match(r.text, /QUALIFY \(row_number\(\) OVER \(PARTITION BY h ORDER BY ts (ASC|DESC)\) = 1\)/, sql);
    assert.doesNotMatch(r.text, /GROUP BY|"last"|"first"/, sql);
    assert.equal(await rows(r.text), await rows((await rewritten(sql)).text), sql);
  }
  assert.match((await rewritten(shapes[1]!, ti, aggregates)).text, /ORDER BY ts DESC\) = 1/);
  // Not the shape: first and last mixed, another order, another aggregate, HAVING, no GROUP BY, a join, another table, an item not grouped.
  for (const other of [
    'SELECT h, last_value(v ORDER BY ts), first_value(v ORDER BY ts) FROM t GROUP BY h',
    'SELECT h, last_value(v ORDER BY v) FROM t GROUP BY h',
    'SELECT h, last_value(v ORDER BY ts), count(*) FROM t GROUP BY h',
    'SELECT h, last_value(v ORDER BY ts) FROM t GROUP BY h HAVING count(*) > 1',
    'SELECT last_value(v ORDER BY ts) FROM t',
    'SELECT t.h, last_value(v ORDER BY ts) FROM t JOIN u USING (h) GROUP BY t.h',
    'SELECT h, last_value(v ORDER BY ts) FROM u GROUP BY h',
    'SELECT h, ts, last_value(v ORDER BY ts) FROM t GROUP BY h',
  ]) {
    const r = await rewritten(other, ti, aggregates);
    assert.doesNotMatch(r.text, /QUALIFY/, other);
  }
});
