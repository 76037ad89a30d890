/**
 * Load (soak) benchmark: one tsdb (fresh data home, free 127.0.0.1 ports) under N line-protocol
 * writers and M SQL readers for a duration, with a runaway query injected every few seconds; the
 * server's RSS and /health latency are sampled every second, and its main-thread event-loop delay
 * (a preloaded monitor). Reports throughput, p50/p99/max per operation kind, errors by kind, peak and
 * final RSS, and checks that the stored count(*) equals the acknowledged rows. Markdown on stdout,
 * progress on stderr. Not run in CI.
 *
 *   npm run build && node dist/bench/soak/main.js                 # 64 writers, 16 readers, 10 min, runaways every 30 s
 *   node dist/bench/soak/main.js --short                          # issue 13 item 6: 32 writers, 8 readers, 60 s, no runaways
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadAverages, machine } from '../common/machine.js';
import { monotonicUs, profileMarkdown, summarizeProfiles } from '../ingest/cpu-profile.js';
import { rssBytes, peakRssBytes } from '../ingest/proc-stats.js';
import { startTsdb, logErrors, type TsdbServer } from '../ingest/tsdb-server.js';
import { log } from '../tsbs/servers.js';
import { send, tsdbCode, type Outcome } from './http-client.js';
import { maxOf, OpStats, quantile } from './stats.js';
import { lineProtocolBatch, readQuery, RUNAWAY_KINDS, runawaySql, TABLE, type RunawayKind } from './workload.js';

const HELP = `Usage: node dist/bench/soak/main.js [options]

Starts a tsdb (fresh data home under --dir, free loopback ports), runs writers, readers and runaway
queries against it for --duration, then reports latencies, errors, RSS and the stored row count.

  --duration <d>        how long the load runs (e.g. 60s, 10m; default 10m)
  --writers <n>         concurrent line-protocol writers (default 64)
  --readers <n>         concurrent SQL readers (default 16)
  --series <n>          distinct series written overall (default 100000)
  --batch <n>           rows per write request (default 1000)
  --runaway-every <d>   inject one runaway query this often (default 30s; 0 = none)
  --runaways <list>     kinds, in turn: ${RUNAWAY_KINDS.join(',')} (default all)
  --runaway-timeout <d> the x-tsdb-timeout header sent with each runaway (default 5s)
  --runaway-abort <d>   the client gives up on a runaway after this long (default 60s)
  --timeout <d>         the client gives up on a write, read or health check after this long (default 15s)
  --short               issue 13 item 6: --duration 60s --writers 32 --readers 8 --runaway-every 0
                        (explicit options still win)
  --tsdb-arg <arg>      one more \`tsdb standalone start\` option (repeatable)
  --tsdb-env <K=V>      one more environment variable for tsdb, e.g.
                        TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE=256MB (repeatable)
  --node-arg <arg>      one more Node option for the tsdb process, e.g. --heap-prof (repeatable)
  --cpu-prof <dir>      run tsdb under node --cpu-prof, write the profile there and list the top functions
  --dir <dir>           work directory (default: a new one under the system temp dir)
  --keep                keep the work directory (data, logs) afterwards
  --json <file>         also write the raw figures as JSON
  -h, --help            this text
`;

let parsed;
try {
  parsed = parseArgs({
    options: {
      duration: { type: 'string' },
      writers: { type: 'string' },
      readers: { type: 'string' },
      series: { type: 'string', default: '100000' },
      batch: { type: 'string', default: '1000' },
      'runaway-every': { type: 'string' },
      runaways: { type: 'string', default: RUNAWAY_KINDS.join(',') },
      'runaway-timeout': { type: 'string', default: '5s' },
      'runaway-abort': { type: 'string', default: '60s' },
      timeout: { type: 'string', default: '15s' },
      short: { type: 'boolean', default: false },
      'tsdb-arg': { type: 'string', multiple: true, default: [] },
      'tsdb-env': { type: 'string', multiple: true, default: [] },
      'node-arg': { type: 'string', multiple: true, default: [] },
      'cpu-prof': { type: 'string' },
      dir: { type: 'string' },
      keep: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${HELP}`);
  process.exit(2);
}
const opts = parsed.values;
if (opts.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function usageError(msg: string): never {
  process.stderr.write(`${msg}\n\n${HELP}`);
  process.exit(2);
}

/** `60s`, `10m`, `1h`, `500ms` or plain seconds, in ms. */
function durationMs(name: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (m === null) usageError(`--${name}: a duration such as 60s or 10m, not ${v}`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
}

function count(name: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) usageError(`--${name}: an integer ≥ ${min}, not ${v}`);
  return n;
}

