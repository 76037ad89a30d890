/**
 * TSBS cpu-only benchmark of tsdb against InfluxDB 1.x and VictoriaMetrics, in one run: generate the
 * seeded data set, then for each system in turn start its server (127.0.0.1, free port, own temp
 * dir), bulk-load, flush, check the row count, wait for the server to go idle, run the 11 TSBS
 * queries (one warm-up, then the median of --runs), time --single sequential single-row writes and
 * stop it by PID. Then compare tsdb's answers with InfluxDB's and print Markdown tables to stdout
 * (progress on stderr); --json keeps the raw figures.
 *
 *   npm run build && node dist/bench/tsbs/main.js [--hosts 100 --hours 24] [--json out.json]
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  compareRows, influxQuery, influxRows, influxWrite, tsdbRows, tsdbSql, vmForceFlush, vmPoints, vmQuery, vmScalar, vmWrite,
  type Comparison, type Row, type Timed,
} from './clients.js';
import { machine } from '../common/machine.js';
import { generate, lineProtocol, lineProtocolBatch, sqlInsert, sqlTuple, TAGS, FIELDS, TSDB_CREATE_TABLE, INTERVAL_MS, type Dataset } from './data.js';
import { bulkLoad, median, singleRowLatency, type LatencyResult, type LoadResult } from './load.js';
import { tsbsQueries, tsdbVariants, type QueryDef, type SqlVariant } from './queries.js';
import {
  dirBytes, ensurePackages, installExitCleanup, log, rssBytes, startInfluxdb, startTsdb, startVictoriaMetrics, waitIdle,
  type Server, type SystemName,
} from './servers.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '456' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    single: { type: 'string', default: '1000' },
    systems: { type: 'string', default: 'tsdb,influxdb,victoriametrics' },
    'no-flush': { type: 'boolean', default: false },
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
const SINGLE = Number(opts.single);
const SYSTEMS = opts.systems.split(',').map((s) => s.trim()) as SystemName[];
for (const s of SYSTEMS) if (!['tsdb', 'influxdb', 'victoriametrics'].includes(s)) throw new Error(`--systems: unknown ${s}`);
const DB = 'benchmark';
const VARIANTS: readonly SqlVariant[] = tsdbVariants();
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);

interface QueryResult {
  readonly medianMs: number | null;
  readonly runsMs: readonly number[];
  readonly warmupMs: number | null;
  /** Rows (tsdb, InfluxDB) or points (VictoriaMetrics) of the answer. */
  readonly resultSize: number | null;
  readonly error?: string;
  readonly note?: string;
}

interface SystemResult {
  readonly system: SystemName;
  version: string;
  startupMs?: number;
  load?: LoadResult;
  postLoadSeconds?: number;
  postLoadNote?: string;
  count?: number;
  idleWaitMs?: number;
  rssBytes?: number;
  diskBytes?: number;
  diskBreakdown?: Record<string, number>;
  single?: LatencyResult;
  queries: Record<string, QueryResult>;
  error?: string;
}

