/**
 * The PostgreSQL v3 frontend/backend protocol as bytes (PostgreSQL docs "Frontend/Backend Protocol",
 * §55.7 "Message Formats"): a streaming reader of what clients send and encoders of what the server
 * answers. No socket here (node-postgres `packages/pg-protocol/src/parser.ts`): the server feeds the
 * reader whatever pieces arrive and writes the encoders' buffers.
 *
 * ```
 * startup phase (untyped):  Int32 length (incl. itself) | Int32 code | body
 *   code 196608 (3.0) StartupMessage: (name \0 value \0)* \0
 *   code 80877103 SSLRequest, 80877104 GSSENCRequest (length 8), 80877102 CancelRequest: Int32 pid | Int32 key
 * then (typed):             Byte1 type | Int32 length (incl. itself, not the type) | body
 * ```
 * All integers are big-endian; strings are UTF-8 and NUL-terminated.
 */
import { PgWireError, protocolError } from './pg-error.js';

export const PROTOCOL_VERSION_3_0 = 196608; // 3 << 16
export const SSL_REQUEST_CODE = 80877103; // 1234 << 16 | 5679
export const GSSENC_REQUEST_CODE = 80877104; // 1234 << 16 | 5680
export const CANCEL_REQUEST_CODE = 80877102; // 1234 << 16 | 5678

/** PostgreSQL's own bound on a startup packet (`MAX_STARTUP_PACKET_LENGTH`). */
export const MAX_STARTUP_PACKET_LENGTH = 10_000;
/**
 * Largest message accepted while an authentication response is expected (PostgreSQL's
 * `PG_MAX_AUTH_TOKEN_LENGTH`): a client that has not logged in cannot make the server buffer a
 * 64 MiB message.
 */
export const MAX_AUTH_MESSAGE_SIZE = 65_535;
/** Default bound on a typed message's length (PostgreSQL accepts up to 1 GiB; tsdb is stricter). */
export const DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024;

/** Format codes of parameters and result columns. */
export type FormatCode = 0 | 1;
export const TEXT_FORMAT: FormatCode = 0;
export const BINARY_FORMAT: FormatCode = 1;

// ---------------------------------------------------------------------------------------------
// Frontend messages

export type FrontendMessage =
  | { readonly type: 'StartupMessage'; readonly majorVersion: number; readonly minorVersion: number; readonly parameters: ReadonlyMap<string, string> }
  | { readonly type: 'SSLRequest' }
  | { readonly type: 'GSSENCRequest' }
  | { readonly type: 'CancelRequest'; readonly processId: number; readonly secretKey: number }
  | { readonly type: 'Query'; readonly query: string }
  | { readonly type: 'Parse'; readonly name: string; readonly query: string; readonly paramTypes: readonly number[] }
  | {
      readonly type: 'Bind';
      readonly portal: string;
      readonly statement: string;
      readonly paramFormats: readonly FormatCode[];
      /** Each value's bytes, null for SQL NULL (length -1). */
      readonly params: ReadonlyArray<Buffer | null>;
      readonly resultFormats: readonly FormatCode[];
    }
  | { readonly type: 'Describe'; readonly kind: 'S' | 'P'; readonly name: string }
  | { readonly type: 'Execute'; readonly portal: string; readonly maxRows: number }
  | { readonly type: 'Sync' }
  | { readonly type: 'Flush' }
  | { readonly type: 'Close'; readonly kind: 'S' | 'P'; readonly name: string }
  | { readonly type: 'Terminate' }
  | { readonly type: 'PasswordMessage'; readonly password: string }
  | { readonly type: 'SASLInitialResponse'; readonly mechanism: string; readonly data: Buffer | null }
  | { readonly type: 'SASLResponse'; readonly data: Buffer }
  | { readonly type: 'CopyData'; readonly data: Buffer }
  | { readonly type: 'CopyDone' }
  | { readonly type: 'CopyFail'; readonly message: string }
  | {
      readonly type: 'FunctionCall';
      readonly functionOid: number;
      readonly argFormats: readonly FormatCode[];
      readonly args: ReadonlyArray<Buffer | null>;
      readonly resultFormat: FormatCode;
    };

