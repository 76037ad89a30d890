import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { StatusCode } from '../common/error/status-code.js';
import { resultNames, rustFloat, widenIntegerLiterals } from './column-names.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';
import { parameterMark } from '../sql/parameter-marks.js';
import type { Node } from './sql-tree.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

const TABLES: Readonly<Record<string, readonly string[]>> = {
  t: ['host', 'ts', 'a', 'v', 's'],
  u: ['host', 'ts', 'b'],
};

async function parse(sql: string): Promise<unknown> {
  return parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
}

/** The names a result of `sql` gets, its columns named `c0`, `c1`, … by DuckDB (`width` of them: default, one per item). */
async function names(sql: string, width?: number): Promise<string[]> {
  const tree = await parse(sql);
  const naming = resultNames(tree, { sql, columnsOf: (ref) => TABLES[String(ref['table_name']).toLowerCase()] });
  assert.ok(naming !== undefined, sql);
  let node = ((tree as Node)['statements'] as Node[])[0]!['node'] as Node;
  while (node['type'] === 'SET_OPERATION_NODE') node = node['left'] as Node;
  const n = width ?? (node['select_list'] as unknown[]).length;
  const columns = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, data_type: 'Int64' }));
  return naming.rename(columns).map((c) => c.name);
}

test('literals are named as DataFusion types them', async () => {
  assert.deepEqual(await names('SELECT 1, -1, 1.5, 0.1, 1e3, -2.50'), ['Int64(1)', 'Int64(-1)', 'Float64(1.5)', 'Float64(0.1)', 'Float64(1000)', 'Float64(-2.5)']);
  assert.deepEqual(await names("SELECT 'x', NULL, true, FALSE, 't'::BOOLEAN"), ['Utf8("x")', 'NULL', 'Boolean(true)', 'Boolean(false)', 'Utf8("t")']);
  assert.deepEqual(await names('SELECT 9223372036854775807, 9223372036854775808, 17014118346046923173168730371588410572'), [
    'Int64(9223372036854775807)',
    'UInt64(9223372036854775808)',
    'Float64(17014118346046924000000000000000000000)',
  ]);
  assert.deepEqual(await names("SELECT IFNULL(NULL, 'd'), coalesce(1, 2), ifnull (NULL,\n NULL)"), ['ifnull(NULL,Utf8("d"))', 'coalesce(Int64(1),Int64(2))', 'ifnull(NULL,NULL)']);
});

test('expressions: operators without parentheses, casts by what they cast, functions without spaces', async () => {
  assert.deepEqual(await names('SELECT a + 1, (a + 1) * 2, -a, - (v), +s, a % 2, s || \'x\' FROM t'), [
    't.a + Int64(1)',
    't.a + Int64(1) * Int64(2)',
    '(- t.a)',
    '(- t.v)',
    's',
    't.a % Int64(2)',
    't.s || Utf8("x")',
  ]);
  assert.deepEqual(await names('SELECT -1::TINYINT, CAST(a AS DOUBLE), TRY_CAST(s AS INT), 0::BOOLEAN, ts::TIMESTAMP, ts::TIMESTAMP_NS, ts::TIMESTAMP(0) FROM t'), [
    '(- Int64(1))',
    't.a',
    't.s',
    'Int64(0)',
    'arrow_cast(t.ts,Utf8("Timestamp(ms)"))',
    'arrow_cast(t.ts,Utf8("Timestamp(ns)"))',
    'arrow_cast(t.ts,Utf8("Timestamp(s)"))',
  ]);
  assert.deepEqual(await names("SELECT avg(v), abs(a), round(v, 2), count(*), COUNT(1), count(DISTINCT host), lower(upper(s)), date_trunc('hour', ts) FROM t"), [
    'avg(t.v)',
    'abs(t.a)',
    'round(t.v,Int64(2))',
    'count(*)',
    'count(Int64(1))',
    'count(DISTINCT t.host)',
    'lower(upper(t.s))',
    'date_trunc(Utf8("hour"),t.ts)',
  ]);
  assert.deepEqual(await names("SELECT TRIM(s), TRIM('x' FROM s), LTRIM(s), substring(s, 1, 2), EXTRACT(year FROM ts), date_part('year', ts) FROM t"), [
    'btrim(t.s)',
    'btrim(t.s,Utf8("x"))',
    'ltrim(t.s)',
    'substr(t.s,Int64(1),Int64(2))',
    'date_part(Utf8("YEAR"),t.ts)',
    'date_part(Utf8("year"),t.ts)',
  ]);
  assert.deepEqual(await names('SELECT sum(a) FILTER (WHERE a > 1), string_agg(s, \',\' ORDER BY ts DESC) FROM t'), [
    'sum(t.a) FILTER (WHERE t.a > Int64(1))',
    'string_agg(t.s,Utf8(",")) ORDER BY [t.ts DESC NULLS FIRST]',
  ]);
});

