import type { ViewInfo } from '../../catalog/view-info.js';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.js';
import { freePort } from '../../../test/support/peers.js';
import type { TableInfo } from '../../catalog/table-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import type { KvEntry } from '../../meta/kv/kv-backend.js';
import type { DdlResult, DdlTask, HeartbeatRequest, HeartbeatResponse, MetaEvent, MetaService, NodeInfo } from '../../meta/meta-service.js';
import { GrpcServer } from './grpc-server.js';
import { MetaClient, type MetaClientOptions } from './meta-client.js';
import { metaMethods } from './meta-messages.js';
import { addMetaService } from './meta-service-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A metasrv behind the interface, in memory: records what it is asked, answers what it is told. */
class FakeMeta implements MetaService {
  readonly kv = new Map<string, Uint8Array>();
  readonly heartbeats: HeartbeatRequest[] = [];
  readonly ddls: Array<{ task: DdlTask; timeoutMs: number | undefined }> = [];
  readonly listeners = new Set<(e: MetaEvent) => void>();
  heartbeatAnswer: HeartbeatResponse = { lease_ms: 9000, heartbeat_interval_ms: 3000, leased_regions: [], close_regions: [], open_regions: [] };
  nodes: NodeInfo[] = [];
  ddlResult: DdlResult = {};
  nextTableId = 1024;
  /** Thrown by the next call (then cleared). */
  fail: unknown;
  /** Calls wait this long before answering. */
  delayMs = 0;
  calls = 0;

