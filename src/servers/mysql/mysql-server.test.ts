/**
 * The MySQL connection state machine over a real socket, with a fake SqlHandler: handshake and
 * authentication (incl. AuthSwitchRequest), multi-statement queries, prepared statements with
 * parameters substituted as literals, and malformed or oversized packets closing only their own
 * connection. Plus the placeholder scanner and the intercepted statements.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import { affected, records } from '../../query/output.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import {
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_MULTI_RESULTS,
  CLIENT_MULTI_STATEMENTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  decodeAuthSwitchRequest,
  decodeHandshakeV10,
  encodeHandshakeResponse41,
  nativePasswordHashStage2,
  nativePasswordToken,
  SERVER_MORE_RESULTS_EXISTS,
} from './handshake.js';
import {
  COM_PING,
  COM_PROCESS_KILL,
  COM_QUERY,
  COM_STMT_PREPARE,
  decodeErr,
  decodeOk,
  decodePrepareOk,
  encodeSimpleCommand,
  encodeStmtExecute,
  MysqlType,
} from './messages.js';
import { placeholderOffsets, substitute } from './mysql-connection.js';
import { intercept } from './mysql-intercept.js';
import { MysqlServer } from './mysql-server.js';
import { PacketReader, writePacket } from './packet.js';
import mysql from 'mysql2/promise';
import { parameterMark } from '../../sql/parameter-marks.js';

/** A result of many chunks of row packets (row-encoder.ts), sequence ids wrapping many times. */
const BIG_COLUMNS = [
  { name: 'host', data_type: 'String' },
  { name: 'ts', data_type: 'TimestampMillisecond' },
  { name: 'v', data_type: 'Float64' },
  { name: 'n', data_type: 'Int64' },
];
const BIG_ROWS = Array.from({ length: 30_000 }, (_, i) => [`host_${i % 97}é`, 1451606400000 + i * 10_001, i % 5 === 0 ? null : i / 4, BigInt(i) * 1_000_000_007n]);

const seen: string[] = [];
const cancelled: Array<[string, number]> = [];
const sql: SqlHandler = {
  cancelConnection(protocol, id) {
    cancelled.push([protocol, id]);
    return 1;
  },
  async executeSql(text) {
    seen.push(text);
    if (text.startsWith('SELECT big')) return [records(BIG_COLUMNS, BIG_ROWS)];
    // Binary rows cannot hold a NaN in an Int64 column: found after the first chunks were sent.
    if (text.startsWith('SELECT cut')) return [records(BIG_COLUMNS, [...BIG_ROWS, ['h', 0, 0, Number.NaN]])];
    if (text.startsWith('SELECT')) return [records([{ name: 'x', data_type: 'Int64' }], [[1n]])];
    if (text.startsWith('INSERT')) return [affected(2)];
    throw new TsdbError(StatusCode.TableNotFound, 'Table not found: t');
  },
  databaseExists: async (db) => db === 'public',
  tables: async () => [],
};

async function startServer(t: TestContext, opts: { auth?: AuthHandler; maxPayloadSize?: number; loginTimeoutMs?: number } = {}): Promise<number> {
  const server = new MysqlServer(
    {
      logger: silentLogger(),
      serverVersion: '8.4.2-tsdb-test',
      ...(opts.maxPayloadSize !== undefined && { maxPayloadSize: opts.maxPayloadSize }),
      ...(opts.loginTimeoutMs !== undefined && { loginTimeoutMs: opts.loginTimeoutMs }),
    },
    { sql, ...(opts.auth && { auth: opts.auth }) },
  );
  await server.start('127.0.0.1:0');
  t.after(() => server.shutdown());
  return server.boundAddress()!.port;
}

const CAPS =
  CLIENT_PROTOCOL_41 |
  CLIENT_SECURE_CONNECTION |
  CLIENT_PLUGIN_AUTH |
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
  CLIENT_MULTI_STATEMENTS |
  CLIENT_MULTI_RESULTS |
  CLIENT_DEPRECATE_EOF |
  CLIENT_CONNECT_WITH_DB;

