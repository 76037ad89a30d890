/**
 * Generic responses (OK, ERR, EOF), the command phase's COM_* requests and COM_STMT_PREPARE_OK
 * (dev.mysql.com "Client/Server Protocol › Generic Response Packets", "Command Phase").
 *
 * ```
 * OK  := 0x00 (0xfe as EOF with CLIENT_DEPRECATE_EOF) affected_rows:lenenc last_insert_id:lenenc
 *        status:int<2> warnings:int<2> info:EOF-string
 * ERR := 0xff errno:int<2> '#' sqlstate:5 message:EOF-string
 * EOF := 0xfe warnings:int<2> status:int<2>
 * ```
 */
import { StatusCode, statusCodeName } from '../../common/error/status-code.js';
import { CLIENT_DEPRECATE_EOF, SERVER_STATUS_AUTOCOMMIT } from './handshake.js';
import { MysqlProtocolError, PayloadReader, PayloadWriter } from './packet.js';

// ---------------------------------------------------------------------------------------------
// OK / EOF

export interface OkPacket {
  readonly affectedRows: number | bigint;
  readonly lastInsertId: number | bigint;
  readonly statusFlags: number;
  readonly warnings: number;
  readonly info: string;
}

export const DEFAULT_OK: OkPacket = Object.freeze({
  affectedRows: 0,
  lastInsertId: 0,
  statusFlags: SERVER_STATUS_AUTOCOMMIT,
  warnings: 0,
  info: '',
});

/** OK; `asEof` writes the 0xfe header that ends a result set under CLIENT_DEPRECATE_EOF. */
export function encodeOk(ok: Partial<OkPacket> = {}, opts: { readonly asEof?: boolean } = {}): Buffer {
  const o = { ...DEFAULT_OK, ...ok };
  const w = new PayloadWriter()
    .u8(opts.asEof ? 0xfe : 0x00)
    .lenEncInt(o.affectedRows)
    .lenEncInt(o.lastInsertId)
    .u16(o.statusFlags)
    .u16(o.warnings);
  if (o.info !== '') w.eofString(o.info);
  return w.finish();
}

export function decodeOk(payload: Buffer): OkPacket {
  const r = new PayloadReader(payload);
  const header = r.u8();
  if (header !== 0x00 && header !== 0xfe) throw new MysqlProtocolError(`not an OK packet: header 0x${header.toString(16)}`);
  const affectedRows = r.lenEncInt() ?? 0;
  const lastInsertId = r.lenEncInt() ?? 0;
  return { affectedRows, lastInsertId, statusFlags: r.u16(), warnings: r.u16(), info: r.rest().toString('utf8') };
}

export interface EofPacket {
  readonly warnings: number;
  readonly statusFlags: number;
}

export function encodeEof(eof: Partial<EofPacket> = {}): Buffer {
  return new PayloadWriter()
    .u8(0xfe)
    .u16(eof.warnings ?? 0)
    .u16(eof.statusFlags ?? SERVER_STATUS_AUTOCOMMIT)
    .finish();
}

/** Whether a payload is an EOF packet (0xfe and shorter than 9 bytes, unlike a row starting 0xfe). */
export function isEofPacket(payload: Buffer): boolean {
  return payload[0] === 0xfe && payload.length < 9;
}

export function decodeEof(payload: Buffer): EofPacket {
  if (!isEofPacket(payload)) throw new MysqlProtocolError('not an EOF packet');
  const r = new PayloadReader(payload, 1);
  return { warnings: r.u16(), statusFlags: r.u16() };
}

/** The packet ending a result set or a list of definitions: EOF, or OK-as-EOF with CLIENT_DEPRECATE_EOF. */
export function encodeEndOfRows(capabilities: number, eof: Partial<EofPacket> = {}): Buffer {
  if (capabilities & CLIENT_DEPRECATE_EOF) {
    return encodeOk({ statusFlags: eof.statusFlags ?? SERVER_STATUS_AUTOCOMMIT, warnings: eof.warnings ?? 0 }, { asEof: true });
  }
  return encodeEof(eof);
}