/** What a `p` message means: PostgreSQL tells them apart only by the authentication in progress. */
export type AuthResponseKind = 'password' | 'sasl-initial' | 'sasl';

export interface MessageReaderOptions {
  /** Largest typed message body accepted, in bytes (default 64 MiB). */
  maxMessageSize?: number;
  /** Largest startup packet accepted, in bytes (default 10,000 as PostgreSQL). */
  maxStartupSize?: number;
}

/**
 * Splits the byte stream of one connection into frontend messages. Starts in the startup phase
 * (untyped packets); a StartupMessage switches to typed messages, SSLRequest / GSSENCRequest keep
 * the startup phase (the client sends its StartupMessage next, over TLS or not). Any violation
 * throws a fatal `PgWireError` (08P01) and the reader stays failed: the connection must close.
 */
export class MessageReader {
  private buf: Buffer = Buffer.alloc(0);
  private startup = true;
  private failed: PgWireError | undefined;
  private auth: AuthResponseKind | undefined;
  private readonly maxMessageSize: number;
  private readonly maxStartupSize: number;

  constructor(opts: MessageReaderOptions = {}) {
    this.maxMessageSize = opts.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    this.maxStartupSize = opts.maxStartupSize ?? MAX_STARTUP_PACKET_LENGTH;
  }

  /** Whether the reader still expects untyped startup packets. */
  get inStartupPhase(): boolean {
    return this.startup;
  }

  /** Bytes received but not yet forming a whole message. */
  get pendingBytes(): number {
    return this.buf.length;
  }

  /** Says how the next `p` messages are to be read (undefined: a `p` is a protocol violation). */
  expectAuthResponse(kind: AuthResponseKind | undefined): void {
    this.auth = kind;
  }

  /**
   * Feeds a piece of the stream; calls `onMessage` for each whole message, in order. The callback
   * may change the expected authentication response before the next message is decoded.
   */
  feed(chunk: Uint8Array, onMessage: (msg: FrontendMessage) => void): void {
    if (this.failed) throw this.failed;
    this.buf = this.buf.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([this.buf, chunk]);
    try {
      let off = 0;
      for (;;) {
        const end = this.startup ? this.startupEnd(off) : this.typedEnd(off);
        if (end < 0) break;
        const msg = this.startup ? this.decodeStartup(off, end) : this.decodeTyped(off, end);
        off = end;
        onMessage(msg);
        if (this.failed) throw this.failed;
      }
      // Keep the remainder (a copy, so the caller's chunk can be reused).
      this.buf = off === this.buf.length ? Buffer.alloc(0) : off === 0 ? Buffer.from(this.buf) : Buffer.from(this.buf.subarray(off));
    } catch (err) {
      this.buf = Buffer.alloc(0);
      this.failed = err instanceof PgWireError ? err : protocolError(String(err));
      throw this.failed;
    }
  }

  /** Feeds a piece and returns its whole messages (the expected `p` kind cannot change in between). */
  read(chunk: Uint8Array): FrontendMessage[] {
    const out: FrontendMessage[] = [];
    this.feed(chunk, (m) => out.push(m));
    return out;
  }

  /** End offset of the startup packet at `off`, or -1 if incomplete. */
  private startupEnd(off: number): number {
    if (this.buf.length - off < 4) return -1;
    const len = this.buf.readInt32BE(off);
    if (len < 8) throw protocolError(`invalid length of startup packet: ${len}`);
    if (len > this.maxStartupSize) throw protocolError(`invalid length of startup packet: ${len}`);
    return this.buf.length - off < len ? -1 : off + len;
  }

