/**
 * TSBS cpu-only with the table on S3 (s3rver, through tsdb's local file cache) against the same on
 * the default File storage, in one run. Two tsdb servers (log level info, own temp dirs; the S3 one
 * configured by environment variables): each is started, bulk-loaded and flushed (ADMIN
 * FLUSH_TABLE('cpu'), timed), one after the other; then the 11 TSBS queries run warm on both,
 * paired (per query: a warm-up on each, then --runs rounds of one run on each, alternating the
 * order), so that the shared machine's load drifts alike for both. Both are stopped by SIGTERM and
 * started again — S3 with its cache directory emptied, so every file is downloaded again — and the
 * FIRST run of each query is timed with the bytes it brought into the cache; then the warm medians
 * again. With --cold-each, each query also runs once alone on a freshly restarted server (S3: empty
 * cache). The cache's own figures (hits, misses, downloads, bytes) come from the `file cache closed`
 * line tsdb logs at shutdown. s3rver runs in a child process on the same machine; its CPU time is
 * reported per phase. Answers on S3 are compared with File's. Markdown report on stdout, progress
 * on stderr.
 *
 *   npm run build && node dist/bench/object-storage/main.js [--hosts 100 --hours 24] [--cold-each] [--json out.json]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, loadAverages } from '../common/machine.js';
import { compareRows, tsdbRows, tsdbSql, type Comparison, type Row } from '../tsbs/clients.js';
import { generate, sqlInsert, FIELDS, TSDB_CREATE_TABLE, type Dataset } from '../tsbs/data.js';
import { bulkLoad, median, type LoadResult } from '../tsbs/load.js';
import { tsbsQueries, type QueryDef } from '../tsbs/queries.js';
import { cpuSeconds, dirBytes, installExitCleanup, log, rssBytes, startTsdb, waitIdle, type Server } from '../tsbs/servers.js';
import { startS3rver, type S3Server } from '../../test/support/object-servers.js';
import type { FileCacheStats } from '../../src/storage/file-cache.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '456' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    runs: { type: 'string', default: '5' },
    'cache-capacity': { type: 'string', default: '1GiB' },
    'cold-each': { type: 'boolean', default: false },
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
const CACHE_CAPACITY = opts['cache-capacity'];
const COLD_EACH = opts['cold-each'];
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);

type StorageKind = 'File' | 'S3';

/** The figures of one `file cache closed` log line (the cache's own stats). */
type CacheFigures = Omit<FileCacheStats, 'pinned'>;

interface WarmQuery {
  readonly warmupMs: number;
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  readonly rows: number;
}

interface ColdQuery {
  readonly ms: number;
  /** Growth of the cache directory during the query: what it downloaded. */
  readonly downloadedBytes: number;
  readonly s3rverCpuS: number;
  readonly tsdbCpuS: number;
  readonly rows: number;
}

interface Phase {
  /** Wall time of the phase and CPU seconds of tsdb and s3rver in it. */
  readonly seconds: number;
  readonly tsdbCpuS: number;
  readonly s3rverCpuS: number;
}

interface StorageResult {
  readonly kind: StorageKind;
  version?: string;
  startupMs?: number;
  load?: LoadResult;
  loadPhase?: Phase;
  flushPhase?: Phase;
  count?: number;
  idleWaitMs?: number;
  rssBytes?: number;
  local?: Record<string, number>;
  bucketBytes?: number;
  warm: Record<string, WarmQuery>;
  warmPhase?: Phase;
  /** Cache figures logged at the shutdown of the first server (load + warm queries). */
  cache1?: CacheFigures | null;
  restartMs?: number;
  cacheBytesAfterRestart?: number;
  cold: Record<string, ColdQuery>;
  coldPhase?: Phase;
  warmAgain: Record<string, WarmQuery>;
  cache2?: CacheFigures | null;
  cacheDirBytesAtEnd?: number;
  coldEach: Record<string, ColdQuery & { restartMs: number }>;
  errors: string[];
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The last `file cache closed` line of a tsdb log (pino JSON lines), or null. */
function cacheFigures(logFile: string): CacheFigures | null {
  let found: CacheFigures | null = null;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('file cache closed')) continue;
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (o['msg'] !== 'file cache closed') continue;
      const n = (k: string): number => Number(o[k] ?? Number.NaN);
      found = {
        hits: n('hits'), misses: n('misses'), downloads: n('downloads'), downloadedBytes: n('downloadedBytes'), evictions: n('evictions'),
        evictedBytes: n('evictedBytes'), bytes: n('bytes'), files: n('files'), capacity: n('capacity'),
      };
    } catch {
      // not a JSON line
    }
  }
  return found;
}

