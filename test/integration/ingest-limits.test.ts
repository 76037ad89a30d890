/**
 * The cell budget of ingestion requests (`src/servers/ingest-budget.ts`) on a real standalone
 * server: the "wide and long" bodies that ran the server out of memory — one point with 4,000 tags
 * or labels, then 200,000 points of the same table without them — are refused quickly with 400 in
 * each protocol (InfluxDB line protocol, Prometheus remote write, OpenTSDB), the server's memory
 * stays bounded, nothing of them is written, and the server goes on answering health checks,
 * writes and queries. Ordinary large requests still ingest: a line-protocol body of TSBS cpu lines
 * near the default 64 MiB body limit, and a remote write as Prometheus sends it (many metrics,
 * about 20 labels, a sample per series).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { tempDir } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';

const WIDTH = 4000;
const ROWS = 200_000;
const PROM_HEADERS = { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' };

/** One line with 4,000 tags, then 200,000 short lines of the same measurement (2.8 MB). */
function wideLineProtocol(measurement: string): string {
  const tags = Array.from({ length: WIDTH }, (_, i) => `t${i}=v`).join(',');
  const lines = [`${measurement},${tags} f=1 0`];
  for (let i = 1; i <= ROWS; i++) lines.push(`${measurement} f=1 ${i}`);
  return lines.join('\n');
}

/** One series with 4,000 labels and a sample, then one of the same metric with 200,000 samples. */
function wideRemoteWrite(metric: string): Buffer {
  const labels = [{ name: '__name__', value: metric }, ...Array.from({ length: WIDTH }, (_, i) => ({ name: `l${String(i).padStart(4, '0')}`, value: 'v' }))];
  const samples = Array.from({ length: ROWS }, (_, i) => ({ timestampMs: 1_700_000_000_000 + i, value: i }));
  return encodeWriteRequest([
    { labels, samples: [{ timestampMs: 1_700_000_000_000, value: 1 }] },
    { labels: [{ name: '__name__', value: metric }], samples },
  ]);
}

/** One point with 4,000 tags, then 200,000 points of the same metric without tags (12 MB of JSON). */
function wideOpenTsdb(metric: string): string {
  const tags = Object.fromEntries(Array.from({ length: WIDTH }, (_, i) => [`t${i}`, 'v']));
  const points: object[] = [{ metric, timestamp: 1_700_000_000, value: 1, tags }];
  for (let i = 1; i <= ROWS; i++) points.push({ metric, timestamp: 1_700_000_000 + i, value: i, tags: {} });
  return JSON.stringify(points);
}

/** The peak resident memory of a process so far, in MiB (Linux). */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) / 1024;
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text, ms: performance.now() - started };
}

const BUDGET_MESSAGE = /the request decodes to more than \d+ values \(rows × columns of each table, NULLs included\), the limit for a body of \d+ bytes \(4 per byte, at least 1048576, at most 33554432\); split it into smaller requests/;