  /** End offset of the typed message at `off`, or -1 if incomplete. */
  private typedEnd(off: number): number {
    if (this.buf.length - off < 5) {
      // Reject an unknown type byte as soon as it arrives.
      if (this.buf.length > off) typeName(this.buf[off]!);
      return -1;
    }
    const type = this.buf[off]!;
    typeName(type);
    const len = this.buf.readInt32BE(off + 1);
    if (len < 4) throw protocolError(`invalid message length ${len} for message type "${String.fromCharCode(type)}"`);
    if (len - 4 > this.maxMessageSize) {
      throw protocolError(`message of type "${String.fromCharCode(type)}" too large: ${len - 4} bytes (maximum ${this.maxMessageSize})`);
    }
    if (this.auth !== undefined && len - 4 > MAX_AUTH_MESSAGE_SIZE) {
      throw protocolError(
        `message of type "${String.fromCharCode(type)}" too large during authentication: ${len - 4} bytes (maximum ${MAX_AUTH_MESSAGE_SIZE})`,
      );
    }
    return this.buf.length - off < len + 1 ? -1 : off + 1 + len;
  }

  private decodeStartup(off: number, end: number): FrontendMessage {
    const r = new BodyReader(this.buf, off + 8, end, 'startup packet');
    const code = this.buf.readInt32BE(off + 4);
    switch (code) {
      case SSL_REQUEST_CODE:
      case GSSENC_REQUEST_CODE:
        r.end();
        return { type: code === SSL_REQUEST_CODE ? 'SSLRequest' : 'GSSENCRequest' };
      case CANCEL_REQUEST_CODE: {
        const processId = r.int32();
        const secretKey = r.int32();
        r.end();
        return { type: 'CancelRequest', processId, secretKey };
      }
    }
    const majorVersion = code >>> 16;
    const minorVersion = code & 0xffff;
    if (majorVersion !== 3) {
      throw protocolError(`unsupported frontend protocol ${majorVersion}.${minorVersion}: server supports 3.0 to 3.0`);
    }
    const parameters = new Map<string, string>();
    for (;;) {
      const name = r.cstring();
      if (name === '') break;
      parameters.set(name, r.cstring());
    }
    r.end();
    this.startup = false;
    return { type: 'StartupMessage', majorVersion, minorVersion, parameters };
  }

  private decodeTyped(off: number, end: number): FrontendMessage {
    const type = String.fromCharCode(this.buf[off]!);
    const r = new BodyReader(this.buf, off + 5, end, `"${type}" message`);
    let msg: FrontendMessage;
    switch (type) {
      case 'Q':
        msg = { type: 'Query', query: r.cstring() };
        break;
      case 'P': {
        const name = r.cstring();
        const query = r.cstring();
        const n = r.int16Count();
        const paramTypes: number[] = [];
        for (let i = 0; i < n; i++) paramTypes.push(r.uint32());
        msg = { type: 'Parse', name, query, paramTypes };
        break;
      }
      case 'B': {
        const portal = r.cstring();
        const statement = r.cstring();
        const paramFormats = r.formats();
        const n = r.int16Count();
        const params: Array<Buffer | null> = [];
        for (let i = 0; i < n; i++) params.push(r.value());
        const resultFormats = r.formats();
        if (paramFormats.length > 1 && paramFormats.length !== n) {
          throw protocolError(`bind message has ${paramFormats.length} parameter formats but ${n} parameters`);
        }
        msg = { type: 'Bind', portal, statement, paramFormats, params, resultFormats };
        break;
      }
      case 'D':
      case 'C': {
        const kind = r.byte();
        if (kind !== 'S' && kind !== 'P') {
          throw protocolError(`invalid ${type === 'D' ? 'DESCRIBE' : 'CLOSE'} message subtype ${kind.charCodeAt(0)}`);
        }
        msg = { type: type === 'D' ? 'Describe' : 'Close', kind, name: r.cstring() };
        break;
      }
      case 'E':
        msg = { type: 'Execute', portal: r.cstring(), maxRows: r.int32() };
        break;
      case 'S':
        msg = { type: 'Sync' };
        break;
      case 'H':
        msg = { type: 'Flush' };
        break;
      case 'X':
        msg = { type: 'Terminate' };
        break;
      case 'c':
        msg = { type: 'CopyDone' };
        break;
      case 'd':
        msg = { type: 'CopyData', data: r.rest() };
        break;
      case 'f':
        msg = { type: 'CopyFail', message: r.cstring() };
        break;
      case 'F': {
        const functionOid = r.uint32();
        const argFormats = r.formats();
        const n = r.int16Count();
        const args: Array<Buffer | null> = [];
        for (let i = 0; i < n; i++) args.push(r.value());
        const resultFormat = r.format();
        msg = { type: 'FunctionCall', functionOid, argFormats, args, resultFormat };
        break;
      }
      case 'p':
        msg = this.decodeAuthResponse(r);
        break;
      default:
        throw protocolError(`invalid frontend message type ${type.charCodeAt(0)}`);
    }
    r.end();
    return msg;
  }