const DURATION_MS = durationMs('duration', opts.duration ?? (opts.short ? '60s' : '10m'));
const WRITERS = count('writers', opts.writers ?? (opts.short ? '32' : '64'), 0);
const READERS = count('readers', opts.readers ?? (opts.short ? '8' : '16'), 0);
const SERIES = count('series', opts.series, 1);
const BATCH = count('batch', opts.batch, 1);
const RUNAWAY_EVERY_MS = durationMs('runaway-every', opts['runaway-every'] ?? (opts.short ? '0' : '30s'));
const RUNAWAYS = opts.runaways.split(',').map((s) => s.trim()).filter((s) => s !== '') as RunawayKind[];
for (const k of RUNAWAYS) if (!(RUNAWAY_KINDS as readonly string[]).includes(k)) usageError(`--runaways: unknown kind ${k} (${RUNAWAY_KINDS.join(', ')})`);
if (RUNAWAY_EVERY_MS > 0 && RUNAWAYS.length === 0) usageError('--runaways: at least one kind when --runaway-every is not 0');
const RUNAWAY_TIMEOUT_MS = durationMs('runaway-timeout', opts['runaway-timeout']);
const RUNAWAY_ABORT_MS = durationMs('runaway-abort', opts['runaway-abort']);
const TIMEOUT_MS = durationMs('timeout', opts.timeout);
const TSDB_ENV: Record<string, string> = {};
for (const kv of opts['tsdb-env']) {
  const eq = kv.indexOf('=');
  if (eq <= 0) usageError(`--tsdb-env: NAME=VALUE, not ${kv}`);
  TSDB_ENV[kv.slice(0, eq)] = kv.slice(eq + 1);
}
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COMMAND = `node dist/bench/soak/main.js${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function int(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

function msFmt(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n >= 100 ? 0 : 1)} ms`;
}

function mib(b: number): string {
  return Number.isFinite(b) ? `${(b / 2 ** 20).toFixed(0)} MiB` : '–';
}

/** An outcome as an error kind, or undefined when it is the expected answer. */
function errorKind(o: Outcome, okStatus: (s: number) => boolean, checkCode: boolean): string | undefined {
  if (o.kind === 'client-timeout') return 'client timeout';
  if (o.kind === 'connection-error') return `connection: ${o.code}`;
  const code = tsdbCode(o.body);
  if (!okStatus(o.status)) return `HTTP ${o.status}${code !== undefined ? ` code ${code}` : ''}`;
  if (checkCode && code !== undefined && code !== 0) return `HTTP ${o.status} code ${code}`;
  return undefined;
}

function sqlRequest(base: string, sql: string, timeoutMs: number, headers: Record<string, string> = {}) {
  return {
    method: 'POST' as const,
    url: new URL(`${base}/v1/sql?db=public`),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: Buffer.from(new URLSearchParams({ sql }).toString()),
    timeoutMs,
  };
}

async function countStored(base: string): Promise<number | string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const o = await send(new Agent(), sqlRequest(base, `SELECT count(*) FROM ${TABLE}`, 300_000));
    if (o.kind === 'answered' && o.status === 200) {
      try {
        const v = JSON.parse(o.body) as { output?: { records?: { rows?: unknown[][] } }[] };
        const n = v.output?.[0]?.records?.rows?.[0]?.[0];
        if (typeof n === 'number') return n;
      } catch {
        // fall through
      }
      return `unexpected answer: ${o.body.slice(0, 300)}`;
    }
    log(`count(*) attempt ${attempt + 1}: ${o.kind === 'answered' ? `HTTP ${o.status} ${o.body.slice(0, 200)}` : o.kind}`);
    await sleep(2000);
  }
  return 'count(*) did not answer in 5 attempts';
}

