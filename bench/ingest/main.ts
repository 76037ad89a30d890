/**
 * Ingestion benchmark: InfluxDB line protocol into tsdb, InfluxDB 1.x and VictoriaMetrics, and
 * Prometheus remote write into tsdb and VictoriaMetrics, the same TSBS cpu-only data for all, in one
 * run. Each (protocol, system) gets a fresh server (127.0.0.1, free port, own temp dir), one at a time
 * so they do not compete; the request bodies are built beforehand and sent with --concurrency
 * requests in flight, every response checked. Measured per load: rows (samples)/s, server CPU
 * seconds per million (from /proc/<pid>/stat, child processes included), peak RSS (VmHWM), then the
 * stored count. Markdown report on stdout, progress on stderr, raw figures with --json; with
 * --cpu-prof tsdb runs under `node --cpu-prof` and the top self-time functions are listed.
 *
 *   npm run build && node dist/bench/ingest/main.js [--size small|large] [--systems …] [--json f] [--cpu-prof dir]
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, machine } from '../common/machine.js';
import { FIELDS, generate, type Dataset } from '../tsbs/data.js';
import { ensurePackages, installExitCleanup, log, startInfluxdb, startVictoriaMetrics, type Server, type SystemName } from '../tsbs/servers.js';
import { monotonicUs, profileMarkdown, summarizeProfiles, type ProfileSummary, type ProfileWindow } from './cpu-profile.js';
import { postAll, PostError, type PostResult } from './http-post.js';
import { lineProtocolPayloads, remoteWritePayloads, seriesCount, totalBytes, type Payload, type RemoteWriteShape } from './payloads.js';
import { CLK_TCK, cpuSeconds, peakRssBytes, rssBytes, waitIdle } from './proc-stats.js';
import { countStored, expectedCount, setup, target, type Protocol } from './targets.js';
import { startTsdb } from './tsdb-server.js';

const SIZES: Readonly<Record<string, { hosts: number; hours: number }>> = {
  small: { hosts: 100, hours: 24 },
  large: { hosts: 4000, hours: 3 },
};

const { values: opts } = parseArgs({
  options: {
    size: { type: 'string', default: 'small' },
    hosts: { type: 'string' },
    hours: { type: 'string' },
    seed: { type: 'string', default: '123' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    'rw-series': { type: 'string', default: '500' },
    'rw-samples': { type: 'string', default: '10' },
    protocols: { type: 'string', default: 'line-protocol,remote-write' },
    systems: { type: 'string', default: 'tsdb,influxdb,victoriametrics' },
    'idle-wait': { type: 'string', default: '120' },
    'cpu-prof': { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

function positiveInt(name: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: a positive integer, not ${v}`);
  return n;
}

const size = SIZES[opts.size];
if (size === undefined) throw new Error(`--size: small (100 hosts × 24 h) or large (4000 hosts × 3 h), not ${opts.size}`);
const HOSTS = positiveInt('hosts', opts.hosts ?? String(size.hosts));
const HOURS = Number(opts.hours ?? size.hours);
if (!(HOURS > 0)) throw new Error(`--hours: a positive number, not ${opts.hours}`);
const SEED = Number(opts.seed);
const BATCH = positiveInt('batch', opts.batch);
const CONCURRENCY = positiveInt('concurrency', opts.concurrency);
const RW_SHAPE: RemoteWriteShape = { seriesPerRequest: positiveInt('rw-series', opts['rw-series']), samplesPerSeries: positiveInt('rw-samples', opts['rw-samples']) };
const IDLE_WAIT_MS = Number(opts['idle-wait']) * 1000;
const SYSTEMS = opts.systems.split(',').map((s) => s.trim()) as SystemName[];
for (const s of SYSTEMS) if (!['tsdb', 'influxdb', 'victoriametrics'].includes(s)) throw new Error(`--systems: unknown ${s}`);
const PROTOCOLS = opts.protocols.split(',').map((s) => s.trim()) as Protocol[];
for (const p of PROTOCOLS) if (!['line-protocol', 'remote-write'].includes(p)) throw new Error(`--protocols: unknown ${p}`);
const CPU_PROF = opts['cpu-prof'] === undefined ? undefined : resolve(opts['cpu-prof']);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (!existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);
const COMMAND = `node dist/bench/ingest/main.js${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
const NAMES: Record<SystemName, string> = { tsdb: 'tsdb', influxdb: 'InfluxDB', victoriametrics: 'VictoriaMetrics' };

/** Systems that take a protocol: InfluxDB 1.x has no remote write. */
function takes(system: SystemName, protocol: Protocol): boolean {
  return protocol === 'line-protocol' || system !== 'influxdb';
}

