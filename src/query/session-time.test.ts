import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TimeUnit } from '../types/time-unit.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { installFunctions } from './session-functions.js';
import { isUtc, rewriteSessionBuckets, rewriteSessionTime, timestampTest, utcText } from './session-time.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';
import { rewriteTimeLiterals } from './time-predicates.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run("SET TimeZone = 'UTC'");
await installFunctions(conn);

async function parse(sql: string): Promise<unknown> {
  return parseSqlJson((await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string);
}

async function unparse(tree: unknown): Promise<string> {
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string;
}

const NOW = Date.UTC(2024, 6, 1, 2, 30, 0, 125); // 2024-07-01T02:30:00.125Z: still June 30 in New York

/** The query as tsdb rewrites it for a session in `zone` reading a table whose `ts` (and `t2`) are timestamps. */
async function rewritten(sql: string, zone: string, columns: Record<string, TimeUnit> = { ts: 'ms' }): Promise<string> {
  const tree = await parse(sql);
  const map = new Map(Object.entries(columns));
  rewriteSessionTime(tree, { zone, nowMs: NOW, timestampColumns: map, columnNames: new Set(Object.keys(columns)) });
  rewriteTimeLiterals(tree, map);
  rewriteSessionBuckets(tree, zone, timestampTest(map));
  return unparse(tree);
}

test('naive timestamp strings where a timestamp is read are the session zone’s wall clock, written in UTC', async () => {
  assert.match(await rewritten("SELECT * FROM t WHERE ts = '2024-07-01 12:00:00'", 'America/New_York'), /ts = '2024-07-01 16:00:00'/);
  assert.match(await rewritten("SELECT * FROM t WHERE ts BETWEEN '2024-01-01' AND '2024-01-02 00:00:00.5'", '+08:00'), /BETWEEN '2023-12-31 16:00:00' AND '2024-01-01 16:00:00.5'/);
  assert.match(await rewritten("SELECT * FROM t WHERE ts IN ('2024-07-01 12:00:00', '2024-07-01 13:00:00') OR '2024-07-01 14:00:00' < ts", 'Asia/Kolkata'), /IN \('2024-07-01 06:30:00', '2024-07-01 07:30:00'\).*'2024-07-01 08:30:00' < ts/);
  assert.match(await rewritten("SELECT TIMESTAMP '2024-07-01 12:00:00', CAST('2024-07-01 12:00:00' AS TIMESTAMP_NS), '2024-07-01 12:00:00'::TIMESTAMPTZ", '+08:00'), /'2024-07-01 04:00:00'.*'2024-07-01 04:00:00'.*'2024-07-01 04:00:00'/);
  // An explicit offset means what it says (and DuckDB, which ignores it in a cast to TIMESTAMP, gets UTC).
  assert.match(await rewritten("SELECT * FROM t WHERE ts > '2024-07-01T12:00:00+02:00'", 'America/New_York'), /ts > '2024-07-01 10:00:00'/);
  // Daylight-saving edges follow localOffsetMinutes.
  assert.match(await rewritten("SELECT * FROM t WHERE ts = '2024-03-10 02:30:00' OR ts = '2024-11-03 01:30:00'", 'America/New_York'), /'2024-03-10 07:30:00'.*'2024-11-03 05:30:00'/);
  // Not where a string is a string: a tag, a LIKE, a string function.
  const untouched = "SELECT * FROM t WHERE host = '2024-07-01 12:00:00' AND upper(host) LIKE '2024-07-01 12:00:00'";
  assert.match(await rewritten(untouched, 'America/New_York'), /host = '2024-07-01 12:00:00'.*~~ '2024-07-01 12:00:00'/);
  // A string that is no timestamp tsdb reads is left to DuckDB.
  assert.match(await rewritten("SELECT * FROM t WHERE ts > 'epoch'", 'America/New_York'), /ts > 'epoch'/);
});

test('now() and its spellings are the query’s start; current_date and current_time the session’s local date and time', async () => {
  const sql = await rewritten('SELECT now(), current_timestamp, CURRENT_TIMESTAMP(), get_current_timestamp(), transaction_timestamp(), localtimestamp, current_date, today(), current_time', 'America/New_York');
  assert.equal(sql.match(/CAST\('2024-07-01 02:30:00.125' AS TIMESTAMP\)/g)?.length, 6, sql);
  assert.equal(sql.match(/CAST\('2024-06-30' AS "?DATE"?\)/g)?.length, 2, sql);
  assert.match(sql, /CAST\('22:30:00.125' AS "?TIME"?\)/);
  // A column of that name is the column.
  assert.match(await rewritten('SELECT current_date FROM t', 'UTC', { ts: 'ms', current_date: 'ms' }), /SELECT current_date FROM t/);
  // It compares with every unit of time index: DuckDB refuses TIMESTAMP_S/_MS/_NS against now()'s TIMESTAMP WITH TIME ZONE.
  await conn.run("CREATE TABLE u AS SELECT CAST(TIMESTAMP '2024-07-01 02:00:00' AS TIMESTAMP_S) s, CAST(TIMESTAMP '2024-07-01 02:00:00' AS TIMESTAMP_MS) ms, TIMESTAMP '2024-07-01 02:00:00' us, CAST(TIMESTAMP '2024-07-01 02:00:00' AS TIMESTAMP_NS) ns");
  for (const [col, unit] of [['s', 's'], ['ms', 'ms'], ['us', 'us'], ['ns', 'ns']] as const) {
    for (const filter of [`${col} > now() - INTERVAL '1 hour'`, `${col} > now() - INTERVAL 1 HOUR`, `${col} > date_sub(now(), INTERVAL 1 HOUR)`, `${col} >= date_add(current_timestamp, INTERVAL '-1 hour')`, `${col} BETWEEN now() - INTERVAL 1 HOUR AND now()`, `${col} > to_timestamp(1719797400)`]) {
      const sql = await rewritten(`SELECT count(*) FROM u WHERE ${filter}`, 'UTC', { [col]: unit });
      assert.deepEqual((await conn.runAndReadAll(sql)).getRows(), [[1n]], `${filter}: ${sql}`);
    }
  }
});

test('date_trunc, date_bin and date_format work on the session’s wall clock; a day starts at local midnight, DST days included', async () => {
  const instant = async (sql: string, zone: string) => {
    const out = (await conn.runAndReadAll(await rewritten(sql, zone, { ts: 'us' }))).getRows()[0]![0];
    return typeof out === 'string' ? out : String(out);
  };
  // The row's instant in UTC (an explicit offset: the session's zone does not apply).
  const q = (expr: string, ts: string) => `SELECT CAST(${expr} AS VARCHAR) FROM (SELECT TIMESTAMP '${ts}Z' AS ts)`;
  // 06:00Z on 2024-07-01 is 02:00 EDT: the local day began at 04:00Z.
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-07-01 06:00:00'), 'America/New_York'), '2024-07-01 04:00:00');
  assert.equal(await instant(q("date_bin(INTERVAL '1 day', ts)", '2024-07-01 06:00:00'), 'America/New_York'), '2024-07-01 04:00:00');
  // On the days the clock changes the local day began at the other offset.
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-03-10 12:00:00'), 'America/New_York'), '2024-03-10 05:00:00');
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-11-03 12:00:00'), 'America/New_York'), '2024-11-03 04:00:00');
  // The hour New York repeats keeps its two buckets.
  assert.equal(await instant(q("date_trunc('hour', ts)", '2024-11-03 05:30:00'), 'America/New_York'), '2024-11-03 05:00:00');
  assert.equal(await instant(q("date_trunc('hour', ts)", '2024-11-03 06:30:00'), 'America/New_York'), '2024-11-03 06:00:00');
  // A fixed offset and a half-hour zone.
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-07-01 20:00:00'), '+05:30'), '2024-07-01 18:30:00');
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-07-01 20:00:00'), 'Asia/Kolkata'), '2024-07-01 18:30:00');
  assert.equal(await instant(q("date_format(ts, '%Y-%m-%d %H:%M')", '2024-07-01 20:00:00'), 'Asia/Kolkata'), '2024-07-02 01:30');
  // UTC sessions are left as they are.
  assert.equal(await instant(q("date_trunc('day', ts)", '2024-07-01 20:00:00'), 'UTC'), '2024-07-01 00:00:00');
  assert.ok(isUtc('UTC') && isUtc('+00:00') && isUtc('SYSTEM') && !isUtc('Europe/London') && !isUtc('+01:00'));
});

test('instants as UTC text DuckDB reads in every timestamp type', () => {
  assert.equal(utcText(0n), '1970-01-01 00:00:00');
  assert.equal(utcText(-1n), '1969-12-31 23:59:59.999999999');
  assert.equal(utcText(1_719_835_200_500_000_000n), '2024-07-01 12:00:00.5');
  assert.equal(utcText(BigInt(Date.UTC(10000, 0, 1)) * 1_000_000n), undefined);
});
