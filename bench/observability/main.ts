/**
 * The cost of observability (issue 19): the same TSBS cpu-only ingest and queries against two tsdb
 * standalones started side by side, one with everything off (the defaults) and one with `/metrics`
 * scraped every second by this process, `[export_metrics]` remote-writing every 5 s to a receiver
 * here and OTLP tracing at ratio 1.0 to an OTLP receiver here. The work alternates between the two
 * (chunk k of the load into "off" then into "on"; each query run on "off" then on "on"), so both see
 * the same machine load. The scraper runs all along, as Prometheus would (a scrape costs "on" a few
 * ms of CPU a second, some of which lands while "off" is measured: it slightly favours "off"). Reported: load rows/s
 * and query medians per server, their ratio, server CPU seconds (from /proc) and peak RSS, and what
 * the receivers got (so a run whose export or tracing silently did nothing does not count). Answers
 * of the two are compared (same rows), so neither is timed while answering wrongly.
 *
 *   npm run build && node dist/bench/observability/main.js [--hosts 100] [--hours 4] [--runs 5]
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { cpuSeconds, peakRssBytes } from '../ingest/proc-stats.js';
import { startTsdb, type TsdbServer } from '../ingest/tsdb-server.js';
import { compareRows, tsdbRows, tsdbSql } from '../tsbs/clients.js';
import { generate, lineProtocolBatch, TSDB_CREATE_TABLE } from '../tsbs/data.js';
import { median } from '../tsbs/load.js';
import { tsbsQueries } from '../tsbs/queries.js';
import { installExitCleanup, log } from '../tsbs/servers.js';
import { OtlpReceiver } from '../../test/support/otlp-receiver.js';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '4' },
    seed: { type: 'string', default: '123' },
    'query-seed': { type: 'string', default: '7' },
    batch: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    chunks: { type: 'string', default: '8' },
    runs: { type: 'string', default: '5' },
    'scrape-ms': { type: 'string', default: '1000' },
    'export-interval': { type: 'string', default: '5s' },
    /** What "on" turns on: any of scrape, export, tracing (to see what each costs). */
    on: { type: 'string', default: 'scrape,export,tracing' },
    /** `logging.tracing_sample_ratio.default_ratio` of the "on" server. */
    ratio: { type: 'string', default: '1.0' },
    keep: { type: 'boolean', default: false },
  },
});

function positiveInt(name: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: a positive integer, not ${v}`);
  return n;
}

const HOSTS = positiveInt('hosts', opts.hosts);
const HOURS = positiveInt('hours', opts.hours);
const BATCH = positiveInt('batch', opts.batch);
const CONCURRENCY = positiveInt('concurrency', opts.concurrency);
const CHUNKS = positiveInt('chunks', opts.chunks);
const RUNS = positiveInt('runs', opts.runs);
const SCRAPE_MS = positiveInt('scrape-ms', opts['scrape-ms']);
const ON = new Set((opts.on ?? '').split(',').map((x) => x.trim()).filter((x) => x !== ''));
for (const x of ON) if (!['scrape', 'export', 'tracing'].includes(x)) throw new Error(`--on: scrape, export and/or tracing, not ${x}`);
const RATIO = Number(opts.ratio);
if (!(RATIO >= 0 && RATIO <= 1)) throw new Error(`--ratio: a number from 0 to 1, not ${opts.ratio}`);
const DB = 'public';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A Prometheus remote-write receiver that counts what it gets (requests and body bytes). */
interface WriteReceiver {
  readonly url: string;
  requests: number;
  bytes: number;
  readonly close: () => Promise<void>;
}

async function startWriteReceiver(): Promise<WriteReceiver> {
  const state = { requests: 0, bytes: 0 };
  const server: HttpServer = createServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      state.requests++;
      state.bytes += n;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('receiver has no port');
  return {
    url: `http://127.0.0.1:${addr.port}/api/v1/write`,
    get requests() { return state.requests; },
    get bytes() { return state.bytes; },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  } as WriteReceiver;
}

/** Scrapes `/metrics` every SCRAPE_MS while running; counts scrapes and failures. */
class Scraper {
  scrapes = 0;
  failures = 0;
  bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;

  constructor(private readonly baseUrl: string) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.scrape(), SCRAPE_MS);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async scrape(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      const res = await fetch(`${this.baseUrl}/metrics`);
      const text = await res.text();
      if (res.status === 200 && text.includes('process_resident_memory_bytes')) {
        this.scrapes++;
        this.bytes += text.length;
      } else {
        this.failures++;
      }
    } catch {
      this.failures++;
    } finally {
      this.inFlight = false;
    }
  }
}

