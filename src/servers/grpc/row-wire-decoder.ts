/**
 * A direct reader of `GreptimeRequest` messages carrying `row_inserts` or `row_deletes`: from the
 * wire bytes into the ingest tables `tablesOfRows` (row-decoder.ts) builds, without proto-loader's
 * object per value (protobufjs decode, then `toObject`, int64 as strings).
 *
 * It gives exactly what the general path (the method's own deserializer, then `tablesOfRows`)
 * gives, or leaves the message to that path: anything it does not read itself — another request
 * kind, a wire error, a refusal (wrong value kind, out-of-range value, unknown semantic type,
 * duplicate or conflicting columns, a NULL time index), groups, a wire type other than the field's,
 * oneof or message fields given twice, schema after rows, the message-typed Value members and
 * column extensions — answers `undefined`, and the general path then decodes the message and
 * raises the error it always raised, with the same code and message, at the same point.
 *
 * The header and unknown top-level fields are decoded by the general deserializer (from the message
 * without its `row_inserts`/`row_deletes` field), so `header` is the object it always was.
 * Field numbers and types: proto/greptime/v1/row.proto, database.proto.
 */
import type * as grpc from '@grpc/grpc-js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import { TableBuilder, type Cell, type ColumnBuilder } from './row-decoder.js';

/** Where the decoded tables ride on the request object (`request` names the kind). */
export const DECODED_TABLES = Symbol('decoded row tables');

/** Thrown inside the reader: leave this message to the general path. */
class Fallback {}
const FALLBACK = new Fallback();

/** `greptime.v1.Value` member field numbers by name. */
const VALUE_FIELDS: Readonly<Record<string, number>> = {
  i8_value: 1, i16_value: 2, i32_value: 3, i64_value: 4, u8_value: 5, u16_value: 6, u32_value: 7, u64_value: 8,
  f32_value: 9, f64_value: 10, bool_value: 11, binary_value: 12, string_value: 13, date_value: 14, datetime_value: 15,
  timestamp_second_value: 16, timestamp_millisecond_value: 17, timestamp_microsecond_value: 18, timestamp_nanosecond_value: 19,
};

/** The wire type of Value members 1-25 (26 and 31 are messages: left to the general path). */
function valueWireType(field: number): number {
  if (field === 9) return 5;
  if (field === 10) return 1;
  if (field === 12 || field === 13) return 2;
  return 0;
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

/** Wire reading over `buf`, with protobufjs's reading of 32-bit varints (see readVarint32). */
class WireReader {
  pos = 0;
  /** The last 64-bit varint, in halves. */
  lo = 0;
  hi = 0;
  constructor(readonly buf: Buffer) {}

  /**
   * A varint's low 32 bits (unsigned). protobufjs reads at most 5 bytes, then skips 5 more
   * unread; only lengths it reads as we do (1-5 bytes, or exactly 10) are taken here.
   */
  varint32(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= end) throw FALLBACK;
      const b = buf[pos++]!;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    for (let i = 0; i < 5; i++) {
      if (pos >= end) throw FALLBACK;
      if (buf[pos++]! < 0x80) {
        if (i !== 4) throw FALLBACK;
        this.pos = pos;
        return v >>> 0;
      }
    }
    throw FALLBACK;
  }

  /** A varint of at most 10 bytes into `lo`/`hi` (its low 64 bits). */
  varint64(end: number): void {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) throw FALLBACK;
      const b = buf[pos++]!;
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (i * 7);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (i * 7 - 32);
      if (b < 0x80) {
        this.pos = pos;
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    throw FALLBACK;
  }

  /** The end of a length-delimited field whose length is next. */
  lengthEnd(end: number): number {
    const len = this.varint32(end);
    const to = this.pos + len;
    if (to > end) throw FALLBACK;
    return to;
  }

  /** Skips an unknown field's value; groups (3, 4) and wire types 6, 7 are left to the general path. */
  skip(wireType: number, end: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64(end);
        return;
      case WIRE_FIXED64:
        this.advance(8, end);
        return;
      case WIRE_LEN:
        this.pos = this.lengthEnd(end);
        return;
      case WIRE_FIXED32:
        this.advance(4, end);
        return;
      default:
        throw FALLBACK;
    }
  }

  private advance(n: number, end: number): void {
    if (this.pos + n > end) throw FALLBACK;
    this.pos += n;
  }
}

