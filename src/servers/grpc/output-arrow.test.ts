import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DataType, Table, TimeUnit, tableFromIPC, Type } from 'apache-arrow';
import type { Cell, OutputColumn } from '../../query/output.js';
import { IpcMessageEncoder, ipcStreamOf } from './arrow-ipc.js';
import { arrowBatches, arrowSchemaOf } from './output-arrow.js';

const COLUMNS: OutputColumn[] = [
  { name: 'i8', data_type: 'Int8' },
  { name: 'i16', data_type: 'Int16' },
  { name: 'i32', data_type: 'Int32' },
  { name: 'i64', data_type: 'Int64' },
  { name: 'u8', data_type: 'UInt8' },
  { name: 'u16', data_type: 'UInt16' },
  { name: 'u32', data_type: 'UInt32' },
  { name: 'u64', data_type: 'UInt64' },
  { name: 'f32', data_type: 'Float32' },
  { name: 'f64', data_type: 'Float64' },
  { name: 's', data_type: 'String' },
  { name: 'b', data_type: 'Boolean' },
  { name: 'bin', data_type: 'Binary' },
  { name: 'd', data_type: 'Date' },
  { name: 'ts_s', data_type: 'TimestampSecond' },
  { name: 'ts_ms', data_type: 'TimestampMillisecond' },
  { name: 'ts_us', data_type: 'TimestampMicrosecond' },
  { name: 'ts_ns', data_type: 'TimestampNanosecond' },
  { name: 'n', data_type: 'Null' },
  { name: 'dec', data_type: 'Decimal(10, 2)' },
  { name: 't', data_type: 'TimeMicrosecond' },
  { name: 'iv', data_type: 'IntervalMonthDayNano' },
  { name: 'l', data_type: 'List<Int64>' },
];

