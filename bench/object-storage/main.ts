/**
 * TSBS cpu-only with the table on S3 (s3rver, through tsdb's local file cache) against the same on
 * the default File storage, in one run. For each storage in turn: start tsdb (log level info, own
 * temp dir), bulk-load, time ADMIN FLUSH_TABLE('cpu'), wait for idle, run the 11 TSBS queries warm
 * (one warm-up, then the median of --runs), stop it by SIGTERM; start it again (S3: with the cache
 * directory emptied, so every file is downloaded again) and time the FIRST run of each query with
 * the bytes it brought into the cache, then the warm medians again; stop it. With --cold-each, each
 * query also runs once alone on a freshly restarted server with an empty cache. The cache's own
 * figures (hits, misses, downloads, bytes) come from the `file cache closed` line tsdb logs at
 * shutdown. s3rver runs in a child process on the same machine; its CPU time is reported per phase.
 * Answers on S3 are compared with File's. Markdown report on stdout, progress on stderr.
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

/** The figures of one `file cache closed` log line. */
interface CacheFigures {
  readonly hits: number;
  readonly misses: number;
  readonly downloads: number;
  readonly downloadedBytes: number;
  readonly evictions: number;
  readonly evictedBytes: number;
  readonly bytes: number;
  readonly files: number;
  readonly capacity: number;
}

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