interface PhaseResult {
  readonly system: SystemName;
  readonly protocol: Protocol;
  version?: string;
  pid?: number;
  startupSeconds?: number;
  loadAvgBefore?: readonly number[];
  loadAvgAfter?: readonly number[];
  post?: PostResult;
  /** Items (rows or samples) per second. */
  perSecond?: number;
  /** Server CPU seconds during the load (first request to last response). */
  cpuSeconds?: number;
  cpuPerMillion?: number;
  /** Server CPU seconds from the first request until it went idle afterwards (background flushes, merges). */
  cpuSecondsWithBackground?: number;
  cpuPerMillionWithBackground?: number;
  idleWaitSeconds?: number;
  /** Peak RSS (VmHWM) right after the load, and after the idle wait. */
  peakRssBytes?: number;
  peakRssAfterIdleBytes?: number;
  rssAfterIdleBytes?: number;
  childProcesses?: number;
  count?: number;
  expected?: number;
  countHow?: string;
  countSeconds?: number;
  /** The load, in µs of CLOCK_MONOTONIC (the clock of the CPU profile). */
  loadWindow?: ProfileWindow;
  profileDir?: string;
  /** The tsdb CPU profile during the load, and over the server's whole life. */
  profile?: ProfileSummary;
  profileWhole?: ProfileSummary;
  logErrors?: string[];
  error?: string;
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function mib(b: number | undefined): string {
  return b === undefined || !Number.isFinite(b) ? '–' : `${(b / 2 ** 20).toFixed(0)} MiB`;
}

function loads(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}

/** Error and fatal lines of a server's output and log directory (tsdb logs JSON with pino levels 50/60). */
function serverLogErrors(srv: Server, dataDir: string): string[] {
  const files = [srv.logFile];
  const logDir = join(dataDir, 'logs');
  if (existsSync(logDir)) for (const f of readdirSync(logDir)) files.push(join(logDir, f));
  const out: string[] = [];
  for (const f of files) {
    try {
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        if (/"level":(50|60)\b|\blevel=(error|fatal)\b|"level":"(error|fatal)"|\b(ERROR|FATAL|panic)\b/.test(line)) out.push(line.slice(0, 500));
      }
    } catch {
      // no such log
    }
  }
  return [...new Set(out)].slice(0, 10);
}

async function startServer(system: SystemName, protocol: Protocol, dir: string): Promise<{ srv: Server; profileDir?: string }> {
  switch (system) {
    case 'tsdb': {
      if (CPU_PROF === undefined) return { srv: await startTsdb(REPO, dir) };
      mkdirSync(CPU_PROF, { recursive: true });
      const profileDir = mkdtempSync(join(CPU_PROF, `tsdb-${protocol}-`));
      return { srv: await startTsdb(REPO, dir, { cpuProfDir: profileDir }), profileDir };
    }
    case 'influxdb':
      return { srv: await startInfluxdb(dir) };
    case 'victoriametrics':
      return { srv: await startVictoriaMetrics(dir) };
  }
}

