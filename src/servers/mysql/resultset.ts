/**
 * Result sets in the MySQL text and binary protocols (dev.mysql.com "Client/Server Protocol ›
 * Text Resultset", "Binary Protocol Resultset"): column definitions for each tsdb data type, rows,
 * and every packet of a result set.
 *
 * ```
 * result set := column_count:lenenc ColumnDefinition41… [EOF] row… (EOF | OK-as-EOF)
 * ColumnDefinition41 := "def" schema table org_table name org_name (lenenc strings) 0x0c
 *                       charset:int<2> length:int<4> type:int<1> flags:int<2> decimals:int<1> 0:int<2>
 * text row   := (lenenc string | 0xfb NULL)…
 * binary row := 0x00 null_bitmap:(n+9)/8 (bit i+2 set = column i NULL) value…
 * ```
 * Cells are as `query/result-conversion.ts` makes them: timestamps and times integers in their
 * unit, dates days since the epoch, decimals strings, binaries byte arrays.
 */
import { shortestFloat32 } from '../../common/float32.js';
import { parseTimestamp } from '../../common/time/timestamp.js';
import type { TimeUnit } from '../../types/time-unit.js';
import { intervalIso8601, parseIntervalText } from '../../common/time/interval-text.js';
import type { Cell, Output, OutputColumn } from '../../query/output.js';
import { CHARSET_BINARY, CHARSET_UTF8MB4_GENERAL_CI, CLIENT_DEPRECATE_EOF, SERVER_STATUS_AUTOCOMMIT } from './handshake.js';
import { encodeEndOfRows, encodeEof, encodeOk, encodePrepareOk, MysqlType, writeBinaryDateTime, writeBinaryTime } from './messages.js';
import { MysqlProtocolError, PayloadReader, PayloadWriter, packetCount, writePacket } from './packet.js';
import { civilTime, formatDate, formatTime, formatTimestamp, timeUnitOf } from './time-format.js';

// Column flags.
export const NOT_NULL_FLAG = 0x1;
export const PRI_KEY_FLAG = 0x2;
export const UNIQUE_KEY_FLAG = 0x4;
export const MULTIPLE_KEY_FLAG = 0x8;
export const BLOB_FLAG = 0x10;
export const UNSIGNED_FLAG = 0x20;
export const ZEROFILL_FLAG = 0x40;
export const BINARY_FLAG = 0x80;
export const ENUM_FLAG = 0x100;
export const AUTO_INCREMENT_FLAG = 0x200;
export const TIMESTAMP_FLAG = 0x400;
export const SET_FLAG = 0x800;
export const NUM_FLAG = 0x8000;

export interface ColumnDefinition {
  readonly catalog: string;
  readonly schema: string;
  readonly table: string;
  readonly orgTable: string;
  readonly name: string;
  readonly orgName: string;
  readonly charset: number;
  readonly length: number;
  readonly type: number;
  readonly flags: number;
  readonly decimals: number;
}

/** How a tsdb type is shown: MySQL type, flags, display length, decimals, charset. */
export interface MysqlColumnType {
  readonly type: number;
  readonly flags: number;
  readonly length: number;
  readonly decimals: number;
  readonly charset: number;
}

const t = (type: number, length: number, flags = 0, decimals = 0, charset = CHARSET_BINARY): MysqlColumnType =>
  Object.freeze({ type, flags, length, decimals, charset });

/** Decimals shown for a double/float without a fixed scale (MySQL's NOT_FIXED_DEC). */
const NOT_FIXED_DEC = 31;
const TEXT_LENGTH = 65535 * 4;

const FIXED_TYPES: Readonly<Record<string, MysqlColumnType>> = {
  Boolean: t(MysqlType.TINY, 1, NUM_FLAG),
  Int8: t(MysqlType.TINY, 4, NUM_FLAG),
  Int16: t(MysqlType.SHORT, 6, NUM_FLAG),
  Int32: t(MysqlType.LONG, 11, NUM_FLAG),
  Int64: t(MysqlType.LONGLONG, 20, NUM_FLAG),
  UInt8: t(MysqlType.TINY, 3, NUM_FLAG | UNSIGNED_FLAG),
  UInt16: t(MysqlType.SHORT, 5, NUM_FLAG | UNSIGNED_FLAG),
  UInt32: t(MysqlType.LONG, 10, NUM_FLAG | UNSIGNED_FLAG),
  UInt64: t(MysqlType.LONGLONG, 20, NUM_FLAG | UNSIGNED_FLAG),
  Float32: t(MysqlType.FLOAT, 12, NUM_FLAG, NOT_FIXED_DEC),
  Float64: t(MysqlType.DOUBLE, 22, NUM_FLAG, NOT_FIXED_DEC),
  String: t(MysqlType.VAR_STRING, TEXT_LENGTH, 0, 0, CHARSET_UTF8MB4_GENERAL_CI),
  Binary: t(MysqlType.BLOB, 65535, BLOB_FLAG | BINARY_FLAG),
  Date: t(MysqlType.DATE, 10, BINARY_FLAG),
  Json: t(MysqlType.JSON, 0xffffffff, BLOB_FLAG | BINARY_FLAG),
  Null: t(MysqlType.NULL, 0, BINARY_FLAG),
};

