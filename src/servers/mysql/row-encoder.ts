/**
 * A result's rows as MySQL packets, many rows into one Buffer (issue 17 item 6): a writer per column
 * chosen once from its type, cells written in place (no Buffer per cell or per row), numbers and
 * ASCII strings by a byte loop, timestamps from a per-column cache of each second's text or date
 * fields, so a large answer costs a few hundred nanoseconds a cell rather than microseconds.
 * The bytes are those of `encodeTextRow` / `encodeBinaryRow` framed by `writePacket` (the tests hold
 * them to it for every type); cells of types or shapes without a fast writer go through those
 * functions' own cell code.
 */
import type { Cell, OutputColumn } from '../../query/output.js';
import { SecondCache } from '../second-cache.js';
import { MysqlType } from './messages.js';
import { MAX_PACKET_PAYLOAD, PayloadWriter, packetCount, writePacket } from './packet.js';
import { civilTime, formatTimestamp, fractionText, timeUnitOf } from './time-format.js';
import { mysqlColumnType, resultSetEndPayload, resultSetHeadPayloads, textCell, writeBinaryCell, framePayloads, type ResultSetOptions } from './resultset.js';
import { ChunkBuffer, writeUtf8 } from '../chunk-buffer.js';

/** Writes one non-null cell at `out.pos`. */
type CellWriter = (out: RowBuffer, cell: Cell) => void;

/** A chunk of framed row packets being written. */
class RowBuffer extends ChunkBuffer {
  lenEncInt(n: number): void {
    this.ensure(9);
    const b = this.buf;
    if (n < 251) b[this.pos++] = n;
    else if (n < 0x10000) {
      b[this.pos] = 0xfc;
      b.writeUInt16LE(n, this.pos + 1);
      this.pos += 3;
    } else if (n < 0x1000000) {
      b[this.pos] = 0xfd;
      b.writeUIntLE(n, this.pos + 1, 3);
      this.pos += 4;
    } else {
      b[this.pos] = 0xfe;
      b.writeUInt32LE(n >>> 0, this.pos + 1);
      b.writeUInt32LE(Math.floor(n / 0x100000000), this.pos + 5);
      this.pos += 9;
    }
  }

