import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { tableFromArrays } from 'apache-arrow';
import * as grpc from '@grpc/grpc-js';
import { Bool, compressionRegistry, CompressionType, Dictionary, MessageHeader, Float64, Int32, Int64, Table, TimestampMillisecond, TimestampSecond, Utf8, vectorFromArray } from 'apache-arrow';
import { registerTestLz4Encoder } from '../../../test/support/lz4-encode.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { createUserProvider } from '../../frontend/auth/user-provider.js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import type { TableSummary } from '../../frontend/table-summary.js';
import { affected, records, type Output } from '../../query/output.js';
import type { IngestHandler, SqlContext, SqlHandler } from '../handlers.js';
import { FlightClient, putMessages, sqlTicket, type PutAck } from '../../../test/support/flight-client.js';
import { addFlightService, putAck, requestIdOf } from './flight-service.js';
import { encodeGreptimeRequest } from './greptime-messages.js';
import { messageHeaderType } from './arrow-ipc.js';

const CPU: TableSummary = {
  name: 'cpu',
  engine: 'mito',
  physical: false,
  columns: [
    { name: 'host', semantic: 'tag', type: 'String' },
    { name: 'ts', semantic: 'timestamp', type: 'TimestampMillisecond' },
    { name: 'usage', semantic: 'field', type: 'Float64' },
    { name: 'n', semantic: 'field', type: 'Int64' },
    { name: 'ok', semantic: 'field', type: 'Boolean' },
  ],
};

class FakeSql implements SqlHandler {
  calls: { sql: string; ctx: SqlContext }[] = [];
  aborted: unknown[] = [];
  async executeSql(sql: string, ctx: SqlContext): Promise<Output[]> {
    this.calls.push({ sql, ctx });
    const s = sql.trim();
    if (s === 'SELECT 1') return [records([{ name: 'x', data_type: 'Int64' }, { name: 's', data_type: 'String' }], [[1, 'a'], [null, null]])];
    if (s === 'SELECT empty') return [records([{ name: 'ts', data_type: 'TimestampNanosecond' }], [])];
    if (s.startsWith('SELECT big')) return [records([{ name: 'i', data_type: 'Int64' }, { name: 's', data_type: 'String' }], Array.from({ length: 100_000 }, (_, i) => [i, `value number ${i}`]))];
    if (s.startsWith('INSERT')) return [affected(3)];
    if (s === 'SELECT arrow') {
      // Rows already read as Arrow (the query asked for them: ctx.arrow): one 20,000-row batch of ~6 MB.
      assert.equal(ctx.arrow, true);
      const t = tableFromArrays({ i: Int32Array.from({ length: 20_000 }, (_, i) => i), s: Array.from({ length: 20_000 }, (_, i) => `${i}:${'x'.repeat(300)}`) });
      return [{ kind: 'records', columns: [{ name: 'i', data_type: 'Int32' }, { name: 's', data_type: 'String' }], rows: [], arrow: { schema: t.schema, batches: t.batches } }];
    }
    if (s === 'SELECT slow') {
      return new Promise((_resolve, reject) => {
        ctx.signal!.addEventListener('abort', () => {
          this.aborted.push(ctx.signal!.reason);
          reject(ctx.signal!.reason);
        });
      });
    }
    throw new TsdbError(StatusCode.InvalidSyntax, `Failed to parse SQL: ${s}`);
  }
  async databaseExists(database: string): Promise<boolean> {
    return database === 'public' || database === 'mydb';
  }
  tableAccess: (string | undefined)[] = [];
  async tables(_ctx: SqlContext, names?: readonly string[], access?: 'read' | 'write'): Promise<TableSummary[]> {
    this.tableAccess.push(access);
    return [CPU].filter((t) => names === undefined || names.includes(t.name));
  }
}

