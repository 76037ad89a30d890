/**
 * MySQL packet framing (dev.mysql.com "Client/Server Protocol › MySQL Packets") and the basic data
 * types of payloads: fixed-length and length-encoded integers, length-encoded and NUL-terminated
 * strings. Pure: `PacketReader.push(chunk, onPacket)` keeps the remainder, no socket inside.
 *
 * ```
 * packet := payload_length:int<3> sequence_id:int<1> payload:byte<payload_length>
 * ```
 * A payload of 0xffffff bytes or more is split into packets of 0xffffff bytes followed by a shorter
 * one (possibly empty); the sequence id increments (mod 256) on every packet.
 */

/** Largest payload of one packet; a packet this long continues in the next. */
export const MAX_PACKET_PAYLOAD = 0xffffff;
/** Default limit on a joined payload: `max_allowed_packet` as the reference reports it (api.md §5). */
export const DEFAULT_MAX_PAYLOAD_SIZE = 134_217_728;

/** A malformed or oversized frame or message: the connection that sent it is closed. */
export class MysqlProtocolError extends Error {
  override readonly name: string = 'MysqlProtocolError';
}

/** A payload above the reader's maximum size (answered ER_NET_PACKET_TOO_LARGE). */
export class PacketTooLargeError extends MysqlProtocolError {
  override readonly name: string = 'PacketTooLargeError';

  constructor(
    message: string,
    /** The sequence id of the packet whose header announced too much (the answer takes the next). */
    readonly seq: number,
    /** The limit in force. */
    readonly limit: number,
  ) {
    super(message);
  }
}

export interface PacketReaderOptions {
  /** Largest joined payload accepted, in bytes; beyond it `push` throws (default 128 MiB). */
  readonly maxPayloadSize?: number;
}

/**
 * Splits a byte stream into payloads. `seq` given to `onPacket` is the sequence id of the last
 * packet of the payload, so the reply starts at `seq + 1`. Received pieces are queued, not
 * re-concatenated on every push, so a large payload arriving in many pieces costs linear time.
 */
export class PacketReader {
  private maxPayloadSize: number;
  /** Received bytes not yet consumed; the first one starts at `headOffset`. */
  private chunks: Buffer[] = [];
  private headOffset = 0;
  private queued = 0;
  /** Pieces of a payload whose packets were 0xffffff bytes long, waiting for the last one. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  private lastSeq = -1;

  constructor(opts: PacketReaderOptions = {}) {
    this.maxPayloadSize = opts.maxPayloadSize ?? DEFAULT_MAX_PAYLOAD_SIZE;
  }

  /**
   * Changes the largest joined payload accepted from the next packet header on: a connection reads
   * with a small limit until its client has logged in, then with `max_allowed_packet`.
   */
  setMaxPayloadSize(bytes: number): void {
    this.maxPayloadSize = bytes;
  }

  /** Bytes received but not yet part of a delivered payload. */
  get buffered(): number {
    return this.queued + this.partsLength;
  }

  /** Feeds bytes; calls `onPacket` for each complete payload. Throws MysqlProtocolError. */
  push(chunk: Uint8Array, onPacket: (payload: Buffer, seq: number) => void): void {
    if (chunk.length > 0) {
      this.chunks.push(Buffer.from(chunk));
      this.queued += chunk.length;
    }
    while (this.queued >= 4) {
      const header = this.peek(4);
      const length = header.readUIntLE(0, 3);
      const seq = header[3]!;
      if (this.partsLength + length > this.maxPayloadSize) {
        throw new PacketTooLargeError(
          `packet too large: payload of at least ${this.partsLength + length} bytes exceeds the limit of ${this.maxPayloadSize}`,
          seq,
          this.maxPayloadSize,
        );
      }
      if (this.parts.length > 0 && seq !== ((this.lastSeq + 1) & 0xff)) {
        throw new MysqlProtocolError(`packet out of order: sequence id ${seq}, expected ${(this.lastSeq + 1) & 0xff}`);
      }
      if (this.queued - 4 < length) break;
      this.take(4);
      const body = this.take(length);
      this.lastSeq = seq;
      if (length === MAX_PACKET_PAYLOAD) {
        this.parts.push(body);
        this.partsLength += length;
        continue;
      }
      let payload = body;
      if (this.parts.length > 0) {
        payload = Buffer.concat([...this.parts, body]);
        this.parts = [];
        this.partsLength = 0;
      }
      onPacket(payload, seq);
    }
  }