const DECIMALS_OF_UNIT: Record<TimeUnit, number> = { s: 0, ms: 3, us: 6, ns: 6 };

/** The MySQL column type of a tsdb `data_type` name; unknown types (intervals, lists, …) are text. */
export function mysqlColumnType(dataType: string): MysqlColumnType {
  const fixed = FIXED_TYPES[dataType];
  if (fixed !== undefined) return fixed;
  // VECTOR(n): its bytes, as GreptimeDB sends them (MYSQL_TYPE_BLOB).
  if (dataType.startsWith('Vector(')) return FIXED_TYPES['Binary']!;
  const unit = timeUnitOf(dataType);
  if (unit !== undefined) {
    const decimals = DECIMALS_OF_UNIT[unit];
    const fraction = decimals === 0 ? 0 : decimals + 1;
    if (dataType.startsWith('Timestamp')) return t(MysqlType.TIMESTAMP, 19 + fraction, BINARY_FLAG | TIMESTAMP_FLAG, decimals);
    return t(MysqlType.TIME, 10 + fraction, BINARY_FLAG, decimals);
  }
  const dec = /^Decimal\((\d+),\s*(\d+)\)$/.exec(dataType);
  if (dec) {
    const precision = Number(dec[1]);
    const scale = Number(dec[2]);
    return t(MysqlType.NEWDECIMAL, precision + (scale > 0 ? 2 : 1), NUM_FLAG, scale);
  }
  return t(MysqlType.VAR_STRING, TEXT_LENGTH, 0, 0, CHARSET_UTF8MB4_GENERAL_CI);
}

/** The definition of an output column (schema and table when known, else empty). */
export function columnDefinition(column: OutputColumn, opts: { readonly schema?: string; readonly table?: string } = {}): ColumnDefinition {
  const m = mysqlColumnType(column.data_type);
  return {
    catalog: 'def',
    schema: opts.schema ?? '',
    table: opts.table ?? '',
    orgTable: opts.table ?? '',
    name: column.name,
    orgName: column.name,
    charset: m.charset,
    length: m.length,
    type: m.type,
    flags: m.flags,
    decimals: m.decimals,
  };
}

/** Protocol::ColumnDefinition41; `defaultValues` only in a COM_FIELD_LIST response. */
export function encodeColumnDefinition(d: ColumnDefinition, defaultValues?: string): Buffer {
  const w = new PayloadWriter()
    .lenEncString(d.catalog)
    .lenEncString(d.schema)
    .lenEncString(d.table)
    .lenEncString(d.orgTable)
    .lenEncString(d.name)
    .lenEncString(d.orgName)
    .lenEncInt(0x0c)
    .u16(d.charset)
    .u32(d.length)
    .u8(d.type)
    .u16(d.flags)
    .u8(d.decimals)
    .zeros(2);
  if (defaultValues !== undefined) w.lenEncString(defaultValues);
  return w.finish();
}

export function decodeColumnDefinition(payload: Buffer): ColumnDefinition {
  const r = new PayloadReader(payload);
  const catalog = r.lenEncString();
  const schema = r.lenEncString();
  const table = r.lenEncString();
  const orgTable = r.lenEncString();
  const name = r.lenEncString();
  const orgName = r.lenEncString();
  const fixedLength = r.length();
  if (fixedLength < 0x0a) throw new MysqlProtocolError(`malformed column definition: fixed fields of ${fixedLength} bytes`);
  const fixed = new PayloadReader(r.bytes(fixedLength));
  return {
    catalog,
    schema,
    table,
    orgTable,
    name,
    orgName,
    charset: fixed.u16(),
    length: fixed.u32(),
    type: fixed.u8(),
    flags: fixed.u16(),
    decimals: fixed.u8(),
  };
}

// ---------------------------------------------------------------------------------------------
// Cell conversion

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