async function lpWrite(baseUrl: string, body: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/influxdb/write?db=${DB}&precision=ms`, { method: 'POST', body });
  const text = await res.text();
  if (!res.ok) throw new Error(`line protocol write: HTTP ${res.status}: ${text.slice(0, 300)}`);
}

/** Sends rows [from, to) in batches, CONCURRENCY requests in flight; returns the seconds it took. */
async function loadChunk(baseUrl: string, bodies: readonly string[]): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < bodies.length; i = next++) await lpWrite(baseUrl, bodies[i] ?? '');
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
  return (performance.now() - t0) / 1000;
}

interface Side {
  readonly name: 'off' | 'on';
  readonly server: TsdbServer;
  readonly scraper: Scraper | null;
  loadSeconds: number;
  readonly queryMs: Map<string, number[]>;
}

async function main(): Promise<void> {
  installExitCleanup();
  const loadAtStart = loadAverages();
  const started = new Date();
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-bench-obs-'));
  const ds = generate(HOSTS, HOURS, Number(opts.seed));
  log(`data: ${HOSTS} hosts × ${HOURS} h = ${ds.rows.toLocaleString('en-US')} rows (10 fields each)`);

  const receiver = await startWriteReceiver();
  const otlp = await OtlpReceiver.start();
  const off = await startTsdb(repoRoot, join(dir, 'off'));
  const on = await startTsdb(repoRoot, join(dir, 'on'), {
    env: {
      ...(ON.has('export') && {
        TSDB_STANDALONE__EXPORT_METRICS__ENABLE: 'true',
        TSDB_STANDALONE__EXPORT_METRICS__WRITE_INTERVAL: opts['export-interval'],
        TSDB_STANDALONE__EXPORT_METRICS__REMOTE_WRITE__URL: receiver.url,
      }),
      ...(ON.has('tracing') && {
        TSDB_STANDALONE__LOGGING__ENABLE_OTLP_TRACING: 'true',
        TSDB_STANDALONE__LOGGING__OTLP_ENDPOINT: otlp.address,
        TSDB_STANDALONE__LOGGING__TRACING_SAMPLE_RATIO__DEFAULT_RATIO: String(RATIO),
      }),
    },
  });
  const sides: Side[] = [
    { name: 'off', server: off, scraper: null, loadSeconds: 0, queryMs: new Map() },
    { name: 'on', server: on, scraper: ON.has('scrape') ? new Scraper(on.baseUrl) : null, loadSeconds: 0, queryMs: new Map() },
  ];
  sides[1]!.scraper?.start();
  try {
    for (const s of sides) await tsdbSql(s.server.baseUrl, DB, TSDB_CREATE_TABLE('cpu'));
    const cpu0 = sides.map((s) => cpuSeconds(s.server.pid, true).seconds);

    // Load: chunk k into "off", then into "on" (same bodies), so both run under the same load.
    const rowsPerChunk = Math.ceil(ds.rows / CHUNKS);
    for (let c = 0; c < CHUNKS; c++) {
      const from = c * rowsPerChunk;
      const to = Math.min(ds.rows, from + rowsPerChunk);
      const bodies: string[] = [];
      for (let r = from; r < to; r += BATCH) bodies.push(lineProtocolBatch(ds, r, Math.min(to, r + BATCH)));
      const order = c % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) s.loadSeconds += await loadChunk(s.server.baseUrl, bodies);
      log(`load chunk ${c + 1}/${CHUNKS}: off ${fmt(sides[0]!.loadSeconds, 1)} s, on ${fmt(sides[1]!.loadSeconds, 1)} s so far`);
    }
    for (const s of sides) {
      const n = Number(tsdbRows((await tsdbSql(s.server.baseUrl, DB, 'SELECT count(*) AS n FROM cpu')).body)[0]?.['n']);
      if (n !== ds.rows) throw new Error(`${s.name}: ${n} rows stored, ${ds.rows} sent`);
    }
    const cpuLoad = sides.map((s, i) => cpuSeconds(s.server.pid, true).seconds - (cpu0[i] ?? 0));

    // Queries: each TSBS query, warm-up on both, then RUNS runs alternating which side goes first.
    const queries = tsbsQueries(ds, Number(opts['query-seed']));
    const cpuQ0 = sides.map((s) => cpuSeconds(s.server.pid, true).seconds);
    for (const q of queries) {
      const answers = [];
      for (const s of sides) answers.push(tsdbRows((await tsdbSql(s.server.baseUrl, DB, q.sql)).body));
      const cmp = compareRows(answers[0] ?? [], answers[1] ?? [], 3, ['off', 'on']);
      if (!cmp.ok) throw new Error(`${q.name}: the two servers answer differently: ${cmp.mismatches.join('; ')}`);
      for (let r = 0; r < RUNS; r++) {
        const order = r % 2 === 0 ? sides : [...sides].reverse();
        for (const s of order) {
          const ms = (await tsdbSql(s.server.baseUrl, DB, q.sql)).ms;
          const list = s.queryMs.get(q.name) ?? [];
          list.push(ms);
          s.queryMs.set(q.name, list);
        }
      }
      log(`${q.name}: off ${fmt(median(sides[0]!.queryMs.get(q.name) ?? []), 1)} ms, on ${fmt(median(sides[1]!.queryMs.get(q.name) ?? []), 1)} ms`);
    }
    const cpuQueries = sides.map((s, i) => cpuSeconds(s.server.pid, true).seconds - (cpuQ0[i] ?? 0));
    // Let one more export tick and the span batch go out before reading the receivers.
    await new Promise((ok) => setTimeout(ok, 6_000));

    const [a, b] = sides as [Side, Side];
    const lines: string[] = [];
    lines.push(`### The cost of observability (issue 19), ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`, '');
    lines.push(`\`node dist/bench/observability/main.js --hosts ${HOSTS} --hours ${HOURS} --runs ${RUNS} --on ${[...ON].join(',')} --ratio ${RATIO}\`; ${machine(loadAtStart)}.`);
    lines.push(`Data: TSBS cpu-only, ${HOSTS} hosts × ${HOURS} h = ${ds.rows.toLocaleString('en-US')} rows, line protocol, batches of ${BATCH}, ${CONCURRENCY} in flight, ${CHUNKS} chunks alternating.`);
    lines.push(`"on": /metrics scraped every ${SCRAPE_MS} ms (${b.scraper?.scrapes ?? 0} scrapes, ${b.scraper?.failures ?? 0} failures, avg ${fmt((b.scraper?.bytes ?? 0) / Math.max(1, b.scraper?.scrapes ?? 1) / 1024, 1)} KiB), export every ${opts['export-interval']} by remote write (${receiver.requests} requests, ${fmt(receiver.bytes / 1024, 1)} KiB received), tracing at ratio ${RATIO} (${otlp.spans.length.toLocaleString('en-US')} spans received).`, '');
    lines.push('| | off | on | on / off |', '|---|---:|---:|---:|');
    const row = (label: string, x: number, y: number, digits = 1): void => {
      lines.push(`| ${label} | ${fmt(x, digits)} | ${fmt(y, digits)} | ${fmt(y / x, 3)} |`);
    };
    row('load, rows/s', ds.rows / a.loadSeconds, ds.rows / b.loadSeconds, 0);
    row('server CPU s during load', cpuLoad[0] ?? Number.NaN, cpuLoad[1] ?? Number.NaN, 1);
    for (const q of queries) row(`${q.name}, median ms`, median(a.queryMs.get(q.name) ?? []), median(b.queryMs.get(q.name) ?? []), 1);
    row('server CPU s during queries', cpuQueries[0] ?? Number.NaN, cpuQueries[1] ?? Number.NaN, 1);
    row('peak RSS, MiB', peakRssBytes(a.server.pid, true) / 2 ** 20, peakRssBytes(b.server.pid, true) / 2 ** 20, 0);
    const geo = Math.exp(queries.reduce((acc, q) => acc + Math.log(median(b.queryMs.get(q.name) ?? []) / median(a.queryMs.get(q.name) ?? [])), 0) / queries.length);
    lines.push('', `Geometric mean of the query ratios (on / off): ${fmt(geo, 3)}.`);
    if ((ON.has('export') && receiver.requests === 0) || (ON.has('tracing') && RATIO > 0 && otlp.spans.length === 0) || (ON.has('scrape') && (b.scraper?.scrapes ?? 0) === 0)) {
      lines.push('', '**This run does not count**: the receivers or the scraper got nothing.');
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    sides[1]!.scraper?.stop();
    for (const s of sides) await s.server.stop();
    await receiver.close();
    await otlp.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