  lenEncBytes(v: Uint8Array): void {
    this.lenEncInt(v.length);
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  /** A length-encoded string: ASCII by a byte loop, else UTF-8 by Buffer#write. */
  lenEncString(s: string): void {
    const n = s.length;
    if (n < 84) {
      // At most 3 bytes per UTF-16 unit: the length fits one byte, written once the bytes are.
      this.ensure(1 + 3 * n);
      const b = this.buf;
      const at = this.pos + 1;
      const len = writeUtf8(b, at, s);
      b[this.pos] = len;
      this.pos = at + len;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.lenEncInt(len);
    this.ensure(len);
    this.buf.write(s, this.pos, 'utf8');
    this.pos += len;
  }

  /** An ASCII text (numbers, formatted times) with its length. */
  lenEncAscii(s: string): void {
    const n = s.length;
    if (n >= 251) {
      this.lenEncInt(n);
      this.ensure(n);
      this.pos += this.buf.write(s, this.pos, 'latin1');
      return;
    }
    this.ensure(1 + n);
    const b = this.buf;
    let p = this.pos;
    b[p++] = n;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  bytes(v: Uint8Array): void {
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }
}

/** The text of a double as the text protocol writes it (`floatText` in resultset.ts). */
function doubleText(v: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (v !== v) return 'NaN';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return String(v);
}

const UNIT_PER_SECOND = { s: 1, ms: 1000, us: 1_000_000, ns: 1_000_000_000 } as const;
const NANOS_PER_TICK = { s: 0, ms: 1_000_000, us: 1000, ns: 1 } as const;

/**
 * Splits a timestamp cell into whole seconds and nanoseconds, or undefined when it is not a number
 * of ticks within 2^53 (then the generic path writes it).
 */
function splitTicks(cell: Cell, perSecond: number, nanosPerTick: number): [number, number] | undefined {
  let v: number;
  if (typeof cell === 'number') v = cell;
  else if (typeof cell === 'bigint' && cell >= -9007199254740991n && cell <= 9007199254740991n) v = Number(cell);
  else return undefined;
  if (!Number.isSafeInteger(v)) return undefined;
  // Integer arithmetic: a division rounds up to the next second near 2^53.
  let rem = v % perSecond;
  if (rem < 0) rem += perSecond;
  return [(v - rem) / perSecond, rem * nanosPerTick];
}

function textWriter(dataType: string, timeZone: string): CellWriter {
  const generic: CellWriter = (out, cell) => out.lenEncBytes(textCell(cell, dataType, timeZone)!);
  switch (dataType) {
    case 'String':
      return (out, cell) => (typeof cell === 'string' ? out.lenEncString(cell) : generic(out, cell));
    case 'Float64':
      return (out, cell) => (typeof cell === 'number' ? out.lenEncAscii(doubleText(cell)) : generic(out, cell));
    case 'Int8':
    case 'Int16':
    case 'Int32':
    case 'Int64':
    case 'UInt8':
    case 'UInt16':
    case 'UInt32':
    case 'UInt64':
      return (out, cell) =>
        typeof cell === 'number' ? out.lenEncAscii(doubleText(cell)) : typeof cell === 'bigint' ? out.lenEncAscii(cell.toString()) : generic(out, cell);
    case 'Boolean':
      return (out, cell) => out.lenEncAscii(cell === true || cell === 1 || cell === 1n || cell === 'true' || cell === '1' ? '1' : '0');
  }
  const unit = timeUnitOf(dataType);
  if (unit !== undefined && dataType.startsWith('Timestamp')) {
    const perSecond = UNIT_PER_SECOND[unit];
    const nanosPerTick = NANOS_PER_TICK[unit];
    // The text of a whole second is `formatTimestamp`'s: the fraction follows it, as there.
    const seconds = new SecondCache((second) => formatTimestamp(second, 's', timeZone));
    return (out, cell) => {
      const split = splitTicks(cell, perSecond, nanosPerTick);
      if (split === undefined) return generic(out, cell);
      const text = seconds.get(split[0]);
      out.lenEncAscii(split[1] === 0 ? text : text + fractionText(split[1]));
    };
  }
  return generic;
}

interface DateFields {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function binaryWriter(dataType: string, timeZone: string): CellWriter {
  const generic: CellWriter = (out, cell) => {
    const w = new PayloadWriter();
    writeBinaryCell(w, cell, dataType, timeZone);
    out.bytes(w.finish());
  };
  const m = mysqlColumnType(dataType);
  switch (m.type) {
    case MysqlType.TINY:
      if (dataType === 'Boolean') return (out, cell) => out.u8(cell === true || cell === 1 || cell === 1n || cell === 'true' || cell === '1' ? 1 : 0);
      // ToInt32 is exact modulo 2^32 for every finite integer: its low bits are BigInt.asUintN's.
      return (out, cell) => (typeof cell === 'number' && Number.isInteger(cell) ? out.u8(cell & 0xff) : generic(out, cell));
    case MysqlType.SHORT:
      return (out, cell) => {
        if (typeof cell !== 'number' || !Number.isInteger(cell)) return generic(out, cell);
        out.ensure(2);
        out.buf.writeUInt16LE(cell & 0xffff, out.pos);
        out.pos += 2;
      };
    case MysqlType.LONG:
      return (out, cell) => {
        if (typeof cell !== 'number' || !Number.isInteger(cell)) return generic(out, cell);
        out.ensure(4);
        out.buf.writeUInt32LE(cell >>> 0, out.pos);
        out.pos += 4;
      };
    case MysqlType.LONGLONG:
      return (out, cell) => {
        out.ensure(8);
        if (typeof cell === 'bigint') out.buf.writeBigUInt64LE(BigInt.asUintN(64, cell), out.pos);
        else if (typeof cell === 'number' && Number.isSafeInteger(cell)) {
          out.buf.writeUInt32LE(cell >>> 0, out.pos);
          out.buf.writeInt32LE(Math.floor(cell / 0x100000000) | 0, out.pos + 4);
        } else return generic(out, cell);
        out.pos += 8;
      };
    case MysqlType.DOUBLE:
      return (out, cell) => {
        if (typeof cell !== 'number') return generic(out, cell);
        out.ensure(8);
        out.buf.writeDoubleLE(cell, out.pos);
        out.pos += 8;
      };
    case MysqlType.FLOAT:
      return (out, cell) => {
        if (typeof cell !== 'number') return generic(out, cell);
        out.ensure(4);
        out.buf.writeFloatLE(cell, out.pos);
        out.pos += 4;
      };
    case MysqlType.TIMESTAMP: {
      const unit = timeUnitOf(dataType)!;
      const perSecond = UNIT_PER_SECOND[unit];
      const nanosPerTick = NANOS_PER_TICK[unit];
      const seconds = new SecondCache<DateFields>((second) => civilTime(second, 's', timeZone));
      return (out, cell) => {
        const split = splitTicks(cell, perSecond, nanosPerTick);
        if (split === undefined) return generic(out, cell);
        const d = seconds.get(split[0]);
        // Years outside 0…65535 make writeBinaryDateTime throw: let it.
        if (d.year < 0 || d.year > 0xffff) return generic(out, cell);
        const micros = Math.floor(split[1] / 1000);
        out.ensure(12);
        const b = out.buf;
        let p = out.pos;
        const len = micros !== 0 ? 11 : d.hour !== 0 || d.minute !== 0 || d.second !== 0 ? 7 : d.year !== 0 || d.month !== 0 || d.day !== 0 ? 4 : 0;
        b[p++] = len;
        if (len >= 4) {
          b.writeUInt16LE(d.year, p);
          b[p + 2] = d.month;
          b[p + 3] = d.day;
          p += 4;
        }
        if (len >= 7) {
          b[p++] = d.hour;
          b[p++] = d.minute;
          b[p++] = d.second;
        }
        if (len === 11) {
          b.writeUInt32LE(micros, p);
          p += 4;
        }
        out.pos = p;
      };
    }
    case MysqlType.DATE:
    case MysqlType.TIME:
    case MysqlType.NULL:
      return generic;
    default:
      // Strings, blobs, JSON, decimals: a length-encoded text, as in a text row.
      return textWriter(dataType, timeZone);
  }
}

/**
 * A result set cut short by an error after some of its rows were sent: the ERR packet answering it
 * takes sequence id `seq` (the next row's), not the statement's first.
 */
export class ResultSetCut extends Error {
  constructor(
    readonly error: unknown,
    readonly seq: number,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** Bytes of rows collected before they are handed on (`RowPacketEncoder.encode`'s chunks). */
export const ROW_CHUNK_BYTES = 256 * 1024;
/** A chunk's buffer: its rows and the last row's overshoot. */
const CHUNK_CAPACITY = ROW_CHUNK_BYTES + 4096;

/**
 * Encodes rows of one result as text or binary protocol row packets. Made once per result set;
 * `encode` may be called for consecutive ranges of its rows (sequence ids carry on).
 */
export class RowPacketEncoder {
  private readonly writers: CellWriter[];
  /** Columns always NULL in the binary protocol (MySQL type NULL). */
  private readonly alwaysNull: boolean[];
  private readonly out: RowBuffer;
  seq: number;

  /** `rows`: how many rows there are to encode, to size the first buffer (a point query's is small). */
  constructor(
    private readonly columns: readonly OutputColumn[],
    private readonly binary: boolean,
    timeZone: string,
    seq: number,
    rows = Infinity,
  ) {
    this.out = new RowBuffer(Math.min(CHUNK_CAPACITY, 256 + rows * (16 + 12 * columns.length)), CHUNK_CAPACITY);
    this.writers = columns.map((c) => (binary ? binaryWriter(c.data_type, timeZone) : textWriter(c.data_type, timeZone)));
    this.alwaysNull = columns.map((c) => binary && mysqlColumnType(c.data_type).type === MysqlType.NULL);
    this.seq = seq & 0xff;
  }

  /**
   * Packets of `rows[from]`… up to `to` or until about `ROW_CHUNK_BYTES` are written, whichever
   * comes first; returns them and the index of the next row.
   */
  encode(rows: ReadonlyArray<readonly Cell[]>, from: number, to: number): { bytes: Buffer; next: number } {
    const { out, writers, alwaysNull } = this;
    const width = this.columns.length;
    const bitmapBytes = (width + 9) >> 3;
    let r = from;
    for (; r < to && out.pos < ROW_CHUNK_BYTES; r++) {
      const row = rows[r]!;
      const start = out.pos;
      out.ensure(4 + 1 + bitmapBytes);
      out.pos += 4;
      if (this.binary) {
        const b = out.buf;
        b[out.pos++] = 0;
        const bitmap = out.pos;
        b.fill(0, bitmap, bitmap + bitmapBytes);
        out.pos += bitmapBytes;
        for (let c = 0; c < width; c++) {
          const cell = row[c] ?? null;
          if (cell === null || alwaysNull[c]) {
            out.buf[bitmap + ((c + 2) >> 3)]! |= 1 << ((c + 2) & 7);
            continue;
          }
          writers[c]!(out, cell);
        }
      } else {
        for (let c = 0; c < width; c++) {
          const cell = row[c] ?? null;
          if (cell === null) out.u8(0xfb);
          else writers[c]!(out, cell);
        }
      }
      const length = out.pos - start - 4;
      if (length < MAX_PACKET_PAYLOAD) {
        out.buf.writeUIntLE(length, start, 3);
        out.buf[start + 3] = this.seq;
        this.seq = (this.seq + 1) & 0xff;
      } else {
        // A row of 16 MiB or more: split into packets as writePacket does.
        const payload = Buffer.from(out.buf.subarray(start + 4, out.pos));
        out.pos = start;
        out.bytes(writePacket(payload, this.seq));
        this.seq = (this.seq + packetCount(length)) & 0xff;
      }
    }
    return { bytes: out.take(), next: r };
  }
}

/**
 * Writes a whole result set through `send` a chunk at a time (about `ROW_CHUNK_BYTES` of rows each,
 * the column definitions with the first, the end packet with the last), each awaited: a client that
 * reads slowly holds up the encoding, not the server's memory, and the event loop turns between
 * chunks, so a large answer does not hold up other connections for its whole encoding. `send`
 * resolving to false (the connection closed) stops it. Returns the sequence id after it.
 */
export async function writeResultSet(
  columns: readonly OutputColumn[],
  rows: ReadonlyArray<readonly Cell[]>,
  opts: ResultSetOptions,
  send: (bytes: Buffer) => Promise<void | false>,
): Promise<number> {
  const head = framePayloads(resultSetHeadPayloads(columns, opts), opts.seq);
  const encoder = new RowPacketEncoder(columns, opts.binary === true, opts.timeZone, head.nextSeq, rows.length);
  let r = 0;
  let parts: Buffer[] = [head.bytes];
  /** The sequence id after the last packet sent; undefined before anything is. */
  let sentSeq: number | undefined;
  for (;;) {
    if (r < rows.length) {
      let chunk: { bytes: Buffer; next: number };
      try {
        chunk = encoder.encode(rows, r, rows.length);
      } catch (err) {
        // Before anything is sent the error answers the statement as usual; after, it must come
        // where the next row would have, with that row's sequence id.
        throw sentSeq !== undefined ? new ResultSetCut(err, sentSeq) : err;
      }
      parts.push(chunk.bytes);
      r = chunk.next;
    }
    if (r >= rows.length) break;
    sentSeq = encoder.seq;
    // false: the connection is gone, the rest is not worth encoding.
    if ((await send(parts.length === 1 ? parts[0]! : Buffer.concat(parts))) === false) return encoder.seq;
    parts = [];
    // The socket may have taken the chunk at once: let other connections' work in between.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const end = framePayloads([resultSetEndPayload(opts)], encoder.seq);
  parts.push(end.bytes);
  await send(Buffer.concat(parts));
  return end.nextSeq;
}
