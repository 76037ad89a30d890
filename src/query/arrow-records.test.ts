import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { arrowRecords } from './arrow-records.js';
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
      -(i::HUGEINT * 34028236692093846346337460743176821) AS neg_huge
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

test('a column of a type it does not convert (decimal, time, blob, TIMESTAMPTZ) leaves the answer to DuckDB', async () => {
  for (const sql of ['SELECT 1.5::DECIMAL(10, 2) AS d', "SELECT TIME '01:02:03' AS t", "SELECT 'ab'::BLOB AS b", 'SELECT now() AS tz']) {
    assert.equal(arrowRecords(await answerOf(sql)), undefined, sql);
  }
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
