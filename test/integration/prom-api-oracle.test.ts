/**
 * The Prometheus HTTP API of tsdb against Prometheus 2.42 itself (Debian package `prometheus`, on
 * 127.0.0.1, its own temporary directory, stopped by PID): the same samples, stale marker included,
 * are remote-written into both, then the same requests (instant and range queries, labels, label
 * values, series, bad requests) must answer the same JSON and status. A missing binary fails the test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { staleNaN } from '../../src/promql/values.js';
import { startPrometheus } from '../support/peers.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const labels = (o: Record<string, string>) =>
  Object.entries(o)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => ({ name, value }));

function written(): ReadSeries[] {
  const counter = (l: Record<string, string>, per: number) => ({ labels: labels(l), samples: Array.from({ length: 21 }, (_, i) => ({ timestampMs: i * 15_000, value: per * i })) });
  return [
    counter({ __name__: 'http_requests_total', job: 'api', instance: 'a:1', code: '200' }, 1),
    counter({ __name__: 'http_requests_total', job: 'api', instance: 'b:1', code: '500' }, 10),
    { labels: labels({ __name__: 'http_requests_total', job: 'db', instance: 'c:1' }), samples: [{ timestampMs: 0, value: 100 }, { timestampMs: 150_000, value: 3 }] },
    { labels: labels({ __name__: 'up', job: 'api', instance: 'a:1' }), samples: [{ timestampMs: 0, value: 1 }, { timestampMs: 15_000, value: 1 }] },
    { labels: labels({ __name__: 'gone', job: 'api' }), samples: [{ timestampMs: 0, value: 1 }, { timestampMs: 15_000, value: 2 }, { timestampMs: 30_000, value: 3 }, { timestampMs: 60_000, value: staleNaN() }] },
  ];
}

const REQUESTS: Array<[string, Record<string, string | string[]>]> = [
  ['query', { query: 'http_requests_total', time: '30' }],
  ['query', { query: 'http_requests_total', time: '1000' }],
  ['query', { query: 'http_requests_total{code=~"2..|"}', time: '150' }],
  ['query', { query: '{__name__=~"up|gone", job!="db"}', time: '20' }],
  ['query', { query: 'sum by (job) (http_requests_total)', time: '150' }],
  ['query', { query: 'rate(http_requests_total[1m])', time: '120' }],
  ['query', { query: 'gone', time: '59.999' }],
  ['query', { query: 'gone', time: '60' }],
  ['query', { query: 'http_requests_total[30s]', time: '1970-01-01T00:01:00Z' }],
  ['query', { query: 'scalar(up) * 2', time: '15' }],
  ['query', { query: '"text"', time: '1' }],
  ['query', { query: 'up{', time: '1' }],
  ['query', { query: 'up', time: 'x' }],
  ['query_range', { query: 'gone', start: '0', end: '120', step: '15' }],
  ['query_range', { query: 'increase(http_requests_total[1m])', start: '0', end: '300', step: '30s' }],
  ['query_range', { query: 'up', start: '0', end: '60', step: '0.5' }],
  ['query_range', { query: 'up', start: '10', end: '0', step: '1' }],
  ['query_range', { query: 'up', start: '0', end: '100000', step: '1' }],
  ['query_range', { query: '"a"', start: '0', end: '10', step: '1' }],
  ['query', { query: 'absent(nope{job="x"})', time: '10' }],
  ['query', { query: 'topk(1, http_requests_total)', time: '1970-01-01T00:02:30.5+00:00' }],
  ['query', { query: 'label_replace(up, "host", "$1", "instance", "(.*):.*")', time: '15' }],
  ['query', { query: 'count_values("v", http_requests_total)', time: '0' }],
  ['query', { query: 'http_requests_total offset 1m', time: '120' }],
  ['query', { query: 'nope', time: '10' }],
  ['query_range', { query: 'sum(http_requests_total)', start: '0', end: '300', step: '1m' }],
  ['query_range', { query: 'http_requests_total{instance="c:1"}', start: '0', end: '600', step: '100' }],
  ['query_range', { query: 'up', start: '0', end: '60', step: 'x' }],
  ['metadata', {}],
  ['label/__name__/values', {}],
  ['label/1x/values', {}],
  ['labels', {}],
  ['labels', { 'match[]': ['up', 'gone'] }],
  ['label/job/values', {}],
  ['label/instance/values', { 'match[]': 'http_requests_total{job="api"}' }],
  ['series', { 'match[]': ['up', '{job="db"}'] }],
  ['series', { 'match[]': '{job=~".+"}', start: '100', end: '200' }],
  ['series', {}],
  ['series', { 'match[]': '{job=~".*"}' }],
];

test('the Prometheus HTTP API answers as Prometheus 2.42 on the same samples', async (t) => {
  const prom = await startPrometheus(t, tempDir(t, 'tsdb-prom-oracle-'));
  const tsdb = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const body = encodeWriteRequest(written());
  for (const url of [`${prom.url}/api/v1/write`, `${tsdb.baseUrl}/v1/prometheus/write`]) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' }, body });
    assert.ok(res.status === 204 || res.status === 200, `${url}: ${res.status} ${await res.text()}`);
  }
  let answered = 0;
  let asked = 0;
  for (const [path, params] of REQUESTS) {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) search.append(k, x);
    // Prometheus 2.42 takes POST (form) on these paths.
    const post = /^(query|query_range|labels|series)$/.test(path) && asked++ % 2 === 1;
    const ask = async (base: string) => {
      const res = post
        ? await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: search.toString() })
        : await fetch(`${base}/${path}?${search.toString()}`);
      const json = (await res.json()) as { data?: { result?: Array<{ metric: unknown }> } };
      // Aggregations answer in no defined order: compare results sorted by their labels.
      json.data?.result?.sort?.((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1));
      return { status: res.status, json };
    };
    const [want, got] = await Promise.all([ask(`${prom.url}/api/v1`), ask(`${tsdb.baseUrl}/v1/prometheus/api/v1`)]);
    assert.deepEqual(got, want, `${post ? 'POST' : 'GET'} ${path}?${search.toString()}`);
    const data = want.json.data as { result?: unknown[] } | unknown[] | undefined;
    if (Array.isArray(data) ? data.length > 0 : Array.isArray(data?.result) && data.result.length > 0) answered++;
  }
  // Not a comparison of empty answers: most requests find samples.
  assert.ok(answered >= 15, `${answered} requests answered data`);
});