async function warmQueries(srv: Server, queries: readonly QueryDef[], answers: Map<string, Row[]>, keyPrefix: string, into: Record<string, WarmQuery>, label: string, errors: string[]): Promise<void> {
  for (const q of queries) {
    try {
      const warm = await tsdbSql(srv.baseUrl, 'public', q.sql);
      const rows = tsdbRows(warm.body);
      answers.set(`${keyPrefix}/${q.name}`, rows);
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push((await tsdbSql(srv.baseUrl, 'public', q.sql)).ms);
      into[q.name] = { warmupMs: warm.ms, runsMs: runs, medianMs: median(runs), rows: rows.length };
      log(`${label}: ${q.name}: median ${median(runs).toFixed(1)} ms (warm-up ${warm.ms.toFixed(1)} ms, ${rows.length} rows)`);
    } catch (e) {
      errors.push(`${label} ${q.name}: ${errMsg(e)}`);
      log(`${label}: ${q.name}: ERROR ${errMsg(e)}`);
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

async function runStorage(kind: StorageKind, s3: S3Server | null, ds: Dataset, queries: readonly QueryDef[], workDir: string, answers: Map<string, Row[]>): Promise<StorageResult> {
  const r: StorageResult = { kind, warm: {}, cold: {}, warmAgain: {}, coldEach: {}, errors: [] };
  const dir = join(workDir, kind.toLowerCase());
  const home = join(dir, 'home');
  const wal = join(home, 'wal');
  const cacheDir = join(home, 'object_cache');
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
  const s3Pid = s3?.pid;
  let n = 0;
  const start = async (): Promise<Server> => startTsdb(REPO, dir, { env, logLevel: 'info', logFile: join(dir, `server-${++n}.log`) });
  const label = kind;

  // 1. Load, flush, warm queries.
  const t0 = performance.now();
  let srv = await start();
  r.startupMs = performance.now() - t0;
  r.version = srv.version;
  log(`${label}: ${srv.version}, pid ${srv.pid}, ${srv.baseUrl}, up in ${Math.round(r.startupMs)} ms`);
  try {
    await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu'));
    let meter = new CpuMeter(srv.pid, s3Pid);
    r.load = await bulkLoad(label, ds, BATCH, CONCURRENCY, (a, b) => sqlInsert(ds, 'cpu', a, b), async (body) => {
      await tsdbSql(srv.baseUrl, 'public', body);
    });
    r.loadPhase = meter.read();
    meter = new CpuMeter(srv.pid, s3Pid);
    await tsdbSql(srv.baseUrl, 'public', "ADMIN FLUSH_TABLE('cpu')");
    r.flushPhase = meter.read();
    r.count = await count(srv);
    log(`${label}: flush ${r.flushPhase.seconds.toFixed(2)} s; count ${r.count} (expected ${ds.rows})`);
    if (r.count !== ds.rows) r.errors.push(`${label}: row count ${r.count}, expected ${ds.rows}`);
    r.idleWaitMs = await waitIdle(srv.pid);
    r.rssBytes = rssBytes(srv.pid);
    r.local = { data: dirBytes(join(home, 'data')), wal: dirBytes(wal), cache: dirBytes(cacheDir) };
    if (s3 !== null) r.bucketBytes = dirBytes(s3.dataDir);
    log(`${label}: idle after ${(r.idleWaitMs / 1000).toFixed(0)} s; local ${JSON.stringify(r.local)}, bucket ${r.bucketBytes ?? 0} bytes`);
    meter = new CpuMeter(srv.pid, s3Pid);
    await warmQueries(srv, queries, answers, `${kind}/warm`, r.warm, `${label} warm`, r.errors);
    r.warmPhase = meter.read();
  } finally {
    await srv.stop();
  }
  r.cache1 = cacheFigures(join(dir, 'server-1.log'));
  log(`${label}: stopped; cache figures ${JSON.stringify(r.cache1)}`);

  // 2. Restart (S3: empty cache), first run of each query, then warm again.
  if (s3 !== null) rmSync(cacheDir, { recursive: true, force: true });
  const t1 = performance.now();
  srv = await start();
  r.restartMs = performance.now() - t1;
  r.cacheBytesAfterRestart = dirBytes(cacheDir);
  log(`${label}: restarted in ${Math.round(r.restartMs)} ms (cache dir ${r.cacheBytesAfterRestart} bytes)`);
  try {
    const meter = new CpuMeter(srv.pid, s3Pid);
    for (const q of queries) {
      try {
        r.cold[q.name] = await coldQuery(srv, q, cacheDir, s3Pid, answers, `${kind}/cold/${q.name}`);
        const c = r.cold[q.name]!;
        log(`${label} cold: ${q.name}: ${c.ms.toFixed(1)} ms, ${c.downloadedBytes} bytes into the cache, s3rver ${c.s3rverCpuS.toFixed(2)} CPU s`);
      } catch (e) {
        r.errors.push(`${label} cold ${q.name}: ${errMsg(e)}`);
        log(`${label} cold: ${q.name}: ERROR ${errMsg(e)}`);
      }
    }
    r.coldPhase = meter.read();
    await warmQueries(srv, queries, answers, `${kind}/warm-again`, r.warmAgain, `${label} warm again`, r.errors);
    r.cacheDirBytesAtEnd = dirBytes(cacheDir);
  } finally {
    await srv.stop();
  }
  r.cache2 = cacheFigures(join(dir, 'server-2.log'));
  log(`${label}: stopped; cache figures ${JSON.stringify(r.cache2)}`);

  // 3. Optionally: each query alone, first thing after a restart with an empty cache.
  if (COLD_EACH) {
    for (const q of queries) {
      if (s3 !== null) rmSync(cacheDir, { recursive: true, force: true });
      const t2 = performance.now();
      srv = await start();
      const restartMs = performance.now() - t2;
      try {
        const c = await coldQuery(srv, q, cacheDir, s3Pid, answers, `${kind}/cold-each/${q.name}`);
        r.coldEach[q.name] = { ...c, restartMs };
        log(`${label} cold alone: ${q.name}: ${c.ms.toFixed(1)} ms, ${c.downloadedBytes} bytes into the cache`);
      } catch (e) {
        r.errors.push(`${label} cold alone ${q.name}: ${errMsg(e)}`);
        log(`${label} cold alone: ${q.name}: ERROR ${errMsg(e)}`);
      } finally {
        await srv.stop();
      }
    }
  }
  return r;
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
  out.push('Warm cache (S3: every SST in the cache since the flush wrote it through):');
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
    out.push(`Warm query phase (warm-ups + ${RUNS} runs of each): File ${file.warmPhase.seconds.toFixed(1)} s wall, tsdb ${file.warmPhase.tsdbCpuS.toFixed(1)} CPU s; S3 ${s3.warmPhase.seconds.toFixed(1)} s wall, tsdb ${s3.warmPhase.tsdbCpuS.toFixed(1)} CPU s, s3rver ${s3.warmPhase.s3rverCpuS.toFixed(2)} CPU s.`);
  }
  out.push('');
  out.push('First run of each query after a restart, in this order (S3: cache directory emptied before the restart; File: the OS page cache still holds its files):');
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
  file = await runStorage('File', null, ds, queries, workDir, answers);
  s3 = await startS3rver('tsbs');
  const pkg = JSON.parse(readFileSync(join(REPO, 'node_modules', 's3rver', 'package.json'), 'utf8')) as { version: string };
  s3Info = `s3rver ${pkg.version} (pid ${s3.pid}, same machine)`;
  log(`${s3Info} at ${s3.endpoint}`);
  s3r = await runStorage('S3', s3, ds, queries, workDir, answers);
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
