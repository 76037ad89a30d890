/**
 * gRPC and Arrow Flight against line protocol and /v1/sql (issue 15), in one run, on the TSBS
 * cpu-only data of bench/tsbs.
 *
 * Ingest: each method gets a fresh tsdb (127.0.0.1, free ports, own temp dir), one after the other,
 * and loads the same rows in the same batches with the same concurrency:
 * - `lp`: InfluxDB line protocol, `POST /v1/influxdb/write?db=public&precision=ms` (bench/tsbs's
 *   lineProtocolBatch bodies, as it loads InfluxDB);
 * - `handle`: `greptime.v1.GreptimeDatabase/Handle`, one unary call per batch, a `row_inserts` of
 *   table `cpu` (tags STRING TAG, `tsdb_timestamp` TIMESTAMP_MILLISECOND TIMESTAMP, fields FLOAT64
 *   FIELD: the table line protocol creates);
 * - `stream`: `GreptimeDatabase/HandleRequests`, --concurrency client streams, the batches dealt
 *   round-robin to them, one `row_inserts` message per batch;
 * - `put`: Arrow Flight `DoPut` into a table created first, --concurrency calls as for `stream`,
 *   one record batch per batch.
 * Bodies (line protocol text, encoded protobuf, FlightData) are built a window at a time outside
 * the timed part, as bench/tsbs/load.ts does; their build CPU is reported as the client's encode
 * cost. Measured per method: rows/s, server CPU seconds per million rows (/proc/<pid>/stat over
 * the load, then until the server is idle), this process's CPU, the ratio to line protocol.
 * Checked: the stored count, per-host count / time range / sum of every field (equal across methods
 * and to the generated data within 1e-9 relative) and the table's columns (DESC TABLE).
 *
 * Read: a fresh server holding exactly --get-rows rows answers `SELECT * FROM cpu LIMIT <rows>`
 * over Flight `DoGet` and `POST /v1/sql` (JSON), alternately, --get-runs times each after a
 * warm-up; receive and client decode times, server CPU, bytes, and both answers' checksums.
 *
 * With --cpu-prof DIR each server runs under `node --cpu-prof` and the load window's (the last read
 * run's) top functions are listed (the profiled run's figures include the sampling overhead).
 *
 *   npm run build && node dist/bench/grpc/main.js [--hosts 100 --hours 24] [--methods lp,handle,stream,put] [--json f] [--cpu-prof dir]
 */
import * as grpc from '@grpc/grpc-js';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { monotonicUs, profileMarkdown, summarizeProfiles, type ProfileSummary, type ProfileWindow } from '../ingest/cpu-profile.js';
import { compareRows, tsdbRows, tsdbSql, type Row } from '../tsbs/clients.js';
import { FIELDS, generate, lineProtocolBatch, rowHost, rowTime, TAGS, type Dataset } from '../tsbs/data.js';
import { bulkLoad, type LoadResult } from '../tsbs/load.js';
import { cpuSeconds, installExitCleanup, log, rssBytes, startTsdb, waitIdle, type TsdbServer } from '../tsbs/servers.js';
import { greptimePackageDefinition } from '../../src/servers/grpc/protos.js';
import { IpcMessageEncoder } from '../../src/servers/grpc/arrow-ipc.js';
import { DESCRIPTOR_PATH, flightServiceDefinition, type FlightDataMessage, type PutResultMessage } from '../../src/servers/grpc/flight-service.js';
import { decodeDoGet, FlightClient, sqlTicket } from '../../test/support/flight-client.js';
import { makeVector, Table, TimestampMillisecond, Utf8, vectorFromArray, type RecordBatch, type Vector } from 'apache-arrow';

