/**
 * TLS of the MySQL and PostgreSQL servers over real sockets, with certificates made by `openssl`:
 * files that cannot be used fail the start naming the file, `watch` reloads, the MySQL SSLRequest
 * (also with the TLS handshake in the same write) and the PostgreSQL SSLRequest upgrade the
 * connection, plaintext is refused under `require`, client certificates are checked in the verify
 * modes, and a broken handshake closes only its own connection.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { after, before, test, type TestContext } from 'node:test';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import pino from 'pino';
import { makeCerts, type TestCerts } from '../../test/support/tls-certs.js';
import { silentLogger } from '../common/logging.js';
import type { TlsMode, TlsOptions } from '../config/options.js';
import { records } from '../query/output.js';
import type { SqlHandler } from './handlers.js';
import {
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
  decodeHandshakeV10,
  encodeHandshakeResponse41,
  encodeSslRequest,
} from './mysql/handshake.js';
import { COM_PING, decodeErr, encodeSimpleCommand } from './mysql/messages.js';
import { MysqlServer } from './mysql/mysql-server.js';
import { PacketReader, writePacket } from './mysql/packet.js';
import { PostgresServer } from './postgres/postgres-server.js';
import { loadSecureContext, ServerTls } from './tls.js';

let certs: TestCerts;
let certDir: string;
before(() => {
  certDir = mkdtempSync(join(tmpdir(), 'tsdb-tls-'));
  certs = makeCerts(certDir);
});
after(() => rmSync(certDir, { recursive: true, force: true }));

const sql: SqlHandler = {
  executeSql: async () => [records([{ name: 'x', data_type: 'Int64' }], [[1n]])],
  databaseExists: async (db) => db === 'public',
  tables: async () => [],
};

function tlsOptions(mode: TlsMode, extra: Partial<TlsOptions> = {}): TlsOptions {
  const verify = mode === 'verify-ca' || mode === 'verify-full';
  return { mode, cert_path: certs.serverCert, key_path: certs.serverKey, ca_cert_path: verify ? certs.caCert : '', watch: false, ...extra };
}

async function startMysql(t: TestContext, mode: TlsMode): Promise<number> {
  const server = new MysqlServer({ logger: silentLogger(), serverVersion: '8.4.2-tsdb-test', tls: tlsOptions(mode) }, { sql });
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  return server.boundAddress()!.port;
}

async function startPostgres(t: TestContext, mode: TlsMode): Promise<number> {
  const server = new PostgresServer({ logger: silentLogger(), serverVersion: '16.3-tsdb-test', tls: tlsOptions(mode) }, { sql });
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  return server.boundAddress()!.port;
}

/** Received bytes of a socket, for one reader at a time (the raw socket, then TLS over it). */
class Inbox {
  private buf = Buffer.alloc(0);
  closed = false;
  private waiters: Array<() => void> = [];
  private socket: Socket | undefined;
  private readonly onData = (c: Buffer) => {
    this.buf = Buffer.concat([this.buf, c]);
    this.wake();
  };
  private readonly onClose = () => {
    this.closed = true;
    this.wake();
  };

  constructor(socket: Socket) {
    this.attach(socket);
  }

  attach(socket: Socket): void {
    this.socket?.off('data', this.onData).off('close', this.onClose);
    this.socket = socket;
    socket.on('data', this.onData).on('close', this.onClose).on('error', () => {});
  }

  detach(): void {
    this.socket?.off('data', this.onData).off('close', this.onClose);
    this.socket = undefined;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits for `n` bytes and takes them; throws if the socket closes first. */
  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n) {
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((r) => this.waiters.push(r));
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  async untilClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }
}

