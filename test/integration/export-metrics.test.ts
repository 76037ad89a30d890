/**
 * `[export_metrics]` end to end, with real receivers on 127.0.0.1: Debian's Prometheus 2.42
 * (`--web.enable-remote-write-receiver`) behind a proxy this test runs, which checks a Basic
 * `Authorization` header before forwarding, and VictoriaMetrics. tsdb exports every second; what
 * arrives is queried back from the receiver (`process_resident_memory_bytes` with tsdb's `job` and
 * `instance` labels). Also: a refused credential is logged without the secret; a receiver that
 * never answers does not slow tsdb's queries or its shutdown; `self_import` writes into tsdb itself,
 * read back with SQL and PromQL; a missing self_import database stops the start with a clear error;
 * in a cluster the frontend self-imports and a datanode remote-writes to it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestCluster } from '../support/cluster.js';
import { getText, requireBinary, serveHttp, startListeningPeer, startPrometheus, tsdbSql, waitFor } from '../support/peers.js';
import { tempDir, tempFile } from '../support/temp.js';
import { runTsdb, startTsdb, type Started } from '../support/tsdb-process.js';

/** How long the first export may take to show up at a receiver, on a loaded 2-core machine. */
const ARRIVAL_TIMEOUT_MS = 40_000;

function exportConfig(lines: string): string {
  return `[export_metrics]\nenable = true\nwrite_interval = "1s"\n${lines}`;
}

async function startStandalone(t: TestContext, config: string): Promise<Started> {
  const file = tempFile(t, 'tsdb.toml', config);
  return startTsdb(t, ['standalone', 'start', '-c', file, '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-export-')]);
}

/** tsdb's warnings and errors, for failure messages. */
function problems(tsdb: Started): string {
  const bad = tsdb.proc.lines.filter((l) => l.level !== 'info' && l.level !== 'debug');
  return `tsdb warnings/errors:\n${bad.slice(-20).map((l) => JSON.stringify(l)).join('\n')}\n${tsdb.proc.stderr.slice(-4000)}`;
}

interface VectorSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

/** An instant query of a Prometheus-compatible API (`base` ends before `/query`); the vector it answers. */
async function instantQuery(base: string, query: string): Promise<VectorSample[]> {
  const body = JSON.parse(await getText(`${base}/query?${new URLSearchParams({ query })}`)) as { status: string; data: { resultType: string; result: VectorSample[] } };
  assert.equal(body.status, 'success');
  assert.equal(body.data.resultType, 'vector');
  return body.data.result;
}

/** Waits until `query` answers at least one sample; returns them. */
function arrived(what: string, base: string, query: string, describe: () => string): Promise<VectorSample[]> {
  return waitFor(what, async () => {
    const r = await instantQuery(base, query);
    return r.length > 0 ? r : undefined;
  }, { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe });
}

const GOOD_CREDENTIAL = Buffer.from('exporter:pr0m-s3cret').toString('base64');
const WRONG_CREDENTIAL = Buffer.from('exporter:wr0ng-pw').toString('base64');

/**
 * The receiver side of the test: checks `Authorization: Basic <GOOD_CREDENTIAL>`, then forwards the
 * request (body and remote-write headers) to `target`; answers 401 (echoing what it got, so that a
 * leak into tsdb's log would show) otherwise.
 */
