import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import pino from 'pino';
import { Float64, Int64, makeVector, RecordBatch, Table, Utf8, vectorFromArray, type Schema } from 'apache-arrow';
import { FlightClient } from '../../../test/support/flight-client.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import type { RegionId } from '../../types/region-id.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { RegionQuery, RegionQueryStream, RegionInfo, RegionServer, RegionSsts, RegionStatistics } from '../../types/region-server.js';
import type { KeyCondition } from '../../types/scan-request.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../../types/write-batch.js';
import { GrpcServer } from './grpc-server.js';
import { encodeRegionQuery, REGION_SERVICE_NAME, regionPackageDefinition } from './region-messages.js';
import { RemoteRegionServer } from './region-client.js';
import { addRegionService } from './region-service.js';

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const BIG_ID = (1024n << 32n) | 7n;

interface Recorded {
  readonly kind: string;
  readonly args: readonly unknown[];
}

interface QueryAnswer {
  readonly schema: Schema;
  readonly batches: () => AsyncGenerator<RecordBatch>;
}

/** A region server behind the interface: records requests, answers canned streams, throws what it is told. */
class DoubleRegionServer implements RegionServer {
  readonly calls: Recorded[] = [];
  /** Thrown by the next request (then cleared). */
  fail: unknown;
  /** Requests wait this long before answering. */
  delayMs = 0;
  stats: RegionStatistics = { memtable_rows: 12, memtable_bytes: 3456, sst_files: 2, sst_bytes: 2 ** 40, sst_rows: 2 ** 53 - 1 };
  regionInfo: RegionInfo = { state: 'Leader(Writable)', role: 'Leader', writable: true, committed_sequence: 2 ** 53 - 1, flushed_sequence: 7, manifest_version: 3, compaction_time_window: 3_600_000, region_options: '{"append_mode":false}' };
  sstList: RegionSsts = {
    manifest: [
      { file_id: 'f1', level: 1, file_path: 'tsdb/public/1/r/f1.parquet', file_size: 2 ** 40, index_file_path: null, index_file_size: null, num_rows: 7, num_row_groups: 1, min_ts: '-9223372036854775808', max_ts: '1700000000000000000', sequence: 42 },
    ],
    storage: [{ file_path: 'tsdb/public/1/r/f1.parquet', file_size: 2 ** 40 }],
    index_meta: [
      { file_id: 'f1', index_file_path: 'tsdb/public/1/r/f1.invidx', index_file_size: 90, index_type: 'inverted', column_id: 2, offset: 24, size: 40, value_kind: 'string', distinct_values: 3, segment_row_count: 1024, row_count: 7 },
    ],
  };
  answer: QueryAnswer | undefined;
  /** Awaited by a query before it answers (given the query's signal). */
  beforeAnswer: ((signal: AbortSignal) => Promise<void>) | undefined;
  readonly signals: AbortSignal[] = [];
  /** Iterators of the answers given, with whether return() was called on them. */
  readonly returned: boolean[] = [];

  private async record(kind: string, ...args: unknown[]): Promise<void> {
    this.calls.push({ kind, args });
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const fail = this.fail;
    this.fail = undefined;
    if (fail !== undefined) throw fail;
  }

