import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cell, OutputColumn } from '../../query/output.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, SERVER_MORE_RESULTS_EXISTS } from './handshake.js';
import { decodeOk, decodePrepareOk, MysqlType, readBinaryValue, type ParamValue } from './messages.js';
import { PayloadReader } from './packet.js';
import {
  BINARY_FLAG,
  columnDefinition,
  decodeColumnDefinition,
  encodeBinaryRow,
  encodeColumnDefinition,
  encodeTextRow,
  fieldListPackets,
  mysqlColumnType,
  outputPackets,
  preparePackets,
  resultSetPackets,
  UNSIGNED_FLAG,
} from './resultset.js';
import { hex, readAll } from '../../../test/support/mysql-packets.js';
import { formatTimestamp } from './time-format.js';

const TS_MS = 1704164645678; // 2024-01-02T03:04:05.678Z
const DAY_2024_02_29 = Date.UTC(2024, 1, 29) / 86_400_000;

/** Every tsdb data type with a value, its text in UTC, and its binary-protocol value. */
const TYPES: Array<{ dataType: string; cell: Cell; text: string | Buffer; type: number; flags?: number; decimals?: number; binary: ParamValue }> = [
  { dataType: 'Boolean', cell: true, text: '1', type: MysqlType.TINY, binary: 1 },
  { dataType: 'Int8', cell: -5, text: '-5', type: MysqlType.TINY, binary: -5 },
  { dataType: 'Int16', cell: -300, text: '-300', type: MysqlType.SHORT, binary: -300 },
  { dataType: 'Int32', cell: -70000, text: '-70000', type: MysqlType.LONG, binary: -70000 },
  { dataType: 'Int64', cell: 2n ** 63n - 1n, text: '9223372036854775807', type: MysqlType.LONGLONG, binary: 2n ** 63n - 1n },
  { dataType: 'UInt8', cell: 255, text: '255', type: MysqlType.TINY, flags: UNSIGNED_FLAG, binary: 255 },
  { dataType: 'UInt16', cell: 65535, text: '65535', type: MysqlType.SHORT, flags: UNSIGNED_FLAG, binary: 65535 },
  { dataType: 'UInt32', cell: 4294967295, text: '4294967295', type: MysqlType.LONG, flags: UNSIGNED_FLAG, binary: 4294967295 },
  { dataType: 'UInt64', cell: 2n ** 64n - 1n, text: '18446744073709551615', type: MysqlType.LONGLONG, flags: UNSIGNED_FLAG, binary: 2n ** 64n - 1n },
  { dataType: 'Float32', cell: Math.fround(0.1), text: '0.1', type: MysqlType.FLOAT, decimals: 31, binary: Math.fround(0.1) },
  { dataType: 'Float64', cell: 1.5, text: '1.5', type: MysqlType.DOUBLE, decimals: 31, binary: 1.5 },
  { dataType: 'String', cell: 'héllo', text: 'héllo', type: MysqlType.VAR_STRING, binary: 'héllo' },
  { dataType: 'Binary', cell: [0, 255], text: hex('00 ff'), type: MysqlType.BLOB, flags: BINARY_FLAG, binary: hex('00 ff') },
  {
    dataType: 'Date',
    cell: DAY_2024_02_29,
    text: '2024-02-29',
    type: MysqlType.DATE,
    binary: { kind: 'datetime', year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0, microsecond: 0 },
  },
  {
    dataType: 'TimestampSecond',
    cell: Math.floor(TS_MS / 1000),
    text: '2024-01-02 03:04:05',
    type: MysqlType.TIMESTAMP,
    decimals: 0,
    binary: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 0 },
  },
  {
    dataType: 'TimestampMillisecond',
    cell: TS_MS,
    text: '2024-01-02 03:04:05.678',
    type: MysqlType.TIMESTAMP,
    decimals: 3,
    binary: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 678000 },
  },
  {
    dataType: 'TimestampMicrosecond',
    cell: TS_MS * 1000 + 901,
    text: '2024-01-02 03:04:05.678901',
    type: MysqlType.TIMESTAMP,
    decimals: 6,
    binary: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 678901 },
  },
  {
    dataType: 'TimestampNanosecond',
    cell: BigInt(TS_MS) * 1_000_000n + 901_234n,
    text: '2024-01-02 03:04:05.678901234',
    type: MysqlType.TIMESTAMP,
    decimals: 6,
    binary: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 678901 },
  },
  {
    dataType: 'TimeMicrosecond',
    cell: 3_723_000_001,
    text: '01:02:03.000001',
    type: MysqlType.TIME,
    decimals: 6,
    binary: { kind: 'time', negative: false, days: 0, hours: 1, minutes: 2, seconds: 3, microseconds: 1 },
  },
  {
    dataType: 'TimeSecond',
    cell: 90_061,
    text: '25:01:01',
    type: MysqlType.TIME,
    decimals: 0,
    binary: { kind: 'time', negative: false, days: 1, hours: 1, minutes: 1, seconds: 1, microseconds: 0 },
  },
  { dataType: 'Json', cell: { a: 1, b: [true, null] }, text: '{"a":1,"b":[true,null]}', type: MysqlType.JSON, flags: BINARY_FLAG, binary: '{"a":1,"b":[true,null]}' },
  { dataType: 'Decimal(10, 2)', cell: '12.34', text: '12.34', type: MysqlType.NEWDECIMAL, decimals: 2, binary: '12.34' },
  { dataType: 'IntervalMonthDayNano', cell: '1 month 2 days', text: '1 month 2 days', type: MysqlType.VAR_STRING, binary: '1 month 2 days' },
  { dataType: 'List<Int64>', cell: [1, 2n], text: '[1,"2"]', type: MysqlType.VAR_STRING, binary: '[1,"2"]' },
];

