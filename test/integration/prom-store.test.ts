/**
 * Prometheus remote write and read on a real standalone server, with requests built by the
 * codec (`src/servers/prometheus`): tables per metric (logical metric-engine tables by default,
 * plain tables with `with_metric_engine = false`), the database labels, the four matcher types,
 * errors, the switch and authentication. Real Prometheus and vmagent: `prometheus-peers.test.ts`.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { encodeReadRequest, decodeReadResponse, type ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { tempDir, tempFile } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';

const series = (labels: Record<string, string>, samples: Array<[number, number]>): ReadSeries => ({
  labels: Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => ({ name, value })),
  samples: samples.map(([timestampMs, value]) => ({ timestampMs, value })),
});

const WRITTEN = [
  series({ __name__: 'http_requests_total', job: 'api', instance: 'a:1', code: '200' }, [[1000, 1], [2000, 2], [3000, 3]]),
  series({ __name__: 'http_requests_total', job: 'api', instance: 'b:1', code: '500' }, [[1000, 10], [2000, 20]]),
  series({ __name__: 'http_requests_total', job: 'db', instance: 'c:1' }, [[1500, 100]]),
  series({ __name__: 'up', job: 'api', instance: 'a:1' }, [[1000, 1], [2000, 0]]),
];

async function post(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0', ...headers }, body });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

const sql = (baseUrl: string, statement: string, db = 'public') => sqlRows(baseUrl, statement, { db });

async function start(t: TestContext, args: string[] = []) {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
}

/** Series as comparable text, in a stable order. */
function sortSeries(s: ReadSeries[]): string[] {
  return s.map((x) => JSON.stringify([x.labels.map((l) => [l.name, l.value]), x.samples.map((p) => [p.timestampMs, p.value])])).sort();
}