interface Adapter {
  readonly system: SystemName;
  start(dir: string): Promise<Server>;
  setup(srv: Server): Promise<void>;
  serialize(ds: Dataset, from: number, to: number): string;
  send(srv: Server, body: string): Promise<void>;
  afterLoad(srv: Server, ds: Dataset): Promise<string>;
  count(srv: Server, ds: Dataset): Promise<number>;
  /** null: not expressible for this system. */
  query(srv: Server, q: QueryDef): Promise<Timed> | null;
  rows(body: string): Row[] | null;
  size(body: string): number;
  singleWrite(srv: Server, ds: Dataset, i: number): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const tsdbAdapter: Adapter = {
  system: 'tsdb',
  start: (dir) => startTsdb(REPO, dir),
  async setup(srv) {
    await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu'));
    await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu_single'));
  },
  serialize: (ds, from, to) => sqlInsert(ds, 'cpu', from, to),
  async send(srv, body) {
    await tsdbSql(srv.baseUrl, 'public', body);
  },
  async afterLoad(srv) {
    if (opts['no-flush']) return 'no flush (--no-flush): queries read the memtables';
    await tsdbSql(srv.baseUrl, 'public', "ADMIN flush_table('cpu')");
    return "ADMIN flush_table('cpu')";
  },
  async count(srv) {
    const rows = tsdbRows((await tsdbSql(srv.baseUrl, 'public', 'SELECT count(*) AS n FROM cpu')).body);
    return Number(rows[0]?.['n'] ?? Number.NaN);
  },
  query: (srv, q) => tsdbSql(srv.baseUrl, 'public', q.sql),
  rows: tsdbRows,
  size: (body) => tsdbRows(body).length,
  async singleWrite(srv, ds, i) {
    const tuple = sqlTuple(ds, i % ds.rows, ds.startMs + i * INTERVAL_MS);
    await tsdbSql(srv.baseUrl, 'public', `INSERT INTO cpu_single (${TAGS.join(',')},ts,${FIELDS.join(',')}) VALUES ${tuple}`);
  },
};

const influxAdapter: Adapter = {
  system: 'influxdb',
  start: (dir) => startInfluxdb(dir),
  async setup(srv) {
    const res = await fetch(`${srv.baseUrl}/query?q=${encodeURIComponent(`CREATE DATABASE ${DB}`)}`, { method: 'POST' });
    const body = await res.text();
    if (!res.ok) throw new Error(`influxdb CREATE DATABASE: ${res.status} ${body}`);
  },
  serialize: (ds, from, to) => lineProtocolBatch(ds, from, to),
  send: (srv, body) => influxWrite(srv.baseUrl, DB, body),
  afterLoad: () => Promise.resolve('none (writes are queryable once acknowledged)'),
  async count(srv) {
    const rows = influxRows((await influxQuery(srv.baseUrl, DB, 'SELECT count(usage_user) FROM cpu')).body);
    return Number(rows[0]?.['count'] ?? Number.NaN);
  },
  query: (srv, q) => influxQuery(srv.baseUrl, DB, q.influxql),
  rows: influxRows,
  size: (body) => influxRows(body).length,
  singleWrite: (srv, ds, i) => influxWrite(srv.baseUrl, DB, `${lineProtocol(ds, i % ds.rows, 'cpu_single', ds.startMs + i * INTERVAL_MS)}\n`),
};

async function vmCount(srv: Server, ds: Dataset): Promise<number> {
  const window = Math.ceil((ds.endMs - ds.startMs) / 1000) + 60;
  const t = await vmQuery(srv.baseUrl, { kind: 'instant', query: `sum(count_over_time(cpu_usage_user[${window}s]))`, startMs: ds.endMs, endMs: ds.endMs, stepS: 0 });
  return vmScalar(t.body);
}

const vmAdapter: Adapter = {
  system: 'victoriametrics',
  start: (dir) => startVictoriaMetrics(dir),
  setup: () => Promise.resolve(),
  serialize: (ds, from, to) => lineProtocolBatch(ds, from, to),
  send: (srv, body) => vmWrite(srv.baseUrl, body),
  async afterLoad(srv, ds) {
    const flushed = await vmForceFlush(srv.baseUrl);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if ((await vmCount(srv, ds)) === ds.rows) break;
      await sleep(500);
      await vmForceFlush(srv.baseUrl);
    }
    return `${flushed ? '/internal/force_flush' : 'no /internal/force_flush'}, then polled until every sample was searchable`;
  },
  count: vmCount,
  query: (srv, q) => (q.promql === null ? null : vmQuery(srv.baseUrl, q.promql)),
  rows: () => null,
  size: vmPoints,
  singleWrite: (srv, ds, i) => vmWrite(srv.baseUrl, `${lineProtocol(ds, i % ds.rows, 'cpu_single', ds.startMs + i * INTERVAL_MS)}\n`),
};

