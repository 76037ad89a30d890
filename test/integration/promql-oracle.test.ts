/**
 * The PromQL oracle: the real Prometheus 2.42 (Debian package `prometheus`, with its remote-write
 * receiver) and a tsdb standalone, both on 127.0.0.1 with their own temporary directories and
 * stopped by PID, get the same deterministic data set by remote write
 * (`../support/promql-oracle-data.ts`); then a few hundred queries over every function family,
 * aggregation, operator and modifier (`../support/promql-oracle-queries.ts`) go to both through the
 * Prometheus HTTP API, each as an instant query at several times and as a range query at several
 * steps, and every answer of tsdb must equal Prometheus' (`../support/promql-compare.ts`: label
 * sets as sets, values within 1e-6 relative, errors of the same type). Every mismatch is listed,
 * with the query, the time and both answers; any mismatch fails the test.
 *
 * `PROMQL_ORACLE_TARGET=prometheus` compares two Prometheus servers instead (to check the harness:
 * no mismatch is expected), `PROMQL_ORACLE_TARGET=victoriametrics` VictoriaMetrics (a third
 * implementation; it differs from Prometheus on purpose in places, so that run reports mismatches).
 * `PROMQL_ORACLE_TARGET=engine` asks tsdb's parser and evaluator in this process, over the data set
 * in memory (`../support/promql-engine-target.ts`): mismatches there are the evaluator's, not the
 * SQL-backed source's or the API's. `PROMQL_ORACLE_REPORT=<file>` also writes the list of mismatches there.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { compareAnswers, promApi, type CompareStats, type PromAnswer, type PromParams } from '../support/promql-compare.js';
import { engineAnswer, oracleMemorySource } from '../support/promql-engine-target.js';
import { oracleDataset, remoteWrite, remoteWriteBodies, SPAN_MS, type OracleDataset } from '../support/promql-oracle-data.js';
import { oracleQueries, type OracleQuery } from '../support/promql-oracle-queries.js';
import { getText, requireBinary, startListeningPeer, startPrometheus } from '../support/peers.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const MIN = 60_000;

interface Target {
  readonly name: string;
  /** Remote write URL (none: the data set is given to `answer` directly). */
  readonly writeUrl?: string;
  /** Base of the query API, ending in `/api/v1`. */
  readonly apiBase?: string;
  /** Makes written samples searchable (VictoriaMetrics buffers them). */
  readonly settle?: () => Promise<void>;
  /** Answers without HTTP (the in-process engine). */
  readonly answer?: (path: 'query' | 'query_range', params: PromParams) => Promise<PromAnswer>;
  readonly describe: () => string;
}

async function startPrometheusTarget(t: TestContext): Promise<Target> {
  // No scrape jobs: the only samples are the ones this test writes. The evaluation interval stays
  // the default 1m: it is the step of subqueries without one (`x[30m:]`).
  const { peer, url } = await startPrometheus(t, tempDir(t, 'tsdb-oracle-prom-'));
  return { name: 'Prometheus', writeUrl: `${url}/api/v1/write`, apiBase: `${url}/api/v1`, describe: () => peer.describe() };
}

async function startTarget(t: TestContext, ds: OracleDataset): Promise<Target> {
  if (process.env['PROMQL_ORACLE_TARGET'] === 'prometheus') return { ...(await startPrometheusTarget(t)), name: 'a second Prometheus' };
  if (process.env['PROMQL_ORACLE_TARGET'] === 'engine') {
    const source = oracleMemorySource(ds);
    return { name: "tsdb's evaluator in process", answer: (path, params) => engineAnswer(source, path, params), describe: () => '' };
  }
  if (process.env['PROMQL_ORACLE_TARGET'] === 'victoriametrics') {
    const bin = requireBinary('victoria-metrics', 'victoria-metrics');
    const dir = tempDir(t, 'tsdb-oracle-vm-');
    const { peer, url } = await startListeningPeer(t, 'victoria-metrics', bin, (port) => [
      `-storageDataPath=${join(dir, 'storage')}`, `-httpListenAddr=127.0.0.1:${port}`, '-search.disableCache', '-retentionPeriod=100y', '-loggerLevel=WARN',
    ], '/health', { cwd: dir });
    return {
      name: 'VictoriaMetrics',
      writeUrl: `${url}/api/v1/write`,
      apiBase: `${url}/api/v1`,
      settle: async () => void (await getText(`${url}/internal/force_flush`)),
      describe: () => peer.describe(),
    };
  }
  const tsdb = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-oracle-')]);
  return {
    name: 'tsdb',
    writeUrl: `${tsdb.baseUrl}/v1/prometheus/write`,
    apiBase: `${tsdb.baseUrl}/v1/prometheus/api/v1`,
    describe: () => {
      const bad = tsdb.proc.lines.filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');
      return `tsdb (pid ${tsdb.proc.pid}, ${tsdb.proc.running ? 'running' : 'exited'}); warnings/errors:\n${bad.slice(-10).map((l) => JSON.stringify(l)).join('\n')}\n${tsdb.proc.stderr.slice(-2000)}`;
    },
  };
}

