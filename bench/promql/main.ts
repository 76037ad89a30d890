/**
 * PromQL benchmark (issue 18): the TSBS cpu-only data set (bench/tsbs/data.ts: 100 hosts × 24 h at
 * 10 s by default) remote-written as Prometheus series (`cpu_usage_user` … with the hostname, region,
 * … labels) into tsdb (standalone), Prometheus 2.42 (its remote-write receiver) and
 * VictoriaMetrics, one system at a time; then PromQL forms of the TSBS queries through each one's
 * Prometheus query API, one warm-up and the median of --runs, client-side wall time until the whole
 * body is read. Every system's answers are compared with Prometheus' (the reference semantics) with
 * test/support/promql-compare.ts. Peak RSS (VmHWM) of each server is read before it stops. Markdown
 * to stdout, progress to stderr.
 *
 *   npm run build && node dist/bench/promql/main.js [--hosts 100 --hours 24] [--runs 5] [--systems tsdb,prometheus,victoriametrics]
 *
 * The data is recent (it ends about two hours before the run) so that no system's retention or
 * out-of-bounds rule drops it; sample times are 5 s off the minute so that a window [t − 1m, t]
 * (Prometheus) and (t − 1m, t] (VictoriaMetrics) hold the same samples.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { compareAnswers, normalizeAnswer, type PromAnswer } from '../../test/support/promql-compare.js';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { FIELDS, generate, INTERVAL_MS, Rng, TAGS, type Dataset } from '../tsbs/data.js';
import { median } from '../tsbs/load.js';
import {
  dirBytes, freePort, installExitCleanup, launch, log, startTsdb, startVictoriaMetrics, stopper, waitIdle, waitReady,
} from '../tsbs/servers.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '456' },
    runs: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4' },
    systems: { type: 'string', default: 'tsdb,prometheus,victoriametrics' },
    'tsdb-flush': { type: 'boolean', default: true },
    keep: { type: 'boolean', default: false },
  },
  allowNegative: true,
});

type System = 'tsdb' | 'prometheus' | 'victoriametrics';
const ALL: readonly System[] = ['tsdb', 'prometheus', 'victoriametrics'];
const SYSTEMS = opts.systems.split(',').map((s) => s.trim()) as System[];
for (const s of SYSTEMS) if (!ALL.includes(s)) throw new Error(`--systems: unknown ${s} (${ALL.join(', ')})`);
const HOSTS = Number(opts.hosts);
const HOURS = Number(opts.hours);
const RUNS = Number(opts.runs);
const CONCURRENCY = Number(opts.concurrency);
const COMMAND = `node dist/bench/promql/main.js ${process.argv.slice(2).join(' ')}`.trim();
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const HOUR = 3_600_000;
const MINUTE = 60_000;
const METRICS = FIELDS.map((f) => `cpu_${f}`);

// ---------------------------------------------------------------------------------------------
// Data: TSBS rows as Prometheus series, written in time order per shard of hosts.

/** Request bodies per shard (hosts h with h % shards = shard), each shard's in time order. */
function writeBodies(ds: Dataset, shards: number, stepsPerRequest: number): { bodies: Buffer[][]; bytes: number } {
  const labels = Array.from({ length: ds.hosts }, (_, h) => METRICS.map((name) => {
    const pairs: Array<[string, string]> = [['__name__', name], ...TAGS.map((tag, k): [string, string] => [tag, ds.tagValues[h]![k]!])];
    return pairs.sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, value]) => ({ name: n, value }));
  }));
  const bodies: Buffer[][] = Array.from({ length: shards }, () => []);
  let bytes = 0;
  for (let s0 = 0; s0 < ds.steps; s0 += stepsPerRequest) {
    const s1 = Math.min(ds.steps, s0 + stepsPerRequest);
    for (let shard = 0; shard < shards; shard++) {
      const series: ReadSeries[] = [];
      for (let h = shard; h < ds.hosts; h += shards) {
        for (let f = 0; f < METRICS.length; f++) {
          const samples: Array<{ value: number; timestampMs: number }> = [];
          for (let s = s0; s < s1; s++) samples.push({ timestampMs: ds.startMs + s * INTERVAL_MS, value: ds.values[(s * ds.hosts + h) * FIELDS.length + f]! });
          series.push({ labels: labels[h]![f]!, samples });
        }
      }
      const body = encodeWriteRequest(series);
      bytes += body.length;
      bodies[shard]!.push(body);
    }
  }
  return { bodies, bytes };
}

