import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { arrowRecords, readRecords } from './arrow-records.js';
import { queryArrow } from './arrow-result.js';
import { ResultMemory } from './resource-limits.js';
import { readResult } from './result-conversion.js';
import type { ArrowRows } from './output.js';

const db = await DuckDBInstance.create(':memory:', { threads: '1' });

async function withConn<T>(run: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const conn = await db.connect();
  try {
    return await run(conn);
  } finally {
    conn.closeSync();
  }
}

async function answerOf(sql: string, batchRows?: number): Promise<ArrowRows> {
  return withConn(async (conn) => {
    const stream = await queryArrow(conn, sql, batchRows === undefined ? {} : { batchRows });
    const batches: RecordBatch[] = [];
    for await (const b of stream.batches) batches.push(b);
    return { schema: stream.schema, batches };
  });
}

test('every type it converts gives the columns and cells readResult gives for the same query, NULLs included, across batches', async () => {
  const sql = `SELECT (i % 100)::TINYINT AS i8, i::SMALLINT AS i16, i::INTEGER AS i32, (i * 3000000000)::BIGINT AS i64,
      (i % 200)::UTINYINT AS u8, i::USMALLINT AS u16, i::UINTEGER AS u32, (i::UBIGINT * 3000000000000000) AS u64,
      (i / 3)::FLOAT AS f32, i / 7 AS f64, i % 2 = 0 AS b, 'host_' || (i % 3) || 'é' AS s, '' AS empty,
      DATE '2024-01-01' + i::INTEGER AS d, to_timestamp(i)::TIMESTAMP AS ts_us, epoch_ms(i * 1000) AS ts_ms,
      make_timestamp(i * 1000000)::TIMESTAMP_S AS ts_s, make_timestamp(i)::TIMESTAMP_NS AS ts_ns,
      sum(i::BIGINT * 1000000000000) OVER (ORDER BY i) AS huge, count(*) OVER () AS "count_star()", NULL AS nothing,
      -(i::HUGEINT * 34028236692093846346337460743176821) AS neg_huge, (i / 7)::DECIMAL(4, 1) AS d4,
      (i * -1.25)::DECIMAL(9, 2) AS d9, (i * 1234567.891)::DECIMAL(18, 3) AS d18, (i::HUGEINT * -12345678901234567890)::DECIMAL(38, 0) AS d38,
      ((i % 1000) / 1000)::DECIMAL(3, 3) AS frac, to_timestamp(i * 1000) AS tz
    FROM (SELECT CASE WHEN i % 5 = 4 THEN NULL ELSE i END AS i FROM range(5000) t(i))`;
  // Batches of 700 rows: data at offsets within DuckDB's chunks.
  const direct = arrowRecords(await answerOf(sql, 700));
  assert.ok(direct !== undefined);
  const expected = await withConn((conn) => readResult(conn, sql));
  assert.deepEqual(direct.columns, expected.columns);
  assert.equal(direct.rows.length, 5000);
  assert.deepEqual(direct.rows, expected.rows);
  assert.equal(direct.columns.find((c) => c.name === 'count(*)')?.data_type, 'Int64');
  // Some values past 2^53 stay exact (bigint) as readResult gives them.
  assert.ok(direct.rows.some((r) => typeof r[3] === 'bigint' || typeof r[7] === 'bigint'));
});

test('a column of a type it does not convert (time, blob, interval) leaves the answer to DuckDB', async () => {
  for (const sql of ["SELECT TIME '01:02:03' AS t", "SELECT 'ab'::BLOB AS b"]) {
    assert.equal(arrowRecords(await answerOf(sql)), undefined, sql);
  }
});

test('readRecords: the Arrow path or readResult, the same columns and cells either way; errors and limits as readResult has them', async () => {
  const queries = [
    'SELECT i, i::DOUBLE / 3 AS third, i::VARCHAR AS s, NULL AS n FROM range(10000) t(i)',
    "SELECT TIME '01:02:03' AS t, 1 AS one",
    "SELECT [1, 2] AS list, INTERVAL 2 DAY AS span, 'ab'::BLOB AS b",
    'SELECT sum(i) AS total, count(*) FROM range(100) t(i)',
    'SELECT 1 WHERE false',
  ];
  // A parameter without a value: readResult's error, not one of reading a type DuckDB could not tell.
  for (const sql of ['SELECT ?', "SELECT date_trunc('day', $1) AS day"]) {
    await withConn(async (conn) => {
      const expected = await readResult(conn, sql).then(() => undefined, (err: unknown) => err);
      assert.ok(expected !== undefined, sql);
      await assert.rejects(readRecords(conn, sql), (err: unknown) => (err as Error).message === (expected as Error).message);
    });
  }
  for (const sql of queries) {
    await withConn(async (conn) => assert.deepEqual(await readRecords(conn, sql), await readResult(conn, sql), sql));
  }
  await withConn(async (conn) => {
    await assert.rejects(readRecords(conn, 'SELECT nope'), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PlanQuery);
    await assert.rejects(readRecords(conn, 'SELECT i FROM range(100000) t(i)', { maxRows: 50_000, maxBytes: 0 }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted);
    // A failure on a later row (a cast) fails the read; nothing of it is returned.
    await assert.rejects(readRecords(conn, "SELECT CASE WHEN i < 9000 THEN 'x' ELSE ('y' || i)::INTEGER::VARCHAR END AS v FROM range(10000) t(i)"), TsdbError);
    // The connection is usable after.
    assert.deepEqual((await readRecords(conn, 'SELECT 42 AS x')).rows, [[42]]);
  });
  const memory = new ResultMemory(1 << 20);
  await withConn((conn) => readRecords(conn, 'SELECT i FROM range(1000) t(i)', { maxRows: 0, maxBytes: 0, memory }));
  assert.equal(memory.inUse(), 0);
});

test('limits: rows, bytes (strings counted) and the shared result memory, given back after', async () => {
  const answer = await answerOf("SELECT i, repeat('x', 100) AS s FROM range(100) t(i)");
  assert.throws(() => arrowRecords(answer, { maxRows: 99, maxBytes: 0 }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted && /max_result_rows/.test(err.message));
  assert.throws(() => arrowRecords(answer, { maxRows: 0, maxBytes: 10_000 }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted && /max_result_bytes/.test(err.message));
  // 100 rows × (48 + 2 × 16) + 100 × 100 string bytes = 18,000.
  assert.ok(arrowRecords(answer, { maxRows: 100, maxBytes: 18_000 }) !== undefined);
  const memory = new ResultMemory(17_999);
  assert.throws(() => arrowRecords(answer, { maxRows: 0, maxBytes: 0, memory }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RateLimited);
  const enough = new ResultMemory(18_000);
  assert.equal(arrowRecords(answer, { maxRows: 0, maxBytes: 0, memory: enough })!.rows.length, 100);
  assert.equal(enough.inUse(), 0);
});
