/**
 * What the region server seam costs a query: the TSBS cpu-only queries (bench/tsbs's data, queries
 * and clients) on a standalone tsdb reading its regions in process (`scanRelation`, zero-copy) and
 * on a standalone frontend whose regions live on a datanode (`RemoteRegionServer`: a region query
 * over gRPC per region, its Arrow answer read by `tsdb_arrow_scan`), in one run with the same data.
 * Both are loaded and flushed alike, then every query runs on both alternately (1 warm-up, median
 * of --runs), their answers compared. The bench process also sends the projection region query
 * (same region, time range, key values and columns; read from the query's text) with its own
 * `RemoteRegionServer`, timing "region query on the datanode + transfer" and counting the rows and
 * Arrow buffer bytes it ships: what a query whose rows are read on the frontend costs (all queries
 * before the whole query of one table ran on the datanode, `TableRouter.pushdown`; a query naming
 * cpu twice still).
 *
 *   npm run build && node dist/bench/region-query/main.js [--hosts 100 --hours 24 --runs 5] [--json out.json]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Data, RecordBatch } from 'apache-arrow';
import { compareRows, tsdbRows, tsdbSql, type Comparison, type Row } from '../tsbs/clients.js';
import { FIELDS, TAGS, TSDB_CREATE_TABLE, generate, sqlInsert, type Dataset } from '../tsbs/data.js';
import { bulkLoad, median, type LoadResult } from '../tsbs/load.js';
import { tsbsQueries, tsdbVariants } from '../tsbs/queries.js';
import { freePort, installExitCleanup, log, startTsdb, waitIdle, type Server } from '../tsbs/servers.js';
import { machine } from '../common/machine.js';
import { RemoteRegionServer } from '../../src/servers/grpc/region-client.js';
import { regionId, type RegionId } from '../../src/types/region-id.js';
import type { RegionQuery } from '../../src/types/region-server.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '456' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const HOSTS = Number(opts.hosts);
const HOURS = Number(opts.hours);
const SEED = Number(opts.seed);
const QUERY_SEED = Number(opts['query-seed']);
const BATCH = Number(opts.batch);
const CONCURRENCY = Number(opts.concurrency);
const RUNS = Number(opts.runs);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const REMOTE_CHILD = join(REPO, 'dist', 'test', 'support', 'remote-standalone-child.js');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);
if (!existsSync(REMOTE_CHILD)) throw new Error(`${REMOTE_CHILD} not found: npm run build`);
/** The table's columns in CREATE TABLE order (TSDB_CREATE_TABLE), which is also their column ids' order. */
const COLUMNS: readonly string[] = [...TAGS, 'ts', ...FIELDS];

// ---- servers this file starts itself (bench/tsbs starts the in-process standalone) ----

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) if (c.pid !== undefined && c.exitCode === null && c.signalCode === null) process.kill(c.pid, 'SIGKILL');
});

interface Started {
  readonly child: ChildProcess;
  /** The JSON log line ending in " started". */
  readonly started: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Spawns `node args…`, its output appended to logFile, and waits for its " started" log line. */
async function spawnTsdb(args: readonly string[], logFile: string): Promise<Started> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${args.join(' ')}`);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const fd = openSync(logFile, 'a');
  let buffered = '';
  const started = await new Promise<Record<string, unknown>>((resolveStarted, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "started" line after 60 s; log: ${logFile}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      writeFileSync(fd, chunk);
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        try {
          const rec = JSON.parse(line) as Record<string, unknown>;
          if (typeof rec['msg'] === 'string' && / started$/.test(rec['msg'])) {
            clearTimeout(timer);
            resolveStarted(rec);
          }
        } catch {
          // not a log record
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code} before it started; log: ${logFile}`));
    });
  });
  return {
    child,
    started,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      closeSync(fd);
    },
  };
}

interface RemoteSetup {
  readonly frontend: Server;
  readonly datanodePid: number;
  readonly datanodeGrpc: string;
  stop(): Promise<void>;
}

