/**
 * The bound on connections whose clients have not logged in, on the MySQL and the PostgreSQL
 * server alike: past it a new connection gets the protocol's "too many connections" error and is
 * closed; a client that logs in frees its place; logged-in clients never count.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { silentLogger } from '../common/logging.js';
import type { SqlHandler } from './handlers.js';
import { CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, encodeHandshakeResponse41 } from './mysql/handshake.js';
import { decodeErr } from './mysql/messages.js';
import { MysqlServer } from './mysql/mysql-server.js';
import { PacketReader, writePacket } from './mysql/packet.js';
import { PostgresServer } from './postgres/postgres-server.js';

const sql: SqlHandler = {
  executeSql: async () => [],
  databaseExists: async (db) => db === 'public',
  tables: async () => [],
};

/** A raw client socket that keeps what it receives. */
class Raw {
  readonly socket: Socket;
  bytes = Buffer.alloc(0);
  closed = false;
  private waiters: Array<() => void> = [];

  constructor(t: TestContext, port: number) {
    this.socket = connect(port, '127.0.0.1');
    t.after(() => this.socket.destroy());
    this.socket.on('data', (c: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, c]);
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => {});
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `ready()` holds; fails after 5 s rather than hanging. */
  async until(ready: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; received ${this.bytes.toString('latin1')}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }
}

function mysqlPayloads(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  new PacketReader().push(bytes, (p) => out.push(p));
  return out;
}

/** The typed PostgreSQL messages in `bytes`, after `skip` leading untyped bytes (an SSL answer). */
function pgMessages(bytes: Buffer, skip = 0): Array<{ type: string; body: Buffer }> {
  const out: Array<{ type: string; body: Buffer }> = [];
  let off = skip;
  while (bytes.length - off >= 5) {
    const len = bytes.readInt32BE(off + 1);
    if (bytes.length - off < 1 + len) break;
    out.push({ type: String.fromCharCode(bytes[off]!), body: bytes.subarray(off + 5, off + 1 + len) });
    off += 1 + len;
  }
  return out;
}

function startup(params: Record<string, string>): Buffer {
  const body = Buffer.concat([...Object.entries(params).map(([k, v]) => Buffer.from(`${k}\0${v}\0`)), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

test('MySQL: past maxPendingLogins a new connection gets ERR 1040 and is closed; a login frees a place', async (t) => {
  const server = new MysqlServer({ logger: silentLogger(), serverVersion: '8.4.2-tsdb-test', maxPendingLogins: 2 }, { sql });
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  const port = server.boundAddress()!.port;
  const greeted = (c: Raw) => c.until(() => mysqlPayloads(c.bytes).length >= 1, 'the greeting');

  const [a, b] = [new Raw(t, port), new Raw(t, port)];
  await Promise.all([greeted(a), greeted(b)]);
  assert.equal(mysqlPayloads(a.bytes)[0]![0], 0x0a, 'HandshakeV10');

  const refused = new Raw(t, port);
  await refused.until(() => refused.closed, 'the refused connection to close');
  const err = decodeErr(mysqlPayloads(refused.bytes)[0]!);
  assert.deepEqual([err.errno, err.sqlState, err.message], [1040, '08004', 'Too many connections']);

  // `a` logs in: it no longer counts, and a new client is greeted.
  const resp = encodeHandshakeResponse41({
    capabilities: CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH,
    maxPacketSize: 1 << 24,
    charset: 45,
    user: 'root',
    authResponse: Buffer.alloc(0),
    database: undefined,
    authPluginName: 'mysql_native_password',
    connectAttributes: new Map(),
  });
  a.socket.write(writePacket(resp, 1));
  await a.until(() => mysqlPayloads(a.bytes).length >= 2, 'the OK after login');
  assert.equal(mysqlPayloads(a.bytes)[1]![0], 0x00);
  const next = new Raw(t, port);
  await greeted(next);
  assert.equal(mysqlPayloads(next.bytes)[0]![0], 0x0a);
  assert.equal(next.closed, false);
});

test('PostgreSQL: past maxPendingLogins a new connection gets FATAL 53300 and is closed; a login frees a place', async (t) => {
  const server = new PostgresServer({ logger: silentLogger(), serverVersion: '16.3-tsdb-test', maxPendingLogins: 1 }, { sql });
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  const port = server.boundAddress()!.port;

  // `a` is accepted (its SSLRequest is answered 'N') and has not logged in.
  const a = new Raw(t, port);
  a.socket.write(SSL_REQUEST);
  await a.until(() => a.bytes.length >= 1, "the answer to the SSLRequest");
  assert.equal(a.bytes.toString('latin1', 0, 1), 'N');

  const refused = new Raw(t, port);
  refused.socket.write(startup({ user: 'tsdb', database: 'public' }));
  await refused.until(() => refused.closed, 'the refused connection to close');
  const [e] = pgMessages(refused.bytes);
  assert.equal(e?.type, 'E');
  const text = e!.body.toString('utf8');
  assert.match(text, /SFATAL\0/);
  assert.match(text, /C53300\0/);
  assert.match(text, /Msorry, too many clients already\0/);

  // `a` logs in (no user provider): ReadyForQuery, and a new client is served.
  a.socket.write(startup({ user: 'tsdb', database: 'public' }));
  await a.until(() => pgMessages(a.bytes, 1).some((m) => m.type === 'Z'), 'ReadyForQuery');
  const next = new Raw(t, port);
  next.socket.write(startup({ user: 'tsdb', database: 'public' }));
  await next.until(() => pgMessages(next.bytes).some((m) => m.type === 'Z' || m.type === 'E'), 'the login');
  assert.ok(pgMessages(next.bytes).some((m) => m.type === 'Z'), 'logged in');
});
