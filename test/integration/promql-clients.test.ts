/**
 * tsdb's Prometheus query API (/v1/prometheus/api/v1) as its clients use it, side by side with a
 * real Prometheus 2.42 holding the same remote-written data (the oracle, so expectations are not
 * guessed): `promtool query instant|range|series|labels` (Debian's promtool) must print the same
 * on both; the requests Grafana's Prometheus data source sends must answer in the shapes Grafana
 * reads, with Prometheus's data; and bad input (malformed queries, unknown functions, bad times and
 * steps, too many points, regex bombs, 5,000 match[] entries, 1 MB queries) must get Prometheus's
 * error envelope and status, never a 5xx or a hang (every request has a client timeout).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { requireBinary } from '../support/peers.js';
import { almostEqual, apiNumber } from '../support/promql-script.js';
import { remoteWrite, startTarget, type PromTarget, type WriteSeries } from '../support/promql-targets.js';

const STEP_MS = 15_000;
/** The data ends at a recent minute (Grafana asks about "now") and covers the 30 minutes before it. */
const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 30 * 60_000;
const sec = (ms: number) => String(ms / 1000);

function series(labels: Record<string, string>, value: (i: number) => number | undefined): WriteSeries {
  const samples: Array<{ t: number; v: number }> = [];
  for (let i = 0, t = START_MS; t <= END_MS; i++, t += STEP_MS) {
    const v = value(i);
    if (v !== undefined) samples.push({ t, v });
  }
  return { labels, samples };
}

/** A long label value that makes backtracking regex engines blow up on `(a+)+b`. */
const LONG_A = `${'a'.repeat(5000)}c`;

const DATA: WriteSeries[] = [
  series({ __name__: 'up', job: 'api', instance: 'a:9090' }, () => 1),
  series({ __name__: 'up', job: 'api', instance: 'b:9090' }, (i) => (i < 80 ? 1 : 0)),
  series({ __name__: 'up', job: 'db', instance: 'c:5432' }, (i) => (i < 60 ? 1 : undefined)),
  series({ __name__: 'http_requests_total', job: 'api', instance: 'a:9090', method: 'GET', code: '200' }, (i) => 3 * i),
  series({ __name__: 'http_requests_total', job: 'api', instance: 'a:9090', method: 'POST', code: '500' }, (i) => (i < 60 ? i : i - 60)),
  ...['0.1', '0.5', '1', '+Inf'].map((le, k) => series({ __name__: 'http_request_duration_seconds_bucket', job: 'api', le }, (i) => i * (k + 1))),
  series({ __name__: 'long_values', a: LONG_A }, () => 1),
];

/** Both servers, loaded with DATA. */
async function servers(t: TestContext): Promise<{ prom: PromTarget; tsdb: PromTarget }> {
  const [prom, tsdb] = await Promise.all([startTarget(t, 'prometheus'), startTarget(t, 'tsdb')]);
  await Promise.all([remoteWrite(prom, DATA), remoteWrite(tsdb, DATA)]);
  return { prom, tsdb };
}

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly json: { status?: string; data?: unknown; errorType?: string; error?: string; warnings?: unknown } | undefined;
  readonly ms: number;
}

/** GET (params in the URL) or POST (params as a form body) to `<api>/<path>`, bounded by a 20 s client timeout. */
async function call(target: PromTarget, method: 'GET' | 'POST', path: string, params: Array<[string, string]> = [], timeoutMs = 20_000): Promise<Reply> {
  const qs = new URLSearchParams(params).toString();
  const url = `${target.apiUrl}/${path}${method === 'GET' && qs !== '' ? `?${qs}` : ''}`;
  const started = Date.now();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      ...(method === 'POST' && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: qs }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new Error(`${method} ${path} ${describeParams(params)}: no answer within ${timeoutMs} ms (${err instanceof Error ? err.message : String(err)})`);
  }
  const body = await res.text();
  let json: Reply['json'];
  try {
    json = JSON.parse(body) as Reply['json'];
  } catch {
    json = undefined;
  }
  return { status: res.status, body, json, ms: Date.now() - started };
}

function describeParams(params: Array<[string, string]>): string {
  const shown = params.slice(0, 4).map(([k, v]) => `${k}=${v.length > 80 ? `${v.slice(0, 80)}…(${v.length} chars)` : v}`);
  return params.length > 4 ? `${shown.join('&')}&…(${params.length} params)` : shown.join('&');
}