const ADAPTERS: Record<SystemName, Adapter> = { tsdb: tsdbAdapter, influxdb: influxAdapter, victoriametrics: vmAdapter };

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function runSystem(adapter: Adapter, ds: Dataset, queries: readonly QueryDef[], workDir: string, answers: Map<string, Row[]>): Promise<SystemResult> {
  const result: SystemResult = { system: adapter.system, version: 'unknown', queries: {} };
  const dir = join(workDir, adapter.system);
  const t0 = performance.now();
  let srv: Server;
  try {
    srv = await adapter.start(dir);
  } catch (e) {
    result.error = `start failed: ${errMsg(e)}`;
    log(`${adapter.system}: ${result.error}`);
    return result;
  }
  result.version = srv.version;
  result.startupMs = performance.now() - t0;
  log(`${adapter.system}: ${srv.version}, pid ${srv.pid}, ${srv.baseUrl}, up in ${Math.round(result.startupMs)} ms`);
  try {
    await adapter.setup(srv);
    result.load = await bulkLoad(adapter.system, ds, BATCH, CONCURRENCY, (a, b) => adapter.serialize(ds, a, b), (body) => adapter.send(srv, body));
    const p0 = performance.now();
    result.postLoadNote = await adapter.afterLoad(srv, ds);
    result.postLoadSeconds = (performance.now() - p0) / 1000;
    result.count = await adapter.count(srv, ds);
    log(`${adapter.system}: after load: ${result.postLoadNote} (${result.postLoadSeconds.toFixed(1)} s); count = ${result.count.toLocaleString('en-US')} (expected ${ds.rows.toLocaleString('en-US')})`);
    if (result.count !== ds.rows) log(`${adapter.system}: WARNING: row count ${result.count} differs from ${ds.rows}`);
    result.idleWaitMs = await waitIdle(srv.pid);
    result.rssBytes = rssBytes(srv.pid);
    result.diskBreakdown = Object.fromEntries(Object.entries(srv.dataDirs).map(([k, d]) => [k, dirBytes(d)]));
    result.diskBytes = Object.values(result.diskBreakdown).reduce((n, b) => n + b, 0);
    log(`${adapter.system}: idle after ${(result.idleWaitMs / 1000).toFixed(0)} s; RSS ${(result.rssBytes / 2 ** 20).toFixed(0)} MiB, on disk ${(result.diskBytes / 2 ** 20).toFixed(1)} MiB`);
    for (const q of queries) {
      const first = adapter.query(srv, q);
      if (first === null) {
        result.queries[q.name] = { medianMs: null, runsMs: [], warmupMs: null, resultSize: null, note: q.promNote };
        continue;
      }
      try {
        const warm = await first;
        const rows = adapter.rows(warm.body);
        if (rows !== null) answers.set(`${adapter.system}/${q.name}`, rows);
        const runs: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const p = adapter.query(srv, q);
          if (p !== null) runs.push((await p).ms);
        }
        const res: QueryResult = { medianMs: median(runs), runsMs: runs, warmupMs: warm.ms, resultSize: adapter.size(warm.body), ...(adapter.system === 'victoriametrics' ? { note: q.promNote } : {}) };
        result.queries[q.name] = res;
        log(`${adapter.system}: ${q.name}: median ${res.medianMs?.toFixed(1)} ms (warm-up ${warm.ms.toFixed(1)} ms, ${res.resultSize} ${adapter.system === 'victoriametrics' ? 'points' : 'rows'})`);
      } catch (e) {
        result.queries[q.name] = { medianMs: null, runsMs: [], warmupMs: null, resultSize: null, error: errMsg(e) };
        log(`${adapter.system}: ${q.name}: ERROR ${errMsg(e)}`);
      }
    }
    if (adapter.system === 'tsdb') {
      for (const v of VARIANTS) {
        try {
          const warm = await tsdbSql(srv.baseUrl, 'public', v.sql);
          answers.set(`tsdb/${v.name}`, tsdbRows(warm.body));
          const runs: number[] = [];
          for (let i = 0; i < RUNS; i++) runs.push((await tsdbSql(srv.baseUrl, 'public', v.sql)).ms);
          result.queries[v.name] = { medianMs: median(runs), runsMs: runs, warmupMs: warm.ms, resultSize: tsdbRows(warm.body).length };
          log(`tsdb: ${v.name}: median ${median(runs).toFixed(1)} ms`);
        } catch (e) {
          result.queries[v.name] = { medianMs: null, runsMs: [], warmupMs: null, resultSize: null, error: errMsg(e) };
          log(`tsdb: ${v.name}: ERROR ${errMsg(e)}`);
        }
      }
    }
    result.single = await singleRowLatency(SINGLE, (i) => adapter.singleWrite(srv, ds, i));
    log(`${adapter.system}: ${SINGLE} sequential single-row writes: p50 ${result.single.p50Ms.toFixed(2)} ms, p99 ${result.single.p99Ms.toFixed(2)} ms`);
  } catch (e) {
    result.error = errMsg(e);
    log(`${adapter.system}: ERROR ${result.error}`);
  } finally {
    await srv.stop();
    log(`${adapter.system}: stopped pid ${srv.pid}`);
  }
  return result;
}