describe('mysql column definitions', () => {
  for (const c of TYPES) {
    test(`${c.dataType} is MySQL type 0x${c.type.toString(16)}`, () => {
      const m = mysqlColumnType(c.dataType);
      assert.equal(m.type, c.type);
      if (c.flags !== undefined) assert.equal(m.flags & c.flags, c.flags);
      if (c.decimals !== undefined) assert.equal(m.decimals, c.decimals);
      const textual = ['String', 'IntervalMonthDayNano', 'List<Int64>'].includes(c.dataType);
      assert.equal(m.charset, textual ? 45 : 63);
      const def = columnDefinition({ name: 'c', data_type: c.dataType }, { schema: 'public', table: 't' });
      assert.deepEqual(decodeColumnDefinition(encodeColumnDefinition(def)), def);
    });
  }

  test('ColumnDefinition41 fixture', () => {
    const bytes = encodeColumnDefinition(columnDefinition({ name: 'n', data_type: 'Int64' }));
    assert.deepEqual(bytes, hex('03 64 65 66 00 00 00 01 6e 01 6e 0c 3f 00 14 00 00 00 08 00 80 00 00 00'));
    const withDefault = encodeColumnDefinition(columnDefinition({ name: 'n', data_type: 'Int64' }), '');
    assert.deepEqual(withDefault, Buffer.concat([bytes, hex('00')]));
    assert.equal(mysqlColumnType('Boolean').length, 1);
    assert.equal(mysqlColumnType('Decimal(38, 10)').length, 40);
    assert.equal(mysqlColumnType('Null').type, MysqlType.NULL);
  });
});

describe('mysql text rows', () => {
  for (const c of TYPES) {
    test(`${c.dataType} text value`, () => {
      const row = encodeTextRow([c.cell, null], [{ name: 'c', data_type: c.dataType }, { name: 'n', data_type: c.dataType }], 'UTC');
      const r = new PayloadReader(row);
      const text = typeof c.text === 'string' ? Buffer.from(c.text) : c.text;
      assert.deepEqual(r.lenEncBytes(), text);
      assert.equal(r.lenEncInt(), null, 'NULL is 0xfb');
      assert.equal(r.remaining, 0);
    });
  }

  test('text row fixture with NULL as 0xfb', () => {
    const row = encodeTextRow([1, null, 'ab'], [
      { name: 'a', data_type: 'Int32' },
      { name: 'b', data_type: 'String' },
      { name: 'c', data_type: 'String' },
    ], 'UTC');
    assert.deepEqual(row, hex('01 31 fb 02 61 62'));
  });

  test('timestamps render in the session time zone, fraction in 3-digit groups', () => {
    const col = [{ name: 't', data_type: 'TimestampMillisecond' }];
    const text = (cell: Cell, zone: string, dataType = 'TimestampMillisecond') =>
      new PayloadReader(encodeTextRow([cell], [{ name: 't', data_type: dataType }], zone)).lenEncString();
    assert.equal(text(TS_MS, 'Asia/Shanghai'), '2024-01-02 11:04:05.678');
    assert.equal(text(TS_MS, '+08:00'), '2024-01-02 11:04:05.678');
    assert.equal(text(TS_MS, '-05:30'), '2024-01-01 21:34:05.678');
    assert.equal(text(TS_MS, 'America/New_York'), '2024-01-01 22:04:05.678');
    assert.equal(text(Date.UTC(2024, 6, 1), 'America/New_York'), '2024-06-30 20:00:00');
    assert.equal(text(TS_MS, 'SYSTEM'), '2024-01-02 03:04:05.678');
    assert.equal(text(-1, 'UTC'), '1969-12-31 23:59:59.999');
    assert.equal(text(0, 'UTC'), '1970-01-01 00:00:00');
    assert.equal(text(1_704_164_645_000_000_000n, 'UTC', 'TimestampNanosecond'), '2024-01-02 03:04:05');
    assert.equal(text(1_704_164_645_100_000_000n, 'UTC', 'TimestampNanosecond'), '2024-01-02 03:04:05.100');
    assert.equal(text(1_704_164_645_000_001_000n, 'UTC', 'TimestampNanosecond'), '2024-01-02 03:04:05.000001');
    assert.equal(text(1_704_164_645_000_000_001n, 'UTC', 'TimestampNanosecond'), '2024-01-02 03:04:05.000000001');
    assert.equal(formatTimestamp(-62135596800n, 's', 'UTC'), '0001-01-01 00:00:00');
    assert.equal(col.length, 1);
  });

  test('floats: float32 shortest text, non-finite values', () => {
    const text = (cell: Cell, dataType: string) => new PayloadReader(encodeTextRow([cell], [{ name: 'f', data_type: dataType }], 'UTC')).lenEncString();
    assert.equal(text(Math.fround(3.14), 'Float32'), '3.14');
    assert.equal(text(1, 'Float64'), '1');
    assert.equal(text(Infinity, 'Float64'), 'inf');
    assert.equal(text(NaN, 'Float64'), 'NaN');
    assert.equal(text(-Infinity, 'Float64'), '-inf');
    assert.equal(text(NaN, 'Float32'), 'NaN');
    assert.equal(text(Infinity, 'Float32'), 'inf');
    assert.equal(text(-Infinity, 'Float32'), '-inf');
    assert.equal(text(false, 'Boolean'), '0');
  });

  test('floats: non-finite values keep their IEEE bits in binary rows', () => {
    const columns = [{ name: 'd', data_type: 'Float64' }, { name: 'f', data_type: 'Float32' }];
    for (const v of [NaN, Infinity, -Infinity]) {
      const row = encodeBinaryRow([v, v], columns, 'UTC');
      // 0x00 header, a 1-byte null bitmap, then the DOUBLE and the FLOAT little-endian.
      assert.equal(row.length, 2 + 8 + 4);
      assert.ok(Object.is(row.readDoubleLE(2), v), `double ${v}`);
      assert.ok(Object.is(row.readFloatLE(10), v), `float ${v}`);
    }
  });
});