const METHODS = ['lp', 'handle', 'stream', 'put'] as const;
type Method = (typeof METHODS)[number];
const METHOD_NAMES: Readonly<Record<Method, string>> = {
  lp: 'line protocol (HTTP)',
  handle: 'gRPC Handle (row_inserts)',
  stream: 'gRPC HandleRequests (row_inserts)',
  put: 'Flight DoPut (Arrow)',
};

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '123' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    methods: { type: 'string', default: METHODS.join(',') },
    'get-rows': { type: 'string', default: '1000000' },
    'get-runs': { type: 'string', default: '3' },
    'no-get': { type: 'boolean', default: false },
    'get-max-result-bytes': { type: 'string', default: '1GiB' },
    'cpu-prof': { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

function positiveInt(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: a positive integer, not ${v}`);
  return n;
}

const HOSTS = positiveInt('hosts', opts.hosts);
const HOURS = Number(opts.hours);
if (!(HOURS > 0)) throw new Error(`--hours: a positive number, not ${opts.hours}`);
const SEED = Number(opts.seed);
const BATCH = positiveInt('batch', opts.batch);
const CONCURRENCY = positiveInt('concurrency', opts.concurrency);
const SELECTED = opts.methods.split(',').map((s) => s.trim()) as Method[];
for (const m of SELECTED) if (!METHODS.includes(m)) throw new Error(`--methods: ${METHODS.join(', ')}, not ${m}`);
const GET_ROWS = positiveInt('get-rows', opts['get-rows']);
const GET_RUNS = positiveInt('get-runs', opts['get-runs']);
const CPU_PROF = opts['cpu-prof'] === undefined ? undefined : resolve(opts['cpu-prof']);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);

/** The time index line protocol creates (src/servers/influxdb/line-protocol.ts TIMESTAMP_COLUMN). */
const TIME_INDEX = 'tsdb_timestamp';
const TABLE = 'cpu';
const DB = 'public';

// ---- gRPC client: requests encoded ahead, sent as bytes ----

/** ColumnDataType and SemanticType numbers (proto/greptime/v1/common.proto). */
const STRING = 12;
const FLOAT64 = 10;
const TIMESTAMP_MILLISECOND = 16;
const TAG = 0;
const FIELD = 1;
const TIMESTAMP = 2;

const SCHEMA = [
  ...TAGS.map((t) => ({ column_name: t, datatype: STRING, semantic_type: TAG })),
  { column_name: TIME_INDEX, datatype: TIMESTAMP_MILLISECOND, semantic_type: TIMESTAMP },
  ...FIELDS.map((f) => ({ column_name: f, datatype: FLOAT64, semantic_type: FIELD })),
];

const databaseDef = greptimePackageDefinition()['greptime.v1.GreptimeDatabase'] as grpc.ServiceDefinition;
const handleDef = databaseDef['Handle'] as grpc.MethodDefinition<unknown, unknown>;
const streamDef = databaseDef['HandleRequests'] as grpc.MethodDefinition<unknown, unknown>;
const asBytes = (b: Buffer): Buffer => b;

/** A `GreptimeRequest` with the `row_inserts` of rows [from, to), encoded (proto-loader's protobufjs). */
function rowInsertRequest(ds: Dataset, from: number, to: number): Buffer {
  const rows = new Array<{ values: object[] }>(to - from);
  for (let r = from; r < to; r++) {
    const tags = ds.tagValues[rowHost(ds, r)] ?? [];
    const values: object[] = tags.map((t) => ({ string_value: t }));
    values.push({ timestamp_millisecond_value: String(rowTime(ds, r)) });
    const base = r * FIELDS.length;
    for (let f = 0; f < FIELDS.length; f++) values.push({ f64_value: ds.values[base + f] ?? 0 });
    rows[r - from] = { values };
  }
  return handleDef.requestSerialize({ row_inserts: { inserts: [{ table_name: TABLE, rows: { schema: SCHEMA, rows } }] } });
}

type Client = grpc.Client & Record<string, Function>;

/** A GreptimeDatabase client whose requests are already-encoded bytes. */
function rawDatabaseClient(addr: string): Client {
  const Ctor = grpc.makeGenericClientConstructor({
    Handle: { ...handleDef, requestSerialize: asBytes },
    HandleRequests: { ...streamDef, requestSerialize: asBytes },
  }, 'GreptimeDatabase');
  return new Ctor(addr, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 }) as unknown as Client;
}

interface GreptimeResponse {
  readonly affected_rows?: { readonly value?: number } | null;
}

function affected(res: unknown): number {
  return Number((res as GreptimeResponse).affected_rows?.value ?? Number.NaN);
}

function unary(client: Client, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    client['Handle']!(body, new grpc.Metadata(), (err: grpc.ServiceError | null, res: unknown) => (err ? reject(new Error(`Handle: ${err.code} ${err.details}`)) : resolve(affected(res))));
  });
}

/**
 * bench/tsbs/load.ts's windows for streams (HandleRequests, DoPut): each window's batches are dealt
 * round-robin to `concurrency` shares, each share encoded (outside the timed part) into the
 * messages of one call, and the calls made at once; a window's time ends when every call has
 * answered. `send` makes one call and resolves to the rows the server says it wrote.
 */
async function streamLoad(
  label: string,
  ds: Dataset,
  encode: (ranges: ReadonlyArray<readonly [number, number]>) => Buffer[],
  send: (bodies: readonly Buffer[]) => Promise<number>,
): Promise<LoadResult & { affected: number }> {
  const batchCount = Math.ceil(ds.rows / BATCH);
  const windowBatches = Math.max(CONCURRENCY * 8, 32);
  let sendMs = 0;
  let rows = 0;
  let bodyBytes = 0;
  let affectedRows = 0;
  for (let w = 0; w < batchCount; w += windowBatches) {
    const shares: Array<Array<readonly [number, number]>> = Array.from({ length: CONCURRENCY }, () => []);
    for (let b = w; b < Math.min(batchCount, w + windowBatches); b++) {
      const from = b * BATCH;
      const to = Math.min(ds.rows, from + BATCH);
      rows += to - from;
      shares[(b - w) % CONCURRENCY]!.push([from, to]);
    }
    const calls = shares.filter((s) => s.length > 0).map((s) => encode(s));
    for (const c of calls) for (const b of c) bodyBytes += b.length;
    const t0 = performance.now();
    const counts = await Promise.all(calls.map((c) => send(c)));
    sendMs += performance.now() - t0;
    for (const c of counts) affectedRows += c;
  }
  const seconds = sendMs / 1000;
  log(`${label}: loaded ${rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s (${(bodyBytes / 2 ** 20).toFixed(0)} MiB of messages)`);
  return { rows, batches: batchCount, seconds, rowsPerSecond: rows / seconds, bodyBytes, affected: affectedRows };
}

/** Writes `bodies` into a client stream with flow control, then ends it. */
function writeAll(call: grpc.ClientWritableStream<Buffer> | grpc.ClientDuplexStream<Buffer, unknown>, bodies: readonly Buffer[]): void {
  let i = 0;
  const pump = (): void => {
    while (i < bodies.length) {
      if (!call.write(bodies[i++]!)) {
        call.once('drain', pump);
        return;
      }
    }
    call.end();
  };
  pump();
}

/** One HandleRequests call carrying `bodies` in order; resolves to its affected rows. */
function stream(client: Client, bodies: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = client['HandleRequests']!(new grpc.Metadata(), (err: grpc.ServiceError | null, res: unknown) => (err ? reject(new Error(`HandleRequests: ${err.code} ${err.details}`)) : resolve(affected(res)))) as grpc.ClientWritableStream<Buffer>;
    writeAll(call, bodies);
  });
}

// ---- Arrow Flight ----

const putDef = flightServiceDefinition()['DoPut'] as grpc.MethodDefinition<FlightDataMessage, PutResultMessage>;

/** A Flight client whose DoPut messages are already-encoded FlightData bytes. */
function rawFlightClient(addr: string): Client {
  const Ctor = grpc.makeGenericClientConstructor({ DoPut: { ...putDef, requestSerialize: asBytes } } as unknown as grpc.ServiceDefinition, 'FlightService');
  return new Ctor(addr, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 }) as unknown as Client;
}

/** The table DoPut writes into (DoPut creates none): the columns, in the order, line protocol and the gRPC rows make. */
const CREATE_TABLE =
  `CREATE TABLE ${TABLE} (${TAGS.map((t) => `${t} STRING`).join(', ')}, ${FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, ` +
  `${TIME_INDEX} TIMESTAMP(3) NOT NULL, TIME INDEX (${TIME_INDEX}), PRIMARY KEY (${TAGS.join(', ')}))`;

/** Rows [from, to) as one Arrow record batch: tags Utf8, the time index Timestamp(ms), fields Float64. */
function arrowBatch(ds: Dataset, from: number, to: number): RecordBatch {
  const n = to - from;
  const cols: Record<string, Vector> = {};
  TAGS.forEach((t, k) => {
    const xs = new Array<string>(n);
    for (let i = 0; i < n; i++) xs[i] = ds.tagValues[rowHost(ds, from + i)]?.[k] ?? '';
    cols[t] = vectorFromArray(xs, new Utf8());
  });
  const ts = new Array<number>(n);
  for (let i = 0; i < n; i++) ts[i] = rowTime(ds, from + i);
  cols[TIME_INDEX] = vectorFromArray(ts, new TimestampMillisecond());
  FIELDS.forEach((f, j) => {
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) xs[i] = ds.values[(from + i) * FIELDS.length + j] ?? 0;
    cols[f] = makeVector(xs);
  });
  const batch = new Table(cols).batches[0];
  if (batch === undefined) throw new Error('no record batch');
  return batch;
}

/** The FlightData of one DoPut of `ranges`: the descriptor and schema, then a batch per range with `{"request_id":n}`. */
function putBodies(ds: Dataset, ranges: ReadonlyArray<readonly [number, number]>): Buffer[] {
  const encoder = new IpcMessageEncoder();
  const out: Buffer[] = [];
  const none = Buffer.alloc(0);
  let id = 0;
  for (const [from, to] of ranges) {
    const batch = arrowBatch(ds, from, to);
    if (id === 0) {
      for (const m of encoder.start(batch.schema)) {
        out.push(putDef.requestSerialize({ flight_descriptor: { type: DESCRIPTOR_PATH, cmd: none, path: [TABLE] }, data_header: m.header, app_metadata: none, data_body: m.body }));
      }
    }
    const ms = encoder.write(batch);
    id++;
    ms.forEach((m, k) => out.push(putDef.requestSerialize({ flight_descriptor: null, data_header: m.header, app_metadata: k === ms.length - 1 ? Buffer.from(JSON.stringify({ request_id: id })) : none, data_body: m.body })));
  }
  return out;
}

/** One DoPut call; resolves, when the server ends it, to the sum of the acknowledged affected rows. */
function doPut(client: Client, bodies: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = client['DoPut']!(new grpc.Metadata()) as grpc.ClientDuplexStream<Buffer, PutResultMessage>;
    let rows = 0;
    call.on('data', (r: PutResultMessage) => {
      rows += Number((JSON.parse(Buffer.from(r.app_metadata).toString('utf8')) as { affected_rows?: number }).affected_rows ?? 0);
    });
    call.on('error', (err: grpc.ServiceError) => reject(new Error(`DoPut: ${err.code} ${err.details}`)));
    call.on('end', () => resolve(rows));
    writeAll(call, bodies);
  });
}

// ---- line protocol ----

async function lpWrite(baseUrl: string, body: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/influxdb/write?db=${DB}&precision=ms`, { method: 'POST', body });
  const text = await res.text();
  if (res.status !== 204) throw new Error(`line protocol write: HTTP ${res.status}: ${text.slice(0, 500)}`);
}

// ---- checks ----

const CHECKSUM_SQL =
  `SELECT hostname, count(*) AS n, min(${TIME_INDEX}) AS first_ms, max(${TIME_INDEX}) AS last_ms, ` +
  `${FIELDS.map((f) => `sum(${f}) AS ${f}`).join(', ')} FROM ${TABLE} GROUP BY hostname ORDER BY hostname`;

/** The per-host figures of CHECKSUM_SQL computed from the generated data. */
function expectedChecksums(ds: Dataset): Row[] {
  const out: Row[] = [];
  for (let h = 0; h < ds.hosts; h++) {
    const row: Row = { hostname: ds.tagValues[h]?.[0] ?? '', n: ds.steps, first_ms: ds.startMs, last_ms: ds.endMs - 10_000 };
    const sums = new Float64Array(FIELDS.length);
    for (let s = 0; s < ds.steps; s++) {
      const base = (s * ds.hosts + h) * FIELDS.length;
      for (let f = 0; f < FIELDS.length; f++) sums[f]! += ds.values[base + f] ?? 0;
    }
    FIELDS.forEach((f, i) => (row[f] = sums[i] ?? 0));
    out.push(row);
  }
  return out;
}

const PER_MS: Readonly<Record<string, number>> = { TimestampSecond: 1e-3, TimestampMillisecond: 1, TimestampMicrosecond: 1e3, TimestampNanosecond: 1e6 };

/**
 * The records of a `/v1/sql` answer by column name, timestamps as epoch ms (the time index is
 * nanoseconds in line protocol's table, milliseconds in the gRPC one), numbers as numbers.
 */
function records(body: string): Row[] {
  const parsed = JSON.parse(body) as { output?: Array<{ records?: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: Row[keyof Row][][] } }> };
  const rec = parsed.output?.[0]?.records;
  if (rec === undefined) return [];
  const cols = rec.schema.column_schemas;
  return rec.rows.map((cells) => {
    const row: Row = {};
    cols.forEach((c, i) => {
      const v = cells[i] ?? null;
      const per = PER_MS[c.data_type];
      row[c.name] = per !== undefined && v !== null ? Number(v) / per : /Int|Float/.test(c.data_type) && typeof v === 'string' ? Number(v) : v;
    });
    return row;
  });
}

/** DESC TABLE rows with the time index's type named by kind only (its unit is compared apart). */
function columnsOf(body: string): { columns: Row[]; timeIndexType: string } {
  const rows = records(body);
  let timeIndexType = '?';
  const columns = rows.map((r) => {
    if (r['Column'] !== TIME_INDEX) return r;
    timeIndexType = String(r['Type']);
    return { ...r, Type: 'Timestamp(…)' };
  });
  return { columns, timeIndexType };
}

// ---- runs ----

interface MethodResult {
  readonly method: Method;
  version?: string;
  load?: LoadResult;
  /** Affected rows the server answered (gRPC). */
  affected?: number;
  /** CPU seconds building the bodies (outside the timed part). */
  encodeSeconds?: number;
  serverCpuLoadS?: number;
  serverCpuIdleS?: number;
  idleWaitMs?: number;
  clientCpuLoadS?: number;
  rssBytes?: number;
  count?: number;
  checksum?: Row[];
  columns?: Row[];
  timeIndexType?: string;
  loadAvgAfter?: string;
  loadWindow?: ProfileWindow;
  profileDir?: string;
  profile?: ProfileSummary;
  errors: string[];
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function clientCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function runMethod(method: Method, ds: Dataset, workDir: string): Promise<MethodResult> {
  const r: MethodResult = { method, errors: [] };
  const dir = join(workDir, method);
  if (CPU_PROF !== undefined) {
    r.profileDir = join(CPU_PROF, method);
    rmSync(r.profileDir, { recursive: true, force: true });
    mkdirSync(r.profileDir, { recursive: true });
  }
  const srv: TsdbServer = await startTsdb(REPO, dir, r.profileDir === undefined ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${r.profileDir}`] });
  r.version = srv.version;
  log(`${method}: ${srv.version}, pid ${srv.pid}, http ${srv.baseUrl}, grpc ${srv.grpcAddr}`);
  const client = method === 'lp' ? null : method === 'put' ? rawFlightClient(srv.grpcAddr) : rawDatabaseClient(srv.grpcAddr);
  try {
    // CPU time of building the bodies (wall time would count the moments the shared machine ran others).
    let encodeS = 0;
    const timed = <A extends unknown[], B>(f: (...args: A) => B) => (...args: A): B => {
      const c0 = clientCpuSeconds();
      const out = f(...args);
      encodeS += clientCpuSeconds() - c0;
      return out;
    };
    if (method === 'put') await tsdbSql(srv.baseUrl, DB, CREATE_TABLE);
    const cpu0 = cpuSeconds(srv.pid);
    const client0 = clientCpuSeconds();
    const fromUs = monotonicUs();
    const label = METHOD_NAMES[method];
    if (method === 'lp') {
      r.load = await bulkLoad(label, ds, BATCH, CONCURRENCY, timed((a, b) => lineProtocolBatch(ds, a, b)), (body) => lpWrite(srv.baseUrl, body));
    } else if (method === 'handle') {
      let n = 0;
      r.load = await bulkLoad(label, ds, BATCH, CONCURRENCY, timed((a, b) => rowInsertRequest(ds, a, b)), async (body) => {
        const k = await unary(client!, body);
        n += k;
      });
      r.affected = n;
    } else if (method === 'stream') {
      const s = await streamLoad(label, ds, timed((ranges) => ranges.map(([a, b]) => rowInsertRequest(ds, a, b))), (bodies) => stream(client!, bodies));
      r.load = s;
      r.affected = s.affected;
    } else {
      const s = await streamLoad(label, ds, timed((ranges) => putBodies(ds, ranges)), (bodies) => doPut(client!, bodies));
      r.load = s;
      r.affected = s.affected;
    }
    r.loadWindow = { fromUs, toUs: monotonicUs() };
    r.serverCpuLoadS = cpuSeconds(srv.pid) - cpu0;
    // The client's CPU over the load includes encoding (outside the timed part): take it out.
    r.encodeSeconds = encodeS;
    r.clientCpuLoadS = clientCpuSeconds() - client0 - r.encodeSeconds;
    r.loadAvgAfter = loadAverages();
    if (r.affected !== undefined && r.affected !== ds.rows) r.errors.push(`${method}: the server answered ${r.affected} affected rows, expected ${ds.rows}`);
    r.idleWaitMs = await waitIdle(srv.pid);
    r.serverCpuIdleS = cpuSeconds(srv.pid) - cpu0;
    r.rssBytes = rssBytes(srv.pid);
    r.count = Number(tsdbRows((await tsdbSql(srv.baseUrl, DB, `SELECT count(*) AS n FROM ${TABLE}`)).body)[0]?.['n'] ?? Number.NaN);
    if (r.count !== ds.rows) r.errors.push(`${method}: count ${r.count}, expected ${ds.rows}`);
    r.checksum = records((await tsdbSql(srv.baseUrl, DB, CHECKSUM_SQL)).body);
    const desc = columnsOf((await tsdbSql(srv.baseUrl, DB, `DESC TABLE ${TABLE}`)).body);
    r.columns = desc.columns;
    r.timeIndexType = desc.timeIndexType;
    log(`${method}: count ${r.count}; server CPU ${r.serverCpuLoadS.toFixed(1)} s over the load, ${r.serverCpuIdleS.toFixed(1)} s until idle`);
  } catch (e) {
    r.errors.push(`${method}: ${errMsg(e)}`);
    log(`${method}: ERROR ${errMsg(e)}`);
  } finally {
    client?.close();
    await srv.stop();
  }
  if (r.profileDir !== undefined) {
    try {
      r.profile = summarizeProfiles(r.profileDir, REPO, r.loadWindow);
    } catch (e) {
      log(`${method}: could not read the CPU profile in ${r.profileDir}: ${errMsg(e)}`);
    }
  }
  return r;
}

// ---- DoGet against /v1/sql ----

interface GetRun {
  /** Until the last message (Flight) or the whole body (HTTP) arrived. */
  readonly receiveMs: number;
  /** Then: Arrow IPC decoded into a Table (Flight), JSON.parse (HTTP). */
  readonly decodeMs: number;
  readonly serverCpuS: number;
  readonly bytes: number;
  readonly rows: number;
}

interface GetResult {
  hosts: number;
  rows: number;
  sql: string;
  loadRowsPerSecond?: number;
  flight: GetRun[];
  http: GetRun[];
  flightChecksum?: Row[];
  httpChecksum?: Row[];
  expected?: Row[];
  columnsFlight?: string;
  columnsHttp?: string;
  loadAvgAfter?: string;
  profileDir?: string;
  /** The server's profile over the last timed run of each way. */
  profileFlight?: ProfileSummary;
  profileHttp?: ProfileSummary;
  errors: string[];
}

/** Per host: count, first/last time (ms), sum of each field, over rows given by accessors. */
function checksumOf(n: number, host: (i: number) => string, timeMs: (i: number) => number, field: (f: number, i: number) => number): Row[] {
  const by = new Map<string, { n: number; first: number; last: number; sums: Float64Array }>();
  for (let i = 0; i < n; i++) {
    const h = host(i);
    let e = by.get(h);
    if (e === undefined) by.set(h, (e = { n: 0, first: Infinity, last: -Infinity, sums: new Float64Array(FIELDS.length) }));
    const t = timeMs(i);
    e.n++;
    if (t < e.first) e.first = t;
    if (t > e.last) e.last = t;
    for (let f = 0; f < FIELDS.length; f++) e.sums[f]! += field(f, i);
  }
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([h, e]) => {
    const row: Row = { hostname: h, n: e.n, first_ms: e.first, last_ms: e.last };
    FIELDS.forEach((f, k) => (row[f] = e.sums[k] ?? 0));
    return row;
  });
}

async function flightGet(flight: FlightClient, sql: string, pid: number): Promise<{ run: GetRun; table: Table | undefined }> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const messages: FlightDataMessage[] = [];
  for await (const m of flight.doGetStream(sqlTicket(sql)) as AsyncIterable<FlightDataMessage>) messages.push(m);
  const t1 = performance.now();
  const serverCpuS = cpuSeconds(pid) - cpu0;
  const table = decodeDoGet(messages).table;
  const t2 = performance.now();
  let bytes = 0;
  for (const m of messages) bytes += m.data_header.byteLength + m.data_body.byteLength + m.app_metadata.byteLength;
  return { run: { receiveMs: t1 - t0, decodeMs: t2 - t1, serverCpuS, bytes, rows: table?.numRows ?? 0 }, table };
}

interface SqlJson {
  readonly code: number;
  readonly error?: string;
  readonly output?: ReadonlyArray<{ records?: { schema: { column_schemas: ReadonlyArray<{ name: string; data_type: string }> }; rows: ReadonlyArray<ReadonlyArray<string | number | null>> } }>;
}

async function httpGet(baseUrl: string, sql: string, pid: number): Promise<{ run: GetRun; parsed: SqlJson }> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/v1/sql?db=${DB}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql }).toString() });
  const body = await res.text();
  const t1 = performance.now();
  const serverCpuS = cpuSeconds(pid) - cpu0;
  if (!res.ok) throw new Error(`/v1/sql: HTTP ${res.status}: ${body.slice(0, 300)}`);
  const parsed = JSON.parse(body) as SqlJson;
  const t2 = performance.now();
  if (parsed.code !== 0) throw new Error(`/v1/sql: code ${parsed.code}: ${parsed.error ?? ''}`);
  return { run: { receiveMs: t1 - t0, decodeMs: t2 - t1, serverCpuS, bytes: Buffer.byteLength(body), rows: parsed.output?.[0]?.records?.rows.length ?? 0 }, parsed };
}

function flightChecksum(table: Table): Row[] {
  const host = table.getChild('hostname');
  const ts = table.getChild(TIME_INDEX);
  const fields = FIELDS.map((f) => table.getChild(f)?.toArray() as Float64Array | undefined);
  if (host === null || ts === null || fields.some((f) => f === undefined)) throw new Error(`DoGet: missing columns in ${table.schema.fields.map((f) => f.name).join(', ')}`);
  const unit = PER_MS[`Timestamp${['Second', 'Millisecond', 'Microsecond', 'Nanosecond'][(ts.type as { unit: number }).unit] ?? ''}`] ?? 1;
  const hosts = host.toArray() as ArrayLike<string>;
  const times = ts.toArray() as ArrayLike<number | bigint>;
  return checksumOf(table.numRows, (i) => hosts[i]!, (i) => Number(times[i]) / unit, (f, i) => fields[f]![i]!);
}

function httpChecksum(parsed: SqlJson): Row[] {
  const rec = parsed.output?.[0]?.records;
  if (rec === undefined) return [];
  const idx = (name: string): number => rec.schema.column_schemas.findIndex((c) => c.name === name);
  const h = idx('hostname');
  const t = idx(TIME_INDEX);
  const unit = PER_MS[rec.schema.column_schemas[t]?.data_type ?? ''] ?? 1;
  const fs = FIELDS.map(idx);
  return checksumOf(rec.rows.length, (i) => String(rec.rows[i]![h]), (i) => Number(rec.rows[i]![t]) / unit, (f, i) => Number(rec.rows[i]![fs[f]!]));
}

/**
 * A fresh server loaded (line protocol) with exactly GET_ROWS rows, then `SELECT * FROM cpu LIMIT
 * GET_ROWS` read GET_RUNS + 1 times each way (the first of each a warm-up), alternating which goes
 * first; per-host checksums of the last answers compared with the generated data and each other.
 */
async function runGet(workDir: string): Promise<GetResult> {
  if (GET_ROWS % HOSTS !== 0) throw new Error(`--get-rows ${GET_ROWS} is not a multiple of --hosts ${HOSTS}`);
  const steps = GET_ROWS / HOSTS;
  const gds = generate(HOSTS, (steps * 10) / 3600, SEED);
  if (gds.rows !== GET_ROWS) throw new Error(`generated ${gds.rows} rows, wanted ${GET_ROWS}`);
  const sql = `SELECT * FROM ${TABLE} LIMIT ${GET_ROWS}`;
  const g: GetResult = { hosts: HOSTS, rows: GET_ROWS, sql, flight: [], http: [], errors: [] };
  // 1,000,000 TSBS rows are ~260 MB by tsdb's estimate, past query.max_result_bytes' default 256MiB.
  if (CPU_PROF !== undefined) {
    g.profileDir = join(CPU_PROF, 'get');
    rmSync(g.profileDir, { recursive: true, force: true });
    mkdirSync(g.profileDir, { recursive: true });
  }
  const srv = await startTsdb(REPO, join(workDir, 'get'), {
    env: { TSDB_STANDALONE__QUERY__MAX_RESULT_BYTES: opts['get-max-result-bytes'] },
    ...(g.profileDir === undefined ? {} : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${g.profileDir}`] }),
  });
  let windowFlight: ProfileWindow | undefined;
  let windowHttp: ProfileWindow | undefined;
  log(`get: ${srv.version}, pid ${srv.pid}; loading ${GET_ROWS.toLocaleString('en-US')} rows (${HOSTS} hosts × ${steps} steps) by line protocol`);
  const flight = new FlightClient(srv.grpcAddr);
  try {
    const load = await bulkLoad('get: line protocol', gds, BATCH, CONCURRENCY, (a, b) => lineProtocolBatch(gds, a, b), (body) => lpWrite(srv.baseUrl, body));
    g.loadRowsPerSecond = load.rowsPerSecond;
    await tsdbSql(srv.baseUrl, DB, `ADMIN FLUSH_TABLE('${TABLE}')`);
    await waitIdle(srv.pid);
    let lastTable: Table | undefined;
    let lastJson: SqlJson | undefined;
    for (let i = 0; i <= GET_RUNS; i++) {
      for (const way of i % 2 === 0 ? ['flight', 'http'] : ['http', 'flight']) {
        const fromUs = monotonicUs();
        if (way === 'flight') {
          const { run, table } = await flightGet(flight, sql, srv.pid);
          windowFlight = { fromUs, toUs: monotonicUs() };
          if (i > 0) g.flight.push(run);
          lastTable = table;
          log(`get: Flight DoGet ${run.rows} rows, ${run.receiveMs.toFixed(0)} ms + ${run.decodeMs.toFixed(0)} ms decode${i === 0 ? ' (warm-up)' : ''}`);
        } else {
          const { run, parsed } = await httpGet(srv.baseUrl, sql, srv.pid);
          windowHttp = { fromUs, toUs: monotonicUs() };
          if (i > 0) g.http.push(run);
          lastJson = parsed;
          log(`get: /v1/sql ${run.rows} rows, ${run.receiveMs.toFixed(0)} ms + ${run.decodeMs.toFixed(0)} ms JSON.parse${i === 0 ? ' (warm-up)' : ''}`);
        }
      }
    }
    g.loadAvgAfter = loadAverages();
    g.expected = expectedChecksums(gds);
    if (lastTable !== undefined) {
      g.flightChecksum = flightChecksum(lastTable);
      g.columnsFlight = lastTable.schema.fields.map((f) => `${f.name} ${String(f.type)}`).join(', ');
    } else g.errors.push('DoGet answered no rows');
    if (lastJson !== undefined) {
      g.httpChecksum = httpChecksum(lastJson);
      g.columnsHttp = (lastJson.output?.[0]?.records?.schema.column_schemas ?? []).map((c) => `${c.name} ${c.data_type}`).join(', ');
    }
  } catch (e) {
    g.errors.push(`get: ${errMsg(e)}`);
    log(`get: ERROR ${errMsg(e)}`);
  } finally {
    flight.close();
    await srv.stop();
  }
  if (g.profileDir !== undefined) {
    try {
      if (windowFlight !== undefined) g.profileFlight = summarizeProfiles(g.profileDir, REPO, windowFlight);
      if (windowHttp !== undefined) g.profileHttp = summarizeProfiles(g.profileDir, REPO, windowHttp);
    } catch (e) {
      log(`get: could not read the CPU profile in ${g.profileDir}: ${errMsg(e)}`);
    }
  }
  return g;
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function getReport(g: GetResult): string[] {
  const out: string[] = [];
  out.push('');
  out.push(`## Flight DoGet against POST /v1/sql (JSON)`);
  out.push('');
  out.push(`\`${g.sql}\` on a fresh server holding exactly ${g.rows.toLocaleString('en-US')} rows (${g.hosts} hosts, loaded by line protocol at ${Math.round(g.loadRowsPerSecond ?? 0).toLocaleString('en-US')} rows/s, then flushed; \`query.max_result_bytes\` = ${opts['get-max-result-bytes']}): ${GET_RUNS} timed runs each way after one warm-up each, alternating which goes first; medians. Load average after: ${g.loadAvgAfter ?? '–'}.`);
  out.push('');
  out.push('| way | rows | ms to receive | rows/s (receive) | + client decode ms | rows/s (decoded) | server CPU s / M rows | MiB | runs (receive ms) |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  const line = (name: string, runs: readonly GetRun[]): { rps: number; rpsDecoded: number } => {
    const recv = medianOf(runs.map((r) => r.receiveMs));
    const dec = medianOf(runs.map((r) => r.receiveMs + r.decodeMs));
    const rows = runs[0]?.rows ?? 0;
    const rps = (rows / recv) * 1000;
    const rpsDecoded = (rows / dec) * 1000;
    out.push(`| ${name} | ${rows.toLocaleString('en-US')} | ${recv.toFixed(0)} | ${Math.round(rps).toLocaleString('en-US')} | ${medianOf(runs.map((r) => r.decodeMs)).toFixed(0)} | ${Math.round(rpsDecoded).toLocaleString('en-US')} | ` +
      `${fmt(perMillion(medianOf(runs.map((r) => r.serverCpuS)), rows), 2)} | ${((runs[0]?.bytes ?? 0) / 2 ** 20).toFixed(0)} | ${runs.map((r) => r.receiveMs.toFixed(0)).join(', ')} |`);
    return { rps, rpsDecoded };
  };
  const f = line('Flight DoGet (Arrow IPC)', g.flight);
  const h = line('POST /v1/sql (JSON)', g.http);
  out.push('');
  out.push(`Flight / JSON: **${fmt(f.rps / h.rps, 2)}×** rows/s to receive, ${fmt(f.rpsDecoded / h.rpsDecoded, 2)}× with the client's decoding (Arrow Table against JSON.parse).`);
  out.push('');
  if (g.expected !== undefined) {
    for (const [name, cs] of [['Flight DoGet', g.flightChecksum], ['/v1/sql', g.httpChecksum]] as const) {
      if (cs === undefined) continue;
      const c = compareRows(cs, g.expected, 3, [name, 'generated']);
      out.push(`- ${name}: ${cs.reduce((a, r) => a + Number(r['n']), 0).toLocaleString('en-US')} rows; per-host count, first/last time and field sums against the generated data: ${c.ok ? 'equal (1e-9 relative)' : `DIFFERENT: ${c.mismatches.join('; ')}`}`);
      if (!c.ok) g.errors.push(`get: ${name} checksum differs from the generated data`);
    }
    if (g.flightChecksum !== undefined && g.httpChecksum !== undefined) {
      const same = JSON.stringify(g.flightChecksum) === JSON.stringify(g.httpChecksum);
      const c = compareRows(g.flightChecksum, g.httpChecksum, 3, ['flight', 'http']);
      out.push(`- Flight against /v1/sql: ${same ? 'identical' : c.ok ? 'equal within 1e-9 relative' : `DIFFERENT: ${c.mismatches.join('; ')}`}`);
      if (!c.ok) g.errors.push('get: Flight and /v1/sql answers differ');
    }
  }
  out.push(`- columns: Flight ${g.columnsFlight ?? '–'}; /v1/sql ${g.columnsHttp ?? '–'}`);
  for (const [name, p] of [['Flight DoGet', g.profileFlight], ['/v1/sql', g.profileHttp]] as const) {
    if (p !== undefined) out.push('', profileMarkdown(`tsdb during the last ${name} run (${g.profileDir ?? ''})`, p, 25));
  }
  if (g.errors.length > 0) out.push('', 'Errors:', ...g.errors.map((e) => `- ${e}`));
  return out;
}