function bytesOf(cell: Cell | Uint8Array): Buffer {
  if (isBytes(cell)) return Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength);
  if (Array.isArray(cell) && cell.every((x) => typeof x === 'number')) return Buffer.from(cell as number[]);
  return Buffer.from(textOfValue(cell), 'utf8');
}

function bigintOf(cell: Cell): bigint {
  if (typeof cell === 'bigint') return cell;
  if (typeof cell === 'number') return BigInt(Math.trunc(cell));
  if (typeof cell === 'boolean') return cell ? 1n : 0n;
  if (typeof cell === 'string' && /^\s*[+-]?\d+\s*$/.test(cell)) return BigInt(cell.trim());
  throw new TypeError(`not an integer: ${JSON.stringify(String(cell))}`);
}

function numberOf(cell: Cell): number {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'bigint') return Number(cell);
  if (typeof cell === 'boolean') return cell ? 1 : 0;
  return Number(cell);
}

/** Shortest decimal text that reads back as the same float32. */
function float32Text(v: number): string {
  const f = shortestFloat32(v);
  return Number.isFinite(f) && f !== 0 ? String(f) : floatText(f);
}

function floatText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  // String(-0) is `0`; MySQL writes negative zero as `-0`.
  return Object.is(v, -0) ? '-0' : String(v);
}

