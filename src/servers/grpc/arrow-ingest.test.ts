import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Binary,
  Bool,
  DateDay,
  DateMillisecond,
  Decimal,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  Table,
  TimestampNanosecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  vectorFromArray,
  makeData,
  makeVector,
  type DataType,
} from 'apache-arrow';

/** A nanosecond timestamp vector of raw values (vectorFromArray takes milliseconds). */
const tsNs = (values: bigint[]) => makeVector(makeData({ type: new TimestampNanosecond(), length: values.length, data: BigInt64Array.from(values) }));
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { TableSummary } from '../../frontend/table-summary.js';
import { ingestTableOf, planIngest } from './arrow-ingest.js';

const ALL: TableSummary = {
  name: 'all_types',
  engine: 'mito',
  physical: false,
  columns: [
    { name: 'tag', semantic: 'tag', type: 'String' },
    { name: 'ts', semantic: 'timestamp', type: 'TimestampNanosecond' },
    { name: 'i8', semantic: 'field', type: 'Int8' },
    { name: 'i16', semantic: 'field', type: 'Int16' },
    { name: 'i32', semantic: 'field', type: 'Int32' },
    { name: 'i64', semantic: 'field', type: 'Int64' },
    { name: 'u8', semantic: 'field', type: 'UInt8' },
    { name: 'u16', semantic: 'field', type: 'UInt16' },
    { name: 'u32', semantic: 'field', type: 'UInt32' },
    { name: 'u64', semantic: 'field', type: 'UInt64' },
    { name: 'f32', semantic: 'field', type: 'Float32' },
    { name: 'f64', semantic: 'field', type: 'Float64' },
    { name: 'b', semantic: 'field', type: 'Boolean' },
    { name: 'bin', semantic: 'field', type: 'Binary' },
    { name: 'd', semantic: 'field', type: 'Date' },
    { name: 'ls', semantic: 'field', type: 'String' },
  ],
};

function allTypes(n: number): Table {
  const col = <T extends DataType>(f: (i: number) => unknown, type: T) => vectorFromArray(Array.from({ length: n }, (_, i) => (i % 4 === 3 ? null : f(i))), type);
  return new Table({
    tag: col((i) => `t${i}`, new Utf8()),
    ts: tsNs(Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_007n)),
    i8: col((i) => -i, new Int8()),
    i16: col((i) => -300 * i, new Int16()),
    i32: col((i) => -70000 * i, new Int32()),
    i64: col((i) => -(2n ** 62n) + BigInt(i), new Int64()),
    u8: col((i) => 250 + (i % 5), new Uint8()),
    u16: col((i) => 65000 + i, new Uint16()),
    u32: col((i) => 4_000_000_000 + i, new Uint32()),
    u64: col((i) => 2n ** 64n - 1n - BigInt(i), new Uint64()),
    f32: col((i) => i + 0.5, new Float32()),
    f64: col((i) => i / 3, new Float64()),
    b: col((i) => i % 2 === 0, new Bool()),
    bin: col((i) => Uint8Array.from([i & 0xff, 0, 255]), new Binary()),
    d: col((i) => 86_400_000 * (19000 + i), new DateDay()),
    ls: col((i) => `large ${i} ✓`, new LargeUtf8()),
  });
}

test('arrow-ingest: every column type reads into its vector kind, NULLs included, across a sliced batch', () => {
  const whole = allTypes(40);
  const plan = planIngest(whole.schema, ALL);
  // A slice starting at an odd row: buffers keep their offset (bitmaps are not re-based).
  const slice = whole.slice(13, 37).batches[0]!;
  const t = ingestTableOf(plan, slice);
  assert.equal(t.rowCount, 24);
  const v = Object.fromEntries(t.columns.map((c) => [c.name, c.vector]));
  const row = 13; // slice row 0 is row 13; row 15 (slice row 2) is NULL everywhere but ts
  assert.deepEqual(t.columns.map((c) => [c.name, c.vector.type]), [
    ['tag', 'string'], ['ts', 'int64'], ['i8', 'float64'], ['i16', 'float64'], ['i32', 'float64'], ['i64', 'int64'],
    ['u8', 'float64'], ['u16', 'float64'], ['u32', 'float64'], ['u64', 'uint64'], ['f32', 'float64'], ['f64', 'float64'],
    ['b', 'bool'], ['bin', 'binary'], ['d', 'float64'], ['ls', 'string'],
  ]);
  assert.equal(v['tag']!.data[0], `t${row}`);
  assert.equal(v['tag']!.data[2], null);
  assert.equal((v['ts']!.data as BigInt64Array)[0], 13n * 1_000_000_007n);
  assert.deepEqual([v['i8']!.data[0], v['i16']!.data[0], v['i32']!.data[0]], [-13, -3900, -910000]);
  assert.equal((v['i64']!.data as BigInt64Array)[0], -(2n ** 62n) + 13n);
  assert.deepEqual([v['u8']!.data[0], v['u16']!.data[0], v['u32']!.data[0]], [253, 65013, 4_000_000_013]);
  assert.equal((v['u64']!.data as BigUint64Array)[0], 2n ** 64n - 14n);
  assert.deepEqual([v['f32']!.data[0], v['f64']!.data[0]], [13.5, 13 / 3]);
  // Booleans: row 13 is odd (false), row 14 even (true): read at the bitmap's offset.
  assert.deepEqual([v['b']!.data[0], v['b']!.data[1]], [0, 1]);
  assert.deepEqual(Array.from(v['bin']!.data[0] as Uint8Array), [13, 0, 255]);
  assert.equal(v['bin']!.data[2], null);
  assert.equal(v['d']!.data[0], 19013);
  assert.equal(v['ls']!.data[1], 'large 14 ✓');
  for (const name of ['i8', 'i64', 'u64', 'f64', 'b', 'd']) {
    const vec = v[name]! as { valid?: Uint8Array };
    assert.deepEqual(Array.from(vec.valid!.subarray(0, 4)), [1, 1, 0, 1], name);
  }
  assert.equal((v['ts'] as { valid?: Uint8Array }).valid, undefined);
});

