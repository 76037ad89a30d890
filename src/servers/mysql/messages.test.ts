import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, SERVER_MORE_RESULTS_EXISTS } from './handshake.js';
import {
  COM_FIELD_LIST,
  COM_INIT_DB,
  COM_PING,
  COM_QUERY,
  COM_QUIT,
  COM_STMT_CLOSE,
  COM_STMT_PREPARE,
  COM_STMT_RESET,
  decodeCommand,
  decodeEof,
  decodeErr,
  decodeOk,
  decodePrepareOk,
  encodeEndOfRows,
  encodeEof,
  encodeErr,
  encodeOk,
  encodePrepareOk,
  encodeSimpleCommand,
  encodeStmtExecute,
  encodeStmtIdCommand,
  encodeStmtSendLongData,
  errOfKind,
  errOfStatus,
  ER_WRONG_DB_NAME,
  isEofPacket,
  MYSQL_ERROR_KIND,
  MysqlType,
  type BoundParam,
  type Command,
  type PreparedStatementInfo,
} from './messages.js';
import { MysqlProtocolError } from './packet.js';
import { assertEverySplit, hex } from '../../../test/support/mysql-packets.js';

describe('mysql generic responses', () => {
  test('OK fixture', () => {
    const bytes = hex('00 01 00 02 00 00 00');
    assert.deepEqual(encodeOk({ affectedRows: 1 }), bytes);
    assert.deepEqual(decodeOk(assertEverySplit(bytes, 1)), { affectedRows: 1, lastInsertId: 0, statusFlags: 2, warnings: 0, info: '' });
  });

  test('OK with large counts, warnings and info round trips', () => {
    const ok = { affectedRows: 70000, lastInsertId: 2n ** 60n, statusFlags: 0x0a, warnings: 3, info: 'Rows matched: 1' };
    const bytes = encodeOk(ok);
    assert.deepEqual(bytes.subarray(0, 5), hex('00 fd 70 11 01'));
    assert.deepEqual(decodeOk(assertEverySplit(bytes)), ok);
  });

  test('EOF and OK-as-EOF (CLIENT_DEPRECATE_EOF)', () => {
    assert.deepEqual(encodeEof(), hex('fe 00 00 02 00'));
    assert.deepEqual(encodeEndOfRows(CLIENT_PROTOCOL_41, { warnings: 1, statusFlags: 0x0a }), hex('fe 01 00 0a 00'));
    assert.deepEqual(encodeEndOfRows(CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF), hex('fe 00 00 02 00 00 00'));
    assert.deepEqual(decodeEof(assertEverySplit(hex('fe 01 00 0a 00'))), { warnings: 1, statusFlags: 0x0a });
    assert.ok(isEofPacket(hex('fe 00 00 02 00 00 00')));
    assert.ok(!isEofPacket(hex('fe 00 00 00 00 00 00 00 00 01')));
    assert.deepEqual(decodeOk(hex('fe 00 00 02 00 00 00')).statusFlags, 2);
  });

  test('ERR fixture: errno, #, SQLSTATE, message', () => {
    const bytes = hex('ff 7a 04 23 34 32 53 30 32') ;
    const err = { errno: 1146, sqlState: '42S02', message: '(TableNotFound): Table not found: t' };
    const encoded = encodeErr(err);
    assert.deepEqual(encoded.subarray(0, 9), bytes);
    assert.equal(encoded.subarray(9).toString(), err.message);
    assert.deepEqual(decodeErr(assertEverySplit(encoded)), err);
  });

  test('status codes map to MySQL errno and SQLSTATE', () => {
    const expect: Array<[StatusCode, number, string]> = [
      [StatusCode.TableNotFound, 1146, '42S02'],
      [StatusCode.InvalidSyntax, 1149, '42000'],
      [StatusCode.DatabaseNotFound, 1102, '42000'],
      [StatusCode.TableAlreadyExists, 1050, '42S01'],
      [StatusCode.TableColumnNotFound, 1054, '42S22'],
      [StatusCode.Unsupported, 1235, '42000'],
      [StatusCode.InvalidArguments, 1210, 'HY000'],
      [StatusCode.UserNotFound, 1045, '28000'],
      [StatusCode.UserPasswordMismatch, 1045, '28000'],
      [StatusCode.InvalidAuthHeader, 1045, '28000'],
      [StatusCode.PermissionDenied, 1045, '28000'],
      [StatusCode.Internal, 1815, 'HY000'],
      [StatusCode.StorageUnavailable, 1815, 'HY000'],
      [StatusCode.Cancelled, 1317, '70100'],
      [StatusCode.DeadlineExceeded, 3024, 'HY000'],
    ];
    for (const [code, errno, state] of expect) {
      assert.equal(MYSQL_ERROR_KIND[code].errno, errno, StatusCode[code]);
      assert.equal(MYSQL_ERROR_KIND[code].sqlState, state, StatusCode[code]);
    }
    for (const k of Object.values(MYSQL_ERROR_KIND)) assert.match(k.sqlState, /^[0-9A-Z]{5}$/);
    assert.deepEqual(errOfStatus(StatusCode.TableNotFound, 'Table not found: t'), {
      errno: 1146,
      sqlState: '42S02',
      message: '(TableNotFound): Table not found: t',
    });
    assert.deepEqual(errOfKind(ER_WRONG_DB_NAME, "Unknown database 'x'"), { errno: 1102, sqlState: '42000', message: "Unknown database 'x'" });
  });

  test('COM_STMT_PREPARE_OK fixture', () => {
    const bytes = hex('00 01 00 00 00 02 00 03 00 00 00 00');
    const p = { statementId: 1, columnCount: 2, paramCount: 3, warnings: 0 };
    assert.deepEqual(encodePrepareOk(p), bytes);
    assert.deepEqual(decodePrepareOk(assertEverySplit(bytes, 1)), p);
  });
});

