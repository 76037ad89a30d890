/** `readArrowResult`: a whole result as Arrow batches, shaped as the row path shows it, within the result limits. */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { readArrowResult } from './arrow-output.js';
import { readResult } from './result-conversion.js';
import { NO_RESULT_LIMITS, ResultMemory, type ResultLimits } from './resource-limits.js';

async function connect(t: TestContext): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  return conn;
}

test('columns and values as the row path gives them: HUGEINT sums as Int64, zoned timestamps as µs', async (t) => {
  const conn = await connect(t);
  const sql = "SELECT sum(i) AS s, count(*) AS c, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS z, 'x' AS v, NULL::BIGINT AS n FROM range(5) t(i)";
  const arrow = (await readArrowResult(conn, sql))!;
  const rows = await readResult(conn, sql);
  assert.deepEqual(arrow.columns, rows.columns);
  assert.deepEqual(arrow.schema.fields.map((f) => String(f.type)), ['Int64', 'Int64', 'Timestamp<MICROSECOND>', 'Utf8', 'Int64']);
  const b = arrow.batches[0]!;
  assert.equal(b.getChildAt(0)!.get(0), 10n);
  assert.equal((b.getChildAt(2)!.data[0]!.values as BigInt64Array)[0], 1_704_067_200_000_000n, 'µs since the epoch');
  assert.equal(b.getChildAt(4)!.get(0), null);
});

test('a HUGEINT beyond 64 bits fails; a result with an interval is left to the row path', async (t) => {
  const conn = await connect(t);
  await assert.rejects(readArrowResult(conn, 'SELECT 170141183460469231731687303715884105727::HUGEINT AS h'), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /64-bit/.test(err.message));
  assert.equal(await readArrowResult(conn, "SELECT INTERVAL 1 DAY AS i"), undefined);
  assert.equal((await readArrowResult(conn, 'SELECT -5::HUGEINT AS h'))!.batches[0]!.getChildAt(0)!.get(0), -5n);
});

test('the result limits apply: rows, bytes, and the shared pool of result memory', async (t) => {
  const conn = await connect(t);
  const sql = 'SELECT i FROM range(100000) t(i)';
  assert.equal((await readArrowResult(conn, sql, NO_RESULT_LIMITS))!.batches.reduce((n, b) => n + b.numRows, 0), 100_000);
  const limited = (limits: Partial<ResultLimits>) => readArrowResult(conn, sql, { ...NO_RESULT_LIMITS, ...limits });
  await assert.rejects(limited({ maxRows: 99_999 }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted);
  await assert.rejects(limited({ maxBytes: 100_000 }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted);
  const memory = new ResultMemory(50_000);
  await assert.rejects(limited({ memory }), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RateLimited);
  assert.ok(memory.take(50_000), 'what a failed read took is given back');
  // The connection answers after each.
  assert.deepEqual((await readResult(conn, 'SELECT 1 AS one')).rows, [[1]]);
});