/** A raw client: collects payloads. */
class Client {
  private readonly reader = new PacketReader();
  readonly payloads: Buffer[] = [];
  closed = false;
  private waiters: Array<() => void> = [];
  constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.reader.push(c, (p) => this.payloads.push(p));
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
  async next(): Promise<Buffer> {
    while (this.payloads.length === 0) {
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.payloads.shift()!;
  }
  async untilClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }
  send(payload: Buffer, seq = 0): void {
    this.socket.write(writePacket(payload, seq));
  }
}

async function open(t: TestContext, port: number): Promise<{ c: Client; scramble: Buffer }> {
  const socket = connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  const c = new Client(socket);
  const hello = decodeHandshakeV10(await c.next());
  return { c, scramble: hello.scramble };
}

function response(user: string, token: Buffer, plugin = 'mysql_native_password', database?: string): Buffer {
  return encodeHandshakeResponse41({
    capabilities: CAPS,
    maxPacketSize: 1 << 24,
    charset: 45,
    user,
    authResponse: token,
    database,
    authPluginName: plugin,
    connectAttributes: new Map(),
  });
}

async function login(t: TestContext, port: number): Promise<Client> {
  const { c } = await open(t, port);
  c.send(response('root', Buffer.alloc(0)), 1);
  assert.equal((await c.next())[0], 0x00);
  return c;
}

const auth: AuthHandler = {
  authenticate: async () => ({ username: 'u', permission: 'read_write' }),
  userEntry: (u) =>
    u === 'u'
      ? { username: 'u', permission: 'read_write', verifier: { kind: 'mysql_native_password', hashStage2: nativePasswordHashStage2('PASS') } }
      : u === 'p'
        ? { username: 'p', permission: 'read_write', verifier: { kind: 'pbkdf2_sha256', iterations: 1, salt: Buffer.alloc(1), hash: Buffer.alloc(32) } }
        : undefined,
  verifierKinds: () => new Set(['mysql_native_password']),
};

test('handshake: native password accepted, wrong one and uncheckable verifiers refused with 1045', async (t) => {
  const port = await startServer(t, { auth });
  const a = await open(t, port);
  a.c.send(response('u', nativePasswordToken('PASS', a.scramble), 'mysql_native_password', 'public'), 1);
  assert.equal(decodeOk(await a.c.next()).affectedRows, 0);

  for (const [user, password] of [['u', 'bad'], ['p', 'PASS'], ['nobody', 'PASS']] as const) {
    const b = await open(t, port);
    b.c.send(response(user, nativePasswordToken(password, b.scramble)), 1);
    const err = decodeErr(await b.c.next());
    assert.deepEqual([err.errno, err.sqlState, err.message], [1045, '28000', `Access denied for user '${user}'`]);
    await b.c.untilClosed();
  }
});

test('handshake: a caching_sha2_password client gets an AuthSwitchRequest', async (t) => {
  const port = await startServer(t, { auth });
  const { c, scramble } = await open(t, port);
  c.send(response('u', Buffer.alloc(32, 1), 'caching_sha2_password'), 1);
  const sw = decodeAuthSwitchRequest(await c.next());
  assert.equal(sw.pluginName, 'mysql_native_password');
  assert.deepEqual(sw.pluginData.subarray(0, 20), scramble);
  c.send(nativePasswordToken('PASS', scramble), 3);
  assert.equal((await c.next())[0], 0x00);
});

test('handshake: an unknown database is ER_BAD_DB_ERROR', async (t) => {
  const port = await startServer(t);
  const { c } = await open(t, port);
  c.send(response('root', Buffer.alloc(0), 'mysql_native_password', 'nope'), 1);
  const err = decodeErr(await c.next());
  assert.deepEqual([err.errno, err.message], [1049, "Unknown database 'nope'"]);
});

test('COM_QUERY: several statements, SERVER_MORE_RESULTS_EXISTS between them, the first error ends it', async (t) => {
  const port = await startServer(t);
  const c = await login(t, port);
  c.send(encodeSimpleCommand(COM_QUERY, "INSERT INTO t VALUES (1); SET NAMES utf8; SELECT 1; DROP TABLE t; SELECT 2"));
  const insert = decodeOk(await c.next());
  assert.equal(insert.affectedRows, 2);
  assert.ok(insert.statusFlags & SERVER_MORE_RESULTS_EXISTS);
  assert.ok(decodeOk(await c.next()).statusFlags & SERVER_MORE_RESULTS_EXISTS);
  assert.equal((await c.next())[0], 1); // column count
  await c.next(); // definition
  assert.equal((await c.next()).toString('latin1'), '\x011'); // row
  const end = decodeOk(await c.next());
  assert.ok(end.statusFlags & SERVER_MORE_RESULTS_EXISTS);
  const err = decodeErr(await c.next());
  assert.deepEqual([err.errno, err.sqlState, err.message], [1146, '42S02', '(TableNotFound): Table not found: t']);
  c.send(encodeSimpleCommand(COM_PING));
  assert.equal((await c.next())[0], 0x00); // SELECT 2 never ran
  assert.equal(seen.includes('SELECT 2'), false);
});