  async createRegion(metadata: RegionMetadata, dir: string) {
    await this.record('create', metadata, dir);
  }
  async openRegion(id: RegionId, dir: string, storage?: string) {
    await this.record('open', id, dir, storage);
  }
  async closeRegion(id: RegionId) {
    await this.record('close', id);
  }
  async alterRegion(id: RegionId, metadata: RegionMetadata) {
    await this.record('alter', id, metadata);
  }
  async dropRegion(id: RegionId) {
    await this.record('drop', id);
  }
  async truncateRegion(id: RegionId) {
    await this.record('truncate', id);
  }
  async flushRegion(id: RegionId) {
    await this.record('flush', id);
  }
  async compactRegion(id: RegionId) {
    await this.record('compact', id);
  }
  async write(id: RegionId, batch: WriteBatch) {
    await this.record('write', id, batch);
    return batch.rowCount;
  }
  async statistics(id: RegionId) {
    await this.record('statistics', id);
    return this.stats;
  }
  async ssts(id: RegionId) {
    await this.record('ssts', id);
    return this.sstList;
  }
  async info(id: RegionId) {
    await this.record('info', id);
    return this.regionInfo;
  }
  async query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    await this.record('query', id, query);
    if (signal !== undefined) this.signals.push(signal);
    if (this.beforeAnswer !== undefined && signal !== undefined) await this.beforeAnswer(signal);
    const answer = this.answer;
    if (answer === undefined) throw new TsdbError(StatusCode.RegionNotFound, `Region ${id} not found`);
    const k = this.returned.push(false) - 1;
    const inner = answer.batches();
    const returned = this.returned;
    const batches: AsyncIterableIterator<RecordBatch> = {
      next: () => inner.next(),
      return: async () => {
        returned[k] = true;
        return inner.return(undefined);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return { schema: answer.schema, batches };
  }
}

let server: GrpcServer;
let regions: DoubleRegionServer;
let addr: string;
let client: RemoteRegionServer;

async function startServer(double: RegionServer, shutdownTimeout = 5000): Promise<{ server: GrpcServer; addr: string }> {
  const s = new GrpcServer({ logger: silentLogger(), shutdownTimeout });
  addRegionService(s, double, silentLogger());
  await s.start('127.0.0.1:0');
  return { server: s, addr: `127.0.0.1:${s.boundAddress()!.port}` };
}

before(async () => {
  regions = new DoubleRegionServer();
  ({ server, addr } = await startServer(regions));
  client = new RemoteRegionServer(addr);
});

after(async () => {
  client.close();
  await server.shutdown();
});

function lastCall(): Recorded {
  const c = regions.calls.at(-1);
  assert.ok(c !== undefined, 'the region server received no request');
  return c;
}

const METADATA: RegionMetadata = {
  region_id: String(BIG_ID),
  schema_version: 3,
  columns: [
    { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true, comment: 'the host, with ünïcode' },
    { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 2, name: 'usage', type: 'Float64', semantic_type: 'field', nullable: true, default: 0.5 },
    { column_id: 5, name: 'ok', type: 'Boolean', semantic_type: 'field', nullable: true, default: null },
  ],
  primary_key: [0],
  time_index: 1,
  options: {
    ttl: 86_400_000,
    append_mode: false,
    merge_mode: 'last_non_null',
    compaction_time_window: 3_600_000,
    storage: 'S3',
    memtable: { type: 'partition_tree', index_max_keys_per_shard: 8192 },
  },
};

test('region service: every region request reaches the region server as sent', async () => {
  await client.createRegion(METADATA, 'data/greptime/public/1024/1024_0000000007/');
  assert.deepStrictEqual(lastCall(), { kind: 'create', args: [METADATA, 'data/greptime/public/1024/1024_0000000007/'] });

  await client.openRegion(U64_MAX, 'dir/a', 'S3');
  assert.deepStrictEqual(lastCall(), { kind: 'open', args: [U64_MAX, 'dir/a', 'S3'] });
  await client.openRegion(0n, 'dir/b');
  assert.deepStrictEqual(lastCall(), { kind: 'open', args: [0n, 'dir/b', undefined] });
  await client.openRegion(BIG_ID, '', '');
  assert.deepStrictEqual(lastCall(), { kind: 'open', args: [BIG_ID, '', ''] }, 'an empty storage name stays a name');

  const altered: RegionMetadata = { ...METADATA, schema_version: 4, columns: [...METADATA.columns, { column_id: 6, name: 'n', type: 'UInt64', semantic_type: 'field', nullable: true }] };
  await client.alterRegion(BIG_ID, altered);
  assert.deepStrictEqual(lastCall(), { kind: 'alter', args: [BIG_ID, altered] });

  for (const [kind, call] of [
    ['close', (id: RegionId) => client.closeRegion(id)],
    ['drop', (id: RegionId) => client.dropRegion(id)],
    ['truncate', (id: RegionId) => client.truncateRegion(id)],
    ['flush', (id: RegionId) => client.flushRegion(id)],
    ['compact', (id: RegionId) => client.compactRegion(id)],
  ] as const) {
    await call(U64_MAX);
    assert.deepStrictEqual(lastCall(), { kind, args: [U64_MAX] });
  }

  assert.deepStrictEqual(await client.statistics(BIG_ID), regions.stats);
  assert.deepStrictEqual(lastCall(), { kind: 'statistics', args: [BIG_ID] });
  assert.deepStrictEqual(await client.ssts(BIG_ID), regions.sstList);
  assert.deepStrictEqual(lastCall(), { kind: 'ssts', args: [BIG_ID] });
  assert.deepStrictEqual(await client.info(BIG_ID), regions.regionInfo);
  assert.deepStrictEqual(lastCall(), { kind: 'info', args: [BIG_ID] });
});

function writeBatch(op: typeof OP_PUT | typeof OP_DELETE, rowCount: number, columns: Array<[number, Vector]>): WriteBatch {
  return { op, rowCount, columns: new Map(columns) };
}

test('region service: write batches of every vector type round-trip exactly', async () => {
  const nan = new Float64Array([NaN, -0, 0, Infinity, -Infinity, 1.5, Number.MIN_VALUE]);
  // A NaN with a payload of its own keeps its bits.
  new DataView(nan.buffer).setUint32(4, 0x7ff80001, true);
  const batches: WriteBatch[] = [
    writeBatch(OP_PUT, 7, [
      [0, { type: 'string', data: ['a', '', null, 'ünïcödé ✓', '😀', '', 'z'] }],
      [1, { type: 'int64', data: new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, 0n, -1n, 1_700_000_000_123_456_789n, 42n]) }],
      [2, { type: 'float64', data: nan, valid: new Uint8Array([1, 1, 0, 1, 1, 0, 1]) }],
      [3, { type: 'uint64', data: new BigUint64Array([U64_MAX, 2n ** 53n + 1n, 0n, 1n, 2n, 3n, 4n]), valid: new Uint8Array([1, 1, 1, 1, 1, 1, 1]) }],
      [4, { type: 'bool', data: new Uint8Array([1, 0, 1, 1, 0, 0, 1]), valid: new Uint8Array([0, 1, 1, 0, 1, 1, 1]) }],
      [5, { type: 'binary', data: [new Uint8Array([0, 255, 7]), new Uint8Array(0), null, new Uint8Array([1]), null, new Uint8Array([9, 9]), new Uint8Array(0)] }],
      [4_294_967_295, { type: 'float64', data: new Float64Array(7).fill(2.25) }],
    ]),
    // Values under NULLs are kept as they were.
    writeBatch(OP_DELETE, 3, [
      [9, { type: 'int64', data: new BigInt64Array([5n, 6n, 7n]), valid: new Uint8Array([0, 0, 0]) }],
      [8, { type: 'string', data: [null, null, null] }],
      [7, { type: 'bool', data: new Uint8Array([1, 1, 0]), valid: new Uint8Array([0, 1, 0]) }],
    ]),
    writeBatch(OP_PUT, 0, [
      [0, { type: 'string', data: [] }],
      [1, { type: 'int64', data: new BigInt64Array(0) }],
      [2, { type: 'binary', data: [] }],
    ]),
    writeBatch(OP_DELETE, 5, []),
    // Enough repeated strings to travel as a dictionary; NULLs and an empty string among them.
    writeBatch(OP_PUT, 1000, [
      [0, { type: 'string', data: Array.from({ length: 1000 }, (_, i) => (i % 11 === 0 ? null : i % 13 === 0 ? '' : `host-${i % 17}-ü`)) }],
      [1, { type: 'string', data: Array.from({ length: 1000 }, (_, i) => `unique ${i}`) }],
      [2, { type: 'float64', data: Float64Array.from({ length: 1000 }, (_, i) => i / 3), valid: Uint8Array.from({ length: 1000 }, (_, i) => (i % 9 === 0 ? 0 : 1)) }],
    ]),
  ];
  for (const batch of batches) {
    const rows = await client.write(BIG_ID, batch);
    assert.equal(rows, batch.rowCount);
    const call = lastCall();
    assert.equal(call.kind, 'write');
    assert.equal(call.args[0], BIG_ID);
    assert.deepStrictEqual(call.args[1], batch);
  }
});

