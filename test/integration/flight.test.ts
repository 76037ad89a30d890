/**
 * Arrow Flight on a real standalone server (reference api.md §6): DoPut into a table made with SQL,
 * the rows read back over HTTP and over DoGet with their Arrow types, DoGet of a statement without
 * rows, errors with their status and trailers, authentication, and a DoPut client killed mid-stream.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Bool, Float64, Int32, Int64, Table, TimestampMillisecond, Utf8, vectorFromArray } from 'apache-arrow';
import { FlightClient, type PutAck } from '../support/flight-client.js';
import { FLIGHT_CHILD_BATCH_ROWS } from '../support/flight-put-child.js';
import { sqlRows } from '../support/sql-rows.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

async function start(t: TestContext, args: string[] = []) {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  assert.ok(s.grpc !== undefined, 'the gRPC address is in the started line');
  const client = new FlightClient(s.grpc!);
  t.after(() => client.close());
  return { ...s, grpc: s.grpc!, client };
}

async function failure(p: Promise<unknown>): Promise<{ code: number; details: string; errCode: string; acks: PutAck[] }> {
  try {
    await p;
  } catch (e) {
    const err = e as grpc.ServiceError & { acks?: PutAck[] };
    return { code: err.code, details: err.details, errCode: String(err.metadata.get('x-greptime-err-code')[0]), acks: err.acks ?? [] };
  }
  assert.fail('expected the call to fail');
}

function metrics(n: number, from = 0): Table {
  return new Table({
    host: vectorFromArray(Array.from({ length: n }, (_, i) => `host${(from + i) % 10}`), new Utf8()),
    ts: vectorFromArray(Array.from({ length: n }, (_, i) => 1_700_000_000_000 + from + i), new TimestampMillisecond()),
    usage: vectorFromArray(Array.from({ length: n }, (_, i) => ((from + i) % 7 === 0 ? null : (from + i) / 4)), new Float64()),
    count: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(from + i) * 3_000_000_000n), new Int64()),
    up: vectorFromArray(Array.from({ length: n }, (_, i) => (from + i) % 2 === 0), new Bool()),
  });
}

const CREATE = 'CREATE TABLE m (host STRING, ts TIMESTAMP(3) TIME INDEX, usage DOUBLE, count BIGINT, up BOOLEAN, PRIMARY KEY (host))';

test('DoPut writes batches into a table made with SQL; HTTP and DoGet read them back with their types', async (t) => {
  const { baseUrl, client } = await start(t);
  await sqlRows(baseUrl, CREATE);
  const acks = await client.doPut('m', metrics(10_000), { batchRows: 3000, metadata: { 'x-greptime-db-name': 'public' } });
  assert.deepEqual(acks.map((a) => [a.request_id, a.affected_rows]), [[0, 0], [1, 3000], [2, 3000], [3, 3000], [4, 1000]]);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*), count(usage), sum(CAST(up AS INT)) FROM m'), [[10_000, 10_000 - Math.ceil(10_000 / 7), 5000]]);
  assert.deepEqual(await sqlRows(baseUrl, "SELECT host, ts, usage, count, up FROM m WHERE ts = '2023-11-14T22:13:20.005Z'::TIMESTAMP"), [['host5', 1_700_000_000_005, 1.25, 15_000_000_000, false]]);

  const r = await client.doGetSql('SELECT host, ts, usage, count, up FROM m ORDER BY ts LIMIT 20000', { dbname: 'public' });
  const table = r.table!;
  assert.equal(table.numRows, 10_000);
  assert.deepEqual(table.schema.fields.map((f) => [f.name, String(f.type)]), [
    ['host', 'Utf8'],
    ['ts', 'Timestamp<MILLISECOND>'],
    ['usage', 'Float64'],
    ['count', 'Int64'],
    ['up', 'Bool'],
  ]);
  assert.ok(r.messages.length >= 3, 'the schema, then 8192-row batches');
  const row = table.get(7)!.toJSON();
  assert.deepEqual(row, { host: 'host7', ts: 1_700_000_000_007, usage: null, count: 21_000_000_000n, up: false });
  assert.equal((table.getChild('ts')!.data.at(-1)!.values as BigInt64Array).at(-1), 1_700_000_009_999n);
});

test('server reflection lists the Flight service beside greptime.v1', async (t) => {
  const { grpc: addr } = await start(t);
  const require = createRequire(import.meta.url);
  const def = protoLoader.loadSync(require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto'), { keepCase: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } } };
  const client = new pkg.grpc.reflection.v1.ServerReflection(addr, grpc.credentials.createInsecure()) as unknown as grpc.Client & { ServerReflectionInfo(): grpc.ClientDuplexStream<unknown, { list_services_response: { service: { name: string }[] } }> };
  t.after(() => client.close());
  const services = await new Promise<string[]>((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    call.on('data', (m) => {
      resolve(m.list_services_response.service.map((s: { name: string }) => s.name));
      call.end();
    });
    call.on('error', reject);
    call.write({ list_services: '*' });
  });
  assert.ok(services.includes('arrow.flight.protocol.FlightService'), services.join());
  assert.ok(services.includes('greptime.v1.GreptimeDatabase'), services.join());
});

test('DoGet: the request time zone, a statement without rows, several statements, SQL and ticket errors', async (t) => {
  const { baseUrl, client } = await start(t);
  await sqlRows(baseUrl, CREATE);
  const insert = await client.doGetSql("INSERT INTO m (host, ts, usage) VALUES ('a', 1000, 1.5), ('b', 2000, 2.5)");
  assert.equal(insert.affectedRows, 2);
  assert.equal(insert.table, undefined);
  // A naive time is in the request's time zone.
  const tz = await client.doGetSql("INSERT INTO m (host, ts) VALUES ('tz', '2024-01-01 08:00:00')", { timezone: '+08:00' });
  assert.equal(tz.affectedRows, 1);
  assert.deepEqual(await sqlRows(baseUrl, "SELECT ts FROM m WHERE host = 'tz'"), [[1_704_067_200_000]]);
  const multi = await failure(client.doGetSql("SELECT 1; INSERT INTO m (host, ts) VALUES ('c', 3000)"));
  assert.deepEqual([multi.code, multi.errCode], [grpc.status.UNIMPLEMENTED, '1001']);
  assert.deepEqual(await sqlRows(baseUrl, "SELECT count(*) FROM m WHERE host = 'c'"), [[0]]);
  const missing = await failure(client.doGetSql('SELECT * FROM nope'));
  assert.equal(missing.code === grpc.status.NOT_FOUND || missing.code === grpc.status.INVALID_ARGUMENT, true, missing.details);
  assert.match(missing.details, /nope/);
  const ticket = await failure(client.doGet(Buffer.from('not a request')));
  assert.deepEqual([ticket.code, ticket.errCode], [grpc.status.INVALID_ARGUMENT, '1004']);
  const db = await failure(client.doGetSql('SELECT 1', { dbname: 'nodb' }));
  assert.deepEqual([db.code, db.errCode], [grpc.status.NOT_FOUND, '4004']);
});

test('DoPut refuses an unknown table, an unknown column and a wrong type, writing nothing', async (t) => {
  const { baseUrl, client } = await start(t);
  await sqlRows(baseUrl, CREATE);
  const noTable = await failure(client.doPut('absent', metrics(10)));
  assert.deepEqual([noTable.code, noTable.errCode], [grpc.status.NOT_FOUND, '4001']);
  assert.deepEqual(noTable.acks.map((a) => a.request_id), [0]);
  assert.deepEqual(await sqlRows(baseUrl, "SHOW TABLES LIKE 'absent'"), []);
  const extra = new Table({ ts: vectorFromArray([1], new TimestampMillisecond()), extra: vectorFromArray([1], new Int32()) });
  const col = await failure(client.doPut('m', extra));
  assert.deepEqual([col.code, col.errCode], [grpc.status.NOT_FOUND, '4002']);
  const wrong = new Table({ ts: vectorFromArray([1], new TimestampMillisecond()), usage: vectorFromArray([1], new Int32()) });
  const type = await failure(client.doPut('m', wrong));
  assert.deepEqual([type.code, type.errCode], [grpc.status.INVALID_ARGUMENT, '1004']);
  assert.match(type.details, /usage .*Float64/);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM m'), [[0]]);
});

test('with a user provider, Flight calls authenticate like HTTP; a read-only user cannot DoPut', async (t) => {
  const { baseUrl, client } = await start(t, ['--user-provider', 'static_user_provider:cmd:alice=secret,viewer:readonly=v,writer:writeonly=w']);
  await sqlRows(baseUrl, CREATE, { auth: 'alice:secret' });
  const none = await failure(client.doGetSql('SELECT 1'));
  assert.deepEqual([none.code, none.errCode], [grpc.status.UNAUTHENTICATED, '7003']);
  const bad = await failure(client.doGetSql('SELECT 1', { basic: { username: 'alice', password: 'nope' } }));
  assert.equal(bad.code, grpc.status.UNAUTHENTICATED);
  const ok = await client.doGetSql('SELECT 1 AS one', { basic: { username: 'alice', password: 'secret' } });
  assert.equal(Number(ok.table!.getChild('one')!.get(0)), 1);
  const alice = { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` };
  assert.deepEqual((await client.doPut('m', metrics(5), { metadata: alice })).map((a) => a.affected_rows), [0, 5]);
  const viewer = { authorization: `Basic ${Buffer.from('viewer:v').toString('base64')}` };
  const denied = await failure(client.doPut('m', metrics(5, 100), { metadata: viewer }));
  assert.deepEqual([denied.code, denied.errCode], [grpc.status.PERMISSION_DENIED, '7006']);
  // A write-only user bulk-inserts (its table looked up for writing), and cannot query.
  const writer = { authorization: `Basic ${Buffer.from('writer:w').toString('base64')}` };
  assert.deepEqual((await client.doPut('m', metrics(4, 200), { metadata: writer })).map((a) => a.affected_rows), [0, 4]);
  const noRead = await failure(client.doGetSql('SELECT count(*) FROM m', { basic: { username: 'writer', password: 'w' } }));
  assert.deepEqual([noRead.code, noRead.errCode], [grpc.status.PERMISSION_DENIED, '7006']);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM m', { auth: 'alice:secret' }), [[9]]);
});

test('a DoPut client killed mid-stream leaves whole batches only; the server goes on serving', async (t) => {
  const { baseUrl, grpc: addr, client } = await start(t);
  await sqlRows(baseUrl, 'CREATE TABLE killed (host STRING, ts TIMESTAMP(3) TIME INDEX, v DOUBLE, PRIMARY KEY (host))');
  const child = spawn(process.execPath, [new URL('../support/flight-put-child.js', import.meta.url).pathname, addr, 'killed'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const count = async () => Number((await sqlRows(baseUrl, 'SELECT count(*) FROM killed'))[0]![0]);
  const deadline = Date.now() + 20_000;
  while ((await count()) < FLIGHT_CHILD_BATCH_ROWS * 3) {
    assert.ok(Date.now() < deadline, `the child wrote rows (${stderr})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await new Promise((r) => setTimeout(r, 300));
  const after = await count();
  assert.equal(after % FLIGHT_CHILD_BATCH_ROWS, 0, `${after} rows: whole batches only`);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await count(), after, 'nothing more lands after the kill');
  const r = await client.doGetSql('SELECT count(*) AS n FROM killed');
  assert.equal(Number(r.table!.getChild('n')!.get(0)), after);
});
