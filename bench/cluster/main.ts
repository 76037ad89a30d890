/**
 * Cluster against standalone (issue 16) on TSBS cpu-only, in one run: a standalone tsdb, a cluster
 * of one datanode and a cluster of three (each: a memory-store metasrv, its datanodes and a
 * frontend; every process on 127.0.0.1 with its own directory, stopped by PID at the end, even on
 * failure). The same data goes into each over the HTTP line-protocol endpoint (rows/s), then
 * `ADMIN flush_table`; on the three-datanode cluster a second database holds cpu partitioned on
 * hostname in three ranges, so that its regions sit on the three datanodes. Every TSBS query (and
 * bench/tsbs's other lastpoint forms) then runs on every setup in turn, a warm-up and --runs rounds;
 * every answer is checked against standalone's. Where a cluster's time goes: the datanodes log each
 * region query they answer (`region query answered`, at debug: open, first batch, elapsed, rows,
 * IPC bytes, its scan and fragment), and the bench replays those region queries from its own
 * region client, timing the round trip a frontend sees; the CPU of each process per query is read
 * from /proc. Markdown on stdout, progress on stderr, --json keeps every figure.
 *
 *   npm run build && node dist/bench/cluster/main.js [--hosts 100 --hours 24 --runs 5] [--json out.json]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RecordBatch } from 'apache-arrow';
import { compareRows, tsdbRows, tsdbSql, type Row } from '../tsbs/clients.js';
import { generate, lineProtocolBatch, TSDB_CREATE_TABLE, type Dataset } from '../tsbs/data.js';
import { bulkLoad, median, type LoadResult } from '../tsbs/load.js';
import { tsbsQueries, tsdbVariants } from '../tsbs/queries.js';
import { cpuSeconds, installExitCleanup, log, rssBytes, startTsdb, waitIdle } from '../tsbs/servers.js';
import { machine } from '../common/machine.js';
import { startCluster, type Cluster, type RegionQueryLog, type TsdbNode } from './nodes.js';
import { RemoteRegionServer } from '../../src/servers/grpc/region-client.js';
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
    setups: { type: 'string', default: 'standalone,1dn,3dn,3dn-part' },
    queries: { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'standalone-query-parallelism': { type: 'string' },
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
const TSDB_BIN = join(REPO, 'bin', 'tsdb');
if (!existsSync(TSDB_BIN)) throw new Error(`bin/tsdb not found under ${REPO}`);

type SetupKey = 'standalone' | '1dn' | '3dn' | '3dn-part';
const LABELS: Record<SetupKey, string> = { standalone: 'standalone', '1dn': '1 datanode', '3dn': '3 datanodes', '3dn-part': '3 datanodes, cpu partitioned' };
const SETUPS = opts.setups.split(',').map((s) => s.trim()) as SetupKey[];
for (const s of SETUPS) if (!(s in LABELS)) throw new Error(`--setups: unknown ${s} (standalone, 1dn, 3dn, 3dn-part)`);
if (SETUPS[0] !== 'standalone') throw new Error('--setups: standalone comes first (its answers are the reference)');
const PART_DB = 'tsbs_part';
/** `--cpu-prof <dir>`: every tsdb process writes a V8 CPU profile there when it stops. */
const NODE_ARGS: readonly string[] = opts['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(opts['cpu-prof'])}`];

interface Setup {
  readonly key: SetupKey;
  readonly label: string;
  readonly baseUrl: string;
  readonly db: string;
  /** The processes a query of this setup runs in, by name (their CPU is read around each query). */
  readonly pids: ReadonlyMap<string, number>;
  /** Its datanodes (none for standalone): their region query lines, their region services. */
  readonly datanodes: readonly TsdbNode[];
  createSql?: string;
  load?: LoadResult;
  /** CPU seconds of each of its processes while loading. */
  loadCpu?: Record<string, number>;
  flushSeconds?: number;
  count?: number;
  rssBytes?: number;
  /** cpu's regions and the datanode of each. */
  placement?: string;
  error?: string;
}

// ---- one query on one setup ----

/** A region query as a datanode logged it, tagged with the datanode. */
interface LoggedRegionQuery extends RegionQueryLog {
  readonly node: string;
}

interface Run {
  readonly ms: number;
  readonly t0: number;
  readonly t1: number;
  /** CPU ms of each of the setup's processes during the request. */
  readonly cpuMs: Record<string, number>;
  regionQueries: LoggedRegionQuery[];
}

interface Replay {
  readonly ms: number;
  readonly t0: number;
  readonly t1: number;
  readonly rows: number;
  regionQueries: LoggedRegionQuery[];
}

interface SetupQuery {
  readonly runs: Run[];
  readonly replays: Replay[];
  /** Rows of the warm-up answer. */
  rows?: number;
  /** Answers (warm-up and runs) that differ from standalone's warm-up answer, with the first difference. */
  mismatches: number;
  checked: number;
  firstMismatch?: string;
  error?: string;
}

interface QueryFigures {
  readonly name: string;
  readonly sql: string;
  readonly bySetup: Partial<Record<SetupKey, SetupQuery>>;
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Row key for the order of an answer (ORDER BY queries must agree on it too). */
function orderKey(r: Row): string {
  return `${String(r['time'] ?? '')}|${String(r['hostname'] ?? '')}`;
}

/** Differences of `got` from `ref` (same rows within 1e-9 relative; same order when the query orders). */
function differences(ref: readonly Row[], got: readonly Row[], ordered: boolean, label: string): string | undefined {
  const c = compareRows(ref, got, 3, ['standalone', label]);
  if (!c.ok) return c.mismatches.join('; ');
  if (ordered) {
    for (let i = 0; i < ref.length; i++) {
      if (orderKey(ref[i]!) !== orderKey(got[i]!)) return `order differs at row ${i}: standalone ${orderKey(ref[i]!)}, ${label} ${orderKey(got[i]!)}`;
    }
  }
  return undefined;
}

function cpuOf(pids: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...pids].map(([name, pid]) => [name, cpuSeconds(pid)]));
}

