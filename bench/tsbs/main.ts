/**
 * TSBS cpu-only benchmark of tsdb against its peers (issue 17): tsdb standalone (with the loaded
 * rows in memtables, then flushed), tsdb through a frontend (one datanode), InfluxDB 1.6,
 * VictoriaMetrics, ClickHouse 18 and PostgreSQL 15, in one run on the same generated data. For
 * each system in turn: start its server (127.0.0.1, free ports, own temp dir), bulk-load in its
 * own format, make the writes queryable, check the row count; for each data state wait for it to
 * go idle and run the 11 TSBS queries (one warm-up, then the median of --runs); time --single
 * sequential single-row writes; stop it by PID. Then compare every SQL answer with InfluxDB's (or
 * ClickHouse's, or PostgreSQL's when InfluxDB is not run) and print Markdown to stdout (progress on
 * stderr); --json keeps the raw figures. --sizes runs several sizes in one go and prints how each
 * figure grows against the data (issue 17 item 8); --growth does that from two --json files.
 *
 *   npm run build && node dist/bench/tsbs/main.js [--hosts 100 --hours 24] [--systems all] [--json out.json]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareRows, type Comparison, type Row } from './clients.js';
import { machine } from '../common/machine.js';
import { generate, type Dataset } from './data.js';
import { bulkLoad, median, singleRowLatency } from './load.js';
import { tsbsQueries, tsdbVariants, type QueryDef, type SqlVariant } from './queries.js';
import { columnKey, growthReport, NAMES, sizeReport, type QueryResult, type ReportOptions, type SizeRun, type StateResult, type SystemResult } from './report.js';
import { dirBytes, ensurePackages, installExitCleanup, log, rssBytes, waitIdleAll, type TsbsSystem } from './servers.js';
import { adapterFor, ALL_SYSTEMS, type Adapter, type AdapterContext, type Answer, type Running } from './systems.js';

// Every system's answers are kept to be checked against the reference's: at 4,000 hosts × 3 h,
// high-cpu-all's 448,418 rows from five systems outgrow Node's default heap (~4 GiB here). The
// bench runs itself again with room for them.
const HEAP_MB = 16 * 1024;
if (getHeapStatistics().heap_size_limit < HEAP_MB * 1024 * 1024 * 0.9) {
  const child = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    sizes: { type: 'string' },
    growth: { type: 'string' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '456' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    single: { type: 'string', default: '1000' },
    systems: { type: 'string', default: 'tsdb,influxdb,victoriametrics,clickhouse,postgresql' },
    'tsdb-states': { type: 'string', default: 'memtable,flushed' },
    'tsdb-load': { type: 'string', default: 'lp' },
    'write-buffer': { type: 'string', default: '8GiB' },
    'no-flush': { type: 'boolean', default: false },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const COMMAND = `node dist/bench/tsbs/main.js ${process.argv.slice(2).join(' ')}`.trim();
const SEED = Number(opts.seed);
const QUERY_SEED = Number(opts['query-seed']);
const BATCH = Number(opts.batch);
const CONCURRENCY = Number(opts.concurrency);
const RUNS = Number(opts.runs);
const SINGLE = Number(opts.single);
const SYSTEMS: TsbsSystem[] = opts.systems === 'all' ? [...ALL_SYSTEMS] : opts.systems.split(',').map((s) => s.trim()) as TsbsSystem[];
for (const s of SYSTEMS) if (!ALL_SYSTEMS.includes(s)) throw new Error(`--systems: unknown ${s} (known: ${ALL_SYSTEMS.join(', ')}, or all)`);
const TSDB_STATES = (opts['no-flush'] ? ['memtable'] : opts['tsdb-states'].split(',').map((s) => s.trim())) as ('memtable' | 'flushed')[];
for (const s of TSDB_STATES) if (s !== 'memtable' && s !== 'flushed') throw new Error(`--tsdb-states: unknown ${s} (memtable, flushed)`);
if (TSDB_STATES.length === 2 && TSDB_STATES[0] !== 'memtable') throw new Error('--tsdb-states: memtable must come before flushed');
const TSDB_LOAD = opts['tsdb-load'];
if (TSDB_LOAD !== 'lp' && TSDB_LOAD !== 'sql') throw new Error('--tsdb-load: lp or sql');
const VARIANTS: readonly SqlVariant[] = tsdbVariants();
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);

const CTX: AdapterContext = { repo: REPO, tsdbLoad: TSDB_LOAD, tsdbStates: TSDB_STATES, tsdbWriteBuffer: opts['write-buffer'], concurrency: CONCURRENCY, variants: VARIANTS };
const REPORT: ReportOptions = { command: COMMAND, seed: SEED, querySeed: QUERY_SEED, batch: BATCH, concurrency: CONCURRENCY, runs: RUNS, tsdbLoad: TSDB_LOAD };

/** `100x24,4000x3` → [[100, 24], [4000, 3]]. */
function parseSizes(text: string): [number, number][] {
  return text.split(',').map((s) => {
    const m = /^\s*(\d+)\s*x\s*(\d+(?:\.\d+)?)\s*$/.exec(s);
    if (m === null) throw new Error(`--sizes: "${s}" is not <hosts>x<hours>`);
    return [Number(m[1]), Number(m[2])];
  });
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** One warm-up (its answer kept for the checks), then the median of RUNS. */
async function timeQuery(label: string, name: string, run: () => Promise<Answer> | null, answers: Map<string, Row[]>, answerKey: string, unit: string, note?: string): Promise<QueryResult> {
  const first = run();
  if (first === null) return { medianMs: null, runsMs: [], warmupMs: null, resultSize: null, ...(note === undefined ? {} : { note }) };
  try {
    const warm = await first;
    const rows = warm.rows();
    if (rows !== null) answers.set(answerKey, rows);
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const p = run();
      if (p !== null) runs.push((await p).ms);
    }
    const res: QueryResult = { medianMs: median(runs), runsMs: runs, warmupMs: warm.ms, resultSize: warm.size(), ...(note === undefined ? {} : { note }) };
    log(`${label}: ${name}: median ${res.medianMs?.toFixed(1)} ms (warm-up ${warm.ms.toFixed(1)} ms, ${res.resultSize} ${unit})`);
    return res;
  } catch (e) {
    log(`${label}: ${name}: ERROR ${errMsg(e)}`);
    return { medianMs: null, runsMs: [], warmupMs: null, resultSize: null, error: errMsg(e) };
  }
}