class CpuMeter {
  private t0 = performance.now();
  private tsdb0: number;
  private s30: number;
  constructor(private readonly tsdbPid: number, private readonly s3Pid: number | undefined) {
    this.tsdb0 = cpuSeconds(tsdbPid);
    this.s30 = s3Pid === undefined ? 0 : cpuSeconds(s3Pid);
  }
  read(): Phase {
    return {
      seconds: (performance.now() - this.t0) / 1000,
      tsdbCpuS: cpuSeconds(this.tsdbPid) - this.tsdb0,
      s3rverCpuS: this.s3Pid === undefined ? 0 : cpuSeconds(this.s3Pid) - this.s30,
    };
  }
}

async function count(srv: Server): Promise<number> {
  const rows = tsdbRows((await tsdbSql(srv.baseUrl, 'public', 'SELECT count(*) AS n FROM cpu')).body);
  return Number(rows[0]?.['n'] ?? Number.NaN);
}

/** One storage under test: its directories, environment and results; `srv` while running. */
interface Side {
  readonly kind: StorageKind;
  readonly dir: string;
  readonly home: string;
  readonly wal: string;
  readonly cacheDir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly s3: S3Server | null;
  starts: number;
  srv: Server | null;
  readonly r: StorageResult;
}

function makeSide(kind: StorageKind, s3: S3Server | null, workDir: string): Side {
  const dir = join(workDir, kind.toLowerCase());
  const home = join(dir, 'home');
  const wal = join(home, 'wal');
  const env: Record<string, string> = s3 === null ? {} : {
    TSDB_STANDALONE__STORAGE__TYPE: 'S3',
    TSDB_STANDALONE__STORAGE__BUCKET: s3.bucket,
    TSDB_STANDALONE__STORAGE__ROOT: 'tsbs',
    TSDB_STANDALONE__STORAGE__ENDPOINT: s3.endpoint,
    TSDB_STANDALONE__STORAGE__REGION: s3.region,
    TSDB_STANDALONE__STORAGE__ACCESS_KEY_ID: s3.accessKeyId,
    TSDB_STANDALONE__STORAGE__SECRET_ACCESS_KEY: s3.secretAccessKey,
    TSDB_STANDALONE__STORAGE__CACHE_CAPACITY: CACHE_CAPACITY,
    TSDB_STANDALONE__WAL__DIR: wal,
  };
  return { kind, dir, home, wal, cacheDir: join(home, 'object_cache'), env, s3, starts: 0, srv: null, r: { kind, warm: {}, cold: {}, warmAgain: {}, coldEach: {}, errors: [] } };
}

function logOf(side: Side, start: number): string {
  return join(side.dir, `server-${start}.log`);
}

/** Starts the side's tsdb (S3: with its cache directory emptied first when `emptyCache`); returns the start-up ms. */
async function startSide(side: Side, emptyCache: boolean): Promise<number> {
  if (emptyCache && side.s3 !== null) rmSync(side.cacheDir, { recursive: true, force: true });
  const t0 = performance.now();
  side.srv = await startTsdb(REPO, side.dir, { env: side.env, logLevel: 'info', logFile: logOf(side, ++side.starts) });
  return performance.now() - t0;
}

/** Stops the side's tsdb by SIGTERM and returns the cache figures it logged at shutdown. */
async function stopSide(side: Side): Promise<CacheFigures | null> {
  if (side.srv === null) return null;
  await side.srv.stop();
  side.srv = null;
  return cacheFigures(logOf(side, side.starts));
}

function running(side: Side): Server {
  if (side.srv === null) throw new Error(`${side.kind}: not running`);
  return side.srv;
}

