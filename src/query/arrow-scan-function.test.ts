import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  Field,
  Float16,
  Float32,
  Int32,
  Int64,
  Int8,
  IntervalDayTime,
  LargeBinary,
  LargeUtf8,
  List,
  makeData,
  makeVector,
  Null,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  TimeMicrosecond,
  TimeMillisecond,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint64,
  Utf8,
  vectorFromArray,
  type Data,
  type DataType,
} from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { queryArrow } from './arrow-result.js';
import { ARROW_SCAN_FUNCTION, publishArrow, registerArrowScan } from './arrow-scan-function.js';

const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const setup = await db.connect();
registerArrowScan(setup);
// Registering again is harmless.
registerArrowScan(setup);

async function withConn<T>(run: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const conn = await db.connect();
  try {
    return await run(conn);
  } finally {
    conn.closeSync();
  }
}

async function json(conn: DuckDBConnection, sql: string): Promise<string> {
  return JSON.stringify((await conn.runAndReadAll(sql)).getRowsJson());
}

/** The batches through Arrow IPC, as a region server's answer crosses the network. */
function throughIpc(batches: RecordBatch[], schema: Schema): { schema: Schema; batches: RecordBatch[] } {
  const table = tableFromIPC(tableToIPC(new Table(schema, batches), 'stream'));
  return { schema: table.schema, batches: table.batches };
}

/** A query yielding every type of the bridge, a NULL in every column of every 7th row. */
function everyType(rows: number): string {
  return `SELECT i AS ord, i % 2 = 0 AS b, (i % 100)::TINYINT AS i8, (i % 30000)::SMALLINT AS i16, i::INTEGER AS i32, i::BIGINT * 1000000000 AS i64,
      (i % 200)::UTINYINT AS u8, (i % 60000)::USMALLINT AS u16, i::UINTEGER AS u32, i::UBIGINT * 1000000000000 AS u64, i / 3::FLOAT AS f32, i / 7 AS f64,
      CASE i % 4 WHEN 0 THEN '' WHEN 1 THEN 'exactly12byt' WHEN 2 THEN 'thirteen_byte' ELSE 'ünïcødé ✓ ' || i END AS s,
      repeat('long', i % 5) || i AS ls, ('\\x00\\xFF' || i)::BLOB AS bl, DATE '2024-01-01' + i::INTEGER AS d,
      TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND AS ts, (TIMESTAMP '2024-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_S AS ts_s,
      (TIMESTAMP '2024-01-01' + INTERVAL (i) MILLISECOND)::TIMESTAMP_MS AS ts_ms, ('2024-01-01 00:00:00.' || lpad(i::VARCHAR, 9, '0'))::TIMESTAMP_NS AS ts_ns,
      TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) SECOND AS tz, TIME '01:02:03' + INTERVAL (i) MICROSECOND AS t,
      ((i % 79) * -1.25)::DECIMAL(4,2) AS d4, (i * -1.5)::DECIMAL(9,3) AS d9, (i * 1234567.891)::DECIMAL(18,3) AS d18,
      (i::HUGEINT * 100000000000000000000)::DECIMAL(38,2) AS d38, (i % 999)::HUGEINT * -170141183460469231731687303715884105 AS h
    FROM (SELECT range AS r, CASE WHEN range % 7 = 3 THEN NULL ELSE range END AS i FROM range(${rows})) ORDER BY r`;
}

test('DuckDB → queryArrow → Arrow IPC → publishArrow → DuckDB equals the direct query, every type with NULLs', async () => {
  await withConn(async (conn) => {
    const sql = everyType(5000);
    // Batches of 999 rows: DuckDB's chunks of 2,048 rows take pieces of several batches, NULLs on no byte boundary.
    const stream = await queryArrow(conn, sql, { batchRows: 999 });
    const read: RecordBatch[] = [];
    for await (const b of stream.batches) read.push(b);
    assert.equal(read.length, 6);
    const { schema, batches } = throughIpc(read, stream.schema);
    const pub = publishArrow(schema, batches);
    try {
      assert.equal(await json(conn, `SELECT * FROM ${pub.sql}`), await json(conn, sql));
      // The types as DuckDB's own (HUGEINT back from its metadata).
      const types = async (q: string) => (await conn.runAndReadAll(q)).columnTypes().map(String);
      assert.deepEqual(await types(`SELECT * FROM ${pub.sql}`), await types(sql));
    } finally {
      pub.dispose();
    }
  });
});

