/**
 * Prometheus remote write and read on a real standalone server, with requests built by the
 * codec (`src/servers/prometheus`): tables per metric (logical metric-engine tables by default,
 * plain tables with `with_metric_engine = false`), the database labels, the four matcher types,
 * errors, the switch and authentication. Real Prometheus and vmagent: `prometheus-peers.test.ts`.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { encodeReadRequest, decodeReadResponse, type ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { WriteRequestType } from '../../src/servers/prometheus/prompb.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { snappyCompress } from '../../src/servers/prometheus/snappy-block.js';
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

/** A WriteRequest with int64 timestamps given exactly (beyond ±2^53, which `encodeWriteRequest` refuses). */
function exactWriteRequest(series: ReadonlyArray<{ labels: Record<string, string>; samples: Array<[bigint, number]> }>): Buffer {
  const timeseries = series.map((s) => ({
    labels: Object.entries(s.labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => ({ name, value })),
    samples: s.samples.map(([ts, value]) => ({ value, timestamp: { low: Number(BigInt.asIntN(32, ts)), high: Number(BigInt.asIntN(32, ts >> 32n)) } })),
  }));
  return snappyCompress(WriteRequestType.encode({ timeseries }).finish());
}

const NS_RANGE = 'TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';

test('remote write: samples past the range of the time index refuse the whole request with 400 (into a nanosecond table, and past the millisecond range); the edges are written and read back exactly', async (t) => {
  const { baseUrl } = await start(t);
  const write = (body: Buffer) => post(`${baseUrl}/v1/prometheus/write`, body);
  await sql(baseUrl, 'CREATE TABLE ns_metric (tsdb_timestamp TIMESTAMP(9) TIME INDEX, tsdb_value DOUBLE, job STRING PRIMARY KEY)');
  // 9223372036855 ms is 2262-04-11T23:47:16.855: a nanosecond int64 would have wrapped it to 1677.
  const refused = await write(exactWriteRequest([
    { labels: { __name__: 'other_metric', job: 'a' }, samples: [[1000n, 1]] },
    { labels: { __name__: 'ns_metric', job: 'a' }, samples: [[9223372036854n, 2], [9223372036855n, 3]] },
  ]));
  assert.equal(refused.status, 400);
  assert.deepEqual(JSON.parse(refused.body.toString()), { error: `Invalid request to table tsdb.public.ns_metric, reason: Timestamp 9223372036855000000 (2262-04-11T23:47:16.855000000Z) is out of range for column tsdb_timestamp (${NS_RANGE}` });
  const early = await write(exactWriteRequest([{ labels: { __name__: 'ns_metric', job: 'a' }, samples: [[-9223286400001n, 4]] }]));
  assert.equal(early.status, 400);
  assert.match(JSON.parse(early.body.toString()).error, /Timestamp -9223286400001000000 \(1677-09-21T23:59:59\.999000000Z\) is out of range for column tsdb_timestamp/);
  // Past the millisecond range itself (any table): refused by the decoder.
  const far = await write(exactWriteRequest([{ labels: { __name__: 'other_metric', job: 'a' }, samples: [[1000n, 1], [9223372036854776n, 2]] }]));
  assert.equal(far.status, 400);
  assert.deepEqual(JSON.parse(far.body.toString()), {
    error: 'invalid WriteRequest: a sample of metric other_metric: Timestamp 9223372036854776 (+294247-01-10T04:00:54.776Z) is out of range for column tsdb_timestamp (TimestampMillisecond): it must be between -290308-12-22T00:00:00Z and +294247-01-10T04:00:54.775Z',
  });
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM ns_metric'), [[0]]);
  assert.ok(!(await sql(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'other_metric'));

  // The edges: of the nanosecond table, and of a millisecond one.
  const ok = await write(exactWriteRequest([
    { labels: { __name__: 'ns_metric', job: 'a' }, samples: [[9223372036854n, 2], [-9223286400000n, 5]] },
    { labels: { __name__: 'other_metric', job: 'a' }, samples: [[9223372036854775n, 6], [-9223372022400000n, 7]] },
  ]));
  assert.equal(ok.status, 204, ok.body.toString());
  assert.deepEqual(await sql(baseUrl, 'SELECT tsdb_value, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR), CAST(tsdb_timestamp AS VARCHAR) FROM ns_metric ORDER BY tsdb_timestamp'), [
    [5, '-9223286400000000000', '1677-09-22 00:00:00'],
    [2, '9223372036854000000', '2262-04-11 23:47:16.854'],
  ]);
  assert.deepEqual(await sql(baseUrl, 'SELECT tsdb_value, CAST(epoch_ms(tsdb_timestamp) AS VARCHAR) FROM other_metric ORDER BY tsdb_value'), [
    [6, '9223372036854775'],
    [7, '-9223372022400000'],
  ]);
});

test('remote write to several databases: a part that is refused leaves every part unwritten', async (t) => {
  const { baseUrl } = await start(t, ['-c', tempFile(t, 'tsdb.toml', '[prom_store]\nwith_metric_engine = false\n')]);
  await sql(baseUrl, 'CREATE DATABASE other');
  await sql(baseUrl, 'CREATE TABLE ns_metric (tsdb_timestamp TIMESTAMP(9) TIME INDEX, tsdb_value DOUBLE, job STRING PRIMARY KEY)', 'other');
  const body = exactWriteRequest([
    { labels: { __name__: 'first', job: 'a' }, samples: [[1000n, 1]] },
    { labels: { __name__: 'ns_metric', job: 'a', __database__: 'other' }, samples: [[9999999999999n, 2]] },
  ]);
  const w = await post(`${baseUrl}/v1/prometheus/write`, body);
  assert.equal(w.status, 400);
  assert.match(JSON.parse(w.body.toString()).error, /^Invalid request to table tsdb\.other\.ns_metric, reason: Timestamp 9999999999999000000 \(2286-11-20T17:46:39\.999000000Z\) is out of range/);
  assert.ok(!(await sql(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'first'));
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM ns_metric', 'other'), [[0]]);
});

test('remote write: a metric with more labels than a table may have columns is refused with 400', async (t) => {
  const { baseUrl } = await start(t);
  const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${String(i).padStart(5, '0')}`, 'v']));
  const w = await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest([series({ __name__: 'ok_metric' }, [[1, 1]]), series({ __name__: 'wide', ...labels(10_000) }, [[1, 1]])]));
  assert.equal(w.status, 400);
  assert.deepEqual(JSON.parse(w.body.toString()), { error: 'invalid WriteRequest: too many labels for metric wide: at most 4094 (a table has at most 4096 columns, tsdb_timestamp and tsdb_value included)' });
  assert.ok(!(await sql(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'ok_metric'));
  assert.equal((await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest([series({ __name__: 'wide', ...labels(4094) }, [[1, 1]])]))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*), min(l04093) FROM wide'), [[1, 'v']]);
});

test('remote write and read: a body that decompresses to more than http.body_limit is refused with 400', async (t) => {
  const { baseUrl } = await start(t, ['-c', tempFile(t, 'tsdb.toml', '[http]\nbody_limit = "4KB"\n')]);
  // About 300 bytes of snappy that stand for about 20 KB.
  const big = encodeWriteRequest([series({ __name__: 'big', text: 'x'.repeat(20_000) }, [[1, 1]])]);
  assert.ok(big.length < 4096, String(big.length));
  const w = await post(`${baseUrl}/v1/prometheus/write`, big);
  assert.equal(w.status, 400);
  assert.match(JSON.parse(w.body.toString()).error, /^The decompressed request body is larger than http\.body_limit \(4096 bytes\): the snappy-compressed WriteRequest holds 200\d\d$/);
  const r = await post(`${baseUrl}/v1/prometheus/read`, encodeReadRequest([{ startMs: 0, endMs: 1, matchers: [{ type: 'EQ', name: '__name__', value: 'x'.repeat(20_000) }] }]));
  assert.equal(r.status, 400);
  assert.match(JSON.parse(r.body.toString()).error, /^The decompressed request body is larger than http\.body_limit \(4096 bytes\): the snappy-compressed ReadRequest holds 200\d\d$/);
  assert.equal((await post(`${baseUrl}/v1/prometheus/write`, encodeWriteRequest([series({ __name__: 'small', job: 'a' }, [[1, 1]])]))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM small'), [[1]]);
});
