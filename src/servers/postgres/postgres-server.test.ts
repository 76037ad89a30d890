/**
 * The connection state machine over a real socket, with a fake SqlHandler: startup, queries,
 * errors, the extended protocol refused until Sync, and a malformed message closing only its
 * own connection.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import { records, affected } from '../../query/output.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { PostgresServer } from './postgres-server.js';
import pg from 'pg';
import { parameterMark } from '../../sql/parameter-marks.js';

/** A result of many chunks of DataRows (data-rows.ts). */
const BIG_COLUMNS = [
  { name: 'host', data_type: 'String' },
  { name: 'ts', data_type: 'TimestampMillisecond' },
  { name: 'v', data_type: 'Float64' },
  { name: 'n', data_type: 'Int64' },
];
const BIG_ROWS = Array.from({ length: 30_000 }, (_, i) => [`host_${i % 97}é`, 1451606400000 + i * 10_001, i % 5 === 0 ? null : i / 3, BigInt(i) * 1_000_000_007n]);

const sql: SqlHandler = {
  async executeSql(text) {
    if (text === 'SELECT 1' || text === `SELECT ${parameterMark(1)}'1'`) return [records([{ name: 'x', data_type: 'Int64' }], [[1n]])];
    if (text === 'SELECT big') return [records(BIG_COLUMNS, BIG_ROWS)];
    if (text.startsWith('INSERT')) return [affected(2)];
    throw new TsdbError(StatusCode.TableNotFound, 'Table not found: t');
  },
  databaseExists: async (db) => db === 'public',
  tables: async () => [],
};

async function startServer(t: TestContext, auth?: AuthHandler, loginTimeoutMs?: number): Promise<number> {
  const server = new PostgresServer(
    { logger: silentLogger(), serverVersion: '16.3-tsdb-test', ...(loginTimeoutMs !== undefined && { loginTimeoutMs }) },
    { sql, ...(auth && { auth }) },
  );
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  return server.boundAddress()!.port;
}