async function startRemote(dir: string): Promise<RemoteSetup> {
  mkdirSync(dir, { recursive: true });
  const datanode = await spawnTsdb([
    join(REPO, 'bin', 'tsdb'), 'datanode', 'start', '--node-id', '1', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0',
    '--data-home', join(dir, 'datanode'), '--log-level', 'info',
  ], join(dir, 'datanode.log'));
  const grpcAddr = (datanode.started['addresses'] as Record<string, string> | undefined)?.['grpc'];
  if (grpcAddr === undefined) {
    await datanode.stop();
    throw new Error('the datanode logged no addresses.grpc');
  }
  const http = await freePort();
  const frontend = await spawnTsdb([
    REMOTE_CHILD, grpcAddr, 'standalone', 'start', '--http-addr', `127.0.0.1:${http}`, '--rpc-addr', `127.0.0.1:${await freePort()}`,
    '--mysql-addr', `127.0.0.1:${await freePort()}`, '--postgres-addr', `127.0.0.1:${await freePort()}`, '--http-timeout', '600s',
    '--data-home', join(dir, 'frontend'), '--log-level', 'info',
  ], join(dir, 'frontend.log'));
  const stop = async (): Promise<void> => {
    await frontend.stop();
    await datanode.stop();
  };
  return {
    frontend: { system: 'tsdb', pid: frontend.child.pid ?? 0, baseUrl: `http://127.0.0.1:${http}`, dataDirs: {}, logFile: join(dir, 'frontend.log'), version: 'remote', stop },
    datanodePid: datanode.child.pid ?? 0,
    datanodeGrpc: grpcAddr,
    stop,
  };
}

// ---- the region query a TSBS query sends, read from its text ----

const ISO = "'(\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z)'";

/**
 * The region query the frontend sends for `sql`: its columns (all for `*`, else the table's
 * columns the text names, in table order), its time range (inclusive, ms) and its hostname values.
 * Reads TSBS's query forms only (`ts >= '…'`, `ts < '…'`, `hostname IN (…)`).
 */
function regionQueryOf(sql: string): RegionQuery {
  const star = /(^|[\s,.(])\*/.test(sql.replace(/count\(\*\)/gi, ''));
  const columns = star ? COLUMNS : COLUMNS.filter((c) => new RegExp(`\\b${c}\\b`).test(sql));
  const from = new RegExp(`ts >= ${ISO}`).exec(sql)?.[1];
  const to = new RegExp(`ts < ${ISO}`).exec(sql)?.[1];
  const hosts = /hostname IN \(([^)]*)\)/.exec(sql)?.[1]?.split(',').map((h) => h.trim().replace(/^'|'$/g, ''));
  const scan = {
    ...(from !== undefined && { start: BigInt(Date.parse(from)) }),
    ...(to !== undefined && { end: BigInt(Date.parse(to)) - 1n }),
    // hostname is the first column: column id 0.
    ...(hosts !== undefined && { keys: new Map([[COLUMNS.indexOf('hostname'), hosts]]) }),
  };
  return { scan, sql: `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM region` };
}

function dataBytes(d: Data): number {
  let n = (d.values?.byteLength ?? 0) + (d.valueOffsets?.byteLength ?? 0) + (d.nullBitmap?.byteLength ?? 0) + (d.typeIds?.byteLength ?? 0);
  for (const c of d.children) n += dataBytes(c);
  return n;
}

interface Shipped {
  readonly ms: number;
  readonly rows: number;
  readonly bytes: number;
}

async function directQuery(client: RemoteRegionServer, ids: readonly RegionId[], q: RegionQuery): Promise<Shipped> {
  const t0 = performance.now();
  let rows = 0;
  let bytes = 0;
  for (const id of ids) {
    const stream = await client.query(id, q);
    for await (const b of stream.batches as AsyncIterable<RecordBatch>) {
      rows += b.numRows;
      bytes += dataBytes(b.data);
    }
  }
  return { ms: performance.now() - t0, rows, bytes };
}

// ---- run ----

interface Side {
  readonly label: string;
  load?: LoadResult;
  flushSeconds?: number;
  count?: number;
}