// ---------------------------------------------------------------------------------------------
// ERR

export interface ErrPacket {
  readonly errno: number;
  /** Five characters. */
  readonly sqlState: string;
  readonly message: string;
}

export function encodeErr(err: ErrPacket): Buffer {
  const state = err.sqlState.padEnd(5, '0').slice(0, 5);
  return new PayloadWriter().u8(0xff).u16(err.errno).eofString('#').eofString(state).eofString(err.message).finish();
}

export function decodeErr(payload: Buffer): ErrPacket {
  const r = new PayloadReader(payload);
  if (r.u8() !== 0xff) throw new MysqlProtocolError('not an ERR packet');
  const errno = r.u16();
  let sqlState = 'HY000';
  if (payload[r.offset] === 0x23) {
    r.u8();
    sqlState = r.bytes(5).toString('latin1');
  }
  return { errno, sqlState, message: r.rest().toString('utf8') };
}

/** A MySQL error kind: errno, its name in MySQL's `mysqld_error.h`, SQLSTATE. */
export interface MysqlErrorKind {
  readonly errno: number;
  readonly name: string;
  readonly sqlState: string;
}

const kind = (errno: number, name: string, sqlState: string): MysqlErrorKind => Object.freeze({ errno, name, sqlState });

export const ER_CON_COUNT_ERROR = kind(1040, 'ER_CON_COUNT_ERROR', '08004');
export const ER_ACCESS_DENIED_ERROR = kind(1045, 'ER_ACCESS_DENIED_ERROR', '28000');
export const ER_DBACCESS_DENIED_ERROR = kind(1044, 'ER_DBACCESS_DENIED_ERROR', '42000');
export const ER_BAD_DB_ERROR = kind(1049, 'ER_BAD_DB_ERROR', '42000');
export const ER_TABLE_EXISTS_ERROR = kind(1050, 'ER_TABLE_EXISTS_ERROR', '42S01');
export const ER_BAD_FIELD_ERROR = kind(1054, 'ER_BAD_FIELD_ERROR', '42S22');
export const ER_PARSE_ERROR = kind(1064, 'ER_PARSE_ERROR', '42000');
export const ER_UNKNOWN_COM_ERROR = kind(1047, 'ER_UNKNOWN_COM_ERROR', '08S01');
export const ER_NET_PACKET_TOO_LARGE = kind(1153, 'ER_NET_PACKET_TOO_LARGE', '08S01');
export const ER_WRONG_DB_NAME = kind(1102, 'ER_WRONG_DB_NAME', '42000');
export const ER_NO_SUCH_TABLE = kind(1146, 'ER_NO_SUCH_TABLE', '42S02');
export const ER_SYNTAX_ERROR = kind(1149, 'ER_SYNTAX_ERROR', '42000');
export const ER_WRONG_ARGUMENTS = kind(1210, 'ER_WRONG_ARGUMENTS', 'HY000');
export const ER_NOT_SUPPORTED_YET = kind(1235, 'ER_NOT_SUPPORTED_YET', '42000');
export const ER_UNKNOWN_STMT_HANDLER = kind(1243, 'ER_UNKNOWN_STMT_HANDLER', 'HY000');
export const ER_NOT_SUPPORTED_AUTH_MODE = kind(1251, 'ER_NOT_SUPPORTED_AUTH_MODE', '08004');
export const ER_QUERY_INTERRUPTED = kind(1317, 'ER_QUERY_INTERRUPTED', '70100');
export const ER_WRONG_VALUE_FOR_VAR = kind(1231, 'ER_WRONG_VALUE_FOR_VAR', '42000');
/** `max_execution_time` exceeded. */
export const ER_QUERY_TIMEOUT = kind(3024, 'ER_QUERY_TIMEOUT', 'HY000');
export const ER_INTERNAL_ERROR = kind(1815, 'ER_INTERNAL_ERROR', 'HY000');
export const ER_SECURE_TRANSPORT_REQUIRED = kind(3159, 'ER_SECURE_TRANSPORT_REQUIRED', 'HY000');

