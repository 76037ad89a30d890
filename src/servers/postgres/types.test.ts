import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cell } from '../../query/output.js';
import { PgWireError } from './pg-error.js';
import {
  cellEncoder,
  commandTag,
  decodeNumericBinary,
  decodeParam,
  encodeBinary,
  encodeNumericBinary,
  encodeText,
  formatFloat,
  paramFormat,
  pgCommandTag,
  pgTypeOf,
} from './types.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('type OIDs (api.md §5)', () => {
  const table: Array<[string, number, string, number]> = [
    ['Boolean', 16, 'bool', 1],
    ['Int8', 21, 'int2', 2],
    ['Int16', 21, 'int2', 2],
    ['UInt8', 21, 'int2', 2],
    ['Int32', 23, 'int4', 4],
    ['UInt16', 23, 'int4', 4],
    ['Int64', 20, 'int8', 8],
    ['UInt32', 20, 'int8', 8],
    ['UInt64', 1700, 'numeric', -1],
    ['Decimal(38, 10)', 1700, 'numeric', -1],
    ['Float32', 700, 'float4', 4],
    ['Float64', 701, 'float8', 8],
    ['String', 1043, 'varchar', -1],
    ['Binary', 17, 'bytea', -1],
    ['Vector(3)', 17, 'bytea', -1],
    ['Date', 1082, 'date', 4],
    ['TimestampSecond', 1114, 'timestamp', 8],
    ['TimestampMillisecond', 1114, 'timestamp', 8],
    ['TimestampMicrosecond', 1114, 'timestamp', 8],
    ['TimestampNanosecond', 1114, 'timestamp', 8],
    ['TimeSecond', 1083, 'time', 8],
    ['TimeMicrosecond', 1083, 'time', 8],
    ['IntervalMonthDayNano', 1186, 'interval', 16],
    ['Json', 114, 'json', -1],
    ['Struct', 114, 'json', -1],
    ['Null', 1043, 'varchar', -1],
    ['List<Int64>', 1043, 'varchar', -1],
  ];
  for (const [dt, oid, name, len] of table) {
    test(`${dt} → ${name} (${oid})`, () => assert.deepEqual(pgTypeOf(dt), { oid, name, len }));
  }
});