async function loadSide(side: Side, srv: Server, ds: Dataset, idlePid: number): Promise<void> {
  await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu'));
  side.load = await bulkLoad(side.label, ds, BATCH, CONCURRENCY, (a, b) => sqlInsert(ds, 'cpu', a, b), async (body) => {
    await tsdbSql(srv.baseUrl, 'public', body);
  });
  const f0 = performance.now();
  await tsdbSql(srv.baseUrl, 'public', "ADMIN flush_table('cpu')");
  side.flushSeconds = (performance.now() - f0) / 1000;
  side.count = Number(tsdbRows((await tsdbSql(srv.baseUrl, 'public', 'SELECT count(*) AS n FROM cpu')).body)[0]?.['n'] ?? Number.NaN);
  log(`${side.label}: loaded ${side.load.rowsPerSecond.toFixed(0)} rows/s, flushed in ${side.flushSeconds.toFixed(1)} s, count ${side.count}`);
  if (side.count !== ds.rows) throw new Error(`${side.label}: ${side.count} rows counted, ${ds.rows} loaded`);
  await waitIdle(idlePid);
}

interface QueryFigures {
  readonly name: string;
  readonly inProcessMs: number[];
  readonly remoteMs: number[];
  readonly directMs: number[];
  rows?: number;
  shippedRows?: number;
  shippedBytes?: number;
  comparison?: Comparison;
  error?: string;
}

installExitCleanup();
const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const ds = generate(HOSTS, HOURS, SEED);
const queries = [...tsbsQueries(ds, QUERY_SEED).map((q) => ({ name: q.name, sql: q.sql })), ...tsdbVariants().map((v) => ({ name: v.name, sql: v.sql }))];
const workDir = mkdtempSync(join(tmpdir(), 'region-query-'));
log(`work dir ${workDir}`);
const inProcess: Side = { label: 'in-process' };
const remote: Side = { label: 'remote' };
const figures: QueryFigures[] = [];
let local: Server | undefined;
let remoteSetup: RemoteSetup | undefined;
let client: RemoteRegionServer | undefined;
try {
  local = await startTsdb(REPO, join(workDir, 'standalone'));
  log(`in-process: pid ${local.pid}, ${local.baseUrl}`);
  remoteSetup = await startRemote(join(workDir, 'remote'));
  log(`remote: frontend pid ${remoteSetup.frontend.pid} ${remoteSetup.frontend.baseUrl}, datanode pid ${remoteSetup.datanodePid} gRPC ${remoteSetup.datanodeGrpc}`);
  await loadSide(inProcess, local, ds, local.pid);
  await loadSide(remote, remoteSetup.frontend, ds, remoteSetup.datanodePid);
  await waitIdle(local.pid);
  await waitIdle(remoteSetup.frontend.pid);

  const regions = tsdbRows((await tsdbSql(remoteSetup.frontend.baseUrl, 'public',
    "SELECT r.region_number FROM information_schema.region_statistics r JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_name = 'cpu'")).body);
  const tableId = Number(tsdbRows((await tsdbSql(remoteSetup.frontend.baseUrl, 'public', "SELECT table_id FROM information_schema.tables WHERE table_name = 'cpu'")).body)[0]?.['table_id']);
  const ids = regions.map((r) => regionId(tableId, Number(r['region_number'])));
  if (ids.length === 0) throw new Error('table cpu has no regions in information_schema.region_statistics');
  log(`table cpu: id ${tableId}, ${ids.length} region(s)`);
  client = new RemoteRegionServer(remoteSetup.datanodeGrpc);

  for (const q of queries) {
    const f: QueryFigures = { name: q.name, inProcessMs: [], remoteMs: [], directMs: [] };
    figures.push(f);
    try {
      const rq = regionQueryOf(q.sql);
      const a = await tsdbSql(local.baseUrl, 'public', q.sql);
      const b = await tsdbSql(remoteSetup.frontend.baseUrl, 'public', q.sql);
      const d = await directQuery(client, ids, rq);
      const rowsA: Row[] = tsdbRows(a.body);
      f.rows = rowsA.length;
      f.comparison = compareRows(rowsA, tsdbRows(b.body), 5, ['in-process', 'remote']);
      f.shippedRows = d.rows;
      f.shippedBytes = d.bytes;
      for (let i = 0; i < RUNS; i++) {
        f.inProcessMs.push((await tsdbSql(local.baseUrl, 'public', q.sql)).ms);
        f.remoteMs.push((await tsdbSql(remoteSetup.frontend.baseUrl, 'public', q.sql)).ms);
        f.directMs.push((await directQuery(client, ids, rq)).ms);
      }
      log(`${q.name}: in-process ${median(f.inProcessMs).toFixed(1)} ms, remote ${median(f.remoteMs).toFixed(1)} ms, region query ${median(f.directMs).toFixed(1)} ms (${d.rows} rows, ${d.bytes} B)${f.comparison.ok ? '' : ' ANSWERS DIFFER'}`);
    } catch (e) {
      f.error = e instanceof Error ? e.message : String(e);
      log(`${q.name}: ERROR ${f.error}`);
    }
  }
} finally {
  client?.close();
  await remoteSetup?.stop();
  await local?.stop();
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}