test('region service: errors keep their code and message', async () => {
  regions.fail = new TsdbError(StatusCode.RegionNotFound, `Region ${BIG_ID}(1024, 7) not found: ünïcode and "quotes"`);
  await assert.rejects(client.flushRegion(BIG_ID), (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.RegionNotFound);
    assert.equal(err.message, `Region ${BIG_ID}(1024, 7) not found: ünïcode and "quotes"`);
    return true;
  });
  regions.fail = new TsdbError(StatusCode.StorageUnavailable, 'x'.repeat(5000));
  await assert.rejects(client.write(1n, writeBatch(OP_PUT, 0, [])), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.StorageUnavailable && err.message === 'x'.repeat(5000));
  regions.fail = new TsdbError(StatusCode.RegionBusy, 'busy');
  await assert.rejects(client.statistics(1n), { code: StatusCode.RegionBusy, message: 'busy' });
  // A fault that is no TsdbError is Internal, its text not shown.
  regions.fail = new Error('secret detail');
  await assert.rejects(client.closeRegion(1n), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.Internal && !err.message.includes('secret'));
  // A query that fails before its stream.
  regions.answer = undefined;
  await assert.rejects(client.query(5n, {}), { code: StatusCode.RegionNotFound, message: 'Region 5 not found' });
});