describe('mysql binary rows', () => {
  for (const c of TYPES) {
    test(`${c.dataType} binary value`, () => {
      const columns = [{ name: 'n', data_type: c.dataType }, { name: 'c', data_type: c.dataType }];
      const row = encodeBinaryRow([null, c.cell], columns, 'UTC');
      assert.equal(row[0], 0x00);
      assert.equal(row[1], 0b0000_0100, 'null bitmap with offset 2: column 0');
      const m = mysqlColumnType(c.dataType);
      const r = new PayloadReader(row, 2);
      const value = readBinaryValue(r, { type: m.type, unsigned: (m.flags & UNSIGNED_FLAG) !== 0 });
      assert.deepEqual(value, c.binary);
      assert.equal(r.remaining, 0);
    });
  }

  test('binary row fixture', () => {
    const columns: OutputColumn[] = [
      { name: 'a', data_type: 'Int32' },
      { name: 'b', data_type: 'String' },
      { name: 'c', data_type: 'Int64' },
      { name: 'ts', data_type: 'TimestampMillisecond' },
    ];
    assert.deepEqual(
      encodeBinaryRow([7, 'a', null, TS_MS], columns, 'UTC'),
      hex('00 10  07 00 00 00  01 61  0b e8 07 01 02 03 04 05 70 58 0a 00'),
    );
    // Session time zone applies to binary timestamps too.
    const shanghai = encodeBinaryRow([TS_MS], [columns[3]!], 'Asia/Shanghai');
    assert.deepEqual(shanghai, hex('00 00  0b e8 07 01 02 0b 04 05 70 58 0a 00'));
  });

  test('null bitmap spans bytes for many columns', () => {
    const columns = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, data_type: 'Int8' }));
    const row = encodeBinaryRow([null, 1, 2, 3, 4, 5, null, 7, 8, null], columns, 'UTC');
    // bits i+2: 0 -> 2, 6 -> 8, 9 -> 11
    assert.deepEqual(row.subarray(0, 3), hex('00 04 09'));
    assert.deepEqual(row.subarray(3), hex('01 02 03 04 05 07 08'));
  });
});

