/**
 * The limits of one result (`max_result_rows`, `max_result_bytes`) as `readResult` applies them
 * while it streams, and the slot cap of range queries, on a plain DuckDB.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { duckdbError, isQueryMemoryExhausted } from './duckdb-error.js';
import { runQuery } from './query-executor.js';
import { parseRangeQuery, rangeQuerySql } from './range-query.js';
import { CELL_BYTES, ROW_BYTES } from './resource-limits.js';
import { readResult } from './result-conversion.js';

async function connect(t: TestContext): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  return conn;
}

function exhausted(pattern: RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.RuntimeResourcesExhausted);
    assert.match(err.message, pattern);
    return true;
  };
}

test('a result within the limits is read whole; one row or one byte more fails naming the option', async (t) => {
  const conn = await connect(t);
  const rows = await readResult(conn, 'SELECT i, i * 2 AS j FROM range(5000) t(i)', { maxRows: 5000, maxBytes: 0 });
  assert.equal(rows.rows.length, 5000);
  assert.deepEqual(rows.rows[4999], [4999, 9998]);
  await assert.rejects(readResult(conn, 'SELECT i FROM range(5001) t(i)', { maxRows: 5000, maxBytes: 0 }), exhausted(/more than 5000 rows \(query\.max_result_rows\)/));
  // 3 rows of a 100-character string: 3 × (row + cell + 100) bytes counted.
  const sql = "SELECT repeat('x', 100) FROM range(3)";
  const bytes = 3 * (ROW_BYTES + CELL_BYTES + 100);
  assert.equal((await readResult(conn, sql, { maxRows: 0, maxBytes: bytes })).rows.length, 3);
  await assert.rejects(readResult(conn, sql, { maxRows: 0, maxBytes: bytes - 1 }), exhausted(new RegExp(`more than ${bytes - 1}B \\(query\\.max_result_bytes\\)`)));
});

test('nested values count by their items; a blob counts a number per byte', async (t) => {
  const conn = await connect(t);
  // One row: the row and its cell, the list, and its 10 items.
  const bytes = ROW_BYTES + CELL_BYTES + CELL_BYTES + 10 * CELL_BYTES;
  assert.equal((await readResult(conn, 'SELECT range(10)', { maxRows: 0, maxBytes: bytes })).rows.length, 1);
  await assert.rejects(readResult(conn, 'SELECT range(10)', { maxRows: 0, maxBytes: bytes - 1 }), exhausted(/max_result_bytes/));
  await assert.rejects(readResult(conn, "SELECT repeat('ab', 100)::BLOB", { maxRows: 0, maxBytes: 1000 }), exhausted(/max_result_bytes/));
});

test('a string too long for a JS string is refused by its length, before it is converted', async (t) => {
  const conn = await connect(t);
  // V8's longest string is 2^29 - 24 characters: converting this one would throw a RangeError.
  const sql = 'SELECT repeat(\'x\', 540000000) AS s';
  await assert.rejects(readResult(conn, sql, { maxRows: 0, maxBytes: 256 * 2 ** 20 }), exhausted(/more than 256MiB \(query\.max_result_bytes\)/));
  // The connection goes on.
  assert.deepEqual((await readResult(conn, 'SELECT 1')).rows, [[1]]);
});

const RANGE_TABLE = { timeIndex: 'ts', timeType: 'TIMESTAMP_MS', primaryKey: ['host'] };

test('a range query whose RANGE spans more slots per row than the cap is refused before it runs', () => {
  const q = parseRangeQuery("SELECT ts, host, avg(v) RANGE '1d' FROM t ALIGN '1s' BY (host)")!;
  assert.throws(() => rangeQuerySql(q, RANGE_TABLE, 0, 'UTC', 1000), exhausted(/each row in 86400 slots, more than 1000 \(query\.max_result_rows\)/));
  assert.ok(rangeQuerySql(q, RANGE_TABLE, 0, 'UTC', 0).length > 0, 'no cap: planned');
});

test("FILL over a far-future row fails inside DuckDB with the cap's error, before the slots are made", async (t) => {
  const conn = await connect(t);
  await conn.run('CREATE TABLE t (host VARCHAR, ts TIMESTAMP_MS, v DOUBLE)');
  await conn.run("INSERT INTO t VALUES ('a', make_timestamp(1700000000000000), 1), ('a', make_timestamp(1700000060000000), 2), ('b', make_timestamp(1700000000000000), 3)");
  const q = parseRangeQuery("SELECT ts, host, avg(v) RANGE '5m' FILL PREV FROM t ALIGN '1m' BY (host) ORDER BY host, ts")!;
  const sql = rangeQuerySql(q, RANGE_TABLE, 0, 'UTC', 100);
  // Normal rows: a: 6 slots (5 before its first row's… to its last), b: 5; within the cap.
  const ok = await readResult(conn, sql);
  assert.equal(ok.rows.length, 11);
  // Year ~4704 (86286002000000 ms): billions of one-minute slots for host a.
  await conn.run("INSERT INTO t VALUES ('a', make_timestamp(86286002000000000), 4)");
  const started = Date.now();
  await assert.rejects(
    readResult(conn, sql).catch((err: unknown) => {
      throw duckdbError(err);
    }),
    exhausted(/^Range query too large: FILL would make \d{10} slots .* more than 100 \(query\.max_result_rows\); narrow its time range with WHERE$/),
  );
  assert.ok(Date.now() - started < 5000, 'refused at once');
});

test("a streamed query's parse error is still a syntax error (node-api wraps it)", async (t) => {
  const conn = await connect(t);
  const err = await readResult(conn, 'TABLE (SELECT 1)').then(
    () => assert.fail('expected a parse error'),
    (e: unknown) => duckdbError(e),
  );
  assert.equal(err.code, StatusCode.InvalidSyntax);
  assert.match(err.message, /^Invalid SQL syntax: sql parser error: syntax error at or near "\("/);
});

test('NULL strings count as empty cells: the unwritten string records of a join’s NULLs are not read as lengths', async (t) => {
  const conn = await connect(t);
  // A LEFT JOIN's unmatched rows leave their 16-byte string records as they were (the old code read
  // terabytes there); only the 2,731 matched rows carry 50 characters.
  const sql =
    "SELECT b.s FROM range(8192) a(i) LEFT JOIN (SELECT i, repeat('q', 50) s FROM range(8192) t(i) WHERE i < 2048 OR i % 3 = 0) b ON a.i = b.i ORDER BY a.i";
  const matched = 2048 + Math.floor((8191 - 2049) / 3) + 1;
  const bytes = 8192 * (ROW_BYTES + CELL_BYTES) + matched * 50;
  const result = await readResult(conn, sql, { maxRows: 0, maxBytes: bytes });
  assert.equal(result.rows.filter((r) => r[0] !== null).length, matched);
  await assert.rejects(readResult(conn, sql, { maxRows: 0, maxBytes: bytes - 1 }), exhausted(/query\.max_result_bytes/));
});

test('results read at once share one pool of result memory: past it the one asking for more fails (retryable) and gives back what it took', async (t) => {
  const conn = await connect(t);
  const other = await connect(t);
  const { ResultMemory } = await import('./resource-limits.js');
  const one = 3000 * (ROW_BYTES + CELL_BYTES + 100);
  const memory = new ResultMemory(Math.floor(one * 1.5));
  const sql = "SELECT repeat('x', 100) FROM range(3000)";
  // Alone, a result fits and is given back once read.
  assert.equal((await readResult(conn, sql, { maxRows: 0, maxBytes: 0, memory })).rows.length, 3000);
  assert.equal(memory.inUse(), 0);
  // While another holds most of the pool, it does not.
  assert.equal(memory.take(one), true);
  await assert.rejects(readResult(other, sql, { maxRows: 0, maxBytes: 0, memory }), (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.RateLimited);
    assert.match(err.message, /use more than .* of the server's memory together/);
    return true;
  });
  assert.equal(memory.inUse(), one);
  memory.give(one);
  assert.equal(memory.inUse(), 0);
});

test('a query failing on a later row fails whole: no truncated result', async (t) => {
  const conn = await connect(t);
  // The cast fails only past row 3,000,000: the first chunks stream before it does.
  const sql = "SELECT CASE WHEN i < 3000000 THEN i ELSE 'x'::VARCHAR::INT END AS v FROM range(4000000) t(i)";
  await assert.rejects(readResult(conn, sql), (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.EngineExecuteQuery);
    return true;
  });
  // The connection still answers.
  assert.deepEqual((await readResult(conn, 'SELECT 1 AS one')).rows, [[1]]);
});

test("DuckDB's pool used up while a query is parsed is the pool's error (the caller waits and retries), not an internal one", async () => {
  // A connection whose every call fails as DuckDB does when other queries hold all its memory.
  const full = { runAndReadAll: async () => { throw new Error('Out of Memory Error: failed to allocate data of size 256.0 KiB (127.9 MiB/128.0 MiB used)'); } } as unknown as DuckDBConnection;
  await assert.rejects(runQuery(full, 'SELECT 1', { database: 'public', timezone: 'UTC', resolve: async () => { throw new Error('no tables'); } }), (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.RuntimeResourcesExhausted);
    assert.ok(isQueryMemoryExhausted(err));
    return true;
  });
});