test('150,000 rows across many batches: the same rows, in order, and the same aggregates (ordered or not)', async () => {
  await withConn(async (conn) => {
    const sql = everyType(150_000);
    const stream = await queryArrow(conn, sql);
    const batches: RecordBatch[] = [];
    for await (const b of stream.batches) batches.push(b);
    assert.equal(batches.length, Math.ceil(150_000 / 8192));
    const pub = publishArrow(stream.schema, batches);
    try {
      assert.equal((await conn.runAndReadAll(`SELECT count(*) FROM ${pub.sql}`)).getRows()[0]![0], 150_000n);
      // Each column's values with their row: order and content.
      const digest = (from: string) => `SELECT count(*), sum(hash(ord, COLUMNS(* EXCLUDE (ord)))) FROM (${from})`;
      assert.equal(await json(conn, digest(`SELECT row_number() OVER () AS ord, * EXCLUDE (ord) FROM ${pub.sql}`)), await json(conn, digest(`SELECT row_number() OVER () AS ord, * EXCLUDE (ord) FROM (${sql})`)));
      const agg = (from: string) => `SELECT i8, count(*), count(s), sum(i64), min(ts_ns), max(ls), sum(d18), min(h), max(d38) FROM ${from} GROUP BY i8 ORDER BY i8`;
      const direct = await json(conn, agg(`(${sql})`));
      assert.equal(await json(conn, agg(pub.sql)), direct);
      // Unordered: two DuckDB threads read chunks in any order; the same rows all the same.
      const unordered = publishArrow(stream.schema, batches, { ordered: false });
      try {
        assert.equal(await json(conn, agg(unordered.sql)), direct);
        const rowsDigest = (from: string) => `SELECT count(*), sum(hash(COLUMNS(*))) FROM ${from}`;
        assert.equal(await json(conn, rowsDigest(unordered.sql)), await json(conn, rowsDigest(`(${sql})`)));
      } finally {
        unordered.dispose();
      }
    } finally {
      pub.dispose();
    }
  });
});

/** A column of `type` from explicit buffers. */
function column(props: Record<string, unknown>): Data {
  return makeData(props as never) as Data;
}