class FakeIngest implements IngestHandler {
  writes: { tables: readonly IngestTable[]; ctx: SqlContext }[] = [];
  failAt: number | undefined;
  async ingest(tables: readonly IngestTable[], ctx: SqlContext): Promise<number> {
    if (this.failAt !== undefined && this.writes.length === this.failAt) throw new TsdbError(StatusCode.StorageUnavailable, 'disk full');
    this.writes.push({ tables, ctx });
    return tables.reduce((n, t) => n + t.rowCount, 0);
  }
  async deleteRows(): Promise<number> {
    throw new Error('Flight never deletes');
  }
}

interface Served {
  server: grpc.Server;
  client: FlightClient;
  sql: FakeSql;
  ingest: FakeIngest;
}

async function serve(opts: { auth?: boolean; batchRows?: number } = {}): Promise<Served> {
  const sql = new FakeSql();
  const ingest = new FakeIngest();
  const server = new grpc.Server();
  addFlightService(server, {
    sql,
    ingest,
    ...(opts.auth ? { auth: createUserProvider('static_user_provider:cmd:alice=secret,reader=r') } : {}),
    ...(opts.batchRows ? { batchRows: opts.batchRows } : {}),
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { server, client: new FlightClient(`127.0.0.1:${port}`), sql, ingest };
}

let plain: Served;
let authed: Served;
before(async () => {
  plain = await serve({ batchRows: 1000 });
  authed = await serve({ auth: true });
});
after(() => {
  for (const s of [plain, authed]) {
    s.client.close();
    s.server.forceShutdown();
  }
});

async function rejectsWithStatus(p: Promise<unknown>, grpcCode: grpc.status, code: StatusCode, message?: RegExp): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    const err = e as grpc.ServiceError;
    assert.equal(err.code, grpcCode, `gRPC status of: ${err.details}`);
    assert.equal(err.metadata.get('x-greptime-err-code')[0], String(code), err.details);
    assert.equal(err.metadata.get('x-tsdb-err-code')[0], String(code));
    assert.ok(String(err.metadata.get('x-greptime-err-msg')[0]).length > 0);
    if (message) assert.match(err.details, message);
    return err;
  }
  assert.fail('expected the call to fail');
}

function cpuTable(n: number, offset = 0): Table {
  return new Table({
    host: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 3 === 2 ? null : `h${(i + offset) % 7}`)), new Utf8()),
    ts: vectorFromArray(Array.from({ length: n }, (_, i) => 1_700_000_000_000 + i + offset), new TimestampMillisecond()),
    usage: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 4 ? null : i * 0.5)), new Float64()),
    n: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_000_000n), new Int64()),
  });
}

// ---- DoGet

test('flight DoGet: a query answers its schema then record batches; the context comes from the ticket header', async () => {
  const r = await plain.client.doGetSql('SELECT 1', { dbname: 'mydb', timezone: '+08:00' });
  assert.ok(r.table);
  assert.deepEqual(r.table.schema.fields.map((f) => [f.name, String(f.type)]), [['x', 'Int64'], ['s', 'Utf8']]);
  assert.deepEqual(r.table.toArray().map((row) => row.toJSON()), [{ x: 1n, s: 'a' }, { x: null, s: null }]);
  assert.equal(r.messages.length, 2, 'schema + one batch');
  assert.deepEqual(r.appMetadata, []);
  const call = plain.sql.calls.at(-1)!;
  assert.equal(call.ctx.database, 'mydb');
  assert.equal(call.ctx.timezone, '+08:00');
  assert.equal(call.ctx.user.username, 'tsdb');
  assert.ok(call.ctx.signal instanceof AbortSignal);
});

test('flight DoGet: the database from catalog/schema (lower-cased), from metadata, else public', async () => {
  await plain.client.doGetSql('SELECT 1', { catalog: 'TSDB', schema: 'MyDb' });
  assert.equal(plain.sql.calls.at(-1)!.ctx.database, 'mydb');
  await plain.client.doGetSql('SELECT 1', { dbname: 'tsdb-mydb' });
  assert.equal(plain.sql.calls.at(-1)!.ctx.database, 'mydb');
  await plain.client.doGetSql('SELECT 1', {}, { metadata: { 'x-greptime-db-name': 'mydb', 'x-greptime-timezone': 'Asia/Tokyo' } });
  assert.equal(plain.sql.calls.at(-1)!.ctx.database, 'mydb');
  assert.equal(plain.sql.calls.at(-1)!.ctx.timezone, 'Asia/Tokyo');
  await plain.client.doGetSql('SELECT 1');
  assert.equal(plain.sql.calls.at(-1)!.ctx.database, 'public');
  assert.equal(plain.sql.calls.at(-1)!.ctx.timezone, 'UTC');
});