describe('mysql commands', () => {
  const simple: Array<[string, Buffer, Command]> = [
    ['COM_QUIT', hex('01'), { kind: 'quit' }],
    ['COM_PING', hex('0e'), { kind: 'ping' }],
    ['COM_INIT_DB', hex('02 6d 65 74 72 69 63 73'), { kind: 'init_db', database: 'metrics' }],
    ['COM_QUERY', hex('03 53 45 4c 45 43 54 20 31'), { kind: 'query', sql: 'SELECT 1' }],
    ['COM_FIELD_LIST', hex('04 63 70 75 00 25'), { kind: 'field_list', table: 'cpu', wildcard: '%' }],
    ['COM_STMT_PREPARE', hex('16 53 45 4c 45 43 54 20 3f'), { kind: 'stmt_prepare', sql: 'SELECT ?' }],
    ['COM_STMT_CLOSE', hex('19 05 00 00 00'), { kind: 'stmt_close', statementId: 5 }],
    ['COM_STMT_RESET', hex('1a 05 00 00 00'), { kind: 'stmt_reset', statementId: 5 }],
    ['COM_STMT_SEND_LONG_DATA', hex('18 05 00 00 00 01 00 61 62'), { kind: 'stmt_send_long_data', statementId: 5, paramId: 1, data: Buffer.from('ab') }],
    ['COM_RESET_CONNECTION', hex('1f'), { kind: 'reset_connection' }],
    ['unknown', hex('09'), { kind: 'unknown', code: 9 }],
  ];
  for (const [name, bytes, expected] of simple) {
    test(`${name} fixture decodes (split at every offset)`, () => {
      assert.deepEqual(decodeCommand(assertEverySplit(bytes)), expected);
    });
  }

  test('command encoders produce the fixtures', () => {
    assert.deepEqual(encodeSimpleCommand(COM_QUIT), hex('01'));
    assert.deepEqual(encodeSimpleCommand(COM_PING), hex('0e'));
    assert.deepEqual(encodeSimpleCommand(COM_INIT_DB, 'metrics'), hex('02 6d 65 74 72 69 63 73'));
    assert.deepEqual(encodeSimpleCommand(COM_QUERY, 'SELECT 1'), hex('03 53 45 4c 45 43 54 20 31'));
    assert.deepEqual(encodeSimpleCommand(COM_STMT_PREPARE, 'SELECT ?'), hex('16 53 45 4c 45 43 54 20 3f'));
    assert.deepEqual(encodeSimpleCommand(COM_FIELD_LIST, 'cpu\0%'), hex('04 63 70 75 00 25'));
    assert.deepEqual(encodeStmtIdCommand(COM_STMT_CLOSE, 5), hex('19 05 00 00 00'));
    assert.deepEqual(encodeStmtIdCommand(COM_STMT_RESET, 5), hex('1a 05 00 00 00'));
    assert.deepEqual(encodeStmtSendLongData(5, 1, Buffer.from('ab')), hex('18 05 00 00 00 01 00 61 62'));
  });

  test('COM_FIELD_LIST without a wildcard', () => {
    assert.deepEqual(decodeCommand(hex('04 63 70 75 00')), { kind: 'field_list', table: 'cpu', wildcard: '' });
    assert.deepEqual(decodeCommand(hex('04 63 70 75')), { kind: 'field_list', table: 'cpu', wildcard: '' });
  });

  const EXECUTE = hex(`
    17 01 00 00 00 00 01 00 00 00  # COM_STMT_EXECUTE stmt 1, no cursor, 1 iteration
    10 00                          # null bitmap: parameter 4
    01                             # new params bound
    01 00  08 80  05 00  fd 00  06 00  0c 00  fc 00  04 00  0b 00  02 00  03 00  0a 00  f6 00  f5 00
    fb                             # TINY -5
    ff ff ff ff ff ff ff ff        # LONGLONG UNSIGNED 2^64-1
    00 00 00 00 00 00 f8 3f        # DOUBLE 1.5
    06 68 c3 a9 6c 6c 6f           # VAR_STRING héllo
                                   # NULL
    0b e8 07 01 02 03 04 05 f5 5b 0a 00  # DATETIME 2024-01-02 03:04:05.678901
    02 00 ff                       # BLOB 00 ff
    00 00 80 3e                    # FLOAT 0.25
    0c 01 01 00 00 00 02 03 04 20 a1 07 00 # TIME -1d 02:03:04.500000
    2c 01                          # SHORT 300
    ff ff ff ff                    # LONG -1
    04 e8 07 02 1d                 # DATE 2024-02-29
    05 31 32 2e 33 34              # NEWDECIMAL 12.34
    07 7b 22 61 22 3a 31 7d        # JSON {"a":1}
  `);
  const PARAMS: BoundParam[] = [
    { type: { type: MysqlType.TINY, unsigned: false }, value: -5 },
    { type: { type: MysqlType.LONGLONG, unsigned: true }, value: 2n ** 64n - 1n },
    { type: { type: MysqlType.DOUBLE, unsigned: false }, value: 1.5 },
    { type: { type: MysqlType.VAR_STRING, unsigned: false }, value: 'héllo' },
    { type: { type: MysqlType.NULL, unsigned: false }, value: null },
    {
      type: { type: MysqlType.DATETIME, unsigned: false },
      value: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 678901 },
    },
    { type: { type: MysqlType.BLOB, unsigned: false }, value: hex('00 ff') },
    { type: { type: MysqlType.FLOAT, unsigned: false }, value: 0.25 },
    {
      type: { type: MysqlType.TIME, unsigned: false },
      value: { kind: 'time', negative: true, days: 1, hours: 2, minutes: 3, seconds: 4, microseconds: 500000 },
    },
    { type: { type: MysqlType.SHORT, unsigned: false }, value: 300 },
    { type: { type: MysqlType.LONG, unsigned: false }, value: -1 },
    {
      type: { type: MysqlType.DATE, unsigned: false },
      value: { kind: 'datetime', year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0, microsecond: 0 },
    },
    { type: { type: MysqlType.NEWDECIMAL, unsigned: false }, value: '12.34' },
    { type: { type: MysqlType.JSON, unsigned: false }, value: '{"a":1}' },
  ];

  test('COM_STMT_EXECUTE fixture with every parameter kind decodes (split at every offset)', () => {
    const info: PreparedStatementInfo = { paramCount: PARAMS.length };
    const cmd = decodeCommand(assertEverySplit(EXECUTE), (id) => (id === 1 ? info : undefined));
    assert.equal(cmd.kind, 'stmt_execute');
    if (cmd.kind !== 'stmt_execute') return;
    assert.equal(cmd.statementId, 1);
    assert.equal(cmd.iterationCount, 1);
    assert.equal(cmd.newParamsBound, true);
    assert.deepEqual(cmd.params, PARAMS);
    assert.deepEqual(cmd.paramTypes, PARAMS.map((p) => p.type));
    assert.deepEqual(encodeStmtExecute(1, PARAMS), EXECUTE);
  });

  test('COM_STMT_EXECUTE reuses the types sent earlier when new-params-bound is 0', () => {
    const types = [
      { type: MysqlType.LONG, unsigned: true },
      { type: MysqlType.VAR_STRING, unsigned: false },
    ];
    const bytes = hex('17 02 00 00 00 00 01 00 00 00  00  00  07 00 00 00  01 61');
    assert.deepEqual(encodeStmtExecute(2, [{ type: types[0]!, value: 7 }, { type: types[1]!, value: 'a' }], { newParamsBound: false }), bytes);
    const cmd = decodeCommand(bytes, () => ({ paramCount: 2, paramTypes: types }));
    assert.ok(cmd.kind === 'stmt_execute');
    assert.deepEqual(cmd.params, [
      { type: types[0], value: 7 },
      { type: types[1], value: 'a' },
    ]);
    assert.equal(cmd.newParamsBound, false);
    // No earlier types: the packet cannot be decoded.
    assert.throws(() => decodeCommand(bytes, () => ({ paramCount: 2 })), MysqlProtocolError);
  });

  test('COM_STMT_EXECUTE takes long data from COM_STMT_SEND_LONG_DATA instead of the packet', () => {
    const t = { type: MysqlType.BLOB, unsigned: false };
    const params: BoundParam[] = [
      { type: t, value: Buffer.from('long value') },
      { type: { type: MysqlType.TINY, unsigned: true }, value: 200 },
    ];
    const bytes = encodeStmtExecute(3, params, { sentAsLongData: new Set([0]) });
    assert.deepEqual(bytes, hex('17 03 00 00 00 00 01 00 00 00  00  01  fc 00 01 80  c8'));
    const cmd = decodeCommand(bytes, () => ({ paramCount: 2, longData: new Map([[0, Buffer.from('long value')]]) }));
    assert.ok(cmd.kind === 'stmt_execute');
    assert.deepEqual(cmd.params, params);
  });

  test('COM_STMT_EXECUTE of an unknown statement or without parameters', () => {
    const cmd = decodeCommand(hex('17 09 00 00 00 00 01 00 00 00'));
    assert.deepEqual(cmd, {
      kind: 'stmt_execute',
      statementId: 9,
      flags: 0,
      iterationCount: 1,
      params: undefined,
      paramTypes: undefined,
      newParamsBound: false,
    });
    const none = decodeCommand(hex('17 09 00 00 00 00 01 00 00 00'), () => ({ paramCount: 0 }));
    assert.ok(none.kind === 'stmt_execute');
    assert.deepEqual(none.params, []);
  });

  test('every parameter type round trips through encodeStmtExecute/decodeCommand', () => {
    const extra: BoundParam[] = [
      { type: { type: MysqlType.TINY, unsigned: true }, value: 255 },
      { type: { type: MysqlType.SHORT, unsigned: true }, value: 65535 },
      { type: { type: MysqlType.SHORT, unsigned: false }, value: -32768 },
      { type: { type: MysqlType.YEAR, unsigned: true }, value: 2024 },
      { type: { type: MysqlType.INT24, unsigned: false }, value: -8388608 },
      { type: { type: MysqlType.LONG, unsigned: true }, value: 4294967295 },
      { type: { type: MysqlType.LONGLONG, unsigned: false }, value: -(2n ** 63n) },
      { type: { type: MysqlType.DOUBLE, unsigned: false }, value: -1e300 },
      { type: { type: MysqlType.TIMESTAMP, unsigned: false }, value: { kind: 'datetime', year: 2024, month: 5, day: 6, hour: 7, minute: 8, second: 9, microsecond: 0 } },
      { type: { type: MysqlType.DATETIME, unsigned: false }, value: { kind: 'datetime', year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, microsecond: 0 } },
      { type: { type: MysqlType.TIME, unsigned: false }, value: { kind: 'time', negative: false, days: 0, hours: 0, minutes: 0, seconds: 0, microseconds: 0 } },
      { type: { type: MysqlType.TIME, unsigned: false }, value: { kind: 'time', negative: false, days: 0, hours: 23, minutes: 59, seconds: 59, microseconds: 0 } },
      { type: { type: MysqlType.STRING, unsigned: false }, value: 'x'.repeat(300) },
      { type: { type: MysqlType.VARCHAR, unsigned: false }, value: '' },
      { type: { type: MysqlType.DECIMAL, unsigned: false }, value: '-0.5' },
      { type: { type: MysqlType.ENUM, unsigned: false }, value: 'a' },
      { type: { type: MysqlType.SET, unsigned: false }, value: 'a,b' },
      { type: { type: MysqlType.TINY_BLOB, unsigned: false }, value: Buffer.from([1]) },
      { type: { type: MysqlType.MEDIUM_BLOB, unsigned: false }, value: Buffer.alloc(70000, 2) },
      { type: { type: MysqlType.LONG_BLOB, unsigned: false }, value: Buffer.alloc(0) },
      { type: { type: MysqlType.BIT, unsigned: false }, value: Buffer.from([0x80]) },
      { type: { type: MysqlType.GEOMETRY, unsigned: false }, value: Buffer.from([0, 1]) },
      { type: { type: MysqlType.VAR_STRING, unsigned: false }, value: null },
    ];
    const all = [...PARAMS, ...extra];
    const bytes = encodeStmtExecute(4, all);
    const cmd = decodeCommand(bytes, () => ({ paramCount: all.length }));
    assert.ok(cmd.kind === 'stmt_execute');
    assert.deepEqual(cmd.params, all);
  });

  test('truncated or malformed COM_STMT_EXECUTE is a protocol error', () => {
    const info = () => ({ paramCount: PARAMS.length });
    for (let cut = 1; cut < EXECUTE.length; cut++) {
      assert.throws(() => decodeCommand(EXECUTE.subarray(0, cut), info), MysqlProtocolError, `cut at ${cut}`);
    }
    const badDate = hex('17 01 00 00 00 00 01 00 00 00 00 01 0c 00 05 00 00 00 00 00');
    assert.throws(() => decodeCommand(badDate, () => ({ paramCount: 1 })), MysqlProtocolError);
    const badType = hex('17 01 00 00 00 00 01 00 00 00 00 01 20 00 00');
    assert.throws(() => decodeCommand(badType, () => ({ paramCount: 1 })), MysqlProtocolError);
  });

  test('status flags constants', () => {
    assert.equal(SERVER_MORE_RESULTS_EXISTS, 8);
  });
});

test('COM_CHANGE_USER: user, token, database, charset, plugin (as mysql2 writes it), at every split', () => {
  const bytes = hex(`
    11                                   # COM_CHANGE_USER
    726f6f7400                           # user "root"
    04 01020304                          # auth response, 4 bytes
    7075626c696300                       # database "public"
    2d00                                 # charset 45
    6d7973716c5f6e61746976655f70617373776f726400 # mysql_native_password
  `);
  assert.deepEqual(decodeCommand(assertEverySplit(bytes)), {
    kind: 'change_user',
    user: 'root',
    authResponse: Buffer.from([1, 2, 3, 4]),
    database: 'public',
    authPlugin: 'mysql_native_password',
  });
  // The shortest form: no token, no database, nothing after.
  assert.deepEqual(decodeCommand(hex('11 7500 00')), { kind: 'change_user', user: 'u', authResponse: Buffer.alloc(0), database: '', authPlugin: undefined });
  assert.throws(() => decodeCommand(hex('11 7500 05 0102')), MysqlProtocolError);
});