function int64Of(lo: number, hi: number): bigint {
  const h = hi | 0;
  if (h >= -0x200000 && h < 0x200000) return BigInt(h * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

function uint64Of(lo: number, hi: number): bigint {
  if (hi < 0x200000) return BigInt(hi * 4294967296 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** A column of one part: its builder and the Value member its cells must be. */
interface PartColumn {
  readonly col: ColumnBuilder;
  readonly member: number;
}

/** One `Value` of column `c` as a cell. */
function readValue(r: WireReader, end: number, c: PartColumn): Cell {
  let cell: Cell = null;
  let seen = false;
  while (r.pos < end) {
    const tag = r.varint32(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 0 || (field > 25 && field !== 31)) {
      r.skip(wt, end);
      continue;
    }
    // A second member, a message member, another member than the column's or a wire type not the field's.
    if (seen || field !== c.member || wt !== valueWireType(field)) throw FALLBACK;
    seen = true;
    const spec = c.col.spec;
    switch (spec.kind) {
      case 'int': {
        const n = r.varint32(end) | 0;
        if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) throw FALLBACK;
        cell = n;
        break;
      }
      case 'uint': {
        const n = r.varint32(end);
        if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) throw FALLBACK;
        cell = n;
        break;
      }
      case 'bigint':
        r.varint64(end);
        cell = int64Of(r.lo, r.hi);
        break;
      case 'ubigint':
        r.varint64(end);
        cell = uint64Of(r.lo, r.hi);
        break;
      case 'float':
        if (field === 9) {
          if (r.pos + 4 > end) throw FALLBACK;
          cell = r.buf.readFloatLE(r.pos);
          r.pos += 4;
        } else {
          if (r.pos + 8 > end) throw FALLBACK;
          cell = r.buf.readDoubleLE(r.pos);
          r.pos += 8;
        }
        break;
      case 'bool':
        cell = r.varint32(end) !== 0 ? 1 : 0;
        break;
      case 'binary': {
        const to = r.lengthEnd(end);
        cell = r.buf.subarray(r.pos, to);
        r.pos = to;
        break;
      }
      case 'string': {
        const to = r.lengthEnd(end);
        cell = r.buf.toString('utf8', r.pos, to);
        r.pos = to;
        break;
      }
    }
  }
  return cell;
}

/** One `Row` of a part with columns `cols`, appended to `t`. */
function readRow(r: WireReader, end: number, t: TableBuilder, cols: readonly PartColumn[]): void {
  let i = 0;
  while (r.pos < end) {
    const tag = r.varint32(end);
    if (tag >>> 3 !== 1) {
      r.skip(tag & 7, end);
      continue;
    }
    if ((tag & 7) !== WIRE_LEN || i >= cols.length) throw FALLBACK;
    const valueEnd = r.lengthEnd(end);
    const c = cols[i++]!;
    c.col.cells.push(readValue(r, valueEnd, c));
    r.pos = valueEnd;
  }
  if (i !== cols.length) throw FALLBACK;
  t.rowCount++;
  t.pad();
}

/** One `ColumnSchema`, declared on `t`. */
function readSchema(r: WireReader, end: number, t: TableBuilder): PartColumn {
  let name = '';
  let datatype = 0;
  let semantic = 0;
  while (r.pos < end) {
    const tag = r.varint32(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1) {
      if (wt !== WIRE_LEN) throw FALLBACK;
      const to = r.lengthEnd(end);
      name = r.buf.toString('utf8', r.pos, to);
      r.pos = to;
    } else if (field === 2 || field === 3) {
      if (wt !== WIRE_VARINT) throw FALLBACK;
      const v = r.varint32(end) | 0;
      if (field === 2) datatype = v;
      else semantic = v;
    } else if (field === 4 || field === 5) {
      throw FALLBACK; // datatype_extension, options: messages the general path reads
    } else r.skip(wt, end);
  }
  if (name === '') throw FALLBACK;
  let col: ColumnBuilder;
  try {
    col = t.column(name, semantic, datatype);
  } catch {
    throw FALLBACK;
  }
  const member = VALUE_FIELDS[col.spec.field];
  if (member === undefined) throw FALLBACK;
  return { col, member };
}

/** One `Rows` of table `t`. */
function readRows(r: WireReader, end: number, t: TableBuilder): void {
  const cols: PartColumn[] = [];
  const names = new Set<string>();
  let rowsSeen = false;
  while (r.pos < end) {
    const tag = r.varint32(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field !== 1 && field !== 2) {
      r.skip(wt, end);
      continue;
    }
    if (wt !== WIRE_LEN) throw FALLBACK;
    const to = r.lengthEnd(end);
    if (field === 1) {
      if (rowsSeen) throw FALLBACK;
      const c = readSchema(r, to, t);
      if (names.has(c.col.name)) throw FALLBACK;
      names.add(c.col.name);
      cols.push(c);
    } else {
      rowsSeen = true;
      readRow(r, to, t, cols);
    }
    r.pos = to;
  }
}

/** `RowInsertRequests` / `RowDeleteRequests` (the same shape: `repeated {table_name = 1; rows = 2}` as field 1). */
function readRowRequests(r: WireReader, end: number): IngestTable[] {
  const tables = new Map<string, TableBuilder>();
  while (r.pos < end) {
    const tag = r.varint32(end);
    if (tag >>> 3 !== 1) {
      r.skip(tag & 7, end);
      continue;
    }
    if ((tag & 7) !== WIRE_LEN) throw FALLBACK;
    const reqEnd = r.lengthEnd(end);
    let name = '';
    let rowsAt = -1;
    let rowsEnd = -1;
    while (r.pos < reqEnd) {
      const t2 = r.varint32(reqEnd);
      const field = t2 >>> 3;
      const wt = t2 & 7;
      if (field === 1 || field === 2) {
        if (wt !== WIRE_LEN) throw FALLBACK;
        const to = r.lengthEnd(reqEnd);
        if (field === 1) name = r.buf.toString('utf8', r.pos, to);
        else {
          if (rowsAt >= 0) throw FALLBACK;
          rowsAt = r.pos;
          rowsEnd = to;
        }
        r.pos = to;
      } else r.skip(wt, reqEnd);
    }
    if (name === '') throw FALLBACK;
    const t = tables.get(name) ?? new TableBuilder(name);
    tables.set(name, t);
    if (rowsAt >= 0) {
      r.pos = rowsAt;
      readRows(r, rowsEnd, t);
    }
    r.pos = reqEnd;
  }
  try {
    return [...tables.values()].map((t) => t.build());
  } catch {
    throw FALLBACK;
  }
}

/**
 * `bytes` as the general deserializer `general` would give it, with the tables of its
 * `row_inserts`/`row_deletes` under DECODED_TABLES; `undefined` when the message is to be left to
 * the general path.
 */
export function decodeRowRequest(bytes: Buffer, general: (bytes: Buffer) => unknown): object | undefined {
  const r = new WireReader(bytes);
  const end = bytes.length;
  try {
    let kind = 0;
    let at = -1;
    let to = -1;
    const rest: Buffer[] = [];
    while (r.pos < end) {
      const start = r.pos;
      const tag = r.varint32(end);
      const field = tag >>> 3;
      if (field === 1 && (tag & 7) !== WIRE_LEN) return undefined;
      if (field >= 2 && field <= 7) {
        // The request oneof: only one row_inserts or row_deletes, given once, is read here.
        if (kind !== 0 || field < 6 || (tag & 7) !== WIRE_LEN) return undefined;
        kind = field;
        to = r.lengthEnd(end);
        at = r.pos;
        r.pos = to;
        continue;
      }
      r.skip(tag & 7, end);
      rest.push(bytes.subarray(start, r.pos));
    }
    if (kind === 0) return undefined;
    const tables = readRowRequests(Object.assign(r, { pos: at }), to);
    let message: unknown;
    try {
      message = general(rest.length === 1 ? rest[0]! : Buffer.concat(rest));
    } catch {
      return undefined; // the general path reports it, with offsets in the whole message
    }
    if (typeof message !== 'object' || message === null) return undefined;
    return Object.assign(message, { request: kind === 6 ? 'row_inserts' : 'row_deletes', [DECODED_TABLES]: tables });
  } catch {
    // Fallback, or anything unforeseen: the general path decodes the message and answers as it always did.
    return undefined;
  }
}

/** The tables decodeRowRequest read for `message`, if it did. */
export function decodedTables(message: object): IngestTable[] | undefined {
  return (message as { [DECODED_TABLES]?: IngestTable[] })[DECODED_TABLES];
}

/** `GreptimeDatabase`'s definition with Handle and HandleRequests reading row requests directly (the rest as before). */
export function withDirectRowDecoding(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(def)) {
    if (name !== 'Handle' && name !== 'HandleRequests') {
      out[name] = m;
      continue;
    }
    const general = m.requestDeserialize;
    out[name] = { ...m, requestDeserialize: (bytes: Buffer) => decodeRowRequest(bytes, general) ?? general(bytes) };
  }
  return out as grpc.ServiceDefinition;
}