test('wide-and-long bodies of every ingestion protocol are refused quickly with 400; memory stays bounded; the server keeps writing and answering', async (t) => {
  const { baseUrl, proc } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);

  const lp = await post(`${baseUrl}/v1/influxdb/write?db=public`, wideLineProtocol('wide_lp'));
  assert.equal(lp.status, 400, lp.body);
  assert.match(JSON.parse(lp.body).error, new RegExp(`^Failed to parse InfluxDB line protocol, line \\d+: ${BUDGET_MESSAGE.source}`));

  const prom = await post(`${baseUrl}/v1/prometheus/write?db=public`, wideRemoteWrite('wide_prom'), PROM_HEADERS);
  assert.equal(prom.status, 400, prom.body);
  assert.match(JSON.parse(prom.body).error, new RegExp(`^invalid WriteRequest: ${BUDGET_MESSAGE.source}`));

  const tsdb = await post(`${baseUrl}/v1/opentsdb/api/put`, wideOpenTsdb('wide_tsdb'), { 'content-type': 'application/json' });
  assert.equal(tsdb.status, 400, tsdb.body);
  assert.match(JSON.parse(tsdb.body).error, new RegExp(`^OpenTSDB put refused: ${BUDGET_MESSAGE.source}`));

  // Before the budget: the line protocol took 8 s and 4 GB to fail with 500, remote write and
  // OpenTSDB crashed the server after 16 s and 24 s at 4 GB. Now each is refused while decoded.
  for (const [name, answer] of [['line protocol', lp], ['remote write', prom], ['OpenTSDB', tsdb]] as const) {
    assert.ok(answer.ms < 5000, `${name}: refused after ${Math.round(answer.ms)} ms`);
  }
  assert.ok(proc.running);
  const peak = peakRssMiB(proc.pid);
  assert.ok(peak < 1024, `peak RSS ${Math.round(peak)} MiB`);

  // Nothing of them was written; the server answers, writes and reads.
  assert.equal((await fetch(`${baseUrl}/health`)).status, 200);
  const tables = (await sqlRows(baseUrl, 'SHOW TABLES')).map((r) => r[0]);
  for (const name of ['wide_lp', 'wide_prom', 'wide_tsdb']) assert.ok(!tables.includes(name), `${name} in ${String(tables)}`);
  assert.equal((await post(`${baseUrl}/v1/influxdb/write?db=public&precision=ms`, 'after_lp,host=a v=1 1700000000000')).status, 204);
  const series: ReadSeries[] = [{ labels: [{ name: '__name__', value: 'after_prom' }, { name: 'job', value: 'x' }], samples: [{ timestampMs: 1_700_000_000_000, value: 2 }] }];
  assert.equal((await post(`${baseUrl}/v1/prometheus/write?db=public`, encodeWriteRequest(series), PROM_HEADERS)).status, 204);
  assert.equal((await post(`${baseUrl}/v1/opentsdb/api/put`, JSON.stringify({ metric: 'after_tsdb', timestamp: 1_700_000_000, value: 3, tags: { host: 'a' } }))).status, 204);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, v FROM after_lp'), [['a', 1]]);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT job, tsdb_value FROM after_prom'), [['x', 2]]);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, tsdb_value FROM after_tsdb'), [['a', 3]]);
});

test('ordinary large requests are within the budget: TSBS cpu lines near the 64 MiB body limit, a remote write as Prometheus sends it', async (t) => {
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);

  // TSBS cpu-only: 10 tags and 10 fields a line, 1,000 hosts every 10 s, up to 60 MiB.
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 60 * 1024 * 1024; i++) {
    const h = i % 1000;
    const line =
      `cpu,hostname=host_${h},region=eu-west-1,datacenter=eu-west-1a,rack=${h % 100},os=Ubuntu16.10,arch=x64,team=SF,service=${h % 20},service_version=1,service_environment=production ` +
      `usage_user=${i % 100}.5,usage_system=2.25,usage_idle=${h}.75,usage_nice=1,usage_iowait=0.5,usage_irq=0.25,usage_softirq=3,usage_steal=0,usage_guest=0,usage_guest_nice=0 ` +
      `${1_451_606_400_000_000_000n + BigInt(Math.floor(i / 1000)) * 10_000_000_000n}`;
    lines.push(line);
    size += line.length + 1;
  }
  const tsbs = await post(`${baseUrl}/v1/influxdb/write?db=public`, lines.join('\n'));
  assert.equal(tsbs.status, 204, tsbs.body);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*), count(DISTINCT hostname) FROM cpu'), [[lines.length, 1000]]);

  // 20,000 series of 300 metrics with 20 labels each besides __name__, a sample each.
  const series: ReadSeries[] = [];
  for (let i = 0; i < 20_000; i++) {
    const labels = [{ name: '__name__', value: `metric_${i % 300}` }, { name: 'instance', value: `host-${i % 500}:9100` }];
    for (let l = 0; l < 19; l++) labels.push({ name: `label_${String(l).padStart(2, '0')}`, value: `value_${l}_${i % 37}` });
    labels.sort((a, b) => (a.name < b.name ? -1 : 1));
    series.push({ labels, samples: [{ timestampMs: 1_700_000_000_000 + i, value: i }] });
  }
  const prom = await post(`${baseUrl}/v1/prometheus/write?db=public`, encodeWriteRequest(series), PROM_HEADERS);
  assert.equal(prom.status, 204, prom.body);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM metric_7'), [[67]]);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM tsdb_physical_table'), [[20_000]]);
});