async function authProxy(t: TestContext, target: string): Promise<{ url: string; accepted: () => number; refused: () => number; headers: () => Record<string, string | string[] | undefined>[] }> {
  let accepted = 0;
  let refused = 0;
  const seen: Record<string, string | string[] | undefined>[] = [];
  const srv = await serveHttp(t, (req, body, res) => {
    seen.push(req.headers);
    if (req.headers['authorization'] !== `Basic ${GOOD_CREDENTIAL}`) {
      refused++;
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unauthorized: ${String(req.headers['authorization'])}`);
      return;
    }
    accepted++;
    const forward = httpRequest(`${target}/api/v1/write`, {
      method: 'POST',
      headers: {
        'content-type': req.headers['content-type'] ?? '',
        'content-encoding': req.headers['content-encoding'] ?? '',
        'x-prometheus-remote-write-version': req.headers['x-prometheus-remote-write-version'] ?? '',
      },
    }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => res.writeHead(up.statusCode ?? 502).end(Buffer.concat(chunks)));
    });
    forward.on('error', (err) => res.writeHead(502).end(err.message));
    forward.end(body);
  });
  return { url: `${srv.url}/api/v1/write`, accepted: () => accepted, refused: () => refused, headers: () => seen };
}

test('a standalone exports its metrics to Prometheus 2.42 through a receiver checking Basic auth; a wrong credential is refused and logged without the secret', async (t) => {
  const prom = await startPrometheus(t, tempDir(t, 'tsdb-export-prom-'));
  const proxy = await authProxy(t, prom.url);
  const tsdb = await startStandalone(t, exportConfig(`[export_metrics.remote_write]\nurl = "${proxy.url}"\nheaders = { Authorization = "Basic ${GOOD_CREDENTIAL}" }\n`));
  const describe = () => `${problems(tsdb)}\n${prom.peer.describe()}`;

  const rss = await arrived('process_resident_memory_bytes from tsdb in Prometheus', `${prom.url}/api/v1`, `process_resident_memory_bytes{job="tsdb-standalone",instance="${tsdb.http}"}`, describe);
  assert.equal(rss.length, 1);
  assert.ok(Number(rss[0]!.value[1]) > 10 * 1024 * 1024, `resident memory ${rss[0]!.value[1]} bytes`);
  // The samples are fresh: stamped at export time, within the last few seconds.
  assert.ok(Math.abs(rss[0]!.value[0] * 1000 - Date.now()) < 30_000);
  const h = proxy.headers()[0]!;
  assert.equal(h['content-encoding'], 'snappy');
  assert.equal(h['content-type'], 'application/x-protobuf');
  assert.equal(h['x-prometheus-remote-write-version'], '0.1.0');
  assert.equal(proxy.refused(), 0);
  // Exports keep coming, one per interval.
  const before = proxy.accepted();
  await waitFor('the next export', async () => (proxy.accepted() >= before + 1 ? true : undefined), { timeoutMs: 15_000, intervalMs: 200, describe });
  // Counters arrive too (prom-client's process CPU counter), with the identity labels.
  const cpu = await instantQuery(`${prom.url}/api/v1`, `process_cpu_seconds_total{job="tsdb-standalone"}`);
  assert.equal(cpu.length, 1);
  assert.equal(cpu[0]!.metric['instance'], tsdb.http);

  // The same receiver refuses a second server with the wrong credential: logged, secret cut out.
  const wrong = await startStandalone(t, exportConfig(`[export_metrics.remote_write]\nurl = "${proxy.url}?tenant=x"\nheaders = { Authorization = "Basic ${WRONG_CREDENTIAL}" }\n`));
  const line = await wrong.proc.waitForLog((l) => /export_metrics: exporting to .* failed/.test(l.msg), ARRIVAL_TIMEOUT_MS);
  assert.equal(line.level, 'error');
  assert.match(line.msg, /answered 401/);
  assert.match(line.msg, new RegExp(`exporting to http://127\\.0\\.0\\.1:\\d+/api/v1/write failed`), 'the URL is logged without its query');
  assert.ok(proxy.refused() >= 1);
  // Retried at the next tick, but not logged again every second.
  const refusedBefore = proxy.refused();
  await waitFor('the retry at the next tick', async () => (proxy.refused() >= refusedBefore + 1 ? true : undefined), { timeoutMs: 15_000, intervalMs: 200, describe });
  const all = wrong.proc.lines.map((l) => JSON.stringify(l)).join('\n') + wrong.proc.stderr;
  assert.ok(!all.includes(WRONG_CREDENTIAL), 'the credential never appears in the log');
  assert.ok(!all.includes('wr0ng-pw'));
  assert.equal(wrong.proc.lines.filter((l) => /export_metrics: exporting to .* failed/.test(l.msg)).length, 1);
  // Its metrics never reached Prometheus.
  assert.deepEqual(await instantQuery(`${prom.url}/api/v1`, `process_resident_memory_bytes{instance="${wrong.http}"}`), []);
});

test('a metasrv and a standalone export to VictoriaMetrics', async (t) => {
  const bin = requireBinary('victoria-metrics', 'victoria-metrics');
  const dir = tempDir(t, 'tsdb-export-vm-');
  const vm = await startListeningPeer(t, 'victoria-metrics', bin, (port) => [
    `-storageDataPath=${join(dir, 'storage')}`, `-httpListenAddr=127.0.0.1:${port}`, '-search.latencyOffset=0s', '-search.disableCache', '-loggerLevel=WARN',
  ], '/health', { cwd: dir });
  const url = `${vm.url}/api/v1/write`;
  const metaFile = tempFile(t, 'metasrv.toml', exportConfig(`[export_metrics.remote_write]\nurl = "${url}"\n`));
  const metasrv = await startTsdb(t, ['metasrv', 'start', '-c', metaFile, '--bind-addr', '127.0.0.1:0', '--http-addr', '127.0.0.1:0', '--use-memory-store'], { env: { TSDB_METASRV__DATA_HOME: tempDir(t, 'tsdb-export-meta-') } });
  const standalone = await startStandalone(t, exportConfig(`[export_metrics.remote_write]\nurl = "${url}"\n`));
  const describe = () => `${problems(metasrv)}\n${problems(standalone)}\n${vm.peer.describe()}`;
  const query = async (q: string) => {
    await getText(`${vm.url}/internal/force_flush`);
    const r = await instantQuery(`${vm.url}/api/v1`, q);
    return r.length > 0 ? r : undefined;
  };
  const meta = await waitFor('the metasrv\'s metrics in VictoriaMetrics', () => query(`process_resident_memory_bytes{job="tsdb-metasrv",instance="${metasrv.http}"}`), { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe });
  assert.ok(Number(meta[0]!.value[1]) > 10 * 1024 * 1024);
  const sa = await waitFor('the standalone\'s metrics in VictoriaMetrics', () => query(`process_resident_memory_bytes{job="tsdb-standalone",instance="${standalone.http}"}`), { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe });
  assert.ok(Number(sa[0]!.value[1]) > 10 * 1024 * 1024);
  // Several exports: the sample count of a series grows with time.
  const count = async () => Number((await query(`count_over_time(process_resident_memory_bytes{job="tsdb-metasrv"}[5m])`))?.[0]?.value[1] ?? 0);
  const first = await count();
  await waitFor('more metasrv exports', async () => ((await count()) > first ? true : undefined), { timeoutMs: 15_000, intervalMs: 500, describe });
});

/** A TCP server that accepts connections and never answers: a receiver that hangs. */
async function blackhole(t: TestContext): Promise<string> {
  const sockets = new Set<Socket>();
  const srv: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    srv.close(() => resolve());
  }));
  const addr = srv.address() as { port: number };
  return `http://127.0.0.1:${addr.port}/api/v1/write`;
}

