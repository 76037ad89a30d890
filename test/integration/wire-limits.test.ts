/**
 * The MySQL and PostgreSQL servers of a real standalone under load and abuse: hundreds of
 * concurrent driver connections each get their own answers; a client that stops reading, one that
 * never finishes its handshake and one that sends garbage hold or lose only their own connection;
 * oversized packets are refused; `mysql.enable = false` / `postgres.enable = false` leave the
 * ports closed.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  CLIENT_DEPRECATE_EOF,
  CLIENT_MULTI_RESULTS,
  CLIENT_MULTI_STATEMENTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  encodeHandshakeResponse41,
} from '../../src/servers/mysql/handshake.js';
import { COM_QUERY, decodeErr, encodeSimpleCommand } from '../../src/servers/mysql/messages.js';
import { PacketReader, writePacket } from '../../src/servers/mysql/packet.js';
import { tempDir, tempFile } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

function hostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

async function startWithData(t: TestContext): Promise<Started> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const rows = Array.from({ length: 500 }, (_, i) => `('h${i}', ${1000 + i}, ${i})`).join(', ');
  const form = new URLSearchParams({ sql: `CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v BIGINT); INSERT INTO m VALUES ${rows}` });
  const res = await fetch(`${s.baseUrl}/v1/sql`, { method: 'POST', body: form });
  assert.equal(res.status, 200, await res.text());
  return s;
}

/** A raw MySQL client socket with a packet reader. */
class RawMysql {
  readonly socket: Socket;
  private readonly reader = new PacketReader();
  private readonly payloads: Buffer[] = [];
  private closed = false;
  private waiters: Array<() => void> = [];

  constructor(t: TestContext, addr: string) {
    const { host, port } = hostPort(addr);
    this.socket = connect(port, host);
    t.after(() => this.socket.destroy());
    this.socket.on('data', (c: Buffer) => {
      this.reader.push(c, (p) => this.payloads.push(p));
      for (const w of this.waiters.splice(0)) w();
    });
    this.socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    this.socket.on('error', () => {});
  }