/**
 * Sends the shards' requests in rounds (request k of every shard at once, then k + 1): the
 * streams stay within one request's time span of each other. Prometheus refuses samples more than
 * an hour older than its newest, and older than the last block it compacted the head into (it does
 * so as soon as the head spans 3 hours), so a stream running ahead would make the others' samples
 * "out of bounds".
 */
async function load(url: string, bodies: Buffer[][]): Promise<number> {
  const t0 = performance.now();
  const rounds = Math.max(...bodies.map((b) => b.length));
  for (let k = 0; k < rounds; k++) {
    await Promise.all(bodies.map(async (shard) => {
      const body = shard[k];
      if (body === undefined) return;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
        body,
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`remote write ${url}: HTTP ${res.status}: ${text.slice(0, 300)}`);
    }));
  }
  return (performance.now() - t0) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Queries: PromQL forms of the TSBS cpu-only queries.

interface PromQuery {
  readonly name: string;
  readonly description: string;
  readonly expr: string;
  readonly kind: 'instant' | 'range';
  readonly startMs: number;
  readonly endMs: number;
  readonly stepS: number;
}

function pickHosts(rng: Rng, hosts: number, n: number): string[] {
  const set = new Set<number>();
  while (set.size < Math.min(n, hosts)) set.add(rng.int(hosts));
  return [...set].map((h) => `host_${h}`);
}

const hostMatcher = (hosts: readonly string[]) => (hosts.length === 1 ? `hostname="${hosts[0]}"` : `hostname=~"${hosts.join('|')}"`);

/**
 * Several metrics, each aggregated on its own and labelled with its name: `agg by (<by>)
 * (fn(<metric>{<sel>}[<range>]))` per metric, joined with `or`. PromQL's range functions drop
 * `__name__`, so `by (__name__)` over a regex selector would merge the metrics.
 */
function perMetric(metrics: readonly string[], agg: string, by: string, fn: string, sel: string, range: string): string {
  return metrics.map((m) => `label_replace(${agg} by (${by}) (${fn}(${m}{${sel}}[${range}])), "metric", "${m}", "", "")`).join(' or ');
}

/** A window of `len` ending on a whole hour, inside the data, drawn with `rng`. */
function window(rng: Rng, ds: Dataset, len: number): [number, number] {
  const firstEnd = Math.ceil((ds.startMs + len) / HOUR) * HOUR;
  const lastEnd = Math.floor(ds.endMs / HOUR) * HOUR;
  const hours = Math.max(0, (lastEnd - firstEnd) / HOUR);
  const end = firstEnd + rng.int(hours + 1) * HOUR;
  return [end - len, end];
}