  private decodeAuthResponse(r: BodyReader): FrontendMessage {
    switch (this.auth) {
      case 'password':
        return { type: 'PasswordMessage', password: r.cstring() };
      case 'sasl-initial': {
        const mechanism = r.cstring();
        const n = r.int32();
        if (n < -1) throw protocolError(`invalid SASL initial response length ${n}`);
        return { type: 'SASLInitialResponse', mechanism, data: n === -1 ? null : r.bytes(n) };
      }
      case 'sasl':
        return { type: 'SASLResponse', data: r.rest() };
      case undefined:
        throw protocolError('unexpected password message: no authentication in progress');
    }
  }
}

const FRONTEND_TYPES = new Set('QPBDECSHXcdfFp');

/** Checks a type byte against the frontend message types. */
function typeName(byte: number): void {
  if (!FRONTEND_TYPES.has(String.fromCharCode(byte))) throw protocolError(`invalid frontend message type ${byte}`);
}

/** Reads the body of one message, never past its end. */
class BodyReader {
  constructor(
    private readonly buf: Buffer,
    private off: number,
    private readonly limit: number,
    private readonly what: string,
  ) {}

  private need(n: number): void {
    if (this.limit - this.off < n) throw protocolError(`invalid ${this.what} format: insufficient data left in message`);
  }

  byte(): string {
    this.need(1);
    return String.fromCharCode(this.buf[this.off++]!);
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.off);
    this.off += 2;
    return v;
  }

  /** An Int16 count, which must not be negative. */
  int16Count(): number {
    const n = this.int16();
    if (n < 0) throw protocolError(`invalid ${this.what} format: negative count ${n}`);
    return n;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.off);
    this.off += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.off);
    this.off += 4;
    return v;
  }

  format(): FormatCode {
    const f = this.int16();
    if (f !== 0 && f !== 1) throw protocolError(`unsupported format code: ${f}`);
    return f;
  }

  formats(): FormatCode[] {
    const n = this.int16Count();
    const out: FormatCode[] = [];
    for (let i = 0; i < n; i++) out.push(this.format());
    return out;
  }

  /** An Int32 length and that many bytes; -1 is NULL. */
  value(): Buffer | null {
    const n = this.int32();
    if (n === -1) return null;
    if (n < 0) throw protocolError(`invalid ${this.what} format: invalid value length ${n}`);
    return this.bytes(n);
  }

  bytes(n: number): Buffer {
    this.need(n);
    const b = Buffer.from(this.buf.subarray(this.off, this.off + n));
    this.off += n;
    return b;
  }

  rest(): Buffer {
    return this.bytes(this.limit - this.off);
  }

  cstring(): string {
    const nul = this.buf.indexOf(0, this.off);
    if (nul < 0 || nul >= this.limit) throw protocolError(`invalid ${this.what} format: invalid string in message`);
    const s = this.buf.toString('utf8', this.off, nul);
    this.off = nul + 1;
    return s;
  }

  /** The body must be consumed exactly. */
  end(): void {
    if (this.off !== this.limit) throw protocolError(`invalid ${this.what} format: ${this.limit - this.off} unexpected bytes at end of message`);
  }
}