async function runSystem(adapter: Adapter, ds: Dataset, queries: readonly QueryDef[], workDir: string, answers: Map<string, Row[]>): Promise<SystemResult> {
  const sys = adapter.system;
  const result: SystemResult = { system: sys, version: 'unknown', states: [], queries: {} };
  const t0 = performance.now();
  let r: Running;
  try {
    r = await adapter.start(join(workDir, sys));
  } catch (e) {
    result.error = `start failed: ${errMsg(e)}`;
    log(`${sys}: ${result.error}`);
    return result;
  }
  result.version = r.version;
  result.startupMs = performance.now() - t0;
  log(`${sys}: ${r.version}, ${r.describe}, up in ${Math.round(result.startupMs)} ms`);
  try {
    await adapter.setup(r);
    result.load = await bulkLoad(sys, ds, BATCH, CONCURRENCY, (a, b) => adapter.serialize(ds, a, b), (body) => adapter.send(r, body));
    const p0 = performance.now();
    result.postLoadNote = await adapter.afterLoad(r, ds);
    result.postLoadSeconds = (performance.now() - p0) / 1000;
    result.count = await adapter.count(r, ds);
    log(`${sys}: after load: ${result.postLoadNote} (${result.postLoadSeconds.toFixed(1)} s); count = ${result.count.toLocaleString('en-US')} (expected ${ds.rows.toLocaleString('en-US')})`);
    if (result.count !== ds.rows) log(`${sys}: WARNING: row count ${result.count} differs from ${ds.rows}`);
    for (const state of adapter.states) {
      const entered = await state.enter(r);
      const st: StateResult = { name: state.name, note: entered.note, warnings: entered.warning === undefined ? [] : [entered.warning], queries: {} };
      result.states.push(st);
      st.idleWaitMs = await waitIdleAll(() => r.pids());
      st.rssBytes = r.pids().reduce((n, p) => n + rssBytes(p), 0);
      st.diskBreakdown = Object.fromEntries(Object.entries(r.dataDirs).map(([k, d]) => [k, dirBytes(d)]));
      st.diskBytes = Object.values(st.diskBreakdown).reduce((n, b) => n + b, 0);
      const label = `${sys} (${state.name})`;
      log(`${label}: ${st.note}${st.warnings.map((w) => `; WARNING: ${w}`).join('')}; idle after ${(st.idleWaitMs / 1000).toFixed(0)} s; RSS ${(st.rssBytes / 2 ** 20).toFixed(0)} MiB, on disk ${(st.diskBytes / 2 ** 20).toFixed(1)} MiB`);
      const key = columnKey(sys, state.name);
      const unit = sys === 'victoriametrics' ? 'points' : 'rows';
      for (const q of queries) {
        st.queries[q.name] = await timeQuery(label, q.name, () => adapter.query(r, q), answers, `${key}/${q.name}`, unit, sys === 'victoriametrics' ? q.promNote : undefined);
      }
      for (const v of adapter.variants) st.queries[v.name] = await timeQuery(label, v.name, () => adapter.runVariant(r, v), answers, `${key}/${v.name}`, unit);
      const after = await state.check?.(r);
      if (after !== undefined) {
        st.warnings.push(after);
        log(`${label}: WARNING: ${after}`);
      }
      result.queries = st.queries;
    }
    result.single = await singleRowLatency(SINGLE, (i) => adapter.singleWrite(r, ds, i));
    log(`${sys}: ${SINGLE} sequential single-row writes: p50 ${result.single.p50Ms.toFixed(2)} ms, p99 ${result.single.p99Ms.toFixed(2)} ms`);
  } catch (e) {
    result.error = errMsg(e);
    log(`${sys}: ERROR ${result.error}`);
  } finally {
    await r.stop();
    log(`${sys}: stopped`);
  }
  return result;
}