function queries(ds: Dataset, seed: number): PromQuery[] {
  const rng = new Rng(seed);
  const out: PromQuery[] = [];
  const range = (name: string, description: string, expr: string, [a, b]: [number, number], stepS: number) =>
    out.push({ name, description, expr, kind: 'range', startMs: a + stepS * 1000, endMs: b, stepS });
  const h1 = pickHosts(rng, ds.hosts, 1);
  range('single-groupby-1-1-1', 'max of 1 metric, 1 host, 1 h, per minute', `max(max_over_time(cpu_usage_user{${hostMatcher(h1)}}[1m]))`, window(rng, ds, HOUR), 60);
  const h8 = pickHosts(rng, ds.hosts, 8);
  range('single-groupby-1-8-1', 'max of 1 metric, 8 hosts, 1 h, per minute', `max(max_over_time(cpu_usage_user{${hostMatcher(h8)}}[1m]))`, window(rng, ds, HOUR), 60);
  const h8b = pickHosts(rng, ds.hosts, 8);
  range('single-groupby-5-8-1', 'max of 5 metrics, 8 hosts, 1 h, per minute', perMetric(METRICS.slice(0, 5), 'max', '', 'max_over_time', hostMatcher(h8b), '1m'), window(rng, ds, HOUR), 60);
  const h8c = pickHosts(rng, ds.hosts, 8);
  range('cpu-max-all-8', 'max of all 10 metrics, 8 hosts, 8 h, per hour', perMetric(METRICS, 'max', '', 'max_over_time', hostMatcher(h8c), '1h'), window(rng, ds, 8 * HOUR), 3600);
  range('double-groupby-1', 'mean of 1 metric per host per hour, all hosts, 12 h', 'avg by (hostname) (avg_over_time(cpu_usage_user[1h]))', window(rng, ds, 12 * HOUR), 3600);
  range('double-groupby-1-sample', 'avg by host of the sample at each hour (no window), all hosts, 12 h', 'avg by (hostname) (cpu_usage_user)', window(rng, ds, 12 * HOUR), 3600);
  range('double-groupby-all', 'mean of all 10 metrics per host per hour, all hosts, 12 h', perMetric(METRICS, 'avg', 'hostname', 'avg_over_time', '', '1h'), window(rng, ds, 12 * HOUR), 3600);
  const [, hcEnd] = window(rng, ds, 12 * HOUR);
  const hc = pickHosts(rng, ds.hosts, 1);
  out.push({ name: 'high-cpu-1', description: 'usage_user > 90 of 1 host, 12 h, every 10 s', expr: `cpu_usage_user{${hostMatcher(hc)}} > 90`, kind: 'range', startMs: hcEnd - 12 * HOUR, endMs: hcEnd, stepS: 10 });
  // The newest sample of every series: an instant query at the end of the data (lookback 5m).
  out.push({ name: 'lastpoint', description: 'the last sample of every series (1,000 at 100 hosts)', expr: '{__name__=~"cpu_usage_.*"}', kind: 'instant', startMs: ds.endMs, endMs: ds.endMs, stepS: 0 });
  const [, topEnd] = window(rng, ds, HOUR);
  out.push({ name: 'topk-5', description: 'the 5 hosts with the highest mean usage_user over 1 h (the max would tie at 100)', expr: 'topk(5, avg_over_time(cpu_usage_user[1h]))', kind: 'instant', startMs: topEnd, endMs: topEnd, stepS: 0 });
  const [, gEnd] = window(rng, ds, HOUR);
  range('groupby-orderby-limit', 'max usage_user per minute over all hosts, the last 5 minutes', 'max(max_over_time(cpu_usage_user[1m]))', [gEnd - 5 * MINUTE, gEnd], 60);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Systems.

interface Running {
  readonly system: System;
  readonly label: string;
  readonly pid: number;
  readonly version: string;
  readonly writeUrl: string;
  readonly apiBase: string;
  /** Extra query parameters (VictoriaMetrics: nocache=1). */
  readonly extra: Record<string, string>;
  readonly dataDir: string;
  stop(): Promise<void>;
}

async function startPrometheus(dir: string): Promise<Running> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, 'scrape_configs: []\n');
  const logFile = join(dir, 'server.log');
  const child = launch('/usr/bin/prometheus', [
    `--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver', '--log.level=warn',
  ], logFile);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/-/ready`, child, logFile, (s) => s === 200);
  const v = spawnSync('/usr/bin/prometheus', ['--version'], { encoding: 'utf8' });
  const version = `${v.stdout}${v.stderr}`.split('\n')[0]?.replace(/^prometheus, version /, '') ?? 'unknown';
  return { system: 'prometheus', label: 'Prometheus', pid: child.pid ?? 0, version, writeUrl: `${url}/api/v1/write`, apiBase: `${url}/api/v1`, extra: {}, dataDir: join(dir, 'data'), stop: stopper(child) };
}

