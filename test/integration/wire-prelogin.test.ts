/**
 * Before a client has logged in, the MySQL and PostgreSQL servers of a real standalone read only
 * the small messages of a login: a header announcing more (16 MiB here, with only a little data
 * behind it) is refused at once with the protocol's error and the connection closed, without
 * waiting for, or buffering, the rest. Logged-in clients keep their large limits.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  CLIENT_CONNECT_ATTRS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  encodeHandshakeResponse41,
  MAX_LOGIN_PAYLOAD_SIZE,
} from '../../src/servers/mysql/handshake.js';
import { decodeErr } from '../../src/servers/mysql/messages.js';
import { PacketReader, writePacket } from '../../src/servers/mysql/packet.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const SIXTEEN_MIB = 16 * 1024 * 1024;
/** How soon the refusal and the close must come: far less than sending 16 MiB would take. */
const PROMPT_MS = 3000;

function hostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

/** A raw client socket that keeps what it receives and notes when the server closed it. */
class Raw {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  private closedAt: number | undefined;
  private waiters: Array<() => void> = [];

  constructor(t: TestContext, addr: string) {
    const { host, port } = hostPort(addr);
    this.socket = connect(port, host);
    t.after(() => this.socket.destroy());
    this.socket.on('data', (c: Buffer) => {
      this.received = Buffer.concat([this.received, c]);
      this.wake();
    });
    this.socket.on('close', () => {
      this.closedAt = Date.now();
      this.wake();
    });
    this.socket.on('error', () => {});
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get bytes(): Buffer {
    return this.received;
  }

  /** Waits until `ready()` holds; fails after `ms` rather than hanging. */
  async until(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** Waits for the server to close the connection; returns how long after `since` it did. */
  async closedAfter(since: number): Promise<number> {
    await this.until(() => this.closedAt !== undefined, 'the server to close the connection');
    return this.closedAt! - since;
  }
}

/** The MySQL payloads in `bytes`, with their sequence ids. */
function mysqlPayloads(bytes: Buffer): Array<{ payload: Buffer; seq: number }> {
  const out: Array<{ payload: Buffer; seq: number }> = [];
  new PacketReader().push(bytes, (payload, seq) => out.push({ payload, seq }));
  return out;
}

/** The typed PostgreSQL backend messages in `bytes` (whole ones only). */
function pgMessages(bytes: Buffer): Array<{ type: string; body: Buffer }> {
  const out: Array<{ type: string; body: Buffer }> = [];
  let off = 0;
  while (bytes.length - off >= 5) {
    const len = bytes.readInt32BE(off + 1);
    if (bytes.length - off < 1 + len) break;
    out.push({ type: String.fromCharCode(bytes[off]!), body: bytes.subarray(off + 5, off + 1 + len) });
    off += 1 + len;
  }
  return out;
}

/** The fields of an ErrorResponse body by their code letter (S, C, M, …). */
function errorFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let off = 0;
  while (off < body.length && body[off] !== 0) {
    const code = String.fromCharCode(body[off]!);
    const end = body.indexOf(0, off + 1);
    fields[code] = body.subarray(off + 1, end).toString('utf8');
    off = end + 1;
  }
  return fields;
}

function startupMessage(params: Record<string, string>): Buffer {
  const body = Buffer.concat([
    ...Object.entries(params).flatMap(([k, v]) => [Buffer.from(`${k}\0${v}\0`, 'utf8')]),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

test('oversized packets before login are refused at once on MySQL and PostgreSQL; logged-in clients keep their limits', async (t) => {
  const s = await startTsdb(t, [
    'standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t),
    '--user-provider', 'static_user_provider:cmd:tsdb=secret',
  ]);

  await t.test('MySQL: a header announcing 16 MiB instead of a handshake response', async (t) => {
    const c = new Raw(t, s.mysql!);
    await c.until(() => mysqlPayloads(c.bytes).length === 1, 'the greeting');
    const head = Buffer.alloc(4);
    head.writeUIntLE(SIXTEEN_MIB - 1, 0, 3);
    head[3] = 1;
    const sent = Date.now();
    c.socket.write(Buffer.concat([head, Buffer.alloc(1000, 0x41)]));
    await c.until(() => mysqlPayloads(c.bytes).length === 2, 'the error');
    const { payload, seq } = mysqlPayloads(c.bytes)[1]!;
    const err = decodeErr(payload);
    assert.deepEqual([err.errno, err.sqlState, seq], [1153, '08S01', 2], err.message);
    assert.match(err.message, new RegExp(`bigger than the ${MAX_LOGIN_PAYLOAD_SIZE} bytes a client may send before it has logged in`));
    const ms = await c.closedAfter(sent);
    assert.ok(ms < PROMPT_MS, `closed ${ms} ms after the header`);
  });

  await t.test('MySQL: a complete handshake response with 20 KiB of connection attributes', async (t) => {
    const c = new Raw(t, s.mysql!);
    await c.until(() => mysqlPayloads(c.bytes).length === 1, 'the greeting');
    const resp = encodeHandshakeResponse41({
      capabilities: CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS,
      maxPacketSize: 1 << 24,
      charset: 45,
      user: 'tsdb',
      authResponse: Buffer.alloc(0),
      database: undefined,
      authPluginName: 'mysql_native_password',
      connectAttributes: new Map([['padding', 'x'.repeat(20 * 1024)]]),
    });
    assert.ok(resp.length > MAX_LOGIN_PAYLOAD_SIZE);
    c.socket.write(writePacket(resp, 1));
    await c.until(() => mysqlPayloads(c.bytes).length === 2, 'the error');
    const err = decodeErr(mysqlPayloads(c.bytes)[1]!.payload);
    assert.deepEqual([err.errno, err.sqlState], [1153, '08S01'], err.message);
    await c.closedAfter(Date.now());
  });

  await t.test('PostgreSQL: a startup packet announcing 16 MiB', async (t) => {
    const c = new Raw(t, s.postgres!);
    const head = Buffer.alloc(8);
    head.writeInt32BE(SIXTEEN_MIB, 0);
    head.writeInt32BE(196608, 4);
    const sent = Date.now();
    c.socket.write(Buffer.concat([head, Buffer.alloc(1000, 0x41)]));
    await c.until(() => pgMessages(c.bytes).length === 1, 'the error');
    const msg = pgMessages(c.bytes)[0]!;
    assert.equal(msg.type, 'E');
    const f = errorFields(msg.body);
    assert.deepEqual([f['S'], f['C']], ['FATAL', '08P01'], f['M']);
    assert.match(f['M']!, /invalid length of startup packet/);
    const ms = await c.closedAfter(sent);
    assert.ok(ms < PROMPT_MS, `closed ${ms} ms after the header`);
  });

  await t.test('PostgreSQL: a SASL response announcing 16 MiB during authentication', async (t) => {
    const c = new Raw(t, s.postgres!);
    c.socket.write(startupMessage({ user: 'tsdb', database: 'public' }));
    // AuthenticationSASL: 'R' with code 10, listing SCRAM-SHA-256.
    await c.until(() => pgMessages(c.bytes).some((m) => m.type === 'R'), 'the authentication request');
    const auth = pgMessages(c.bytes).find((m) => m.type === 'R')!;
    assert.equal(auth.body.readInt32BE(0), 10, 'AuthenticationSASL');
    const before = pgMessages(c.bytes).length;
    const head = Buffer.alloc(5);
    head.write('p', 0);
    head.writeInt32BE(SIXTEEN_MIB, 1);
    const sent = Date.now();
    c.socket.write(Buffer.concat([head, Buffer.from('SCRAM-SHA-256\0'), Buffer.alloc(1000, 0x41)]));
    await c.until(() => pgMessages(c.bytes).length > before, 'the error');
    const msg = pgMessages(c.bytes)[before]!;
    assert.equal(msg.type, 'E');
    const f = errorFields(msg.body);
    assert.deepEqual([f['S'], f['C']], ['FATAL', '08P01'], f['M']);
    assert.match(f['M']!, /too large during authentication/);
    const ms = await c.closedAfter(sent);
    assert.ok(ms < PROMPT_MS, `closed ${ms} ms after the header`);
  });

  await t.test('real clients log in afterwards and still send large statements', async () => {
    const big = 'x'.repeat(200_000); // past both login limits, far within the logged-in ones
    const my = hostPort(s.mysql!);
    const mc = await mysql.createConnection({ host: my.host, port: my.port, user: 'tsdb', password: 'secret' });
    try {
      const [rows] = await mc.query(`SELECT length('${big}') AS n`);
      assert.deepEqual(rows, [{ n: big.length }]);
    } finally {
      await mc.end();
    }
    const p = hostPort(s.postgres!);
    const pc = new pg.Client({ host: p.host, port: p.port, user: 'tsdb', password: 'secret', database: 'public' });
    await pc.connect();
    try {
      assert.deepEqual((await pc.query(`SELECT length('${big}') AS n`)).rows, [{ n: String(big.length) }]);
    } finally {
      await pc.end();
    }
  });
});