describe('cell encodings: text and binary for every data_type', () => {
  // data_type, cell, text, binary (hex)
  const table: Array<[string, Cell, string, string]> = [
    ['Boolean', true, 't', '01'],
    ['Boolean', false, 'f', '00'],
    ['Int8', -128, '-128', 'ff80'],
    ['Int16', 32767, '32767', '7fff'],
    ['UInt8', 255, '255', '00ff'],
    ['Int32', -2147483648, '-2147483648', '80000000'],
    ['UInt16', 65535, '65535', '0000ffff'],
    ['Int64', 9007199254740993n, '9007199254740993', '0020000000000001'],
    ['Int64', -1, '-1', 'ffffffffffffffff'],
    ['UInt32', 4294967295, '4294967295', '00000000ffffffff'],
    // numeric: ndigits, weight, sign, dscale, base-10000 digits.
    ['UInt64', 18446744073709551615n, '18446744073709551615', '0005 0004 0000 0000 0734 1a58 02e1 03bb 064f'],
    ['Decimal(10, 2)', '-12.30', '-12.30', '0002 0000 4000 0002 000c 0bb8'],
    ['Decimal(38, 10)', '0.0001000000', '0.0001000000', '0001 ffff 0000 000a 0001'],
    ['Decimal(10, 0)', '0', '0', '0000 0000 0000 0000'],
    ['Float32', 1.5, '1.5', '3fc00000'],
    ['Float32', 0.1, '0.1', '3dcccccd'],
    ['Float64', 0.1, '0.1', '3fb999999999999a'],
    ['Float64', 1e15, '1e+15', '430c6bf526340000'],
    ['Float64', 123456789012345, '123456789012345', '42dc12218377de40'],
    ['Float64', 1.5e-7, '1.5e-07', '3e8421f5f40d8376'],
    ['Float64', 0.0001, '0.0001', '3f1a36e2eb1c432d'],
    ['String', 'héllo', 'héllo', Buffer.from('héllo').toString('hex')],
    ['Binary', [0, 1, 255], '\\x0001ff', '0001ff'],
    ['Date', 0, '1970-01-01', 'ffffd533'], // -10957 days from 2000-01-01
    ['Date', 19723, '2024-01-01', '0000223e'],
    ['Date', 10957, '2000-01-01', '00000000'],
    ['TimestampSecond', 0, '1970-01-01 00:00:00', 'fffca2fec4c82000'],
    ['TimestampMillisecond', 946684800123, '2000-01-01 00:00:00.123', '000000000001e078'],
    ['TimestampMicrosecond', 946684800000001, '2000-01-01 00:00:00.000001', '0000000000000001'],
    ['TimestampNanosecond', 946684800000001999n, '2000-01-01 00:00:00.000001', '0000000000000001'],
    ['TimestampMillisecond', -1, '1969-12-31 23:59:59.999', 'fffca2fec4c81c18'],
    ['TimeMicrosecond', 3723500000, '01:02:03.5', (3723500000).toString(16).padStart(16, '0')],
    ['TimeSecond', 86399, '23:59:59', (86399000000).toString(16).padStart(16, '0')],
    ['IntervalMonthDayNano', { months: 14, days: 3, nanoseconds: 14706000000000 }, '1 year 2 mons 3 days 04:05:06', (14706000000).toString(16).padStart(16, '0') + '00000003' + '0000000e'],
    // Query results carry intervals as Arrow displays them; PostgreSQL text of other sources reads too.
    ['IntervalMonthDayNano', '2 mons 1 days 1.500000000 secs', '2 mons 1 day 00:00:01.5', (1500000).toString(16).padStart(16, '0') + '00000001' + '00000002'],
    ['IntervalMonthDayNano', '2 months 1 day 00:00:01.5', '2 mons 1 day 00:00:01.5', (1500000).toString(16).padStart(16, '0') + '00000001' + '00000002'],
    ['Json', { a: 1, b: [true, null, 'x'] }, '{"a":1,"b":[true,null,"x"]}', Buffer.from('{"a":1,"b":[true,null,"x"]}').toString('hex')],
    ['Json', '{"a":1}', '{"a":1}', Buffer.from('{"a":1}').toString('hex')],
    ['List<Int64>', [1, 12345678901234567890n], '[1,12345678901234567890]', Buffer.from('[1,12345678901234567890]').toString('hex')],
  ];
  for (const [dt, cell, text, bin] of table) {
    test(`${dt} ${JSON.stringify(cell, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`, () => {
      assert.equal(encodeText(dt, cell), text);
      assert.deepEqual(cellEncoder(dt, 0)(cell), Buffer.from(text, 'utf8'));
      assert.equal(encodeBinary(dt, cell)?.toString('hex'), hex(bin).toString('hex'));
    });
  }

  test('null cells are NULL in both formats', () => {
    for (const dt of ['Boolean', 'Int64', 'String', 'TimestampMillisecond', 'Json']) {
      assert.equal(encodeText(dt, null), null);
      assert.equal(encodeBinary(dt, null), null);
    }
  });

  test('timestamps in the session time zone', () => {
    const plus8 = { utcOffsetSeconds: () => 8 * 3600 };
    assert.equal(encodeText('TimestampMillisecond', 0, plus8), '1970-01-01 08:00:00');
    assert.equal(encodeBinary('TimestampSecond', 946656000, plus8)?.toString('hex'), '0000000000000000');
  });

  test('dates before year 1 are BC', () => {
    assert.equal(encodeText('Date', -719162), '0001-01-01');
    assert.equal(encodeText('Date', -719163), '0001-12-31 BC');
  });

  test('integers out of range for their binary width are refused', () => {
    assert.throws(() => encodeBinary('Int16', 40000), (e: unknown) => e instanceof PgWireError && e.sqlstate === '22003');
    assert.throws(() => encodeBinary('Int64', 1n << 64n), (e: unknown) => e instanceof PgWireError && e.sqlstate === '22003');
  });

  test('NaN and the infinities: text as PostgreSQL writes them, binary as their IEEE bits', () => {
    for (const [v, t] of [[NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity']] as const) {
      assert.equal(encodeText('Float64', v), t);
      assert.equal(encodeText('Float32', v), t);
      assert.ok(Object.is(encodeBinary('Float64', v)!.readDoubleBE(0), v));
      assert.ok(Object.is(encodeBinary('Float32', v)!.readFloatBE(0), v));
    }
    assert.deepEqual(encodeBinary('Float64', NaN), Buffer.from('7ff8000000000000', 'hex'));
    assert.deepEqual(encodeBinary('Float64', -Infinity), Buffer.from('fff0000000000000', 'hex'));
  });

  test('float text as PostgreSQL prints it', () => {
    const f8: Array<[number, string]> = [
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-Infinity, '-Infinity'],
      [0, '0'],
      [-0, '-0'],
      [1, '1'],
      [-2.5, '-2.5'],
      [100, '100'],
      [1e14, '100000000000000'],
      [1.2345678901234568e17, '1.2345678901234568e+17'],
      [1e-5, '1e-05'],
      [1e300, '1e+300'],
      [5e-324, '5e-324'],
    ];
    for (const [v, s] of f8) assert.equal(formatFloat(v, false), s, String(v));
    const f4: Array<[number, string]> = [
      [0.1, '0.1'],
      [123456, '123456'],
      [1e6, '1e+06'],
      [3.4028234663852886e38, '3.4028235e+38'],
      [Math.fround(1 / 3), '0.33333334'],
    ];
    for (const [v, s] of f4) assert.equal(formatFloat(v, true), s, String(v));
  });
});

describe('numeric binary', () => {
  test('round trips through binary', () => {
    for (const s of ['0', '1', '-1', '10000', '12345.6789', '0.00001', '-0.5', '99999999999999999999.999', '1.000', 'NaN', 'Infinity', '-Infinity']) {
      assert.equal(decodeNumericBinary(encodeNumericBinary(s)), s, s);
    }
    assert.equal(decodeNumericBinary(encodeNumericBinary('1.5e3')), '1500');
    assert.equal(decodeNumericBinary(encodeNumericBinary('25e-3')), '0.025');
  });

  test('malformed numeric', () => {
    assert.throws(() => encodeNumericBinary('abc'), PgWireError);
    assert.throws(() => decodeNumericBinary(hex('0001 0000 0000')), PgWireError);
    assert.throws(() => decodeNumericBinary(hex('0001 0000 0000 0000 2710')), PgWireError);
  });
});

describe('parameter decoding', () => {
  const text = (s: string): Buffer => Buffer.from(s, 'utf8');
  const table: Array<[string, Buffer | null, number, 0 | 1, unknown]> = [
    ['NULL', null, 23, 0, null],
    ['int2 text', text('-12'), 21, 0, -12],
    ['int4 text', text(' 42 '), 23, 0, 42],
    ['int8 text', text('9223372036854775807'), 20, 0, 9223372036854775807n],
    ['float4 text', text('0.1'), 700, 0, Math.fround(0.1)],
    ['float8 text', text('-1.5e3'), 701, 0, -1500],
    ['float8 NaN', text('NaN'), 701, 0, NaN],
    ['float8 -Infinity', text('-Infinity'), 701, 0, -Infinity],
    ['bool t', text('t'), 16, 0, true],
    ['bool yes', text('YES'), 16, 0, true],
    ['bool off', text('off'), 16, 0, false],
    ['bool 0', text('0'), 16, 0, false],
    ['text', text('héllo'), 25, 0, 'héllo'],
    ['varchar', text('x'), 1043, 0, 'x'],
    ['unspecified', text('2024-01-01 00:00:00'), 0, 0, '2024-01-01 00:00:00'],
    ['timestamp text', text('2024-01-01 00:00:00.5'), 1114, 0, '2024-01-01 00:00:00.5'],
    ['numeric text', text('-12.50'), 1700, 0, '-12.50'],
    ['bytea hex', text('\\x00ff'), 17, 0, Buffer.from([0, 255])],
    ['bytea escape', text('a\\\\b\\001'), 17, 0, Buffer.from([0x61, 0x5c, 0x62, 1])],
    ['int2 binary', hex('fffe'), 21, 1, -2],
    ['int4 binary', hex('0000002a'), 23, 1, 42],
    ['int8 binary', hex('8000000000000000'), 20, 1, -9223372036854775808n],
    ['float4 binary', hex('3fc00000'), 700, 1, 1.5],
    ['float8 binary', hex('3fb999999999999a'), 701, 1, 0.1],
    ['bool binary', hex('01'), 16, 1, true],
    ['text binary', text('héllo'), 25, 1, 'héllo'],
    ['unspecified binary', text('x'), 0, 1, 'x'],
    ['bytea binary', hex('0001'), 17, 1, Buffer.from([0, 1])],
    ['numeric binary', hex('0002 0000 4000 0002 000c 0bb8'), 1700, 1, '-12.30'],
    ['date binary', hex('0000223e'), 1082, 1, '2024-01-01'],
    ['timestamp binary', hex('000000000001e078'), 1114, 1, '2000-01-01 00:00:00.123'],
    ['timestamptz binary', hex('0000000000000000'), 1184, 1, '2000-01-01 00:00:00+00:00'],
    ['jsonb binary', Buffer.concat([hex('01'), text('{}')]), 3802, 1, '{}'],
  ];
  for (const [name, value, oid, format, want] of table) {
    test(name, () => assert.deepEqual(decodeParam(value, oid, format), want));
  }

  const bad: Array<[string, Buffer, number, 0 | 1, string]> = [
    ['int4 text with letters', text('4x'), 23, 0, '22P02'],
    ['int2 text out of range', text('40000'), 21, 0, '22003'],
    ['int8 text out of range', text('9223372036854775808'), 20, 0, '22003'],
    ['float8 text garbage', text('1.2.3'), 701, 0, '22P02'],
    ['bool text garbage', text('maybe'), 16, 0, '22P02'],
    ['bool text ambiguous o', text('o'), 16, 0, '22P02'],
    ['numeric text garbage', text('1e'), 1700, 0, '22P02'],
    ['bytea odd hex', text('\\x0'), 17, 0, '22P02'],
    ['int4 binary of 2 bytes', hex('0001'), 23, 1, '22P03'],
    ['int8 binary of 4 bytes', hex('00000001'), 20, 1, '22P03'],
    ['float8 binary of 4 bytes', hex('3fc00000'), 701, 1, '22P03'],
    ['bool binary of 2 bytes', hex('0001'), 16, 1, '22P03'],
    ['timestamp binary of 4 bytes', hex('00000001'), 1114, 1, '22P03'],
    ['binary of an unsupported type', hex('00'), 600, 1, '0A000'],
  ];
  for (const [name, value, oid, format, sqlstate] of bad) {
    test(`refused: ${name}`, () => {
      assert.throws(() => decodeParam(value, oid, format), (e: unknown) => e instanceof PgWireError && e.sqlstate === sqlstate);
    });
  }

  test('format of each parameter from the Bind format codes', () => {
    assert.equal(paramFormat([], 3), 0);
    assert.equal(paramFormat([1], 3), 1);
    assert.equal(paramFormat([0, 1], 1), 1);
  });
});

describe('command tags', () => {
  test('GreptimeDB tags: SELECT n for rows, OK n for affected rows', () => {
    assert.equal(commandTag({ kind: 'records', columns: [], rows: [[1], [2]] }), 'SELECT 2');
    assert.equal(commandTag({ kind: 'affected', rows: 3 }), 'OK 3');
  });

  test('PostgreSQL tags', () => {
    assert.equal(pgCommandTag('insert', 5), 'INSERT 0 5');
    assert.equal(pgCommandTag('DELETE', 2), 'DELETE 2');
    assert.equal(pgCommandTag('SELECT', 0), 'SELECT 0');
    assert.equal(pgCommandTag('CREATE TABLE'), 'CREATE TABLE');
    assert.equal(pgCommandTag('BEGIN'), 'BEGIN');
    assert.equal(pgCommandTag('SET'), 'SET');
  });
});