function startup(params: Record<string, string>): Buffer {
  const body = Buffer.concat([...Object.entries(params).map(([k, v]) => Buffer.from(`${k}\0${v}\0`)), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

function typed(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const query = (q: string) => typed('Q', Buffer.from(q + '\0'));

interface Msg {
  readonly type: string;
  readonly body: Buffer;
}

/** A raw client: collects backend messages. */
class Client {
  private buf = Buffer.alloc(0);
  readonly messages: Msg[] = [];
  closed = false;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      while (this.buf.length >= 5) {
        const len = this.buf.readInt32BE(1);
        if (this.buf.length < len + 1) break;
        this.messages.push({ type: String.fromCharCode(this.buf[0]!), body: this.buf.subarray(5, len + 1) });
        this.buf = this.buf.subarray(len + 1);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until a message of `type` has arrived (or the socket closed); returns the messages so far and clears them. */
  async until(type: string): Promise<Msg[]> {
    while (!this.messages.some((m) => m.type === type) && !this.closed) await new Promise<void>((r) => this.waiters.push(r));
    return this.messages.splice(0);
  }

  async closedNow(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }
}

async function client(t: TestContext, port: number): Promise<Client> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  t.after(() => socket.destroy());
  return new Client(socket);
}

const field = (m: Msg, code: string) => {
  const parts = m.body.toString().split('\0');
  return parts.find((p) => p.startsWith(code))?.slice(1);
};

test('SSLRequest is answered N; startup sends the ParameterStatus values and ReadyForQuery', async (t) => {
  const port = await startServer(t);
  const c = await client(t, port);
  const ssl = Buffer.alloc(8);
  ssl.writeInt32BE(8, 0);
  ssl.writeInt32BE(80877103, 4);
  c.socket.write(ssl);
  await new Promise<void>((r) => c.socket.once('data', (d: Buffer) => (assert.equal(d.toString(), 'N'), r())));
  const c2 = await client(t, port);
  c2.socket.write(startup({ user: 'u', database: 'public', TimeZone: 'Asia/Tokyo', application_name: 'app' }));
  const msgs = await c2.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['R', 'S', 'S', 'S', 'S', 'S', 'S', 'S', 'S', 'K', 'Z']);
  const params = Object.fromEntries(msgs.filter((m) => m.type === 'S').map((m) => m.body.toString().split('\0').slice(0, 2)));
  assert.deepEqual(params, {
    server_version: '16.3-tsdb-test',
    server_encoding: 'UTF8',
    client_encoding: 'UTF8',
    DateStyle: 'ISO YMD',
    integer_datetimes: 'on',
    TimeZone: 'Asia/Tokyo',
    standard_conforming_strings: 'on',
    application_name: 'app',
  });
});

test('simple queries: rows, affected rows, empty query, errors with SQLSTATE; the extended protocol binds parameters, skips to Sync after an error', async (t) => {
  const port = await startServer(t);
  const c = await client(t, port);
  c.socket.write(startup({ user: 'u', database: 'public' }));
  await c.until('Z');
  c.socket.write(query('SELECT 1; INSERT INTO t VALUES (1)'));
  let msgs = await c.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['T', 'D', 'C', 'C', 'Z']);
  assert.equal(msgs[2]!.body.toString(), 'SELECT 1\0');
  assert.equal(msgs[3]!.body.toString(), 'OK 2\0');
  c.socket.write(query('  ;  '));
  msgs = await c.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['I', 'Z']);
  c.socket.write(query('SELECT * FROM t; SELECT 1'));
  msgs = await c.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['E', 'Z'], 'the error ends the query');
  assert.equal(field(msgs[0]!, 'C'), '42P01');
  assert.equal(field(msgs[0]!, 'S'), 'ERROR');
  assert.equal(field(msgs[0]!, 'M'), 'Table not found: t');

  // Extended protocol, as node-postgres sends it: Parse, Bind ($1 bound as a literal), Describe P, Execute, Sync.
  const parse = typed('P', Buffer.from('\0SELECT $1\0\0\0'));
  const param = Buffer.from('1');
  const bindBody = Buffer.alloc(2 + 1 + 1 + 2 + 2 + 4 + param.length + 2);
  let o = bindBody.write('\0\0', 0); // portal "", statement ""
  o = bindBody.writeInt16BE(0, o); // parameter formats: all text
  o = bindBody.writeInt16BE(1, o);
  o = bindBody.writeInt32BE(param.length, o);
  o += param.copy(bindBody, o);
  bindBody.writeInt16BE(0, o); // result formats: all text
  const execute = Buffer.alloc(5 + 4);
  execute.write('\0', 0);
  execute.writeInt32BE(0, 1);
  c.socket.write(Buffer.concat([parse, typed('B', bindBody.subarray(0, o + 2)), typed('D', Buffer.from('P\0')), typed('E', execute.subarray(0, 5)), typed('S')]));
  msgs = await c.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['1', '2', 'T', 'D', 'C', 'Z'], "SELECT $1 with '1' bound (text, type unspecified) runs as SELECT '1' (marked as $1's)");
  assert.equal(msgs[4]!.body.toString(), 'SELECT 1\0');
  // An error skips the rest of the batch until Sync; the connection goes on.
  c.socket.write(Buffer.concat([typed('B', Buffer.from('\0nosuch\0\0\0\0\0\0\0')), typed('E', execute.subarray(0, 5)), typed('S')]));
  msgs = await c.until('Z');
  assert.deepEqual(msgs.map((m) => m.type), ['E', 'Z']);
  assert.equal(field(msgs[0]!, 'C'), '26000');
  c.socket.write(query('SELECT 1'));
  assert.deepEqual((await c.until('Z')).map((m) => m.type), ['T', 'D', 'C', 'Z'], 'the connection goes on');
});