// ---- report ----

const NAMES: Record<SystemName, string> = { tsdb: 'tsdb', influxdb: 'InfluxDB', victoriametrics: 'VictoriaMetrics' };

function fmtMs(r: QueryResult | undefined): string {
  if (r === undefined) return '–';
  if (r.error !== undefined) return 'error';
  if (r.medianMs === null) return 'n/a';
  return r.medianMs < 10 ? r.medianMs.toFixed(2) : r.medianMs < 100 ? r.medianMs.toFixed(1) : r.medianMs.toFixed(0);
}

function ratio(a: QueryResult | undefined, b: QueryResult | undefined): string {
  if (a?.medianMs == null || b?.medianMs == null) return '–';
  return `${(a.medianMs / b.medianMs).toFixed(2)}×`;
}

function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function disk(r: SystemResult): string {
  if (r.diskBytes === undefined) return '–';
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const parts = Object.entries(r.diskBreakdown ?? {}).filter(([, b]) => b >= 2 ** 19);
  return parts.length > 1 ? `${mib(r.diskBytes)} (${parts.map(([k, b]) => `${k} ${mib(b)}`).join(', ')})` : mib(r.diskBytes);
}


function report(ds: Dataset, queries: readonly QueryDef[], results: Partial<Record<SystemName, SystemResult>>, comparisons: Record<string, Comparison>): string {
  const t = results.tsdb;
  const i = results.influxdb;
  const v = results.victoriametrics;
  const out: string[] = [];
  out.push(`## TSBS cpu-only: ${ds.hosts} hosts × ${HOURS} h = ${int(ds.rows)} rows (${int(ds.rows * FIELDS.length)} values)`);
  out.push('');
  out.push(`Machine: ${machine(LOAD_AT_START)}. Data seed ${SEED}, query seed ${QUERY_SEED}; load: batches of ${BATCH} rows, ${CONCURRENCY} concurrent requests; queries: 1 warm-up + median of ${RUNS}, client-side wall time over HTTP; servers run one at a time.`);
  out.push('');
  out.push('| system | version | load rows/s | load s | after load | rows counted | RSS after load | on disk | single-row write p50 / p99 ms |');
  out.push('|---|---|---:|---:|---|---:|---:|---:|---:|');
  for (const s of SYSTEMS) {
    const r = results[s];
    if (r === undefined) continue;
    const after = r.postLoadSeconds === undefined ? '–' : `${r.postLoadNote ?? ''}: ${r.postLoadSeconds.toFixed(1)} s`;
    out.push(`| ${NAMES[s]} | ${r.version} | ${r.load ? int(r.load.rowsPerSecond) : 'error'} | ${r.load ? r.load.seconds.toFixed(1) : '–'} | ${after} | ${r.count !== undefined ? int(r.count) : '–'} | ${r.rssBytes ? `${(r.rssBytes / 2 ** 20).toFixed(0)} MiB` : '–'} | ${disk(r)} | ${r.single ? `${r.single.p50Ms.toFixed(2)} / ${r.single.p99Ms.toFixed(2)}` : '–'} |`);
  }
  for (const s of SYSTEMS) if (results[s]?.error !== undefined) out.push(`\n${NAMES[s]} error: ${results[s]?.error ?? ''}`);
  out.push('');
  out.push('| query | tsdb ms | InfluxDB ms | VictoriaMetrics ms | tsdb/InfluxDB | tsdb/VM | tsdb = InfluxDB? |');
  out.push('|---|---:|---:|---:|---:|---:|---|');
  for (const q of queries) {
    const c = comparisons[q.name];
    const same = c === undefined ? '–' : c.ok ? `yes (${int(c.tsdbRows)} rows)` : `**NO** (${c.mismatches.length} issue(s))`;
    out.push(`| ${q.name} | ${fmtMs(t?.queries[q.name])} | ${fmtMs(i?.queries[q.name])} | ${fmtMs(v?.queries[q.name])} | ${ratio(t?.queries[q.name], i?.queries[q.name])} | ${ratio(t?.queries[q.name], v?.queries[q.name])} | ${same} |`);
  }
  const variantRows = VARIANTS.filter((v) => t?.queries[v.name] !== undefined);
  if (variantRows.length > 0) {
    out.push('');
    out.push('Other SQL forms on tsdb (same answer expected):');
    out.push('');
    out.push('| tsdb query form | tsdb ms | TSBS form ms | InfluxDB ms | tsdb/InfluxDB | tsdb = InfluxDB? |');
    out.push('|---|---:|---:|---:|---:|---|');
    for (const v of variantRows) {
      const c = comparisons[v.name];
      const same = c === undefined ? '–' : c.ok ? `yes (${int(c.tsdbRows)} rows)` : `**NO** (${c.mismatches.length} issue(s))`;
      out.push(`| ${v.name} | ${fmtMs(t?.queries[v.name])} | ${fmtMs(t?.queries[v.of])} | ${fmtMs(i?.queries[v.of])} | ${ratio(t?.queries[v.name], i?.queries[v.of])} | ${same} |`);
    }
  }
  out.push('');
  out.push('Ratios > 1 mean tsdb is slower. VictoriaMetrics runs the PromQL/MetricsQL equivalents (n/a = not expressible in PromQL: compared with InfluxDB only):');
  for (const q of queries) out.push(`- ${q.name}: ${q.description}; VM: ${q.promNote}`);
  const errors = queries.flatMap((q) => SYSTEMS.flatMap((s) => {
    const e = results[s]?.queries[q.name]?.error;
    return e === undefined ? [] : [`- ${NAMES[s]} ${q.name}: ${e}`];
  }));
  if (errors.length > 0) out.push('', 'Query errors:', ...errors);
  const bad = Object.entries(comparisons).filter(([, c]) => !c.ok);
  if (bad.length > 0) {
    out.push('', 'tsdb vs InfluxDB mismatches:');
    for (const [name, c] of bad) for (const m of c.mismatches) out.push(`- ${name}: ${m}`);
  }
  return out.join('\n');
}