interface ElSample {
  readonly t: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function readElSamples(file: string, fromMs: number, toMs: number): ElSample[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as ElSample).filter((s) => s.t >= fromMs && s.t <= toMs + 1000);
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const loadAtStart = loadAverages();
  const date = new Date().toISOString();
  const workDir = opts.dir !== undefined ? resolve(opts.dir) : mkdtempSync(join(tmpdir(), 'tsdb-soak-'));
  mkdirSync(workDir, { recursive: true });
  const elFile = join(workDir, 'event-loop.jsonl');
  if (opts['cpu-prof'] !== undefined) mkdirSync(resolve(opts['cpu-prof']), { recursive: true });
  const profileDir = opts['cpu-prof'] === undefined ? undefined : mkdtempSync(join(resolve(opts['cpu-prof']), 'tsdb-soak-'));
  const elMonitor = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'el-monitor.js')).href;
  let srv: TsdbServer | undefined;
  try {
    srv = await startTsdb(REPO, join(workDir, 'tsdb'), {
      ...(profileDir !== undefined ? { cpuProfDir: profileDir } : {}),
      nodeArgs: ['--import', elMonitor, ...opts['node-arg']],
      env: { ...TSDB_ENV, TSDB_BENCH_EL_FILE: elFile },
      tsdbArgs: opts['tsdb-arg'],
    });
    log(`${srv.version}, pid ${srv.pid}, ${srv.baseUrl}; ${WRITERS} writers × ${BATCH} rows, ${READERS} readers, ${SERIES.toLocaleString('en-US')} series, ${DURATION_MS / 1000} s${RUNAWAY_EVERY_MS > 0 ? `, a runaway every ${RUNAWAY_EVERY_MS / 1000} s` : ''}`);
    const base = srv.baseUrl;
    const pid = srv.pid;
    const writeUrl = new URL(`${base}/v1/influxdb/write?db=public&precision=ns`);
    const writeHeaders = { 'content-type': 'text/plain; charset=utf-8' };
    const startMs = Date.now() - 60_000;

    // The first batch creates the table, before the clock starts (readers would only see "table not found").
    let nextRow = 0;
    let acked = 0;
    /** Rows of writes whose outcome is unknown (client timeout, connection error): stored or not. */
    let ambiguous = 0;
    {
      const o = await send(new Agent(), { method: 'POST', url: writeUrl, headers: writeHeaders, body: lineProtocolBatch(0, BATCH, SERIES, startMs), timeoutMs: 120_000 });
      if (o.kind !== 'answered' || o.status !== 204) throw new Error(`first write: ${o.kind === 'answered' ? `HTTP ${o.status} ${o.body.slice(0, 300)}` : o.kind}`);
      nextRow = BATCH;
      acked = BATCH;
    }

    const stats = new Map<string, OpStats>();
    const op = (name: string): OpStats => {
      let s = stats.get(name);
      if (s === undefined) stats.set(name, (s = new OpStats()));
      return s;
    };
    const rssSamples: number[] = [];
    let stopping = false;
    const t0 = performance.now();
    const wall0 = Date.now();
    const win0 = monotonicUs();
    const end = t0 + DURATION_MS;

    const writeAgent = new Agent({ keepAlive: true, maxSockets: Math.max(1, WRITERS) });
    const readAgent = new Agent({ keepAlive: true, maxSockets: Math.max(1, READERS) });
    const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const runawayAgent = new Agent({ keepAlive: false });

    const writer = async (): Promise<void> => {
      const s = op('write');
      while (performance.now() < end) {
        const from = nextRow;
        nextRow += BATCH;
        const o = await send(writeAgent, { method: 'POST', url: writeUrl, headers: writeHeaders, body: lineProtocolBatch(from, BATCH, SERIES, startMs), timeoutMs: TIMEOUT_MS });
        const kind = errorKind(o, (st) => st === 204 || st === 200, false);
        if (kind === undefined) {
          s.ok(o.ms, BATCH);
          acked += BATCH;
        } else {
          s.fail(kind, o.ms);
          // A write the server refused stored nothing; one that timed out or lost its connection may have.
          if (o.kind !== 'answered' || o.status >= 500 || o.status === 408) ambiguous += BATCH;
          if (o.kind !== 'answered') await sleep(100);
        }
      }
    };
    let readNo = 0;
    const reader = async (): Promise<void> => {
      while (performance.now() < end) {
        const q = readQuery(readNo++, SERIES);
        const o = await send(readAgent, sqlRequest(base, q.sql, TIMEOUT_MS));
        const kind = errorKind(o, (st) => st === 200, true);
        if (kind === undefined) op(q.name).ok(o.ms);
        else op(q.name).fail(kind, o.ms);
      }
    };
    const health = async (): Promise<void> => {
      const s = op('health');
      while (performance.now() < end) {
        const o = await send(healthAgent, { method: 'GET', url: new URL(`${base}/health`), timeoutMs: TIMEOUT_MS });
        const kind = errorKind(o, (st) => st === 200, false);
        if (kind === undefined) s.ok(o.ms);
        else s.fail(kind, o.ms);
        await sleep(Math.max(0, 1000 - o.ms));
      }
    };
    const runawayRuns: Promise<void>[] = [];
    const runaways = async (): Promise<void> => {
      let n = 0;
      for (;;) {
        const next = t0 + RUNAWAY_EVERY_MS * (n + 1);
        if (next >= end) return;
        await sleep(next - performance.now());
        const kind = RUNAWAYS[n % RUNAWAYS.length] as RunawayKind;
        n++;
        runawayRuns.push((async () => {
          const o = await send(runawayAgent, { ...sqlRequest(base, runawaySql(kind), RUNAWAY_ABORT_MS, { 'x-tsdb-timeout': `${RUNAWAY_TIMEOUT_MS / 1000}s` }), maxBodyBytes: 4096 });
          const s = op(`runaway: ${kind}`);
          // A runaway is expected to fail (deadline, budget); an answer is counted as "answered".
          if (o.kind === 'answered') s.fail(o.status === 200 && tsdbCode(o.body) === 0 ? 'answered (ran to the end)' : `stopped: HTTP ${o.status} code ${tsdbCode(o.body) ?? '?'}`, o.ms);
          else s.fail(o.kind === 'client-timeout' ? `client gave up after ${RUNAWAY_ABORT_MS / 1000} s` : `connection: ${o.code}`, o.ms);
        })());
      }
    };
    const sampler = async (): Promise<void> => {
      let lastLog = performance.now();
      while (!stopping) {
        rssSamples.push(rssBytes(pid));
        const now = performance.now();
        if (now - lastLog >= 10_000) {
          lastLog = now;
          const w = stats.get('write');
          log(`${((now - t0) / 1000).toFixed(0)} s: ${int(acked)} rows acknowledged, write p99 so far ${msFmt(quantile(w?.allMs ?? [], 0.99))}, ${int(w?.failed ?? 0)} failed writes, RSS ${mib(rssSamples.at(-1) ?? Number.NaN)}`);
        }
        await sleep(1000);
      }
    };

    const samplerRun = sampler();
    await Promise.all([
      ...Array.from({ length: WRITERS }, () => writer()),
      ...Array.from({ length: READERS }, () => reader()),
      health(),
      ...(RUNAWAY_EVERY_MS > 0 ? [runaways()] : []),
    ]);
    const loadSeconds = (performance.now() - t0) / 1000;
    const win1 = monotonicUs();
    const wall1 = Date.now();
    log(`load done in ${loadSeconds.toFixed(1)} s; waiting for ${runawayRuns.length} runaway request(s) to end`);
    await Promise.all(runawayRuns);
    stopping = true;
    await samplerRun;
    writeAgent.destroy();
    readAgent.destroy();
    healthAgent.destroy();

    const stored = await countStored(base);
    const finalRss = rssBytes(pid);
    const peakRss = peakRssBytes(pid, false);
    const el = readElSamples(elFile, wall0, wall1);
    const errorsInLog = logErrors(srv.logFile);
    log('stopping tsdb');
    await srv.stop();

    // ---- report ----
    const out: string[] = [];
    out.push(`### Load benchmark, ${date}`);
    out.push('');
    out.push(`\`${COMMAND}\``);
    out.push('');
    out.push(`- Server: ${srv.version}; machine: ${machine(loadAtStart)}`);
    out.push(`- Load: ${WRITERS} line-protocol writers (${BATCH.toLocaleString('en-US')}-row batches, ${SERIES.toLocaleString('en-US')} series), ${READERS} SQL readers, /health every second, ${RUNAWAY_EVERY_MS > 0 ? `a runaway query every ${RUNAWAY_EVERY_MS / 1000} s (${RUNAWAYS.join(', ')}; x-tsdb-timeout ${RUNAWAY_TIMEOUT_MS / 1000} s, client abort at ${RUNAWAY_ABORT_MS / 1000} s)` : 'no runaway queries'}; client timeout ${TIMEOUT_MS / 1000} s; ran ${loadSeconds.toFixed(1)} s.`);
    const w = stats.get('write');
    out.push(`- Throughput: ${int((w?.units ?? 0) / loadSeconds)} rows/s acknowledged (${int(w?.okMs.length ?? 0)} write requests), ${int([...stats].filter(([k]) => k.startsWith('read')).reduce((n, [, s]) => n + s.okMs.length, 0) / loadSeconds)} reads/s answered.`);
    out.push(`- Server RSS: peak ${mib(peakRss)} (VmHWM), ${mib(maxOf(rssSamples))} highest 1 s sample, final ${mib(finalRss)} (VmRSS after the load and the count).`);
    if (el.length > 0) {
      out.push(`- Server event-loop delay (1 s windows during the load): median of window p99s ${msFmt(quantile(el.map((s) => s.p99), 0.5))}, worst window p99 ${msFmt(maxOf(el.map((s) => s.p99)))}, longest stall ${msFmt(maxOf(el.map((s) => s.max)))}.`);
    }
    const correct = typeof stored === 'number' && stored >= acked && stored <= acked + ambiguous;
    out.push(`- Correctness: ${int(acked)} rows acknowledged${ambiguous > 0 ? ` (+ ${int(ambiguous)} of writes with unknown outcome)` : ''}; count(*) = ${typeof stored === 'number' ? int(stored) : stored} → ${correct ? 'OK' : 'MISMATCH'}.`);
    out.push('');
    out.push('| operation | requests | ok | failed | p50 | p99 | max |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const [name, s] of [...stats].sort(([a], [b]) => a.localeCompare(b))) {
      out.push(`| ${name} | ${int(s.allMs.length)} | ${int(s.okMs.length)} | ${int(s.failed)} | ${msFmt(quantile(s.allMs, 0.5))} | ${msFmt(quantile(s.allMs, 0.99))} | ${msFmt(maxOf(s.allMs))} |`);
    }
    out.push('');
    out.push('Latencies are of every request that ended (answered, refused or given up on by the client).');
    const errRows: string[] = [];
    for (const [name, s] of stats) for (const [k, n] of s.errors) errRows.push(`| ${name} | ${k} | ${int(n)} |`);
    if (errRows.length > 0) {
      out.push('');
      out.push('| operation | error | count |');
      out.push('|---|---|---:|');
      out.push(...errRows.sort());
    }
    if (errorsInLog.length > 0) {
      out.push('');
      out.push(`Server log errors (first ${errorsInLog.length}):`);
      for (const l of errorsInLog) out.push(`    ${l.slice(0, 300)}`);
    }
    if (profileDir !== undefined) {
      out.push('');
      out.push(profileMarkdown('tsdb CPU profile during the load', summarizeProfiles(profileDir, REPO, { fromUs: win0, toUs: win1 }), 30));
    }
    process.stdout.write(`${out.join('\n')}\n`);
    if (opts.json !== undefined) {
      const raw = {
        date, command: COMMAND, version: srv.version, writers: WRITERS, readers: READERS, series: SERIES, batch: BATCH, loadSeconds,
        acked, ambiguous, stored, peakRss, finalRss, rssSamples, eventLoop: el,
        ops: Object.fromEntries([...stats].map(([k, s]) => [k, { ok: s.okMs.length, failed: s.failed, p50: quantile(s.allMs, 0.5), p99: quantile(s.allMs, 0.99), max: maxOf(s.allMs), errors: Object.fromEntries(s.errors) }])),
      };
      writeFileSync(resolve(opts.json), `${JSON.stringify(raw, null, 2)}\n`);
    }
    if (!correct) process.exitCode = 1;
  } finally {
    if (srv !== undefined) await srv.stop();
    if (!opts.keep && opts.dir === undefined) rmSync(workDir, { recursive: true, force: true });
    else log(`work directory kept: ${workDir}`);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
