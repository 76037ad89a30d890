/**
 * A result's rows as PostgreSQL DataRow messages, many rows into one Buffer (issue 17 item 6): a
 * writer per column chosen once from its type and format, each cell written in place (no Buffer per
 * cell or row), doubles in text by V8's shortest form where it is PostgreSQL's, timestamps from
 * per-second caches of the zone offset and the date text. The bytes are those of `cellEncoder` and
 * `dataRow` (the tests hold them to it for every type); cells of other types or shapes, and the
 * cases those refuse, go through `cellEncoder` itself.
 */
import { zoneOffsetMinutes } from '../../common/time/timestamp.js';
import type { Cell, OutputColumn } from '../../query/output.js';
import { SecondCache } from '../second-cache.js';
import type { FormatCode } from './messages.js';
import { ChunkBuffer, writeUtf8 } from '../chunk-buffer.js';
import { cellEncoder, formatFloat, formatTimestamp, pgTypeOf, PG_EPOCH_MICROS, PG_OID, unitDigits, type EncodeOptions } from './types.js';

/** A chunk of DataRow messages being written. */
class MessageBuffer extends ChunkBuffer {
  /** A field: its length, then its bytes. */
  field(v: Uint8Array): void {
    this.ensure(4 + v.length);
    this.buf.writeInt32BE(v.length, this.pos);
    this.buf.set(v, this.pos + 4);
    this.pos += 4 + v.length;
  }

  /** A field of an ASCII text (numbers, formatted times). */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(4 + n);
    const b = this.buf;
    let p = this.pos;
    b[p++] = n >>> 24;
    b[p++] = (n >>> 16) & 0xff;
    b[p++] = (n >>> 8) & 0xff;
    b[p++] = n & 0xff;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** A field of a string as UTF-8: a byte loop while it is ASCII, then Buffer#write. */
  utf8(s: string): void {
    const n = s.length;
    if (n > 256) {
      const len = Buffer.byteLength(s, 'utf8');
      this.ensure(4 + len);
      this.buf.writeInt32BE(len, this.pos);
      this.buf.write(s, this.pos + 4, 'utf8');
      this.pos += 4 + len;
      return;
    }
    // At most 3 bytes per UTF-16 unit.
    this.ensure(4 + 3 * n);
    const b = this.buf;
    const at = this.pos + 4;
    const len = writeUtf8(b, at, s);
    b.writeInt32BE(len, this.pos);
    this.pos = at + len;
  }

  /** A field of a signed 64-bit integer within 2^53. */
  int64(v: number): void {
    this.ensure(12);
    const b = this.buf;
    b.writeInt32BE(8, this.pos);
    const hi = Math.floor(v / 0x100000000);
    b.writeInt32BE(hi, this.pos + 4);
    b.writeUInt32BE(v - hi * 0x100000000, this.pos + 8);
    this.pos += 12;
  }
}

/** Writes one non-null cell as a field. */
type FieldWriter = (out: MessageBuffer, cell: Cell) => void;

/** float8out's text of a double: V8's shortest digits, which are PostgreSQL's, in plain notation where both use it. */
function float8Text(v: number): string {
  const a = v < 0 ? -v : v;
  // formatFloat writes exponents below -4 and from 15 on; String() writes plain from 1e-7 to 1e21.
  return a >= 1e-4 && a < 1e15 ? String(v) : formatFloat(v, false);
}

/** Microseconds of a timestamp cell within 2^53, or undefined (then `cellEncoder` writes it). */
function microsOf(cell: Cell, digits: number): number | undefined {
  if (digits === 9) {
    if (typeof cell !== 'bigint' && !(typeof cell === 'number' && Number.isSafeInteger(cell))) return undefined;
    const ns = BigInt(cell);
    // Floor division, as cellEncoder truncates toward minus infinity.
    const q = ns / 1000n;
    const v = Number(ns % 1000n !== 0n && ns < 0n ? q - 1n : q);
    return Number.isSafeInteger(v) ? v : undefined;
  }
  let v: number;
  if (typeof cell === 'number') {
    if (!Number.isSafeInteger(cell)) return undefined;
    v = cell;
  } else if (typeof cell === 'bigint' && cell >= -9007199254740991n && cell <= 9007199254740991n) v = Number(cell);
  else return undefined;
  v *= digits === 0 ? 1_000_000 : digits === 3 ? 1000 : 1;
  return Number.isSafeInteger(v) ? v : undefined;
}