/** Text of a cell without a known type (strings as is, nested values as JSON). */
function textOfValue(cell: Cell | Uint8Array): string {
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return floatText(cell);
  if (typeof cell === 'bigint') return cell.toString();
  if (typeof cell === 'boolean') return cell ? '1' : '0';
  if (isBytes(cell)) return Buffer.from(cell).toString('utf8');
  return JSON.stringify(cell, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** A cell as a text-protocol value (null for NULL). */
export function textCell(cell: Cell, dataType: string, timeZone: string): Buffer | null {
  if (cell === null || cell === undefined) return null;
  if (dataType === 'Binary' || dataType.startsWith('Vector(')) return bytesOf(cell);
  return Buffer.from(textCellString(cell, dataType, timeZone), 'utf8');
}

function textCellString(cell: Cell, dataType: string, timeZone: string): string {
  if (dataType === 'IntervalMonthDayNano' && typeof cell === 'string') {
    // GreptimeDB's MySQL rows show intervals in ISO 8601 (query results carry Arrow's display).
    const iv = parseIntervalText(cell);
    if (iv !== undefined) return intervalIso8601(iv);
  }
  const unit = timeUnitOf(dataType);
  if (unit !== undefined && (typeof cell === 'number' || typeof cell === 'bigint')) {
    return dataType.startsWith('Timestamp') ? formatTimestamp(bigintOf(cell), unit, timeZone) : formatTime(bigintOf(cell), unit);
  }
  switch (dataType) {
    case 'Boolean':
      return cell === true || cell === 1 || cell === 1n || cell === 'true' || cell === '1' ? '1' : '0';
    case 'Float32':
      return typeof cell === 'number' ? float32Text(cell) : textOfValue(cell);
    case 'Date':
      return typeof cell === 'number' ? formatDate(cell) : textOfValue(cell);
    default:
      return textOfValue(cell);
  }
}

/** A text-protocol row. */
export function encodeTextRow(row: readonly Cell[], columns: readonly OutputColumn[], timeZone: string): Buffer {
  const w = new PayloadWriter();
  for (let i = 0; i < columns.length; i++) {
    const v = textCell(row[i] ?? null, columns[i]!.data_type, timeZone);
    if (v === null) w.nullCell();
    else w.lenEncBytes(v);
  }
  return w.finish();
}

/** Writes one cell in the binary protocol as `mysqlColumnType(dataType)` declares it. */
export function writeBinaryCell(w: PayloadWriter, cell: Cell, dataType: string, timeZone: string): void {
  const m = mysqlColumnType(dataType);
  switch (m.type) {
    case MysqlType.TINY:
      if (dataType === 'Boolean') w.u8(textCellString(cell, dataType, timeZone) === '1' ? 1 : 0);
      else w.u8(Number(BigInt.asUintN(8, bigintOf(cell))));
      return;
    case MysqlType.SHORT:
      w.u16(Number(BigInt.asUintN(16, bigintOf(cell))));
      return;
    case MysqlType.LONG:
      w.u32(Number(BigInt.asUintN(32, bigintOf(cell))));
      return;
    case MysqlType.LONGLONG:
      w.u64(bigintOf(cell));
      return;
    case MysqlType.FLOAT: {
      const b = Buffer.alloc(4);
      b.writeFloatLE(numberOf(cell));
      w.bytes(b);
      return;
    }
    case MysqlType.DOUBLE: {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(numberOf(cell));
      w.bytes(b);
      return;
    }
    case MysqlType.DATE: {
      let days: bigint | undefined;
      if (typeof cell === 'number' || typeof cell === 'bigint') days = BigInt(Math.trunc(Number(cell)));
      else if (typeof cell === 'string') {
        const s = parseTimestamp(cell, 's', 'UTC');
        days = s === undefined ? undefined : s / 86_400n - (s % 86_400n < 0n ? 1n : 0n);
      }
      const zero = { kind: 'datetime', hour: 0, minute: 0, second: 0, microsecond: 0 } as const;
      if (days === undefined) {
        writeBinaryDateTime(w, { ...zero, year: 0, month: 0, day: 0 });
        return;
      }
      const c = civilTime(days * 86_400n, 's', 'UTC');
      // Midnight: always the 4-byte form.
      writeBinaryDateTime(w, { ...zero, year: c.year, month: c.month, day: c.day });
      return;
    }
    case MysqlType.TIMESTAMP: {
      const unit = timeUnitOf(dataType)!;
      const value = typeof cell === 'string' ? parseTimestamp(cell, unit, timeZone) : bigintOf(cell);
      if (value === undefined) throw new TypeError(`not a timestamp: ${JSON.stringify(cell)}`);
      const c = civilTime(value, unit, timeZone);
      const microsecond = Math.floor(c.nanos / 1000);
      const { year, month, day, hour, minute, second } = c;
      writeBinaryDateTime(w, { kind: 'datetime', year, month, day, hour, minute, second, microsecond });
      return;
    }
    case MysqlType.TIME: {
      const unit = timeUnitOf(dataType)!;
      let us = (bigintOf(cell) * { s: 1_000_000n, ms: 1000n, us: 1n, ns: 1n }[unit]) / (unit === 'ns' ? 1000n : 1n);
      const negative = us < 0n;
      if (negative) us = -us;
      const secs = Number(us / 1_000_000n);
      writeBinaryTime(w, {
        kind: 'time',
        negative,
        days: Math.floor(secs / 86_400),
        hours: Math.floor((secs % 86_400) / 3600),
        minutes: Math.floor((secs % 3600) / 60),
        seconds: secs % 60,
        microseconds: Number(us % 1_000_000n),
      });
      return;
    }
    case MysqlType.NULL:
      return;
    default:
      w.lenEncBytes(textCell(cell, dataType, timeZone)!);
  }
}

/** A binary-protocol row (COM_STMT_EXECUTE results). */
export function encodeBinaryRow(row: readonly Cell[], columns: readonly OutputColumn[], timeZone: string): Buffer {
  const n = columns.length;
  const bitmap = Buffer.alloc((n + 7 + 2) >> 3);
  const values = new PayloadWriter();
  for (let i = 0; i < n; i++) {
    const cell = row[i] ?? null;
    const dataType = columns[i]!.data_type;
    if (cell === null || mysqlColumnType(dataType).type === MysqlType.NULL) {
      bitmap[(i + 2) >> 3]! |= 1 << ((i + 2) & 7);
      continue;
    }
    writeBinaryCell(values, cell, dataType, timeZone);
  }
  return new PayloadWriter().u8(0x00).bytes(bitmap).bytes(values.finish()).finish();
}

// ---------------------------------------------------------------------------------------------
// Whole responses

export interface ResultSetOptions {
  /** Capability flags both sides agreed on (CLIENT_DEPRECATE_EOF decides EOF vs OK-as-EOF). */
  readonly capabilities: number;
  /** Sequence id of the first packet (the request's + 1). */
  readonly seq: number;
  /** Session time zone for timestamps (`UTC`, `+08:00`, IANA name). */
  readonly timeZone: string;
  /** Binary rows (COM_STMT_EXECUTE) instead of text rows. */
  readonly binary?: boolean;
  /** Status flags of the final packet (add SERVER_MORE_RESULTS_EXISTS when more follow). */
  readonly statusFlags?: number;
  readonly warnings?: number;
  readonly schema?: string;
  readonly table?: string;
}

export interface Packets {
  /** Framed packets, ready to write. */
  readonly bytes: Buffer;
  /** The sequence id after the last packet. */
  readonly nextSeq: number;
}

/** Frames payloads from sequence id `seq`. */
export function framePayloads(payloads: readonly Buffer[], seq: number): Packets {
  const out: Buffer[] = [];
  let s = seq;
  for (const p of payloads) {
    out.push(writePacket(p, s));
    s = (s + packetCount(p.length)) & 0xff;
  }
  return { bytes: Buffer.concat(out), nextSeq: s };
}

/** The payloads of a result set before its rows: column count, definitions, [EOF]. */
export function resultSetHeadPayloads(columns: readonly OutputColumn[], opts: Omit<ResultSetOptions, 'seq'>): Buffer[] {
  const out: Buffer[] = [new PayloadWriter().lenEncInt(columns.length).finish()];
  for (const c of columns) out.push(encodeColumnDefinition(columnDefinition(c, opts)));
  if (!(opts.capabilities & CLIENT_DEPRECATE_EOF)) out.push(encodeEof({ statusFlags: opts.statusFlags ?? SERVER_STATUS_AUTOCOMMIT }));
  return out;
}

/** The payload after a result set's rows: EOF or OK-as-EOF. */
export function resultSetEndPayload(opts: Omit<ResultSetOptions, 'seq'>): Buffer {
  return encodeEndOfRows(opts.capabilities, { statusFlags: opts.statusFlags ?? SERVER_STATUS_AUTOCOMMIT, warnings: opts.warnings ?? 0 });
}

/**
 * The payloads of a result set: column count, definitions, [EOF], rows, EOF or OK-as-EOF. Rows a
 * payload each, by `encodeTextRow` / `encodeBinaryRow`: for small results; the servers write large
 * ones with `row-encoder.ts`, which gives the same bytes.
 */
export function resultSetPayloads(
  columns: readonly OutputColumn[],
  rows: ReadonlyArray<readonly Cell[]>,
  opts: Omit<ResultSetOptions, 'seq'>,
): Buffer[] {
  const out = resultSetHeadPayloads(columns, opts);
  for (const row of rows) {
    out.push(opts.binary ? encodeBinaryRow(row, columns, opts.timeZone) : encodeTextRow(row, columns, opts.timeZone));
  }
  out.push(resultSetEndPayload(opts));
  return out;
}

/** All packets of a result set, framed from `opts.seq`. */
export function resultSetPackets(
  columns: readonly OutputColumn[],
  rows: ReadonlyArray<readonly Cell[]>,
  opts: ResultSetOptions,
): Packets {
  return framePayloads(resultSetPayloads(columns, rows, opts), opts.seq);
}

/** The packets of any output: a result set, or OK with the affected rows. */
export function outputPackets(output: Output, opts: ResultSetOptions): Packets {
  if (output.kind === 'records') return resultSetPackets(output.columns, output.rows, opts);
  const ok = encodeOk({ affectedRows: output.rows, statusFlags: opts.statusFlags ?? SERVER_STATUS_AUTOCOMMIT, warnings: opts.warnings ?? 0 });
  return framePayloads([ok], opts.seq);
}

/**
 * The response to COM_STMT_PREPARE: PREPARE_OK, parameter definitions [EOF], column definitions
 * [EOF]. Parameters are described as VAR_STRING `?` unless given.
 */
export function preparePackets(
  p: {
    readonly statementId: number;
    readonly params: number | readonly OutputColumn[];
    readonly columns: readonly OutputColumn[];
    readonly warnings?: number;
  },
  opts: { readonly capabilities: number; readonly seq: number },
): Packets {
  const params =
    typeof p.params === 'number' ? Array.from({ length: p.params }, () => ({ name: '?', data_type: 'String' })) : p.params;
  const out: Buffer[] = [
    encodePrepareOk({ statementId: p.statementId, columnCount: p.columns.length, paramCount: params.length, warnings: p.warnings ?? 0 }),
  ];
  const eof = !(opts.capabilities & CLIENT_DEPRECATE_EOF);
  for (const list of [params, p.columns]) {
    if (list.length === 0) continue;
    for (const c of list) out.push(encodeColumnDefinition(columnDefinition(c)));
    if (eof) out.push(encodeEof());
  }
  return framePayloads(out, opts.seq);
}

/** The response to COM_FIELD_LIST: a definition per column (with empty defaults), then EOF / OK-as-EOF. */
export function fieldListPackets(
  columns: readonly OutputColumn[],
  opts: { readonly capabilities: number; readonly seq: number; readonly schema?: string; readonly table?: string },
): Packets {
  const out = columns.map((c) => encodeColumnDefinition(columnDefinition(c, opts), ''));
  out.push(encodeEndOfRows(opts.capabilities));
  return framePayloads(out, opts.seq);
}