/**
 * MySQL error kind of each status code (reference api.md §2: 1001 NOT_SUPPORTED_YET, 1004
 * WRONG_ARGUMENTS, 2000 SYNTAX_ERROR, 4000 TABLE_EXISTS_ERROR, 4001 NO_SUCH_TABLE, 4002
 * BAD_FIELD_ERROR, 4004 WRONG_DB_NAME, 7006 ACCESS_DENIED_ERROR, others INTERNAL_ERROR; the
 * authentication failures 7000–7005 are ACCESS_DENIED_ERROR as MySQL reports a failed login).
 */
export const MYSQL_ERROR_KIND: Record<StatusCode, MysqlErrorKind> = {
  [StatusCode.Success]: ER_INTERNAL_ERROR,
  [StatusCode.Unknown]: ER_INTERNAL_ERROR,
  [StatusCode.Unsupported]: ER_NOT_SUPPORTED_YET,
  [StatusCode.Unexpected]: ER_INTERNAL_ERROR,
  [StatusCode.Internal]: ER_INTERNAL_ERROR,
  [StatusCode.InvalidArguments]: ER_WRONG_ARGUMENTS,
  [StatusCode.Cancelled]: ER_QUERY_INTERRUPTED,
  [StatusCode.IllegalState]: ER_INTERNAL_ERROR,
  [StatusCode.External]: ER_INTERNAL_ERROR,
  [StatusCode.DeadlineExceeded]: ER_QUERY_TIMEOUT,
  [StatusCode.Suspended]: ER_INTERNAL_ERROR,
  [StatusCode.InvalidSyntax]: ER_SYNTAX_ERROR,
  [StatusCode.PlanQuery]: ER_INTERNAL_ERROR,
  [StatusCode.EngineExecuteQuery]: ER_INTERNAL_ERROR,
  [StatusCode.TableAlreadyExists]: ER_TABLE_EXISTS_ERROR,
  [StatusCode.TableNotFound]: ER_NO_SUCH_TABLE,
  [StatusCode.TableColumnNotFound]: ER_BAD_FIELD_ERROR,
  [StatusCode.TableColumnExists]: ER_INTERNAL_ERROR,
  [StatusCode.DatabaseNotFound]: ER_WRONG_DB_NAME,
  [StatusCode.RegionNotFound]: ER_INTERNAL_ERROR,
  [StatusCode.RegionAlreadyExists]: ER_INTERNAL_ERROR,
  [StatusCode.RegionReadonly]: ER_INTERNAL_ERROR,
  [StatusCode.RegionNotReady]: ER_INTERNAL_ERROR,
  [StatusCode.RegionBusy]: ER_INTERNAL_ERROR,
  [StatusCode.TableUnavailable]: ER_INTERNAL_ERROR,
  [StatusCode.DatabaseAlreadyExists]: ER_INTERNAL_ERROR,
  [StatusCode.StorageUnavailable]: ER_INTERNAL_ERROR,
  [StatusCode.RequestOutdated]: ER_INTERNAL_ERROR,
  [StatusCode.RuntimeResourcesExhausted]: ER_INTERNAL_ERROR,
  [StatusCode.RateLimited]: ER_INTERNAL_ERROR,
  [StatusCode.UserNotFound]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.UnsupportedPasswordType]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.UserPasswordMismatch]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.AuthHeaderNotFound]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.InvalidAuthHeader]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.AccessDenied]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.PermissionDenied]: ER_ACCESS_DENIED_ERROR,
  [StatusCode.FlowAlreadyExists]: ER_INTERNAL_ERROR,
  [StatusCode.FlowNotFound]: ER_INTERNAL_ERROR,
  [StatusCode.TriggerAlreadyExists]: ER_INTERNAL_ERROR,
  [StatusCode.TriggerNotFound]: ER_INTERNAL_ERROR,
};