test('unknown database, bad TimeZone and wrong password are FATAL', async (t) => {
  const auth: AuthHandler = {
    authenticate: async (u, p) => {
      if (p !== 'pw') throw new TsdbError(StatusCode.UserPasswordMismatch, 'no');
      return { username: u, permission: 'read_write' };
    },
    userEntry: () => undefined,
    // A verifier SCRAM cannot use: the server asks for the cleartext password.
    verifierKinds: () => new Set(['pbkdf2_sha256'] as const),
  };
  const port = await startServer(t, auth);
  const cases: Array<[Record<string, string>, string | undefined, string, string]> = [
    [{ user: 'u', database: 'nosuch' }, 'pw', '3D000', 'Database not found: nosuch'],
    [{ user: 'u', database: 'x-public' }, 'pw', '3D000', 'Database not found: x-public'],
    [{ user: 'u', TimeZone: 'No/Where' }, undefined, '22023', 'Invalid TimeZone: No/Where'],
    [{ user: 'u' }, 'bad', '28P01', 'password authentication failed for user "u"'],
  ];
  for (const [params, password, code, message] of cases) {
    const c = await client(t, port);
    c.socket.write(startup(params));
    if (password !== undefined) {
      const r = await c.until('R');
      assert.equal(r[0]!.body.readInt32BE(0), 3, 'cleartext password requested');
      c.socket.write(typed('p', Buffer.from(password + '\0')));
    }
    const msgs = await c.until('E');
    const e = msgs.find((m) => m.type === 'E')!;
    assert.equal(field(e, 'S'), 'FATAL');
    assert.equal(field(e, 'C'), code);
    assert.equal(field(e, 'M'), message);
    await c.closedNow();
  }
  const ok = await client(t, port);
  ok.socket.write(startup({ user: 'u', database: 'tsdb-public' }));
  await ok.until('R');
  ok.socket.write(typed('p', Buffer.from('pw\0')));
  assert.deepEqual((await ok.until('Z')).map((m) => m.type).slice(0, 1), ['R']);
});