// ---------------------------------------------------------------------------------------------
// Backend messages

/** Builds one typed backend message: type byte, length placeholder, body. */
class MessageWriter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly type: string) {}

  private push(b: Buffer): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }

  int16(v: number): this {
    const b = Buffer.allocUnsafe(2);
    b.writeInt16BE(v);
    return this.push(b);
  }

  int32(v: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v);
    return this.push(b);
  }

  uint32(v: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(v);
    return this.push(b);
  }

  byte(c: string): this {
    return this.push(Buffer.from([c.charCodeAt(0)]));
  }

  cstring(s: string): this {
    if (s.includes('\0')) throw new PgWireError('22021', 'string contains a NUL byte');
    return this.push(Buffer.from(s + '\0', 'utf8'));
  }

  bytes(b: Uint8Array): this {
    return this.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }

  build(): Buffer {
    const out = Buffer.allocUnsafe(5 + this.size);
    out[0] = this.type.charCodeAt(0);
    out.writeInt32BE(4 + this.size, 1);
    let off = 5;
    for (const p of this.parts) {
      p.copy(out, off);
      off += p.length;
    }
    return out;
  }
}

const AUTH_OK = 0;
const AUTH_CLEARTEXT_PASSWORD = 3;
const AUTH_SASL = 10;
const AUTH_SASL_CONTINUE = 11;
const AUTH_SASL_FINAL = 12;

export function authenticationOk(): Buffer {
  return new MessageWriter('R').int32(AUTH_OK).build();
}

export function authenticationCleartextPassword(): Buffer {
  return new MessageWriter('R').int32(AUTH_CLEARTEXT_PASSWORD).build();
}

/** AuthenticationSASL: the mechanisms offered, e.g. `['SCRAM-SHA-256']`. */
export function authenticationSASL(mechanisms: readonly string[]): Buffer {
  const w = new MessageWriter('R').int32(AUTH_SASL);
  for (const m of mechanisms) w.cstring(m);
  return w.byte('\0').build();
}

export function authenticationSASLContinue(data: string | Uint8Array): Buffer {
  return new MessageWriter('R').int32(AUTH_SASL_CONTINUE).bytes(toBytes(data)).build();
}

export function authenticationSASLFinal(data: string | Uint8Array): Buffer {
  return new MessageWriter('R').int32(AUTH_SASL_FINAL).bytes(toBytes(data)).build();
}

export function parameterStatus(name: string, value: string): Buffer {
  return new MessageWriter('S').cstring(name).cstring(value).build();
}

export function backendKeyData(processId: number, secretKey: number): Buffer {
  return new MessageWriter('K').int32(processId | 0).int32(secretKey | 0).build();
}

/** Transaction status: I idle, T in a transaction block, E in a failed transaction block. */
export type TransactionStatus = 'I' | 'T' | 'E';

export function readyForQuery(status: TransactionStatus): Buffer {
  return new MessageWriter('Z').byte(status).build();
}

/** One column of a RowDescription. */
export interface FieldDescription {
  readonly name: string;
  /** OID of the table, 0 if the column is not a table column. */
  readonly tableOid?: number;
  /** Attribute number of the column, 0 if not a table column. */
  readonly columnAttr?: number;
  readonly typeOid: number;
  /** pg_type.typlen: negative for variable-width types. */
  readonly typeLen: number;
  readonly typeModifier?: number;
  readonly format?: FormatCode;
}