test('flight DoGet: an empty result is the schema alone; a large one comes in batches of the configured size', async () => {
  const empty = await plain.client.doGetSql('SELECT empty');
  assert.equal(empty.table!.numRows, 0);
  assert.equal(String(empty.schema!.fields[0]!.type), 'Timestamp<NANOSECOND>');
  assert.equal(empty.messages.length, 1);
  const big = await plain.client.doGetSql('SELECT big');
  assert.equal(big.table!.numRows, 100_000);
  assert.equal(big.messages.length, 1 + 100);
  assert.equal(big.table!.getChild('s')!.get(99_999), 'value number 99999');
});

test('flight DoGet: rows the query read as Arrow go as they are, a batch over the byte limit cut into several', async () => {
  const r = await plain.client.doGetSql('SELECT arrow');
  assert.equal(r.table!.numRows, 20_000);
  assert.ok(r.messages.length > 3, `${r.messages.length} messages`);
  for (const i of [0, 1, 6_999, 7_000, 12_345, 19_999]) {
    assert.equal(r.table!.getChild('i')!.get(i), i);
    assert.equal(r.table!.getChild('s')!.get(i), `${i}:${'x'.repeat(300)}`);
  }
});

test('flight DoGet: a statement without rows answers one message: a NONE header and FlightMetadata{affected_rows}', async () => {
  const r = await plain.client.doGetSql('INSERT INTO t VALUES (1)');
  assert.equal(r.messages.length, 1);
  assert.equal(r.table, undefined);
  assert.equal(r.affectedRows, 3);
  assert.equal(r.messages[0]!.data_body.byteLength, 0);
  // FlightMetadata{affected_rows: AffectedRows{value: 3}}: field 1 (length-delimited) holding field 1 (varint) = 3.
  assert.deepEqual([...r.appMetadata[0]!], [0x0a, 0x02, 0x08, 0x03]);
});

test('flight DoGet: a ticket holding row inserts writes them and answers their affected rows', async () => {
  const before = plain.ingest.writes.length;
  const ticket = encodeGreptimeRequest({
    header: { dbname: 'mydb' },
    row_inserts: {
      inserts: [{
        table_name: 'cpu',
        rows: {
          schema: [{ column_name: 'host', datatype: 12, semantic_type: 0 }, { column_name: 'ts', datatype: 16, semantic_type: 2 }],
          rows: [{ values: [{ string_value: 'a' }, { timestamp_millisecond_value: 1000 }] }, { values: [{ string_value: 'b' }, { timestamp_millisecond_value: 2000 }] }],
        },
      }],
    },
  });
  const r = await plain.client.doGet(ticket);
  assert.equal(r.affectedRows, 2);
  assert.equal(r.messages.length, 1);
  const w = plain.ingest.writes.slice(before);
  assert.equal(w.length, 1);
  assert.equal(w[0]!.ctx.database, 'mydb');
  assert.deepEqual(w[0]!.tables[0]!.columns.map((c) => c.name), ['host', 'ts']);
});

test('flight DoGet: several statements in one ticket are refused before any runs (Unsupported), an empty one is invalid', async () => {
  const before = plain.sql.calls.length;
  await rejectsWithStatus(plain.client.doGetSql('INSERT INTO t VALUES (1); SELECT 1'), grpc.status.UNIMPLEMENTED, StatusCode.Unsupported, /multiple statements/);
  assert.equal(plain.sql.calls.length, before);
  await rejectsWithStatus(plain.client.doGetSql('  -- nothing\n'), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /empty/);
  // A `;` inside a string literal does not split.
  await rejectsWithStatus(plain.client.doGetSql("SELECT ';'; "), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidSyntax);
});