/** Query results compared as Prometheus's tests do: same series (any order), same timestamps, values almostEqual. */
function sameQueryData(got: unknown, want: unknown): string | undefined {
  const g = got as { resultType: string; result: unknown };
  const w = want as { resultType: string; result: unknown };
  if (g?.resultType !== w.resultType) return `resultType ${String(g?.resultType)}, expected ${w.resultType}`;
  const num = (p: unknown) => apiNumber((p as [number, string])[1]);
  if (w.resultType === 'scalar' || w.resultType === 'string') {
    const [gp, wp] = [g.result as [number, string], w.result as [number, string]];
    return gp[0] === wp[0] && (w.resultType === 'string' ? gp[1] === wp[1] : almostEqual(num(gp), num(wp))) ? undefined : `${JSON.stringify(gp)}, expected ${JSON.stringify(wp)}`;
  }
  type S = { metric: Record<string, string>; value?: [number, string]; values?: Array<[number, string]> };
  const key = (s: S) => JSON.stringify(Object.entries(s.metric).sort());
  const gm = new Map((g.result as S[]).map((s) => [key(s), s]));
  const ws = w.result as S[];
  if (gm.size !== ws.length || (g.result as S[]).length !== ws.length) return `${(g.result as S[]).length} series, expected ${ws.length}: ${JSON.stringify(g.result).slice(0, 2000)} vs ${JSON.stringify(w.result).slice(0, 2000)}`;
  for (const s of ws) {
    const o = gm.get(key(s));
    if (o === undefined) return `missing series ${JSON.stringify(s.metric)}; got ${[...gm.keys()].join(' ')}`;
    const wp = s.values ?? [s.value!];
    const gp = o.values ?? (o.value !== undefined ? [o.value] : []);
    const same = wp.length === gp.length && wp.every((p, i) => p[0] === gp[i]![0] && almostEqual(num(p), num(gp[i])));
    if (!same) return `${JSON.stringify(s.metric)}: ${JSON.stringify(gp).slice(0, 1000)}, expected ${JSON.stringify(wp).slice(0, 1000)}`;
  }
  return undefined;
}

/** Label-name/value lists and series lists compared as sets (Prometheus sorts them; order is checked apart). */
function sameListData(got: unknown, want: unknown): string | undefined {
  if (!Array.isArray(got)) return `data is not an array: ${JSON.stringify(got).slice(0, 500)}`;
  const norm = (a: unknown[]) => a.map((x) => (typeof x === 'string' ? x : JSON.stringify(Object.entries(x as object).sort()))).sort();
  const [g, w] = [norm(got), norm(want as unknown[])];
  return JSON.stringify(g) === JSON.stringify(w) ? undefined : `${JSON.stringify(got).slice(0, 2000)}, expected ${JSON.stringify(want).slice(0, 2000)}`;
}

test('promtool query instant|range|series|labels prints the same for tsdb as for Prometheus', async (t) => {
  const promtool = requireBinary('promtool', 'prometheus');
  const { prom, tsdb } = await servers(t);
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(promtool, args, { stdio: ['ignore', 'pipe', 'pipe'], env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/_proxy$/i.test(k))) });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    });
  const server = (p: PromTarget) => p.apiUrl.replace(/\/api\/v1$/, '');
  const at = new Date(END_MS - 60_000).toISOString();
  const commands: string[][] = [
    ['query', 'instant', `--time=${at}`, '<server>', 'up'],
    ['query', 'instant', `--time=${at}`, '<server>', 'sum by (job) (rate(http_requests_total[5m]))'],
    ['query', 'instant', `--time=${at}`, '-o', 'json', '<server>', 'http_requests_total{method="GET"}'],
    ['query', 'instant', `--time=${sec(END_MS)}`, '<server>', 'scalar(count(up))'],
    ['query', 'instant', `--time=${at}`, '<server>', 'histogram_quantile(0.9, rate(http_request_duration_seconds_bucket[5m]))'],
    ['query', 'range', `--start=${new Date(END_MS - 10 * 60_000).toISOString()}`, `--end=${at}`, '--step=1m', '<server>', 'up{job="api"}'],
    ['query', 'range', `--start=${sec(END_MS - 20 * 60_000)}`, `--end=${sec(END_MS)}`, '--step=2m', '-o', 'json', '<server>', 'increase(http_requests_total[4m])'],
    ['query', 'series', '--match=up', `--start=${sec(START_MS)}`, `--end=${sec(END_MS)}`, '<server>'],
    ['query', 'series', '--match=http_requests_total{code="500"}', '--match={job="db"}', `--start=${sec(START_MS)}`, `--end=${sec(END_MS)}`, '<server>'],
    ['query', 'labels', `--start=${sec(START_MS)}`, `--end=${sec(END_MS)}`, '<server>', 'job'],
    ['query', 'labels', `--start=${sec(START_MS)}`, `--end=${sec(END_MS)}`, '<server>', '__name__'],
    ['query', 'labels', '--match=http_requests_total', `--start=${sec(START_MS)}`, `--end=${sec(END_MS)}`, '<server>', 'method'],
    ['query', 'instant', `--time=${at}`, '<server>', 'up{'],
  ];
  for (const cmd of commands) {
    await t.test(`promtool ${cmd.join(' ')}`, async () => {
      const [want, got] = await Promise.all([run(cmd.map((a) => (a === '<server>' ? server(prom) : a))), run(cmd.map((a) => (a === '<server>' ? server(tsdb) : a)))]);
      assert.ok(want.out.trim() !== '', `Prometheus gave promtool nothing to print: ${JSON.stringify(want)}`);
      assert.equal(got.code, want.code, `promtool's exit code on tsdb (output ${got.out}) vs on Prometheus (output ${want.out})`);
      // Series and label lists print one per line in Prometheus's sorted order; query output as it came.
      assert.equal(got.out, want.out, 'promtool output on tsdb (actual) vs on Prometheus (expected)');
    });
  }
});