/** The ERR packet of a tsdb error: mapped errno/SQLSTATE, message `(<Name>): <message>` (api.md §2). */
export function errOfStatus(code: StatusCode, message: string): ErrPacket {
  const k = MYSQL_ERROR_KIND[code] ?? ER_INTERNAL_ERROR;
  return { errno: k.errno, sqlState: k.sqlState, message: `(${statusCodeName(code)}): ${message}` };
}

/** An ERR packet of a MySQL error kind with a message as is (e.g. `Unknown database 'x'`). */
export function errOfKind(k: MysqlErrorKind, message: string): ErrPacket {
  return { errno: k.errno, sqlState: k.sqlState, message };
}

// ---------------------------------------------------------------------------------------------
// Commands

export const COM_SLEEP = 0x00;
export const COM_QUIT = 0x01;
export const COM_INIT_DB = 0x02;
export const COM_QUERY = 0x03;
export const COM_FIELD_LIST = 0x04;
export const COM_STATISTICS = 0x09;
export const COM_PROCESS_KILL = 0x0c;
export const COM_PING = 0x0e;
export const COM_CHANGE_USER = 0x11;
export const COM_STMT_PREPARE = 0x16;
export const COM_STMT_EXECUTE = 0x17;
export const COM_STMT_SEND_LONG_DATA = 0x18;
export const COM_STMT_CLOSE = 0x19;
export const COM_STMT_RESET = 0x1a;
export const COM_SET_OPTION = 0x1b;
export const COM_RESET_CONNECTION = 0x1f;

/** MySQL column/parameter types (`enum_field_types`). */
export const MysqlType = {
  DECIMAL: 0x00,
  TINY: 0x01,
  SHORT: 0x02,
  LONG: 0x03,
  FLOAT: 0x04,
  DOUBLE: 0x05,
  NULL: 0x06,
  TIMESTAMP: 0x07,
  LONGLONG: 0x08,
  INT24: 0x09,
  DATE: 0x0a,
  TIME: 0x0b,
  DATETIME: 0x0c,
  YEAR: 0x0d,
  NEWDATE: 0x0e,
  VARCHAR: 0x0f,
  BIT: 0x10,
  TIMESTAMP2: 0x11,
  DATETIME2: 0x12,
  TIME2: 0x13,
  JSON: 0xf5,
  NEWDECIMAL: 0xf6,
  ENUM: 0xf7,
  SET: 0xf8,
  TINY_BLOB: 0xf9,
  MEDIUM_BLOB: 0xfa,
  LONG_BLOB: 0xfb,
  BLOB: 0xfc,
  VAR_STRING: 0xfd,
  STRING: 0xfe,
  GEOMETRY: 0xff,
} as const;

/** A bound parameter's type as COM_STMT_EXECUTE sends it. */
export interface ParamType {
  readonly type: number;
  readonly unsigned: boolean;
}

/** DATE / DATETIME / TIMESTAMP in the binary protocol. */
export interface MysqlDateTime {
  readonly kind: 'datetime';
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly microsecond: number;
}

/** TIME in the binary protocol. */
export interface MysqlTime {
  readonly kind: 'time';
  readonly negative: boolean;
  readonly days: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
  readonly microseconds: number;
}

/**
 * A parameter value: integers as number (LONGLONG as bigint), FLOAT/DOUBLE as number, text types
 * (VARCHAR, VAR_STRING, STRING, DECIMAL, NEWDECIMAL, JSON, ENUM, SET) as string, BLOB types, BIT
 * and GEOMETRY as Buffer, dates and times as objects. Long data is a Buffer.
 */
export type ParamValue = null | number | bigint | string | Buffer | MysqlDateTime | MysqlTime;

export interface BoundParam {
  readonly type: ParamType;
  readonly value: ParamValue;
}