  /**
   * Stops framing: returns the bytes received after the last delivered payload and forgets them.
   * Called from `onPacket` for an SSLRequest, whose successor on the wire is a TLS handshake (then
   * no payload is in progress).
   */
  takeRest(): Buffer {
    const rest = Buffer.from(Buffer.concat(this.chunks).subarray(this.headOffset));
    this.chunks = [];
    this.headOffset = 0;
    this.queued = 0;
    return rest;
  }

  /** The next `n` queued bytes (n ≤ queued), without consuming them. */
  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length - this.headOffset >= n) return first.subarray(this.headOffset, this.headOffset + n);
    const out = Buffer.alloc(n);
    let filled = 0;
    for (let i = 0; filled < n; i++) {
      const c = this.chunks[i]!;
      const from = i === 0 ? this.headOffset : 0;
      filled += c.copy(out, filled, from, Math.min(c.length, from + n - filled));
    }
    return out;
  }

  /** Consumes the next `n` queued bytes (n ≤ queued), copying only when they span pieces. */
  private take(n: number): Buffer {
    this.queued -= n;
    const first = this.chunks[0];
    if (n === 0 || first === undefined) return Buffer.alloc(0);
    if (first.length - this.headOffset >= n) {
      const out = first.subarray(this.headOffset, this.headOffset + n);
      this.headOffset += n;
      if (this.headOffset === first.length) {
        this.chunks.shift();
        this.headOffset = 0;
      }
      return out;
    }
    const out = Buffer.alloc(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const copied = c.copy(out, filled, this.headOffset, Math.min(c.length, this.headOffset + n - filled));
      filled += copied;
      this.headOffset += copied;
      if (this.headOffset === c.length) {
        this.chunks.shift();
        this.headOffset = 0;
      }
    }
    return out;
  }
}

/** Frames `payload` as packets starting at sequence id `seq`; see `packetCount` for the next id. */
export function writePacket(payload: Uint8Array, seq: number): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  let s = seq & 0xff;
  for (;;) {
    const length = Math.min(MAX_PACKET_PAYLOAD, payload.length - offset);
    const header = Buffer.alloc(4);
    header.writeUIntLE(length, 0, 3);
    header[3] = s;
    out.push(header, Buffer.from(payload.buffer, payload.byteOffset + offset, length));
    offset += length;
    s = (s + 1) & 0xff;
    if (length < MAX_PACKET_PAYLOAD) break;
  }
  return Buffer.concat(out);
}

/** How many packets `writePacket` makes of a payload of `length` bytes. */
export function packetCount(length: number): number {
  return Math.floor(length / MAX_PACKET_PAYLOAD) + 1;
}

// ---------------------------------------------------------------------------------------------
// Payload reading

/** A cursor over one payload; every read past its end throws MysqlProtocolError. */
export class PayloadReader {
  offset: number;

