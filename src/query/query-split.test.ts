import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { FINAL_INPUT, splitQuery, wholeFinalSql, type QuerySplit, type SplitTable } from './query-split.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const aggregates = new Set((await conn.runAndReadAll("SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")).getRows().map((r) => r[0] as string));
const table: SplitTable = { partitionColumns: ['host'], columnNames: ['host', 'dc', 'ts', 'v', 'n'], numericColumns: new Set(['v', 'n']), aggregates };

async function split(sql: string, t = table): Promise<QuerySplit | undefined> {
  const tree = JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string) as unknown;
  return splitQuery(tree, t);
}

async function text(tree: unknown): Promise<string> {
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(tree))})`)).getRows()[0]![0] as string;
}

test('no aggregate, or GROUP BY every partition column: the whole query per region, ordered and limited again', async () => {
  const s = await split('SELECT * FROM t WHERE v > 1 ORDER BY ts DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5');
  assert.equal(s?.kind, 'whole');
  if (s?.kind !== 'whole') return;
  // Each region's first 15 rows hold the answer's.
  assert.equal(await text(s.region), 'SELECT * FROM t WHERE (v > 1) ORDER BY ts DESC NULLS FIRST, 2 LIMIT 15');
  assert.equal(s.columns, 5);
  assert.equal(wholeFinalSql(s, '(answers)', ['host', 'dc', 'ts', 'v', 'n']), 'SELECT __tsdb_part_0 AS "host", __tsdb_part_1 AS "dc", __tsdb_part_2 AS "ts", __tsdb_part_3 AS "v", __tsdb_part_4 AS "n" FROM (answers) ORDER BY 3 DESC NULLS FIRST, 2 LIMIT 10 OFFSET 5');
  // Unchanged without an OFFSET; an ORDER BY by alias, by expression, by output name.
  const g = await split('SELECT t.host, dc, count(*) AS c, max(v) + 1 FROM t GROUP BY host, dc HAVING count(*) > 1 ORDER BY c, max(v) + 1 DESC, dc LIMIT 3');
  assert.ok(g?.kind === 'whole' && g.unchanged);
  assert.deepEqual(g.kind === 'whole' && g.order.map((o) => [o.column, o.direction]), [[2, ''], [3, ' DESC'], [1, '']]);
  // An OFFSET without a LIMIT: every region's rows, unordered there.
  const o = await split('SELECT host FROM t ORDER BY host OFFSET 2');
  assert.ok(o?.kind === 'whole');
  assert.equal(await text(o.region), 'SELECT host FROM t');
  // A partition column grouped by position or as itself under an alias; with a time bucket.
  assert.equal((await split("SELECT host AS h, date_bin('1m', ts) AS b, avg(v) FROM t GROUP BY 1, b"))?.kind, 'whole');
  // Two partition columns: both must be grouped.
  const two = { ...table, partitionColumns: ['host', 'dc'] };
  assert.equal((await split('SELECT host, dc, sum(v) FROM t GROUP BY host, dc', two))?.kind, 'whole');
  assert.equal((await split('SELECT host, sum(v) AS s FROM t GROUP BY host', two))?.kind, 'partial');
});

test('windows partitioned by every partition column (lastpoint: DISTINCT ON as rewritten, QUALIFY row_number) split whole', async () => {
  const { rewriteDistinctOn } = await import('./distinct-on.js');
  const tree = JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral('SELECT DISTINCT ON (host) * FROM t ORDER BY host, ts DESC')})`)).getRows()[0]![0] as string) as unknown;
  assert.ok(rewriteDistinctOn(tree));
  const lastpoint = splitQuery(tree, table);
  assert.ok(lastpoint?.kind === 'whole' && lastpoint.unchanged);
  assert.deepEqual(lastpoint.order.map((o) => [o.column, o.direction]), [[0, ''], [2, ' DESC']]);
  const q = await split('SELECT host, ts, v FROM t QUALIFY row_number() OVER (PARTITION BY t.host ORDER BY ts DESC) = 1 ORDER BY host LIMIT 10');
  assert.ok(q?.kind === 'whole' && q.limit === 10);
  assert.equal((await split('SELECT host, v - lag(v) OVER (PARTITION BY host, dc ORDER BY ts) AS d FROM t'))?.kind, 'whole');
  // Two partition columns: every window partitioned by both.
  const two = { ...table, partitionColumns: ['host', 'dc'] };
  assert.equal((await split('SELECT host, sum(v) OVER (PARTITION BY dc, host) FROM t', two))?.kind, 'whole');
  assert.equal(await split('SELECT host, sum(v) OVER (PARTITION BY host) FROM t', two), undefined);
});

