/**
 * Connection phase of the MySQL protocol (dev.mysql.com "Client/Server Protocol › Connection
 * Lifecycle › Connection Phase"): the server's HandshakeV10, the client's SSLRequest and
 * HandshakeResponse41, AuthSwitchRequest, and `mysql_native_password`.
 *
 * ```
 * HandshakeV10 := 0x0a server_version:NUL connection_id:int<4> scramble[0..8]:8 0x00
 *                 caps_lower:int<2> charset:int<1> status:int<2> caps_upper:int<2>
 *                 auth_data_len:int<1> reserved:10 scramble[8..]:max(13, len-8) (NUL-ended)
 *                 plugin_name:NUL
 * HandshakeResponse41 := caps:int<4> max_packet:int<4> charset:int<1> filler:23 user:NUL
 *                 auth_response (lenenc | int<1> len | NUL) [db:NUL] [plugin:NUL] [attrs:lenenc kv…]
 * SSLRequest := the first 32 bytes of a HandshakeResponse41, with CLIENT_SSL
 * ```
 */
import crypto from 'node:crypto';
import { MysqlProtocolError, PayloadReader, PayloadWriter } from './packet.js';

// Capability flags.
export const CLIENT_LONG_PASSWORD = 0x1;
export const CLIENT_FOUND_ROWS = 0x2;
export const CLIENT_LONG_FLAG = 0x4;
export const CLIENT_CONNECT_WITH_DB = 0x8;
export const CLIENT_NO_SCHEMA = 0x10;
export const CLIENT_COMPRESS = 0x20;
export const CLIENT_ODBC = 0x40;
export const CLIENT_LOCAL_FILES = 0x80;
export const CLIENT_IGNORE_SPACE = 0x100;
export const CLIENT_PROTOCOL_41 = 0x200;
export const CLIENT_INTERACTIVE = 0x400;
export const CLIENT_SSL = 0x800;
export const CLIENT_IGNORE_SIGPIPE = 0x1000;
export const CLIENT_TRANSACTIONS = 0x2000;
export const CLIENT_RESERVED = 0x4000;
export const CLIENT_SECURE_CONNECTION = 0x8000;
export const CLIENT_MULTI_STATEMENTS = 0x10000;
export const CLIENT_MULTI_RESULTS = 0x20000;
export const CLIENT_PS_MULTI_RESULTS = 0x40000;
export const CLIENT_PLUGIN_AUTH = 0x80000;
export const CLIENT_CONNECT_ATTRS = 0x100000;
export const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x200000;
export const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 0x400000;
export const CLIENT_SESSION_TRACK = 0x800000;
export const CLIENT_DEPRECATE_EOF = 0x1000000;
export const CLIENT_OPTIONAL_RESULTSET_METADATA = 0x2000000;
export const CLIENT_ZSTD_COMPRESSION_ALGORITHM = 0x4000000;
export const CLIENT_QUERY_ATTRIBUTES = 0x8000000;

// Server status flags.
export const SERVER_STATUS_IN_TRANS = 0x1;
export const SERVER_STATUS_AUTOCOMMIT = 0x2;
export const SERVER_MORE_RESULTS_EXISTS = 0x8;
export const SERVER_STATUS_NO_GOOD_INDEX_USED = 0x10;
export const SERVER_STATUS_NO_INDEX_USED = 0x20;
export const SERVER_STATUS_CURSOR_EXISTS = 0x40;
export const SERVER_STATUS_LAST_ROW_SENT = 0x80;

/** Character sets (collation ids). */
export const CHARSET_UTF8MB4_GENERAL_CI = 45;
export const CHARSET_BINARY = 63;

export const MYSQL_NATIVE_PASSWORD = 'mysql_native_password';
export const MYSQL_CLEAR_PASSWORD = 'mysql_clear_password';
/** The MySQL version tsdb claims (reference api.md §5; env `GREPTIMEDB_MYSQL_SERVER_VERSION`). */
export const DEFAULT_MYSQL_VERSION = '8.4.2';
export const SCRAMBLE_LENGTH = 20;

/** `8.4.2-tsdb-0.1.0`: the MySQL version first, which clients parse for feature checks. */
export function serverVersion(tsdbVersion: string, mysqlVersion: string = DEFAULT_MYSQL_VERSION): string {
  return `${mysqlVersion}-tsdb-${tsdbVersion}`;
}