/** The session's wall-clock microseconds of UTC microseconds, the offset taken per whole second as `utcOffsetSeconds` takes it. */
function localMicrosOf(timeZone: string): (micros: number) => number {
  // utcOffsetSeconds is asked at the second micros / 1e6 truncated toward zero.
  const offsets = new SecondCache((second) => zoneOffsetMinutes(timeZone, second) * 60 * 1_000_000);
  return (micros) => {
    const rem = micros % 1_000_000;
    return micros + offsets.get((micros - rem) / 1_000_000);
  };
}

function writerOf(dataType: string, format: FormatCode, timeZone: string, opts: EncodeOptions): FieldWriter {
  const encode = cellEncoder(dataType, format, opts);
  const generic: FieldWriter = (out, cell) => out.field(encode(cell)!);
  const t = pgTypeOf(dataType);
  const truthy = (c: Cell): boolean => (typeof c === 'string' ? c === 't' || c === 'true' || c === '1' : Boolean(c));
  if (format === 0) {
    switch (t.oid) {
      case PG_OID.BOOL:
        return (out, cell) => out.ascii(truthy(cell) ? 't' : 'f');
      case PG_OID.INT2:
      case PG_OID.INT4:
      case PG_OID.INT8:
      case PG_OID.NUMERIC:
        return (out, cell) => (typeof cell === 'number' || typeof cell === 'bigint' ? out.ascii(String(cell)) : generic(out, cell));
      case PG_OID.FLOAT8:
        return (out, cell) => (typeof cell === 'number' ? out.ascii(float8Text(cell)) : generic(out, cell));
      case PG_OID.VARCHAR:
        return (out, cell) => (typeof cell === 'string' ? out.utf8(cell) : generic(out, cell));
      case PG_OID.TIMESTAMP: {
        const digits = unitDigits(dataType);
        const local = localMicrosOf(timeZone);
        // `YYYY-MM-DD HH:MM:SS` of each local second; a date BC puts its era after the fraction, so it goes the general way.
        const texts = new SecondCache((second) => formatTimestamp(BigInt(second) * 1_000_000n));
        return (out, cell) => {
          const utc = microsOf(cell, digits);
          if (utc === undefined) return generic(out, cell);
          const micros = local(utc);
          if (!Number.isSafeInteger(micros)) return generic(out, cell);
          // Integer arithmetic: a division by 1e6 rounds up to the next second near 2^53.
          const rem = micros % 1_000_000;
          const fraction = rem < 0 ? rem + 1_000_000 : rem;
          const text = texts.get((micros - fraction) / 1_000_000);
          if (text.endsWith(' BC')) return generic(out, cell);
          out.ascii(fraction === 0 ? text : `${text}.${String(fraction).padStart(6, '0').replace(/0+$/, '')}`);
        };
      }
      default:
        return generic;
    }
  }
  switch (t.oid) {
    case PG_OID.BOOL:
      return (out, cell) => {
        out.ensure(5);
        out.buf.writeInt32BE(1, out.pos);
        out.buf[out.pos + 4] = truthy(cell) ? 1 : 0;
        out.pos += 5;
      };
    case PG_OID.INT4:
      return (out, cell) => {
        if (typeof cell !== 'number' || !Number.isInteger(cell) || cell < -2147483648 || cell > 2147483647) return generic(out, cell);
        out.ensure(8);
        out.buf.writeInt32BE(4, out.pos);
        out.buf.writeInt32BE(cell, out.pos + 4);
        out.pos += 8;
      };
    case PG_OID.INT8:
      return (out, cell) => {
        if (typeof cell === 'number' && Number.isSafeInteger(cell)) return out.int64(cell);
        if (typeof cell === 'bigint' && cell >= -(1n << 63n) && cell < 1n << 63n) {
          out.ensure(12);
          out.buf.writeInt32BE(8, out.pos);
          out.buf.writeBigInt64BE(cell, out.pos + 4);
          out.pos += 12;
          return;
        }
        generic(out, cell);
      };
    case PG_OID.FLOAT8:
      return (out, cell) => {
        if (typeof cell !== 'number') return generic(out, cell);
        out.ensure(12);
        out.buf.writeInt32BE(8, out.pos);
        out.buf.writeDoubleBE(cell, out.pos + 4);
        out.pos += 12;
      };
    case PG_OID.VARCHAR:
      return (out, cell) => (typeof cell === 'string' ? out.utf8(cell) : generic(out, cell));
    case PG_OID.TIMESTAMP: {
      const digits = unitDigits(dataType);
      const local = localMicrosOf(timeZone);
      const epoch = Number(PG_EPOCH_MICROS);
      return (out, cell) => {
        const utc = microsOf(cell, digits);
        if (utc === undefined) return generic(out, cell);
        const micros = local(utc);
        if (!Number.isSafeInteger(micros)) return generic(out, cell);
        const v = micros - epoch;
        out.int64(v);
      };
    }
    default:
      return generic;
  }
}