test('a receiver that never answers does not slow queries, and tsdb still stops promptly', async (t) => {
  const url = await blackhole(t);
  const tsdb = await startStandalone(t, exportConfig(`[export_metrics.remote_write]\nurl = "${url}"\n`));
  await tsdbSql(tsdb.baseUrl, 'CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE)');
  await tsdbSql(tsdb.baseUrl, 'INSERT INTO t VALUES (1, 1.5)');
  // Queries while exports hang (each gives up after 800 ms, 4/5 of the interval).
  const latencies: number[] = [];
  const until = Date.now() + 4_000;
  while (Date.now() < until) {
    const started = performance.now();
    const r = await tsdbSql(tsdb.baseUrl, 'SELECT count(*), sum(v) FROM t');
    latencies.push(performance.now() - started);
    assert.deepEqual(r.rows, [[1, 1.5]]);
    await sleep(50);
  }
  const line = await tsdb.proc.waitForLog((l) => /export_metrics: exporting to .* failed/.test(l.msg), 10_000);
  assert.match(line.msg, /no answer within 800 ms/);
  latencies.sort((a, b) => a - b);
  const p50 = latencies[Math.floor(latencies.length / 2)]!;
  const max = latencies[latencies.length - 1]!;
  assert.ok(latencies.length >= 20, `${latencies.length} queries in 4 s`);
  // No query waits for an export: one that did would take up to 800 ms, and with an export hanging
  // 800 ms of every second most queries would. A loaded machine may slow a few, not most.
  const slow = latencies.filter((ms) => ms > 400).length;
  const summary = `median ${p50.toFixed(1)} ms, slowest ${max.toFixed(1)} ms, ${slow} of ${latencies.length} over 400 ms while the receiver hangs`;
  assert.ok(p50 < 200, summary);
  assert.ok(slow <= latencies.length / 10, summary);
  const stopping = Date.now();
  const exit = await tsdb.proc.stop('SIGTERM');
  assert.equal(exit.code, 0, problems(tsdb));
  assert.ok(Date.now() - stopping < 5_000, `stopped in ${Date.now() - stopping} ms`);
});