test('prepared statements: placeholders substituted as literals, binary rows', async (t) => {
  const port = await startServer(t);
  const c = await login(t, port);
  c.send(encodeSimpleCommand(COM_STMT_PREPARE, "SELECT * FROM t WHERE a = ? AND b = '?' AND c = ?"));
  const ok = decodePrepareOk(await c.next());
  assert.equal(ok.paramCount, 2);
  await c.next();
  await c.next(); // two parameter definitions (no EOF with CLIENT_DEPRECATE_EOF)
  c.send(
    encodeStmtExecute(ok.statementId, [
      { type: { type: MysqlType.LONGLONG, unsigned: false }, value: 5n },
      { type: { type: MysqlType.VAR_STRING, unsigned: false }, value: "it's" },
    ]),
  );
  assert.equal((await c.next())[0], 1);
  await c.next();
  const row = await c.next();
  assert.equal(row[0], 0x00); // binary row header
  assert.equal(row.readBigInt64LE(2), 1n);
  assert.equal(seen.at(-1), `SELECT * FROM t WHERE a = ${parameterMark(1)}5 AND b = '?' AND c = ${parameterMark(2)}'it''s'`);
  await c.next();
  c.send(encodeStmtExecute(999, []));
  assert.equal(decodeErr(await c.next()).errno, 1243);
});

test('a malformed packet closes only its connection; an oversized one is refused', async (t) => {
  const port = await startServer(t, { maxPayloadSize: 1024 });
  const good = await login(t, port);
  const bad = await login(t, port);
  bad.send(Buffer.from([0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0]).subarray(0, 3)); // truncated COM_STMT_EXECUTE
  assert.equal(decodeErr(await bad.next()).errno, 1047);
  await bad.untilClosed();
  const big = await login(t, port);
  big.send(encodeSimpleCommand(COM_QUERY, 'SELECT ' + 'x'.repeat(2000)));
  const err = decodeErr(await big.next());
  assert.deepEqual([err.errno, err.sqlState], [1153, '08S01']);
  await big.untilClosed();
  good.send(encodeSimpleCommand(COM_PING));
  assert.equal((await good.next())[0], 0x00);
});

test('placeholderOffsets skips quotes and comments; substitute writes literals', () => {
  assert.deepEqual(placeholderOffsets("? '?' \"?\" `?` -- ?\n /* ? */ ?"), [0, 28]);
  assert.equal(
    substitute('a = ? AND b = ?', [4, 14], [
      { type: { type: MysqlType.NULL, unsigned: false }, value: null },
      { type: { type: MysqlType.DOUBLE, unsigned: false }, value: 1.5 },
    ]),
    'a = NULL AND b = 1.5',
  );
  // Bytes: from_hex unless they go to a known non-binary column; negative zero keeps its sign.
  const blob = { type: MysqlType.BLOB, unsigned: false };
  const bytes = Buffer.from([0x00, 0xff, 0x27]);
  assert.equal(substitute('? ? ?', [0, 2, 4], [{ type: blob, value: bytes }, { type: blob, value: Buffer.from('hé') }, { type: { type: MysqlType.DOUBLE, unsigned: false }, value: -0 }], ['Binary', 'String']),
    "from_hex('00ff27') 'hé' -0.0");
  assert.equal(substitute('?', [0], [{ type: blob, value: bytes }]), "from_hex('00ff27')");
  assert.equal(substitute('?', [0], [{ type: { type: MysqlType.VAR_STRING, unsigned: false }, value: Buffer.from("o'k") }]), "'o''k'");
  // In a query, the k-th `?` is marked as parameter $k (its result columns are named so).
  const int = { type: MysqlType.LONGLONG, unsigned: false };
  assert.equal(substitute('SELECT ? + ?', [7, 11], [{ type: int, value: 1n }, { type: int, value: 2n }]), `SELECT ${parameterMark(1)}1 + ${parameterMark(2)}2`);
});