describe('mysql result set packets', () => {
  const DEF = hex('03 64 65 66 00 00 00 01 6e 01 6e 0c 3f 00 14 00 00 00 08 00 80 00 00 00');
  const columns = [{ name: 'n', data_type: 'Int64' }];

  test('with EOF packets (no CLIENT_DEPRECATE_EOF)', () => {
    const p = resultSetPackets(columns, [[1]], { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC' });
    assert.deepEqual(
      p.bytes,
      Buffer.concat([hex('01 00 00 01 01  18 00 00 02'), DEF, hex('05 00 00 03 fe 00 00 02 00  02 00 00 04 01 31  05 00 00 05 fe 00 00 02 00')]),
    );
    assert.equal(p.nextSeq, 6);
  });

  test('with OK-as-EOF (CLIENT_DEPRECATE_EOF) and more results', () => {
    const p = resultSetPackets(columns, [[1]], {
      capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF,
      seq: 1,
      timeZone: 'UTC',
      statusFlags: 2 | SERVER_MORE_RESULTS_EXISTS,
    });
    assert.deepEqual(p.bytes, Buffer.concat([hex('01 00 00 01 01  18 00 00 02'), DEF, hex('02 00 00 03 01 31  07 00 00 04 fe 00 00 0a 00 00 00')]));
    assert.equal(p.nextSeq, 5);
  });

  test('a result set of every type, text and binary, read back split at every offset', () => {
    const cols = TYPES.map((c, i) => ({ name: `c${i}`, data_type: c.dataType }));
    const rows = [TYPES.map((c) => c.cell), TYPES.map(() => null)];
    for (const binary of [false, true]) {
      const p = resultSetPackets(cols, rows, { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, seq: 1, timeZone: 'UTC', binary });
      const whole = readAll([p.bytes]);
      assert.equal(whole.length, 1 + cols.length + rows.length + 1);
      assert.deepEqual(whole.map((w) => w.seq), whole.map((_, i) => i + 1));
      assert.deepEqual(decodeColumnDefinition(whole[1]!.payload).name, 'c0');
      assert.deepEqual(whole[whole.length - 1]!.payload, hex('fe 00 00 02 00 00 00'));
      for (let i = 0; i <= p.bytes.length; i += 1) {
        const got = readAll([p.bytes.subarray(0, i), p.bytes.subarray(i)]);
        assert.deepEqual(got, whole);
      }
      assert.deepEqual(readAll([...p.bytes].map((b) => Buffer.from([b]))), whole);
    }
  });

  test('affected rows output is one OK packet', () => {
    const p = outputPackets({ kind: 'affected', rows: 3 }, { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC' });
    assert.deepEqual(p.bytes, hex('07 00 00 01 00 03 00 02 00 00 00'));
    assert.equal(decodeOk(readAll([p.bytes])[0]!.payload).affectedRows, 3);
    assert.equal(p.nextSeq, 2);
  });

  test('COM_STMT_PREPARE response: PREPARE_OK, params, [EOF], columns, [EOF]', () => {
    for (const [caps, eofs] of [
      [CLIENT_PROTOCOL_41, 2],
      [CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, 0],
    ] as const) {
      const p = preparePackets({ statementId: 1, params: 2, columns }, { capabilities: caps, seq: 1 });
      const got = readAll([p.bytes]);
      assert.equal(got.length, 1 + 2 + 1 + eofs);
      assert.deepEqual(decodePrepareOk(got[0]!.payload), { statementId: 1, columnCount: 1, paramCount: 2, warnings: 0 });
      assert.equal(decodeColumnDefinition(got[1]!.payload).name, '?');
      assert.equal(p.nextSeq, 1 + got.length);
    }
    const none = readAll([preparePackets({ statementId: 2, params: 0, columns: [] }, { capabilities: CLIENT_PROTOCOL_41, seq: 1 }).bytes]);
    assert.equal(none.length, 1);
  });

  test('COM_FIELD_LIST response: definitions with default values, then EOF', () => {
    const p = fieldListPackets(columns, { capabilities: CLIENT_PROTOCOL_41, seq: 1 });
    assert.deepEqual(p.bytes, Buffer.concat([hex('19 00 00 01'), DEF, hex('00  05 00 00 02 fe 00 00 02 00')]));
  });
});

describe('mysql binary rows of text cells', () => {
  test('Date and Timestamp cells given as strings are encoded as dates, not strings', () => {
    const row = encodeBinaryRow(
      ['2024-02-29', '2024-01-02 03:04:05.678'],
      [
        { name: 'd', data_type: 'Date' },
        { name: 't', data_type: 'TimestampMillisecond' },
      ],
      'UTC',
    );
    assert.deepEqual(row, hex('00 00  04 e8 07 02 1d  0b e8 07 01 02 03 04 05 70 58 0a 00'));
  });
});

test('negative zero keeps its sign in text rows (Float64 and Float32)', () => {
  const columns: OutputColumn[] = [
    { name: 'a', data_type: 'Float64' },
    { name: 'b', data_type: 'Float32' },
  ];
  assert.deepEqual(encodeTextRow([-0, -0], columns, 'UTC'), hex('02 2d30 02 2d30'));
  assert.deepEqual(encodeTextRow([0, 0], columns, 'UTC'), hex('01 30 01 30'));
});