interface PromApiAnswer {
  readonly status: string;
  readonly data: { readonly resultType: string; readonly result: VectorSample[] };
}

test('self_import (default database): the metrics go into tsdb_metrics, read back with SQL and PromQL (authentication on)', async (t) => {
  const file = tempFile(t, 'tsdb.toml', exportConfig(''));
  const tsdb = await startTsdb(t, ['standalone', 'start', '-c', file, '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-export-'), '--user-provider', 'static_user_provider:cmd:admin=s3cret']);
  await tsdb.proc.waitForLog((l) => /created database tsdb_metrics/.test(l.msg));
  const auth = { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` };
  const sql = async (statement: string) => {
    const res = await fetch(`${tsdb.baseUrl}/v1/sql?db=tsdb_metrics`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth }, body: new URLSearchParams({ sql: statement }).toString() });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${statement}: ${res.status} ${text}`);
    return (JSON.parse(text) as { output: Array<{ records: { rows: unknown[][] } }> }).output[0]!.records.rows;
  };
  const rows = await waitFor('process_resident_memory_bytes in tsdb_metrics', async () => {
    const r = await sql(`SELECT job, instance, tsdb_value, tsdb_timestamp FROM process_resident_memory_bytes ORDER BY tsdb_timestamp`);
    return r.length >= 2 ? r : undefined;
  }, { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe: () => problems(tsdb) });
  const anonymous = await fetch(`${tsdb.baseUrl}/v1/sql?db=tsdb_metrics`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'sql=SELECT+1' });
  assert.equal(anonymous.status, 401, 'authentication is on; the export writes in process, as the server');
  assert.equal(rows[0]![0], 'tsdb-standalone');
  assert.equal(rows[0]![1], tsdb.http);
  assert.ok(Number(rows[0]![2]) > 10 * 1024 * 1024);
  assert.ok(Number(rows[1]![3]) > Number(rows[0]![3]), 'one sample per export');
  // The metric engine's logical tables, like any remote write.
  const tables = await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'tsdb_metrics' AND table_name IN ('process_resident_memory_bytes', 'tsdb_physical_table') ORDER BY table_name`);
  assert.deepEqual(tables, [['process_resident_memory_bytes'], ['tsdb_physical_table']]);

  const res = await fetch(`${tsdb.baseUrl}/v1/prometheus/api/v1/query?${new URLSearchParams({ db: 'tsdb_metrics', query: 'process_resident_memory_bytes{job="tsdb-standalone"}' })}`, { headers: auth });
  const body = (await res.json()) as PromApiAnswer;
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.data.result.length, 1);
  assert.equal(body.data.result[0]!.metric['instance'], tsdb.http);
  assert.ok(Number(body.data.result[0]!.value[1]) > 10 * 1024 * 1024);
  const rate = await fetch(`${tsdb.baseUrl}/v1/prometheus/api/v1/query?${new URLSearchParams({ db: 'tsdb_metrics', query: 'sum(rate(process_cpu_seconds_total[1m])) >= 0' })}`, { headers: auth });
  const rateBody = (await rate.json()) as PromApiAnswer;
  assert.equal(rateBody.data.result.length, 1, JSON.stringify(rateBody));
  assert.equal(tsdb.proc.lines.filter((l) => /export_metrics: exporting to .* failed/.test(l.msg)).length, 0, problems(tsdb));
});

test('self_import into a database that does not exist: the start fails with a clear error', async (t) => {
  const file = tempFile(t, 'tsdb.toml', exportConfig('[export_metrics.self_import]\ndb = "no_such_db"\n'));
  const r = await runTsdb(['standalone', 'start', '-c', file, '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-export-')], { timeoutMs: 30_000 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /export_metrics\.self_import\.db: database "no_such_db" does not exist; create it first \(CREATE DATABASE no_such_db\)/);
});

test('self_import into a named database that exists', async (t) => {
  const home = tempDir(t, 'tsdb-export-');
  const file = tempFile(t, 'tsdb.toml', exportConfig('[export_metrics.self_import]\ndb = "ops"\n'));
  // First without export, to create the database; then with it.
  const plain = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', home]);
  await tsdbSql(plain.baseUrl, 'CREATE DATABASE ops');
  assert.equal((await plain.proc.stop('SIGTERM')).code, 0);
  const tsdb = await startTsdb(t, ['standalone', 'start', '-c', file, '--http-addr', '127.0.0.1:0', '--data-home', home]);
  await waitFor('process_cpu_seconds_total in ops', async () => {
    const res = await fetch(`${tsdb.baseUrl}/v1/prometheus/api/v1/query?${new URLSearchParams({ db: 'ops', query: 'process_cpu_seconds_total' })}`);
    const body = (await res.json()) as PromApiAnswer;
    return body.data?.result?.length === 1 ? true : undefined;
  }, { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe: () => problems(tsdb) });
});

test('a cluster: the frontend self-imports, a datanode remote-writes to the frontend, both read back with SQL', async (t) => {
  let frontendUrl = '';
  const datanodeConfig = (home: string) => {
    const file = join(home, 'export.toml');
    writeFileSync(file, exportConfig(`[export_metrics.remote_write]\nurl = "${frontendUrl}/v1/prometheus/write?db=tsdb_metrics"\n`));
    return file;
  };
  const feFile = tempFile(t, 'fe.toml', exportConfig(''));
  const cluster = new TestCluster(t, { datanodeArgs: (id, home) => (id === 2 ? ['-c', datanodeConfig(home)] : []), frontendArgs: ['-c', feFile] });
  await cluster.startMetasrv();
  await cluster.startDatanode(1);
  const fe = await cluster.startFrontend();
  frontendUrl = fe.baseUrl;
  await fe.proc.waitForLog((l) => /created database tsdb_metrics/.test(l.msg));
  const dn = await cluster.startDatanode(2);
  const describe = () => `${problems(fe)}\n${problems(dn)}`;
  const jobs = await waitFor('the frontend\'s and the datanode\'s metrics in tsdb_metrics', async () => {
    const { status, body } = await cluster.sql('SELECT job, count(*) FROM process_resident_memory_bytes GROUP BY job ORDER BY job', 0, 'tsdb_metrics');
    if (status !== 200) return undefined;
    const rows = body.output[0]?.records?.rows ?? [];
    return rows.length === 2 ? rows : undefined;
  }, { timeoutMs: ARRIVAL_TIMEOUT_MS, intervalMs: 500, describe });
  assert.deepEqual(jobs.map((r) => r[0]), ['tsdb-datanode', 'tsdb-frontend']);
  const { body } = await cluster.sql(`SELECT DISTINCT instance FROM process_resident_memory_bytes WHERE job = 'tsdb-datanode'`, 0, 'tsdb_metrics');
  assert.deepEqual(body.output[0]?.records?.rows, [[dn.http]]);
});