async function runPhase(system: SystemName, protocol: Protocol, ds: Dataset, payloads: readonly Payload[], workDir: string): Promise<PhaseResult> {
  const r: PhaseResult = { system, protocol };
  const label = `${system} ${protocol}`;
  const dir = join(workDir, `${protocol}-${system}`);
  const unit = protocol === 'line-protocol' ? 'rows' : 'samples';
  const t0 = performance.now();
  let srv: Server;
  try {
    const started = await startServer(system, protocol, dir);
    srv = started.srv;
    if (started.profileDir !== undefined) r.profileDir = started.profileDir;
  } catch (e) {
    r.error = `start failed: ${errMsg(e)}`;
    log(`${label}: ${r.error}`);
    return r;
  }
  r.version = srv.version;
  r.pid = srv.pid;
  r.startupSeconds = (performance.now() - t0) / 1000;
  log(`${label}: ${srv.version}, pid ${srv.pid}, ${srv.baseUrl}, up in ${r.startupSeconds.toFixed(1)} s`);
  try {
    await setup(srv);
    const { url, headers } = target(system, protocol, srv.baseUrl);
    r.loadAvgBefore = loads();
    const cpu0 = cpuSeconds(srv.pid, true);
    const fromUs = monotonicUs();
    const post = await postAll(label, url, headers, payloads, CONCURRENCY, unit);
    r.loadWindow = { fromUs, toUs: monotonicUs() };
    const cpu1 = cpuSeconds(srv.pid, true);
    r.peakRssBytes = peakRssBytes(srv.pid, true);
    r.loadAvgAfter = loads();
    r.post = post;
    r.perSecond = post.items / post.seconds;
    r.cpuSeconds = cpu1.seconds - cpu0.seconds;
    r.cpuPerMillion = r.cpuSeconds / (post.items / 1e6);
    r.childProcesses = cpu1.descendants;
    log(`${label}: ${int(post.items)} ${unit} in ${post.seconds.toFixed(1)} s = ${int(r.perSecond)} ${unit}/s; server CPU ${r.cpuSeconds.toFixed(1)} s (${r.cpuPerMillion.toFixed(2)} s per M ${unit}), peak RSS ${mib(r.peakRssBytes)}; client CPU ${post.clientCpuSeconds.toFixed(1)} s`);
    const idleMs = await waitIdle(srv.pid, true, IDLE_WAIT_MS);
    const cpu2 = cpuSeconds(srv.pid, true);
    r.idleWaitSeconds = idleMs / 1000;
    r.cpuSecondsWithBackground = cpu2.seconds - cpu0.seconds;
    r.cpuPerMillionWithBackground = r.cpuSecondsWithBackground / (post.items / 1e6);
    r.peakRssAfterIdleBytes = peakRssBytes(srv.pid, true);
    r.rssAfterIdleBytes = rssBytes(srv.pid);
    log(`${label}: idle after ${r.idleWaitSeconds.toFixed(0)} s; CPU incl. background ${r.cpuSecondsWithBackground.toFixed(1)} s; RSS now ${mib(r.rssAfterIdleBytes)}`);
    const c = await countStored(srv, ds, protocol);
    r.count = c.count;
    r.expected = expectedCount(ds, protocol);
    r.countHow = c.how;
    r.countSeconds = c.seconds;
    log(`${label}: counted ${int(c.count)} ${unit} (expected ${int(r.expected)}) in ${c.seconds.toFixed(1)} s`);
    if (c.count !== r.expected) log(`${label}: WARNING: count ${c.count} differs from ${r.expected}`);
  } catch (e) {
    r.error = errMsg(e);
    log(`${label}: FAILED: ${r.error}`);
    if (e instanceof PostError && e.body !== '') process.stderr.write(`--- response body ---\n${e.body}\n---\n`);
  } finally {
    await srv.stop();
    const errors = serverLogErrors(srv, dir);
    if (errors.length > 0) {
      r.logErrors = errors;
      log(`${label}: ${errors.length} error line(s) in the server log, first: ${errors[0]}`);
    }
  }
  if (r.profileDir !== undefined) {
    try {
      r.profileWhole = summarizeProfiles(r.profileDir, REPO);
      if (r.loadWindow !== undefined) r.profile = summarizeProfiles(r.profileDir, REPO, r.loadWindow);
      log(`${label}: CPU profile in ${r.profileDir} (${r.profileWhole.files.length} file(s))`);
    } catch (e) {
      log(`${label}: could not read the CPU profile in ${r.profileDir}: ${errMsg(e)}`);
    }
  }
  return r;
}

// ---- report ----



function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '–' : `${(a / b).toFixed(2)}×`;
}