function table(n: number, offset = 0): Table {
  return new Table({
    host: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 3 === 2 ? null : `h${(i + offset) % 7}`)), new Utf8()),
    ts: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000 + i + offset)), new Int64()),
    usage: vectorFromArray(Array.from({ length: n }, (_, i) => (i % 5 === 4 ? null : (i + offset) * 0.5)), new Float64()),
  });
}

function answerOf(batches: RecordBatch[], schema: Schema = batches[0]!.schema): QueryAnswer {
  return {
    schema,
    batches: async function* () {
      for (const b of batches) yield b;
    },
  };
}

async function readAll(stream: RegionQueryStream): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of stream.batches) out.push(b);
  return out;
}

const rowsOf = (batches: readonly RecordBatch[]) => batches.flatMap((b) => b.toArray().map((r) => r.toJSON()));

test('region service: a region query answers its schema, then its batches', async () => {
  const sent = [table(10).batches[0]!, table(1, 10).batches[0]!, table(1000, 11).batches[0]!];
  regions.answer = answerOf(sent);
  const query: RegionQuery = { scan: { start: -5n, end: 2n ** 62n, keys: new Map<number, Array<string | bigint>>([[0, ['h1', '', 'ü']], [3, [-(2n ** 63n), 7n]], [4, []]]) }, sql: 'SELECT host, ts FROM region WHERE usage > 90' };
  const stream = await client.query(U64_MAX, query);
  assert.deepEqual(stream.schema.fields.map((f) => [f.name, String(f.type)]), [['host', 'Utf8'], ['ts', 'Int64'], ['usage', 'Float64']]);
  assert.deepStrictEqual(lastCall(), { kind: 'query', args: [U64_MAX, query] });
  const got = await readAll(stream);
  assert.deepEqual(got.map((b) => b.numRows), [10, 1, 1000]);
  assert.deepStrictEqual(rowsOf(got), rowsOf(sent));

  // Last rows and conditions on keys (for the inverted index) cross too.
  const conditions: RegionQuery = {
    scan: {
      lastRow: true,
      conditions: new Map<number, KeyCondition[]>([
        [0, [{ kind: 'not_in', values: ['a', ''] }, { kind: 'regex', pattern: '^h.*', full: false, negated: true }]],
        [3, [{ kind: 'like', pattern: 'x%_', negated: false }, { kind: 'not_in', values: [-(2n ** 63n)] }, { kind: 'regex', pattern: 'é', full: true, negated: false }]],
      ]),
    },
  };
  await readAll(await client.query(4n, conditions));
  assert.deepStrictEqual(lastCall().args, [4n, conditions]);
  // Without scan nor SQL; an empty SQL text stays one.
  for (const q of [{}, { sql: '' }, { scan: {} }, { scan: { end: -1n } }] as RegionQuery[]) {
    await readAll(await client.query(3n, q));
    assert.deepStrictEqual(lastCall().args, [3n, q]);
  }
});