async function start(system: System, dir: string): Promise<Running> {
  if (system === 'prometheus') return startPrometheus(dir);
  if (system === 'victoriametrics') {
    const s = await startVictoriaMetrics(dir);
    return { system, label: 'VictoriaMetrics', pid: s.pid, version: s.version, writeUrl: `${s.baseUrl}/api/v1/write`, apiBase: `${s.baseUrl}/api/v1`, extra: { nocache: '1' }, dataDir: dir, stop: () => s.stop() };
  }
  const s = await startTsdb(REPO, dir);
  return { system, label: 'tsdb', pid: s.pid, version: s.version, writeUrl: `${s.baseUrl}/v1/prometheus/write`, apiBase: `${s.baseUrl}/v1/prometheus/api/v1`, extra: {}, dataDir: join(dir, 'home'), stop: () => s.stop() };
}

/** Makes the written samples searchable: VictoriaMetrics buffers them for a second or so. */
async function settle(r: Running): Promise<void> {
  if (r.system === 'victoriametrics') await fetch(`${r.apiBase.replace(/\/api\/v1$/, '')}/internal/force_flush`).then((res) => res.arrayBuffer());
}

function kib(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] !== undefined ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function params(q: PromQuery, extra: Record<string, string>): URLSearchParams {
  const p = new URLSearchParams({ query: q.expr, ...extra });
  if (q.kind === 'range') {
    p.set('start', String(q.startMs / 1000));
    p.set('end', String(q.endMs / 1000));
    p.set('step', String(q.stepS));
  } else {
    p.set('time', String(q.endMs / 1000));
  }
  return p;
}

/** One query: wall time until the body is read, and the answer. */
async function timed(r: Running, q: PromQuery): Promise<{ ms: number; answer: PromAnswer; points: number }> {
  const url = `${r.apiBase}/${q.kind === 'range' ? 'query_range' : 'query'}?${params(q, r.extra).toString()}`;
  const t0 = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(600_000) });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${r.label}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  }
  const answer = normalizeAnswer(body, res.status);
  const points = answer.status === 'success' ? answer.series.reduce((n, s) => n + s.t.length, 0) : 0;
  return { ms, answer, points };
}

interface SystemResult {
  readonly label: string;
  readonly version: string;
  loadSeconds?: number;
  held?: number;
  diskBytes?: number;
  rssAfterLoadKiB?: number;
  peakRssKiB?: number;
  readonly medians: Map<string, number>;
  readonly answers: Map<string, PromAnswer>;
  readonly failures: Map<string, string>;
  readonly points: Map<string, number>;
}