function phaseTable(protocol: Protocol, results: readonly PhaseResult[]): string[] {
  const unit = protocol === 'line-protocol' ? 'rows' : 'samples';
  const out: string[] = [];
  out.push(`| system | version | ${unit}/s | load s | server CPU s | CPU s / M ${unit} | CPU s / M incl. background | server cores busy | peak RSS (VmHWM) | ${unit} counted | client CPU s | 1-min load before → after |`);
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    if (r.protocol !== protocol) continue;
    const counted = r.count === undefined ? '–' : r.count === r.expected ? `${int(r.count)} ✓` : `**${int(r.count)}** ≠ ${int(r.expected ?? Number.NaN)}`;
    const busy = r.cpuSeconds !== undefined && r.post !== undefined ? r.cpuSeconds / r.post.seconds : undefined;
    const bg = r.cpuPerMillionWithBackground === undefined ? '–' : `${fmt(r.cpuPerMillionWithBackground, 2)} (+${fmt(r.idleWaitSeconds, 0)} s)`;
    const la = r.loadAvgBefore === undefined ? '–' : `${r.loadAvgBefore[0]?.toFixed(2)} → ${r.loadAvgAfter?.[0]?.toFixed(2) ?? '–'}`;
    out.push(`| ${NAMES[r.system]} | ${r.version ?? '–'} | ${r.perSecond === undefined ? (r.error !== undefined ? '**failed**' : '–') : int(r.perSecond)} | ${fmt(r.post?.seconds, 1)} | ${fmt(r.cpuSeconds, 1)} | ${fmt(r.cpuPerMillion, 2)} | ${bg} | ${fmt(busy, 2)} | ${mib(r.peakRssBytes)} | ${counted} | ${fmt(r.post?.clientCpuSeconds, 1)} | ${la} |`);
  }
  return out;
}