/** Bytes of rows collected before they are handed on. */
export const DATA_ROW_CHUNK_BYTES = 256 * 1024;
/** A chunk's buffer: its rows and the last row's overshoot. */
const CHUNK_CAPACITY = DATA_ROW_CHUNK_BYTES + 4096;

/** The options `cellEncoder` takes for a session in `timeZone`: wall-clock time there, the offset per second. */
export function zoneEncodeOptions(timeZone: string): EncodeOptions {
  return { utcOffsetSeconds: (micros: bigint) => zoneOffsetMinutes(timeZone, Number(micros / 1_000_000n)) * 60 };
}

/**
 * Encodes rows of one result as DataRow messages, each column in its format (0 text, 1 binary), a
 * session in `timeZone`. `encode` may be called for consecutive ranges of the rows.
 */
export class DataRowEncoder {
  private readonly writers: FieldWriter[];
  private readonly out: MessageBuffer;

  /** `rows`: how many rows there are to encode, to size the first buffer (a point query's is small). */
  constructor(columns: readonly OutputColumn[], formats: readonly FormatCode[], timeZone: string, rows = Infinity) {
    this.out = new MessageBuffer(Math.min(CHUNK_CAPACITY, 256 + rows * (16 + 12 * columns.length)), CHUNK_CAPACITY);
    const opts = zoneEncodeOptions(timeZone);
    this.writers = columns.map((c, k) => writerOf(c.data_type, formats[k] ?? 0, timeZone, opts));
  }

  /**
   * DataRows of `rows[from]`… up to `to` or until about `DATA_ROW_CHUNK_BYTES` are written, whichever
   * comes first; returns them and the index of the next row.
   */
  encode(rows: ReadonlyArray<readonly Cell[]>, from: number, to: number): { bytes: Buffer; next: number } {
    const { out, writers } = this;
    const width = writers.length;
    let r = from;
    for (; r < to && out.pos < DATA_ROW_CHUNK_BYTES; r++) {
      const row = rows[r]!;
      const start = out.pos;
      out.ensure(7);
      out.buf[start] = 0x44; // 'D'
      out.buf.writeInt16BE(width, start + 5);
      out.pos += 7;
      for (let c = 0; c < width; c++) {
        const cell = row[c] ?? null;
        if (cell === null) {
          out.ensure(4);
          out.buf.writeInt32BE(-1, out.pos);
          out.pos += 4;
        } else writers[c]!(out, cell);
      }
      out.buf.writeInt32BE(out.pos - start - 1, start + 1);
    }
    return { bytes: out.take(), next: r };
  }
}