/** Start, create the table, bulk-load, flush, count, wait for idle, sizes. The server stays up. */
async function loadSide(side: Side, ds: Dataset): Promise<void> {
  const r = side.r;
  const s3Pid = side.s3?.pid;
  r.startupMs = await startSide(side, false);
  const srv = running(side);
  r.version = srv.version;
  log(`${side.kind}: ${srv.version}, pid ${srv.pid}, ${srv.baseUrl}, up in ${Math.round(r.startupMs)} ms`);
  await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu'));
  let meter = new CpuMeter(srv.pid, s3Pid);
  r.load = await bulkLoad(side.kind, ds, BATCH, CONCURRENCY, (a, b) => sqlInsert(ds, 'cpu', a, b), async (body) => {
    await tsdbSql(srv.baseUrl, 'public', body);
  });
  r.loadPhase = meter.read();
  meter = new CpuMeter(srv.pid, s3Pid);
  await tsdbSql(srv.baseUrl, 'public', "ADMIN FLUSH_TABLE('cpu')");
  r.flushPhase = meter.read();
  r.count = await count(srv);
  log(`${side.kind}: flush ${r.flushPhase.seconds.toFixed(2)} s; count ${r.count} (expected ${ds.rows})`);
  if (r.count !== ds.rows) r.errors.push(`${side.kind}: row count ${r.count}, expected ${ds.rows}`);
  r.idleWaitMs = await waitIdle(srv.pid);
  r.rssBytes = rssBytes(srv.pid);
  r.local = { data: dirBytes(join(side.home, 'data')), wal: dirBytes(side.wal), cache: dirBytes(side.cacheDir) };
  if (side.s3 !== null) r.bucketBytes = dirBytes(side.s3.dataDir);
  log(`${side.kind}: idle after ${(r.idleWaitMs / 1000).toFixed(0)} s; local ${JSON.stringify(r.local)}, bucket ${r.bucketBytes ?? 0} bytes`);
}

/**
 * Warm medians of every query on every side, paired: for each query a warm-up on each side, then
 * --runs rounds, each running it once per side (the order alternating between rounds), so that
 * the machine's load drifts the same way for both.
 */
async function warmPaired(sides: readonly Side[], queries: readonly QueryDef[], phaseName: 'warm' | 'warmAgain', answers: Map<string, Row[]>): Promise<void> {
  const meters = sides.map((s) => new CpuMeter(running(s).pid, s.s3?.pid));
  for (const q of queries) {
    const warmups = new Map<Side, { ms: number; rows: number }>();
    const runs = new Map<Side, number[]>(sides.map((s) => [s, []]));
    try {
      for (const s of sides) {
        const t = await tsdbSql(running(s).baseUrl, 'public', q.sql);
        const rows = tsdbRows(t.body);
        answers.set(`${s.kind}/${phaseName}/${q.name}`, rows);
        warmups.set(s, { ms: t.ms, rows: rows.length });
      }
      for (let i = 0; i < RUNS; i++) {
        for (const s of i % 2 === 0 ? sides : [...sides].reverse()) runs.get(s)!.push((await tsdbSql(running(s).baseUrl, 'public', q.sql)).ms);
      }
    } catch (e) {
      for (const s of sides) s.r.errors.push(`${phaseName} ${q.name}: ${errMsg(e)}`);
      log(`${phaseName}: ${q.name}: ERROR ${errMsg(e)}`);
      continue;
    }
    for (const s of sides) {
      const w = warmups.get(s)!;
      const xs = runs.get(s)!;
      s.r[phaseName][q.name] = { warmupMs: w.ms, runsMs: xs, medianMs: median(xs), rows: w.rows };
    }
    log(`${phaseName}: ${q.name}: ${sides.map((s) => `${s.kind} ${median(runs.get(s)!).toFixed(1)} ms`).join(', ')} (${warmups.get(sides[0]!)?.rows} rows)`);
  }
  sides.forEach((s, i) => {
    if (phaseName === 'warm') s.r.warmPhase = meters[i]!.read();
  });
}

/** The first run of each query on each freshly restarted side, query by query. */
async function coldPaired(sides: readonly Side[], queries: readonly QueryDef[], answers: Map<string, Row[]>): Promise<void> {
  const meters = sides.map((s) => new CpuMeter(running(s).pid, s.s3?.pid));
  for (const q of queries) {
    for (const s of sides) {
      try {
        const c = await coldQuery(running(s), q, s.cacheDir, s.s3?.pid, answers, `${s.kind}/cold/${q.name}`);
        s.r.cold[q.name] = c;
        log(`${s.kind} cold: ${q.name}: ${c.ms.toFixed(1)} ms, ${c.downloadedBytes} bytes into the cache, s3rver ${c.s3rverCpuS.toFixed(2)} CPU s`);
      } catch (e) {
        s.r.errors.push(`cold ${q.name}: ${errMsg(e)}`);
        log(`${s.kind} cold: ${q.name}: ERROR ${errMsg(e)}`);
      }
    }
  }
  sides.forEach((s, i) => {
    s.r.coldPhase = meters[i]!.read();
  });
}