/** The capabilities tsdb offers; CLIENT_SSL only when TLS is configured. */
export function serverCapabilities(opts: { readonly ssl?: boolean } = {}): number {
  let caps =
    CLIENT_LONG_PASSWORD |
    CLIENT_FOUND_ROWS |
    CLIENT_LONG_FLAG |
    CLIENT_CONNECT_WITH_DB |
    CLIENT_NO_SCHEMA |
    CLIENT_IGNORE_SPACE |
    CLIENT_PROTOCOL_41 |
    CLIENT_INTERACTIVE |
    CLIENT_IGNORE_SIGPIPE |
    CLIENT_TRANSACTIONS |
    CLIENT_RESERVED |
    CLIENT_SECURE_CONNECTION |
    CLIENT_MULTI_STATEMENTS |
    CLIENT_MULTI_RESULTS |
    CLIENT_PS_MULTI_RESULTS |
    CLIENT_PLUGIN_AUTH |
    CLIENT_CONNECT_ATTRS |
    CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
    CLIENT_DEPRECATE_EOF;
  if (opts.ssl) caps |= CLIENT_SSL;
  return caps >>> 0;
}

/**
 * 20 random bytes in 1..127 without `$`: the scramble is NUL-terminated in the handshake, and
 * some clients treat it as text.
 */
export function generateScramble(): Buffer {
  const out = Buffer.alloc(SCRAMBLE_LENGTH);
  let i = 0;
  while (i < SCRAMBLE_LENGTH) {
    for (const b of crypto.randomBytes(SCRAMBLE_LENGTH * 2)) {
      const c = b & 0x7f;
      if (c === 0 || c === 0x24) continue;
      out[i++] = c;
      if (i === SCRAMBLE_LENGTH) break;
    }
  }
  return out;
}

export interface HandshakeV10 {
  readonly serverVersion: string;
  readonly connectionId: number;
  /** 20 bytes. */
  readonly scramble: Buffer;
  readonly capabilities: number;
  readonly charset: number;
  readonly statusFlags: number;
  readonly authPluginName: string;
}

export function encodeHandshakeV10(h: HandshakeV10): Buffer {
  if (h.scramble.length < 8) throw new RangeError('scramble shorter than 8 bytes');
  const caps = h.capabilities >>> 0;
  const w = new PayloadWriter()
    .u8(0x0a)
    .nulString(h.serverVersion)
    .u32(h.connectionId)
    .bytes(h.scramble.subarray(0, 8))
    .u8(0)
    .u16(caps & 0xffff)
    .u8(h.charset)
    .u16(h.statusFlags)
    .u16(caps >>> 16)
    .u8(caps & CLIENT_PLUGIN_AUTH ? h.scramble.length + 1 : 0)
    .zeros(10);
  if (caps & CLIENT_SECURE_CONNECTION) {
    const part2 = h.scramble.subarray(8);
    w.bytes(part2).zeros(Math.max(13 - part2.length, 1));
  }
  if (caps & CLIENT_PLUGIN_AUTH) w.nulString(h.authPluginName);
  return w.finish();
}

export function decodeHandshakeV10(payload: Buffer): HandshakeV10 {
  const r = new PayloadReader(payload);
  const version = r.u8();
  if (version !== 0x0a) throw new MysqlProtocolError(`unsupported handshake protocol version ${version}`);
  const serverVersion = r.nulString();
  const connectionId = r.u32();
  const part1 = r.bytes(8);
  r.u8();
  const capsLower = r.u16();
  const charset = r.u8();
  const statusFlags = r.u16();
  const capabilities = ((r.u16() << 16) | capsLower) >>> 0;
  const authDataLength = r.u8();
  r.bytes(10);
  let part2: Buffer = Buffer.alloc(0);
  if (capabilities & CLIENT_SECURE_CONNECTION) {
    part2 = r.bytes(Math.max(13, authDataLength - 8));
    if (part2[part2.length - 1] === 0) part2 = part2.subarray(0, part2.length - 1);
  }
  const authPluginName = capabilities & CLIENT_PLUGIN_AUTH && r.remaining > 0 ? r.nulString() : '';
  return {
    serverVersion,
    connectionId,
    scramble: Buffer.concat([part1, part2]),
    capabilities,
    charset,
    statusFlags,
    authPluginName,
  };
}