test('arrow-ingest: a subset of the columns in any order; unknown, mistyped and missing time index refused', () => {
  const t = new Table({ f64: vectorFromArray([1.5], new Float64()), ts: tsNs([5n]) });
  const plan = planIngest(t.schema, ALL);
  assert.deepEqual(ingestTableOf(plan, t.batches[0]!).columns.map((c) => c.name), ['f64', 'ts']);
  const refuses = (table: Table, code: StatusCode, re: RegExp) =>
    assert.throws(() => planIngest(table.schema, ALL), (e: unknown) => e instanceof TsdbError && e.code === code && re.test(e.message));
  refuses(new Table({ ts: tsNs([5n]), nope: vectorFromArray([1], new Int32()) }), StatusCode.TableColumnNotFound, /nope/);
  refuses(new Table({ ts: tsNs([5n]), i32: vectorFromArray([1n], new Int64()) }), StatusCode.InvalidArguments, /i32 .*Int32/);
  refuses(new Table({ ts: tsNs([5n]), u8: vectorFromArray([1], new Int8()) }), StatusCode.InvalidArguments, /u8 .*UInt8.*Uint8/);
  refuses(new Table({ ts: tsNs([5n]), f32: vectorFromArray([1], new Float64()) }), StatusCode.InvalidArguments, /f32/);
  refuses(new Table({ ts: tsNs([5n]), d: vectorFromArray([1], new DateMillisecond()) }), StatusCode.InvalidArguments, /Date32<DAY>/);
  refuses(new Table({ ts: vectorFromArray([5n], new Int64()) }), StatusCode.InvalidArguments, /Timestamp<NANOSECOND>/);
  refuses(new Table({ f64: vectorFromArray([1], new Float64()) }), StatusCode.InvalidArguments, /time index column ts/);
});

test('arrow-ingest: Decimal128 of the column\'s scale reads as canonical text; another scale, or a value beyond the precision, refused', () => {
  const summary: TableSummary = {
    name: 'prices',
    engine: 'mito',
    physical: false,
    columns: [
      { name: 'ts', semantic: 'timestamp', type: 'TimestampNanosecond' },
      { name: 'p', semantic: 'field', type: 'Decimal(10, 2)' },
    ],
  };
  // Unscaled 12345, -1, NULL, 2^33 (a value across the word boundary): four little-endian words each.
  const words = (v: bigint) => Array.from({ length: 4 }, (_, k) => Number((BigInt.asUintN(128, v) >> BigInt(32 * k)) & 0xffffffffn));
  const values = Uint32Array.from([12345n, -1n, 0n, 2n ** 33n].flatMap(words));
  const dec = (scale: number, data: Uint32Array, nulls?: Uint8Array) =>
    makeVector(makeData({ type: new Decimal(scale, 10, 128), length: 4, data, ...(nulls !== undefined && { nullBitmap: nulls, nullCount: 1 }) }));
  const table = new Table({ ts: tsNs([1n, 2n, 3n, 4n]), p: dec(2, values, Uint8Array.of(0b1011)) });
  const t = ingestTableOf(planIngest(table.schema, summary), table.batches[0]!);
  assert.deepEqual(t.columns[1]!.vector, { type: 'string', data: ['123.45', '-0.01', null, '85899345.92'] });
  assert.throws(() => planIngest(new Table({ ts: tsNs([1n]), p: dec(3, Uint32Array.from(words(1n))) }).schema, summary), /Decimal128\(10, 2\)/);
  const big = new Table({ ts: tsNs([1n]), p: makeVector(makeData({ type: new Decimal(2, 12, 128), length: 1, data: Uint32Array.from(words(10n ** 11n)) })) });
  assert.throws(() => ingestTableOf(planIngest(big.schema, summary), big.batches[0]!), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && /does not fit DECIMAL\(10, 2\)/.test(e.message));
});