test("GreptimeDB's type aliases and timestamp types are arrow_casts by the type written; typed literals show their text", async () => {
  assert.deepEqual(await names("SELECT a::Int8, a::bool, CAST(a AS DATETIME), ts::TIMESTAMP_US, TRY_CAST(concat(s, ')') AS Float32), a::BOOLEAN, TIMESTAMP '2020-01-01', '3 hours'::INTERVAL, INTERVAL '3 hours' FROM t"), [
    'arrow_cast(t.a,Utf8("Int64"))',
    'arrow_cast(t.a,Utf8("Boolean"))',
    'arrow_cast(t.a,Utf8("Timestamp(µs)"))',
    'arrow_cast(t.ts,Utf8("Timestamp(µs)"))',
    'arrow_cast(concat(t.s,Utf8(")")),Utf8("Float32"))',
    't.a',
    'Utf8("2020-01-01")',
    'Utf8("3 hours")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 10800000000000 }")',
  ]);
  assert.deepEqual(await names("SELECT INTERVAL '-2mon', INTERVAL '1y2w3d4h', INTERVAL '1h30m', INTERVAL '1.5 year'"), [
    'IntervalMonthDayNano("IntervalMonthDayNano { months: -2, days: 0, nanoseconds: 0 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 12, days: 17, nanoseconds: 14400000000000 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 5400000000000 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 18, days: 0, nanoseconds: 0 }")',
  ]);
});

test('what DuckDB parses into other shapes is named as written: IF, EXTRACT, ~, [ ], UNNEST, unquoted capitals', async () => {
  assert.deepEqual(await names("SELECT IF(true, 'y', 'n'), IF(a > 1, 1, 2), EXTRACT(MICROSECONDS FROM ts), s ~ 'x', unnest([1, 2]) FROM t"), [
    'if(Boolean(true),Utf8("y"),Utf8("n"))',
    'if(t.a > Int64(1),Int64(1),Int64(2))',
    'date_part(Utf8("MICROSECONDS"),t.ts)',
    't.s ~ Utf8("x")',
    'UNNEST(make_array(Int64(1),Int64(2)))',
  ]);
  assert.deepEqual(await names('SELECT sum(B), COL1, "Mixed" + 1 FROM Other'), ['sum(other.b)', 'col1', 'other.Mixed + Int64(1)']);
  assert.deepEqual(await names('SELECT SUM(region_rows) FROM INFORMATION_SCHEMA.REGION_STATISTICS'), ['sum(information_schema.region_statistics.region_rows)']);
});