test('flight DoGet: undecodable tickets, requests other than SQL, unknown databases, bad time zones and SQL errors get their status', async () => {
  await rejectsWithStatus(plain.client.doGet(Buffer.from([0xff, 0xff, 0xff])), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /GreptimeRequest/);
  await rejectsWithStatus(plain.client.doGet(Buffer.alloc(0)), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /names no request/);
  const plan = encodeGreptimeRequest({ query: {} });
  await rejectsWithStatus(plain.client.doGet(plan), grpc.status.UNIMPLEMENTED, StatusCode.Unsupported, /query.sql/);
  await rejectsWithStatus(plain.client.doGetSql('SELECT 1', { dbname: 'nope' }), grpc.status.NOT_FOUND, StatusCode.DatabaseNotFound, /nope/);
  await rejectsWithStatus(plain.client.doGetSql('SELECT 1', { catalog: 'other', schema: 'public' }), grpc.status.NOT_FOUND, StatusCode.DatabaseNotFound);
  await rejectsWithStatus(plain.client.doGetSql('SELECT 1', { timezone: 'Mars/Olympus' }), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /time zone/);
  const err = await rejectsWithStatus(plain.client.doGetSql('SELEC oops ünïcode'), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidSyntax);
  // Trailers are ASCII: other characters are percent-encoded.
  assert.match(String(err.metadata.get('x-tsdb-err-msg')[0]), /\\u00fc/);
  assert.match(err.details, /ünïcode/);
});

test('flight DoGet: with a user provider, the ticket header or the metadata authenticates; otherwise Unauthenticated', async () => {
  const ok = await authed.client.doGetSql('SELECT 1', { basic: { username: 'alice', password: 'secret' } });
  assert.equal(ok.table!.numRows, 2);
  assert.equal(authed.sql.calls.at(-1)!.ctx.user.username, 'alice');
  const basic = `Basic ${Buffer.from('reader:r').toString('base64')}`;
  await authed.client.doGetSql('SELECT 1', {}, { metadata: { authorization: basic } });
  assert.equal(authed.sql.calls.at(-1)!.ctx.user.username, 'reader');
  await authed.client.doGetSql('SELECT 1', {}, { metadata: { authorization: Buffer.from('reader:r').toString('base64') } });
  assert.equal(authed.sql.calls.at(-1)!.ctx.user.username, 'reader');
  await rejectsWithStatus(authed.client.doGetSql('SELECT 1'), grpc.status.UNAUTHENTICATED, StatusCode.AuthHeaderNotFound);
  await rejectsWithStatus(authed.client.doGetSql('SELECT 1', { basic: { username: 'alice', password: 'wrong' } }), grpc.status.UNAUTHENTICATED, StatusCode.UserPasswordMismatch);
  await rejectsWithStatus(authed.client.doGetSql('SELECT 1', { token: 't0k3n' }), grpc.status.UNAUTHENTICATED, StatusCode.UserPasswordMismatch, /bearer token/);
  await rejectsWithStatus(authed.client.doGetSql('SELECT 1', {}, { metadata: { authorization: 'Basic !!!' } }), grpc.status.UNAUTHENTICATED, StatusCode.InvalidAuthHeader);
});

test('flight DoGet: a client that cancels stops the running statement', async () => {
  const before = plain.sql.aborted.length;
  const call = plain.client.doGetStream(sqlTicket('SELECT slow'));
  const ended = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
  call.on('data', () => {});
  while (!plain.sql.calls.some((c) => c.sql === 'SELECT slow' && !c.ctx.signal!.aborted)) await new Promise((r) => setTimeout(r, 5));
  call.cancel();
  assert.equal((await ended).code, grpc.status.CANCELLED);
  while (plain.sql.aborted.length === before) await new Promise((r) => setTimeout(r, 5));
  const reason = plain.sql.aborted.at(-1) as TsdbError;
  assert.equal(reason.code, StatusCode.Cancelled);
});