/** Length of an SSLRequest payload. */
export const SSL_REQUEST_LENGTH = 32;

/** Whether the client's first payload is an SSLRequest (then TLS starts, and the response follows). */
export function isSslRequest(payload: Buffer): boolean {
  return payload.length === SSL_REQUEST_LENGTH && (payload.readUInt32LE(0) & CLIENT_SSL) !== 0;
}

export interface SslRequest {
  readonly capabilities: number;
  readonly maxPacketSize: number;
  readonly charset: number;
}

export function encodeSslRequest(req: SslRequest): Buffer {
  return new PayloadWriter()
    .u32((req.capabilities | CLIENT_SSL) >>> 0)
    .u32(req.maxPacketSize)
    .u8(req.charset)
    .zeros(23)
    .finish();
}

export function decodeSslRequest(payload: Buffer): SslRequest {
  if (!isSslRequest(payload)) throw new MysqlProtocolError('not an SSLRequest');
  const r = new PayloadReader(payload);
  return { capabilities: r.u32(), maxPacketSize: r.u32(), charset: r.u8() };
}

export interface HandshakeResponse41 {
  readonly capabilities: number;
  readonly maxPacketSize: number;
  readonly charset: number;
  readonly user: string;
  readonly authResponse: Buffer;
  /** With CLIENT_CONNECT_WITH_DB; undefined when not sent or empty. */
  readonly database: string | undefined;
  /** With CLIENT_PLUGIN_AUTH; undefined when not sent. */
  readonly authPluginName: string | undefined;
  /** With CLIENT_CONNECT_ATTRS (`_client_name`, `_os`, `program_name`, …). */
  readonly connectAttributes: ReadonlyMap<string, string>;
}

export function decodeHandshakeResponse41(payload: Buffer): HandshakeResponse41 {
  const r = new PayloadReader(payload);
  const capabilities = r.u32();
  if (!(capabilities & CLIENT_PROTOCOL_41)) {
    throw new MysqlProtocolError('client does not support protocol 4.1 (HandshakeResponse320 is not supported)');
  }
  const maxPacketSize = r.u32();
  const charset = r.u8();
  r.bytes(23);
  const user = r.nulString();
  let authResponse: Buffer;
  if (capabilities & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) authResponse = r.lenEncBytes();
  else if (capabilities & CLIENT_SECURE_CONNECTION) authResponse = r.bytes(r.u8());
  else authResponse = r.nulBytes();
  let database: string | undefined;
  if (capabilities & CLIENT_CONNECT_WITH_DB && r.remaining > 0) {
    database = r.nulString();
    if (database === '') database = undefined;
  }
  let authPluginName: string | undefined;
  if (capabilities & CLIENT_PLUGIN_AUTH && r.remaining > 0) authPluginName = r.nulString();
  const connectAttributes = new Map<string, string>();
  if (capabilities & CLIENT_CONNECT_ATTRS && r.remaining > 0) {
    const length = r.length();
    const attrs = new PayloadReader(r.bytes(length));
    while (attrs.remaining > 0) {
      const key = attrs.lenEncString();
      connectAttributes.set(key, attrs.lenEncString());
    }
  }
  // A trailing zstd compression level (CLIENT_ZSTD_COMPRESSION_ALGORITHM) is ignored: not offered.
  return {
    capabilities,
    maxPacketSize,
    charset,
    user,
    authResponse: Buffer.from(authResponse),
    database,
    authPluginName,
    connectAttributes,
  };
}

/** For tests and client tools: a HandshakeResponse41 as `capabilities` says to write it. */
export function encodeHandshakeResponse41(res: HandshakeResponse41): Buffer {
  const caps = res.capabilities >>> 0;
  const w = new PayloadWriter().u32(caps).u32(res.maxPacketSize).u8(res.charset).zeros(23).nulString(res.user);
  if (caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) w.lenEncBytes(res.authResponse);
  else if (caps & CLIENT_SECURE_CONNECTION) w.u8(res.authResponse.length).bytes(res.authResponse);
  else w.nulString(res.authResponse);
  if (caps & CLIENT_CONNECT_WITH_DB) w.nulString(res.database ?? '');
  if (caps & CLIENT_PLUGIN_AUTH) w.nulString(res.authPluginName ?? '');
  if (caps & CLIENT_CONNECT_ATTRS) {
    const attrs = new PayloadWriter();
    for (const [k, v] of res.connectAttributes) attrs.lenEncString(k).lenEncString(v);
    w.lenEncBytes(attrs.finish());
  }
  return w.finish();
}