// ---- report ----

function perMillion(x: number | undefined, rows: number | undefined): number | undefined {
  return x === undefined || rows === undefined || rows === 0 ? undefined : (x * 1e6) / rows;
}

function describeColumns(cols: readonly Row[] | undefined): string {
  return (cols ?? []).map((c) => `${String(c['Column'])} ${String(c['Type'])} ${String(c['Semantic Type'])}${c['Null'] === 'NO' ? ' NOT NULL' : ''}`).join(', ');
}

function checks(results: readonly MethodResult[], ds: Dataset): string[] {
  const out: string[] = [];
  const expected = expectedChecksums(ds);
  const base = results[0];
  for (const r of results) {
    if (r.checksum === undefined) continue;
    const c = compareRows(r.checksum, expected, 3, [r.method, 'generated']);
    out.push(`- ${METHOD_NAMES[r.method]}: count ${r.count?.toLocaleString('en-US')} (expected ${ds.rows.toLocaleString('en-US')}); per-host count, first/last time and sum of each of the ${FIELDS.length} fields against the generated data: ${c.ok ? 'equal (1e-9 relative)' : `DIFFERENT: ${c.mismatches.join('; ')}`}`);
    if (!c.ok) r.errors.push(`${r.method}: checksum differs from the generated data`);
    if (base !== undefined && r !== base && base.checksum !== undefined) {
      const exact = JSON.stringify(r.checksum) === JSON.stringify(base.checksum);
      const near = compareRows(r.checksum, base.checksum, 3, [r.method, base.method]);
      out.push(`  - against ${METHOD_NAMES[base.method]}: ${exact ? 'identical' : near.ok ? 'equal within 1e-9 relative (sums differ in the last bits)' : `DIFFERENT: ${near.mismatches.join('; ')}`}; ` +
        `columns (DESC TABLE, the time index's unit aside): ${JSON.stringify(r.columns) === JSON.stringify(base.columns) ? 'identical' : `DIFFERENT: ${describeColumns(r.columns)} against ${describeColumns(base.columns)}`}; ` +
        `time index ${r.timeIndexType} (${base.method}: ${base.timeIndexType})`);
      if (!near.ok) r.errors.push(`${r.method}: checksum differs from ${base.method}`);
      if (JSON.stringify(r.columns) !== JSON.stringify(base.columns)) r.errors.push(`${r.method}: columns differ from ${base.method}`);
    }
  }
  return out;
}