test('plain and pg_scram_sha256 users authenticate with SCRAM-SHA-256; a wrong proof is FATAL 28P01', async (t) => {
  const auth: AuthHandler = {
    authenticate: async () => {
      throw new TsdbError(StatusCode.UserPasswordMismatch, 'SCRAM expected, not a cleartext password');
    },
    userEntry: (u) => (u === 'u' ? { username: 'u', permission: 'read_only', verifier: { kind: 'plain', password: 'pencil' } } : undefined),
    verifierKinds: () => new Set(['plain'] as const),
  };
  const port = await startServer(t, auth);
  // The client side of RFC 5802, computed here independently of scram.ts.
  const h = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const login = async (password: string) => {
    const c = await client(t, port);
    c.socket.write(startup({ user: 'u' }));
    const [sasl] = await c.until('R');
    assert.equal(sasl!.body.readInt32BE(0), 10, 'AuthenticationSASL');
    assert.match(sasl!.body.subarray(4).toString(), /^SCRAM-SHA-256\0\0$/);
    const clientFirstBare = 'n=,r=clientnonce123';
    const first = Buffer.from(`n,,${clientFirstBare}`);
    const mech = Buffer.from('SCRAM-SHA-256\0');
    const len = Buffer.alloc(4);
    len.writeInt32BE(first.length);
    c.socket.write(typed('p', Buffer.concat([mech, len, first])));
    const [cont] = await c.until('R');
    assert.equal(cont!.body.readInt32BE(0), 11, 'AuthenticationSASLContinue');
    const serverFirst = cont!.body.subarray(4).toString();
    const attrs = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
    assert.ok(attrs['r']!.startsWith('clientnonce123'));
    const salted = pbkdf2Sync(password, Buffer.from(attrs['s']!, 'base64'), Number(attrs['i']), 32, 'sha256');
    const clientKey = h(salted, 'Client Key');
    const withoutProof = `c=biws,r=${attrs['r']}`;
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = h(createHash('sha256').update(clientKey).digest(), authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString('base64');
    c.socket.write(typed('p', Buffer.from(`${withoutProof},p=${proof}`)));
    return { c, salted, authMessage };
  };
  const good = await login('pencil');
  const [final, ok, ...rest] = await good.c.until('Z');
  assert.equal(final!.body.readInt32BE(0), 12, 'AuthenticationSASLFinal');
  const serverSignature = h(h(good.salted, 'Server Key'), good.authMessage).toString('base64');
  assert.equal(final!.body.subarray(4).toString(), `v=${serverSignature}`);
  assert.equal(ok!.type, 'R');
  assert.equal(ok!.body.readInt32BE(0), 0, 'AuthenticationOk');
  assert.equal(rest.at(-1)?.type, 'Z', 'then ready for queries');
  const bad = await login('wrong');
  const msgs = await bad.c.until('E');
  const e = msgs.find((m) => m.type === 'E')!;
  assert.equal(field(e, 'C'), '28P01');
  assert.equal(field(e, 'M'), 'password authentication failed for user "u"');
});

test('a malformed message closes only its connection with FATAL 08P01; a client that does not read blocks no one', async (t) => {
  const port = await startServer(t);
  const stalled = await client(t, port);
  stalled.socket.write(startup({ user: 'u' }));
  await stalled.until('Z');
  stalled.socket.pause();
  for (let i = 0; i < 2000; i++) stalled.socket.write(query('SELECT 1'));

  const bad = await client(t, port);
  bad.socket.write(startup({ user: 'u' }));
  await bad.until('Z');
  bad.socket.write(Buffer.from([0x51, 0, 0, 0, 2])); // 'Q' with length 2
  const msgs = await bad.until('E');
  const e = msgs.find((m) => m.type === 'E')!;
  assert.equal(field(e, 'S'), 'FATAL');
  assert.equal(field(e, 'C'), '08P01');
  await bad.closedNow();

  const good = await client(t, port);
  good.socket.write(startup({ user: 'u' }));
  await good.until('Z');
  good.socket.write(query('SELECT 1'));
  assert.deepEqual((await good.until('Z')).map((m) => m.type), ['T', 'D', 'C', 'Z']);
});

test('a client that does not finish its startup in time is dropped; a logged-in one stays', { timeout: 10_000 }, async (t) => {
  const port = await startServer(t, undefined, 300);
  const silent = await client(t, port);
  const halfway = await client(t, port);
  halfway.socket.write(startup({ user: 'u' }).subarray(0, 6));
  const good = await client(t, port);
  good.socket.write(startup({ user: 'u' }));
  await good.until('Z');
  const started = Date.now();
  await Promise.all([silent.closedNow(), halfway.closedNow()]);
  assert.ok(Date.now() - started < 5000, 'dropped at the deadline');
  await new Promise((r) => setTimeout(r, 400));
  good.socket.write(query('SELECT 1'));
  assert.deepEqual((await good.until('Z')).map((m) => m.type), ['T', 'D', 'C', 'Z']);
});

test('a large result (30,000 rows, many chunks) reaches node-postgres whole, then the session goes on', async (t) => {
  const port = await startServer(t);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'u', database: 'public' });
  // The server's shutdown (t.after) tells a connected client goodbye with an error.
  client.on('error', () => {});
  await client.connect();
  const raw = { getTypeParser: () => (v: string) => v };
  const res = await client.query({ text: 'SELECT big', rowMode: 'array', types: raw });
  // PostgreSQL drops a fraction's trailing zeros.
  const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace(/\.?0*Z$/, '');
  // float8out: V8's shortest digits for these values (all between 1e-4 and 1e15).
  assert.deepEqual(res.rows, BIG_ROWS.map(([host, ts, v, n]) => [host, iso(ts as number), v === null ? null : String(v), String(n)]));
  assert.deepEqual((await client.query({ text: 'SELECT 1', rowMode: 'array' })).rows, [['1']]);
  await client.end();
});