async function rawConnect(t: TestContext, port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

const readPem = (path: string) => readFileSync(path);

async function startTls(socket: Duplex, opts: { cert?: string; key?: string } = {}): Promise<TLSSocket> {
  const s = tlsConnect({
    socket,
    ca: readPem(certs.caCert),
    servername: 'localhost',
    ...(opts.cert !== undefined && { cert: readPem(opts.cert) }),
    ...(opts.key !== undefined && { key: readPem(opts.key) }),
  });
  await new Promise<void>((resolve, reject) => s.once('secureConnect', resolve).once('error', reject));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Files

test('a missing, unreadable or invalid file is an error naming the option and the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-tls-bad-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const garbage = join(dir, 'garbage.pem');
  writeFileSync(garbage, 'not a certificate\n');
  const missing = join(dir, 'missing.pem');
  const files = { cert_path: certs.serverCert, key_path: certs.serverKey, ca_cert_path: '' };
  assert.doesNotThrow(() => loadSecureContext(files));
  assert.doesNotThrow(() => loadSecureContext({ ...files, ca_cert_path: certs.caCert }));
  const cases: Array<[Partial<typeof files>, RegExp]> = [
    [{ cert_path: missing }, /^TlsConfigError: x\.tls\.cert_path ".*missing\.pem" cannot be read: ENOENT/],
    [{ cert_path: dir }, /^TlsConfigError: x\.tls\.cert_path ".*" cannot be read: EISDIR/],
    [{ cert_path: garbage }, /^TlsConfigError: x\.tls\.cert_path ".*garbage\.pem" is not a PEM certificate/],
    [{ key_path: garbage }, /^TlsConfigError: x\.tls\.key_path ".*garbage\.pem" is not a PEM private key/],
    [{ key_path: missing }, /^TlsConfigError: x\.tls\.key_path ".*missing\.pem" cannot be read/],
    [{ key_path: certs.clientKey }, /^TlsConfigError: x\.tls\.key_path ".*client\.key" is not the private key of the certificate x\.tls\.cert_path ".*server\.pem"/],
    [{ ca_cert_path: garbage }, /^TlsConfigError: x\.tls\.ca_cert_path ".*garbage\.pem" is not a PEM certificate/],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => loadSecureContext({ ...files, ...change }, 'x.tls'), message, JSON.stringify(change));
  }

  // A server with a bad file does not start, and says which file.
  const server = new MysqlServer({ logger: silentLogger(), tls: { ...tlsOptions('require'), cert_path: garbage } }, { sql });
  await assert.rejects(server.start('127.0.0.1:0'), /^Error: MySQL server cannot start TLS: mysql\.tls\.cert_path ".*garbage\.pem" is not a PEM certificate/);
  assert.equal(server.boundAddress(), undefined);
  const pg = new PostgresServer({ logger: silentLogger(), tls: { ...tlsOptions('prefer'), key_path: missing } }, { sql });
  await assert.rejects(pg.start('127.0.0.1:0'), /PostgreSQL server cannot start TLS: postgres\.tls\.key_path ".*missing\.pem" cannot be read/);
});

test('watch: rewritten files are loaded; a bad rewrite keeps the previous certificate and logs an error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-tls-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  copyFileSync(certs.serverCert, cert);
  copyFileSync(certs.serverKey, key);
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  const tls = ServerTls.start({ ...tlsOptions('require'), cert_path: cert, key_path: key, watch: true }, { option: 'mysql.tls', logger, watchIntervalMs: 20 })!;
  t.after(() => tls.close());
  const until = async (what: string, pred: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const first = tls.secureContext;
  copyFileSync(certs.clientCert, cert);
  copyFileSync(certs.clientKey, key);
  await until('the reload', () => lines.some((l) => /reloaded the TLS certificate/.test(l.msg)));
  const second = tls.secureContext;
  assert.notEqual(second, first);

  writeFileSync(cert, 'garbage\n');
  await until('the error', () => lines.some((l) => l.level === 50));
  assert.match(lines.find((l) => l.level === 50)!.msg, /^mysql\.tls: keeping the previous TLS certificate: mysql\.tls\.cert_path ".*cert\.pem" is not a PEM certificate/);
  assert.equal(tls.secureContext, second);
});

// ---------------------------------------------------------------------------------------------
// MySQL

const CAPS = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_DEPRECATE_EOF | CLIENT_CONNECT_WITH_DB;

function handshakeResponse(user: string, caps = CAPS): Buffer {
  return encodeHandshakeResponse41({
    capabilities: caps,
    maxPacketSize: 1 << 24,
    charset: 45,
    user,
    authResponse: Buffer.alloc(0),
    database: 'public',
    authPluginName: 'mysql_native_password',
    connectAttributes: new Map(),
  });
}

/** The next MySQL packet from `inbox`: payload and sequence id. */
async function packet(inbox: Inbox): Promise<{ payload: Buffer; seq: number }> {
  const header = await inbox.take(4);
  const payload = await inbox.take(header.readUIntLE(0, 3));
  let out: { payload: Buffer; seq: number } | undefined;
  new PacketReader().push(Buffer.concat([header, payload]), (p, seq) => (out = { payload: p, seq }));
  return out!;
}