function report(ds: Dataset, results: readonly MethodResult[], loadAtStart: string): string {
  const out: string[] = [];
  out.push('## gRPC row inserts against line protocol');
  out.push('');
  out.push(`Machine: ${machine(loadAtStart)}.`);
  out.push(`tsdb: ${results[0]?.version ?? '?'}.`);
  out.push(`Data: TSBS cpu-only, ${ds.hosts} hosts × ${HOURS} h = ${ds.rows.toLocaleString('en-US')} rows (10 tags, 10 float fields), seed ${SEED}; batches of ${BATCH} rows, ${CONCURRENCY} in flight; one fresh server per method, one after the other.`);
  out.push('');
  const lp = results.find((r) => r.method === 'lp');
  out.push('| method | rows/s | × line protocol | load s | server CPU s / M rows (load) | (until idle) | client CPU s / M rows (send) | client encode s / M rows | MiB sent | load avg after |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    const rows = r.load?.rows;
    const ratio = lp?.load !== undefined && r.load !== undefined ? r.load.rowsPerSecond / lp.load.rowsPerSecond : undefined;
    out.push(`| ${METHOD_NAMES[r.method]} | ${r.load === undefined ? '–' : Math.round(r.load.rowsPerSecond).toLocaleString('en-US')} | ${fmt(ratio, 2)} | ${fmt(r.load?.seconds, 1)} | ` +
      `${fmt(perMillion(r.serverCpuLoadS, rows), 2)} | ${fmt(perMillion(r.serverCpuIdleS, rows), 2)} | ${fmt(perMillion(r.clientCpuLoadS, rows), 2)} | ${fmt(perMillion(r.encodeSeconds, rows), 2)} | ` +
      `${r.load === undefined ? '–' : (r.load.bodyBytes / 2 ** 20).toFixed(0)} | ${r.loadAvgAfter ?? '–'} |`);
  }
  out.push('');
  out.push('Correctness:');
  out.push(...checks(results, ds));
  for (const r of results) {
    if (r.profile !== undefined) {
      out.push('');
      out.push(profileMarkdown(`tsdb during ${METHOD_NAMES[r.method]} (${r.profileDir ?? ''})`, r.profile, 25));
    }
  }
  const errors = results.flatMap((r) => r.errors);
  if (errors.length > 0) out.push('', 'Errors:', ...errors.map((e) => `- ${e}`));
  return out.join('\n');
}

// ---- main ----

installExitCleanup();
const loadAtStart = loadAverages();
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const ds = generate(HOSTS, HOURS, SEED);
const workDir = mkdtempSync(join(tmpdir(), 'bench-grpc-'));
log(`work dir ${workDir}`);
const results: MethodResult[] = [];
let get: GetResult | undefined;
try {
  for (const m of SELECTED) results.push(await runMethod(m, ds, workDir));
  if (!opts['no-get']) get = await runGet(workDir);
} finally {
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}
const text = [report(ds, results, loadAtStart), ...(get === undefined ? [] : getReport(get))].join('\n');
process.stdout.write(`${text}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({ machine: machine(loadAtStart), hosts: HOSTS, hours: HOURS, rows: ds.rows, seed: SEED, batch: BATCH, concurrency: CONCURRENCY, results, get }, null, 2));
  log(`wrote ${opts.json}`);
}
if (results.some((r) => r.errors.length > 0) || (get?.errors.length ?? 0) > 0) process.exitCode = 1;