/** AuthSwitchRequest: 0xfe plugin_name:NUL plugin_data (for mysql_native_password: scramble + NUL). */
export function encodeAuthSwitchRequest(pluginName: string, pluginData: Buffer): Buffer {
  return new PayloadWriter().u8(0xfe).nulString(pluginName).bytes(pluginData).finish();
}

/** The AuthSwitchRequest for `mysql_native_password` with `scramble`. */
export function nativePasswordAuthSwitch(scramble: Buffer): Buffer {
  return encodeAuthSwitchRequest(MYSQL_NATIVE_PASSWORD, Buffer.concat([scramble, Buffer.from([0])]));
}

export function decodeAuthSwitchRequest(payload: Buffer): { pluginName: string; pluginData: Buffer } {
  const r = new PayloadReader(payload);
  if (r.u8() !== 0xfe) throw new MysqlProtocolError('not an AuthSwitchRequest');
  return { pluginName: r.nulString(), pluginData: Buffer.from(r.rest()) };
}

// ---------------------------------------------------------------------------------------------
// mysql_native_password

function sha1(...parts: Uint8Array[]): Buffer {
  const h = crypto.createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** SHA1(SHA1(password)): what a `mysql_native_password:<hex>` verifier holds. */
export function nativePasswordHashStage2(password: string): Buffer {
  return sha1(sha1(Buffer.from(password, 'utf8')));
}

/**
 * The client's answer to `scramble`: SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password)));
 * empty for an empty password.
 */
export function nativePasswordToken(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha1(Buffer.from(password, 'utf8'));
  return xor(stage1, sha1(scramble.subarray(0, SCRAMBLE_LENGTH), sha1(stage1)));
}

/** What the server knows of a password: the password, or SHA1(SHA1(password)). */
export type NativePasswordSecret =
  | { readonly kind: 'plain'; readonly password: string }
  | { readonly kind: 'mysql_native_password'; readonly hashStage2: Buffer };

/**
 * Whether `response` proves knowledge of the password behind `secret` for `scramble`
 * (digests compared in constant time).
 */
export function verifyNativePassword(scramble: Buffer, response: Buffer, secret: NativePasswordSecret): boolean {
  const salt = scramble.subarray(0, SCRAMBLE_LENGTH);
  if (secret.kind === 'plain') {
    const expected = nativePasswordToken(secret.password, salt);
    if (expected.length === 0 || response.length !== expected.length) return false;
    return crypto.timingSafeEqual(expected, response);
  }
  const stage2 = secret.hashStage2;
  if (stage2.length !== 20 || response.length !== 20) return false;
  // response XOR SHA1(scramble + stage2) = SHA1(password) when right; its SHA1 must be stage2.
  const candidateStage1 = xor(response, sha1(salt, stage2));
  return crypto.timingSafeEqual(sha1(candidateStage1), stage2);
}

/**
 * Largest payload a client may send before it has logged in (SSLRequest, HandshakeResponse41,
 * auth-switch response): user, database, an auth token and connection attributes fit in well under
 * 1 KiB in practice. A larger one is refused from its header, so a client that has not logged in
 * cannot make the server buffer `max_allowed_packet` (128 MiB) on its behalf.
 */
export const MAX_LOGIN_PAYLOAD_SIZE = 16 * 1024;

/** The capabilities in force after the handshake: what both sides support. */
export function negotiateCapabilities(server: number, client: number): number {
  return (server & client) >>> 0;
}

/**
 * Whether the server must ask for `mysql_native_password` with an AuthSwitchRequest: the client
 * answered with another plugin (MySQL 8 clients default to `caching_sha2_password`), or with an
 * answer that cannot be a native-password token.
 */
export function needsAuthSwitch(res: HandshakeResponse41): boolean {
  if (res.authPluginName !== undefined && res.authPluginName !== '' && res.authPluginName !== MYSQL_NATIVE_PASSWORD) return true;
  return res.authResponse.length !== 0 && res.authResponse.length !== SCRAMBLE_LENGTH;
}