/** `raw` as a stream whose first write is sent together with `prefix`, in one TCP write. */
function withPrefix(raw: Socket, prefix: Buffer): Duplex {
  let first = true;
  const stream = new Duplex({
    read: () => raw.resume(),
    write: (chunk: Buffer, _encoding, cb) => {
      raw.write(first ? Buffer.concat([prefix, chunk]) : chunk, (err) => cb(err ?? null));
      first = false;
    },
    final: (cb) => raw.end(() => cb()),
    destroy: (err, cb) => {
      raw.destroy();
      cb(err);
    },
  });
  raw.on('data', (c: Buffer) => stream.push(c));
  raw.on('end', () => stream.push(null));
  raw.on('close', () => stream.destroy());
  return stream;
}

/** Connects, sends an SSLRequest and starts TLS; returns the inbox over TLS after the HandshakeResponse41 was sent. */
async function mysqlOverTls(
  t: TestContext,
  port: number,
  opts: { oneWrite: boolean; user?: string; cert?: string; key?: string },
): Promise<{ inbox: Inbox; socket: TLSSocket }> {
  const raw = await rawConnect(t, port);
  const inbox = new Inbox(raw);
  const hello = decodeHandshakeV10((await packet(inbox)).payload);
  assert.ok(hello.capabilities & CLIENT_SSL, 'CLIENT_SSL offered');
  inbox.detach();
  const sslRequest = writePacket(encodeSslRequest({ capabilities: CAPS, maxPacketSize: 1 << 24, charset: 45 }), 1);
  let stream: Duplex = raw;
  if (opts.oneWrite) stream = withPrefix(raw, sslRequest);
  else {
    // Apart, so that the server upgrades before the TLS handshake arrives.
    raw.write(sslRequest);
    await new Promise((r) => setTimeout(r, 50));
  }
  const socket = await startTls(stream, opts);
  inbox.attach(socket);
  socket.write(writePacket(handshakeResponse(opts.user ?? 'root'), 2));
  return { inbox, socket };
}

test('MySQL: CLIENT_SSL offered; an SSLRequest upgrades, also with the TLS handshake in the same write; sequence ids go on', async (t) => {
  const port = await startMysql(t, 'prefer');
  for (const oneWrite of [false, true]) {
    const { inbox, socket } = await mysqlOverTls(t, port, { oneWrite });
    const ok = await packet(inbox);
    assert.deepEqual([ok.payload[0], ok.seq], [0x00, 3], `OK after the response over TLS (oneWrite ${oneWrite})`);
    assert.match(socket.getCipher().version, /^TLSv1\.[23]$/);
    socket.write(writePacket(encodeSimpleCommand(COM_PING), 0));
    assert.equal((await packet(inbox)).payload[0], 0x00);
  }
  // prefer: plaintext is accepted too.
  const raw = await rawConnect(t, port);
  const plain = new Inbox(raw);
  await packet(plain);
  raw.write(writePacket(handshakeResponse('root'), 1));
  assert.equal((await packet(plain)).payload[0], 0x00);
});

test('MySQL require: a plaintext HandshakeResponse41 is ERR 3159; a broken TLS handshake closes only its connection', async (t) => {
  const port = await startMysql(t, 'require');
  const raw = await rawConnect(t, port);
  const plain = new Inbox(raw);
  await packet(plain);
  raw.write(writePacket(handshakeResponse('root'), 1));
  const err = await packet(plain);
  assert.equal(err.seq, 2);
  assert.deepEqual(decodeErr(err.payload), {
    errno: 3159,
    sqlState: 'HY000',
    message: 'Connections using insecure transport are prohibited while --require_secure_transport=ON.',
  });
  await plain.untilClosed();

  const broken = await rawConnect(t, port);
  const brokenInbox = new Inbox(broken);
  await packet(brokenInbox);
  broken.write(Buffer.concat([writePacket(encodeSslRequest({ capabilities: CAPS, maxPacketSize: 1 << 24, charset: 45 }), 1), Buffer.from('this is no TLS record\r\n')]));
  await brokenInbox.untilClosed();

  const { inbox } = await mysqlOverTls(t, port, { oneWrite: false });
  assert.equal((await packet(inbox)).payload[0], 0x00);
});