  private async step(): Promise<void> {
    this.calls++;
    if (this.delayMs > 0) await sleep(this.delayMs);
    const fail = this.fail;
    this.fail = undefined;
    if (fail !== undefined) throw fail;
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    this.heartbeats.push(req);
    await this.step();
    return this.heartbeatAnswer;
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    await this.step();
    return this.kv.get(key);
  }
  async range(prefix: string): Promise<KvEntry[]> {
    await this.step();
    return [...this.kv].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map(([key, value]) => ({ key, value }));
  }
  async allocateTableId(): Promise<number> {
    await this.step();
    return this.nextTableId++;
  }
  async ddl(task: DdlTask, timeoutMs?: number): Promise<DdlResult> {
    this.ddls.push({ task, timeoutMs });
    await this.step();
    return this.ddlResult;
  }
  async clusterInfo(): Promise<NodeInfo[]> {
    await this.step();
    return this.nodes;
  }
  subscribe(listener: (event: MetaEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: MetaEvent): void {
    for (const l of this.listeners) l(event);
  }
}

async function startServer(meta: MetaService, addr = '127.0.0.1:0', shutdownTimeout = 5000): Promise<{ server: GrpcServer; addr: string }> {
  const s = new GrpcServer({ logger: silentLogger(), shutdownTimeout });
  addMetaService(s, meta, silentLogger());
  await s.start(addr);
  return { server: s, addr: `127.0.0.1:${s.boundAddress()!.port}` };
}

/** An address where nothing listens (a port bound, then released). */
async function deadAddr(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

async function waitUntil(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

function isError(code: StatusCode, message?: string | RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof TsdbError, `a TsdbError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message !== undefined) assert.match(err.message, message);
    return true;
  };
}

let fake: FakeMeta;
let server: GrpcServer;
let addr: string;
let client: MetaClient;
const clients: MetaClient[] = [];

function newClient(opts: Partial<MetaClientOptions> = {}): MetaClient {
  const c = new MetaClient({ addrs: [addr], logger: silentLogger(), ...opts });
  clients.push(c);
  return c;
}

before(async () => {
  fake = new FakeMeta();
  ({ server, addr } = await startServer(fake));
  client = newClient();
});

after(async () => {
  for (const c of clients) c.close();
  await server.shutdown();
});

const TABLE: TableInfo = {
  table_id: 1025,
  catalog: 'tsdb',
  database: 'public',
  name: 'cpu',
  columns: [
    { column_id: 0, name: 'host', data_type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'ts', data_type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false, default: { kind: 'current_timestamp' } },
    { column_id: 2, name: 'usage', data_type: 'Float64', semantic_type: 'field', nullable: true, default: { kind: 'value', value: 0.5 }, comment: 'per cent ✓' },
  ],
  primary_key: ['host'],
  time_index: 'ts',
  engine: 'mito',
  options: { ttl: '7d' },
  region_numbers: [0, 1],
  partition: { columns: ['host'], exprs: ["host < 'm'", "host >= 'm'"] },
  next_column_id: 3,
  schema_version: 2,
  created_at: 1_700_000_000_123,
};

// ---- every method round-trips ----

test('meta service: a heartbeat and its answer round-trip (u64 region ids, optional fields)', async () => {
  const req: HeartbeatRequest = {
    role: 'datanode',
    peer: { id: 3, addr: '10.0.0.3:4001' },
    version: '0.1.0',
    start_time_ms: 1_700_000_000_000,
    regions: [
      { region_id: '18446744073709551615', memtable_rows: 1, memtable_bytes: 2, sst_rows: 2 ** 53 - 1, sst_files: 4, sst_bytes: 5 },
      { region_id: String((1025n << 32n) | 1n), memtable_rows: 0, memtable_bytes: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 },
    ],
    shared_storage: true,
  };
  fake.heartbeatAnswer = {
    lease_ms: 9000,
    heartbeat_interval_ms: 3000,
    leased_regions: ['18446744073709551615'],
    close_regions: [String((1025n << 32n) | 1n)],
    open_regions: [
      { region_id: String(1026n << 32n), dir: 'data/tsdb/public/1026/1026_0000000000/' },
      { region_id: String((1026n << 32n) | 1n), dir: 'd2/', storage: 'S3' },
      { region_id: '7', dir: '', storage: '' },
    ],
  };
  assert.deepEqual(await client.heartbeat(req), fake.heartbeatAnswer);
  assert.deepEqual(fake.heartbeats.at(-1), req);

  const frontend: HeartbeatRequest = { role: 'frontend', peer: { id: 0xffff_ffff, addr: '127.0.0.1:4001' }, version: '', start_time_ms: 0, regions: [] };
  fake.heartbeatAnswer = { lease_ms: 0, heartbeat_interval_ms: 18000, leased_regions: [], close_regions: [], open_regions: [] };
  assert.deepEqual(await client.heartbeat(frontend), fake.heartbeatAnswer);
  assert.deepEqual(fake.heartbeats.at(-1), frontend);
  assert.equal('shared_storage' in fake.heartbeats.at(-1)!, false);
});

test('meta service: get answers the exact bytes, an empty value, or undefined for no key', async () => {
  const bytes = new Uint8Array([0, 255, 1, 0, 128, 0x7f, 0xc3, 0x28]);
  fake.kv.set('__table_info/1025', bytes);
  fake.kv.set('empty', new Uint8Array(0));
  fake.kv.set('clé ✓', Buffer.from('{"a":1}'));
  const got = await client.get('__table_info/1025');
  assert.ok(got instanceof Uint8Array);
  assert.deepEqual([...got], [...bytes]);
  const empty = await client.get('empty');
  assert.ok(empty !== undefined && empty.length === 0);
  assert.equal(await client.get('missing'), undefined);
  assert.equal(Buffer.from((await client.get('clé ✓'))!).toString(), '{"a":1}');
  assert.equal(await client.get(''), undefined);
});

test('meta service: range answers entries in key order, an empty range, and a big range exactly', async () => {
  assert.deepEqual(await client.range('__nothing_here/'), []);
  const big = new Map<string, Uint8Array>();
  // 20,000 entries of 512 bytes: a 10 MiB answer, past grpc-js's 4 MiB default.
  for (let i = 0; i < 20_000; i++) big.set(`__big/${String(i).padStart(6, '0')}`, randomBytes(512));
  for (const [k, v] of big) fake.kv.set(k, v);
  const started = Date.now();
  const entries = await client.range('__big/');
  const ms = Date.now() - started;
  assert.equal(entries.length, big.size);
  const keys = [...big.keys()].sort();
  for (let i = 0; i < entries.length; i++) {
    assert.equal(entries[i]!.key, keys[i]);
    assert.ok(Buffer.from(entries[i]!.value).equals(big.get(keys[i]!)!), `value of ${keys[i]}`);
  }
  assert.ok(ms < 2000, `a 10 MiB range took ${ms} ms`);
  const all = await client.range('');
  assert.equal(all.length, fake.kv.size);
  for (const k of big.keys()) fake.kv.delete(k);
});

test('meta service: allocateTableId answers the metasrv ids in order', async () => {
  fake.nextTableId = 1024;
  assert.equal(await client.allocateTableId(), 1024);
  assert.equal(await client.allocateTableId(), 1025);
  fake.nextTableId = 0xffff_ffff;
  assert.equal(await client.allocateTableId(), 0xffff_ffff);
  // Past u32: the metasrv's fault, not sent wrapped around.
  await assert.rejects(client.allocateTableId(), isError(StatusCode.Internal, 'Internal error: 1003'));
  fake.nextTableId = 1024;
});

const VIEW: ViewInfo = {
  view_id: 1100,
  catalog: 'tsdb',
  database: 'public',
  name: 'v',
  definition: 'CREATE VIEW v AS SELECT 1',
  query: 'SELECT 1',
  query_database: 'public',
  columns: ['one'],
  plan_columns: ['1'],
  created_at: 1,
};

test('meta service: every DDL task kind round-trips as JSON, with its result', async () => {
  const tasks: DdlTask[] = [
    { kind: 'create_table', info: TABLE, if_not_exists: true },
    { kind: 'alter_table', before: TABLE, after: { ...TABLE, schema_version: 3, options: {} } },
    { kind: 'drop_table', info: TABLE },
    { kind: 'truncate_table', info: { ...TABLE, partition: undefined } as unknown as TableInfo },
    { kind: 'create_database', name: 'db ✓', options: { ttl: '1d' }, if_not_exists: false },
    { kind: 'alter_database', name: 'db', set: { ttl: '2d' }, unset: ['compaction.type'] },
    { kind: 'drop_database', name: 'db' },
    { kind: 'create_view', info: VIEW, replace: true },
    { kind: 'drop_view', info: VIEW },
  ];
  for (const created of [true, false, undefined]) {
    fake.ddlResult = created === undefined ? {} : { created };
    for (const task of tasks) {
      const result = await client.ddl(task);
      assert.deepEqual(result, fake.ddlResult);
      assert.deepEqual(fake.ddls.at(-1)!.task, JSON.parse(JSON.stringify(task)));
    }
  }
  // The metasrv is given what is left of the call's deadline (ddl_timeout, 10 s by default).
  const t = fake.ddls.at(-1)!.timeoutMs!;
  assert.ok(t > 9000 && t <= 10_000, `timeout ${t}`);
  await client.ddl(tasks[6]!, 1234);
  assert.ok(fake.ddls.at(-1)!.timeoutMs! <= 1234);
});

test('meta service: clusterInfo round-trips every node (roles, optional region count)', async () => {
  fake.nodes = [
    { peer: { id: 0, addr: '127.0.0.1:3002' }, role: 'metasrv', version: '0.1.0', start_time_ms: 1_700_000_000_000, last_activity_ms: 1_700_000_100_000, alive: true },
    { peer: { id: 1, addr: '127.0.0.1:4101' }, role: 'datanode', version: '0.1.0', start_time_ms: 5, last_activity_ms: 6, alive: false, region_count: 12 },
    { peer: { id: 0xfedc_ba98, addr: '127.0.0.1:4001' }, role: 'frontend', version: '', start_time_ms: 0, last_activity_ms: 0, alive: true, region_count: 0 },
  ];
  assert.deepEqual(await client.clusterInfo(), fake.nodes);
  fake.nodes = [];
  assert.deepEqual(await client.clusterInfo(), []);
});

// ---- errors ----

test('meta service: a metasrv error arrives with its code and message', async () => {
  const cases: Array<[() => Promise<unknown>, TsdbError]> = [
    [() => client.ddl({ kind: 'create_table', info: TABLE, if_not_exists: false }), new TsdbError(StatusCode.TableAlreadyExists, 'Table already exists: `tsdb.public.cpu`')],
    [() => client.ddl({ kind: 'drop_database', name: 'x' }), new TsdbError(StatusCode.InvalidArguments, 'Invalid database name: x ✓ "quoted"')],
    [() => client.get('k'), new TsdbError(StatusCode.DatabaseNotFound, 'Database not found: nope')],
    [() => client.heartbeat({ role: 'frontend', peer: { id: 1, addr: 'a' }, version: '', start_time_ms: 0, regions: [] }), new TsdbError(StatusCode.RegionBusy, 'busy')],
    [() => client.allocateTableId(), new TsdbError(StatusCode.StorageUnavailable, 'etcd is unreachable: ' + 'x'.repeat(3000))],
  ];
  for (const [call, error] of cases) {
    fake.fail = error;
    await assert.rejects(call(), isError(error.code, error.message));
  }
  // A fault inside the metasrv keeps its code; its text stays on the server.
  fake.fail = new Error('secret internals');
  await assert.rejects(client.range('x'), isError(StatusCode.Internal, 'Internal error: 1003'));
});

/** A raw unary call with hand-built bytes, for what the client would never send. */
function rawCall(method: string, bytes: Uint8Array): Promise<void> {
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
  return new Promise<void>((resolve, reject) => {
    raw.makeUnaryRequest(`/tsdb.meta.v1.Meta/${method}`, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), (err) => {
      raw.close();
      if (err) reject(err);
      else resolve();
    });
  });
}

test('meta service: what a client sends wrong is InvalidArguments', async () => {
  const m = metaMethods();
  const invalidArgs = (pattern: RegExp) => (err: unknown) => {
    const e = err as grpc.ServiceError;
    assert.equal(e.code, grpc.status.INVALID_ARGUMENT, e.details);
    assert.equal(e.metadata.get('x-tsdb-err-code')[0], String(StatusCode.InvalidArguments));
    assert.match(e.details, pattern);
    return true;
  };
  await assert.rejects(rawCall('Ddl', m.Ddl!.requestSerialize({ task: Buffer.from('{not json') })), invalidArgs(/The DDL task is not JSON/));
  await assert.rejects(rawCall('Ddl', m.Ddl!.requestSerialize({ task: Buffer.from('{"kind":"create_flow"}') })), invalidArgs(/unknown kind "create_flow"/));
  // A view task of the wrong shape never reaches the metasrv.
  await assert.rejects(rawCall('Ddl', m.Ddl!.requestSerialize({ task: Buffer.from(JSON.stringify({ kind: 'create_view', info: { ...VIEW, query: 1 }, replace: false })) })), invalidArgs(/create_view does not fit: query is not a string/));
  const noColumns = JSON.stringify({ kind: 'create_table', info: { ...TABLE, columns: 'x' }, if_not_exists: false });
  await assert.rejects(rawCall('Ddl', m.Ddl!.requestSerialize({ task: Buffer.from(noColumns) })), invalidArgs(/not a TableInfo: columns is not an array/));
  await assert.rejects(rawCall('Heartbeat', m.Heartbeat!.requestSerialize({ role: 3, peer: { id: 1, addr: 'a' } })), invalidArgs(/not a metasrv/));
  await assert.rejects(rawCall('Heartbeat', m.Heartbeat!.requestSerialize({ role: 1 })), invalidArgs(/names no peer/));
  // Field 1 of GetRequest as a varint where a string belongs: undecodable.
  await assert.rejects(rawCall('Get', new Uint8Array([0x0a, 0xff])), invalidArgs(/Failed to decode GetRequest/));
  // And the client refuses what it cannot encode before sending it.
  await assert.rejects(client.heartbeat({ role: 'datanode', peer: { id: -1, addr: 'a' }, version: '', start_time_ms: 0, regions: [] }), isError(StatusCode.InvalidArguments, /peer id -1/));
  await assert.rejects(
    client.heartbeat({ role: 'datanode', peer: { id: 1, addr: 'a' }, version: '', start_time_ms: 0, regions: [{ region_id: 'r1', memtable_rows: 0, memtable_bytes: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 }] }),
    isError(StatusCode.InvalidArguments, /region_id "r1" is not a u64/),
  );
});

// ---- deadlines ----

test('meta service: a unary call past meta_client.timeout fails with DeadlineExceeded', async () => {
  const quick = newClient({ timeoutMs: 150 });
  await quick.get('warm-up');
  fake.delayMs = 600;
  try {
    const started = Date.now();
    await assert.rejects(quick.get('slow'), isError(StatusCode.DeadlineExceeded, new RegExp(`get of slow on metasrv ${addr} timed out after 150 ms`)));
    const ms = Date.now() - started;
    assert.ok(ms >= 140 && ms < 500, `failed after ${ms} ms`);
  } finally {
    fake.delayMs = 0;
  }
});

test('meta service: a DDL task has ddl_timeout for deadline, not the unary timeout; an explicit one wins', async () => {
  const c = newClient({ timeoutMs: 100, ddlTimeoutMs: 250 });
  fake.delayMs = 180;
  try {
    // Longer than timeoutMs, shorter than ddlTimeoutMs.
    assert.deepEqual(await c.ddl({ kind: 'drop_database', name: 'a' }), fake.ddlResult);
    fake.delayMs = 600;
    let started = Date.now();
    await assert.rejects(c.ddl({ kind: 'drop_database', name: 'b' }), isError(StatusCode.DeadlineExceeded, /DDL drop_database on metasrv .* timed out after 250 ms: .* \(the metasrv may still complete it\)$/));
    let ms = Date.now() - started;
    assert.ok(ms >= 240 && ms < 550, `failed after ${ms} ms`);
    started = Date.now();
    await assert.rejects(c.ddl({ kind: 'drop_database', name: 'c' }, 120), isError(StatusCode.DeadlineExceeded, /timed out after 120 ms/));
    ms = Date.now() - started;
    assert.ok(ms >= 110 && ms < 450, `failed after ${ms} ms`);
  } finally {
    fake.delayMs = 0;
  }
  await sleep(700); // the fake's slow calls end before the next test
});

// ---- addresses ----

test('meta service: a dead first address is passed over for the second', async () => {
  const dead = await deadAddr();
  const c = newClient({ addrs: [dead, addr] });
  const before = fake.calls;
  fake.kv.set('k', Buffer.from('v'));
  const started = Date.now();
  assert.equal(Buffer.from((await c.get('k'))!).toString(), 'v');
  assert.ok(Date.now() - started < 1000);
  assert.equal(fake.calls, before + 1);
  // The live address stays in use.
  assert.deepEqual(await c.clusterInfo(), fake.nodes);
});

test('meta service: a silent first address is given connect_timeout, then the second is used', async () => {
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: 1 });
  proxy.mode = 'silent';
  try {
    const silent = proxy.endpoint.replace('http://', '');
    const c = newClient({ addrs: [silent, addr], connectTimeoutMs: 200, timeoutMs: 3000 });
    const started = Date.now();
    await c.allocateTableId();
    const ms = Date.now() - started;
    assert.ok(ms >= 190 && ms < 1500, `answered after ${ms} ms`);
    c.close();
  } finally {
    await proxy.close();
  }
});

test('meta service: no reachable metasrv is StorageUnavailable naming every address, within the connect timeout', async () => {
  const [a, b] = [await deadAddr(), await deadAddr()];
  const c = newClient({ addrs: [a, b], connectTimeoutMs: 1000, timeoutMs: 3000 });
  let started = Date.now();
  await assert.rejects(c.get('k'), isError(StatusCode.StorageUnavailable, new RegExp(`No metasrv is reachable \\(get of k\\): tried ${a} \\(connection failed.*\\), ${b} \\(connection failed`)));
  assert.ok(Date.now() - started < 1000, `failed after ${Date.now() - started} ms`);
  // A DDL task fails the same way (it never left).
  await assert.rejects(c.ddl({ kind: 'drop_database', name: 'x' }), isError(StatusCode.StorageUnavailable));

  const proxies = [await startFaultProxy({ host: '127.0.0.1', port: 1 }), await startFaultProxy({ host: '127.0.0.1', port: 1 })];
  try {
    for (const p of proxies) p.mode = 'silent';
    const silent = proxies.map((p) => p.endpoint.replace('http://', ''));
    const s = newClient({ addrs: silent, connectTimeoutMs: 200, timeoutMs: 3000 });
    started = Date.now();
    await assert.rejects(s.range(''), isError(StatusCode.StorageUnavailable, new RegExp(`tried ${silent[0]} \\(no connection within 200 ms\\), ${silent[1]} \\(no connection within 200 ms\\)`)));
    const ms = Date.now() - started;
    assert.ok(ms >= 390 && ms < 1000, `failed after ${ms} ms`);
    // The call's own deadline bounds the whole: the second address is not tried past it.
    const t = newClient({ addrs: silent, connectTimeoutMs: 200, timeoutMs: 250 });
    await assert.rejects(t.range(''), isError(StatusCode.StorageUnavailable, new RegExp(`${silent[1]} \\((no connection within \\d+ ms|not tried: the deadline passed)\\)`)));
    s.close();
    t.close();
  } finally {
    for (const p of proxies) await p.close();
  }
});

test('meta service: a read whose connection breaks under it is tried again; a DDL task is not', async () => {
  const port = Number(addr.split(':')[1]);
  const proxy = await startFaultProxy({ host: '127.0.0.1', port });
  const c = newClient({ addrs: [proxy.endpoint.replace('http://', '')], timeoutMs: 3000, ddlTimeoutMs: 3000 });
  try {
    fake.kv.set('k', Buffer.from('v'));
    await c.get('k');
    // The connection is cut while the metasrv works on the call.
    const cut = async (start: () => Promise<unknown>) => {
      const calls = fake.calls;
      fake.delayMs = 300;
      const pending = start();
      pending.catch(() => {});
      await waitUntil('the call to arrive', () => fake.calls > calls);
      fake.delayMs = 0;
      proxy.mode = 'pass';
      return pending;
    };
    const calls = fake.calls;
    assert.equal(Buffer.from((await cut(() => c.get('k'))) as Uint8Array).toString(), 'v');
    assert.equal(fake.calls, calls + 2, 'asked twice');
    const ddls = fake.ddls.length;
    await assert.rejects(cut(() => c.ddl({ kind: 'drop_database', name: 'x' })), isError(StatusCode.StorageUnavailable, /Metasrv .* is unavailable \(DDL drop_database\).*\(the metasrv may still complete it\)$/));
    await sleep(400);
    assert.equal(fake.ddls.length, ddls + 1, 'sent once');
  } finally {
    fake.delayMs = 0;
    c.close();
    await proxy.close();
  }
});

test('meta service: unary calls go on after a metasrv restart on the same port', async () => {
  const first = new FakeMeta();
  const s1 = await startServer(first);
  const c = newClient({ addrs: [s1.addr] });
  assert.equal(await c.allocateTableId(), 1024);
  await s1.server.shutdown();
  await assert.rejects(c.allocateTableId(), isError(StatusCode.StorageUnavailable, /No metasrv is reachable/));
  const s2 = await startServer(new FakeMeta(), s1.addr);
  try {
    assert.equal(await c.allocateTableId(), 1024);
  } finally {
    c.close();
    await s2.server.shutdown();
  }
});

test('meta service: a call after close fails with IllegalState', async () => {
  const c = newClient();
  await c.get('k');
  c.close();
  await assert.rejects(c.get('k'), isError(StatusCode.IllegalState, /closed/));
  assert.throws(() => c.subscribe(() => {}), isError(StatusCode.IllegalState));
});

// ---- subscriptions ----

test('meta service: a subscription starts with reset, then delivers events in order; unsubscribe stops it', async () => {
  const events: MetaEvent[] = [];
  const listenersBefore = fake.listeners.size;
  const stop = client.subscribe((e) => events.push(e));
  await waitUntil('the reset', () => events.length === 1);
  assert.deepEqual(events, [{ kind: 'reset' }]);
  assert.equal(fake.listeners.size, listenersBefore + 1);
  const sent: MetaEvent[] = [];
  for (let i = 0; i < 500; i++) sent.push(i % 3 === 0 ? { kind: 'table_changed', table_id: 1024 + i } : i % 3 === 1 ? { kind: 'database_changed', name: `db${i} ✓` } : { kind: 'reset' });
  for (const e of sent) fake.emit(e);
  await waitUntil('every event', () => events.length === 1 + sent.length);
  assert.deepEqual(events.slice(1), sent);
  stop();
  await waitUntil('the server to drop the listener', () => fake.listeners.size === listenersBefore);
  fake.emit({ kind: 'table_changed', table_id: 1 });
  await sleep(100);
  assert.equal(events.length, 1 + sent.length);
});

test('meta service: a subscription survives a metasrv restart on the same port, resetting caches', async () => {
  const first = new FakeMeta();
  const s1 = await startServer(first);
  const c = newClient({ addrs: [s1.addr], reconnectBackoff: { initialMs: 50, maxMs: 200 } });
  const events: MetaEvent[] = [];
  c.subscribe((e) => events.push(e));
  await waitUntil('the first reset', () => events.length === 1);
  first.emit({ kind: 'table_changed', table_id: 1 });
  await waitUntil('the first event', () => events.length === 2);

  const started = Date.now();
  await s1.server.shutdown();
  assert.ok(Date.now() - started < 1000, 'shutdown did not wait for the subscription');
  assert.equal(first.listeners.size, 0);
  await sleep(300); // a few failed reconnects
  const second = new FakeMeta();
  const s2 = await startServer(second, s1.addr);
  try {
    await waitUntil('the reset after the restart', () => events.length === 3);
    assert.deepEqual(events, [{ kind: 'reset' }, { kind: 'table_changed', table_id: 1 }, { kind: 'reset' }]);
    second.emit({ kind: 'database_changed', name: 'after' });
    await waitUntil('an event of the new metasrv', () => events.length === 4);
    assert.deepEqual(events[3], { kind: 'database_changed', name: 'after' });
    // And unary calls work again on the same client.
    assert.equal(await c.allocateTableId(), 1024);
    c.close();
    await waitUntil('the new server to drop the listener', () => second.listeners.size === 0);
  } finally {
    await s2.server.shutdown();
  }
});

test('meta service: a subscription retries with a capped backoff while no metasrv answers, and close stops it', async () => {
  const proxy = await startFaultProxy({ host: '127.0.0.1', port: 1 });
  proxy.mode = 'refuse';
  try {
    const c = newClient({ addrs: [proxy.endpoint.replace('http://', '')], reconnectBackoff: { initialMs: 20, maxMs: 100 } });
    const events: MetaEvent[] = [];
    c.subscribe((e) => events.push(e));
    await sleep(400); // 20, 40, 80, then 100 ms apart: past the cap
    const early = proxy.connections;
    await sleep(1000);
    const inOneSecond = proxy.connections - early;
    // Capped at 100 ms (±20 %): about 10 attempts a second (grpc-js may open more than one
    // connection in an attempt that the peer resets); uncapped doubling would make 1 or 2, a
    // retry without delay hundreds.
    assert.ok(inOneSecond >= 6 && inOneSecond <= 40, `${inOneSecond} connections in one second`);
    assert.deepEqual(events, []);
    c.close();
    await sleep(100); // a connection begun before close may still land
    const closedAt = proxy.connections;
    await sleep(500);
    assert.equal(proxy.connections, closedAt, 'no attempt after close');
  } finally {
    await proxy.close();
  }
});

test('meta service: a subscriber that stops reading is cut off rather than buffered without end', async () => {
  const meta = new FakeMeta();
  const s = await startServer(meta);
  const raw = new grpc.Client(s.addr, grpc.credentials.createInsecure());
  try {
    const m = metaMethods().Subscribe!;
    const call = raw.makeServerStreamRequest(m.path, m.requestSerialize, m.responseDeserialize, {}, new grpc.Metadata(), {});
    const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    call.on('error', () => {});
    await new Promise((resolve) => call.once('metadata', resolve));
    call.pause();
    // Far more than the HTTP/2 windows hold plus MAX_PENDING_EVENTS.
    for (let i = 0; i < 200_000 && meta.listeners.size > 0; i++) {
      meta.emit({ kind: 'database_changed', name: `a database with a long name ${i}` });
      if (i % 1000 === 999) await sleep(1);
    }
    await waitUntil('the server to cut the subscriber', () => meta.listeners.size === 0);
    call.resume();
    const st = await status;
    assert.equal(st.code, grpc.status.RESOURCE_EXHAUSTED, st.details);
    assert.equal(st.metadata.get('x-tsdb-err-code')[0], String(StatusCode.RuntimeResourcesExhausted));
  } finally {
    raw.close();
    await s.server.shutdown();
  }
});

test('meta service: server shutdown with open subscriptions ends promptly and removes their listeners', async () => {
  const meta = new FakeMeta();
  const s = await startServer(meta, '127.0.0.1:0', 10_000);
  const subs = [newClient({ addrs: [s.addr] }), newClient({ addrs: [s.addr] })];
  const events: MetaEvent[][] = [[], [], []];
  subs[0]!.subscribe((e) => events[0]!.push(e));
  subs[0]!.subscribe((e) => events[1]!.push(e));
  subs[1]!.subscribe((e) => events[2]!.push(e));
  await waitUntil('three subscriptions', () => events.every((e) => e.length === 1) && meta.listeners.size === 3);
  const started = Date.now();
  await s.server.shutdown();
  const ms = Date.now() - started;
  assert.ok(ms < 1000, `shutdown took ${ms} ms`);
  assert.equal(meta.listeners.size, 0);
  for (const c of subs) c.close();
});
