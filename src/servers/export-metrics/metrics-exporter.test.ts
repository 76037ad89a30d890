/**
 * The metrics export on its own: how a registry becomes series, the remote-write request a
 * receiver gets (headers, body, errors without secrets, the time limit), and the exporter's timing
 * (first tick skipped, one export at a time, a bounded stop).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { decodeRemoteWrite } from '../prometheus/remote-write.js';
import type { ReadSeries } from '../prometheus/remote-read.js';
import { gatherSeries } from './gather-series.js';
import { encodeWriteRequestSliced, MetricsExporter, type MetricsSink, redactUrl, RemoteWriteSink, remoteWriteTimeout } from './metrics-exporter.js';

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

function capture(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
}

function labelsOf(s: ReadSeries): Record<string, string> {
  return Object.fromEntries(s.labels.map((l) => [l.name, l.value]));
}

function find(series: readonly ReadSeries[], want: Record<string, string>): ReadSeries[] {
  return series.filter((s) => Object.entries(want).every(([k, v]) => labelsOf(s)[k] === v));
}

test('a registry gathers as Prometheus series: counters, gauges, histograms, summaries', async () => {
  const reg = new Registry();
  new Counter({ name: 'x_requests_total', help: 'h', labelNames: ['route'], registers: [reg] }).inc({ route: '/a' }, 3);
  new Gauge({ name: 'x_bytes', help: 'h', registers: [reg] }).set(42.5);
  const h = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['op'], buckets: [0.1, 1], registers: [reg] });
  h.observe({ op: 'put' }, 0.05);
  h.observe({ op: 'put' }, 0.5);
  h.observe({ op: 'put' }, 5);
  const s = new Summary({ name: 'x_latency', help: 'h', percentiles: [0.5, 0.99], registers: [reg] });
  s.observe(2);
  s.observe(4);
  const series = await gatherSeries(reg, { job: 'tsdb-standalone', instance: 'h:1' }, 1_700_000_000_123);

  for (const one of series) {
    const names = one.labels.map((l) => l.name);
    assert.deepEqual(names, [...names].sort(), 'labels sorted by name');
    assert.deepEqual(one.samples, [{ value: one.samples[0]!.value, timestampMs: 1_700_000_000_123 }]);
    assert.equal(labelsOf(one)['job'], 'tsdb-standalone');
    assert.equal(labelsOf(one)['instance'], 'h:1');
  }
  assert.deepEqual(find(series, { __name__: 'x_requests_total' }).map((x) => [labelsOf(x), x.samples[0]!.value]), [
    [{ __name__: 'x_requests_total', instance: 'h:1', job: 'tsdb-standalone', route: '/a' }, 3],
  ]);
  assert.equal(find(series, { __name__: 'x_bytes' })[0]!.samples[0]!.value, 42.5);
  const buckets = find(series, { __name__: 'x_seconds_bucket', op: 'put' }).map((x) => [labelsOf(x)['le'], x.samples[0]!.value]);
  assert.deepEqual(buckets, [['0.1', 1], ['1', 2], ['+Inf', 3]]);
  assert.equal(find(series, { __name__: 'x_seconds_sum', op: 'put' })[0]!.samples[0]!.value, 5.55);
  assert.equal(find(series, { __name__: 'x_seconds_count', op: 'put' })[0]!.samples[0]!.value, 3);
  assert.deepEqual(find(series, { __name__: 'x_latency' }).map((x) => labelsOf(x)['quantile']).sort(), ['0.5', '0.99']);
  assert.equal(find(series, { __name__: 'x_latency_sum' })[0]!.samples[0]!.value, 6);
  assert.equal(find(series, { __name__: 'x_latency_count' })[0]!.samples[0]!.value, 2);
  assert.equal(series.length, 1 + 1 + 5 + 4);
});

test("a metric's own job or instance label wins over the identity; empty label values are left out", async () => {
  const reg = new Registry();
  const g = new Gauge({ name: 'y', help: 'h', labelNames: ['job', 'empty'], registers: [reg] });
  g.set({ job: 'mine', empty: '' }, 1);
  const [one] = await gatherSeries(reg, { job: 'tsdb-frontend', instance: 'h:2' }, 1);
  assert.deepEqual(labelsOf(one!), { __name__: 'y', instance: 'h:2', job: 'mine' });
});

test('encoded a slice at a time, a large gathering is still one WriteRequest with every series', async () => {
  const series: ReadSeries[] = Array.from({ length: 1000 }, (_, i) => ({
    labels: [{ name: '__name__', value: `m${i % 7}` }, { name: 'i', value: String(i) }],
    samples: [{ value: i, timestampMs: 1_700_000_000_000 + i }],
  }));
  const { groups, samples } = decodeRemoteWrite(await encodeWriteRequestSliced(series));
  assert.equal(samples, 1000);
  assert.deepEqual(groups.map((g) => [g.table.name, g.table.rowCount]).sort(), Array.from({ length: 7 }, (_, m) => [`m${m}`, m < 1000 % 7 ? 143 : 142]).sort());
  const m3 = groups.find((g) => g.table.name === 'm3')!.table;
  const values = m3.columns.find((c) => c.name === 'tsdb_value')!.vector as { data: Float64Array };
  assert.deepEqual([...values.data].slice(0, 3), [3, 10, 17]);
});

/** A receiver that records requests; `answer` decides the response (default 204). */
async function receiver(t: TestContext, answer?: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: Array<{ headers: IncomingMessage['headers']; body: Buffer }> }> {
  const requests: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = [];
  const srv = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks) });
      if (answer !== undefined) answer(req, res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    srv.closeAllConnections();
    srv.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v1/write?token=q`, requests };
}

const SERIES: ReadSeries[] = [{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'tsdb-datanode' }], samples: [{ value: 1, timestampMs: 1_700_000_000_000 }] }];

test('remote write: snappy protobuf POST with the protocol headers and the configured ones', async (t) => {
  const r = await receiver(t);
  const sink = new RemoteWriteSink(r.url, { Authorization: 'Basic dTpw', 'X-Scope-OrgID': 'team-a', 'Content-Type': 'text/plain' }, 1_000);
  await sink.write(SERIES, new AbortController().signal);
  assert.equal(r.requests.length, 1);
  const { headers, body } = r.requests[0]!;
  assert.equal(headers['content-encoding'], 'snappy');
  assert.equal(headers['content-type'], 'application/x-protobuf', 'a configured header cannot replace a protocol header');
  assert.equal(headers['x-prometheus-remote-write-version'], '0.1.0');
  assert.equal(headers['authorization'], 'Basic dTpw');
  assert.equal(headers['x-scope-orgid'], 'team-a');
  const { groups, samples } = decodeRemoteWrite(body);
  assert.equal(samples, 1);
  assert.equal(groups[0]!.table.name, 'up');
});

test('remote write: a refusal is an error naming the status, without the header values', async (t) => {
  const r = await receiver(t, (req, res) => res.writeHead(401).end(`bad credentials: ${String(req.headers['authorization'])}`));
  const sink = new RemoteWriteSink(r.url, { Authorization: 'Basic c2VjcmV0OnB3' }, 1_000);
  await assert.rejects(sink.write(SERIES, new AbortController().signal), (err: Error) => {
    assert.match(err.message, /answered 401/);
    assert.doesNotMatch(err.message, /c2VjcmV0OnB3/);
    return true;
  });
});

test('remote write: a receiver that never answers fails within the time limit', async (t) => {
  await receiver(t, () => undefined).then(async (r) => {
    const sink = new RemoteWriteSink(r.url, {}, 300);
    const started = Date.now();
    await assert.rejects(sink.write(SERIES, new AbortController().signal), /no answer within 300 ms/);
    assert.ok(Date.now() - started < 2_000);
  });
});

test('the time limit is shorter than the interval; logs see the URL without credentials or query', () => {
  assert.equal(remoteWriteTimeout(1_000), 800);
  assert.equal(remoteWriteTimeout(30_000), 24_000);
  assert.equal(remoteWriteTimeout(600_000), 30_000);
  assert.equal(redactUrl('https://user:pw@example.com:9090/api/v1/write?key=s3cret'), 'https://example.com:9090/api/v1/write');
});

/** A sink that records writes and answers after `delayMs` (or fails with `fail`). */
class FakeSink implements MetricsSink {
  readonly target = 'fake';
  writes: number[] = [];
  delayMs = 0;
  fail: string | undefined;
  async write(series: readonly ReadSeries[]): Promise<void> {
    this.writes.push(Date.now());
    assert.ok(series.length > 0);
    if (this.delayMs > 0) await sleep(this.delayMs);
    if (this.fail !== undefined) throw new Error(this.fail);
  }
}

function registryWithOne(): Registry {
  const reg = new Registry();
  new Gauge({ name: 'z', help: 'h', registers: [reg] }).set(1);
  return reg;
}

test('the exporter skips the first tick, then exports every interval', async (t) => {
  const sink = new FakeSink();
  const { logger } = capture();
  const exporter = new MetricsExporter({ intervalMs: 200, sink, identity: {}, logger, registry: registryWithOne() });
  const started = Date.now();
  exporter.start();
  t.after(() => exporter.stop());
  await sleep(100);
  assert.equal(sink.writes.length, 0, 'nothing at start');
  await sleep(600);
  assert.ok(sink.writes.length >= 2 && sink.writes.length <= 4, `${sink.writes.length} exports in 700 ms at 200 ms`);
  assert.ok(sink.writes[0]! - started >= 190, 'the first export comes one interval after start');
});

test('one export at a time: ticks during a slow export are skipped; stop does not wait for it long', async () => {
  const sink = new FakeSink();
  sink.delayMs = 2_000;
  const { logger, lines } = capture();
  const exporter = new MetricsExporter({ intervalMs: 100, sink, identity: {}, logger, registry: registryWithOne() });
  exporter.start();
  // Ticks every 100 ms while the first export takes 2 s: at least two are skipped before it ends
  // (waited for, not slept for: a loaded machine delays timers).
  const t0 = Date.now();
  while (exporter.counts.skipped < 2 && Date.now() - t0 < 1_800) await sleep(20);
  assert.equal(sink.writes.length, 1);
  assert.ok(exporter.counts.skipped >= 2, `${exporter.counts.skipped} ticks skipped`);
  assert.ok(lines.some((l) => /still running/.test(l.msg)));
  const stopping = Date.now();
  await exporter.stop(200);
  assert.ok(Date.now() - stopping < 1_000, 'stop is bounded');
  await sleep(250);
  assert.equal(sink.writes.length, 1, 'no export after stop');
});

test('failures are logged and retried at the next tick; a repeated failure is not logged every tick; recovery is logged', async () => {
  const sink = new FakeSink();
  sink.fail = 'the receiver answered 503';
  const { logger, lines } = capture();
  const exporter = new MetricsExporter({ intervalMs: 100, sink, identity: {}, logger, registry: registryWithOne() });
  exporter.start();
  await sleep(550);
  assert.ok(sink.writes.length >= 3, 'retried every tick');
  const errors = lines.filter((l) => /failed \(retried at the next tick\): the receiver answered 503/.test(l.msg));
  assert.equal(errors.length, 1, 'the same failure is logged once a minute at most');
  assert.equal(errors[0]!.level, 50);
  sink.fail = undefined;
  await sleep(250);
  await exporter.stop();
  assert.ok(lines.some((l) => /works again after \d+ failed attempt/.test(l.msg)));
  assert.ok(exporter.counts.exported >= 1);
});