test('shutdown closes connections over TLS, and one in its TLS handshake, without waiting for its timeout', async (t) => {
  const server = new MysqlServer({ logger: silentLogger(), tls: tlsOptions('require'), shutdownTimeout: 30_000 }, { sql });
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  const port = server.boundAddress()!.port;
  const inboxes: Inbox[] = [];
  for (const oneWrite of [false, true]) {
    const { inbox } = await mysqlOverTls(t, port, { oneWrite });
    assert.equal((await packet(inbox)).payload[0], 0x00);
    inboxes.push(inbox);
  }
  const stalled = await rawConnect(t, port);
  inboxes.push(new Inbox(stalled));
  await packet(inboxes.at(-1)!);
  stalled.write(writePacket(encodeSslRequest({ capabilities: CAPS, maxPacketSize: 1 << 24, charset: 45 }), 1));
  await new Promise((r) => setTimeout(r, 50));

  const pg = new PostgresServer({ logger: silentLogger(), tls: tlsOptions('require'), shutdownTimeout: 30_000 }, { sql });
  await pg.start('127.0.0.1:0');
  t.after(() => pg.shutdown());
  const { inbox } = await pgOverTls(t, pg.boundAddress()!.port);
  assert.equal((await untilReadyOrError(inbox)).at(-1)!.type, 'Z');

  const started = Date.now();
  await Promise.all([server.shutdown(), pg.shutdown()]);
  assert.ok(Date.now() - started < 10_000, `shutdown took ${Date.now() - started} ms`);
  for (const i of inboxes) await i.untilClosed();
  const goodbye = await message(inbox);
  assert.equal(errorFields(goodbye.body)['C'], '57P01');
  await inbox.untilClosed();
});