// ---- report ----

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const head = spawnSync('git', ['-C', REPO, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).stdout.trim();
const out: string[] = [];
out.push(`## Region queries: in-process vs remote regions, TSBS cpu-only ${HOSTS} hosts × ${HOURS} h = ${int(ds.rows)} rows`);
out.push('');
out.push(`Machine: ${machine(LOAD_AT_START)}. Build ${head}. Data seed ${SEED}, query seed ${QUERY_SEED}; both loaded by SQL INSERT (${BATCH} rows a batch, ${CONCURRENCY} in flight) and flushed; 1 warm-up + median of ${RUNS}, the three measurements of a query alternating; HTTP client wall time.`);
out.push('');
out.push('| side | load rows/s | flush s | rows |');
out.push('|---|---:|---:|---:|');
for (const s of [inProcess, remote]) out.push(`| ${s.label} | ${s.load ? int(s.load.rowsPerSecond) : '–'} | ${s.flushSeconds?.toFixed(1) ?? '–'} | ${s.count !== undefined ? int(s.count) : '–'} |`);
out.push('');
out.push('| query | rows | in-process ms | remote ms | remote/in-process | projection region query ms (datanode + transfer) | remote − projection region query ms | projection rows | projection Arrow bytes | same answer |');
out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
for (const f of figures) {
  if (f.error !== undefined) {
    out.push(`| ${f.name} | error: ${f.error.slice(0, 120)} | | | | | | | | |`);
    continue;
  }
  const a = median(f.inProcessMs);
  const b = median(f.remoteMs);
  const d = median(f.directMs);
  const same = f.comparison === undefined ? '–' : f.comparison.ok ? 'yes' : `**NO**: ${f.comparison.mismatches.slice(0, 2).join('; ')}`;
  out.push(`| ${f.name} | ${int(f.rows ?? 0)} | ${fmt(a)} | ${fmt(b)} | ${(b / a).toFixed(2)}× | ${fmt(d)} | ${fmt(b - d)} | ${int(f.shippedRows ?? 0)} | ${int(f.shippedBytes ?? 0)} | ${same} |`);
}
out.push('');
out.push('Projection region query: the bench process\'s own RemoteRegionServer sending the fragment a frontend sends when it reads the rows itself (`SELECT <columns the query names> FROM region` with its time range and hostname values) to every region of cpu, reading every batch; Arrow bytes: the decoded batches\' buffers. A query of cpu alone, read once, runs whole on the datanode instead (only its answer crosses); a query naming cpu twice ("lastpoint (join on max(ts))") still reads the rows on the frontend, timed here as one region query of all the columns it names.');
process.stdout.write(`${out.join('\n')}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({ hosts: HOSTS, hours: HOURS, rows: ds.rows, runs: RUNS, inProcess, remote, figures }, null, 2));
  log(`wrote ${opts.json}`);
}