/** InfluxDB answers the TSBS semantics most directly (InfluxQL's own forms); else ClickHouse, else PostgreSQL. */
function referenceOf(systems: readonly TsbsSystem[]): TsbsSystem | null {
  return (['influxdb', 'clickhouse', 'postgresql'] as const).find((s) => systems.includes(s)) ?? null;
}

async function runSize(hosts: number, hours: number): Promise<SizeRun> {
  const loadAtStart = loadavg().map((x) => x.toFixed(2)).join(' ');
  const startedAt = new Date().toISOString();
  const s0 = performance.now();
  log(`generating ${hosts} hosts × ${hours} h (seed ${SEED})`);
  const g0 = performance.now();
  const ds = generate(hosts, hours, SEED);
  log(`generated ${ds.rows.toLocaleString('en-US')} rows in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
  const queries = tsbsQueries(ds, QUERY_SEED);
  const workDir = mkdtempSync(join(tmpdir(), 'tsbs-'));
  log(`work dir ${workDir}`);
  const results: Partial<Record<TsbsSystem, SystemResult>> = {};
  const answers = new Map<string, Row[]>();
  try {
    for (const s of SYSTEMS) results[s] = await runSystem(adapterFor(s, CTX), ds, queries, workDir, answers);
  } finally {
    if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
    else log(`kept ${workDir}`);
  }
  const ref = referenceOf(SYSTEMS);
  const comparisons: Record<string, Record<string, Comparison>> = {};
  if (ref !== null) {
    const refKey = columnKey(ref, 'loaded');
    const refName = NAMES[ref];
    for (const s of SYSTEMS) {
      if (s === ref || s === 'victoriametrics') continue;
      for (const st of results[s]?.states ?? []) {
        const key = columnKey(s, st.name);
        const byQuery: Record<string, Comparison> = {};
        const pairs: [string, string][] = [...queries.map((q): [string, string] => [q.name, q.name]), ...VARIANTS.map((v): [string, string] => [v.name, v.of])];
        for (const [name, of] of pairs) {
          const a = answers.get(`${key}/${name}`);
          const b = answers.get(`${refKey}/${of}`);
          if (a !== undefined && b !== undefined) byQuery[name] = compareRows(a, b, 5, [`${NAMES[s]} (${st.name})`, refName]);
        }
        comparisons[key] = byQuery;
      }
    }
  }
  return {
    hosts, hours, rows: ds.rows, machine: machine(loadAtStart), startedAt, seconds: (performance.now() - s0) / 1000,
    systems: SYSTEMS, reference: ref === null ? null : NAMES[ref], queries, variants: VARIANTS, results, comparisons,
  };
}

/** The runs of a --json file: one (a single size's shape) or several (`{ runs: [...] }`). */
function readRuns(file: string): SizeRun[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as SizeRun | { runs: SizeRun[] };
  return 'runs' in parsed && Array.isArray(parsed.runs) ? parsed.runs : [parsed as SizeRun];
}

if (opts.growth !== undefined) {
  const runs = opts.growth.split(',').flatMap((f) => readRuns(f.trim()));
  const first = runs[0];
  const last = runs[runs.length - 1];
  if (runs.length < 2 || first === undefined || last === undefined) throw new Error('--growth needs two runs: two --json files, or one written by --sizes');
  process.stdout.write(`${growthReport(first, last)}\n`);
} else {
  installExitCleanup();
  ensurePackages(SYSTEMS);
  const sizes = opts.sizes !== undefined ? parseSizes(opts.sizes) : [[Number(opts.hosts), Number(opts.hours)] as [number, number]];
  const runs: SizeRun[] = [];
  for (const [hosts, hours] of sizes) {
    const run = await runSize(hosts, hours);
    runs.push(run);
    process.stdout.write(`${sizeReport(run, REPORT)}\n\n`);
  }
  const first = runs[0];
  const last = runs[runs.length - 1];
  if (runs.length > 1 && first !== undefined && last !== undefined) process.stdout.write(`${growthReport(first, last)}\n`);
  if (opts.json !== undefined) {
    const withOptions = (r: SizeRun): object => ({ ...r, seed: SEED, querySeed: QUERY_SEED, batch: BATCH, concurrency: CONCURRENCY, queryRuns: RUNS, tsdbLoad: TSDB_LOAD, command: COMMAND });
    writeFileSync(opts.json, JSON.stringify(runs.length === 1 && runs[0] !== undefined ? withOptions(runs[0]) : { runs: runs.map(withOptions) }, null, 2));
    log(`wrote ${opts.json}`);
  }
}