test('region service: at debug level a region query logs its rows, bytes sent, timings, scan and fragment', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const double = new DoubleRegionServer();
  const sent = [table(10).batches[0]!, table(5, 10).batches[0]!];
  double.answer = answerOf(sent);
  const s = new GrpcServer({ logger: silentLogger(), shutdownTimeout: 5000 });
  addRegionService(s, double, logger);
  await s.start('127.0.0.1:0');
  const c = new RemoteRegionServer(`127.0.0.1:${s.boundAddress()!.port}`);
  try {
    const query: RegionQuery = { scan: { start: 5n, end: 2n ** 62n, keys: new Map<number, Array<string | bigint>>([[0, ['h1']], [3, [7n]]]) }, sql: 'SELECT host FROM region' };
    await readAll(await c.query(BIG_ID, query));
    // The line is written after the call ends, which the client may see first.
    for (let i = 0; i < 100 && !lines.some((l) => l['msg'] === 'region query answered'); i++) await new Promise((r) => setTimeout(r, 10));
    const line = lines.find((l) => l['msg'] === 'region query answered');
    assert.ok(line !== undefined, JSON.stringify(lines));
    assert.equal(line['region'], '4398046511111(1024, 7)');
    assert.equal(line['rows'], 15);
    assert.deepEqual(line['scan'], { start: '5', end: String(2n ** 62n), keys: { 0: ['h1'], 3: ['7'] } });
    assert.equal(line['sql'], 'SELECT host FROM region');
    // The schema and two batches, each an IPC header and body: at least the batches' 15 float64 values.
    assert.ok(typeof line['bytes'] === 'number' && line['bytes'] > 15 * 8, String(line['bytes']));
    const [open, first, elapsed] = [line['open_ms'], line['first_batch_ms'], line['elapsed_ms']] as number[];
    assert.ok(open! >= 0 && open! <= first! && first! <= elapsed!, JSON.stringify(line));
  } finally {
    c.close();
    await s.shutdown();
  }
});

test('region service: a query of no rows still answers its schema', async () => {
  const schema = table(1).schema;
  regions.answer = answerOf([], schema);
  const stream = await client.query(1n, {});
  assert.deepEqual(stream.schema.fields.map((f) => f.name), ['host', 'ts', 'usage']);
  assert.deepEqual(await readAll(stream), []);
  // And batches of zero rows arrive as such.
  regions.answer = answerOf([table(0).batches[0] ?? new RecordBatch(schema)], schema);
  const batches = await readAll(await client.query(1n, {}));
  assert.deepEqual(batches.map((b) => b.numRows), [0]);
});

test('region service: batches past 4 MiB, one by one and in all', async () => {
  const big = (n: number, seed: number) =>
    new Table({ v: makeVector(Float64Array.from({ length: n }, (_, i) => i * seed)), s: vectorFromArray(Array.from({ length: n }, (_, i) => `row ${i}`), new Utf8()) }).batches[0]!;
  // One batch of ~7 MB, then three of ~2.5 MB.
  const sent = [big(500_000, 1), big(180_000, 2), big(180_000, 3), big(180_000, 4)];
  regions.answer = answerOf(sent);
  const got = await readAll(await client.query(1n, {}));
  assert.deepEqual(got.map((b) => b.numRows), [500_000, 180_000, 180_000, 180_000]);
  for (let k = 0; k < sent.length; k++) {
    assert.deepStrictEqual(got[k]!.getChild('v')!.toArray(), sent[k]!.getChild('v')!.toArray());
    assert.equal(got[k]!.getChild('s')!.get(179_999), 'row 179999');
  }
});