test('other aggregations of count, sum, min, max and avg: partial aggregates per region, the final step over them', async () => {
  const s = await split("SELECT dc, date_bin('1m', ts) AS b, count(*) AS c, count(v) FILTER (WHERE n > 0) AS cv, sum(n) AS sn, avg(v * 2) AS a, min(host) AS m FROM t WHERE ts > 5 GROUP BY dc, b HAVING sum(n) > 3 ORDER BY c DESC, max(v) LIMIT 4 OFFSET 1");
  assert.equal(s?.kind, 'partial');
  if (s?.kind !== 'partial') return;
  assert.equal(
    await text(s.region),
    "SELECT dc AS __tsdb_part_0, date_bin('1m', ts) AS __tsdb_part_1, count_star() AS __tsdb_part_2, count(v) FILTER (WHERE (n > 0)) AS __tsdb_part_3, sum(n) AS __tsdb_part_4, sum((v * 2)) AS __tsdb_part_5, count((v * 2)) AS __tsdb_part_6, min(host) AS __tsdb_part_7, max(v) AS __tsdb_part_8 FROM t WHERE (ts > 5) GROUP BY dc, date_bin('1m', ts)",
  );
  assert.equal(s.columns, 9);
  assert.equal(
    (await text(s.final)).replace(FINAL_INPUT, 'answers'),
    'SELECT __tsdb_part_0 AS dc, __tsdb_part_1 AS b, CAST(sum(__tsdb_part_2) AS BIGINT) AS c, CAST(sum(__tsdb_part_3) AS BIGINT) AS cv, sum(__tsdb_part_4) AS sn, (CAST(sum(__tsdb_part_5) AS DOUBLE) / CAST(sum(__tsdb_part_6) AS DOUBLE)) AS a, min(__tsdb_part_7) AS m FROM answers GROUP BY __tsdb_part_0, __tsdb_part_1 HAVING (sum(__tsdb_part_4) > 3) ORDER BY c DESC, max(__tsdb_part_8) LIMIT 4 OFFSET 1',
  );
  // Without groups; GROUP BY an expression, by position.
  const n = await split('SELECT count(*) AS c, max(ts) AS m FROM t');
  assert.ok(n?.kind === 'partial');
  assert.equal((await text(n.final)).replace(FINAL_INPUT, 'answers'), 'SELECT CAST(sum(__tsdb_part_0) AS BIGINT) AS c, max(__tsdb_part_1) AS m FROM answers');
  const e = await split('SELECT n % 10 AS k, sum(v) AS s FROM t GROUP BY 1 ORDER BY k');
  assert.ok(e?.kind === 'partial');
  assert.equal((await text(e.final)).replace(FINAL_INPUT, 'answers'), 'SELECT __tsdb_part_0 AS k, sum(__tsdb_part_1) AS s FROM answers GROUP BY __tsdb_part_0 ORDER BY k');
});

test('anything else does not split', async () => {
  for (const sql of [
    // Aggregates the partial step cannot take, or arguments whose sum is not avg's.
    'SELECT count(DISTINCT dc) FROM t',
    'SELECT dc, median(v) FROM t GROUP BY dc',
    'SELECT string_agg(dc, \',\') FROM t',
    'SELECT avg(ts) FROM t',
    'SELECT sum(dc) FROM t',
    'SELECT min(v, 2) FROM t',
    'SELECT max(v ORDER BY ts) FROM t',
    // An unnamed item the final step computes (the caller names it first), a column not grouped.
    'SELECT count(*) FROM t',
    'SELECT dc, v FROM t GROUP BY dc',
    'SELECT dc, sum(v) FROM t GROUP BY ROLLUP (dc)',
    'SELECT dc, sum(v) FROM t GROUP BY ALL',
    // Windows, DISTINCT, set operations, subqueries, CTEs, joins.
    'SELECT host, row_number() OVER () FROM t',
    'SELECT host, sum(v) OVER (PARTITION BY dc) FROM t',
    'SELECT host, sum(v) OVER (PARTITION BY host), count(*) OVER () FROM t',
    'SELECT host, sum(v) OVER (PARTITION BY host) FROM t GROUP BY host, v',
    'SELECT host, v FROM t QUALIFY v > 1',
    'SELECT DISTINCT host FROM t',
    'SELECT host FROM t UNION SELECT host FROM t',
    'SELECT host FROM t WHERE v > (SELECT avg(v) FROM t)',
    'SELECT * FROM (SELECT host FROM t)',
    'WITH c AS (SELECT 1) SELECT host FROM t',
    'SELECT host, count(*) AS c FROM t GROUP BY host QUALIFY c > 1',
    'SELECT * FROM t JOIN u USING (host)',
    // ORDER BY what the answer does not have; a LIMIT that is not a constant; LIMIT %.
    'SELECT host FROM t ORDER BY ts',
    'SELECT host AS h, dc AS h FROM t ORDER BY h',
    'SELECT host FROM t LIMIT 1 + 1',
    'SELECT host FROM t LIMIT 10%',
    'SELECT * EXCLUDE (dc) FROM t ORDER BY host',
    'SELECT list_transform([1], x -> x + 1) FROM t',
  ]) {
    assert.equal(await split(sql), undefined, sql);
  }
  // An unpartitioned table.
  assert.equal(await split('SELECT * FROM t', { ...table, partitionColumns: [] }), undefined);
});
