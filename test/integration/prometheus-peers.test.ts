/**
 * tsdb with the real Prometheus (2.42, Debian package `prometheus`) and vmagent (Debian package
 * `victoria-metrics`), all on 127.0.0.1, each with its own temporary directory, stopped by PID:
 * Prometheus scrapes itself, remote-writes into tsdb and remote-reads from it; vmagent scrapes a
 * target this test serves and remote-writes into tsdb. What arrives is checked with SQL, sample by
 * sample. A missing binary fails the test. Codec-level tests: `prom-store.test.ts`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  getText,
  type LabeledSample,
  type PeerProcess,
  promValue,
  requireBinary,
  samplesOfRows,
  serveHttp,
  sortedLabels,
  sortSamples,
  startListeningPeer,
  tsdbSql,
  waitFor,
} from '../support/peers.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

/** How long peers get to deliver their first samples, on a loaded 2-core machine. */
const FIRST_DATA_TIMEOUT_MS = 40_000;

async function startStandalone(t: TestContext): Promise<Started> {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-peers-')]);
}

/** tsdb's warnings and errors, for failure messages. */
function tsdbProblems(tsdb: Started): string {
  const bad = tsdb.proc.lines.filter((l) => l.level !== 'info' && l.level !== 'debug' && l.level !== 'trace');
  return `tsdb warnings/errors (${bad.length}):\n${bad.slice(-20).map((l) => JSON.stringify(l)).join('\n')}\n${tsdb.proc.stderr.slice(-4000)}`;
}

/** Lines of a Prometheus text exposition whose metric name starts with one of `prefixes`. */
function metricLines(exposition: string, prefixes: readonly string[]): string {
  return exposition.split('\n').filter((l) => prefixes.some((p) => l.startsWith(p))).join('\n');
}

