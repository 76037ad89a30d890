import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { runQuery, type QueryContext } from './query-executor.js';
import { resultQuery, type ResultQuery } from './result-query.js';

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();

async function rowsOf(sql: string): Promise<unknown[][]> {
  return (await conn.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (v === null || typeof v !== 'object' ? v : String(v))));
}

test('a result as SQL: DuckDB names, HUGEINT as BIGINT, TIMESTAMP WITH TIME ZONE as TIMESTAMP (UTC), other types as they are', async () => {
  const r = await resultQuery(conn, "SELECT sum(i) AS s, count(*), CAST(TIMESTAMP '2024-01-02 03:04:05' AS TIMESTAMPTZ) AS tz, [1, 2] AS l FROM range(4) t(i)");
  assert.deepEqual(r.columns, [
    { name: 's', data_type: 'Int64' },
    { name: 'count(*)', data_type: 'Int64' },
    { name: 'tz', data_type: 'TimestampMicrosecond' },
    { name: 'l', data_type: 'List<Int32>' },
  ]);
  const described = (await conn.runAndReadAll(`DESCRIBE ${r.sql}`)).getRows().map((row) => [row[0], row[1]]);
  assert.deepEqual(described, [
    ['s', 'BIGINT'],
    ['count(*)', 'BIGINT'],
    ['tz', 'TIMESTAMP'],
    ['l', 'INTEGER[]'],
  ]);
  assert.deepEqual(await rowsOf(`SELECT s, "count(*)", CAST(tz AS VARCHAR) FROM (${r.sql})`), [[6n, 4n, '2024-01-02 03:04:05']]);
});

test('a result as SQL: names given by position, a repeated one (in any case) suffixed as DuckDB suffixes it', async () => {
  const rename = (columns: ResultQuery['columns']) => columns.map((c, i) => ({ ...c, name: ['Int64(1)', 'a', 'A', 'a_1', 'a'][i]! }));
  const r = await resultQuery(conn, 'SELECT 1, 2, 3, 4, 5', rename);
  assert.deepEqual(
    r.columns.map((c) => c.name),
    ['Int64(1)', 'a', 'A_1', 'a_1_1', 'a_2'],
  );
  assert.deepEqual(await rowsOf(`SELECT "Int64(1)", a, "A_1", a_1_1, a_2 FROM (${r.sql})`), [[1, 2, 3, 4, 5]]);
});

test('a result as SQL: a sum beyond 64 bits fails when read; a query ending in a line comment reads; a parameter is refused', async () => {
  const r = await resultQuery(conn, 'SELECT sum(n) FROM (SELECT 9223372036854775807 AS n UNION ALL SELECT 1)');
  await assert.rejects(conn.runAndReadAll(r.sql), /9223372036854775808/);
  const commented = await resultQuery(conn, 'SELECT 7 AS x -- the end');
  assert.deepEqual(await rowsOf(commented.sql), [[7]]);
  await assert.rejects(resultQuery(conn, 'SELECT $1'), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /parameter/.test(err.message));
});

/** A context with table `nums` (n = 1..5) whose relation counts its releases. */
function context(released: { n: number }): QueryContext {
  return {
    database: 'db',
    timezone: 'UTC',
    names: true,
    limits: { maxRows: 2, maxBytes: 64 },
    resolve: async () => ({ key: 'db.nums', columnNames: ['n'], relation: async () => ({ sql: 'SELECT * FROM range(1, 6) r(n)', release: () => void released.n++ }) }),
  };
}

test('runQuery with a writer: the planned result is handed over with its result names and its relations held, beyond the result limits', async () => {
  const released = { n: 0 };
  let seen: ResultQuery | undefined;
  const out = await runQuery(conn, 'SELECT n, n * 2, count(*) FROM nums GROUP BY n ORDER BY n', context(released), {
    write: async (c, result) => {
      seen = result;
      assert.equal(released.n, 0, 'the relation is held while the writer runs');
      return Number((await c.runAndReadAll(`SELECT count(*) FROM (${result.sql})`)).getRows()[0]![0]);
    },
  });
  // Five rows, past the context's limit of two: none of them was read here.
  assert.deepEqual(out, { kind: 'affected', rows: 5 });
  assert.equal(released.n, 1);
  assert.deepEqual(
    seen?.columns.map((c) => c.name),
    ['n', 'nums.n * Int64(2)', 'count(*)'],
  );
  // The same query read as rows is held to the limits.
  await assert.rejects(runQuery(conn, 'SELECT n FROM nums', context(released)), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted);
});

test('runQuery with a writer: the sandbox refuses what it refuses of a SELECT, and the writer is not called', async () => {
  let called = false;
  await assert.rejects(
    runQuery(conn, "SELECT * FROM read_csv('/etc/passwd')", context({ n: 0 }), {
      write: async () => {
        called = true;
        return 0;
      },
    }),
    (err: unknown) => err instanceof TsdbError && err.code === StatusCode.PermissionDenied,
  );
  assert.equal(called, false);
});