export function rowDescription(fields: readonly FieldDescription[]): Buffer {
  const w = new MessageWriter('T').int16(fields.length);
  for (const f of fields) {
    w.cstring(f.name)
      .uint32(f.tableOid ?? 0)
      .int16(f.columnAttr ?? 0)
      .uint32(f.typeOid)
      .int16(f.typeLen)
      .int32(f.typeModifier ?? -1)
      .int16(f.format ?? TEXT_FORMAT);
  }
  return w.build();
}

/** DataRow: each value's bytes, null for SQL NULL. */
export function dataRow(values: ReadonlyArray<Uint8Array | null>): Buffer {
  let size = 6;
  for (const v of values) size += 4 + (v === null ? 0 : v.byteLength);
  const out = Buffer.allocUnsafe(size + 1);
  out[0] = 0x44; // 'D'
  out.writeInt32BE(size, 1);
  out.writeInt16BE(values.length, 5);
  let off = 7;
  for (const v of values) {
    if (v === null) {
      out.writeInt32BE(-1, off);
      off += 4;
    } else {
      out.writeInt32BE(v.byteLength, off);
      out.set(v, off + 4);
      off += 4 + v.byteLength;
    }
  }
  return out;
}

export function commandComplete(tag: string): Buffer {
  return new MessageWriter('C').cstring(tag).build();
}

export function emptyQueryResponse(): Buffer {
  return new MessageWriter('I').build();
}

/** The fields of an ErrorResponse or NoticeResponse. */
export interface NoticeFields {
  /** Localized severity (S): ERROR, FATAL, PANIC, WARNING, NOTICE, DEBUG, INFO, LOG. */
  readonly severity: string;
  /** SQLSTATE (C). */
  readonly code: string;
  /** Primary message (M). */
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the query string (P). */
  readonly position?: number;
}

function noticeMessage(type: 'E' | 'N', f: NoticeFields): Buffer {
  const w = new MessageWriter(type);
  w.byte('S').cstring(f.severity);
  w.byte('V').cstring(f.severity);
  w.byte('C').cstring(f.code);
  w.byte('M').cstring(f.message.replaceAll('\0', ''));
  if (f.detail !== undefined) w.byte('D').cstring(f.detail.replaceAll('\0', ''));
  if (f.hint !== undefined) w.byte('H').cstring(f.hint.replaceAll('\0', ''));
  if (f.position !== undefined) w.byte('P').cstring(String(f.position));
  return w.byte('\0').build();
}

export function errorResponse(fields: NoticeFields): Buffer {
  return noticeMessage('E', fields);
}

export function noticeResponse(fields: NoticeFields): Buffer {
  return noticeMessage('N', fields);
}

export function parseComplete(): Buffer {
  return new MessageWriter('1').build();
}

export function bindComplete(): Buffer {
  return new MessageWriter('2').build();
}

export function closeComplete(): Buffer {
  return new MessageWriter('3').build();
}

export function parameterDescription(typeOids: readonly number[]): Buffer {
  const w = new MessageWriter('t').int16(typeOids.length);
  for (const oid of typeOids) w.uint32(oid);
  return w.build();
}

export function noData(): Buffer {
  return new MessageWriter('n').build();
}

export function portalSuspended(): Buffer {
  return new MessageWriter('s').build();
}

/** NegotiateProtocolVersion: the newest minor version supported and the options not recognized. */
export function negotiateProtocolVersion(newestMinor: number, unrecognizedOptions: readonly string[]): Buffer {
  const w = new MessageWriter('v').int32(newestMinor).int32(unrecognizedOptions.length);
  for (const o of unrecognizedOptions) w.cstring(o);
  return w.build();
}

/** The single byte answering an SSLRequest (or GSSENCRequest): 'S' to go on with TLS, 'N' to refuse. */
export function sslResponse(accept: boolean): Buffer {
  return Buffer.from(accept ? 'S' : 'N', 'latin1');
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
