import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { tableRefs } from './table-refs.js';
import { epochSql, foldableBounds, rewriteTimeLiterals, timeRangeOf } from './time-predicates.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function parse(sql: string): Promise<unknown> {
  return JSON.parse((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
}

async function unparse(tree: unknown): Promise<string> {
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(tree))})`)).getRows()[0]![0] as string;
}

test('integer literals compared with a time index become timestamps of its unit', async () => {
  const tree = await parse('SELECT * FROM t WHERE ts >= 1000 AND 5 < t.ts AND ts BETWEEN 1 AND 2 AND ts IN (7, 8) AND v > 3');
  rewriteTimeLiterals(tree, new Map([['ts', 'ms' as const]]));
  assert.equal(
    await unparse(tree),
    'SELECT * FROM t WHERE ((ts >= CAST(epoch_ms(1000) AS TIMESTAMP_MS)) AND (CAST(epoch_ms(5) AS TIMESTAMP_MS) < t.ts) AND (ts BETWEEN CAST(epoch_ms(1) AS TIMESTAMP_MS) AND CAST(epoch_ms(2) AS TIMESTAMP_MS)) AND (ts IN (CAST(epoch_ms(7) AS TIMESTAMP_MS), CAST(epoch_ms(8) AS TIMESTAMP_MS))) AND (v > 3))',
  );
  // The rewritten query runs, and means what GreptimeDB means: epochs in the column's unit.
  await conn.run('CREATE TABLE t AS SELECT epoch_ms(x)::TIMESTAMP_MS AS ts, x AS v FROM range(0, 3000, 500) r(x)');
  const counted = await parse('SELECT count(*) FROM t WHERE ts >= 1000 AND ts < 2500');
  rewriteTimeLiterals(counted, new Map([['ts', 'ms' as const]]));
  assert.deepEqual((await conn.runAndReadAll(await unparse(counted))).getRows(), [[3n]]);
  for (const [unit, fn] of [['s', 'to_timestamp'], ['us', 'make_timestamp'], ['ns', 'make_timestamp_ns']] as const) {
    const t2 = await parse('SELECT * FROM t WHERE ts = 1');
    rewriteTimeLiterals(t2, new Map([['ts', unit]]));
    assert.match(await unparse(t2), new RegExp(fn), unit);
  }
});

test('the time range of a simple query reaches its table: AND-ed literal bounds, strings and integers', async () => {
  const range = async (sql: string, unit: 's' | 'ms' = 'ms') => {
    const tree = await parse(sql);
    rewriteTimeLiterals(tree, new Map([['ts', unit]]));
    return timeRangeOf(tree, tableRefs(tree)[0]!, 'ts', unit);
  };
  assert.deepEqual(await range('SELECT * FROM t WHERE ts >= 1000 AND ts < 2000'), { start: 1000n, end: 1999n });
  assert.deepEqual(await range("SELECT * FROM t WHERE ts > '2024-01-01T00:00:00Z' AND ts <= '2024-01-02 00:00:00'"), { start: BigInt(Date.UTC(2024, 0, 1)) + 1n, end: BigInt(Date.UTC(2024, 0, 2)) });
  assert.deepEqual(await range("SELECT * FROM t c WHERE c.ts BETWEEN 5 AND 10 AND host = 'a'"), { start: 5n, end: 10n });
  assert.deepEqual(await range('SELECT * FROM t WHERE 100 <= ts AND ts = 150'), { start: 150n, end: 150n });
  assert.deepEqual(await range("SELECT * FROM t WHERE ts < '1970-01-01 00:00:01.5'", 's'), { end: 1n }, 'a floored string bound keeps its instant');
  // The SELECT reading the table may be a subquery or a CTE (range queries are one).
  assert.deepEqual(await range('WITH s AS (SELECT * FROM t WHERE ts >= 10) SELECT max(v) FROM s'), { start: 10n });
  assert.deepEqual(await range('SELECT count(*) FROM (SELECT v FROM t WHERE ts < 10) x'), { end: 9n });
  // Nothing usable: OR, other columns, a WHERE above the SELECT that reads the table, joins, expressions.
  for (const sql of [
    'SELECT * FROM t WHERE ts >= 1000 OR ts < 0',
    'SELECT * FROM t WHERE v >= 1000',
    "SELECT * FROM t WHERE ts >= now() - INTERVAL '1 hour'",
    'SELECT * FROM (SELECT * FROM t) WHERE ts >= 1000',
    'SELECT * FROM t JOIN u ON true WHERE ts >= 1000',
    'SELECT * FROM t',
  ]) {
    assert.equal(await range(sql), undefined, sql);
  }
});

test('constant expressions bounding the time index are cast to its type, and their values narrow the scan', async () => {
  const tree = await parse("SELECT * FROM t WHERE ts >= CAST('2024-01-01 12:00:00' AS TIMESTAMP) - INTERVAL '1 hour' AND ts < to_timestamp(1704114000) AND ts > (SELECT max(ts) FROM t) AND v < random()");
  rewriteTimeLiterals(tree, new Map([['ts', 'ms' as const]]));
  // Other sides become the column's type (DuckDB refuses to compare TIMESTAMP_MS with TIMESTAMP WITH TIME ZONE).
  assert.match(await unparse(tree), /ts >= CAST\(.* AS TIMESTAMP_MS\)\) AND \(ts < CAST\(to_timestamp\(1704114000\) AS TIMESTAMP_MS\)\) AND \(ts > CAST\(\(SELECT/);
  const ref = tableRefs(tree)[0]!;
  // The subquery is no constant; the other two are, and the caller evaluates them.
  const bounds = foldableBounds(tree, ref, 'ts', 'ms');
  assert.equal(bounds.length, 2);
  const folded = new Map<object, bigint>([[bounds[0]!, BigInt(Date.UTC(2024, 0, 1, 11)) * 1_000_000n], [bounds[1]!, BigInt(Date.UTC(2024, 0, 1, 13)) * 1_000_000n]]);
  assert.deepEqual(timeRangeOf(tree, ref, 'ts', 'ms', folded), { start: BigInt(Date.UTC(2024, 0, 1, 11)), end: BigInt(Date.UTC(2024, 0, 1, 13)) });
  assert.equal(timeRangeOf(tree, ref, 'ts', 'ms'), undefined, 'nothing usable without their values');
  // The rewritten query runs.
  await conn.run('CREATE TABLE IF NOT EXISTS t AS SELECT epoch_ms(x)::TIMESTAMP_MS AS ts, x AS v FROM range(0, 3000, 500) r(x)');
  await conn.runAndReadAll(await unparse(tree));
});

test('epochSql is the text DuckDB writes for the epoch conversion of each unit (folded literal lists use it)', async () => {
  for (const unit of ['s', 'ms', 'us', 'ns'] as const) {
    const tree = await parse('SELECT * FROM t WHERE ts = -7');
    rewriteTimeLiterals(tree, new Map([['ts', unit]]));
    assert.equal(await unparse(tree), `SELECT * FROM t WHERE (ts = ${epochSql('-7', unit)})`, unit);
  }
});