/** What the server keeps of a prepared statement to decode its COM_STMT_EXECUTE. */
export interface PreparedStatementInfo {
  readonly paramCount: number;
  /** Types bound by an earlier execution (new-params-bound flag 0 reuses them). */
  readonly paramTypes?: readonly ParamType[] | undefined;
  /** Data sent by COM_STMT_SEND_LONG_DATA per parameter index; such values are not in the packet. */
  readonly longData?: ReadonlyMap<number, Buffer> | undefined;
}

export type Command =
  | { readonly kind: 'quit' }
  | { readonly kind: 'init_db'; readonly database: string }
  | { readonly kind: 'query'; readonly sql: string }
  | { readonly kind: 'field_list'; readonly table: string; readonly wildcard: string }
  | { readonly kind: 'ping' }
  | { readonly kind: 'stmt_prepare'; readonly sql: string }
  | {
      readonly kind: 'stmt_execute';
      readonly statementId: number;
      readonly flags: number;
      readonly iterationCount: number;
      /** Undefined when the statement is unknown (reply ER_UNKNOWN_STMT_HANDLER). */
      readonly params: readonly BoundParam[] | undefined;
      /** The types used, to keep for the next execution. */
      readonly paramTypes: readonly ParamType[] | undefined;
      readonly newParamsBound: boolean;
    }
  | { readonly kind: 'stmt_close'; readonly statementId: number }
  | { readonly kind: 'stmt_reset'; readonly statementId: number }
  | { readonly kind: 'stmt_send_long_data'; readonly statementId: number; readonly paramId: number; readonly data: Buffer }
  | { readonly kind: 'reset_connection' }
  /** COM_CHANGE_USER (CLIENT_SECURE_CONNECTION form): the token is computed on the handshake's scramble. */
  | { readonly kind: 'change_user'; readonly user: string; readonly authResponse: Buffer; readonly database: string; readonly authPlugin: string | undefined }
  | { readonly kind: 'unknown'; readonly code: number };

/**
 * Decodes a command-phase payload. `statement(id)` gives what COM_STMT_EXECUTE needs to decode its
 * parameters. Throws MysqlProtocolError on a malformed payload.
 */
export function decodeCommand(
  payload: Buffer,
  statement: (id: number) => PreparedStatementInfo | undefined = () => undefined,
): Command {
  const r = new PayloadReader(payload);
  const code = r.u8();
  switch (code) {
    case COM_QUIT:
      return { kind: 'quit' };
    case COM_PING:
      return { kind: 'ping' };
    case COM_RESET_CONNECTION:
      return { kind: 'reset_connection' };
    case COM_INIT_DB:
      return { kind: 'init_db', database: r.rest().toString('utf8') };
    case COM_QUERY:
      return { kind: 'query', sql: r.rest().toString('utf8') };
    case COM_STMT_PREPARE:
      return { kind: 'stmt_prepare', sql: r.rest().toString('utf8') };
    case COM_FIELD_LIST: {
      const table = r.remaining > 0 && payload.includes(0, r.offset) ? r.nulString() : r.rest().toString('utf8');
      return { kind: 'field_list', table, wildcard: r.rest().toString('utf8') };
    }
    case COM_STMT_CLOSE:
      return { kind: 'stmt_close', statementId: r.u32() };
    case COM_STMT_RESET:
      return { kind: 'stmt_reset', statementId: r.u32() };
    case COM_STMT_SEND_LONG_DATA: {
      const statementId = r.u32();
      const paramId = r.u16();
      return { kind: 'stmt_send_long_data', statementId, paramId, data: Buffer.from(r.rest()) };
    }
    case COM_STMT_EXECUTE:
      return decodeStmtExecute(r, statement);
    case COM_CHANGE_USER: {
      // user NUL, auth length:int<1> auth, database NUL, [charset:int<2>, [plugin NUL, [attributes]]]
      const user = r.nulString();
      const authResponse = Buffer.from(r.bytes(r.u8()));
      const database = r.remaining > 0 ? r.nulString() : '';
      if (r.remaining >= 2) r.u16();
      const authPlugin = r.remaining > 0 && payload.includes(0, r.offset) ? r.nulString() : undefined;
      return { kind: 'change_user', user, authResponse, database, authPlugin };
    }
    default:
      return { kind: 'unknown', code };
  }
}