test('intercept: SELECT @@…, SHOW VARIABLES, SET, transactions; INSERT never', () => {
  const s = { timezone: '+08:00', serverVersion: '8.4.2-tsdb-test' };
  assert.deepEqual(intercept('select @@version_comment limit 1', s), {
    kind: 'rows',
    columns: [{ name: '@@version_comment', data_type: 'String' }],
    rows: [['tsdb']],
  });
  assert.deepEqual(intercept('SELECT @@session.time_zone AS tz, @@wait_timeout', s), {
    kind: 'rows',
    columns: [{ name: 'tz', data_type: 'String' }, { name: '@@wait_timeout', data_type: 'String' }],
    rows: [['+08:00', '31536000']],
  });
  assert.deepEqual(intercept("SHOW VARIABLES LIKE 'sql_mode'", s)?.kind, 'rows');
  assert.deepEqual(intercept("SET time_zone = 'Asia/Shanghai'", s), { kind: 'set-timezone', value: 'Asia/Shanghai' });
  assert.deepEqual(intercept('SET @@session.time_zone = "UTC"', s), { kind: 'set-timezone', value: 'UTC' });
  for (const q of ['SET NAMES utf8mb4', 'SET autocommit=0', 'COMMIT', 'ROLLBACK', 'START TRANSACTION', 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', '/*!40101 SET NAMES utf8 */']) {
    assert.deepEqual(intercept(q, s), { kind: 'ok' }, q);
  }
  assert.deepEqual(intercept('SET foo = 1', s), { kind: 'ok', warning: 'Unsupported set variable FOO' });
  assert.equal(intercept("INSERT INTO t VALUES ('SELECT @@x')", s), undefined);
  assert.equal(intercept('SELECT 1', s), undefined);
});

test('a client that does not log in in time is dropped; a logged-in one stays', { timeout: 10_000 }, async (t) => {
  const port = await startServer(t, { loginTimeoutMs: 300 });
  const { c: silent } = await open(t, port);
  const good = await login(t, port);
  const started = Date.now();
  await silent.untilClosed();
  assert.ok(Date.now() - started < 5000, 'dropped at the deadline');
  await new Promise((r) => setTimeout(r, 400));
  good.send(encodeSimpleCommand(COM_PING));
  assert.equal((await good.next())[0], 0x00);
});

test('COM_PROCESS_KILL cancels the statement of a connection id and answers OK', async (t) => {
  const port = await startServer(t);
  const c = await login(t, port);
  const kill = Buffer.alloc(5);
  kill[0] = COM_PROCESS_KILL;
  kill.writeUInt32LE(42, 1);
  c.send(kill);
  assert.equal((await c.next())[0], 0x00);
  assert.deepEqual(cancelled, [['mysql', 42]]);
});

test('a large result (30,000 rows, many chunks) reaches mysql2 whole, in text and binary rows', async (t) => {
  const port = await startServer(t);
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: 'public', dateStrings: true, supportBigNumbers: true, bigNumberStrings: true });
  t.after(() => conn.end());
  const expected = BIG_ROWS.map(([host, ts, v, n]) => [host, new Date(ts as number).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, ''), v, String(n)]);
  for (const prepared of [false, true]) {
    const q = { sql: 'SELECT big', rowsAsArray: true };
    const [rows] = prepared ? await conn.execute(q) : await conn.query(q);
    assert.deepEqual(rows, expected, prepared ? 'binary rows' : 'text rows');
  }
  // The connection goes on after it.
  const [one] = await conn.query({ sql: 'SELECT 1', rowsAsArray: true });
  assert.deepEqual(one, [['1']]);
  // An error after rows were sent: an ERR packet in place of the next row, and the session goes on.
  await assert.rejects(conn.execute('SELECT cut'), (err: Error & { errno?: number }) => err.errno !== undefined);
  const [again] = await conn.query({ sql: 'SELECT 1', rowsAsArray: true });
  assert.deepEqual(again, [['1']]);
});