/** The sum of the samples of `name` in a text exposition (for counters such as failed samples). */
function sumOf(exposition: string, name: string): number {
  let sum = 0;
  for (const line of exposition.split('\n')) {
    if (line === name || line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += promValue(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Prometheus

interface PromMatrixSeries {
  readonly metric: Record<string, string>;
  readonly values: Array<[number, string]>;
}

/** An instant query against Prometheus' HTTP API; the `data` of a successful answer. */
async function promQuery(promUrl: string, path: 'query' | 'query_range', params: Record<string, string>): Promise<{ resultType: string; result: unknown[] }> {
  const url = `${promUrl}/api/v1/${path}?${new URLSearchParams(params).toString()}`;
  const body = JSON.parse(await getText(url)) as { status: string; data: { resultType: string; result: unknown[] }; error?: string; warnings?: string[] };
  assert.equal(body.status, 'success', `${url}: ${JSON.stringify(body)}`);
  assert.equal(body.warnings, undefined, `${url}: warnings ${JSON.stringify(body.warnings)}`);
  return body.data;
}

/** The raw samples of a range-vector query (`<selector>[<range>]` at `timeMs`), labels without `__name__`. */
async function promRawSamples(promUrl: string, rangeSelector: string, timeMs: number): Promise<LabeledSample[]> {
  const data = await promQuery(promUrl, 'query', { query: rangeSelector, time: String(timeMs / 1000) });
  assert.equal(data.resultType, 'matrix', rangeSelector);
  return (data.result as PromMatrixSeries[]).flatMap(({ metric, values }) => {
    const { __name__: _name, ...labels } = metric;
    return values.map(([ts, v]) => ({ labels: sortedLabels(labels), timestampMs: Math.round(ts * 1000), value: promValue(v) }));
  });
}

/** Everything that helps to understand why Prometheus' samples did not reach tsdb. */
async function describePrometheus(prom: PeerProcess, promUrl: string, tsdb: Started): Promise<string> {
  const parts = [prom.describe(), tsdbProblems(tsdb)];
  try {
    const targets = JSON.parse(await getText(`${promUrl}/api/v1/targets`)) as { data: { activeTargets: Array<{ scrapeUrl: string; health: string; lastError: string }> } };
    parts.push(`Prometheus targets: ${JSON.stringify(targets.data.activeTargets.map((x) => [x.scrapeUrl, x.health, x.lastError]))}`);
    parts.push(`Prometheus remote storage metrics:\n${metricLines(await getText(`${promUrl}/metrics`), ['prometheus_remote_storage_samples', 'prometheus_remote_storage_metadata', 'prometheus_remote_storage_highest'])}`);
  } catch (err) {
    parts.push(`(Prometheus API not answering: ${String(err)})`);
  }
  return parts.join('\n');
}

/**
 * Samples of `table` in tsdb (SQL) and of `selector` in Prometheus (raw samples of a range vector),
 * both in (endMs − 2 s, endMs]: Prometheus' range includes its left end in 2.x, the window here does not.
 */
async function bothSides(tsdb: Started, promUrl: string, table: string, where: string, selector: string, endMs: number) {
  const fromMs = endMs - 2_000;
  const inWindow = (s: LabeledSample) => s.timestampMs > fromMs && s.timestampMs <= endMs;
  const rows = await tsdbSql(tsdb.baseUrl, `SELECT * FROM ${table} WHERE ${where} AND tsdb_timestamp > ${fromMs} AND tsdb_timestamp <= ${endMs}`);
  return {
    tsdb: sortSamples(samplesOfRows(rows).filter(inWindow)),
    prometheus: sortSamples((await promRawSamples(promUrl, `${selector}[2s]`, endMs)).filter(inWindow)),
  };
}

test('Prometheus 2.42: its remote write stores in tsdb exactly the samples its query API answers; its remote read (read_recent) serves a series only tsdb has', { timeout: 120_000 }, async (t) => {
  const prometheusBin = requireBinary('prometheus', 'prometheus');
  const tsdb = await startStandalone(t);
  const dir = tempDir(t, 'tsdb-prometheus-');
  const config = join(dir, 'prometheus.yml');
  const promStartedMs = Date.now();
  // Remote read only for selectors with job="tsdb" (required_matchers): everything Prometheus
  // scraped is answered from its own storage, so that it can be compared with what tsdb stored.
  const { peer: prom, port: promPort, url: promUrl } = await startListeningPeer(t, 'prometheus', prometheusBin, (port) => {
    writeFileSync(
      config,
      `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: prometheus
    static_configs:
      - targets: ['127.0.0.1:${port}']
remote_write:
  - url: ${tsdb.baseUrl}/v1/prometheus/write
    queue_config:
      batch_send_deadline: 1s
      min_backoff: 100ms
      max_backoff: 1s
remote_read:
  - url: ${tsdb.baseUrl}/v1/prometheus/read
    read_recent: true
    required_matchers:
      job: tsdb
`,
    );
    return [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // On shutdown, do not keep trying to send to a tsdb that is already stopped.
      '--storage.remote.flush-deadline=1s',
    ];
  }, '/-/ready');
  const describe = () => describePrometheus(prom, promUrl, tsdb);

  // Series to compare: `up`, a counter among the several series of its table, a gauge.
  const compared = [
    { table: 'up', where: `job = 'prometheus'`, selector: 'up{job="prometheus"}' },
    { table: 'prometheus_http_requests_total', where: `handler = '/metrics'`, selector: 'prometheus_http_requests_total{handler="/metrics"}' },
    { table: 'prometheus_tsdb_head_series', where: `job = 'prometheus'`, selector: 'prometheus_tsdb_head_series{job="prometheus"}' },
  ];
  // Wait until tsdb holds at least 4 scrapes of each.
  const timestamps = new Map<string, number[]>();
  await waitFor('tsdb to hold 4 samples of each of up, prometheus_http_requests_total{handler="/metrics"}, prometheus_tsdb_head_series', async () => {
    prom.assertRunning();
    for (const c of compared) {
      const { rows } = await tsdbSql(tsdb.baseUrl, `SELECT DISTINCT tsdb_timestamp FROM ${c.table} WHERE ${c.where} ORDER BY tsdb_timestamp`);
      if (rows.length < 4) throw new Error(`${c.table} {${c.where}}: ${rows.length} distinct timestamps in tsdb so far`);
      timestamps.set(c.table, rows.map((r) => Number(r[0])));
    }
    return true;
  }, { timeoutMs: FIRST_DATA_TIMEOUT_MS, describe });
  t.diagnostic(`Prometheus ready and 4 scrapes of each compared series in tsdb after ${Date.now() - promStartedMs} ms`);
  let comparedSamples = 0;

  // At several instants tsdb holds a sample for, Prometheus' raw samples and tsdb's rows agree:
  // labels (→ columns), millisecond timestamps, float values (exactly).
  for (const c of compared) {
    const ts = timestamps.get(c.table)!;
    for (const endMs of [ts[1]!, ts[Math.floor(ts.length / 2)]!, ts.at(-1)!]) {
      const both = await bothSides(tsdb, promUrl, c.table, c.where, c.selector, endMs);
      assert.ok(both.tsdb.some((s) => s.timestampMs === endMs), `${c.selector} at ${endMs}: tsdb lost the sample it had: ${JSON.stringify(both.tsdb)}`);
      assert.deepEqual(both.tsdb, both.prometheus, `${c.selector} in (${endMs - 2000}, ${endMs}]: tsdb (actual) vs Prometheus (expected)`);
      comparedSamples += both.tsdb.length;
      for (const s of both.prometheus) {
        assert.equal(s.labels['job'], 'prometheus', JSON.stringify(s));
        assert.equal(s.labels['instance'], `127.0.0.1:${promPort}`, JSON.stringify(s));
      }
    }
    // And Prometheus' instant query at the newest of these instants answers tsdb's value there.
    const newest = ts.at(-1)!;
    const instant = await promQuery(promUrl, 'query', { query: c.selector, time: String(newest / 1000) });
    const atNewest = samplesOfRows(await tsdbSql(tsdb.baseUrl, `SELECT * FROM ${c.table} WHERE ${c.where} AND tsdb_timestamp = ${newest}`));
    assert.deepEqual(
      sortSamples((instant.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map(({ metric: { __name__: _n, ...labels }, value }) => ({ labels: sortedLabels(labels), timestampMs: newest, value: promValue(value[1]) }))),
      sortSamples(atNewest),
      `${c.selector} at ${newest}: Prometheus instant query vs tsdb rows`,
    );
  }
  t.diagnostic(`${comparedSamples} samples compared`);
  const httpRequests = timestamps.get('prometheus_http_requests_total')!;
  const counter = await bothSides(tsdb, promUrl, 'prometheus_http_requests_total', `handler = '/metrics'`, 'prometheus_http_requests_total{handler="/metrics"}', httpRequests.at(-1)!);
  assert.ok(counter.tsdb.every((s) => s.labels['code'] === '200' && s.value > 0), JSON.stringify(counter.tsdb));

  // Remote read: a series Prometheus never scraped, written into tsdb with SQL in the remote-write
  // shape, comes back through Prometheus' query API with its exact timestamps and values.
  await tsdbSql(tsdb.baseUrl, 'CREATE TABLE only_in_tsdb (tsdb_timestamp TIMESTAMP(3) TIME INDEX, tsdb_value DOUBLE, job STRING PRIMARY KEY)');
  const firstMs = Math.floor(Date.now() / 1000) * 1000 - 40_000;
  const values = [0.1, -1234.5625, 1.7976931348623157e308, 2.5e-300];
  const times = values.map((_, i) => firstMs + i * 10_000);
  const rows = values.flatMap((v, i) => [`(${times[i]}, ${v}, 'tsdb')`, `(${times[i]}, ${i + 1000}, 'other')`]);
  await tsdbSql(tsdb.baseUrl, `INSERT INTO only_in_tsdb (tsdb_timestamp, tsdb_value, job) VALUES ${rows.join(', ')}`);
  const expected = values.map((value, i) => ({ labels: { job: 'tsdb' }, timestampMs: times[i]!, value }));
  assert.deepEqual(sortSamples(samplesOfRows(await tsdbSql(tsdb.baseUrl, `SELECT * FROM only_in_tsdb WHERE job = 'tsdb'`))), expected, 'tsdb stored the inserted rows');

  assert.deepEqual(await promRawSamples(promUrl, 'only_in_tsdb{job="tsdb"}[1m]', times.at(-1)!), expected, 'raw samples through Prometheus remote read');
  for (const i of [0, values.length - 1]) {
    const value = values[i]!;
    const instant = await promQuery(promUrl, 'query', { query: 'only_in_tsdb{job="tsdb"}', time: String(times[i]! / 1000) });
    const result = instant.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
    assert.deepEqual(result.map((r) => [r.metric, r.value[0], promValue(r.value[1])]), [[{ __name__: 'only_in_tsdb', job: 'tsdb' }, times[i]! / 1000, value]], `instant query at ${times[i]}`);
  }
  const range = await promQuery(promUrl, 'query_range', { query: 'only_in_tsdb{job="tsdb"}', start: String(firstMs / 1000), end: String(times.at(-1)! / 1000), step: '10' });
  assert.equal(range.resultType, 'matrix');
  assert.deepEqual(
    (range.result as PromMatrixSeries[]).map((s) => ({ metric: s.metric, values: s.values.map(([ts, v]) => [Math.round(ts * 1000), promValue(v)]) })),
    [{ metric: { __name__: 'only_in_tsdb', job: 'tsdb' }, values: values.map((v, i) => [times[i], v]) }],
    'query_range through Prometheus remote read',
  );
  // Selectors without job="tsdb" are not sent to tsdb (required_matchers); a metric tsdb lacks is empty.
  assert.deepEqual((await promQuery(promUrl, 'query', { query: 'only_in_tsdb{job="other"}', time: String(times[0]! / 1000) })).result, []);
  assert.deepEqual((await promQuery(promUrl, 'query', { query: 'not_in_tsdb{job="tsdb"}', time: String(times[0]! / 1000) })).result, []);

  // Prometheus gave up on no sample and no metadata (a 4xx from tsdb would count there).
  const promMetrics = await getText(`${promUrl}/metrics`);
  for (const name of ['prometheus_remote_storage_samples_failed_total', 'prometheus_remote_storage_metadata_failed_total']) {
    assert.equal(sumOf(promMetrics, name), 0, `${name}\n${await describe()}`);
  }
  assert.ok(sumOf(promMetrics, 'prometheus_remote_storage_samples_total') > 0, metricLines(promMetrics, ['prometheus_remote_storage_samples']));
  prom.assertRunning();
});

// ---------------------------------------------------------------------------------------------
// vmagent

/** What the scrape target serves: gauges with labels (one the test changes), counters, an escaped label. */
function exposition(kitchen: number): string {
  return `# HELP peers_room_temperature_celsius Temperature by room.
# TYPE peers_room_temperature_celsius gauge
peers_room_temperature_celsius{room="kitchen",floor="0"} ${kitchen}
peers_room_temperature_celsius{room="attic",floor="2"} -3.25
# HELP peers_jobs_processed_total Jobs processed.
# TYPE peers_jobs_processed_total counter
peers_jobs_processed_total{queue="default"} 12345678901
peers_jobs_processed_total{queue="urgent"} 7
# HELP peers_build_info Build information.
# TYPE peers_build_info gauge
peers_build_info{version="1.2.3",note="say \\"hi\\" \\\\ bye"} 1
`;
}
const SERVED_SAMPLES = 5;

test('vmagent: scrapes a target, remote-writes (snappy, Prometheus protocol) into tsdb the exact values with job/instance labels', { timeout: 120_000 }, async (t) => {
  const vmagentBin = requireBinary('vmagent', 'victoria-metrics');
  const tsdb = await startStandalone(t);
  const dir = tempDir(t, 'tsdb-vmagent-');

  let kitchen = 21.5;
  let scrapes = 0;
  const target = await serveHttp(t, (req, _body, res) => {
    scrapes++;
    res.writeHead(req.url === '/metrics' ? 200 : 404, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(req.url === '/metrics' ? exposition(kitchen) : '');
  });
  // A second remote-write URL that only records what vmagent sends (tsdb gets the same requests).
  const sent: Array<{ method: string; url: string; headers: Record<string, string | string[] | undefined>; bytes: number }> = [];
  const recorder = await serveHttp(t, (req, body, res) => {
    sent.push({ method: req.method!, url: req.url!, headers: req.headers, bytes: body.length });
    res.writeHead(204).end();
  });

  const config = join(dir, 'scrape.yml');
  writeFileSync(
    config,
    `global:
  scrape_interval: 1s
scrape_configs:
  - job_name: peers-target
    static_configs:
      - targets: ['127.0.0.1:${target.port}']
        labels:
          env: ci
`,
  );
  const { peer: vmagent, url: vmUrl } = await startListeningPeer(t, 'vmagent', vmagentBin, (port) => [
    `-promscrape.config=${config}`,
    `-remoteWrite.url=${tsdb.baseUrl}/v1/prometheus/write`,
    `-remoteWrite.url=${recorder.url}/api/v1/write`,
    `-remoteWrite.tmpDataPath=${join(dir, 'remote-write')}`,
    '-remoteWrite.flushInterval=1s',
    '-remoteWrite.showURL',
    `-httpListenAddr=127.0.0.1:${port}`,
  ], '/health', { cwd: dir });
  const describe = async () => {
    const parts = [vmagent.describe(), tsdbProblems(tsdb), `target served ${scrapes} scrapes; recorder got ${sent.length} requests`];
    try {
      parts.push(`vmagent targets: ${await getText(`${vmUrl}/api/v1/targets`)}`);
      parts.push(`vmagent remote write metrics:\n${metricLines(await getText(`${vmUrl}/metrics`), ['vmagent_remotewrite_requests_total', 'vmagent_remotewrite_packets_dropped_total', 'vmagent_remotewrite_retries_count_total'])}`);
    } catch (err) {
      parts.push(`(vmagent HTTP not answering: ${String(err)})`);
    }
    return parts.join('\n');
  };

  const instance = `127.0.0.1:${target.port}`;
  const common = { env: 'ci', instance, job: 'peers-target' };
  const expected: Record<string, Array<{ labels: Record<string, string>; value: number }>> = {
    peers_room_temperature_celsius: [
      { labels: { ...common, floor: '0', room: 'kitchen' }, value: 21.5 },
      { labels: { ...common, floor: '2', room: 'attic' }, value: -3.25 },
    ],
    peers_jobs_processed_total: [
      { labels: { ...common, queue: 'default' }, value: 12345678901 },
      { labels: { ...common, queue: 'urgent' }, value: 7 },
    ],
    peers_build_info: [{ labels: { ...common, note: 'say "hi" \\ bye', version: '1.2.3' }, value: 1 }],
    // Series vmagent adds for each scrape.
    up: [{ labels: common, value: 1 }],
    scrape_samples_scraped: [{ labels: common, value: SERVED_SAMPLES }],
  };
  /** Distinct (labels, value) of a table's rows, and how many timestamps each series has. */
  const contents = async (table: string) => {
    const samples = samplesOfRows(await tsdbSql(tsdb.baseUrl, `SELECT * FROM ${table} ORDER BY tsdb_timestamp`));
    const distinct = new Map<string, { labels: Record<string, string>; value: number }>();
    const perSeries = new Map<string, Set<number>>();
    for (const s of samples) {
      distinct.set(JSON.stringify([s.labels, s.value]), { labels: { ...s.labels }, value: s.value });
      const key = JSON.stringify(s.labels);
      if (!perSeries.has(key)) perSeries.set(key, new Set());
      perSeries.get(key)!.add(s.timestampMs);
    }
    const order = (x: { labels: Record<string, string> }) => JSON.stringify(x.labels);
    return { samples, distinct: [...distinct.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : a.value - b.value)), perSeries };
  };
  const sortExpected = (xs: Array<{ labels: Record<string, string>; value: number }>) =>
    xs.map((x) => ({ labels: sortedLabels(x.labels), value: x.value })).sort((a, b) => (JSON.stringify(a.labels) < JSON.stringify(b.labels) ? -1 : 1));

  const startedMs = Date.now();
  await waitFor('tsdb to hold 2 scrapes of every series the target serves (and vmagent\'s up, scrape_samples_scraped)', async () => {
    vmagent.assertRunning();
    for (const [table, series] of Object.entries(expected)) {
      const { perSeries } = await contents(table);
      const counts = [...perSeries.values()].map((s) => s.size);
      if (perSeries.size < series.length || counts.some((n) => n < 2)) throw new Error(`${table}: timestamps per series so far ${JSON.stringify([...perSeries].map(([k, v]) => [k, v.size]))}`);
    }
    return true;
  }, { timeoutMs: FIRST_DATA_TIMEOUT_MS, describe });
  t.diagnostic(`2 scrapes of every series in tsdb after ${Date.now() - startedMs} ms`);

  for (const [table, series] of Object.entries(expected)) {
    const { samples, distinct } = await contents(table);
    assert.deepEqual(distinct, sortExpected(series), `${table}: the distinct (labels, value) of tsdb's rows`);
    for (const s of samples) assert.ok(s.timestampMs >= startedMs - 5_000 && s.timestampMs <= Date.now() + 5_000, `${table}: timestamp ${s.timestampMs} is not a scrape time of this test: ${JSON.stringify(s)}`);
  }

  // The value the target serves changes: tsdb gets the new one, and every sample after the first
  // new one is new (samples are ordered by scrape time, whatever order the requests came in).
  kitchen = 22.75;
  await waitFor('tsdb to hold the kitchen temperature the target serves now (22.75)', async () => {
    vmagent.assertRunning();
    const { rows } = await tsdbSql(tsdb.baseUrl, `SELECT count(*) FROM peers_room_temperature_celsius WHERE room = 'kitchen' AND tsdb_value = 22.75`);
    return Number(rows[0]![0]) >= 2 || undefined;
  }, { timeoutMs: 30_000, describe });
  const kitchenValues = samplesOfRows(await tsdbSql(tsdb.baseUrl, `SELECT * FROM peers_room_temperature_celsius WHERE room = 'kitchen' ORDER BY tsdb_timestamp`)).map((s) => s.value);
  const firstNew = kitchenValues.indexOf(22.75);
  assert.ok(firstNew > 0, JSON.stringify(kitchenValues));
  assert.deepEqual(kitchenValues, [...Array<number>(firstNew).fill(21.5), ...Array<number>(kitchenValues.length - firstNew).fill(22.75)], 'kitchen values in scrape order');

  // What vmagent sends: the Prometheus remote-write protocol v1, snappy-compressed (1.79 has no
  // VictoriaMetrics-protocol/zstd mode to switch off).
  await waitFor('the recorder to get a remote-write request', async () => sent.length > 0 || undefined, { timeoutMs: 20_000, describe });
  for (const r of sent) {
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/api/v1/write');
    assert.equal(r.headers['content-encoding'], 'snappy', JSON.stringify(r.headers));
    assert.equal(r.headers['content-type'], 'application/x-protobuf', JSON.stringify(r.headers));
    assert.equal(r.headers['x-prometheus-remote-write-version'], '0.1.0', JSON.stringify(r.headers));
    assert.ok(r.bytes > 0);
  }
  // tsdb accepted every request vmagent sent it.
  const vmMetrics = await getText(`${vmUrl}/metrics`);
  const toTsdb = vmMetrics.split('\n').filter((l) => l.startsWith('vmagent_remotewrite_requests_total{') && l.includes(tsdb.http));
  assert.ok(toTsdb.length > 0, `no vmagent_remotewrite_requests_total for tsdb:\n${metricLines(vmMetrics, ['vmagent_remotewrite_requests_total'])}`);
  for (const l of toTsdb) assert.match(l, /status_code="2(XX|\d\d)"/, `vmagent got a non-2xx answer from tsdb: ${l}\n${await describe()}`);
  vmagent.assertRunning();
});