test('predicates, CASE, IN lists, BETWEEN, LIKE', async () => {
  assert.deepEqual(await names("SELECT a IS NULL, a IS NOT NULL, a = 1, a <> 1, v != 1, a >= 1 AND a < 3 OR s LIKE 'x%', s NOT ILIKE 'y', a IS DISTINCT FROM 2 FROM t"), [
    't.a IS NULL',
    't.a IS NOT NULL',
    't.a = Int64(1)',
    't.a != Int64(1)',
    't.v != Int64(1)',
    't.a >= Int64(1) AND t.a < Int64(3) OR t.s LIKE Utf8("x%")',
    't.s NOT ILIKE Utf8("y")',
    't.a IS DISTINCT FROM Int64(2)',
  ]);
  assert.deepEqual(await names("SELECT a IN (1, 2), host NOT IN ('x'), a BETWEEN 1 AND 2, a NOT BETWEEN 1 AND 2, NOT s LIKE 'x' FROM t"), [
    't.a IN Int64(1), Int64(2)',
    't.host NOT IN Utf8("x")',
    't.a BETWEEN Int64(1) AND Int64(2)',
    't.a NOT BETWEEN Int64(1) AND Int64(2)',
    'NOT t.s LIKE Utf8("x")',
  ]);
  assert.deepEqual(await names("SELECT CASE WHEN a > 11 THEN 11 ELSE a END, CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END, CASE WHEN a IS NULL THEN 0 END FROM t"), [
    'CASE WHEN t.a > Int64(11) THEN Int64(11) ELSE t.a END',
    'CASE t.a WHEN Int64(1) THEN Utf8("one") WHEN Int64(2) THEN Utf8("two") END',
    'CASE WHEN t.a IS NULL THEN Int64(0) END',
  ]);
  assert.deepEqual(await names("SELECT INTERVAL '1 hour', INTERVAL '2 days 3 hours', INTERVAL 2 DAY, INTERVAL '1 year 2 months'"), [
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 0, nanoseconds: 3600000000000 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 2, nanoseconds: 10800000000000 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 0, days: 2, nanoseconds: 0 }")',
    'IntervalMonthDayNano("IntervalMonthDayNano { months: 14, days: 0, nanoseconds: 0 }")',
  ]);
});

test('window functions show their partitions, orders and frame', async () => {
  assert.deepEqual(await names('SELECT row_number() OVER (PARTITION BY host ORDER BY ts), sum(a) OVER (PARTITION BY host), rank() OVER (ORDER BY a DESC NULLS LAST), sum(a) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t'), [
    'row_number() PARTITION BY [t.host] ORDER BY [t.ts ASC NULLS LAST] RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
    'sum(t.a) PARTITION BY [t.host] ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING',
    'rank() ORDER BY [t.a DESC NULLS LAST] RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
    'sum(t.a) ORDER BY [t.ts ASC NULLS LAST] ROWS BETWEEN 1 PRECEDING AND CURRENT ROW',
  ]);
});

test('columns are qualified by the relation the query names: alias, table as written, subquery, CTE', async () => {
  assert.deepEqual(await names('SELECT x.a + 1, max(a), A FROM t AS x'), ['x.a + Int64(1)', 'max(x.a)', 'a']);
  assert.deepEqual(await names('SELECT sum(v) FROM public.t'), ['sum(public.t.v)']);
  assert.deepEqual(await names('SELECT t.a + u.b, b * 2, host FROM t JOIN u ON t.ts = u.ts'), ['t.a + u.b', 'u.b * Int64(2)', 'host']);
  assert.deepEqual(await names('SELECT sum(x) FROM (SELECT a AS x FROM t) sq'), ['sum(sq.x)']);
  assert.deepEqual(await names('SELECT a + 1 FROM (SELECT a FROM t)'), ['t.a + Int64(1)']);
  assert.deepEqual(await names('SELECT y + 1 FROM (SELECT a + 1 AS y FROM t)'), ['y + Int64(1)']);
  assert.deepEqual(await names('WITH c AS (SELECT a, v FROM t) SELECT max(a), min(c.v) FROM c'), ['max(c.a)', 'min(c.v)']);
  assert.deepEqual(await names('WITH c (d) AS (SELECT a FROM t) SELECT max(d) FROM c'), ['max(c.d)']);
  assert.deepEqual(await names('SELECT (SELECT max(a) FROM t), EXISTS (SELECT 1 FROM u), a IN (SELECT b FROM u) FROM t'), ['max(t.a)', 'EXISTS', 'IN']);
  assert.deepEqual(await names('SELECT a + 1 FROM t UNION ALL SELECT b FROM u'), ['t.a + Int64(1)']);
  // A table of unknown columns still qualifies what it alone can have.
  assert.deepEqual(await names('SELECT length(table_name) FROM information_schema.tables'), ['length(information_schema.tables.table_name)']);
});

