import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Type, type Decimal, type RecordBatch } from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { DEFAULT_BATCH_ROWS, queryArrow } from './arrow-result.js';
import { DUCKDB_TYPE_KEY } from './arrow-scan-function.js';

const db = await DuckDBInstance.create(':memory:', { threads: '2' });

async function withConn<T>(run: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const conn = await db.connect();
  try {
    return await run(conn);
  } finally {
    conn.closeSync();
  }
}

async function readAll(batches: AsyncIterableIterator<RecordBatch>): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of batches) out.push(b);
  return out;
}

/** Rejects with a TsdbError of `code` whose message matches `message`. */
async function rejectsWith(p: Promise<unknown>, code: StatusCode, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `a TsdbError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

/** The 128-bit two's complement integer of a Decimal128 value's words. */
function int128(words: Uint32Array): bigint {
  let v = 0n;
  for (let k = 3; k >= 0; k--) v = (v << 32n) | BigInt(words[k]!);
  return BigInt.asIntN(128, v);
}

test('types map to Arrow as documented, values and NULLs read from the buffers', async () => {
  await withConn(async (conn) => {
    const { schema, batches } = await queryArrow(
      conn,
      `SELECT * FROM (VALUES
         (true, -8::TINYINT, -16::SMALLINT, -32::INTEGER, -9007199254740993::BIGINT, 200::UTINYINT, 60000::USMALLINT, 4000000000::UINTEGER, 18446744073709551615::UBIGINT,
          1.5::FLOAT, -2.25::DOUBLE, 'short', 'a string longer than twelve bytes', '\\x00\\xFF'::BLOB, DATE '1969-12-31',
          TIMESTAMP_S '2024-01-02 03:04:05', TIMESTAMP_MS '2024-01-02 03:04:05.678', TIMESTAMP '2024-01-02 03:04:05.678901', TIMESTAMP_NS '2024-01-02 03:04:05.678901234',
          TIMESTAMPTZ '2024-01-02 03:04:05.5+00', TIME '12:34:56.789', -12.34::DECIMAL(4,2), -123456.789::DECIMAL(9,3), -123456789012345.678::DECIMAL(18,3),
          -12345678901234567890123456789.12::DECIMAL(38,2), (-170141183460469231731687303715884105727::HUGEINT - 1)),
         (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
       ) t(b, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, s, ls, bl, d, ts_s, ts_ms, ts_us, ts_ns, tz, tm, d4, d9, d18, d38, h)`,
    );
    const types = Object.fromEntries(schema.fields.map((f) => [f.name, String(f.type)]));
    assert.deepEqual(types, {
      b: 'Bool',
      i8: 'Int8',
      i16: 'Int16',
      i32: 'Int32',
      i64: 'Int64',
      u8: 'Uint8',
      u16: 'Uint16',
      u32: 'Uint32',
      u64: 'Uint64',
      f32: 'Float32',
      f64: 'Float64',
      s: 'Utf8',
      ls: 'Utf8',
      bl: 'Binary',
      d: 'Date32<DAY>',
      ts_s: 'Timestamp<SECOND>',
      ts_ms: 'Timestamp<MILLISECOND>',
      ts_us: 'Timestamp<MICROSECOND>',
      ts_ns: 'Timestamp<NANOSECOND>',
      tz: 'Timestamp<MICROSECOND, UTC>',
      tm: 'Time64<MICROSECOND>',
      d4: 'Decimal[4e+2]',
      d9: 'Decimal[9e+3]',
      d18: 'Decimal[18e+3]',
      d38: 'Decimal[38e+2]',
      h: 'Decimal[38e0]',
    });
    assert.ok(schema.fields.every((f) => f.nullable));
    assert.equal(schema.fields.find((f) => f.name === 'h')!.metadata.get(DUCKDB_TYPE_KEY), 'HUGEINT');
    assert.equal(schema.fields.find((f) => f.name === 'd38')!.metadata.get(DUCKDB_TYPE_KEY), undefined);
    const all = await readAll(batches);
    assert.equal(all.length, 1);
    const batch = all[0]!;
    assert.equal(batch.numRows, 2);
    const col = (name: string) => batch.getChild(name)!;
    // Raw buffers, so that the units are checked, not Arrow's conversions to JS.
    const raw = (name: string) => (col(name).data[0]!.values as ArrayLike<number | bigint>)[0];
    assert.equal(col('b').get(0), true);
    assert.equal(col('i8').get(0), -8);
    assert.equal(col('i16').get(0), -16);
    assert.equal(col('i32').get(0), -32);
    assert.equal(col('i64').get(0), -9007199254740993n);
    assert.equal(col('u8').get(0), 200);
    assert.equal(col('u16').get(0), 60000);
    assert.equal(col('u32').get(0), 4000000000);
    assert.equal(col('u64').get(0), 18446744073709551615n);
    assert.equal(col('f32').get(0), 1.5);
    assert.equal(col('f64').get(0), -2.25);
    assert.equal(col('s').get(0), 'short');
    assert.equal(col('ls').get(0), 'a string longer than twelve bytes');
    assert.deepEqual([...(col('bl').get(0) as Uint8Array)], [0, 255]);
    assert.equal(raw('d'), -1);
    const t = Date.UTC(2024, 0, 2, 3, 4, 5);
    assert.equal(raw('ts_s'), BigInt(t / 1000));
    assert.equal(raw('ts_ms'), BigInt(t + 678));
    assert.equal(raw('ts_us'), BigInt(t) * 1000n + 678901n);
    assert.equal(raw('ts_ns'), BigInt(t) * 1000000n + 678901234n);
    assert.equal(raw('tz'), BigInt(t) * 1000n + 500000n);
    assert.equal(raw('tm'), ((12n * 60n + 34n) * 60n + 56n) * 1000000n + 789000n);
    const decimal = (name: string) => int128((col(name).data[0]!.values as Uint32Array).subarray(0, 4));
    assert.equal(decimal('d4'), -1234n);
    assert.equal(decimal('d9'), -123456789n);
    assert.equal(decimal('d18'), -123456789012345678n);
    assert.equal(decimal('d38'), -1234567890123456789012345678912n);
    assert.equal(decimal('h'), -(2n ** 127n));
    assert.equal((col('d9').type as Decimal).scale, 3);
    for (const f of schema.fields) assert.equal(col(f.name).get(1), null, f.name);
    assert.equal(col('s').nullCount, 1);
  });
});

test('chunks are gathered into batches of batchRows rows, split where a batch ends; every row in order', async () => {
  await withConn(async (conn) => {
    const rows = 100_003;
    const { batches } = await queryArrow(conn, `SELECT range AS i, CASE WHEN range % 3 = 0 THEN NULL ELSE 'v' || range END AS s, range % 2 = 0 AS b FROM range(${rows})`);
    const all = await readAll(batches);
    const sizes = all.map((b) => b.numRows);
    const full = Math.floor(rows / DEFAULT_BATCH_ROWS);
    assert.deepEqual(sizes, [...Array<number>(full).fill(DEFAULT_BATCH_ROWS), rows - full * DEFAULT_BATCH_ROWS]);
    let next = 0;
    for (const b of all) {
      const i = b.getChild('i')!.toArray() as BigInt64Array;
      const s = b.getChild('s')!;
      const bools = b.getChild('b')!;
      for (let r = 0; r < b.numRows; r++, next++) {
        assert.equal(i[r], BigInt(next));
        assert.equal(s.get(r), next % 3 === 0 ? null : `v${next}`);
        assert.equal(bools.get(r), next % 2 === 0);
      }
    }
    assert.equal(next, rows);
    // Batches that do not line up with DuckDB's chunks of 2,048 rows.
    const odd = await readAll((await queryArrow(conn, 'SELECT range AS i FROM range(5000)', { batchRows: 777 })).batches);
    assert.deepEqual(
      odd.map((b) => b.numRows),
      [777, 777, 777, 777, 777, 777, 338],
    );
    assert.deepEqual(
      odd.flatMap((b) => [...(b.getChild('i')!.toArray() as BigInt64Array)]),
      Array.from({ length: 5000 }, (_, k) => BigInt(k)),
    );
    await rejectsWith(queryArrow(conn, 'SELECT 1', { batchRows: 0 }), StatusCode.InvalidArguments, /batchRows/);
  });
});

test('a result of no rows: the schema, and no batch', async () => {
  await withConn(async (conn) => {
    const { schema, batches } = await queryArrow(conn, `SELECT range AS i, 'x' AS s, TIMESTAMP '2024-01-01' AS ts FROM range(10) WHERE range > 100`);
    assert.deepEqual(
      schema.fields.map((f) => `${f.name}:${String(f.type)}`),
      ['i:Int64', 's:Utf8', 'ts:Timestamp<MICROSECOND>'],
    );
    assert.deepEqual(await readAll(batches), []);
  });
});

test('unsupported types fail the call naming the column and type; the connection stays usable', async () => {
  await withConn(async (conn) => {
    const cases: Array<[string, RegExp]> = [
      ['SELECT 1 AS ok, [1, 2] AS l', /column l of type INTEGER\[\]/],
      ["SELECT {'a': 1} AS st", /column st of type STRUCT/],
      ["SELECT INTERVAL '1 day' AS iv", /column iv of type INTERVAL/],
      ['SELECT 1::UHUGEINT AS uh', /column uh of type UHUGEINT/],
      ["SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS u", /column u of type UUID/],
    ];
    for (const [sql, message] of cases) await rejectsWith(queryArrow(conn, sql), StatusCode.Unsupported, message);
    assert.deepEqual((await conn.runAndReadAll('SELECT 42')).getRows(), [[42]]);
  });
});

test('DuckDB errors: at the start reject the call, mid-stream the next read', async () => {
  await withConn(async (conn) => {
    await rejectsWith(queryArrow(conn, 'SELEC 1'), StatusCode.InvalidSyntax, /syntax/);
    await rejectsWith(queryArrow(conn, 'SELECT nope FROM range(3)'), StatusCode.PlanQuery, /nope/);
    // Fails when DuckDB reaches row 5,000,000, after some batches have been read (DuckDB runs ahead
    // of the reads by its streaming buffer only).
    const { batches } = await queryArrow(conn, `SELECT CASE WHEN range = 5000000 THEN error('boom at 5000000') ELSE range END AS i FROM range(10000000)`);
    let read = 0;
    // @duckdb/node-api hides DuckDB's message mid-stream: the read fails, never ends as if complete.
    await rejectsWith(
      (async () => {
        for await (const b of batches) read += b.numRows;
      })(),
      StatusCode.EngineExecuteQuery,
      /failed while its result was streamed/,
    );
    assert.ok(read > 0 && read < 5000000, `${read} rows read before the error`);
    assert.deepEqual(await batches.next(), { done: true, value: undefined });
    assert.deepEqual((await conn.runAndReadAll('SELECT 43')).getRows(), [[43]]);

    // An interrupt of the connection by someone else mid-stream fails the read the same way.
    const other = await queryArrow(conn, 'SELECT range AS i FROM range(100000000)');
    assert.equal((await other.batches.next()).done, false);
    conn.interrupt();
    await rejectsWith(readAll(other.batches), StatusCode.EngineExecuteQuery, /failed while its result was streamed/);
    assert.deepEqual((await conn.runAndReadAll('SELECT 44')).getRows(), [[44]]);
  });
});

test('abort between reads: the next read rejects (Cancelled, or the reason when a TsdbError), later ones are done, the connection is usable', async () => {
  await withConn(async (conn) => {
    const controller = new AbortController();
    const { batches } = await queryArrow(conn, 'SELECT range AS i FROM range(10000000)', { signal: controller.signal });
    const first = await batches.next();
    assert.equal(first.done, false);
    controller.abort();
    await rejectsWith(batches.next(), StatusCode.Cancelled, /cancelled/);
    assert.deepEqual(await batches.next(), { done: true, value: undefined });
    assert.deepEqual((await conn.runAndReadAll('SELECT 44')).getRows(), [[44]]);

    const killed = new AbortController();
    const reason = new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled: KILL 7');
    const stream = await queryArrow(conn, 'SELECT range AS i FROM range(10000000)', { signal: killed.signal });
    await stream.batches.next();
    killed.abort(reason);
    await assert.rejects(stream.batches.next(), (err: unknown) => err === reason);
    // Aborted before the call: no query runs.
    await rejectsWith(queryArrow(conn, 'SELECT 1', { signal: AbortSignal.abort() }), StatusCode.Cancelled, /cancelled/);
    assert.deepEqual((await conn.runAndReadAll('SELECT 45')).getRows(), [[45]]);
  });
});

/**
 * A query whose first 150,000 rows are cheap and every later row costs DuckDB an md5 of 100 KB
 * (~0.2 ms): read in batches of 100,000 rows, the first read is immediate, the second takes seconds
 * (50,000 such rows) and is stopped at a chunk's end by an interrupt.
 */
const SLOW_AFTER_150K = `SELECT range AS i, CASE WHEN range < 150000 THEN '' ELSE md5(repeat('x', 100000) || range) END AS h FROM range(1000000000)`;

test('abort while DuckDB works on the call or on a read stops it long before the query would end', async () => {
  await withConn(async (conn) => {
    // DuckDB computes the whole aggregate before the stream starts (minutes here).
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(queryArrow(conn, 'SELECT sum(range) AS s FROM range(100000000000)', { signal: controller.signal }), StatusCode.Cancelled, /cancelled/);
    assert.ok(performance.now() - started < 10_000, `stopped after ${performance.now() - started} ms`);
    assert.deepEqual((await conn.runAndReadAll('SELECT 46')).getRows(), [[46]]);

    const again = new AbortController();
    const { batches } = await queryArrow(conn, SLOW_AFTER_150K, { signal: again.signal, batchRows: 100_000 });
    assert.equal((await batches.next()).value?.numRows, 100_000);
    const at = performance.now();
    setTimeout(() => again.abort(), 200);
    await rejectsWith(batches.next(), StatusCode.Cancelled, /cancelled/);
    assert.ok(performance.now() - at < 4_000, `stopped after ${performance.now() - at} ms`);
    assert.deepEqual((await conn.runAndReadAll('SELECT 47')).getRows(), [[47]]);
  });
});

test('return(): a loop that stops early ends the stream; a read in flight is interrupted and ends done', async () => {
  await withConn(async (conn) => {
    const { batches } = await queryArrow(conn, 'SELECT range AS i FROM range(10000000)');
    let seen = 0;
    for await (const b of batches) {
      seen += b.numRows;
      break;
    }
    assert.equal(seen, DEFAULT_BATCH_ROWS);
    assert.deepEqual(await batches.next(), { done: true, value: undefined });
    assert.deepEqual((await conn.runAndReadAll('SELECT 48')).getRows(), [[48]]);

    const slow = await queryArrow(conn, SLOW_AFTER_150K, { batchRows: 100_000 });
    assert.equal((await slow.batches.next()).value?.numRows, 100_000);
    const pending = slow.batches.next();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const at = performance.now();
    assert.deepEqual(await slow.batches.return!(), { done: true, value: undefined });
    assert.ok(performance.now() - at < 4_000, `returned after ${performance.now() - at} ms`);
    assert.deepEqual(await pending, { done: true, value: undefined });
    assert.deepEqual((await conn.runAndReadAll('SELECT 49')).getRows(), [[49]]);
  });
});

test('a TIMESTAMP WITH TIME ZONE column is µs in UTC whatever the session zone', async () => {
  await withConn(async (conn) => {
    const { schema, batches } = await queryArrow(conn, "SELECT TIMESTAMPTZ '2024-06-01 12:00:00+02' AS tz");
    const [batch] = await readAll(batches);
    assert.equal(schema.fields[0]!.type.typeId, Type.Timestamp);
    assert.equal((batch!.getChild('tz')!.data[0]!.values as BigInt64Array)[0], BigInt(Date.UTC(2024, 5, 1, 10)) * 1000n);
  });
});