test("Grafana's Prometheus data source: its requests answer in the shapes it reads, with Prometheus's data", async (t) => {
  const { prom, tsdb } = await servers(t);
  const step = 30;
  // Grafana aligns start and end to the step.
  const alignedStart = Math.floor((END_MS - 15 * 60_000) / 1000 / step) * step;
  const alignedEnd = Math.floor(END_MS / 1000 / step) * step;
  const range: Array<[string, string]> = [['start', String(START_MS / 1000)], ['end', String(END_MS / 1000)]];
  type Check = { name: string; method: 'GET' | 'POST'; path: string; params: Array<[string, string]>; kind: 'query' | 'list' | 'object' };
  const checks: Check[] = [
    { name: 'query_range (POST form, step-aligned)', method: 'POST', path: 'query_range', params: [['query', 'sum by (job) (rate(http_requests_total[1m]))'], ['start', String(alignedStart)], ['end', String(alignedEnd)], ['step', String(step)]], kind: 'query' },
    { name: 'query_range (GET, step-aligned)', method: 'GET', path: 'query_range', params: [['query', 'up'], ['start', String(alignedStart)], ['end', String(alignedEnd)], ['step', String(step)]], kind: 'query' },
    { name: 'query_range with a duration step', method: 'GET', path: 'query_range', params: [['query', 'up{job="api"} == 0'], ['start', String(alignedStart)], ['end', String(alignedEnd)], ['step', '1m']], kind: 'query' },
    { name: 'query_range with RFC 3339 times', method: 'POST', path: 'query_range', params: [['query', 'count(up)'], ['start', new Date(alignedStart * 1000).toISOString()], ['end', new Date(alignedEnd * 1000).toISOString()], ['step', '60']], kind: 'query' },
    { name: 'instant query (POST form)', method: 'POST', path: 'query', params: [['query', 'topk(1, http_requests_total)'], ['time', String(alignedEnd)]], kind: 'query' },
    { name: 'instant query of a range vector', method: 'GET', path: 'query', params: [['query', 'up{instance="a:9090"}[1m]'], ['time', String(alignedEnd)]], kind: 'query' },
    { name: 'the data source health check (1+1)', method: 'GET', path: 'query', params: [['query', '1+1'], ['time', String(alignedEnd)]], kind: 'query' },
    { name: 'instant query of a string', method: 'GET', path: 'query', params: [['query', '"hello"'], ['time', String(alignedEnd)]], kind: 'query' },
    { name: 'labels with a time range', method: 'GET', path: 'labels', params: range, kind: 'list' },
    { name: 'labels with match[] (POST form)', method: 'POST', path: 'labels', params: [['match[]', 'http_requests_total'], ...range], kind: 'list' },
    { name: 'label/__name__/values', method: 'GET', path: 'label/__name__/values', params: range, kind: 'list' },
    { name: 'label/job/values with match[]', method: 'GET', path: 'label/job/values', params: [['match[]', 'up{instance=~"a.*|c.*"}'], ...range], kind: 'list' },
    { name: 'label values of an unknown label', method: 'GET', path: 'label/nonexistent/values', params: range, kind: 'list' },
    { name: 'series with match[] and a time range', method: 'GET', path: 'series', params: [['match[]', 'up'], ...range], kind: 'list' },
    { name: 'series with two match[] (POST form)', method: 'POST', path: 'series', params: [['match[]', 'http_requests_total{method="GET"}'], ['match[]', '{__name__="up", job="db"}'], ...range], kind: 'list' },
    { name: 'series in a range without data', method: 'GET', path: 'series', params: [['match[]', 'up'], ['start', '1000'], ['end', '2000']], kind: 'list' },
    { name: 'metadata', method: 'GET', path: 'metadata', params: [], kind: 'object' },
    { name: 'metadata of one metric', method: 'GET', path: 'metadata', params: [['metric', 'up']], kind: 'object' },
  ];
  for (const c of checks) {
    await t.test(c.name, async () => {
      const [want, got] = await Promise.all([call(prom, c.method, c.path, c.params), call(tsdb, c.method, c.path, c.params)]);
      assert.equal(want.status, 200, `Prometheus: ${want.body}`);
      assert.equal(got.status, 200, `tsdb: ${got.body.slice(0, 2000)}`);
      assert.equal(got.json?.status, 'success', got.body.slice(0, 2000));
      const data = got.json!.data;
      if (c.kind === 'query') {
        // The shape Grafana parses: resultType and result; matrix points [seconds, "value"].
        const d = data as { resultType?: unknown; result?: unknown };
        assert.ok(['matrix', 'vector', 'scalar', 'string'].includes(String(d.resultType)), JSON.stringify(d).slice(0, 500));
        if (d.resultType === 'matrix') {
          for (const s of d.result as Array<{ metric: unknown; values: unknown[] }>) {
            assert.equal(typeof s.metric, 'object');
            for (const p of s.values) assert.ok(Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'string', JSON.stringify(p));
          }
        }
        const diff = sameQueryData(data, want.json!.data);
        assert.equal(diff, undefined, `tsdb vs Prometheus: ${diff}`);
      } else if (c.kind === 'list') {
        const diff = sameListData(data, want.json!.data);
        assert.equal(diff, undefined, `tsdb vs Prometheus: ${diff}`);
        if ((data as unknown[]).every((x) => typeof x === 'string')) assert.deepEqual(data, [...(data as string[])].sort(), 'label names and values come sorted');
      } else {
        assert.ok(data !== null && typeof data === 'object' && !Array.isArray(data), `metadata data must be an object: ${JSON.stringify(data)}`);
        assert.deepEqual(data, want.json!.data);
      }
    });
  }
  await t.test('status/buildinfo has the fields Grafana reads', async () => {
    const [want, got] = await Promise.all([call(prom, 'GET', 'status/buildinfo'), call(tsdb, 'GET', 'status/buildinfo')]);
    assert.equal(want.status, 200, want.body);
    assert.equal(got.status, 200, got.body);
    assert.equal(got.json?.status, 'success', got.body);
    const d = got.json!.data as Record<string, unknown>;
    // Prometheus's fields, each a string as there; tsdb may add its own.
    for (const k of Object.keys(want.json!.data as object)) assert.equal(typeof d[k], 'string', `buildinfo field ${k} in ${got.body}`);
    assert.match(String(d['version']), /^\d+\.\d+\.\d+/, 'a semantic version, which Grafana compares');
  });
});