function report(ds: Dataset, results: readonly PhaseResult[], sizes: Partial<Record<Protocol, { requests: number; bytes: number }>>, loadAtStart: string): string {
  const find = (s: SystemName, p: Protocol) => results.find((r) => r.system === s && r.protocol === p);
  const out: string[] = [];
  out.push(`## Ingestion: ${ds.hosts} hosts × ${HOURS} h of TSBS cpu-only = ${int(ds.rows)} rows = ${int(ds.rows * FIELDS.length)} samples`);
  out.push('');
  out.push(`Command: \`${COMMAND}\``);
  out.push('');
  out.push(`Machine: ${machine(loadAtStart)}.`);
  out.push('');
  const lp = sizes['line-protocol'];
  const rw = sizes['remote-write'];
  out.push(`Data seed ${SEED}. ${CONCURRENCY} requests in flight, bodies built before the timed part and identical for every system; one server at a time, each on a fresh data directory. ` +
    (lp ? `Line protocol: ${int(lp.requests)} request(s) of up to ${int(BATCH)} rows (ns timestamps, 10 tags, 10 float fields), ${mib(lp.bytes)} in all. ` : '') +
    (rw ? `Remote write: ${int(rw.requests)} snappy WriteRequests of up to ${RW_SHAPE.seriesPerRequest} series × ${RW_SHAPE.samplesPerSeries} samples (${int(seriesCount(ds))} series: host × field, metric cpu_usage_*, 10 labels + __name__), ${mib(rw.bytes)} in all.` : ''));
  out.push('');
  out.push(`Server CPU: utime + stime from /proc/<pid>/stat (${CLK_TCK} ticks/s), child processes included, from the first request to the last response; "incl. background" extends it until the server used < 5% of a core for 2 s (at most ${IDLE_WAIT_MS / 1000} s). Peak RSS: VmHWM right after the load. Counts after the idle wait.`);
  for (const p of PROTOCOLS) {
    out.push('');
    out.push(p === 'line-protocol' ? '### InfluxDB line protocol' : '### Prometheus remote write (InfluxDB 1.x has none)');
    out.push('');
    out.push(...phaseTable(p, results));
  }
  out.push('');
  out.push('### Ratios, this run (tsdb ÷ other: throughput > 1 = tsdb faster; CPU and RSS > 1 = tsdb uses more)');
  out.push('');
  out.push('| protocol | vs | throughput | CPU s / M | CPU s / M incl. background | peak RSS |');
  out.push('|---|---|---:|---:|---:|---:|');
  for (const p of PROTOCOLS) {
    const t = find('tsdb', p);
    for (const o of ['influxdb', 'victoriametrics'] as const) {
      const x = find(o, p);
      if (t === undefined || x === undefined) continue;
      out.push(`| ${p} | ${NAMES[o]} | ${ratio(t.perSecond, x.perSecond)} | ${ratio(t.cpuPerMillion, x.cpuPerMillion)} | ${ratio(t.cpuPerMillionWithBackground, x.cpuPerMillionWithBackground)} | ${ratio(t.peakRssBytes, x.peakRssBytes)} |`);
    }
  }
  const failures = results.filter((r) => r.error !== undefined || (r.count !== undefined && r.count !== r.expected) || r.logErrors !== undefined);
  if (failures.length > 0) {
    out.push('');
    out.push('### Problems');
    out.push('');
    for (const r of failures) {
      if (r.error !== undefined) out.push(`- ${NAMES[r.system]} ${r.protocol}: ${r.error.split('\n')[0]?.slice(0, 1000)}`);
      if (r.count !== undefined && r.count !== r.expected) out.push(`- ${NAMES[r.system]} ${r.protocol}: counted ${int(r.count)}, expected ${int(r.expected ?? Number.NaN)} (${r.countHow ?? ''})`);
      for (const l of r.logErrors ?? []) out.push(`- ${NAMES[r.system]} ${r.protocol} log: \`${l.replaceAll('`', "'")}\``);
    }
  }
  const profiled = results.filter((r) => r.profile !== undefined || r.profileWhole !== undefined);
  if (profiled.length > 0) {
    out.push('');
    out.push(`### tsdb CPU profiles (\`node --cpu-prof\`; the profiled server's figures above include the sampling overhead)`);
    for (const r of profiled) {
      out.push('');
      out.push(profileMarkdown(`tsdb ${r.protocol} (${r.profileDir ?? ''})`, (r.profile ?? r.profileWhole)!, 25));
      if (r.profile !== undefined && r.profileWhole !== undefined) {
        out.push('');
        out.push(`Whole server life: ${(r.profileWhole.spanMs / 1000).toFixed(1)} s, ${(r.profileWhole.busyMs / 1000).toFixed(1)} s busy (start-up, load, background work, count, shutdown).`);
      }
    }
  }
  return out.join('\n');
}

/** A profile summary for --json: the 200 functions with the most self time. */
function topOf(p: ProfileSummary | undefined): ProfileSummary | undefined {
  return p === undefined ? undefined : { ...p, functions: [...p.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, 200) };
}

// ---- main ----

installExitCleanup();
const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');
if (SYSTEMS.some((s) => s !== 'tsdb')) ensurePackages();
log(`generating ${HOSTS} hosts × ${HOURS} h (seed ${SEED})`);
const g0 = performance.now();
const ds = generate(HOSTS, HOURS, SEED);
log(`generated ${int(ds.rows)} rows in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
const workDir = mkdtempSync(join(tmpdir(), 'ingest-'));
log(`work dir ${workDir}`);
const results: PhaseResult[] = [];
const sizes: Partial<Record<Protocol, { requests: number; bytes: number }>> = {};
try {
  for (const protocol of PROTOCOLS) {
    const systems = SYSTEMS.filter((s) => takes(s, protocol));
    if (systems.length === 0) continue;
    const p0 = performance.now();
    const payloads = protocol === 'line-protocol' ? lineProtocolPayloads(ds, BATCH) : remoteWritePayloads(ds, RW_SHAPE);
    sizes[protocol] = { requests: payloads.length, bytes: totalBytes(payloads) };
    log(`${protocol}: built ${payloads.length} request bodies, ${mib(totalBytes(payloads))}, in ${((performance.now() - p0) / 1000).toFixed(1)} s`);
    for (const system of systems) results.push(await runPhase(system, protocol, ds, payloads, workDir));
  }
} finally {
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
  else log(`kept ${workDir}`);
}

process.stdout.write(`${report(ds, results, sizes, LOAD_AT_START)}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({
    command: COMMAND, machine: machine(LOAD_AT_START), hosts: HOSTS, hours: HOURS, rows: ds.rows, samples: ds.rows * FIELDS.length, seed: SEED,
    batch: BATCH, concurrency: CONCURRENCY, remoteWrite: RW_SHAPE, clockTicks: CLK_TCK, requests: sizes,
    results: results.map((r) => ({ ...r, profile: topOf(r.profile), profileWhole: topOf(r.profileWhole) })),
  }, null, 2));
  log(`wrote ${opts.json}`);
}
if (results.some((r) => r.error !== undefined || r.count !== r.expected)) process.exitCode = 1;