test('MySQL verify-full: the client certificate must be signed by the CA and name the user', async (t) => {
  const port = await startMysql(t, 'verify-full');
  const good = await mysqlOverTls(t, port, { oneWrite: false, user: 'tsdb', cert: certs.clientCert, key: certs.clientKey });
  assert.equal((await packet(good.inbox)).payload[0], 0x00);
  const refusals: Array<[{ user: string; cert?: string; key?: string }, RegExp]> = [
    [{ user: 'tsdb' }, /^Access denied for user 'tsdb': a client certificate is required$/],
    [{ user: 'tsdb', cert: certs.rogueCert, key: certs.rogueKey }, /^Access denied for user 'tsdb': the client certificate is not valid: /],
    [{ user: 'bob', cert: certs.clientCert, key: certs.clientKey }, /^Access denied for user 'bob': the client certificate's CN "tsdb" is not the user name "bob"$/],
  ];
  for (const [opts, message] of refusals) {
    const { inbox } = await mysqlOverTls(t, port, { oneWrite: false, ...opts });
    const err = decodeErr((await packet(inbox)).payload);
    assert.equal(err.errno, 1045);
    assert.match(err.message, message);
    await inbox.untilClosed();
  }
});

// ---------------------------------------------------------------------------------------------
// PostgreSQL

function startupMessage(params: Record<string, string>): Buffer {
  const body = Buffer.concat([...Object.entries(params).map(([k, v]) => Buffer.from(`${k}\0${v}\0`)), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

function negotiation(code: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeInt32BE(8, 0);
  b.writeInt32BE(code, 4);
  return b;
}

const SSL_REQUEST = negotiation(80877103);
const GSSENC_REQUEST = negotiation(80877104);

/** The next backend message: type and body. */
async function message(inbox: Inbox): Promise<{ type: string; body: Buffer }> {
  const head = await inbox.take(5);
  return { type: String.fromCharCode(head[0]!), body: await inbox.take(head.readInt32BE(1) - 4) };
}

/** Messages up to ReadyForQuery or an ErrorResponse, inclusive. */
async function untilReadyOrError(inbox: Inbox): Promise<Array<{ type: string; body: Buffer }>> {
  const out = [];
  for (;;) {
    const m = await message(inbox);
    out.push(m);
    if (m.type === 'Z' || m.type === 'E') return out;
  }
}

const errorFields = (body: Buffer) => Object.fromEntries(body.toString().split('\0').filter((f) => f !== '').map((f) => [f[0], f.slice(1)]));

async function pgOverTls(t: TestContext, port: number, opts: { user?: string; cert?: string; key?: string } = {}): Promise<{ inbox: Inbox; socket: TLSSocket }> {
  const raw = await rawConnect(t, port);
  const inbox = new Inbox(raw);
  raw.write(SSL_REQUEST);
  assert.equal((await inbox.take(1)).toString(), 'S');
  inbox.detach();
  const socket = await startTls(raw, opts);
  inbox.attach(socket);
  socket.write(startupMessage({ user: opts.user ?? 'tsdb', database: 'public' }));
  return { inbox, socket };
}

test('PostgreSQL: SSLRequest is answered S and the startup goes on over TLS; GSSENCRequest is answered N', async (t) => {
  const port = await startPostgres(t, 'require');
  const { inbox, socket } = await pgOverTls(t, port);
  assert.deepEqual((await untilReadyOrError(inbox)).map((m) => m.type).at(-1), 'Z');
  assert.match(socket.getCipher().version, /^TLSv1\.[23]$/);
  socket.write(Buffer.concat([Buffer.from('Q'), Buffer.from([0, 0, 0, 13]), Buffer.from('SELECT 1\0')]));
  assert.deepEqual((await untilReadyOrError(inbox)).map((m) => m.type), ['T', 'D', 'C', 'Z']);

  // libpq tries GSSAPI encryption first: 'N', then its SSLRequest.
  const raw = await rawConnect(t, port);
  const gss = new Inbox(raw);
  raw.write(GSSENC_REQUEST);
  assert.equal((await gss.take(1)).toString(), 'N');
  raw.write(SSL_REQUEST);
  assert.equal((await gss.take(1)).toString(), 'S');
});

test('PostgreSQL require: plaintext startup is FATAL 28000 No encryption; data after the SSLRequest is 08P01; a broken handshake closes only its connection', async (t) => {
  const port = await startPostgres(t, 'require');
  const raw = await rawConnect(t, port);
  const plain = new Inbox(raw);
  raw.write(startupMessage({ user: 'tsdb', database: 'public' }));
  const err = await message(plain);
  assert.equal(err.type, 'E');
  assert.deepEqual([errorFields(err.body)['S'], errorFields(err.body)['C'], errorFields(err.body)['M']], ['FATAL', '28000', 'No encryption']);
  await plain.untilClosed();

  const eager = await rawConnect(t, port);
  const eagerInbox = new Inbox(eager);
  eager.write(Buffer.concat([SSL_REQUEST, startupMessage({ user: 'tsdb' })]));
  const violation = await message(eagerInbox);
  assert.deepEqual([errorFields(violation.body)['C'], errorFields(violation.body)['M']], ['08P01', 'received unencrypted data after SSL request']);
  await eagerInbox.untilClosed();

  const broken = await rawConnect(t, port);
  const brokenInbox = new Inbox(broken);
  broken.write(SSL_REQUEST);
  assert.equal((await brokenInbox.take(1)).toString(), 'S');
  broken.write('this is no TLS record\r\n');
  await brokenInbox.untilClosed();

  const { inbox } = await pgOverTls(t, port);
  assert.equal((await untilReadyOrError(inbox)).at(-1)!.type, 'Z');
});

test('PostgreSQL prefer accepts plaintext; disable answers N', async (t) => {
  const port = await startPostgres(t, 'prefer');
  const raw = await rawConnect(t, port);
  const plain = new Inbox(raw);
  raw.write(startupMessage({ user: 'tsdb', database: 'public' }));
  assert.equal((await untilReadyOrError(plain)).at(-1)!.type, 'Z');

  const off = new PostgresServer({ logger: silentLogger(), tls: tlsOptions('disable') }, { sql });
  await off.start('127.0.0.1:0');
  t.after(() => off.shutdown());
  const r = await rawConnect(t, off.boundAddress()!.port);
  const inbox = new Inbox(r);
  r.write(SSL_REQUEST);
  assert.equal((await inbox.take(1)).toString(), 'N');
});

test('PostgreSQL verify-ca and verify-full: client certificates are checked against the CA (and the user name)', async (t) => {
  const ca = await startPostgres(t, 'verify-ca');
  const ok = await pgOverTls(t, ca, { user: 'anyone', cert: certs.clientCert, key: certs.clientKey });
  { const last = (await untilReadyOrError(ok.inbox)).at(-1)!; assert.equal(last.type, "Z", last.body.toString()); }
  for (const opts of [{}, { cert: certs.rogueCert, key: certs.rogueKey }]) {
    const { inbox } = await pgOverTls(t, ca, opts);
    const err = (await untilReadyOrError(inbox)).at(-1)!;
    assert.equal(err.type, 'E');
    assert.equal(errorFields(err.body)['C'], '28000');
    assert.match(errorFields(err.body)['M']!, /^certificate authentication failed for user "tsdb": (a client certificate is required|the client certificate is not valid: .+)$/);
    await inbox.untilClosed();
  }

  const full = await startPostgres(t, 'verify-full');
  const same = await pgOverTls(t, full, { user: 'tsdb', cert: certs.clientCert, key: certs.clientKey });
  assert.equal((await untilReadyOrError(same.inbox)).at(-1)!.type, 'Z');
  const other = await pgOverTls(t, full, { user: 'bob', cert: certs.clientCert, key: certs.clientKey });
  const err = (await untilReadyOrError(other.inbox)).at(-1)!;
  assert.equal(errorFields(err.body)['M'], 'certificate authentication failed for user "bob": the client certificate\'s CN "tsdb" is not the user name "bob"');
});