test('remote write: a logical metric table per metric on tsdb_physical_table; remote read answers what was written', async (t) => {
  const { baseUrl } = await start(t);
  const w = await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest(WRITTEN));
  assert.equal(w.status, 204, w.body.toString());
  const tables = (await sql(baseUrl, 'SHOW TABLES')).map((r) => r[0]);
  assert.ok(['http_requests_total', 'tsdb_physical_table', 'up'].every((n) => tables.includes(n)), String(tables));
  assert.deepEqual((await sql(baseUrl, 'DESC TABLE http_requests_total')).map((r) => [r[0], r[1], r[5]]), [
    ['tsdb_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
    ['tsdb_value', 'Float64', 'FIELD'],
    ['code', 'String', 'TAG'],
    ['instance', 'String', 'TAG'],
    ['job', 'String', 'TAG'],
  ]);
  assert.match(String((await sql(baseUrl, 'SHOW CREATE TABLE up'))[0]![1]), /ENGINE=metric\nWITH\(\n {2}comment = 'Created on insertion',\n {2}on_physical_table = 'tsdb_physical_table'\n\)/);
  assert.deepEqual(await sql(baseUrl, 'SELECT * FROM http_requests_total ORDER BY instance, tsdb_timestamp'), [
    [1000, 1, '200', 'a:1', 'api'],
    [2000, 2, '200', 'a:1', 'api'],
    [3000, 3, '200', 'a:1', 'api'],
    [1000, 10, '500', 'b:1', 'api'],
    [2000, 20, '500', 'b:1', 'api'],
    [1500, 100, null, 'c:1', 'db'],
  ]);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM tsdb_physical_table'), [[8]]);

  const read = async (matchers: Array<{ type: 'EQ' | 'NEQ' | 'RE' | 'NRE'; name: string; value: string }>, startMs = 0, endMs = 10_000) => {
    const r = await post(`${baseUrl}/v1/prometheus/read`, encodeReadRequest([{ startMs, endMs, matchers }]));
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(r.headers.get('content-encoding'), 'snappy');
    return decodeReadResponse(r.body)[0]!;
  };
  assert.deepEqual(sortSeries(await read([{ type: 'EQ', name: '__name__', value: 'http_requests_total' }])), sortSeries(WRITTEN.slice(0, 3)));
  assert.deepEqual(sortSeries(await read([{ type: 'RE', name: '__name__', value: '.+' }, { type: 'EQ', name: 'instance', value: 'a:1' }])), sortSeries([WRITTEN[0]!, WRITTEN[3]!]));
  assert.deepEqual(sortSeries(await read([{ type: 'EQ', name: '__name__', value: 'http_requests_total' }, { type: 'NEQ', name: 'job', value: 'api' }])), sortSeries([WRITTEN[2]!]));
  assert.deepEqual(sortSeries(await read([{ type: 'EQ', name: '__name__', value: 'http_requests_total' }, { type: 'NRE', name: 'code', value: '5..' }])), sortSeries([WRITTEN[0]!, WRITTEN[2]!]));
  // code="" matches the series without the label.
  assert.deepEqual(sortSeries(await read([{ type: 'EQ', name: '__name__', value: 'http_requests_total' }, { type: 'EQ', name: 'code', value: '' }])), sortSeries([WRITTEN[2]!]));
  // The time range is inclusive.
  assert.deepEqual(sortSeries(await read([{ type: 'EQ', name: '__name__', value: 'up' }], 2000, 2000)), sortSeries([series({ __name__: 'up', instance: 'a:1', job: 'api' }, [[2000, 0]])]));
  assert.deepEqual(await read([{ type: 'EQ', name: '__name__', value: 'nope' }]), []);
  assert.deepEqual(await read([{ type: 'EQ', name: '__name__', value: 'up' }, { type: 'EQ', name: 'missing_label', value: 'x' }]), []);
  const badRegex = await post(`${baseUrl}/v1/prometheus/read`, encodeReadRequest([{ startMs: 0, endMs: 1, matchers: [{ type: 'RE', name: 'job', value: '(' }] }]));
  assert.equal(badRegex.status, 400);

  // Rewriting a sample replaces it; a new label becomes a column of the logical and physical tables.
  assert.equal((await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest([series({ __name__: 'up', job: 'api', instance: 'a:1' }, [[2000, 5]]), series({ __name__: 'up', job: 'api', instance: 'a:1', zone: 'z1' }, [[4000, 1]])]))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT tsdb_timestamp, tsdb_value, zone FROM up ORDER BY tsdb_timestamp'), [[1000, 1, null], [2000, 5, null], [4000, 1, 'z1']]);
  assert.ok((await sql(baseUrl, 'DESC TABLE tsdb_physical_table')).some((r) => r[0] === 'zone'));
});

test('remote write: the db parameter and database labels, plain tables without the metric engine, errors', async (t) => {
  const { baseUrl } = await start(t, ['-c', tempFile(t, 'tsdb.toml', '[prom_store]\nwith_metric_engine = false\n')]);
  await sql(baseUrl, 'CREATE DATABASE other');
  const body = encodeWriteRequest([series({ __name__: 'm1', host: 'h' }, [[1, 1]]), series({ __name__: 'm2', host: 'h', __database__: 'other' }, [[1, 2]])]);
  assert.equal((await post(`${baseUrl}/v1/prometheus/write?db=public`, body)).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT host, tsdb_value FROM m1'), [['h', 1]]);
  assert.deepEqual(await sql(baseUrl, 'SELECT host, tsdb_value FROM m2', 'other'), [['h', 2]]);
  assert.match(String((await sql(baseUrl, 'SHOW CREATE TABLE m1'))[0]![1]), /ENGINE=mito/);
  assert.ok(!(await sql(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'tsdb_physical_table'));

  const missingDb = await post(`${baseUrl}/v1/prometheus/write?db=nope`, body);
  assert.equal(missingDb.status, 400);
  assert.deepEqual(JSON.parse(missingDb.body.toString()), { error: 'Database not found: nope' });
  const notSnappy = await post(`${baseUrl}/v1/prometheus/write`, Buffer.from('not snappy at all'));
  assert.equal(notSnappy.status, 400);
  const noName = await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest([series({ job: 'x' }, [[1, 1]])]));
  assert.equal(noName.status, 400);
  assert.match(noName.body.toString(), /__name__/);
  const v2 = await post(`${baseUrl}/v1/prometheus/write`, body, { 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request' });
  assert.equal(v2.status, 415);
  const zstd = await post(`${baseUrl}/v1/prometheus/write`, body, { 'content-encoding': 'zstd' });
  assert.equal(zstd.status, 415);
});

test('prom_store.enable = false answers 404; with a user provider remote write and read need credentials', async (t) => {
  const off = await start(t, ['-c', tempFile(t, 'off.toml', '[prom_store]\nenable = false\n')]);
  assert.equal((await post(`${off.baseUrl}/v1/prometheus/write`, encodeWriteRequest(WRITTEN))).status, 404);
  assert.equal((await post(`${off.baseUrl}/v1/prometheus/read`, encodeReadRequest([]))).status, 404);

  const { baseUrl } = await start(t, ['--user-provider', 'static_user_provider:cmd:p=pw']);
  assert.equal((await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest(WRITTEN))).status, 401);
  const auth = { authorization: `Basic ${Buffer.from('p:pw').toString('base64')}` };
  assert.equal((await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest(WRITTEN), auth)).status, 204);
  assert.equal((await post(`${baseUrl}/v1/prometheus/read`, encodeReadRequest([]))).status, 401);
  assert.equal((await post(`${baseUrl}/v1/prometheus/read`, encodeReadRequest([{ startMs: 0, endMs: 5000, matchers: [{ type: 'EQ', name: '__name__', value: 'up' }] }]), auth)).status, 200);
});