async function runSystem(system: System, ds: Dataset, bodies: Buffer[][], qs: readonly PromQuery[], states: readonly string[]): Promise<SystemResult[]> {
  const dir = mkdtempSync(join(tmpdir(), `promql-bench-${system}-`));
  const out: SystemResult[] = [];
  let r: Running | undefined;
  try {
    r = await start(system, dir);
    log(`${r.label} ${r.version} started (pid ${r.pid}); loading`);
    const loadSeconds = await load(r.writeUrl, bodies);
    await settle(r);
    // Every sample is there: count_over_time per series over more than the whole data.
    const countQ: PromQuery = { name: 'count', description: '', expr: `sum(count_over_time(cpu_usage_user[${HOURS + 1}h]))`, kind: 'instant', startMs: ds.endMs, endMs: ds.endMs, stepS: 0 };
    let held = 0;
    for (let i = 0; i < 60; i++) {
      const c = await timed(r, countQ).catch((err: unknown) => {
        log(`${r!.label}: counting the samples failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      });
      held = c?.answer.status === 'success' ? Number(c.answer.series[0]?.v[0] ?? 0) : Number.NaN;
      if (held === ds.rows || Number.isNaN(held)) break;
      await new Promise((res) => setTimeout(res, 1000));
      await settle(r);
    }
    log(`${r.label}: loaded in ${loadSeconds.toFixed(1)} s; holds ${held} cpu_usage_user samples (expected ${ds.rows})`);
    for (const state of states) {
      if (state === 'flushed') {
        const t0 = performance.now();
        const res = await fetch(`${r.apiBase.replace(/\/v1\/prometheus\/api\/v1$/, '')}/v1/sql?db=public`, {
          method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: "ADMIN flush_table('tsdb_physical_table')" }).toString(),
        });
        log(`tsdb: flush ${res.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${(await res.text()).slice(0, 200)}`);
      }
      const idleMs = await waitIdle(r.pid);
      log(`${r.label}${state === '' ? '' : ` (${state})`}: idle after ${(idleMs / 1000).toFixed(0)} s; querying`);
      const res: SystemResult = {
        label: state === '' ? r.label : `${r.label} (${state})`, version: r.version, loadSeconds, held, rssAfterLoadKiB: kib(r.pid, 'VmRSS'),
        medians: new Map(), answers: new Map(), failures: new Map(), points: new Map(),
      };
      for (const q of qs) {
        try {
          const first = await timed(r, q);
          if (first.answer.status === 'error') throw new Error(`${first.answer.errorType}: ${first.answer.error}`);
          const times: number[] = [];
          let last = first;
          for (let i = 0; i < RUNS; i++) {
            last = await timed(r, q);
            // A run that fails (e.g. a query slot not free in time) fails the query: its time is not one of an answer.
            if (last.answer.status === 'error') throw new Error(`run ${i + 1}: ${last.answer.errorType}: ${last.answer.error}`);
            times.push(last.ms);
          }
          res.medians.set(q.name, median(times));
          res.answers.set(q.name, last.answer);
          res.points.set(q.name, last.points);
          log(`  ${q.name}: ${median(times).toFixed(1)} ms (${last.points} points)`);
        } catch (err) {
          res.failures.set(q.name, err instanceof Error ? err.message.slice(0, 300) : String(err));
          log(`  ${q.name}: failed: ${res.failures.get(q.name)}`);
        }
      }
      res.diskBytes = dirBytes(r.dataDir);
      res.peakRssKiB = kib(r.pid, 'VmHWM');
      out.push(res);
    }
  } catch (err) {
    log(`${system}: ${err instanceof Error ? err.message : String(err)}`);
    if (out.length === 0) out.push({ label: system, version: r?.version ?? '', medians: new Map(), answers: new Map(), failures: new Map([['*', err instanceof Error ? err.message.slice(0, 300) : String(err)]]), points: new Map() });
  } finally {
    await r?.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  installExitCleanup();
  const loadAtStart = loadAverages();
  const started = new Date();
  // Recent data, ending about two hours ago, 5 s off the minute (see the header).
  const startMs = Math.floor((Date.now() - (HOURS + 2) * HOUR) / HOUR) * HOUR + 5_000;
  log(`generating ${HOSTS} hosts × ${HOURS} h`);
  const ds = generate(HOSTS, HOURS, Number(opts.seed), startMs);
  const t0 = performance.now();
  const { bodies, bytes } = writeBodies(ds, CONCURRENCY, 60);
  log(`${ds.rows * FIELDS.length} samples in ${bodies.flat().length} remote-write requests (${(bytes / 2 ** 20).toFixed(1)} MiB snappy) encoded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const qs = queries(ds, Number(opts['query-seed']));
  const results: SystemResult[] = [];
  for (const s of SYSTEMS) results.push(...await runSystem(s, ds, bodies, qs, s === 'tsdb' && opts['tsdb-flush'] ? ['as loaded', 'flushed'] : ['']));

  const vm = results.find((r) => r.label === 'VictoriaMetrics');
  const ref = results.find((r) => r.label === 'Prometheus');
  const lines: string[] = [];
  lines.push(`Command: \`${COMMAND}\` (${started.toISOString().slice(0, 16).replace('T', ' ')} UTC)`, '');
  lines.push(`Machine: ${machine(loadAtStart)}`, '');
  lines.push(`Data: TSBS cpu-only, ${HOSTS} hosts × ${HOURS} h at 10 s: ${ds.rows.toLocaleString('en')} rows = ${(ds.rows * FIELDS.length).toLocaleString('en')} samples in ${HOSTS * FIELDS.length} series (10 metrics \`cpu_usage_*\`, 10 labels each), remote-written (${bodies.flat().length} snappy requests, ${(bytes / 2 ** 20).toFixed(0)} MiB, ${CONCURRENCY} streams) from ${new Date(ds.startMs).toISOString()}; median of ${RUNS} runs after one warm-up.`, '');
  lines.push(`Systems: ${results.map((r) => `${r.label} ${r.version}`).filter((x, i, a) => a.indexOf(x) === i).join('; ')}`, '');
  const head = ['query', 'points', ...results.map((r) => `${r.label} ms`), ...(vm === undefined ? [] : results.filter((r) => r !== vm).map((r) => `${r.label} / VM`))];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const q of qs) {
    const row = [q.name, String(ref?.points.get(q.name) ?? results[0]?.points.get(q.name) ?? '–')];
    for (const r of results) row.push(r.failures.has(q.name) ? 'failed' : fmt(r.medians.get(q.name), 1));
    if (vm !== undefined) for (const r of results.filter((x) => x !== vm)) row.push(fmt((r.medians.get(q.name) ?? Number.NaN) / (vm.medians.get(q.name) ?? Number.NaN), 2));
    lines.push(`| ${row.join(' | ')} |`);
  }
  lines.push('', 'Queries:', '');
  for (const q of qs) lines.push(`- ${q.name} (${q.description}): \`${q.expr}\` ${q.kind === 'range' ? `range ${new Date(q.startMs).toISOString()}..${new Date(q.endMs).toISOString()} step ${q.stepS}s` : `instant at ${new Date(q.endMs).toISOString()}`}`);
  lines.push('', '| system | load s | samples/s | cpu_usage_user samples held | data dir MiB | RSS after load MiB | peak RSS (VmHWM) MiB |', '|---|---|---|---|---|---|---|');
  for (const r of results) {
    lines.push(`| ${r.label} | ${fmt(r.loadSeconds, 1)} | ${fmt((ds.rows * FIELDS.length) / (r.loadSeconds ?? Number.NaN), 0)} | ${r.held ?? '–'} | ${fmt((r.diskBytes ?? Number.NaN) / 2 ** 20, 0)} | ${fmt((r.rssAfterLoadKiB ?? Number.NaN) / 1024, 0)} | ${fmt((r.peakRssKiB ?? Number.NaN) / 1024, 0)} |`);
  }
  lines.push('', 'Answers compared with Prometheus 2.42\'s (label sets, timestamps, values within 1e-6 relative):', '');
  for (const r of results.filter((x) => x !== ref)) {
    const diffs: string[] = [];
    for (const q of qs) {
      const a = r.answers.get(q.name);
      const e = ref?.answers.get(q.name);
      if (r.failures.has(q.name)) diffs.push(`${q.name}: failed: ${r.failures.get(q.name)}`);
      else if (a !== undefined && e !== undefined) {
        const why = compareAnswers(e, a, q.name === 'topk-5');
        if (why !== undefined) diffs.push(`${q.name}: ${why.slice(0, 400)}`);
      }
    }
    if (r.failures.has('*')) diffs.push(`not run: ${r.failures.get('*')}`);
    lines.push(`- ${r.label}: ${ref === undefined ? 'no reference (Prometheus not run)' : diffs.length === 0 ? `all ${qs.length} answers agree` : `${diffs.length} differ:\n  - ${diffs.join('\n  - ')}`}`);
  }
  lines.push('', `Load average at the end: ${loadAverages()}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