/** An answer that gives one batch, then waits until its query's signal aborts (then fails with its reason). */
function stallingAnswer(): QueryAnswer {
  const first = table(5).batches[0]!;
  const double = regions;
  return {
    schema: first.schema,
    batches: async function* () {
      yield first;
      const signal = double.signals.at(-1)!;
      await new Promise((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    },
  };
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('region service: the client aborting a query mid-stream aborts it on the region server', async () => {
  regions.answer = stallingAnswer();
  const controller = new AbortController();
  const stream = await client.query(1n, {}, controller.signal);
  const first = await stream.batches.next();
  assert.equal(first.done, false);
  const pending = stream.batches.next();
  const k = regions.returned.length - 1;
  const reason = new TsdbError(StatusCode.Cancelled, 'the frontend gave up');
  controller.abort(reason);
  await assert.rejects(pending, (err: unknown) => err === reason);
  const serverSignal = regions.signals.at(-1)!;
  await until('the server-side signal aborts', () => serverSignal.aborted);
  assert.ok(serverSignal.reason instanceof TsdbError);
  assert.equal(serverSignal.reason.code, StatusCode.Cancelled);
  await until('the batches are returned', () => regions.returned[k] === true);
  // Reading on after the abort fails the same way.
  await assert.rejects(stream.batches.next(), (err: unknown) => err === reason);
});

test('region service: a signal aborted between reads fails the next read; one aborted before the query fails it at once', async () => {
  regions.answer = answerOf([table(3).batches[0]!, table(3).batches[0]!]);
  const controller = new AbortController();
  const stream = await client.query(1n, {}, controller.signal);
  await stream.batches.next();
  controller.abort(new Error('stop'));
  await assert.rejects(stream.batches.next(), { message: 'stop' });
  const calls = regions.calls.length;
  await assert.rejects(client.query(1n, {}, AbortSignal.abort(new Error('before'))), { message: 'before' });
  assert.equal(regions.calls.length, calls, 'no call was made');
});

test('region service: aborting a query before its schema arrives fails it and aborts it on the region server', async () => {
  regions.answer = answerOf([table(3).batches[0]!]);
  regions.beforeAnswer = (signal) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  try {
    const controller = new AbortController();
    const known = regions.signals.length;
    const pending = client.query(1n, {}, controller.signal);
    await until('the query reaches the region server', () => regions.signals.length > known);
    const serverSignal = regions.signals.at(-1)!;
    controller.abort(new Error('no longer wanted'));
    await assert.rejects(pending, { message: 'no longer wanted' });
    await until('the server-side signal aborts', () => serverSignal.aborted);
  } finally {
    regions.beforeAnswer = undefined;
  }
});

test('region service: a closed client fails its calls clearly', async () => {
  const closed = new RemoteRegionServer(addr);
  await closed.flushRegion(1n);
  closed.close();
  await assert.rejects(closed.flushRegion(1n), (err: unknown) => err instanceof TsdbError && err.message.includes(addr));
  await assert.rejects(closed.query(1n, {}), (err: unknown) => err instanceof TsdbError && err.message.includes(addr));
});

test('region service: returning early from the batches stops the query on the region server', async () => {
  regions.answer = stallingAnswer();
  const stream = await client.query(1n, {});
  const k = regions.returned.length - 1;
  for await (const b of stream.batches) {
    assert.equal(b.numRows, 5);
    break;
  }
  const serverSignal = regions.signals.at(-1)!;
  await until('the server-side signal aborts', () => serverSignal.aborted);
  await until('the batches are returned', () => regions.returned[k] === true);
  assert.deepEqual(await stream.batches.next(), { done: true, value: undefined });

  // return() before reading anything stops it too.
  regions.answer = stallingAnswer();
  const unread = await client.query(1n, {});
  const j = regions.returned.length - 1;
  await unread.batches.return!();
  await until('the unread query is stopped', () => regions.signals.at(-1)!.aborted && regions.returned[j] === true);
});

test('region service: a failure mid-stream reaches the reader with its code', async () => {
  const first = table(4).batches[0]!;
  regions.answer = {
    schema: first.schema,
    batches: async function* () {
      yield first;
      throw new TsdbError(StatusCode.StorageUnavailable, 'object store gone mid-scan');
    },
  };
  const stream = await client.query(1n, {});
  assert.equal((await stream.batches.next()).done, false);
  await assert.rejects(stream.batches.next(), { code: StatusCode.StorageUnavailable, message: 'object store gone mid-scan' });
});

test('region service: batches are produced as the client reads them (back-pressure)', async () => {
  let produced = 0;
  const batch = new Table({ v: makeVector(new Float64Array(131_072).fill(1.5)) }).batches[0]!; // 1 MiB
  regions.answer = {
    schema: batch.schema,
    batches: async function* () {
      for (let i = 0; i < 200; i++) {
        produced++;
        yield batch;
      }
    },
  };
  const stream = await client.query(1n, {});
  await stream.batches.next();
  await new Promise((r) => setTimeout(r, 500));
  // 200 MiB were ready to go; the server stopped at what the windows and buffers hold.
  assert.ok(produced < 100, `the server produced ${produced} batches for a client that read one`);
  let read = 1;
  for await (const b of stream.batches) read += b.numRows > 0 ? 1 : 0;
  assert.equal(read, 200);
  assert.equal(produced, 200);
});

test('region service: a region request past its deadline fails with DeadlineExceeded', async () => {
  const impatient = new RemoteRegionServer(addr, { requestTimeoutMs: 200 });
  regions.delayMs = 2000;
  try {
    const started = Date.now();
    await assert.rejects(impatient.flushRegion(1n), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.DeadlineExceeded && err.message.includes(addr));
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 150 && elapsed < 1500, `failed after ${elapsed} ms`);
  } finally {
    regions.delayMs = 0;
    impatient.close();
  }
});

test('region service: a region server stopped mid-stream fails the read, not hangs it', async () => {
  const double = new DoubleRegionServer();
  const { server: doomed, addr: doomedAddr } = await startServer(double, 100);
  const remote = new RemoteRegionServer(doomedAddr);
  try {
    const first = table(5).batches[0]!;
    double.answer = {
      schema: first.schema,
      batches: async function* () {
        yield first;
        await new Promise(() => {});
      },
    };
    const stream = await remote.query(1n, {});
    assert.equal((await stream.batches.next()).done, false);
    const pending = stream.batches.next();
    const started = Date.now();
    await doomed.shutdown();
    await assert.rejects(pending, (err: unknown) => err instanceof TsdbError);
    assert.ok(Date.now() - started < 5000);
    assert.ok(double.signals[0]!.aborted, 'the server-side query was cancelled');
  } finally {
    remote.close();
    await doomed.shutdown();
  }
});

test('region service: a request to a stopped region server fails with StorageUnavailable within its deadline', async () => {
  const { server: gone, addr: goneAddr } = await startServer(new DoubleRegionServer());
  await gone.shutdown();
  const remote = new RemoteRegionServer(goneAddr, { requestTimeoutMs: 3000 });
  try {
    assert.equal(String(remote), `RemoteRegionServer(${goneAddr})`);
    const started = Date.now();
    await assert.rejects(remote.flushRegion(1n), (err: unknown) => {
      assert.ok(err instanceof TsdbError);
      assert.equal(err.code, StatusCode.StorageUnavailable);
      assert.match(err.message, new RegExp(`Region server ${goneAddr} is unavailable \\(flush region 1\\)`));
      return true;
    });
    assert.ok(Date.now() - started < 3000);
    await assert.rejects(remote.query(1n, {}), { code: StatusCode.StorageUnavailable });
  } finally {
    remote.close();
  }
});

test('region service: a region server back after an outage is reached within a second or so', async () => {
  const double = new DoubleRegionServer();
  const first = await startServer(double);
  const remote = new RemoteRegionServer(first.addr, { requestTimeoutMs: 3000 });
  try {
    await remote.flushRegion(1n);
    await first.server.shutdown();
    // Six seconds of failed calls: grpc-js's default backoff would wait about 4 s before its next try.
    const down = Date.now();
    while (Date.now() - down < 6000) {
      await assert.rejects(remote.flushRegion(1n), { code: StatusCode.StorageUnavailable });
      await new Promise((r) => setTimeout(r, 100));
    }
    const again = new GrpcServer({ logger: silentLogger() });
    addRegionService(again, double, silentLogger());
    await again.start(first.addr);
    try {
      const back = Date.now();
      for (;;) {
        try {
          await remote.flushRegion(1n);
          break;
        } catch (err) {
          assert.ok(err instanceof TsdbError && err.code === StatusCode.StorageUnavailable, String(err));
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      assert.ok(Date.now() - back < 1600, `reached ${Date.now() - back} ms after it came back`);
    } finally {
      await again.shutdown();
    }
  } finally {
    remote.close();
  }
});

test('region service: a region server that stops answering mid-query (hung, paused) fails the query by the pings, not hangs it', { timeout: 10_000 }, async () => {
  const double = new DoubleRegionServer();
  const { server: hung, addr: hungAddr } = await startServer(double);
  // A proxy that can stop forwarding without closing anything: a process paused, packets dropped.
  const sockets: Socket[] = [];
  const proxy = createNetServer((client) => {
    const upstream = connect(Number(hungAddr.split(':')[1]), '127.0.0.1');
    sockets.push(client, upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const remote = new RemoteRegionServer(`127.0.0.1:${(proxy.address() as { port: number }).port}`, { keepalive: { timeMs: 200, timeoutMs: 300 } });
  try {
    const first = table(3).batches[0]!;
    double.answer = {
      schema: first.schema,
      batches: async function* () {
        yield first;
        await new Promise(() => {});
      },
    };
    const stream = await remote.query(1n, {});
    assert.equal((await stream.batches.next()).done, false);
    const pending = stream.batches.next();
    for (const s of sockets) {
      s.unpipe();
      s.pause();
    }
    const stalled = Date.now();
    await assert.rejects(pending, (err: unknown) => err instanceof TsdbError && err.code === StatusCode.StorageUnavailable);
    assert.ok(Date.now() - stalled < 3000, `failed ${Date.now() - stalled} ms after the server stopped answering`);
  } finally {
    remote.close();
    for (const s of sockets) s.destroy();
    proxy.close();
    await hung.shutdown();
  }
});

// ---- malformed input, from raw clients ----

function rawHandle(bytes: Uint8Array): Promise<void> {
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
  return new Promise<void>((resolve, reject) => {
    raw.makeUnaryRequest(
      `/${REGION_SERVICE_NAME}/Handle`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(bytes),
      (err) => {
        raw.close();
        if (err) reject(err);
        else resolve();
      },
    );
  });
}

function encodeRequest(request: Record<string, unknown>): Uint8Array {
  const method = (regionPackageDefinition()[REGION_SERVICE_NAME] as grpc.ServiceDefinition)['Handle']!;
  return method.requestSerialize(request);
}

async function refusedAsInvalid(p: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    const e = err as grpc.ServiceError;
    assert.equal(e.code, grpc.status.INVALID_ARGUMENT, e.details);
    assert.equal(e.metadata.get('x-tsdb-err-code')[0], String(StatusCode.InvalidArguments));
    assert.match(e.details, message);
    return true;
  });
}

test('region service: malformed region requests are InvalidArguments', async () => {
  const before = regions.calls.length;
  await refusedAsInvalid(rawHandle(Buffer.from([0xff, 0xff, 0xff, 0xff])), /Failed to decode RegionRequest/);
  await refusedAsInvalid(rawHandle(new Uint8Array(0)), /holds no request this server knows/);
  // Field 15 (unknown to this server), length-delimited.
  await refusedAsInvalid(rawHandle(Buffer.from([0x7a, 0x01, 0x00])), /holds no request this server knows/);
  await refusedAsInvalid(rawHandle(encodeRequest({ create: { metadata: '{not json', dir: 'd' } })), /not JSON/);
  await refusedAsInvalid(rawHandle(encodeRequest({ create: { metadata: '[]', dir: 'd' } })), /not a RegionMetadata: not an object/);
  await refusedAsInvalid(rawHandle(encodeRequest({ create: { metadata: JSON.stringify({ ...METADATA, region_id: '18446744073709551616' }), dir: 'd' } })), /region_id .* is not a u64/);
  await refusedAsInvalid(rawHandle(encodeRequest({ alter: { region_id: '1', metadata: JSON.stringify({ ...METADATA, columns: [{ ...METADATA.columns[0], type: 'Decimal' }] }) } })), /unknown type "Decimal"/);
  await refusedAsInvalid(rawHandle(encodeRequest({ alter: { region_id: '1', metadata: JSON.stringify({ ...METADATA, options: { append_mode: 'yes' } }) } })), /append_mode/);
  await refusedAsInvalid(rawHandle(encodeRequest({ write: { region_id: '1' } })), /holds no batch/);
  await refusedAsInvalid(rawHandle(encodeRequest({ write: { region_id: '1', batch: { op: 7, columns: Buffer.alloc(0) } } })), /Unknown write batch op 7/);
  await refusedAsInvalid(rawHandle(encodeRequest({ write: { region_id: '1', batch: { op: 1, columns: Buffer.from('not arrow at all') } } })), /Malformed write batch/);
  await refusedAsInvalid(rawHandle(encodeRequest({ write: { region_id: '1', batch: { op: 1, columns: Buffer.alloc(0) } } })), /Malformed write batch/);
  assert.equal(regions.calls.length, before, 'nothing malformed reached the region server');
});

test('region service: an undecodable ticket is InvalidArguments; other Flight methods are UNIMPLEMENTED', async () => {
  const flight = new FlightClient(addr);
  try {
    await refusedAsInvalid(flight.doGet(Buffer.from([0xff, 0xff, 0xff])), /Failed to decode RegionQueryRequest/);
    // A key value that is neither a string nor an integer.
    const noValue = Buffer.concat([Buffer.from(encodeRegionQuery(1n, {})), Buffer.from([0x12, 0x06, 0x1a, 0x04, 0x08, 0x01, 0x12, 0x00])]);
    await refusedAsInvalid(flight.doGet(noValue), /holds neither a string nor an integer/);
    await assert.rejects(
      new Promise((resolve, reject) => (flight.raw['GetSchema'] as (req: unknown, cb: (e: unknown, r: unknown) => void) => void)({ type: 1, path: ['x'] }, (e, r) => (e ? reject(e) : resolve(r)))),
      { code: grpc.status.UNIMPLEMENTED },
    );
    await assert.rejects(flight.doPutMessages([]), { code: grpc.status.UNIMPLEMENTED });
  } finally {
    flight.close();
  }
});