function decodeStmtExecute(r: PayloadReader, statement: (id: number) => PreparedStatementInfo | undefined): Command {
  const statementId = r.u32();
  const flags = r.u8();
  const iterationCount = r.u32();
  const info = statement(statementId);
  if (info === undefined) {
    return { kind: 'stmt_execute', statementId, flags, iterationCount, params: undefined, paramTypes: undefined, newParamsBound: false };
  }
  const n = info.paramCount;
  if (n === 0) {
    return { kind: 'stmt_execute', statementId, flags, iterationCount, params: [], paramTypes: [], newParamsBound: false };
  }
  const nullBitmap = r.bytes((n + 7) >> 3);
  const newParamsBound = r.u8() === 1;
  let types: readonly ParamType[];
  if (newParamsBound) {
    const t: ParamType[] = [];
    for (let i = 0; i < n; i++) {
      const type = r.u8();
      const flag = r.u8();
      t.push({ type, unsigned: (flag & 0x80) !== 0 });
    }
    types = t;
  } else if (info.paramTypes !== undefined && info.paramTypes.length === n) {
    types = info.paramTypes;
  } else {
    throw new MysqlProtocolError(`COM_STMT_EXECUTE of statement ${statementId} without parameter types`);
  }
  const params: BoundParam[] = [];
  for (let i = 0; i < n; i++) {
    const type = types[i]!;
    const long = info.longData?.get(i);
    if (long !== undefined) params.push({ type, value: long });
    else if (nullBitmap[i >> 3]! & (1 << (i & 7))) params.push({ type, value: null });
    else params.push({ type, value: readBinaryValue(r, type) });
  }
  return { kind: 'stmt_execute', statementId, flags, iterationCount, params, paramTypes: types, newParamsBound };
}

/** Whether a parameter type carries bytes (the BLOB types, BIT, GEOMETRY). */
export function isBlobType(t: number): boolean {
  return (t >= MysqlType.TINY_BLOB && t <= MysqlType.BLOB) || t === MysqlType.GEOMETRY || t === MysqlType.BIT;
}

/** One value of the binary protocol (a parameter or a binary-row cell). */
export function readBinaryValue(r: PayloadReader, { type, unsigned }: ParamType): ParamValue {
  switch (type) {
    case MysqlType.NULL:
      return null;
    case MysqlType.TINY: {
      const v = r.u8();
      return unsigned ? v : (v << 24) >> 24;
    }
    case MysqlType.SHORT:
    case MysqlType.YEAR: {
      const v = r.u16();
      return unsigned ? v : (v << 16) >> 16;
    }
    case MysqlType.LONG:
    case MysqlType.INT24: {
      const v = r.u32();
      return unsigned ? v : v | 0;
    }
    case MysqlType.LONGLONG: {
      const v = r.u64();
      return unsigned ? v : BigInt.asIntN(64, v);
    }
    case MysqlType.FLOAT:
      return r.bytes(4).readFloatLE(0);
    case MysqlType.DOUBLE:
      return r.bytes(8).readDoubleLE(0);
    case MysqlType.DATE:
    case MysqlType.DATETIME:
    case MysqlType.TIMESTAMP:
    case MysqlType.NEWDATE:
    case MysqlType.DATETIME2:
    case MysqlType.TIMESTAMP2:
      return readBinaryDateTime(r);
    case MysqlType.TIME:
    case MysqlType.TIME2:
      return readBinaryTime(r);
    default:
      if (isBlobType(type)) return Buffer.from(r.lenEncBytes());
      if (
        type === MysqlType.DECIMAL ||
        type === MysqlType.NEWDECIMAL ||
        type === MysqlType.VARCHAR ||
        type === MysqlType.VAR_STRING ||
        type === MysqlType.STRING ||
        type === MysqlType.ENUM ||
        type === MysqlType.SET ||
        type === MysqlType.JSON
      ) {
        return r.lenEncString();
      }
      throw new MysqlProtocolError(`unsupported binary type 0x${type.toString(16)}`);
  }
}