/** Each query alone on a freshly restarted server (S3: with an empty cache). */
async function coldEach(side: Side, queries: readonly QueryDef[], answers: Map<string, Row[]>): Promise<void> {
  for (const q of queries) {
    const restartMs = await startSide(side, true);
    try {
      const c = await coldQuery(running(side), q, side.cacheDir, side.s3?.pid, answers, `${side.kind}/cold-each/${q.name}`);
      side.r.coldEach[q.name] = { ...c, restartMs };
      log(`${side.kind} cold alone: ${q.name}: ${c.ms.toFixed(1)} ms, ${c.downloadedBytes} bytes into the cache`);
    } catch (e) {
      side.r.errors.push(`cold alone ${q.name}: ${errMsg(e)}`);
      log(`${side.kind} cold alone: ${q.name}: ERROR ${errMsg(e)}`);
    } finally {
      await stopSide(side);
    }
  }
}

async function coldQuery(srv: Server, q: QueryDef, cacheDir: string, s3Pid: number | undefined, answers: Map<string, Row[]>, key: string): Promise<ColdQuery> {
  const before = dirBytes(cacheDir);
  const meter = new CpuMeter(srv.pid, s3Pid);
  const t = await tsdbSql(srv.baseUrl, 'public', q.sql);
  const phase = meter.read();
  const rows = tsdbRows(t.body);
  answers.set(key, rows);
  return { ms: t.ms, downloadedBytes: dirBytes(cacheDir) - before, s3rverCpuS: phase.s3rverCpuS, tsdbCpuS: phase.tsdbCpuS, rows: rows.length };
}

/**
 * The whole run: both servers loaded (File first; the File server idles while S3 loads), warm
 * queries paired, both stopped and restarted (S3 with an empty cache), first runs, warm again,
 * both stopped; then optionally each query alone after a restart, File then S3.
 */
async function runBoth(file: Side, s3: Side, ds: Dataset, queries: readonly QueryDef[], answers: Map<string, Row[]>): Promise<void> {
  const sides = [file, s3];
  try {
    await loadSide(file, ds);
    await loadSide(s3, ds);
    await warmPaired(sides, queries, 'warm', answers);
    for (const s of sides) {
      s.r.cache1 = await stopSide(s);
      log(`${s.kind}: stopped; cache figures ${JSON.stringify(s.r.cache1)}`);
    }
    for (const s of sides) {
      s.r.restartMs = await startSide(s, true);
      s.r.cacheBytesAfterRestart = dirBytes(s.cacheDir);
      log(`${s.kind}: restarted in ${Math.round(s.r.restartMs)} ms (cache dir ${s.r.cacheBytesAfterRestart} bytes)`);
    }
    await coldPaired(sides, queries, answers);
    await warmPaired(sides, queries, 'warmAgain', answers);
    for (const s of sides) {
      s.r.cacheDirBytesAtEnd = dirBytes(s.cacheDir);
      s.r.cache2 = await stopSide(s);
      log(`${s.kind}: stopped; cache figures ${JSON.stringify(s.r.cache2)}`);
    }
    if (COLD_EACH) for (const s of sides) await coldEach(s, queries, answers);
  } finally {
    for (const s of sides) await stopSide(s);
  }
}

// ---- report ----

function ms(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  return x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0);
}

function int(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '–' : Math.round(x).toLocaleString('en-US');
}

function mib(b: number | undefined): string {
  return b === undefined || !Number.isFinite(b) ? '–' : `${(b / 2 ** 20).toFixed(1)} MiB`;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined ? '–' : `${(a / b).toFixed(2)}×`;
}

function phase(p: Phase | undefined, s3: boolean): string {
  if (p === undefined) return '–';
  return `${p.tsdbCpuS.toFixed(1)}${s3 ? ` / ${p.s3rverCpuS.toFixed(1)}` : ''}`;
}

function same(c: Comparison | undefined, exact: boolean | undefined): string {
  if (c === undefined) return '–';
  if (!c.ok) return `**no** (${c.mismatches[0] ?? ''})`;
  return exact === true ? `yes (${int(c.tsdbRows)} rows)` : `yes within 1e-9 (${int(c.tsdbRows)} rows)`;
}