async function timedQuery(setup: Setup, sql: string): Promise<{ run: Run; body: string }> {
  // Region query lines are told apart by time: no two requests share a millisecond.
  await sleep(2);
  const before = cpuOf(setup.pids);
  const t0 = Date.now();
  const t = await tsdbSql(setup.baseUrl, setup.db, sql);
  const t1 = Date.now();
  const after = cpuOf(setup.pids);
  const cpuMs = Object.fromEntries([...after].map(([name, s]) => [name, Math.round((s - (before.get(name) ?? s)) * 1000)]));
  return { run: { ms: t.ms, t0, t1, cpuMs, regionQueries: [] }, body: t.body };
}

/** A logged region query as the region client sends it (bench/tsbs tags are strings). */
function regionQueryOfLog(q: RegionQueryLog): { id: bigint; query: RegionQuery } {
  const id = BigInt(q.region.slice(0, q.region.indexOf('(')));
  const s = q.scan;
  const scan = s === undefined ? undefined : {
    ...(s.start !== undefined && { start: BigInt(s.start) }),
    ...(s.end !== undefined && { end: BigInt(s.end) }),
    ...(s.keys !== undefined && { keys: new Map(Object.entries(s.keys).map(([col, values]) => [Number(col), [...values]])) }),
  };
  return { id, query: { ...(scan !== undefined && { scan }), ...(q.sql !== undefined && { sql: q.sql }) } };
}

interface ReplayPlan {
  readonly client: RemoteRegionServer;
  readonly id: bigint;
  readonly query: RegionQuery;
}

/** Sends the plan's region queries one after the other, as the frontend reads regions, reading every batch. */
async function replay(plan: readonly ReplayPlan[]): Promise<Replay> {
  await sleep(2);
  const t0 = Date.now();
  const p0 = performance.now();
  let rows = 0;
  for (const p of plan) {
    const stream = await p.client.query(p.id, p.query);
    for await (const b of stream.batches as AsyncIterable<RecordBatch>) rows += b.numRows;
  }
  const ms = performance.now() - p0;
  return { ms, t0, t1: Date.now(), rows, regionQueries: [] };
}