test('flight DoGet: the call deadline stops the statement with DeadlineExceeded', async () => {
  const before = plain.sql.aborted.length;
  await assert.rejects(plain.client.doGetSql('SELECT slow', {}, { timeoutMs: 200 }), (e: grpc.ServiceError) => e.code === grpc.status.DEADLINE_EXCEEDED);
  while (plain.sql.aborted.length === before) await new Promise((r) => setTimeout(r, 5));
  assert.equal((plain.sql.aborted.at(-1) as TsdbError).code, StatusCode.DeadlineExceeded);
});

test('flight DoGet: a client that goes away mid-stream stops the sending (the server keeps serving)', async () => {
  const call = plain.client.doGetStream(sqlTicket('SELECT big'));
  let got = 0;
  await new Promise<void>((resolve) => {
    call.on('data', () => {
      if (++got === 3) {
        call.cancel();
        resolve();
      }
    });
  });
  call.on('error', () => {});
  const r = await plain.client.doGetSql('SELECT 1');
  assert.equal(r.table!.numRows, 2);
});

// ---- DoPut

test('flight DoPut: batches go to the table; acks are {request_id, affected_rows, elapsed_secs}, the first one id 0', async () => {
  const before = plain.ingest.writes.length;
  const acks = await plain.client.doPut('cpu', cpuTable(2500), { batchRows: 1000, metadata: { 'x-greptime-db-name': 'mydb' } });
  assert.deepEqual(acks.map((a) => [a.request_id, a.affected_rows]), [[0, 0], [1, 1000], [2, 1000], [3, 500]]);
  // The table is looked up for writing (a write-only user may bulk-insert).
  assert.equal(plain.sql.tableAccess.at(-1), 'write');
  assert.ok(acks.every((a) => typeof a.elapsed_secs === 'number' && a.elapsed_secs >= 0));
  const writes = plain.ingest.writes.slice(before);
  assert.equal(writes.length, 3);
  assert.equal(writes[0]!.ctx.database, 'mydb');
  const t = writes[0]!.tables[0]!;
  assert.equal(t.name, 'cpu');
  assert.equal(t.rowCount, 1000);
  assert.deepEqual(t.columns.map((c) => [c.name, c.semantic, c.type, c.vector.type]), [
    ['host', 'tag', 'String', 'string'],
    ['ts', 'timestamp', 'TimestampMillisecond', 'int64'],
    ['usage', 'field', 'Float64', 'float64'],
    ['n', 'field', 'Int64', 'int64'],
  ]);
  const [host, ts, usage, n] = t.columns.map((c) => c.vector);
  assert.deepEqual((host!.data as (string | null)[]).slice(0, 4), ['h0', 'h1', null, 'h3']);
  assert.equal((ts!.data as BigInt64Array)[999], 1_700_000_000_999n);
  assert.equal((usage!.data as Float64Array)[3], 1.5);
  assert.equal(usage!.type === 'float64' && usage!.valid?.[4], 0);
  assert.equal((n!.data as BigInt64Array)[2], 2_000_000_000_000n);
  const last = writes[2]!.tables[0]!;
  assert.equal((last.columns[1]!.vector.data as BigInt64Array)[0], 1_700_000_002_000n);
});

test('flight DoPut: dictionary-encoded strings go into String columns; a new dictionary replaces the old one', async () => {
  const before = plain.ingest.writes.length;
  // One dictionary type (apache-arrow numbers each Dictionary type it makes): the same id in both.
  const type = new Dictionary(new Utf8(), new Int32());
  const dictTable = (hosts: (string | null)[], from: number) =>
    new Table({
      host: vectorFromArray(hosts, type),
      ts: vectorFromArray(hosts.map((_, i) => from + i), new TimestampMillisecond()),
    });
  const a = dictTable(['x', 'y', null, 'x'], 0);
  const b = dictTable(['z', 'w', 'z'], 10);
  // Two uploads' messages in one call: the second batch comes with its own dictionary (same id).
  const first = putMessages('cpu', a);
  const second = putMessages('cpu', b).slice(1);
  assert.deepEqual(first.map((m) => messageHeaderType(m.data_header)), [MessageHeader.Schema, MessageHeader.DictionaryBatch, MessageHeader.RecordBatch]);
  const acks = await plain.client.doPutMessages([...first, ...second]);
  assert.deepEqual(acks.map((x) => x.affected_rows), [0, 4, 3]);
  const writes = plain.ingest.writes.slice(before);
  assert.deepEqual(writes[0]!.tables[0]!.columns[0]!.vector.data, ['x', 'y', null, 'x']);
  assert.deepEqual(writes[1]!.tables[0]!.columns[0]!.vector.data, ['z', 'w', 'z']);
});