  constructor(
    readonly buf: Buffer,
    offset = 0,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.buf.length - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.buf.length - this.offset < n) {
      throw new MysqlProtocolError(`malformed packet: ${what} needs ${n} bytes at offset ${this.offset}, ${this.remaining} left`);
    }
  }

  u8(): number {
    this.need(1, 'int<1>');
    return this.buf[this.offset++]!;
  }

  u16(): number {
    this.need(2, 'int<2>');
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }

  u24(): number {
    this.need(3, 'int<3>');
    const v = this.buf.readUIntLE(this.offset, 3);
    this.offset += 3;
    return v;
  }

  u32(): number {
    this.need(4, 'int<4>');
    const v = this.buf.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }

  u64(): bigint {
    this.need(8, 'int<8>');
    const v = this.buf.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }

  /** A length-encoded integer: a number when it fits 2^53, else a bigint; null for 0xfb (NULL). */
  lenEncInt(): number | bigint | null {
    const first = this.u8();
    if (first < 0xfb) return first;
    if (first === 0xfb) return null;
    if (first === 0xfc) return this.u16();
    if (first === 0xfd) return this.u24();
    if (first === 0xfe) {
      const v = this.u64();
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    throw new MysqlProtocolError(`malformed packet: 0xff is not a length-encoded integer (offset ${this.offset - 1})`);
  }

  /** A length-encoded integer that must be a length (not NULL, not beyond the payload). */
  length(): number {
    const v = this.lenEncInt();
    if (v === null || typeof v === 'bigint') throw new MysqlProtocolError(`malformed packet: invalid length at offset ${this.offset}`);
    return v;
  }

  bytes(n: number): Buffer {
    this.need(n, `string<${n}>`);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  lenEncBytes(): Buffer {
    return this.bytes(this.length());
  }

  lenEncString(): string {
    return this.lenEncBytes().toString('utf8');
  }

  /** Bytes up to a NUL, which is consumed; throws when there is none. */
  nulBytes(): Buffer {
    const end = this.buf.indexOf(0, this.offset);
    if (end < 0) throw new MysqlProtocolError(`malformed packet: unterminated string at offset ${this.offset}`);
    const v = this.buf.subarray(this.offset, end);
    this.offset = end + 1;
    return v;
  }

  nulString(): string {
    return this.nulBytes().toString('utf8');
  }

  /** The rest of the payload. */
  rest(): Buffer {
    const v = this.buf.subarray(this.offset);
    this.offset = this.buf.length;
    return v;
  }
}

// ---------------------------------------------------------------------------------------------
// Payload writing

/** The bytes of a length-encoded integer (0 ≤ value < 2^64). */
export function encodeLenEncInt(value: number | bigint): Buffer {
  if (typeof value === 'number' && (!Number.isInteger(value) || value < 0)) {
    throw new RangeError(`length-encoded integer out of range: ${value}`);
  }
  const v = BigInt(value);
  if (v < 0n || v >= 1n << 64n) throw new RangeError(`length-encoded integer out of range: ${value}`);
  if (v < 0xfbn) return Buffer.from([Number(v)]);
  if (v < 0x10000n) {
    const b = Buffer.alloc(3);
    b[0] = 0xfc;
    b.writeUInt16LE(Number(v), 1);
    return b;
  }
  if (v < 0x1000000n) {
    const b = Buffer.alloc(4);
    b[0] = 0xfd;
    b.writeUIntLE(Number(v), 1, 3);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xfe;
  b.writeBigUInt64LE(v, 1);
  return b;
}

/** A payload under construction. */
export class PayloadWriter {
  private readonly chunks: Buffer[] = [];

  u8(v: number): this {
    this.chunks.push(Buffer.from([v & 0xff]));
    return this;
  }

  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    this.chunks.push(b);
    return this;
  }

  u24(v: number): this {
    const b = Buffer.alloc(3);
    b.writeUIntLE(v, 0, 3);
    this.chunks.push(b);
    return this;
  }

  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v >>> 0);
    this.chunks.push(b);
    return this;
  }

  u64(v: bigint | number): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)));
    this.chunks.push(b);
    return this;
  }

  lenEncInt(v: number | bigint): this {
    this.chunks.push(encodeLenEncInt(v));
    return this;
  }

  /** 0xfb: NULL in a text row. */
  nullCell(): this {
    return this.u8(0xfb);
  }

  bytes(b: Uint8Array): this {
    this.chunks.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    return this;
  }

  zeros(n: number): this {
    this.chunks.push(Buffer.alloc(n));
    return this;
  }

  lenEncBytes(b: Uint8Array): this {
    return this.lenEncInt(b.length).bytes(b);
  }

  lenEncString(s: string): this {
    return this.lenEncBytes(Buffer.from(s, 'utf8'));
  }

  nulString(s: string | Uint8Array): this {
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    if (b.includes(0)) throw new RangeError('NUL-terminated string contains a NUL byte');
    return this.bytes(b).u8(0);
  }

  /** Text without a terminator or length (a payload's last field). */
  eofString(s: string): this {
    return this.bytes(Buffer.from(s, 'utf8'));
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