/** Gives each run the region query lines its datanodes wrote during it (from `since`, by node). */
function attribute(setup: Setup, since: ReadonlyMap<string, number>, windows: ReadonlyArray<Run | Replay>): void {
  for (const dn of setup.datanodes) {
    for (const q of dn.regionQueries.slice(since.get(dn.name) ?? 0)) {
      const w = windows.find((x) => q.timeMs >= x.t0 && q.timeMs <= x.t1);
      w?.regionQueries.push({ ...q, node: dn.name });
    }
  }
}

function marks(setups: readonly Setup[]): Map<string, number> {
  return new Map(setups.flatMap((s) => s.datanodes.map((d) => [d.name, d.regionQueries.length] as const)));
}

// ---- setups ----

function partitionClause(ds: Dataset): string {
  const names = ds.tagValues.map((t) => t[0]!).sort();
  const [a, b] = [names[Math.ceil(names.length / 3)]!, names[Math.ceil((2 * names.length) / 3)]!];
  return `PARTITION ON COLUMNS (hostname) (hostname < '${a}', hostname >= '${a}' AND hostname < '${b}', hostname >= '${b}')`;
}

async function placement(setup: Setup): Promise<string> {
  const rows = tsdbRows((await tsdbSql(setup.baseUrl, 'public',
    `SELECT region_id % 4294967296 AS region_number, peer_id FROM information_schema.region_peers WHERE table_schema = '${setup.db}' AND table_name = 'cpu' ORDER BY region_number`)).body);
  return rows.map((r) => `region ${String(r['region_number'])} on datanode ${String(r['peer_id'])}`).join(', ');
}