test('flight DoPut: the database from x-tsdb-db-name; without metadata, public', async () => {
  await plain.client.doPut('cpu', cpuTable(3), { metadata: { 'x-tsdb-db-name': 'mydb' } });
  assert.equal(plain.ingest.writes.at(-1)!.ctx.database, 'mydb');
  await plain.client.doPut('cpu', cpuTable(3));
  assert.equal(plain.ingest.writes.at(-1)!.ctx.database, 'public');
  await rejectsWithStatus(plain.client.doPut('cpu', cpuTable(3), { metadata: { 'x-greptime-db-name': 'nope' } }), grpc.status.NOT_FOUND, StatusCode.DatabaseNotFound);
});

test('flight DoPut: an unknown table, an unknown column, a wrong type or a missing time index refuses the upload, writing nothing', async () => {
  const before = plain.ingest.writes.length;
  const notFound = await rejectsWithStatus(plain.client.doPut('nope', cpuTable(3)), grpc.status.NOT_FOUND, StatusCode.TableNotFound, /nope/);
  assert.deepEqual((notFound as unknown as { acks: PutAck[] }).acks.map((a) => a.request_id), [0]);
  const extra = new Table({ ...Object.fromEntries(cpuTable(2).schema.fields.map((f, i) => [f.name, cpuTable(2).getChildAt(i)!])), extra: vectorFromArray([1, 2], new Int32()) });
  await rejectsWithStatus(plain.client.doPut('cpu', extra), grpc.status.NOT_FOUND, StatusCode.TableColumnNotFound, /extra/);
  const wrongTs = new Table({ ts: vectorFromArray([1000, 2000], new TimestampSecond()) });
  await rejectsWithStatus(plain.client.doPut('cpu', wrongTs), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /ts .*TimestampMillisecond.*Timestamp<SECOND>/);
  const wrongField = new Table({ ts: vectorFromArray([1, 2], new TimestampMillisecond()), usage: vectorFromArray(['a', 'b'], new Utf8()) });
  await rejectsWithStatus(plain.client.doPut('cpu', wrongField), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /usage .*Float64/);
  const noTs = new Table({ usage: vectorFromArray([1, 2], new Float64()) });
  await rejectsWithStatus(plain.client.doPut('cpu', noTs), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /time index column ts/);
  const nullTs = new Table({ ts: vectorFromArray([1, null], new TimestampMillisecond()), ok: vectorFromArray([true, false], new Bool()) });
  await rejectsWithStatus(plain.client.doPut('cpu', nullTs), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /NULL in row 1/);
  assert.equal(plain.ingest.writes.length, before);
});