test('bad input gets Prometheus\'s error envelope and status from tsdb, never a 5xx or a hang', async (t) => {
  const { prom, tsdb } = await servers(t);
  const now = String(END_MS / 1000);
  const range = (query: string, start: string, end: string, step: string): Array<[string, string]> => [['query', query], ['start', start], ['end', end], ['step', step]];
  const manyMatchers: Array<[string, string]> = [...Array.from({ length: 5000 }, (_, i): [string, string] => ['match[]', `up{instance="host-${i}:9100"}`]), ['match[]', 'up{job="db"}'], ['start', String(START_MS / 1000)], ['end', now]];
  // `mayRefuse`: a query Prometheus answers but that a server may reasonably refuse as too large
  // (the issue asks for a Prometheus-style error, never a 5xx or a hang): tsdb must then either give
  // Prometheus's answer or a 400 bad_data envelope.
  type Bad = { name: string; method: 'GET' | 'POST'; path: string; params: Array<[string, string]>; status: number; mayRefuse?: true };
  const cases: Bad[] = [
    { name: 'no query', method: 'GET', path: 'query', params: [['time', now]], status: 400 },
    { name: 'unclosed brace', method: 'GET', path: 'query', params: [['query', 'up{'], ['time', now]], status: 400 },
    { name: 'unclosed parenthesis', method: 'POST', path: 'query', params: [['query', 'sum(up'], ['time', now]], status: 400 },
    { name: 'unknown function', method: 'GET', path: 'query', params: [['query', 'foo(up)'], ['time', now]], status: 400 },
    { name: 'range vector where an instant vector goes', method: 'GET', path: 'query', params: [['query', 'sum(up[5m])'], ['time', now]], status: 400 },
    { name: 'instant vector where a range vector goes', method: 'GET', path: 'query', params: [['query', 'rate(up)'], ['time', now]], status: 400 },
    { name: 'wrong number of arguments', method: 'GET', path: 'query', params: [['query', 'label_replace(up, "a")'], ['time', now]], status: 400 },
    { name: 'bad regex', method: 'GET', path: 'query', params: [['query', 'up{job=~"(("}'], ['time', now]], status: 400 },
    { name: 'a selector matching the empty string only', method: 'GET', path: 'query', params: [['query', '{job=~".*"}'], ['time', now]], status: 400 },
    { name: 'trailing garbage', method: 'GET', path: 'query', params: [['query', 'up )'], ['time', now]], status: 400 },
    { name: 'many-to-many matching', method: 'GET', path: 'query', params: [['query', 'up * on(job) up'], ['time', now]], status: 422 },
    { name: 'a time that is not a time', method: 'GET', path: 'query', params: [['query', 'up'], ['time', 'yesterday']], status: 400 },
    { name: 'an RFC 3339 time with a bad month', method: 'GET', path: 'query', params: [['query', 'up'], ['time', '2023-13-01T00:00:00Z']], status: 400 },
    { name: 'a bad timeout', method: 'GET', path: 'query', params: [['query', 'up'], ['time', now], ['timeout', 'soon']], status: 400 },
    { name: 'range: no step', method: 'GET', path: 'query_range', params: [['query', 'up'], ['start', now], ['end', now]], status: 400 },
    { name: 'range: zero step', method: 'GET', path: 'query_range', params: range('up', now, now, '0'), status: 400 },
    { name: 'range: negative step', method: 'GET', path: 'query_range', params: range('up', now, now, '-15'), status: 400 },
    { name: 'range: step not a number', method: 'GET', path: 'query_range', params: range('up', now, now, 'often'), status: 400 },
    { name: 'range: end before start', method: 'GET', path: 'query_range', params: range('up', now, String(END_MS / 1000 - 60), '15'), status: 400 },
    { name: 'range: bad start', method: 'POST', path: 'query_range', params: range('up', 'then', now, '15'), status: 400 },
    { name: 'range: more than 11,000 points', method: 'GET', path: 'query_range', params: range('up', String(END_MS / 1000 - 11_001), now, '1'), status: 400 },
    { name: 'range: more than 11,000 points with a duration step', method: 'GET', path: 'query_range', params: range('up', '0', now, '1m'), status: 400 },
    { name: 'range: exactly 11,000 steps is allowed', method: 'GET', path: 'query_range', params: range('up', String(END_MS / 1000 - 11_000), now, '1'), status: 200 },
    { name: 'range: a parse error', method: 'GET', path: 'query_range', params: range('rate(up[5m]', now, now, '15'), status: 400 },
    { name: 'label values of an invalid label name', method: 'GET', path: 'label/1bad-name/values', params: [], status: 400 },
    { name: 'series without match[]', method: 'GET', path: 'series', params: [['start', now], ['end', now]], status: 400 },
    { name: 'series with a malformed match[]', method: 'GET', path: 'series', params: [['match[]', 'up{']], status: 400 },
    // Prometheus parses match[] with the selector grammar alone: the error names the first token it cannot take.
    { name: 'series with a match[] that is not a selector', method: 'GET', path: 'series', params: [['match[]', 'sum(up)']], status: 400 },
    { name: 'series with a range selector as match[]', method: 'GET', path: 'series', params: [['match[]', 'up[5m]']], status: 400 },
    { name: 'series with an offset in match[]', method: 'GET', path: 'series', params: [['match[]', 'up offset 5m']], status: 400 },
    { name: 'labels with a binary expression as match[]', method: 'GET', path: 'labels', params: [['match[]', 'up + up']], status: 400 },
    { name: 'label values with a number as match[]', method: 'GET', path: 'label/job/values', params: [['match[]', '1']], status: 400 },
    { name: 'labels with a malformed match[]', method: 'GET', path: 'labels', params: [['match[]', '{job=']], status: 400 },
    { name: 'series with a bad start', method: 'GET', path: 'series', params: [['match[]', 'up'], ['start', 'x']], status: 400 },
    { name: '5,000 match[] entries (POST form)', method: 'POST', path: 'series', params: manyMatchers, status: 200, mayRefuse: true },
    { name: 'a 1 MB query (a long label value)', method: 'POST', path: 'query', params: [['query', `up{job="${'x'.repeat(1 << 20)}"}`], ['time', now]], status: 200, mayRefuse: true },
    { name: 'a 1 MB query that does not parse', method: 'POST', path: 'query', params: [['query', `up{job="${'x'.repeat(1 << 20)}"`], ['time', now]], status: 400 },
    // Prometheus itself takes about 1 s for 5,000 nested parentheses and grows quadratically with the terms of a sum (18 s for 20,000).
    { name: 'a deeply nested query', method: 'POST', path: 'query', params: [['query', `${'('.repeat(5000)}up${')'.repeat(5000)}`], ['time', now]], status: 200, mayRefuse: true },
    { name: 'a long sum of terms', method: 'POST', path: 'query', params: [['query', Array.from({ length: 2000 }, () => 'up').join(' + ')], ['time', now]], status: 200, mayRefuse: true },
    // RE2 (Prometheus) answers these in linear time; a backtracking engine must not hang on them.
    { name: 'regex bomb (a+)+b on a 5,000-character value', method: 'GET', path: 'query', params: [['query', 'long_values{a=~"(a+)+b"}'], ['time', now]], status: 200 },
    { name: 'regex bomb (a|a)*b, negated', method: 'GET', path: 'query', params: [['query', 'long_values{a!~"(a|a)*b"}'], ['time', now]], status: 200 },
    { name: 'regex bomb in series match[]', method: 'GET', path: 'series', params: [['match[]', 'long_values{a=~"(a*)*b"}']], status: 200 },
    { name: 'regex bomb in label_replace', method: 'GET', path: 'query', params: [['query', 'label_replace(long_values, "x", "$1", "a", "(a+)+b")'], ['time', now]], status: 200 },
  ];
  // tsdb runs queries on its event loop: one request that hangs it would make every later one
  // time out too. After a timeout, each case first checks that tsdb still answers `1+1`, so the
  // failures name the request that hung it rather than 20 s timeouts of innocent ones.
  let hungBy: string | undefined;
  for (const c of cases) {
    await t.test(c.name, async () => {
      const want = await call(prom, c.method, c.path, c.params, 60_000);
      assert.equal(want.status, c.status, `Prometheus answered ${want.status}: ${want.body.slice(0, 500)}`);
      if (hungBy !== undefined) {
        const alive = await call(tsdb, 'GET', 'query', [['query', '1+1']], 5000).then(() => true, () => false);
        if (!alive) assert.fail(`not tried: tsdb has not answered since "${hungBy}" timed out`);
        hungBy = undefined;
      }
      let got: Reply;
      try {
        got = await call(tsdb, c.method, c.path, c.params, 20_000);
      } catch (err) {
        hungBy = c.name;
        throw err;
      }
      assert.ok(got.status < 500, `tsdb answered ${got.status}: ${got.body.slice(0, 1000)}`);
      assert.ok(got.json !== undefined, `tsdb's answer is not JSON: ${got.body.slice(0, 500)}`);
      if (c.mayRefuse && got.status !== 200) {
        assert.deepEqual([got.status, got.json.status, got.json.errorType], [400, 'error', 'bad_data'], `tsdb refused with: ${got.body.slice(0, 1000)}`);
        assert.ok(typeof got.json.error === 'string' && got.json.error !== '', got.body.slice(0, 1000));
      } else if (want.status === 200) {
        assert.equal(got.status, 200, `tsdb: ${got.body.slice(0, 1000)}`);
        const diff = c.path === 'series' ? sameListData(got.json.data, want.json!.data) : sameQueryData(got.json.data, want.json!.data);
        assert.equal(diff, undefined, `tsdb vs Prometheus: ${diff}`);
      } else {
        assert.deepEqual(
          { status: got.status, envelope: got.json.status, errorType: got.json.errorType, error: got.json.error },
          { status: want.status, envelope: 'error', errorType: want.json!.errorType, error: want.json!.error },
          'tsdb (actual) vs Prometheus (expected)',
        );
      }
    });
  }
});