function readBinaryDateTime(r: PayloadReader): MysqlDateTime {
  const length = r.u8();
  if (length !== 0 && length !== 4 && length !== 7 && length !== 11) {
    throw new MysqlProtocolError(`malformed DATETIME of length ${length}`);
  }
  let year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, microsecond = 0;
  if (length >= 4) {
    year = r.u16();
    month = r.u8();
    day = r.u8();
  }
  if (length >= 7) {
    hour = r.u8();
    minute = r.u8();
    second = r.u8();
  }
  if (length === 11) microsecond = r.u32();
  return { kind: 'datetime', year, month, day, hour, minute, second, microsecond };
}

function readBinaryTime(r: PayloadReader): MysqlTime {
  const length = r.u8();
  if (length !== 0 && length !== 8 && length !== 12) throw new MysqlProtocolError(`malformed TIME of length ${length}`);
  let negative = false, days = 0, hours = 0, minutes = 0, seconds = 0, microseconds = 0;
  if (length >= 8) {
    negative = r.u8() === 1;
    days = r.u32();
    hours = r.u8();
    minutes = r.u8();
    seconds = r.u8();
  }
  if (length === 12) microseconds = r.u32();
  return { kind: 'time', negative, days, hours, minutes, seconds, microseconds };
}

/** Writes a DATETIME in its shortest binary form (0, 4, 7 or 11 bytes after the length). */
export function writeBinaryDateTime(w: PayloadWriter, d: MysqlDateTime): void {
  if (d.microsecond !== 0) {
    w.u8(11).u16(d.year).u8(d.month).u8(d.day).u8(d.hour).u8(d.minute).u8(d.second).u32(d.microsecond);
  } else if (d.hour !== 0 || d.minute !== 0 || d.second !== 0) {
    w.u8(7).u16(d.year).u8(d.month).u8(d.day).u8(d.hour).u8(d.minute).u8(d.second);
  } else if (d.year !== 0 || d.month !== 0 || d.day !== 0) {
    w.u8(4).u16(d.year).u8(d.month).u8(d.day);
  } else {
    w.u8(0);
  }
}

/** Writes a TIME in its shortest binary form. */
export function writeBinaryTime(w: PayloadWriter, t: MysqlTime): void {
  const zero = t.days === 0 && t.hours === 0 && t.minutes === 0 && t.seconds === 0;
  if (t.microseconds !== 0) {
    w.u8(12).u8(t.negative ? 1 : 0).u32(t.days).u8(t.hours).u8(t.minutes).u8(t.seconds).u32(t.microseconds);
  } else if (!zero) {
    w.u8(8).u8(t.negative ? 1 : 0).u32(t.days).u8(t.hours).u8(t.minutes).u8(t.seconds);
  } else {
    w.u8(0);
  }
}

