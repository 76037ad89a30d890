import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cell, OutputColumn } from '../../query/output.js';
import { DATA_ROW_CHUNK_BYTES, DataRowEncoder, zoneEncodeOptions } from './data-rows.js';
import { dataRow, type FormatCode } from './messages.js';
import { cellEncoder } from './types.js';

/** The reference: a cell encoder per column and a Buffer per DataRow, as the server wrote rows before. */
function reference(columns: readonly OutputColumn[], rows: readonly (readonly Cell[])[], formats: readonly FormatCode[], timeZone: string): Buffer {
  const opts = zoneEncodeOptions(timeZone);
  const enc = columns.map((c, k) => cellEncoder(c.data_type, formats[k]!, opts));
  return Buffer.concat(rows.map((r) => dataRow(r.map((cell, k) => enc[k]!(cell)))));
}

function encoded(columns: readonly OutputColumn[], rows: readonly (readonly Cell[])[], formats: readonly FormatCode[], timeZone: string): { bytes: Buffer; chunks: number } {
  const enc = new DataRowEncoder(columns, formats, timeZone);
  const parts: Buffer[] = [];
  for (let r = 0; r < rows.length; ) {
    const { bytes, next } = enc.encode(rows, r, rows.length);
    assert.ok(next > r, 'encode() moves on');
    parts.push(Buffer.from(bytes));
    r = next;
  }
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

function assertSameBytes(actual: Buffer, expected: Buffer, what: string): void {
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(`${what}: bytes differ from offset ${at} (${actual.length} against ${expected.length} bytes): ${actual.subarray(at, at + 24).toString('hex')} against ${expected.subarray(at, at + 24).toString('hex')}`);
}

const DOUBLES = [
  1.5, -0, 0, Number.NaN, Infinity, -Infinity, 0.1 + 0.2, 1e-4, 9.999999999999999e-5, 1e-5, 0.0001234, 1e15, 999999999999999.9, 1e15 - 1, 123456789012345.67,
  1e21, 1e-7, 5e-324, Number.MAX_VALUE, -2.5e-5, 42, -1234.5678, 100, 2 ** 53, 1 / 3, -(2 ** 31),
];

/** Each type with cells of every shape a result holds. */
const CASES: ReadonlyArray<{ dataType: string; cells: readonly Cell[]; binaryRefused?: boolean }> = [
  { dataType: 'Boolean', cells: [true, false, 1, 0, 't', 'f', 'true', '1', 'no', null] },
  { dataType: 'Int8', cells: [-128, 127, 0, null] },
  { dataType: 'Int16', cells: [-32768, 32767, -0, null] },
  { dataType: 'Int32', cells: [-2147483648, 2147483647, 0, -0, 7n, null] },
  { dataType: 'UInt16', cells: [65535, 0, null] },
  { dataType: 'Int64', cells: [0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, -(2 ** 32), 2 ** 32 + 7, 2n ** 63n - 1n, -(2n ** 63n), 2 ** 60, 12345678901234567n, -0, null] },
  { dataType: 'UInt32', cells: [4294967295, 0, null] },
  { dataType: 'UInt64', cells: [2n ** 64n - 1n, 0, 2 ** 53 - 1, null] },
  { dataType: 'Float32', cells: [Math.fround(0.1), -0, Number.NaN, Infinity, 1e-45, 3.4028234663852886e38, 1234567, null] },
  { dataType: 'Float64', cells: [...DOUBLES, 7n, '2.5', null] },
  { dataType: 'String', cells: ['', 'héllo', 'plain ascii', '日本語のテキスト', '😀 emoji', 'é'.repeat(256), 'x'.repeat(257), 'ü'.repeat(300), '\u0000nul', 'a\ud800b', 12, { a: 1 }, null] },
  { dataType: 'Binary', cells: [[0, 1, 255], [], 'text', null] },
  { dataType: 'Date', cells: [19782, 0, -1, -719528, -800000, '2024-02-29', null] },
  { dataType: 'Json', cells: [{ a: 1, b: [true, null, 'x'] }, [1, 2n], 'text', null] },
  { dataType: 'TimestampSecond', cells: [1704164645, 0, -1, 253402300799, -62135596800, -62135596801, -80000000000, null] },
  { dataType: 'TimestampMillisecond', cells: [1704164645678, 1704164645000, 1704153600000, 0, -1, -1500, 1704164645678n, 2 ** 53 - 1, 9007199254740n, null] },
  { dataType: 'TimestampMicrosecond', cells: [1704164645678901, 1704164645000001, 1704164645999999, -1, -999999, -1000001, 0, 1704164645678901n, 2 ** 53 - 1, 9007199254740991n, 9007199254740992n, null] },
  { dataType: 'TimestampNanosecond', cells: [1704164645678901234n, 1704164645000000001n, -1n, -1001n, 0n, 1704164645123456000n, 1704164645000000000, 2n ** 62n, null] },
  { dataType: 'TimeSecond', cells: [3723, 0, null] },
  { dataType: 'TimeMillisecond', cells: [3723004, 86399999, null] },
  { dataType: 'TimeNanosecond', cells: [3723000000005n, null] },
  { dataType: 'Decimal(10, 2)', cells: ['12.34', '-0.01', '0', null] },
  { dataType: 'IntervalMonthDayNano', cells: ['1 mon 2 days', { months: 1, days: 2, nanoseconds: 3000n }, null] },
  { dataType: 'List(Int64)', cells: [[1, 2, 3], null] },
];

const ZONES = ['UTC', '+08:00', '-03:30', 'Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe'];

function table(): { columns: OutputColumn[]; rows: Cell[][] } {
  const columns = CASES.map((c, k) => ({ name: `c${k}`, data_type: c.dataType }));
  const n = Math.max(...CASES.map((c) => c.cells.length));
  const rows: Cell[][] = [];
  for (let r = 0; r < n; r++) rows.push(CASES.map((c) => c.cells[r % c.cells.length]!));
  return { columns, rows };
}

/** Whether encoding `cell` of `dataType` in `format` throws on the reference path. */
function refuses(dataType: string, format: FormatCode, cell: Cell): boolean {
  try {
    cellEncoder(dataType, format, zoneEncodeOptions('UTC'))(cell);
    return false;
  } catch {
    return true;
  }
}

describe('PostgreSQL DataRow encoder', () => {
  for (const format of [0, 1] as const) {
    for (const timeZone of ZONES) {
      test(`${format === 0 ? 'text' : 'binary'} in ${timeZone}: each type's cells, the bytes of cellEncoder and dataRow`, () => {
        for (const c of CASES) {
          const columns = [{ name: 'v', data_type: c.dataType }];
          const cells = c.cells.filter((cell) => !refuses(c.dataType, format, cell));
          const rows = cells.map((cell) => [cell]);
          assertSameBytes(encoded(columns, rows, [format], timeZone).bytes, reference(columns, rows, [format], timeZone), `${c.dataType}`);
        }
      });
    }
  }

  test('every type in one row, text and binary columns mixed', () => {
    const { columns, rows } = table();
    // Rows whose cells the reference refuses in binary are left out: what is refused is tested below.
    const formats = columns.map((_, k) => (k % 2) as FormatCode);
    const ok = rows.filter((r) => r.every((cell, k) => !refuses(columns[k]!.data_type, formats[k]!, cell)));
    assert.ok(ok.length >= 3, `${ok.length} rows`);
    for (const timeZone of ZONES) assertSameBytes(encoded(columns, ok, formats, timeZone).bytes, reference(columns, ok, formats, timeZone), timeZone);
  });

  test('what the reference refuses is refused, with its error', () => {
    for (const [dataType, cell] of [['Int32', 2 ** 31], ['Int64', 1.5], ['TimestampMillisecond', 'not a time'], ['TimestampMillisecond', 1.5], ['Int64', 2n ** 63n]] as const) {
      const columns = [{ name: 'v', data_type: dataType }];
      let expected: unknown;
      try {
        reference(columns, [[cell]], [1], 'UTC');
      } catch (err) {
        expected = err;
      }
      assert.ok(expected instanceof Error, `${dataType} ${String(cell)} refused by the reference`);
      assert.throws(() => encoded(columns, [[cell]], [1], 'UTC'), { message: expected.message });
    }
  });

  test('random doubles in text: float8out digits and notation', () => {
    const columns = [{ name: 'v', data_type: 'Float64' }];
    const rows: Cell[][] = [];
    let seed = 12345;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < 20_000; i++) {
      const e = Math.floor(rand() * 40) - 20;
      rows.push([(rand() - 0.5) * 10 ** e]);
    }
    assertSameBytes(encoded(columns, rows, [0], 'UTC').bytes, reference(columns, rows, [0], 'UTC'), 'doubles');
  });

  test('many rows: chunks of about DATA_ROW_CHUNK_BYTES, the same bytes', () => {
    const columns = [
      { name: 'host', data_type: 'String' },
      { name: 'ts', data_type: 'TimestampMillisecond' },
      { name: 'v', data_type: 'Float64' },
      { name: 'n', data_type: 'Int64' },
    ];
    const rows: Cell[][] = [];
    for (let i = 0; i < 30_000; i++) rows.push([`host_${i % 97}`, 1451606400000 + i * 10_000 + (i % 3), i % 7 === 0 ? null : Math.sin(i) * 100, i * 1_000_003]);
    for (const format of [0, 1] as const) {
      const expected = reference(columns, rows, [format, format, format, format], 'America/New_York');
      const got = encoded(columns, rows, [format, format, format, format], 'America/New_York');
      assertSameBytes(got.bytes, expected, format === 0 ? 'text' : 'binary');
      assert.ok(got.chunks >= Math.floor(expected.length / DATA_ROW_CHUNK_BYTES) && got.chunks > 1, `${got.chunks} chunks for ${expected.length} bytes`);
    }
  });

  test('ranges: encode(rows, from, to) stops at to', () => {
    const columns = [{ name: 's', data_type: 'String' }];
    const rows: Cell[][] = Array.from({ length: 10 }, (_, i) => [`r${i}`]);
    const enc = new DataRowEncoder(columns, [0], 'UTC');
    const a = enc.encode(rows, 0, 3);
    assert.equal(a.next, 3);
    const first = Buffer.from(a.bytes);
    const b = enc.encode(rows, 3, 10);
    assert.equal(b.next, 10);
    assertSameBytes(Buffer.concat([first, b.bytes]), reference(columns, rows, [0], 'UTC'), 'ranges');
  });
});