const ROWS: Cell[][] = [
  [-128, -32768, -2147483648, -9223372036854775808n, 255, 65535, 4294967295, 18446744073709551615n, 1.5, -0.25, 'héllo', true, [0, 255, 7], 19000, 1, 1700000000123, 1700000000123456, 1700000000123456789n, null, '-12.34', '12:34:56.5', '1 month 2 days', [1, 2]],
  [null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
  [1, 2, 3, 4, 5, 6, 7, 8, 9, Number.NaN, '', false, [], 0, 0, 0, 0, 0, null, '0.5', '00:00:00', '00:00:00', []],
];

function roundTrip(columns: OutputColumn[], rows: Cell[][], opts = {}): Table {
  const schema = arrowSchemaOf(columns);
  const enc = new IpcMessageEncoder();
  const msgs = [...enc.start(schema)];
  for (const b of arrowBatches(schema, columns, rows, opts)) msgs.push(...enc.write(b));
  return tableFromIPC(ipcStreamOf(msgs));
}

test('output-arrow: each tsdb type has its Arrow type, every field nullable', () => {
  const schema = arrowSchemaOf(COLUMNS);
  type Loose = DataType & { bitWidth: number; isSigned: boolean; precision: number; scale: number; unit: TimeUnit; timezone?: string | null };
  const t = (name: string): Loose => schema.fields.find((f) => f.name === name)!.type as unknown as Loose;
  assert.ok(schema.fields.every((f) => f.nullable));
  assert.deepEqual(['i8', 'i16', 'i32', 'i64'].map((n) => [t(n).typeId, t(n).bitWidth, t(n).isSigned]), [[Type.Int, 8, true], [Type.Int, 16, true], [Type.Int, 32, true], [Type.Int, 64, true]]);
  assert.deepEqual(['u8', 'u16', 'u32', 'u64'].map((n) => [t(n).bitWidth, t(n).isSigned]), [[8, false], [16, false], [32, false], [64, false]]);
  assert.ok(DataType.isFloat(t('f32')) && t('f32').precision === 1);
  assert.ok(DataType.isFloat(t('f64')) && t('f64').precision === 2);
  assert.ok(DataType.isUtf8(t('s')) && DataType.isBool(t('b')) && DataType.isBinary(t('bin')) && DataType.isDate(t('d')));
  assert.deepEqual(['ts_s', 'ts_ms', 'ts_us', 'ts_ns'].map((n) => [t(n).typeId, t(n).unit, t(n).timezone ?? null]), [
    [Type.Timestamp, TimeUnit.SECOND, null],
    [Type.Timestamp, TimeUnit.MILLISECOND, null],
    [Type.Timestamp, TimeUnit.MICROSECOND, null],
    [Type.Timestamp, TimeUnit.NANOSECOND, null],
  ]);
  assert.equal(t('n').typeId, Type.Null);
  assert.ok(DataType.isDecimal(t('dec')) && t('dec').precision === 10 && t('dec').scale === 2);
  assert.ok(DataType.isTime(t('t')) && t('t').unit === TimeUnit.MICROSECOND);
  assert.ok(DataType.isUtf8(t('iv')) && DataType.isUtf8(t('l')));
});

test('output-arrow: values and NULLs survive an IPC round trip, 64-bit values exactly', () => {
  const back = roundTrip(COLUMNS, ROWS);
  assert.equal(back.numRows, 3);
  const col = (n: string) => back.getChild(n)!;
  assert.deepEqual([col('i8').get(0), col('i16').get(0), col('i32').get(0)], [-128, -32768, -2147483648]);
  assert.equal(col('i64').get(0), -9223372036854775808n);
  assert.deepEqual([col('u8').get(0), col('u16').get(0), col('u32').get(0)], [255, 65535, 4294967295]);
  assert.equal(col('u64').get(0), 18446744073709551615n);
  assert.equal(col('f32').get(0), 1.5);
  assert.equal(col('f64').get(0), -0.25);
  assert.ok(Number.isNaN(col('f64').get(2)));
  assert.equal(col('s').get(0), 'héllo');
  assert.equal(col('s').get(2), '');
  assert.deepEqual([col('b').get(0), col('b').get(2)], [true, false]);
  assert.deepEqual(Array.from(col('bin').get(0) as Uint8Array), [0, 255, 7]);
  assert.deepEqual(Array.from(col('bin').get(2) as Uint8Array), []);
  // Date32 days, read back by apache-arrow as epoch milliseconds.
  assert.equal(col('d').get(0), 19000 * 86_400_000);
  const raw = (n: string) => (back.getChild(n)!.data[0]!.values as BigInt64Array)[0];
  assert.deepEqual(['ts_s', 'ts_ms', 'ts_us', 'ts_ns'].map(raw), [1n, 1700000000123n, 1700000000123456n, 1700000000123456789n]);
  assert.equal(raw('t'), ((12n * 60n + 34n) * 60n + 56n) * 1_000_000n + 500_000n);
  const dec = back.getChild('dec')!.data[0]!.values as Uint32Array;
  assert.equal(BigInt.asIntN(128, BigInt(dec[0]!) | (BigInt(dec[1]!) << 32n) | (BigInt(dec[2]!) << 64n) | (BigInt(dec[3]!) << 96n)), -1234n);
  assert.equal(dec[8], 50);
  assert.equal(col('iv').get(0), '1 month 2 days');
  assert.equal(col('l').get(0), '[1,2]');
  for (const c of COLUMNS) assert.equal(back.getChild(c.name)!.get(1), null, c.name);
  assert.equal(col('n').nullCount, 3);
});

test('output-arrow: batches are cut by rows and by size, and an empty result has no batch', () => {
  const columns: OutputColumn[] = [{ name: 'x', data_type: 'Int64' }, { name: 's', data_type: 'String' }];
  const rows: Cell[][] = Array.from({ length: 20_000 }, (_, i) => [i, `row ${i}`]);
  const schema = arrowSchemaOf(columns);
  assert.deepEqual([...arrowBatches(schema, columns, rows)].map((b) => b.numRows), [8192, 8192, 3616]);
  assert.deepEqual([...arrowBatches(schema, columns, rows, { maxRows: 7000 })].map((b) => b.numRows), [7000, 7000, 6000]);
  const bySize = [...arrowBatches(schema, columns, rows, { maxBytes: 64 * 1024 })];
  assert.ok(bySize.length > 3 && bySize.every((b) => b.numRows > 0));
  assert.equal(bySize.reduce((n, b) => n + b.numRows, 0), 20_000);
  const big: Cell[][] = [['x'.repeat(100_000)], ['y']];
  assert.deepEqual([...arrowBatches(arrowSchemaOf([{ name: 's', data_type: 'String' }]), [{ name: 's', data_type: 'String' }], big, { maxBytes: 1000 })].map((b) => b.numRows), [1, 1]);
  assert.deepEqual([...arrowBatches(schema, columns, [])], []);
  const back = roundTrip(columns, rows, { maxRows: 5000 });
  assert.equal(back.numRows, 20_000);
  assert.equal(back.getChild('s')!.get(19_999), 'row 19999');
  assert.equal(back.getChild('x')!.get(12_345), 12345n);
});

test('output-arrow: 64-bit columns take numbers (either sign, up to 2^53) and bigints alike', () => {
  const columns: OutputColumn[] = [{ name: 'i', data_type: 'Int64' }, { name: 'u', data_type: 'UInt64' }, { name: 't', data_type: 'TimestampMillisecond' }];
  const rows: Cell[][] = [
    [-5, 0, -1],
    [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, -1_700_000_000_123],
    [9007199254740993n, 18446744073709551615n, 4294967296],
    [-4294967296, 4294967295, 4294967297],
  ];
  const back = roundTrip(columns, rows);
  const raw = (n: string) => Array.from(back.getChild(n)!.data[0]!.values as BigInt64Array | BigUint64Array);
  assert.deepEqual(raw('i'), [-5n, BigInt(Number.MIN_SAFE_INTEGER), 9007199254740993n, -4294967296n]);
  assert.deepEqual(raw('u'), [0n, BigInt(Number.MAX_SAFE_INTEGER), 18446744073709551615n, 4294967295n]);
  assert.deepEqual(raw('t'), [-1n, -1_700_000_000_123n, 4294967296n, 4294967297n]);
});
