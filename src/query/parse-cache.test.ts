import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { ParseCache, shapeOf } from './parse-cache.js';
import { parseSqlJson } from './sql-json.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

let calls = 0;
async function serialize(sql: string): Promise<string> {
  calls++;
  return (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string;
}

/** DuckDB's own parse of `sql`, as runQuery reads it. */
async function fresh(sql: string): Promise<unknown> {
  return parseSqlJson(await serialize(sql));
}

test('a shape is the text without its strings and integers; the integer kind is part of it', () => {
  const a = shapeOf("SELECT v FROM m WHERE host = 'h1' AND ts = 1000 LIMIT 5")!;
  const b = shapeOf("SELECT v FROM m WHERE host = 'host''s 22' AND ts = 99 LIMIT 7")!;
  assert.equal(a.key, b.key);
  assert.deepEqual(
    b.literals.map((l) => l.value),
    ["host's 22", 99n, 7n],
  );
  assert.deepEqual(b.literals[0], { start: 29, end: 41, value: "host's 22" });
  // INTEGER and BIGINT literals parse to different constants; beyond 2^53 the digits stay in the shape.
  assert.notEqual(shapeOf('SELECT 1')!.key, shapeOf('SELECT 3000000000')!.key);
  assert.equal(shapeOf('SELECT 3000000000')!.key, shapeOf('SELECT 4000000000')!.key);
  assert.notEqual(shapeOf('SELECT 9007199254740993')!.key, shapeOf('SELECT 9007199254740995')!.key);
  // Decimals, exponents and names with digits stay as written.
  assert.notEqual(shapeOf('SELECT 1.5')!.key, shapeOf('SELECT 2.5')!.key);
  assert.notEqual(shapeOf('SELECT 1e3')!.key, shapeOf('SELECT 2e3')!.key);
  assert.equal(shapeOf('SELECT t1.c2 FROM t1')!.literals.length, 0);
  assert.equal(shapeOf('SELECT "a""1" FROM t')!.literals.length, 0);
});

test('texts whose literals are not certain are not taken apart', () => {
  for (const sql of ["SELECT E'a\\n'", "SELECT X'ff'", "SELECT U&'d0061'", 'SELECT 1 -- c', 'SELECT /* c */ 1', 'SELECT $$a$$', 'SELECT $1', "SELECT 'a' 'b'", "SELECT 'a'\n'b'", "SELECT 'é'", "SELECT 'unterminated", 'SELECT 1a']) {
    assert.equal(shapeOf(sql), undefined, sql);
  }
});

test('a tree from the cache is the tree DuckDB gives the text, and DuckDB is not asked again', async () => {
  const cache = new ParseCache();
  const pairs: Array<[string, string]> = [
    ["SELECT v FROM m WHERE host = 'h1' AND ts = 1000", "SELECT v FROM m WHERE host = 'a much longer host name' AND ts = 1451606400"],
    ["SELECT * FROM cpu WHERE hostname = 'host_1' AND ts >= '2016-01-01 00:00:00' AND ts < '2016-01-01 01:00:00' ORDER BY ts LIMIT 10", "SELECT * FROM cpu WHERE hostname = 'host_1234' AND ts >= '2016-01-02 00:00:00' AND ts < '2016-01-02 12:00:00' ORDER BY ts LIMIT 100000"],
    ["SELECT date_trunc('minute', ts) AS m, max(v) FROM t WHERE ts > now() - INTERVAL '1 hour' AND h IN ('a', 'b', 'c') GROUP BY 1 ORDER BY 1", "SELECT date_trunc('hour', ts) AS m, max(v) FROM t WHERE ts > now() - INTERVAL '15 minutes' AND h IN ('aa', 'bbb', '') GROUP BY 1 ORDER BY 1"],
    ["SELECT TIMESTAMP '2020-01-01 00:00:00', DATE '2020-01-01', 'x'::VARCHAR, CAST('5' AS INTEGER)", "SELECT TIMESTAMP '2021-12-31 23:59:59', DATE '1999-01-01', 'yy'::VARCHAR, CAST('12345' AS INTEGER)"],
    ["SELECT a FROM (SELECT 1 AS a, 'q' AS b UNION ALL SELECT 2, 'r') s WHERE b LIKE 'q%' OFFSET 1", "SELECT a FROM (SELECT 100 AS a, 'qqq' AS b UNION ALL SELECT 20000, 'r''r') s WHERE b LIKE '%r%' OFFSET 12"],
    ['SELECT 3000000000 + 1', 'SELECT 5000000000 + 22'],
    ["SELECT h, count(*) FROM t WHERE v BETWEEN 10 AND 20 AND h <> 'z' GROUP BY h HAVING count(*) > 3", "SELECT h, count(*) FROM t WHERE v BETWEEN 1000 AND 2 AND h <> 'zzzzzz' GROUP BY h HAVING count(*) > 30"],
  ];
  for (const [first, second] of pairs) {
    assert.deepEqual(await cache.parse(first, serialize), await fresh(first), first);
    const expected = await fresh(second);
    calls = 0;
    assert.deepEqual(await cache.parse(second, serialize), expected, second);
    assert.equal(calls, 0, `${second}: from the cache`);
    // Each use gets its own tree.
    const again = (await cache.parse(second, serialize)) as Record<string, unknown>;
    again['error'] = 'changed';
    assert.deepEqual(await cache.parse(second, serialize), expected);
  }
});

test('shapes whose literals are not plain constants are parsed every time, and right', async () => {
  const cache = new ParseCache();
  // `-5` is a negative constant, not the integer 5 at its offset; a DECIMAL(10, 2) type's numbers are not constants.
  for (const [first, second] of [
    ['SELECT -5', 'SELECT -7'],
    ['SELECT CAST(v AS DECIMAL(10, 2)) FROM t', 'SELECT CAST(v AS DECIMAL(12, 3)) FROM t'],
  ] as const) {
    assert.deepEqual(await cache.parse(first, serialize), await fresh(first));
    calls = 0;
    const tree = await cache.parse(second, serialize);
    assert.equal(calls, 1, second);
    assert.deepEqual(tree, await fresh(second));
  }
  // A text that does not parse is never kept: its error names its own text.
  const bad = (await cache.parse("SELEC 'a'", serialize)) as { error: boolean };
  assert.equal(bad.error, true);
  calls = 0;
  const other = (await cache.parse("SELEC 'b'", serialize)) as { error: boolean; error_message: string };
  assert.equal(calls, 1);
  assert.equal(other.error, true);
});

test('the cache keeps at most its number of shapes, the least recently used leaving first', async () => {
  const cache = new ParseCache(3);
  for (const t of ['a', 'b', 'c']) await cache.parse(`SELECT 1 AS ${t}`, serialize);
  await cache.parse('SELECT 2 AS a', serialize);
  await cache.parse('SELECT 1 AS d', serialize);
  assert.equal(cache.size, 3);
  calls = 0;
  await cache.parse('SELECT 5 AS a', serialize);
  assert.equal(calls, 0, 'a was used last but one: kept');
  await cache.parse('SELECT 5 AS b', serialize);
  assert.equal(calls, 1, 'b was the least recently used: gone');
  // And at most its characters: a tree larger than the budget is not kept at all.
  const small = new ParseCache(100, 16 * 1024, 2000);
  await small.parse(`SELECT ${Array.from({ length: 40 }, (_, i) => `c${i}`).join(', ')} FROM t WHERE a = 1`, serialize);
  assert.equal(small.size, 0);
  await small.parse('SELECT 1', serialize);
  assert.equal(small.size, 1);
});

test('random values in one shape: every cached tree equals DuckDB parse', async () => {
  const cache = new ParseCache();
  const words = ['', 'a', "it''s", 'host_0001', '2016-01-01 00:00:00', '%x%', 'longer text with spaces'];
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 60; i++) {
    const w = () => words[next(words.length)]!;
    const n = () => String(next(2) === 0 ? next(100) : next(2 ** 31 - 1));
    const sql = `SELECT '${w()}' AS s, ${n()} + x FROM t WHERE a = '${w()}' AND b IN (${n()}, ${n()}) AND c LIKE '${w()}' LIMIT ${n()}`;
    assert.deepEqual(await cache.parse(sql, serialize), await fresh(sql), sql);
  }
});