test('a star keeps the names of what it expands; an item after it is placed by the columns left', async () => {
  assert.deepEqual(await names('SELECT *, a + 1 FROM t', 6), ['host', 'ts', 'a', 'v', 's', 't.a + Int64(1)']);
  assert.deepEqual(await names('SELECT * FROM (SELECT a, a * 2 FROM t)', 2), ['a', 't.a * Int64(2)']);
  // Columns of a relation this does not know: the star takes the rest.
  assert.deepEqual(await names('SELECT a + 1, *, 2 FROM (SELECT * FROM read_x()) z', 5), ['z.a + Int64(1)', 'c1', 'c2', 'c3', 'Int64(2)']);
  // Two stars of unknown width: nothing can be placed.
  assert.deepEqual(await names('SELECT *, 1, * FROM (SELECT * FROM read_x()) z', 5), ['c0', 'c1', 'c2', 'c3', 'c4']);
});

/** The select list `resultNames` leaves in the tree of `sql`, as SQL-ish text (`t.a`, `*`). */
async function expanded(sql: string): Promise<string[]> {
  const tree = await parse(sql);
  resultNames(tree, { sql, columnsOf: (ref) => TABLES[String(ref['table_name']).toLowerCase()] });
  const node = ((tree as Node)['statements'] as Node[])[0]!['node'] as Node;
  return (node['select_list'] as Node[]).map((item) => (item['class'] === 'COLUMN_REF' ? (item['column_names'] as string[]).join('.') : String(item['class'])));
}

test('a star over USING and NATURAL joins is written out as DataFusion expands it: of each joined column, the first qualified name', async () => {
  // t (host, ts, a, v, s), u (host, ts, b): t.host sorts before u.host, wherever it is.
  assert.deepEqual(await expanded('SELECT * FROM t JOIN u USING (host)'), ['t.host', 't.ts', 't.a', 't.v', 't.s', 'u.ts', 'u.b']);
  assert.deepEqual(await expanded('SELECT * FROM t AS a LEFT JOIN u AS b USING (host, ts)'), ['a.host', 'a.ts', 'a.a', 'a.v', 'a.s', 'b.b']);
  assert.deepEqual(await expanded('SELECT * FROM u NATURAL JOIN t'), ['u.b', 't.host', 't.ts', 't.a', 't.v', 't.s']);
  assert.deepEqual(await names('SELECT * FROM u NATURAL JOIN t', 6), ['b', 'host', 'ts', 'a', 'v', 's']);
  // In a subquery too; the outer star then has the subquery's columns.
  const sub = await parse('SELECT * FROM (SELECT * FROM t JOIN u USING (host, ts)) x');
  resultNames(sub, { sql: '', columnsOf: (ref) => TABLES[String(ref['table_name']).toLowerCase()] });
  assert.match(JSON.stringify(sub), /"column_names":\["t","host"\]/);
  // A qualified star, a join ON, a relation of unknown columns: left as they are.
  assert.deepEqual(await expanded('SELECT t.* FROM t JOIN u USING (host)'), ['STAR']);
  assert.deepEqual(await expanded('SELECT * FROM t JOIN u ON t.host = u.host'), ['STAR']);
  assert.deepEqual(await expanded('SELECT * FROM t JOIN (SELECT * FROM read_x()) z USING (host)'), ['STAR']);
  // Each join keeps one of its own: two joins can keep two columns of one name, as DataFusion's do.
  assert.deepEqual(await expanded('SELECT * FROM u JOIN t USING (host) JOIN t AS a USING (host)'), ['u.ts', 'u.b', 't.host', 't.ts', 't.a', 't.v', 't.s', 'a.host', 'a.ts', 'a.a', 'a.v', 'a.s']);
});