/** Writes one binary-protocol value of `type` (the inverse of `readBinaryValue`). */
export function writeBinaryValue(w: PayloadWriter, { type }: ParamType, value: Exclude<ParamValue, null>): void {
  const int = (v: ParamValue): bigint => {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') return BigInt(Math.trunc(v));
    return BigInt(String(v));
  };
  switch (type) {
    case MysqlType.TINY:
      w.u8(Number(BigInt.asUintN(8, int(value))));
      return;
    case MysqlType.SHORT:
    case MysqlType.YEAR:
      w.u16(Number(BigInt.asUintN(16, int(value))));
      return;
    case MysqlType.LONG:
    case MysqlType.INT24:
      w.u32(Number(BigInt.asUintN(32, int(value))));
      return;
    case MysqlType.LONGLONG:
      w.u64(int(value));
      return;
    case MysqlType.FLOAT: {
      const b = Buffer.alloc(4);
      b.writeFloatLE(Number(value));
      w.bytes(b);
      return;
    }
    case MysqlType.DOUBLE: {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(Number(value));
      w.bytes(b);
      return;
    }
    case MysqlType.DATE:
    case MysqlType.DATETIME:
    case MysqlType.TIMESTAMP:
    case MysqlType.NEWDATE:
    case MysqlType.DATETIME2:
    case MysqlType.TIMESTAMP2:
      if (typeof value !== 'object' || Buffer.isBuffer(value) || value.kind !== 'datetime') throw new TypeError('DATETIME value expected');
      writeBinaryDateTime(w, value);
      return;
    case MysqlType.TIME:
    case MysqlType.TIME2:
      if (typeof value !== 'object' || Buffer.isBuffer(value) || value.kind !== 'time') throw new TypeError('TIME value expected');
      writeBinaryTime(w, value);
      return;
    case MysqlType.NULL:
      return;
    default:
      if (Buffer.isBuffer(value)) w.lenEncBytes(value);
      else if (typeof value === 'object') throw new TypeError(`${value.kind} value for type 0x${type.toString(16)}`);
      else w.lenEncString(String(value));
  }
}

/** For tests and clients: a COM_STMT_EXECUTE (types always bound when `newParamsBound`). */
export function encodeStmtExecute(
  statementId: number,
  params: readonly BoundParam[],
  opts: { readonly newParamsBound?: boolean; readonly flags?: number; readonly sentAsLongData?: ReadonlySet<number> } = {},
): Buffer {
  const w = new PayloadWriter().u8(COM_STMT_EXECUTE).u32(statementId).u8(opts.flags ?? 0).u32(1);
  if (params.length > 0) {
    const bitmap = Buffer.alloc((params.length + 7) >> 3);
    params.forEach((p, i) => {
      if (p.value === null) bitmap[i >> 3]! |= 1 << (i & 7);
    });
    const bound = opts.newParamsBound ?? true;
    w.bytes(bitmap).u8(bound ? 1 : 0);
    if (bound) for (const p of params) w.u8(p.type.type).u8(p.type.unsigned ? 0x80 : 0);
    params.forEach((p, i) => {
      if (p.value !== null && !opts.sentAsLongData?.has(i)) writeBinaryValue(w, p.type, p.value);
    });
  }
  return w.finish();
}

/** For tests and clients: the payload of a command that is a code and text (or nothing). */
export function encodeSimpleCommand(code: number, text = ''): Buffer {
  return new PayloadWriter().u8(code).eofString(text).finish();
}

export function encodeStmtSendLongData(statementId: number, paramId: number, data: Buffer): Buffer {
  return new PayloadWriter().u8(COM_STMT_SEND_LONG_DATA).u32(statementId).u16(paramId).bytes(data).finish();
}

export function encodeStmtIdCommand(code: typeof COM_STMT_CLOSE | typeof COM_STMT_RESET, statementId: number): Buffer {
  return new PayloadWriter().u8(code).u32(statementId).finish();
}

// ---------------------------------------------------------------------------------------------
// COM_STMT_PREPARE_OK

export interface PrepareOk {
  readonly statementId: number;
  readonly columnCount: number;
  readonly paramCount: number;
  readonly warnings: number;
}

/** The first packet of a COM_STMT_PREPARE response; definitions follow (see resultset.ts). */
export function encodePrepareOk(p: PrepareOk): Buffer {
  return new PayloadWriter()
    .u8(0x00)
    .u32(p.statementId)
    .u16(p.columnCount)
    .u16(p.paramCount)
    .u8(0)
    .u16(p.warnings)
    .finish();
}

export function decodePrepareOk(payload: Buffer): PrepareOk {
  const r = new PayloadReader(payload);
  if (r.u8() !== 0x00) throw new MysqlProtocolError('not a COM_STMT_PREPARE_OK packet');
  const statementId = r.u32();
  const columnCount = r.u16();
  const paramCount = r.u16();
  r.u8();
  const warnings = r.remaining >= 2 ? r.u16() : 0;
  return { statementId, columnCount, paramCount, warnings };
}