test('flight DoPut: a bad descriptor, a first message other than a schema, or a garbled batch is refused', async () => {
  const good = putMessages('cpu', cpuTable(3));
  await rejectsWithStatus(plain.client.doPutMessages([{ ...good[0]!, flight_descriptor: null }, good[1]!]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /flight descriptor/);
  await rejectsWithStatus(plain.client.doPutMessages([{ ...good[0]!, flight_descriptor: { type: 2, cmd: Buffer.from('x'), path: [] } }]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /Path/);
  await rejectsWithStatus(plain.client.doPutMessages([{ ...good[0]!, flight_descriptor: { type: 1, cmd: Buffer.alloc(0), path: ['a', 'b'] } }]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /one table name/);
  await rejectsWithStatus(plain.client.doPutMessages([{ ...good[1]!, flight_descriptor: good[0]!.flight_descriptor }]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /Schema message/);
  await rejectsWithStatus(plain.client.doPutMessages([good[0]!, { ...good[1]!, data_header: Buffer.from('garbage!garbage!') }]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments);
  await rejectsWithStatus(plain.client.doPutMessages([good[0]!, { ...good[1]!, data_body: Buffer.from(good[1]!.data_body).subarray(0, 8) }]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /shorter/);
  await rejectsWithStatus(plain.client.doPutMessages([]), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /before its Schema/);
});

test('flight DoPut: a failed write ends the call with its status after the batches before it were acknowledged', async () => {
  plain.ingest.failAt = plain.ingest.writes.length + 1;
  try {
    const err = await rejectsWithStatus(plain.client.doPut('cpu', cpuTable(30), { batchRows: 10 }), grpc.status.UNAVAILABLE, StatusCode.StorageUnavailable, /disk full/);
    assert.deepEqual((err as unknown as { acks: PutAck[] }).acks.map((a) => a.request_id), [0, 1]);
  } finally {
    plain.ingest.failAt = undefined;
  }
});

test('flight DoPut: authentication from metadata; a missing or wrong credential writes nothing', async () => {
  const before = authed.ingest.writes.length;
  await rejectsWithStatus(authed.client.doPut('cpu', cpuTable(3)), grpc.status.UNAUTHENTICATED, StatusCode.AuthHeaderNotFound);
  await rejectsWithStatus(authed.client.doPut('cpu', cpuTable(3), { metadata: { authorization: `Basic ${Buffer.from('alice:no').toString('base64')}` } }), grpc.status.UNAUTHENTICATED, StatusCode.UserPasswordMismatch);
  assert.equal(authed.ingest.writes.length, before);
  const acks = await authed.client.doPut('cpu', cpuTable(3), { metadata: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` } });
  assert.deepEqual(acks.map((a) => a.affected_rows), [0, 3]);
  assert.equal(authed.ingest.writes.at(-1)!.ctx.user.username, 'alice');
});

test('flight DoPut: a client that goes away mid-stream leaves only whole batches written', async () => {
  const before = plain.ingest.writes.length;
  const call = plain.client.doPutStream();
  call.on('error', () => {});
  const messages = putMessages('cpu', cpuTable(50), 10);
  const acked = new Promise<void>((resolve) => {
    let n = 0;
    call.on('data', () => {
      if (++n === 2) resolve();
    });
  });
  call.write(messages[0]!);
  call.write(messages[1]!);
  await acked;
  call.cancel();
  await new Promise((r) => setTimeout(r, 100));
  const writes = plain.ingest.writes.slice(before);
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.tables[0]!.rowCount, 10);
});

test('flight DoPut: LZ4_FRAME-compressed batches (GreptimeDB ingesters\' default) are read; ZSTD is refused clearly', async () => {
  registerTestLz4Encoder();
  const before = plain.ingest.writes.length;
  const acks = await plain.client.doPut('cpu', cpuTable(2500), { batchRows: 1000, compressionType: CompressionType.LZ4_FRAME });
  assert.deepEqual(acks.map((a) => a.affected_rows), [0, 1000, 1000, 500]);
  const t = plain.ingest.writes[before + 2]!.tables[0]!;
  assert.equal((t.columns[1]!.vector.data as BigInt64Array)[499], 1_700_000_002_499n);
  assert.deepEqual((t.columns[0]!.vector.data as (string | null)[]).slice(0, 3), [null, 'h6', 'h0']);
  // Batches marked ZSTD (written with a stand-in encoder that only frames the bytes).
  compressionRegistry.set(CompressionType.ZSTD, { encode: (d) => Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]), d]) });
  let zstd: ReturnType<typeof putMessages>;
  try {
    zstd = putMessages('cpu', cpuTable(10), undefined, CompressionType.ZSTD);
  } finally {
    compressionRegistry.set(CompressionType.ZSTD, null as never);
  }
  await rejectsWithStatus(plain.client.doPutMessages(zstd), grpc.status.INVALID_ARGUMENT, StatusCode.InvalidArguments, /ZSTD.*LZ4_FRAME/);
  assert.equal(plain.ingest.writes.length, before + 3);
});

test('flight: the other methods answer UNIMPLEMENTED', async () => {
  const raw = plain.client.raw;
  const unary = (name: string, req: unknown) =>
    new Promise<grpc.ServiceError>((resolve) => (raw[name] as (r: unknown, cb: (e: grpc.ServiceError) => void) => void).call(raw, req, (e) => resolve(e)));
  const streaming = (name: string, req?: unknown) =>
    new Promise<grpc.ServiceError>((resolve) => {
      const call = (req === undefined ? (raw[name] as () => grpc.ClientDuplexStream<unknown, unknown>).call(raw) : (raw[name] as (r: unknown) => grpc.ClientReadableStream<unknown>).call(raw, req)) as grpc.ClientReadableStream<unknown>;
      call.on('data', () => {});
      call.on('error', resolve);
      if ('end' in call && typeof (call as unknown as { end: unknown }).end === 'function' && req === undefined) (call as unknown as grpc.ClientDuplexStream<unknown, unknown>).end();
    });
  for (const name of ['GetFlightInfo', 'PollFlightInfo', 'GetSchema']) assert.equal((await unary(name, { type: 1, path: ['cpu'] })).code, grpc.status.UNIMPLEMENTED, name);
  for (const [name, req] of [['ListFlights', {}], ['DoAction', { type: 'x' }], ['ListActions', {}]] as const) assert.equal((await streaming(name, req)).code, grpc.status.UNIMPLEMENTED, name);
  for (const name of ['Handshake', 'DoExchange']) assert.equal((await streaming(name)).code, grpc.status.UNIMPLEMENTED, name);
});

test('flight: ack JSON matches GreptimeDB (elapsed_secs a float), request ids read leniently', () => {
  assert.equal(putAck(0, 0, 0).toString(), '{"request_id":0,"affected_rows":0,"elapsed_secs":0.0}');
  assert.equal(putAck(42, 88, 0.123).toString(), '{"request_id":42,"affected_rows":88,"elapsed_secs":0.123}');
  assert.equal(requestIdOf(Buffer.from('{"request_id":42}')), 42);
  assert.equal(requestIdOf(Buffer.from('{"request_id":7,"min_timestamp":1,"max_timestamp":2}')), 7);
  assert.equal(requestIdOf(Buffer.from('not json')), 0);
  assert.equal(requestIdOf(Buffer.alloc(0)), 0);
});

test('flight: undecodable protobuf (a Ticket, a FlightData) is INVALID_ARGUMENT, not INTERNAL', async () => {
  const raw = plain.client.raw as unknown as grpc.Client;
  const same = (b: Buffer) => b;
  const get = raw.makeServerStreamRequest('/arrow.flight.protocol.FlightService/DoGet', same, same, Buffer.from([0x0a, 0xff]), new grpc.Metadata(), {});
  get.on('data', () => {});
  const getErr = await new Promise<grpc.ServiceError>((resolve) => get.on('error', resolve));
  assert.equal(getErr.code, grpc.status.INVALID_ARGUMENT, getErr.details);
  assert.match(getErr.details, /Ticket/);
  const before = plain.ingest.writes.length;
  const put = raw.makeBidiStreamRequest('/arrow.flight.protocol.FlightService/DoPut', same, same, new grpc.Metadata(), {});
  put.on('data', () => {});
  const putErr = new Promise<grpc.ServiceError>((resolve) => put.on('error', resolve));
  put.write(Buffer.from([0x12, 0x80]));
  put.end();
  assert.equal((await putErr).code, grpc.status.INVALID_ARGUMENT);
  assert.match((await putErr).details, /FlightData/);
  assert.equal(plain.ingest.writes.length, before);
});