// ---- main ----

installExitCleanup();
const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');
if (SYSTEMS.some((s) => s !== 'tsdb')) ensurePackages();
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const g0 = performance.now();
const ds = generate(HOSTS, HOURS, SEED);
log(`generated ${int(ds.rows)} rows in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
const queries = tsbsQueries(ds, QUERY_SEED);
const workDir = mkdtempSync(join(tmpdir(), 'tsbs-'));
log(`work dir ${workDir}`);
const results: Partial<Record<SystemName, SystemResult>> = {};
const answers = new Map<string, Row[]>();
try {
  for (const s of SYSTEMS) results[s] = await runSystem(ADAPTERS[s], ds, queries, workDir, answers);
} finally {
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}

const comparisons: Record<string, Comparison> = {};
for (const q of queries) {
  const a = answers.get(`tsdb/${q.name}`);
  const b = answers.get(`influxdb/${q.name}`);
  if (a !== undefined && b !== undefined) comparisons[q.name] = compareRows(a, b);
}
for (const v of VARIANTS) {
  const a = answers.get(`tsdb/${v.name}`);
  const b = answers.get(`influxdb/${v.of}`);
  if (a !== undefined && b !== undefined) comparisons[v.name] = compareRows(a, b);
}

process.stdout.write(`${report(ds, queries, results, comparisons)}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({
    machine: machine(LOAD_AT_START), hosts: HOSTS, hours: HOURS, rows: ds.rows, seed: SEED, querySeed: QUERY_SEED, batch: BATCH, concurrency: CONCURRENCY, runs: RUNS,
    queries: queries.map((q) => ({ name: q.name, description: q.description, sql: q.sql, influxql: q.influxql, promql: q.promql, promNote: q.promNote })),
    tsdbVariants: VARIANTS,
    results, comparisons,
  }, null, 2));
  log(`wrote ${opts.json}`);
}