test('hand-built batches: large strings and binaries, dictionaries, sliced batches, Null, units, zones and decimals', async () => {
  const fields = [
    new Field('ls', new LargeUtf8()),
    new Field('lb', new LargeBinary()),
    new Field('dict', new Dictionary(new Utf8(), new Int8())),
    new Field('bool', new Bool()),
    new Field('n', new Null()),
    new Field('day', new DateDay()),
    new Field('ts_s', new TimestampSecond()),
    new Field('ts_ms', new TimestampMillisecond()),
    new Field('ts_ns', new TimestampNanosecond()),
    new Field('tz', new TimestampMicrosecond('Europe/Paris')),
    new Field('tm', new TimeMicrosecond()),
    new Field('dec5', new Decimal(2, 5, 128)),
    new Field('dec20', new Decimal(4, 20, 128)),
    new Field('f32', new Float32()),
  ];
  const schema = new Schema(fields);
  const rows = 5;
  const dictionary = vectorFromArray(['short', null, 'a dictionary value longer than twelve bytes'], new Utf8());
  // Decimal128 words of each value, little-endian two's complement.
  const words = (values: bigint[]) => {
    const out = new Uint32Array(values.length * 4);
    values.forEach((v, i) => {
      let x = BigInt.asUintN(128, v);
      for (let k = 0; k < 4; k++, x >>= 32n) out[i * 4 + k] = Number(x & 0xffffffffn);
    });
    return out;
  };
  // NULL in row 3 everywhere (bit 3 clear).
  const nulls = () => Uint8Array.from([0b11110111]);
  const children = [
    vectorFromArray(['a', 'twelve bytes', 'thirteen byte', null, 'ü'], new LargeUtf8()).data[0]!,
    vectorFromArray([Uint8Array.from([1]), Uint8Array.from([]), Uint8Array.from(Array.from({ length: 20 }, (_, k) => k)), null, Uint8Array.from([255])], new LargeBinary()).data[0]!,
    // Index 1 is the dictionary's NULL entry; row 3 a NULL index.
    column({ type: fields[2]!.type, length: rows, nullBitmap: nulls(), data: Int8Array.from([0, 1, 2, 0, 2]), dictionary }),
    column({ type: new Bool(), length: rows, nullBitmap: nulls(), data: Uint8Array.from([0b00010101]) }),
    column({ type: new Null(), length: rows }),
    column({ type: new DateDay(), length: rows, nullBitmap: nulls(), data: Int32Array.from([0, -1, 19723, 0, 1]) }),
    column({ type: new TimestampSecond(), length: rows, nullBitmap: nulls(), data: BigInt64Array.from([0n, 1n, 1704067200n, 0n, -1n]) }),
    column({ type: new TimestampMillisecond(), length: rows, nullBitmap: nulls(), data: BigInt64Array.from([0n, 1n, 1704067200123n, 0n, -1n]) }),
    column({ type: new TimestampNanosecond(), length: rows, nullBitmap: nulls(), data: BigInt64Array.from([0n, 1n, 1704067200123456789n, 0n, -1n]) }),
    column({ type: fields[9]!.type, length: rows, nullBitmap: nulls(), data: BigInt64Array.from([0n, 1n, 1704067200123456n, 0n, -1n]) }),
    column({ type: new TimeMicrosecond(), length: rows, nullBitmap: nulls(), data: BigInt64Array.from([0n, 1n, 45296789000n, 0n, 86399999999n]) }),
    column({ type: fields[11]!.type, length: rows, nullBitmap: nulls(), data: words([12345n, -1n, -99999n, 0n, 0n]) }),
    column({ type: fields[12]!.type, length: rows, nullBitmap: nulls(), data: words([10n ** 19n + 1n, -(10n ** 19n) - 1n, 5n, 0n, -99999999999999999999n]) }),
    column({ type: new Float32(), length: rows, nullBitmap: nulls(), data: Float32Array.from([1.5, -0, Number.NaN, 0, Number.POSITIVE_INFINITY]) }),
  ];
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: rows, nullCount: 0, children }));
  // The same rows as one batch, and as slices of it (offsets into the bitmaps and buffers).
  const sliced = [batch.slice(0, 1), batch.slice(1, 4), batch.slice(4, 5)];
  await withConn(async (conn) => {
    const lb2 = Array.from({ length: 20 }, (_, k) => `\\x${k.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const expected = [
      ['a', '\\x01', 'short', true, null, '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', '00:00:00', '123.45', '1000000000000000.0001', 1.5],
      ['twelve bytes', '', null, false, null, '1969-12-31', '1970-01-01 00:00:01', '1970-01-01 00:00:00.001', '1970-01-01 00:00:00.000000001', '1970-01-01 00:00:00.000001+00', '00:00:00.000001', '-0.01', '-1000000000000000.0001', -0],
      ['thirteen byte', lb2, 'a dictionary value longer than twelve bytes', true, null, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00.123', '2024-01-01 00:00:00.123456789', '2024-01-01 00:00:00.123456+00', '12:34:56.789', '-999.99', '0.0005', 'NaN'],
      [null, null, null, null, null, null, null, null, null, null, null, null, null, null],
      ['ü', '\\xFF', 'a dictionary value longer than twelve bytes', true, null, '1970-01-02', '1969-12-31 23:59:59', '1969-12-31 23:59:59.999', '1969-12-31 23:59:59.999999999', '1969-12-31 23:59:59.999999+00', '23:59:59.999999', '0.00', '-9999999999999999.9999', 'Infinity'],
    ];
    for (const batches of [[batch], sliced]) {
      const pub = publishArrow(schema, batches);
      try {
        const result = await conn.runAndReadAll(`SELECT * FROM ${pub.sql}`);
        assert.deepEqual(
          result.columnTypes().map(String),
          // DuckDB gives a "NULL" column of a query as INTEGER; typeof says what the scan made it.
          ['VARCHAR', 'BLOB', 'VARCHAR', 'BOOLEAN', 'INTEGER', 'DATE', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE', 'TIME', 'DECIMAL(5,2)', 'DECIMAL(20,4)', 'FLOAT'],
        );
        assert.deepEqual(result.getRowsJson(), expected);
        assert.deepEqual((await conn.runAndReadAll(`SELECT DISTINCT typeof(n) FROM ${pub.sql}`)).getRows(), [['"NULL"']]);
      } finally {
        pub.dispose();
      }
    }
  });
});

test('projection pushdown: only the columns a query names are read', async () => {
  // Column `bad` holds a dictionary index past its dictionary: reading it fails.
  const fields = [new Field('good', new Int32()), new Field('bad', new Dictionary(new Utf8(), new Int32())), new Field('other', new Utf8())];
  const schema = new Schema(fields);
  const children = [
    vectorFromArray(Int32Array.from([1, 2, 3])).data[0]!,
    column({ type: fields[1]!.type, length: 3, data: Int32Array.from([0, 7, 0]), dictionary: vectorFromArray(['x'], new Utf8()) }),
    vectorFromArray(['a', 'b', 'c'], new Utf8()).data[0]!,
  ];
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: 3, nullCount: 0, children }));
  const pub = publishArrow(schema, [batch]);
  try {
    await withConn(async (conn) => {
      assert.deepEqual((await conn.runAndReadAll(`SELECT good FROM ${pub.sql}`)).getRows(), [[1], [2], [3]]);
      assert.deepEqual((await conn.runAndReadAll(`SELECT other, good FROM ${pub.sql} WHERE good > 1`)).getRows(), [['b', 2], ['c', 3]]);
      assert.deepEqual((await conn.runAndReadAll(`SELECT count(*) FROM ${pub.sql}`)).getRows(), [[3n]]);
      await assert.rejects(conn.runAndReadAll(`SELECT bad FROM ${pub.sql}`), /column bad: dictionary index 7 outside its 1 values/);
    });
  } finally {
    pub.dispose();
  }
});

test('two publications at once: each reads its own batches, in one query and in concurrent ones', async () => {
  const make = (offset: number, rows: number) => {
    const v = vectorFromArray(BigInt64Array.from({ length: rows }, (_, k) => BigInt(offset + k)));
    const s = vectorFromArray(Array.from({ length: rows }, (_, k) => `row ${offset + k}`), new Utf8());
    const fields = [new Field('v', new Int64()), new Field('s', new Utf8())];
    const schema = new Schema(fields);
    const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: rows, nullCount: 0, children: [v.data[0]!, s.data[0]!] }));
    return publishArrow(schema, [batch, batch.slice(0, 10)]);
  };
  const a = make(0, 30_000);
  const b = make(1_000_000, 20_000);
  try {
    assert.notEqual(a.id, b.id);
    await withConn(async (conn) => {
      const both = await conn.runAndReadAll(`SELECT (SELECT count(*) FROM ${a.sql}), (SELECT sum(v) FROM ${a.sql}), (SELECT count(*) FROM ${b.sql}), (SELECT max(s) FROM ${b.sql})`);
      assert.deepEqual(both.getRows(), [[30_010n, 449_985_045n, 20_010n, 'row 1019999']]);
    });
    const sums = await Promise.all(
      [a, b, a, b].map((p) => withConn(async (conn) => (await conn.runAndReadAll(`SELECT sum(v), count(DISTINCT s) FROM ${p.sql}`)).getRows()[0])),
    );
    assert.deepEqual(sums, [
      [449_985_045n, 30_000n],
      [20_010n * 1_000_000n + 199_990_045n, 20_000n],
      [449_985_045n, 30_000n],
      [20_010n * 1_000_000n + 199_990_045n, 20_000n],
    ]);
  } finally {
    a.dispose();
    b.dispose();
  }
});

test('dispose: a query of a disposed publication fails clearly; disposing twice is harmless', async () => {
  const fields = [new Field('x', new Int32())];
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: 2, nullCount: 0, children: [vectorFromArray(Int32Array.from([1, 2])).data[0]!] }));
  const pub = publishArrow(schema, [batch]);
  assert.equal(pub.sql, `${ARROW_SCAN_FUNCTION}('${pub.id}')`);
  await withConn(async (conn) => {
    assert.deepEqual((await conn.runAndReadAll(`SELECT * FROM ${pub.sql}`)).getRows(), [[1], [2]]);
    pub.dispose();
    pub.dispose();
    await assert.rejects(conn.runAndReadAll(`SELECT * FROM ${pub.sql}`), new RegExp(`no Arrow record batches published as ${pub.id} \\(disposed, or never published\\)`));
    await assert.rejects(conn.runAndReadAll(`SELECT * FROM ${ARROW_SCAN_FUNCTION}('nope')`), /no Arrow record batches published as nope/);
  });
});

test('no rows: the columns and their types, and nothing to read', async () => {
  const fields = [new Field('ts', new TimestampMillisecond()), new Field('host', new Utf8()), new Field('v', new Uint64())];
  const schema = new Schema(fields);
  const empty = new RecordBatch(schema, makeData({ type: new Struct(fields), length: 0, nullCount: 0, children: fields.map((f) => makeVector(makeData({ type: f.type as DataType, length: 0 } as never)).data[0]!) }));
  for (const batches of [[], [empty]]) {
    const pub = publishArrow(schema, batches);
    try {
      await withConn(async (conn) => {
        const result = await conn.runAndReadAll(`SELECT * FROM ${pub.sql}`);
        assert.deepEqual(result.columnNames(), ['ts', 'host', 'v']);
        assert.deepEqual(result.columnTypes().map(String), ['TIMESTAMP_MS', 'VARCHAR', 'UBIGINT']);
        assert.deepEqual(result.getRows(), []);
      });
    } finally {
      pub.dispose();
    }
  }
  // And queryArrow's empty answer publishes the same way.
  await withConn(async (conn) => {
    const { schema: s, batches } = await queryArrow(conn, 'SELECT 1::INTEGER AS a, 2.5::DECIMAL(6,1) AS d WHERE false');
    const all: RecordBatch[] = [];
    for await (const b of batches) all.push(b);
    const pub = publishArrow(s, all);
    try {
      const result = await conn.runAndReadAll(`SELECT * FROM ${pub.sql}`);
      assert.deepEqual(result.columnTypes().map(String), ['INTEGER', 'DECIMAL(6,1)']);
      assert.equal(result.getRows().length, 0);
    } finally {
      pub.dispose();
    }
  });
});

test('types DuckDB cannot be given fail at publish time, naming the column and its type', () => {
  const cases: Array<[DataType, RegExp]> = [
    [new Float16(), /column c of type Float16: half-precision floats/],
    [new List(new Field('item', new Int32())), /column c of type List<Int32>/],
    [new Struct([new Field('a', new Int32())]), /column c of type Struct<\{a:Int32\}>/],
    [new IntervalDayTime(), /column c of type Interval/],
    [new TimestampMillisecond('UTC'), /column c of type Timestamp<MILLISECOND, UTC>: timestamps with a time zone/],
    [new DateMillisecond(), /column c of type Date64<MILLISECOND>/],
    [new TimeMillisecond(), /column c of type Time32<MILLISECOND>/],
    [new Dictionary(new Utf8(), new Int64() as never), /column c of type Dictionary<Int64, Utf8>: dictionaries with 64-bit indices/],
    [new Dictionary(new Int32(), new Int32()), /dictionaries of values other than Utf8 or Binary/],
    [new Decimal(2, 40, 256), /256-bit decimals/],
  ];
  for (const [type, message] of cases) {
    const schema = new Schema([new Field('ok', new Binary()), new Field('c', type)]);
    assert.throws(
      () => publishArrow(schema, []),
      (err: unknown) => err instanceof TsdbError && err.code === StatusCode.Unsupported && message.test(err.message),
      String(type),
    );
  }
});

test('a batch that does not match its schema, or a schema naming a column twice, is refused at publish time', () => {
  const fields = [new Field('x', new Int32())];
  const schema = new Schema(fields);
  const other = [new Field('x', new Utf8())];
  const wrong = new RecordBatch(new Schema(other), makeData({ type: new Struct(other), length: 1, nullCount: 0, children: [vectorFromArray(['a'], new Utf8()).data[0]!] }));
  assert.throws(() => publishArrow(schema, [wrong]), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /column x does not hold Int32 values/.test(err.message));
  // A buffer shorter than the rows it claims (the copy into DuckDB is not bounds-checked).
  const short = new RecordBatch(schema, makeData({ type: new Struct(fields), length: 4, nullCount: 0, children: [makeData({ type: new Int32(), length: 4, data: Int32Array.from([1, 2]) })] }));
  assert.throws(() => publishArrow(schema, [short]), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments);
  // DuckDB refuses a relation naming a column twice, whatever the case.
  const twice = new Schema([new Field('Host', new Utf8()), new Field('host', new Int32())]);
  assert.throws(() => publishArrow(twice, []), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /column host is named twice/.test(err.message));
  const twoColumns = new Schema([...fields, new Field('y', new Int8())]);
  assert.throws(() => publishArrow(twoColumns, [new RecordBatch(schema, short.data)]), /has 1 columns, its schema 2/);
});