async function lineProtocolWrite(baseUrl: string, db: string, body: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/influxdb/write?db=${encodeURIComponent(db)}&precision=ms`, { method: 'POST', body });
  const text = await res.text();
  if (res.status !== 204) throw new Error(`line protocol write: HTTP ${res.status}: ${text.slice(0, 500)}`);
}

async function loadSetup(setup: Setup, ds: Dataset): Promise<void> {
  if (setup.db !== 'public') await tsdbSql(setup.baseUrl, 'public', `CREATE DATABASE IF NOT EXISTS ${setup.db}`);
  setup.createSql = setup.key === '3dn-part' ? `${TSDB_CREATE_TABLE('cpu')} ${partitionClause(ds)}` : TSDB_CREATE_TABLE('cpu');
  await tsdbSql(setup.baseUrl, setup.db, setup.createSql);
  if (setup.datanodes.length > 0) setup.placement = await placement(setup);
  log(`${setup.label}: cpu created${setup.placement !== undefined ? `: ${setup.placement}` : ''}`);
  const cpu0 = cpuOf(setup.pids);
  setup.load = await bulkLoad(setup.label, ds, BATCH, CONCURRENCY, (a, b) => lineProtocolBatch(ds, a, b), (body) => lineProtocolWrite(setup.baseUrl, setup.db, body));
  setup.loadCpu = Object.fromEntries([...cpuOf(setup.pids)].map(([name, s]) => [name, s - (cpu0.get(name) ?? s)]));
  const f0 = performance.now();
  await tsdbSql(setup.baseUrl, setup.db, "ADMIN flush_table('cpu')");
  setup.flushSeconds = (performance.now() - f0) / 1000;
  setup.count = Number(tsdbRows((await tsdbSql(setup.baseUrl, setup.db, 'SELECT count(*) AS n FROM cpu')).body)[0]?.['n'] ?? Number.NaN);
  log(`${setup.label}: flushed in ${setup.flushSeconds.toFixed(1)} s; count ${setup.count}`);
  if (setup.count !== ds.rows) throw new Error(`${setup.label}: ${setup.count} rows counted, ${ds.rows} loaded`);
  for (const pid of setup.pids.values()) await waitIdle(pid);
  setup.rssBytes = [...setup.pids.values()].reduce((n, pid) => n + rssBytes(pid), 0);
}

// ---- run ----

installExitCleanup();
const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');
const startedAt = new Date();
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const ds = generate(HOSTS, HOURS, SEED);
const allQueries = [...tsbsQueries(ds, QUERY_SEED).map((q) => ({ name: q.name, sql: q.sql })), ...tsdbVariants().map((v) => ({ name: v.name, sql: v.sql }))];
const only = opts.queries?.split(',').map((s) => s.trim());
const queries = only === undefined ? allQueries : allQueries.filter((q) => only.includes(q.name));
const workDir = mkdtempSync(join(tmpdir(), 'cluster-bench-'));
log(`work dir ${workDir}`);

const setups: Setup[] = [];
const figures: QueryFigures[] = [];
const stops: Array<() => Promise<void>> = [];
const clients = new Map<string, RemoteRegionServer>();
const t0All = performance.now();
let loadEndMs = 0;
try {
  // Standalone, then the clusters: all up at once, so that each query's runs alternate between them.
  // A datanode's region queries run with a DuckDB thread per core; standalone's queries with
  // query.parallelism (default: a quarter of the cores, at least 1): this option evens them out.
  const parallelism = opts['standalone-query-parallelism'];
  const standalone = await startTsdb(REPO, join(workDir, 'standalone'), { nodeArgs: NODE_ARGS, ...(parallelism !== undefined && { env: { TSDB_STANDALONE__QUERY__PARALLELISM: parallelism } }) });
  stops.push(() => standalone.stop());
  setups.push({ key: 'standalone', label: LABELS.standalone, baseUrl: standalone.baseUrl, db: 'public', pids: new Map([['standalone', standalone.pid]]), datanodes: [] });
  log(`standalone: pid ${standalone.pid}, ${standalone.baseUrl}`);
  const clusters = new Map<number, Cluster>();
  for (const n of [1, 3]) {
    const keys = SETUPS.filter((k) => (n === 1 ? k === '1dn' : k === '3dn' || k === '3dn-part'));
    if (keys.length === 0) continue;
    const c = await startCluster(TSDB_BIN, `cluster${n}`, join(workDir, `cluster${n}`), n, NODE_ARGS);
    stops.push(() => c.stop());
    clusters.set(n, c);
    log(`cluster of ${n}: metasrv pid ${c.metasrv.pid}, datanodes ${[...c.datanodes.values()].map((d) => `pid ${d.pid} (${d.addresses['grpc']})`).join(', ')}, frontend pid ${c.frontend.pid} ${c.baseUrl}`);
    const pids = new Map([['frontend', c.frontend.pid], ...[...c.datanodes].map(([id, d]) => [`datanode ${id}`, d.pid] as const)]);
    for (const key of keys) {
      setups.push({ key, label: LABELS[key], baseUrl: c.baseUrl, db: key === '3dn-part' ? PART_DB : 'public', pids, datanodes: [...c.datanodes.values()] });
    }
  }
  for (const s of setups) await loadSetup(s, ds);
  for (const s of setups) for (const pid of s.pids.values()) await waitIdle(pid);
  loadEndMs = performance.now();

  for (const dn of [...clusters.values()].flatMap((c) => [...c.datanodes.values()])) {
    const addr = dn.addresses['grpc'];
    if (addr !== undefined) clients.set(dn.name + addr, new RemoteRegionServer(addr));
  }
  const clientOf = (node: string): RemoteRegionServer => {
    const dn = setups.flatMap((s) => s.datanodes).find((d) => d.name === node);
    const c = dn === undefined ? undefined : clients.get(dn.name + (dn.addresses['grpc'] ?? ''));
    if (c === undefined) throw new Error(`no region client for ${node}`);
    return c;
  };

  for (const q of queries) {
    const f: QueryFigures = { name: q.name, sql: q.sql, bySetup: {} };
    figures.push(f);
    // The answer's order is the query's when it has an ORDER BY of its own (not a window's).
    const ordered = /\bORDER BY\b/i.test(q.sql.replace(/\bOVER\s*\([^)]*\)/gi, ''));
    const since = marks(setups);
    let reference: Row[] | undefined;
    const plans = new Map<SetupKey, ReplayPlan[]>();
    const check = (s: Setup, sq: SetupQuery, body: string): void => {
      const rows = tsdbRows(body);
      sq.checked++;
      if (s.key === 'standalone' && reference === undefined) {
        reference = rows;
        return;
      }
      if (reference === undefined) return;
      const d = differences(reference, rows, ordered, s.label);
      if (d !== undefined) {
        sq.mismatches++;
        sq.firstMismatch ??= d;
      }
    };
    // Warm-up: the reference answer, and each cluster's region queries, replayed below.
    const warm = new Map<SetupKey, Run>();
    for (const s of setups) {
      const sq: SetupQuery = { runs: [], replays: [], mismatches: 0, checked: 0 };
      f.bySetup[s.key] = sq;
      try {
        const { run, body } = await timedQuery(s, q.sql);
        warm.set(s.key, run);
        sq.rows = tsdbRows(body).length;
        check(s, sq, body);
      } catch (e) {
        sq.error = errMsg(e);
        log(`${s.label}: ${q.name}: ERROR ${sq.error}`);
      }
    }
    await sleep(100);
    for (const s of setups) {
      const w = warm.get(s.key);
      if (w === undefined || s.datanodes.length === 0) continue;
      attribute(s, since, [w]);
      plans.set(s.key, w.regionQueries.map((rq) => ({ client: clientOf(rq.node), ...regionQueryOfLog(rq) })));
    }
    const since2 = marks(setups);
    for (let i = 0; i < RUNS; i++) {
      for (const s of setups) {
        const sq = f.bySetup[s.key]!;
        if (sq.error !== undefined) continue;
        try {
          const { run, body } = await timedQuery(s, q.sql);
          sq.runs.push(run);
          check(s, sq, body);
          const plan = plans.get(s.key);
          if (plan !== undefined && plan.length > 0) sq.replays.push(await replay(plan));
        } catch (e) {
          sq.error = errMsg(e);
          log(`${s.label}: ${q.name}: ERROR ${sq.error}`);
        }
      }
    }
    await sleep(100);
    for (const s of setups) {
      const sq = f.bySetup[s.key]!;
      if (s.datanodes.length > 0) attribute(s, since2, [...sq.runs, ...sq.replays]);
    }
    const base = median((f.bySetup.standalone?.runs ?? []).map((r) => r.ms));
    log(`${q.name}: ${setups.map((s) => {
      const sq = f.bySetup[s.key]!;
      if (sq.error !== undefined) return `${s.key} error`;
      const m = median(sq.runs.map((r) => r.ms));
      return `${s.key} ${m.toFixed(1)} ms${s.key === 'standalone' ? '' : ` (${(m / base).toFixed(2)}×${sq.mismatches > 0 ? `, ${sq.mismatches} DIFFERENT` : ''})`}`;
    }).join(', ')}`);
  }
} catch (e) {
  log(`ERROR ${errMsg(e)}`);
  process.exitCode = 1;
} finally {
  for (const c of clients.values()) c.close();
  for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`stop: ${errMsg(e)}`));
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}
const totalSeconds = (performance.now() - t0All) / 1000;

// ---- report ----

const fmt = (ms: number): string => (!Number.isFinite(ms) ? '–' : Math.abs(ms) < 10 ? ms.toFixed(2) : Math.abs(ms) < 100 ? ms.toFixed(1) : ms.toFixed(0));
const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const mean = (xs: readonly number[]): number => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const head = spawnSync('git', ['-C', REPO, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim() !== '';

function medianMs(sq: SetupQuery | undefined): number {
  return sq === undefined || sq.error !== undefined ? Number.NaN : median(sq.runs.map((r) => r.ms));
}

const out: string[] = [];
out.push(`## Cluster vs standalone: TSBS cpu-only ${HOSTS} hosts × ${HOURS} h = ${int(ds.rows)} rows (${int(ds.rows * 10)} values)`);
out.push('');
out.push(`Machine: ${machine(LOAD_AT_START)}. Build ${head}${dirty ? ' (with uncommitted changes)' : ''}.${opts['standalone-query-parallelism'] !== undefined ? ` Standalone with query.parallelism = ${opts['standalone-query-parallelism']}.` : ''} Started ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; ${totalSeconds.toFixed(0)} s in all (start and load ${loadEndMs > 0 ? ((loadEndMs - t0All) / 1000).toFixed(0) : '–'} s). Data seed ${SEED}, query seed ${QUERY_SEED}; line protocol over HTTP (\`/v1/influxdb/write\`, ${BATCH} rows a request, ${CONCURRENCY} in flight), then \`ADMIN flush_table('cpu')\`; queries: 1 warm-up + median of ${RUNS}, the setups taking turns within each round; HTTP client wall time of \`POST /v1/sql\`.`);
out.push('');
out.push('| setup | cpu\'s regions | load rows/s | load / standalone | load s | CPU s while loading | flush s | rows counted | RSS after load (all its processes) |');
out.push('|---|---|---:|---:|---:|---|---:|---:|---:|');
const baseLoad = setups[0]?.load?.rowsPerSecond ?? Number.NaN;
for (const s of setups) {
  out.push(`| ${s.label} | ${s.placement ?? 'in process'} | ${int(s.load?.rowsPerSecond ?? Number.NaN)} | ${s.load === undefined ? '–' : `${(s.load.rowsPerSecond / baseLoad).toFixed(2)}×`} | ${s.load?.seconds.toFixed(1) ?? '–'} | ${s.loadCpu === undefined ? '–' : Object.entries(s.loadCpu).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')} | ${s.flushSeconds?.toFixed(1) ?? '–'} | ${int(s.count ?? Number.NaN)} | ${s.rssBytes === undefined ? '–' : `${(s.rssBytes / 2 ** 20).toFixed(0)} MiB`} |`);
}
const partSetup = setups.find((s) => s.key === '3dn-part');
if (partSetup?.createSql !== undefined) out.push('', `Partitioned cpu (database ${PART_DB}): \`… ${partitionClause(ds)}\`.`);
out.push('');
const clusterSetups = setups.filter((s) => s.key !== 'standalone');
out.push(`| query | rows | standalone ms | ${clusterSetups.map((s) => `${s.label} ms | ×`).join(' | ')} | answers = standalone's |`);
out.push(`|---|---:|---:|${clusterSetups.map(() => '---:|---:|').join('')}---|`);
for (const f of figures) {
  const base = medianMs(f.bySetup.standalone);
  const cells = clusterSetups.map((s) => {
    const m = medianMs(f.bySetup[s.key]);
    const ratio = m / base;
    return `${f.bySetup[s.key]?.error !== undefined ? 'error' : fmt(m)} | ${Number.isFinite(ratio) ? (ratio > 1.5 ? `**${ratio.toFixed(2)}×**` : `${ratio.toFixed(2)}×`) : '–'}`;
  });
  const checks = clusterSetups.map((s) => f.bySetup[s.key]).filter((sq): sq is SetupQuery => sq !== undefined);
  const bad = checks.reduce((n, sq) => n + sq.mismatches, 0);
  const total = checks.reduce((n, sq) => n + sq.checked, 0);
  out.push(`| ${f.name} | ${int(f.bySetup.standalone?.rows ?? Number.NaN)} | ${fmt(base)} | ${cells.join(' | ')} | ${bad === 0 ? `yes (${total} answers)` : `**NO**: ${bad} of ${total}`} |`);
}
out.push('');
out.push('× = cluster / standalone, medians of the same run (bold: above the 1.5× aim).');

for (const s of clusterSetups) {
  out.push('');
  out.push(`### Where the time goes: ${s.label}`);
  out.push('');
  out.push('| query | query ms | region queries | datanode: started ms | first batch ms | elapsed ms | replayed round trip ms | hop: round trip − datanode elapsed ms | frontend: query − round trip ms | rows shipped | IPC bytes shipped | CPU ms: frontend | datanodes | standalone |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const f of figures) {
    const sq = f.bySetup[s.key];
    if (sq === undefined || sq.error !== undefined || sq.runs.length === 0) {
      out.push(`| ${f.name} | ${sq?.error !== undefined ? `error: ${sq.error.slice(0, 100)}` : '–'} |||||||||||||`);
      continue;
    }
    const perRun = (g: (qs: LoggedRegionQuery[]) => number): number => median(sq.runs.map((r) => g(r.regionQueries)));
    const count = perRun((qs) => qs.length);
    const open = perRun((qs) => sum(qs.map((x) => x.openMs)));
    const first = perRun((qs) => sum(qs.map((x) => x.firstBatchMs)));
    const elapsed = perRun((qs) => sum(qs.map((x) => x.elapsedMs)));
    const rows = perRun((qs) => sum(qs.map((x) => x.rows)));
    const bytes = perRun((qs) => sum(qs.map((x) => x.bytes)));
    const roundTrip = sq.replays.length === 0 ? Number.NaN : median(sq.replays.map((r) => r.ms));
    const hop = sq.replays.length === 0 ? Number.NaN : median(sq.replays.map((r) => r.ms - sum(r.regionQueries.map((x) => x.elapsedMs))));
    const q = medianMs(sq);
    const feCpu = mean(sq.runs.map((r) => r.cpuMs['frontend'] ?? 0));
    const dnCpu = mean(sq.runs.map((r) => sum(Object.entries(r.cpuMs).filter(([k]) => k.startsWith('datanode')).map(([, v]) => v))));
    const saCpu = mean((f.bySetup.standalone?.runs ?? []).map((r) => r.cpuMs['standalone'] ?? 0));
    out.push(`| ${f.name} | ${fmt(q)} | ${count} | ${fmt(open)} | ${fmt(first)} | ${fmt(elapsed)} | ${fmt(roundTrip)} | ${fmt(hop)} | ${fmt(q - roundTrip)} | ${int(rows)} | ${int(bytes)} | ${int(feCpu)} | ${int(dnCpu)} | ${int(saCpu)} |`);
  }
}
out.push('');
out.push([
  'Datanode columns: from the datanodes\' `region query answered` lines written during each run (summed over the run\'s region queries, median of the runs):',
  '*started* = until the query answered its schema: scan opened, fragment bound, DuckDB\'s stream started, which runs a blocking query (an aggregation, a sort, a window) to its first result chunk — for most of these queries, all their execution; *first batch* = until the first Arrow batch; *elapsed* = the whole call, the answer\'s conversion to Arrow, IPC encoding and sending included.',
  '*Replayed round trip*: the bench\'s own region client sending the same region queries (same fragment and scan, one after the other as the frontend reads regions) and reading every batch: what the frontend waits for.',
  '*Hop* = that round trip minus the datanode\'s elapsed time of the replay (gRPC call, IPC framing, transfer and decode beyond what the datanode counts); *frontend* = query time minus round trip (HTTP, parse and plan, routes, publishing the answer to DuckDB and the query over it, JSON).',
  'CPU: mean per run from /proc (10 ms ticks), all threads; the frontend\'s also includes its heartbeats.',
].join(' '));
const mismatched = figures.flatMap((f) => clusterSetups.flatMap((s) => {
  const sq = f.bySetup[s.key];
  return sq?.firstMismatch === undefined ? [] : [`- ${s.label} ${f.name}: ${sq.firstMismatch}`];
}));
if (mismatched.length > 0) out.push('', 'Answers that differ from standalone\'s:', ...mismatched);
process.stdout.write(`${out.join('\n')}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({
    machine: machine(LOAD_AT_START), build: head, startedAt, hosts: HOSTS, hours: HOURS, rows: ds.rows, seed: SEED, querySeed: QUERY_SEED, batch: BATCH, concurrency: CONCURRENCY, runs: RUNS, totalSeconds,
    setups: setups.map((s) => ({ key: s.key, label: s.label, db: s.db, createSql: s.createSql, placement: s.placement, load: s.load, loadCpu: s.loadCpu, flushSeconds: s.flushSeconds, count: s.count, rssBytes: s.rssBytes })),
    figures,
  }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2));
  log(`wrote ${opts.json}`);
}