/** One evaluation: a query as an instant query at a time, or as a range query. */
interface Evaluation {
  readonly query: OracleQuery;
  readonly path: 'query' | 'query_range';
  readonly params: PromParams;
  /** For the report: `at <time>` or `<start>..<end> step <s>`. */
  readonly where: string;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

test('PromQL oracle: tsdb answers a few hundred queries as Prometheus 2.42 does, on the same remote-written data', { timeout: 20 * MIN }, async (t) => {
  // Whole minutes, ending 15 minutes ago: recent enough for any retention, old enough that no
  // evaluation time is in the future.
  const startMs = Math.floor((Date.now() - 15 * MIN - SPAN_MS) / MIN) * MIN;
  const ds = oracleDataset(startMs);
  const prometheus = await startPrometheusTarget(t);
  const target = await startTarget(t, ds);
  const bodies = remoteWriteBodies(ds);
  const stale = ds.staleMarkers;
  t.diagnostic(`data: ${ds.series.length} series, ${ds.samples} samples (${stale} stale markers) from ${new Date(startMs).toISOString()} to ${new Date(ds.endMs).toISOString()}, ${bodies.length} remote-write requests`);
  await remoteWrite(prometheus.writeUrl!, bodies);
  if (target.writeUrl !== undefined) await remoteWrite(target.writeUrl, bodies);
  await target.settle?.();

  // Prometheus holds every sample (count_over_time counts NaNs and ±Inf, not stale markers).
  let held = 0;
  for (const name of new Set(ds.series.map((x) => x.labels.find((l) => l.name === '__name__')!.value))) {
    const count = await promApi(prometheus.apiBase!, 'query', { query: `sum(count_over_time(${name}[4h]))`, time: String(ds.endMs / 1000) });
    assert.equal(count.status, 'success', JSON.stringify(count));
    held += count.status === 'success' ? Number(count.series[0]?.v[0]) : 0;
  }
  assert.equal(held, ds.samples - stale, `Prometheus holds ${held} samples, written ${ds.samples - stale} (and ${stale} stale markers)\n${prometheus.describe()}`);

  const s = (ms: number) => (ms / 1000).toFixed(3);
  // Besides times between samples, times exactly on the edges of windows: the last sample of a
  // series that just stops + 5m (the lookback's edge), and a counter's sample + 1m and + 5m (the
  // left edge of [1m] and [5m] windows, included in 2.42).
  const sampleTimes = (name: string, labels: Record<string, string>) => ds.series.find((x) => x.labels.some((l) => l.name === '__name__' && l.value === name) && Object.entries(labels).every(([k, v]) => x.labels.some((l) => l.name === k && l.value === v)))!.t;
  const stopped = sampleTimes('queue_depth', { job: 'web', queue: 'b' }).filter((x) => x < startMs + 120 * MIN).at(-1)!;
  const counterTimes = sampleTimes('http_requests_total', { job: 'api', instance: 'i1:80', method: 'GET', code: '200' });
  const onSample = counterTimes[Math.floor(counterTimes.length / 3)]!;
  const instants = [
    startMs + 47 * MIN + 13_000, startMs + 90 * MIN, startMs + 150 * MIN + 500, ds.endMs + 3 * MIN, ds.endMs + 8 * MIN,
    stopped + 5 * MIN, onSample + MIN, onSample + 5 * MIN,
  ];
  const ranges: Array<[number, number, number]> = [
    [startMs, ds.endMs + 5 * MIN, 60],
    [startMs + 20 * MIN, startMs + 140 * MIN, 37],
    [startMs + 33 * MIN + 20_000, startMs + 160 * MIN, 300],
    // Steps landing on a sample's time + 5m and + 1m.
    [onSample + 5 * MIN - 60 * MIN, onSample + 5 * MIN, 240],
  ];
  const queries = oracleQueries(startMs + 75 * MIN);
  // The API takes times as RFC 3339 or float seconds and steps as durations or float seconds: the
  // second instant and the third range are sent in the other forms.
  const rfc = (ms: number) => new Date(ms).toISOString();
  const evaluations: Evaluation[] = queries.flatMap((query) => [
    ...instants.map((time, i): Evaluation => ({ query, path: 'query', params: { query: query.expr, time: i === 1 ? rfc(time) : s(time) }, where: `at ${s(time)} (start+${(time - startMs) / 1000}s)` })),
    ...ranges.map(([from, to, step], i): Evaluation => ({
      query,
      path: 'query_range',
      params: i === 2 ? { query: query.expr, start: rfc(from), end: rfc(to), step: `${step / 60}m` } : { query: query.expr, start: s(from), end: s(to), step: String(step) },
      where: `range ${s(from)}..${s(to)} step ${step}s (start+${(from - startMs) / 1000}s..start+${(to - startMs) / 1000}s)`,
    })),
  ]);

  const mismatches: Array<{ e: Evaluation; why: string }> = [];
  let answered = 0;
  let errorsBoth = 0;
  const messageDiffs = new Map<string, string>();
  const stats: CompareStats = { values: 0, inexact: 0 };
  const inexactQueries = new Map<string, number>();
  /** Queries for which Prometheus answered some series with points at least once (the others test little). */
  const withData = new Set<string>();
  await pool(evaluations, 4, async (e) => {
    const expected: PromAnswer = await promApi(prometheus.apiBase!, e.path, e.params);
    let got: PromAnswer;
    try {
      got = target.answer !== undefined ? await target.answer(e.path, e.params) : await promApi(target.apiBase!, e.path, e.params);
    } catch (err) {
      mismatches.push({ e, why: `request failed: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    answered++;
    if (expected.status === 'success' && expected.series.some((x) => x.t.length > 0)) withData.add(e.query.expr);
    if (expected.status === 'error' && got.status === 'error') {
      errorsBoth++;
      // The messages are not part of the comparison (the types are); listed for whoever works on them.
      if (expected.errorType === got.errorType && expected.error !== got.error) messageDiffs.set(e.query.expr, `${e.query.expr}\n    Prometheus: ${expected.error}\n    ${target.name}: ${got.error}`);
    }
    const before = stats.inexact;
    const why = compareAnswers(expected, got, e.path === 'query' && e.query.ordered === true, stats);
    if (stats.inexact > before) inexactQueries.set(e.query.expr, (inexactQueries.get(e.query.expr) ?? 0) + stats.inexact - before);
    if (why !== undefined) mismatches.push({ e, why });
  });

  const families = new Map<string, { queries: number; mismatched: Set<string>; evaluations: number }>();
  for (const q of queries) {
    const f = families.get(q.family) ?? { queries: 0, mismatched: new Set<string>(), evaluations: 0 };
    f.queries++;
    families.set(q.family, f);
  }
  for (const m of mismatches) {
    const f = families.get(m.e.query.family)!;
    f.mismatched.add(m.e.query.expr);
    f.evaluations++;
  }
  t.diagnostic(`${queries.length} queries, ${evaluations.length} evaluations (${instants.length} instants + ${ranges.length} ranges each); ${answered} answered by ${target.name}, ${errorsBoth} errors on both sides (of the same type or not); ${mismatches.length} mismatches`);
  const empty = queries.filter((q) => q.family !== 'error' && !withData.has(q.expr)).map((q) => q.expr);
  t.diagnostic(`queries Prometheus never answered with data (besides the error family): ${empty.length === 0 ? 'none' : empty.join(' | ')}`);
  for (const [family, f] of [...families].sort()) {
    t.diagnostic(`  ${family}: ${f.queries} queries, ${f.mismatched.size} with mismatches (${f.evaluations} evaluations)`);
  }
  const order = (m: { e: Evaluation }) => `${m.e.query.family}\u0000${m.e.query.expr}`;
  mismatches.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const report = mismatches.map((m) => `[${m.e.query.family}] ${m.e.query.expr}\n  ${m.e.path} ${m.e.where}\n    ${m.why}`).join('\n');
  t.diagnostic(`${stats.values} values agreed, ${stats.inexact} of them only within the tolerance (not bit for bit)${inexactQueries.size === 0 ? '' : `: ${[...inexactQueries].map(([q, n]) => `${q} (${n})`).join(' | ')}`}`);
  t.diagnostic(`${messageDiffs.size} queries with errors of the same type but other messages (not compared)`);
  if (process.env['PROMQL_ORACLE_REPORT'] !== undefined) {
    writeFileSync(process.env['PROMQL_ORACLE_REPORT'], `${report}\n\nError messages that differ (same type):\n${[...messageDiffs.values()].join('\n')}\n`);
  }
  assert.equal(mismatches.length, 0, `${mismatches.length} of ${evaluations.length} answers of ${target.name} differ from Prometheus 2.42's:\n${report}\n${target.describe()}`);
});