  async next(): Promise<Buffer> {
    while (this.payloads.length === 0) {
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.payloads.shift()!;
  }

  /** Waits for the server to close the connection; fails after 10 s rather than hanging. */
  async untilClosed(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('the server did not close the connection within 10 s');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** Reads the greeting and logs in as any user (the server has no user provider). */
  async login(): Promise<void> {
    await this.next();
    const caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS | CLIENT_DEPRECATE_EOF;
    const resp = encodeHandshakeResponse41({
      capabilities: caps,
      maxPacketSize: 1 << 24,
      charset: 45,
      user: 'root',
      authResponse: Buffer.alloc(0),
      database: undefined,
      authPluginName: 'mysql_native_password',
      connectAttributes: new Map(),
    });
    this.socket.write(writePacket(resp, 1));
    assert.equal((await this.next())[0], 0x00, 'OK after the handshake');
  }
}

test('hundreds of concurrent MySQL and PostgreSQL connections each get their own answers', async (t) => {
  const s = await startWithData(t);
  const N = 200;
  const my = hostPort(s.mysql!);
  const pgAddr = hostPort(s.postgres!);
  const mysqlConns = await Promise.all(
    Array.from({ length: N }, () => mysql.createConnection({ host: my.host, port: my.port, user: 'root', database: 'public' })),
  );
  const pgConns = Array.from({ length: N }, () => new pg.Client({ host: pgAddr.host, port: pgAddr.port, user: 'tsdb', database: 'public' }));
  try {
    await Promise.all(pgConns.map((c) => c.connect()));
    // Every connection is open at once; each asks for a different row, twice, interleaved.
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all([
        ...mysqlConns.map(async (c, i) => {
          const [rows] = await c.query(`SELECT host, v FROM m WHERE host = 'h${i}'`);
          return rows as Array<{ host: string; v: number }>;
        }),
        ...pgConns.map(async (c, i) => (await c.query(`SELECT host, v FROM m WHERE host = 'h${N + i}'`)).rows as Array<{ host: string; v: string }>),
      ]);
      for (let i = 0; i < N; i++) assert.deepEqual(answers[i], [{ host: `h${i}`, v: i }]);
      for (let i = 0; i < N; i++) assert.deepEqual(answers[N + i], [{ host: `h${N + i}`, v: String(N + i) }]);
    }
  } finally {
    await Promise.all([...mysqlConns.map((c) => c.end()), ...pgConns.map((c) => c.end())]);
  }
});

test('a MySQL client that stops reading, one that never logs in and one that sends garbage hold only their own connections', async (t) => {
  const s = await startWithData(t);
  // Stalled: thousands of queries pipelined whose answers it never reads, so the server's writes
  // back up and it stops reading from that client.
  const stalled = new RawMysql(t, s.mysql!);
  await stalled.login();
  stalled.socket.pause();
  const q = writePacket(encodeSimpleCommand(COM_QUERY, 'SELECT host, ts, v FROM m'), 0);
  for (let i = 0; i < 2000; i++) stalled.socket.write(q);
  // Silent: connected, greeted, never answers the handshake.
  const silent = new RawMysql(t, s.mysql!);
  await silent.next();
  // Garbage: a packet header announcing a 3-byte COM_STMT_EXECUTE.
  const bad = new RawMysql(t, s.mysql!);
  await bad.login();
  bad.socket.write(writePacket(Buffer.from([0x17, 1, 0]), 0));
  assert.equal(decodeErr(await bad.next()).errno, 1047);
  await bad.untilClosed();
  // Oversized: 16 MiB chunks of one payload past max_allowed_packet (128 MiB); refused as soon as
  // the chunks received pass the limit.
  const big = new RawMysql(t, s.mysql!);
  await big.login();
  const chunk = Buffer.alloc(4 + 0xffffff, 0x20);
  chunk.writeUIntLE(0xffffff, 0, 3);
  for (let i = 0; i < 10; i++) {
    chunk[3] = i;
    big.socket.write(Buffer.from(chunk)); // a copy: the write keeps the buffer it is given

  }
  const err = decodeErr(await big.next());
  assert.deepEqual([err.errno, err.sqlState], [1153, '08S01'], err.message);
  await big.untilClosed();

  // Everyone else is served at once.
  const my = hostPort(s.mysql!);
  const c = await mysql.createConnection({ host: my.host, port: my.port, user: 'root' });
  try {
    const [rows] = await c.query("SELECT v FROM m WHERE host = 'h7'");
    assert.deepEqual(rows, [{ v: 7 }]);
  } finally {
    await c.end();
  }
  const res = await fetch(`${s.baseUrl}/v1/sql`, { method: 'POST', body: new URLSearchParams({ sql: 'SELECT count(*) AS c FROM m' }) });
  assert.equal(res.status, 200);
});

test('a PostgreSQL client that sends an oversized message is refused with 08P01; others go on', async (t) => {
  const s = await startWithData(t);
  const { host, port } = hostPort(s.postgres!);
  const client = new pg.Client({ host, port, user: 'tsdb', database: 'public' });
  await client.connect();
  client.on('error', () => {});
  // A Query message announcing 1 GiB: refused before it is buffered.
  const sock = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  const head = Buffer.alloc(5);
  head.write('Q', 0);
  head.writeInt32BE(1 << 30, 1);
  const got: Buffer[] = [];
  sock.on('data', (d: Buffer) => got.push(d));
  sock.write(head);
  await closed;
  const reply = Buffer.concat(got).toString('latin1');
  assert.match(reply, /08P01/);
  assert.match(reply, /too large/);

  const other = new pg.Client({ host, port, user: 'tsdb', database: 'public' });
  await other.connect();
  try {
    assert.deepEqual((await other.query("SELECT v FROM m WHERE host = 'h3'")).rows, [{ v: '3' }]);
  } finally {
    await other.end();
  }
});

/** A loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.on('connect', () => {
      sock.destroy();
      resolve('connected');
    });
    sock.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

test('mysql.enable = false and postgres.enable = false leave their ports closed', async (t) => {
  const [myPort, pgPort] = [await freePort(), await freePort()];
  const config = tempFile(
    t,
    'tsdb.toml',
    `[mysql]\nenable = false\naddr = "127.0.0.1:${myPort}"\n\n[postgres]\nenable = false\naddr = "127.0.0.1:${pgPort}"\n`,
  );
  // The addresses are given so that the test support does not add free ports of its own.
  const s = await startTsdb(t, [
    'standalone', 'start', '-c', config, '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t),
    '--mysql-addr', `127.0.0.1:${myPort}`, '--postgres-addr', `127.0.0.1:${pgPort}`,
  ]);
  assert.equal(s.mysql, undefined);
  assert.equal(s.postgres, undefined);
  assert.equal(await refused(myPort), 'ECONNREFUSED');
  assert.equal(await refused(pgPort), 'ECONNREFUSED');
  assert.ok(!s.proc.lines.some((l) => /MySQL|PostgreSQL/.test(l.msg)), 'neither server is mentioned as listening');
});