test('two items of one name are refused as DataFusion refuses them; a column and an alias of one name are not', async () => {
  const refused = async (sql: string, message: RegExp) => {
    await assert.rejects(names(sql), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PlanQuery && message.test(err.message), sql);
  };
  await refused('SELECT 1, 1', /the expression "Int64\(1\)" at position 0 and "Int64\(1\)" at position 1 have the same name/);
  await refused('SELECT a, t.a FROM t', /"t\.a" at position 0 and "t\.a" at position 1/);
  await refused('SELECT 1 AS x, 2 AS x', /"Int64\(1\) AS x" at position 0 and "Int64\(2\) AS x" at position 1/);
  await refused('SELECT *, a FROM t', /"t\.a" at position 2 and "t\.a" at position 5/);
  await refused('SELECT 1 UNION SELECT 2, 2', /Int64\(2\)/);
  assert.deepEqual(await names('SELECT a, a AS a, x.a FROM t, t AS x'), ['a', 'c1', 'a']);
});

test('integer literals of constant items (aliased or not) become BIGINT; items reading columns are left alone', async () => {
  const sql = 'SELECT 1, 2147483647 + 1, -5 % 3, a + 1, abs(1), 1 AS one FROM t';
  const tree = await parse(sql);
  const naming = resultNames(tree, { sql, columnsOf: (ref) => TABLES[String(ref['table_name'])] })!;
  widenIntegerLiterals(tree, naming.named);
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
  assert.equal(text, 'SELECT CAST(1 AS BIGINT), (CAST(2147483647 AS BIGINT) + CAST(1 AS BIGINT)), (CAST(-5 AS BIGINT) % CAST(3 AS BIGINT)), (a + 1), abs(1), CAST(1 AS BIGINT) AS one FROM t');
});

test("a prepared statement's bound values are named by their parameters ($n), as in GreptimeDB", async () => {
  const [m1, m2, m3] = [parameterMark(1), parameterMark(2), parameterMark(3)];
  assert.deepEqual(await names(`SELECT ${m1}5 + 1, ${m2}'x', upper(${m2}'x'), ${m1}5 AS five, 5, ${m3}TRUE`), ['$1 + Int64(1)', '$2', 'upper($2)', 'c3', 'Int64(5)', '$3']);
  // A declared type's cast, a value DuckDB reads as a cast (`'NaN'::DOUBLE`), a negative number: the parameter.
  assert.deepEqual(await names(`SELECT ${m1}CAST('2024-01-01' AS TIMESTAMP), ${m2}'NaN'::DOUBLE, ${m3}-0.0`), ['$1', '$2', '$3']);
  // A cast the query writes keeps showing what it casts; a column is no parameter.
  assert.deepEqual(await names(`SELECT ${m1}'7'::INT, CAST(${m2}'x' AS VARCHAR), a FROM t WHERE a = ${m3}1`), ['$1', '$2', 'a']);
  // A user's comment like a mark (without this process's nonce) is none.
  assert.deepEqual(await names(`SELECT /*tsdb_param_000000000000:1*/2`), ['Int64(2)']);
  await assert.rejects(names(`SELECT ${m1}1, ${m1}1`), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.PlanQuery);
});

test('floats are written as Rust writes them: shortest digits, no exponent', () => {
  assert.equal(rustFloat(1.5), '1.5');
  assert.equal(rustFloat(1000), '1000');
  assert.equal(rustFloat(-0.25), '-0.25');
  assert.equal(rustFloat(1e-7), '0.0000001');
  assert.equal(rustFloat(1.7014118346046923e37), '17014118346046924000000000000000000000');
  assert.equal(rustFloat(0.1 + 0.2), '0.30000000000000004');
});