function cacheLine(label: string, c: CacheFigures | null | undefined): string {
  if (c === undefined || c === null) return `| ${label} | no 'file cache closed' line | | | | | | |`;
  const lookups = c.hits + c.misses;
  return `| ${label} | ${int(c.hits)} / ${int(c.misses)} | ${lookups === 0 ? '–' : `${((100 * c.hits) / lookups).toFixed(1)}%`} | ${int(c.downloads)} | ${mib(c.downloadedBytes)} | ${int(c.evictions)} | ${int(c.files)} | ${mib(c.bytes)} |`;
}

/** Sorted JSON of the rows: equal strings mean bit-identical answers. */
function canonical(rows: readonly Row[]): string {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort().join('\n');
}

function report(ds: Dataset, queries: readonly QueryDef[], file: StorageResult | undefined, s3: StorageResult | undefined, answers: Map<string, Row[]>, loadAtStart: string, s3Info: string): string {
  const out: string[] = [];
  const cmp = (a: string, b: string): { c: Comparison; exact: boolean } | undefined => {
    const x = answers.get(a);
    const y = answers.get(b);
    return x === undefined || y === undefined ? undefined : { c: compareRows(x, y, 3, ['S3', 'File']), exact: canonical(x) === canonical(y) };
  };
  out.push(`## TSBS cpu-only on S3 (s3rver) against File: ${ds.hosts} hosts × ${HOURS} h = ${int(ds.rows)} rows (${int(ds.rows * FIELDS.length)} values)`);
  out.push('');
  out.push(`Machine: ${machine(loadAtStart)}. Data seed ${SEED}, query seed ${QUERY_SEED}; load: batches of ${BATCH} rows, ${CONCURRENCY} concurrent requests; queries: client-side wall time over HTTP, warm = 1 warm-up + median of ${RUNS}; S3 cache_capacity ${CACHE_CAPACITY}; ${s3Info}; tsdb at log level info.`);
  out.push('');
  out.push('| storage | load rows/s | load s | CPU s in load: tsdb / s3rver | flush s | CPU s in flush: tsdb / s3rver | rows counted | RSS after load | local data / wal / cache | in the bucket | startup ms / restart ms |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|');
  for (const r of [file, s3]) {
    if (r === undefined) continue;
    const isS3 = r.kind === 'S3';
    out.push(`| ${r.kind} | ${int(r.load?.rowsPerSecond)} | ${r.load?.seconds.toFixed(1) ?? '–'} | ${phase(r.loadPhase, isS3)} | ${r.flushPhase?.seconds.toFixed(2) ?? '–'} | ${phase(r.flushPhase, isS3)} | ${int(r.count)} | ${mib(r.rssBytes)} | ${mib(r.local?.['data'])} / ${mib(r.local?.['wal'])} / ${mib(r.local?.['cache'])} | ${isS3 ? mib(r.bucketBytes) : '–'} | ${int(r.startupMs)} / ${int(r.restartMs)} |`);
  }
  out.push('');
  out.push(`Warm cache, medians of ${RUNS} paired runs (S3: every SST in the cache since the flush wrote it through; after restart: once the cold runs below have filled it again):`);
  out.push('');
  out.push('| query | File ms | S3 ms | S3/File | S3 = File? | File ms, after restart | S3 ms, after restart | S3/File |');
  out.push('|---|---:|---:|---:|---|---:|---:|---:|');
  for (const q of queries) {
    const f = file?.warm[q.name];
    const s = s3?.warm[q.name];
    const f2 = file?.warmAgain[q.name];
    const s2 = s3?.warmAgain[q.name];
    const c = cmp(`S3/warm/${q.name}`, `File/warm/${q.name}`);
    out.push(`| ${q.name} | ${ms(f?.medianMs)} | ${ms(s?.medianMs)} | ${ratio(s?.medianMs, f?.medianMs)} | ${same(c?.c, c?.exact)} | ${ms(f2?.medianMs)} | ${ms(s2?.medianMs)} | ${ratio(s2?.medianMs, f2?.medianMs)} |`);
  }
  if (file?.warmPhase !== undefined && s3?.warmPhase !== undefined) {
    out.push('');
    out.push(`Warm query phase (both servers, paired: warm-ups + ${RUNS} runs of each query on each): ${s3.warmPhase.seconds.toFixed(1)} s wall; CPU: tsdb on File ${file.warmPhase.tsdbCpuS.toFixed(1)} s, tsdb on S3 ${s3.warmPhase.tsdbCpuS.toFixed(1)} s, s3rver ${s3.warmPhase.s3rverCpuS.toFixed(2)} s.`);
  }
  out.push('');
  out.push('First run of each query after a restart, in this order, File then S3 for each (S3: cache directory emptied before the restart; File: the OS page cache still holds its files):');
  out.push('');
  out.push('| query | S3 first run ms | downloaded into the cache | s3rver CPU s | tsdb CPU s | File first run ms | S3/File | S3 = File? |');
  out.push('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const q of queries) {
    const s = s3?.cold[q.name];
    const f = file?.cold[q.name];
    const c = cmp(`S3/cold/${q.name}`, `File/warm/${q.name}`);
    out.push(`| ${q.name} | ${ms(s?.ms)} | ${mib(s?.downloadedBytes)} | ${s?.s3rverCpuS.toFixed(2) ?? '–'} | ${s?.tsdbCpuS.toFixed(2) ?? '–'} | ${ms(f?.ms)} | ${ratio(s?.ms, f?.ms)} | ${same(c?.c, c?.exact)} |`);
  }
  if (COLD_EACH) {
    out.push('');
    out.push('Each query alone, first thing after a restart (S3: with an empty cache):');
    out.push('');
    out.push('| query | S3 ms | downloaded | s3rver CPU s | File ms | S3/File | S3 restart ms | S3 = File? |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const q of queries) {
      const s = s3?.coldEach[q.name];
      const f = file?.coldEach[q.name];
      const c = cmp(`S3/cold-each/${q.name}`, `File/warm/${q.name}`);
      out.push(`| ${q.name} | ${ms(s?.ms)} | ${mib(s?.downloadedBytes)} | ${s?.s3rverCpuS.toFixed(2) ?? '–'} | ${ms(f?.ms)} | ${ratio(s?.ms, f?.ms)} | ${int(s?.restartMs)} | ${same(c?.c, c?.exact)} |`);
    }
  }
  if (s3 !== undefined) {
    out.push('');
    out.push(`S3 file cache, from the 'file cache closed' line tsdb logs at shutdown (cache directory: ${mib(s3.local?.['cache'])} after the load, ${mib(s3.cacheBytesAfterRestart)} after the emptying restart, ${mib(s3.cacheDirBytesAtEnd)} at the end):`);
    out.push('');
    out.push('| server | hits / misses | hit ratio | downloads | downloaded | evictions | files | bytes held |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
    out.push(cacheLine('1: load, flush, warm queries', s3.cache1));
    out.push(cacheLine('2: emptied cache, first runs, warm again', s3.cache2));
  }
  const errors = [...(file?.errors ?? []), ...(s3?.errors ?? [])];
  if (errors.length > 0) out.push('', 'Errors:', ...errors.map((e) => `- ${e}`));
  return out.join('\n');
}

// ---- main ----

installExitCleanup();
const loadAtStart = loadAverages();
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const ds = generate(HOSTS, HOURS, SEED);
const queries = tsbsQueries(ds, QUERY_SEED);
const workDir = mkdtempSync(join(tmpdir(), 'tsbs-object-storage-'));
log(`work dir ${workDir}`);
const answers = new Map<string, Row[]>();
let file: StorageResult | undefined;
let s3r: StorageResult | undefined;
let s3: S3Server | null = null;
let s3Info = 's3rver';
try {
  s3 = await startS3rver('tsbs');
  const pkg = JSON.parse(readFileSync(join(REPO, 'node_modules', 's3rver', 'package.json'), 'utf8')) as { version: string };
  s3Info = `s3rver ${pkg.version} (pid ${s3.pid}, same machine)`;
  log(`${s3Info} at ${s3.endpoint}`);
  const fileSide = makeSide('File', null, workDir);
  const s3Side = makeSide('S3', s3, workDir);
  file = fileSide.r;
  s3r = s3Side.r;
  await runBoth(fileSide, s3Side, ds, queries, answers);
} finally {
  if (s3 !== null) await s3.stop();
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}
process.stdout.write(`${report(ds, queries, file, s3r, answers, loadAtStart, s3Info)}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({
    machine: machine(loadAtStart), hosts: HOSTS, hours: HOURS, rows: ds.rows, seed: SEED, querySeed: QUERY_SEED, batch: BATCH, concurrency: CONCURRENCY, runs: RUNS,
    cacheCapacity: CACHE_CAPACITY, s3rver: s3Info, queries: queries.map((q) => ({ name: q.name, sql: q.sql })), file, s3: s3r,
  }, null, 2));
  log(`wrote ${opts.json}`);
}
