/**
 * The Prometheus HTTP API (`/v1/prometheus/api/v1`) and `/v1/promql` on a real standalone server,
 * with data written by Prometheus remote write: every endpoint by GET and POST, time formats,
 * match[] sets, limits, the database, Prometheus's errors (status and envelope), authentication,
 * stale markers, and requests built to be expensive (huge match[] lists, regex bombs) answered
 * quickly and never with a 5xx.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { greptimeClients } from '../../src/servers/grpc/protos.js';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { staleNaN } from '../../src/promql/values.js';
import { tempDir } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';
import { startCluster } from '../support/cluster.js';

const API = '/v1/prometheus/api/v1';

const series = (labels: Record<string, string>, samples: Array<[number, number]>): ReadSeries => ({
  labels: Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => ({ name, value })),
  samples: samples.map(([timestampMs, value]) => ({ timestampMs, value })),
});

/** Samples every 15 s from 0 to 300 s; `gone` ends with a stale marker at 60 s. */
const WRITTEN = [
  series({ __name__: 'http_requests_total', job: 'api', instance: 'a:1', code: '200' }, Array.from({ length: 21 }, (_, i) => [i * 15_000, i] as [number, number])),
  series({ __name__: 'http_requests_total', job: 'api', instance: 'b:1', code: '500' }, Array.from({ length: 21 }, (_, i) => [i * 15_000, 10 * i] as [number, number])),
  series({ __name__: 'http_requests_total', job: 'db', instance: 'c:1' }, [[0, 100]]),
  series({ __name__: 'up', job: 'api', instance: 'a:1' }, [[0, 1], [15_000, 1]]),
  // The stale marker as an object field: a JavaScript array of doubles ([t, v]) would canonicalize its NaN.
  {
    labels: [{ name: '__name__', value: 'gone' }, { name: 'job', value: 'api' }],
    samples: [{ timestampMs: 0, value: 1 }, { timestampMs: 15_000, value: 2 }, { timestampMs: 30_000, value: 3 }, { timestampMs: 60_000, value: staleNaN() }],
  },
];

interface Answer {
  readonly status: number;
  readonly body: { status: string; data?: unknown; errorType?: string; error?: string; warnings?: string[] };
  readonly type: string;
}

async function call(baseUrl: string, path: string, params: Array<[string, string]> = [], opts: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {}): Promise<Answer> {
  const search = new URLSearchParams(params).toString();
  const init: RequestInit =
    opts.method === 'POST'
      ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers }, body: search }
      : { method: 'GET', ...(opts.headers !== undefined && { headers: opts.headers }) };
  const res = await fetch(`${baseUrl}${API}${path}${opts.method === 'POST' || search === '' ? '' : `?${search}`}`, init);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Answer['body'], type: res.headers.get('content-type') ?? '' };
}

async function start(t: TestContext, args: string[] = [], headers: Record<string, string> = {}) {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  const w = await fetch(`${s.baseUrl}/v1/prometheus/write`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', ...headers }, body: encodeWriteRequest(WRITTEN) });
  assert.equal(w.status, 204, await w.text());
  return s;
}

const ok = (a: Answer) => {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.status, 'success');
  assert.match(a.type, /^application\/json/);
  return a.body.data;
};

const refused = (a: Answer, status: number, errorType: string, error: string | RegExp) => {
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.equal(a.body.status, 'error');
  assert.equal(a.body.errorType, errorType);
  if (typeof error === 'string') assert.equal(a.body.error, error);
  else assert.match(a.body.error!, error);
};

test('metadata endpoints: labels, label values, series — GET and POST, match[] sets, time range, limit, db', async (t) => {
  const { baseUrl } = await start(t);
  for (const method of ['GET', 'POST'] as const) {
    const c = (path: string, params: Array<[string, string]> = [], headers?: Record<string, string>) => call(baseUrl, path, params, { method, ...(headers !== undefined && { headers }) });
    assert.deepEqual(ok(await c('/labels')), ['__name__', 'code', 'instance', 'job']);
    assert.deepEqual(ok(await c('/labels', [['match[]', 'up']])), ['__name__', 'instance', 'job']);
    assert.deepEqual(ok(await c('/labels', [['match[]', 'up'], ['match[]', '{__name__="http_requests_total",job="db"}']])), ['__name__', 'instance', 'job']);
    assert.deepEqual(ok(await c('/label/__name__/values')), ['gone', 'http_requests_total', 'up']);
    assert.deepEqual(ok(await c('/label/job/values')), ['api', 'db']);
    assert.deepEqual(ok(await c('/label/job/values', [['match[]', 'up']])), ['api']);
    assert.deepEqual(ok(await c('/label/code/values', [['limit', '1']])), ['200']);
    assert.deepEqual(ok(await c('/label/nope/values')), []);
    assert.deepEqual(ok(await c('/series', [['match[]', 'http_requests_total{code=~"2..|"}']])), [
      { __name__: 'http_requests_total', code: '200', instance: 'a:1', job: 'api' },
      { __name__: 'http_requests_total', instance: 'c:1', job: 'db' },
    ]);
    assert.deepEqual(ok(await c('/series', [['match[]', 'up'], ['match[]', '{job="db"}'], ['match[]', 'up']])), [
      { __name__: 'http_requests_total', instance: 'c:1', job: 'db' },
      { __name__: 'up', instance: 'a:1', job: 'api' },
    ]);
    assert.equal((ok(await c('/series', [['match[]', '{job=~".+"}'], ['limit', '2']])) as unknown[]).length, 2);
    // Series existing in the range: c:1 has one sample at 0 s; up ends at 15 s.
    assert.deepEqual(ok(await c('/series', [['match[]', '{job=~".+"}'], ['start', '16'], ['end', '1970-01-01T00:05:00Z']])), [
      { __name__: 'gone', job: 'api' },
      { __name__: 'http_requests_total', code: '200', instance: 'a:1', job: 'api' },
      { __name__: 'http_requests_total', code: '500', instance: 'b:1', job: 'api' },
    ]);
    assert.deepEqual(ok(await c('/labels', [['start', '1970-01-01T00:00:16+00:00'], ['end', '1000']])), ['__name__', 'code', 'instance', 'job']);
    assert.deepEqual(ok(await c('/labels', [['start', '-292273086-05-16T16:47:06Z'], ['end', '292277025-08-18T07:12:54.999999999Z']])), ['__name__', 'code', 'instance', 'job']);
    // The database: db beats the header; one that does not exist answers empty data.
    assert.deepEqual(ok(await c('/labels', [['db', 'nope']])), []);
    assert.deepEqual(ok(await c('/labels', [], { 'x-tsdb-db-name': 'nope' })), []);
    assert.deepEqual(ok(await c('/labels', [['db', 'public']], { 'x-tsdb-db-name': 'nope' })), ['__name__', 'code', 'instance', 'job']);
    assert.deepEqual(ok(await c('/series', [['match[]', 'up'], ['db', 'other-public']])), []);
    assert.deepEqual(ok(await c('/metadata')), {});
    // Errors.
    refused(await c('/series'), 400, 'bad_data', 'no match[] parameter provided');
    refused(await c('/series', [['match[]', '{job=~".*"}']]), 400, 'bad_data', 'invalid parameter "match[]": match[] must contain at least one non-empty matcher');
    refused(await c('/labels', [['match[]', '{job=""}']]), 400, 'bad_data', 'match[] must contain at least one non-empty matcher');
    refused(await c('/series', [['match[]', 'up{']]), 400, 'bad_data', 'invalid parameter "match[]": 1:4: parse error: unexpected end of input inside braces');
    refused(await c('/series', [['match[]', 'rate(up[5m])']]), 400, 'bad_data', /^invalid parameter "match\[\]": /);
    refused(await c('/label/1x/values'), 400, 'bad_data', 'invalid label name: "1x"');
    refused(await c('/labels', [['start', 'yesterday']]), 400, 'bad_data', 'invalid parameter "start": Invalid time value for \'start\': cannot parse "yesterday" to a valid timestamp');
    // Past Prometheus's time range (the answer's time would not be a JSON number).
    refused(await c('/labels', [['start', '1e308']]), 400, 'bad_data', 'invalid parameter "start": Invalid time value for \'start\': cannot parse "1e308" to a valid timestamp');
    refused(await c('/labels', [['limit', 'x']]), 400, 'bad_data', /^invalid parameter "limit"/);
  }
  // The data answered matches what SQL sees.
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM http_requests_total'), [[43]]);
});

test('GreptimeDB\'s {__database__="db"} / {__schema__="db"} on a selector reads another database; their values are the databases', async (t) => {
  const { baseUrl } = await start(t);
  assert.deepEqual(await sqlRows(baseUrl, 'CREATE DATABASE metrics2'), []);
  const w = await fetch(`${baseUrl}/v1/prometheus/write?db=metrics2`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
    body: encodeWriteRequest([series({ __name__: 'up', job: 'other' }, [[0, 7]])]),
  });
  assert.equal(w.status, 204, await w.text());
  const vector = async (query: string) => {
    const data = ok(await call(baseUrl, '/query', [['query', query], ['time', '10']])) as { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    return data.result.map((r) => [r.metric, r.value[1]]);
  };
  assert.deepEqual(await vector('up'), [[{ __name__: 'up', job: 'api', instance: 'a:1' }, '1']]);
  assert.deepEqual(await vector('up{__database__="metrics2"}'), [[{ __name__: 'up', job: 'other' }, '7']]);
  assert.deepEqual(await vector('up{__schema__="metrics2"} + on() group_left up'), [[{ job: 'other' }, '8']]);
  assert.deepEqual(await vector('up{__database__="nope"}'), []);
  refused(await call(baseUrl, '/query', [['query', 'up{__database__=~"m.*"}']]), 400, 'bad_data', 'Matcher operator =~ is not supported for __database__');
  assert.deepEqual(ok(await call(baseUrl, '/series', [['match[]', '{__name__="up", __database__="metrics2"}']])), [{ __name__: 'up', job: 'other' }]);
  const dbs = ok(await call(baseUrl, '/label/__database__/values')) as string[];
  assert.ok(dbs.includes('metrics2') && dbs.includes('public'), JSON.stringify(dbs));
});

test('format_query, parse_query, status/buildinfo', async (t) => {
  const { baseUrl } = await start(t);
  assert.equal(ok(await call(baseUrl, '/format_query', [['query', 'sum by(job)(rate(foo{a="b"}[5m]))']])), 'sum by (job) (rate(foo{a="b"}[5m]))');
  assert.equal(ok(await call(baseUrl, '/format_query', [['query', 'foo/bar']], { method: 'POST' })), 'foo / bar');
  refused(await call(baseUrl, '/format_query', [['query', 'foo{']]), 400, 'bad_data', 'invalid parameter "query": 1:5: parse error: unexpected end of input inside braces');
  assert.equal((ok(await call(baseUrl, '/parse_query', [['query', 'up']])) as { type: string }).type, 'vectorSelector');
  const info = ok(await call(baseUrl, '/status/buildinfo')) as Record<string, string>;
  assert.equal(info['version'], '2.42.0');
  for (const k of ['revision', 'branch', 'buildUser', 'buildDate', 'goVersion']) assert.equal(typeof info[k], 'string', k);
});

test('query and query_range: vectors, matrices, scalars, strings; time formats; stale markers; errors', async (t) => {
  const { baseUrl } = await start(t);
  for (const method of ['GET', 'POST'] as const) {
    const c = (path: string, params: Array<[string, string]>) => call(baseUrl, path, params, { method });
    assert.deepEqual(ok(await c('/query', [['query', 'http_requests_total{job="api"}'], ['time', '30']])), {
      resultType: 'vector',
      result: [
        { metric: { __name__: 'http_requests_total', code: '200', instance: 'a:1', job: 'api' }, value: [30, '2'] },
        { metric: { __name__: 'http_requests_total', code: '500', instance: 'b:1', job: 'api' }, value: [30, '20'] },
      ],
    });
    // RFC 3339 and fractional seconds; the lookback is 5 minutes.
    assert.deepEqual(ok(await c('/query', [['query', 'up'], ['time', '1970-01-01T00:01:00.5Z']])), { resultType: 'vector', result: [{ metric: { __name__: 'up', instance: 'a:1', job: 'api' }, value: [60.5, '1'] }] });
    assert.deepEqual(ok(await c('/query', [['query', 'up'], ['time', '1000']])), { resultType: 'vector', result: [] });
    assert.deepEqual(ok(await c('/query', [['query', 'up'], ['time', '60'], ['lookback_delta', '30s']])), { resultType: 'vector', result: [] });
    assert.deepEqual(ok(await c('/query', [['query', '1 + 1'], ['time', '1.5']])), { resultType: 'scalar', result: [1.5, '2'] });
    assert.deepEqual(ok(await c('/query', [['query', '"hi"'], ['time', '2']])), { resultType: 'string', result: [2, 'hi'] });
    assert.deepEqual(ok(await c('/query', [['query', 'sum by (job) (http_requests_total)'], ['time', '0']])), {
      resultType: 'vector',
      result: [
        { metric: { job: 'api' }, value: [0, '0'] },
        { metric: { job: 'db' }, value: [0, '100'] },
      ].sort((a, b) => (a.metric.job < b.metric.job ? -1 : 1)),
    });
    assert.deepEqual(ok(await c('/query_range', [['query', 'http_requests_total{code="500"}'], ['start', '0'], ['end', '60'], ['step', '30s']])), {
      resultType: 'matrix',
      result: [{ metric: { __name__: 'http_requests_total', code: '500', instance: 'b:1', job: 'api' }, values: [[0, '0'], [30, '20'], [60, '40']] }],
    });
    // The stale marker at 60 s ends `gone` at once (not 5 minutes later).
    assert.deepEqual(ok(await c('/query_range', [['query', 'gone'], ['start', '30'], ['end', '90'], ['step', '15']])), {
      resultType: 'matrix',
      result: [{ metric: { __name__: 'gone', job: 'api' }, values: [[30, '3'], [45, '3']] }],
    });
    assert.deepEqual(ok(await c('/query_range', [['query', 'nope'], ['start', '0'], ['end', '60'], ['step', '15']])), { resultType: 'matrix', result: [] });
    assert.deepEqual(ok(await c('/query', [['query', 'up'], ['time', '15'], ['db', 'nope']])), { resultType: 'vector', result: [] });
    // Errors, in Prometheus's words and statuses.
    refused(await c('/query', [['query', 'up{'], ['time', '0']]), 400, 'bad_data', 'invalid parameter "query": 1:4: parse error: unexpected end of input inside braces');
    refused(await c('/query', [['query', 'up'], ['time', 'x']]), 400, 'bad_data', 'invalid parameter "time": Invalid time value for \'time\': cannot parse "x" to a valid timestamp');
    refused(await c('/query', [['query', 'up'], ['timeout', 'soon']]), 400, 'bad_data', 'invalid parameter "timeout": cannot parse "soon" to a valid duration');
    refused(await c('/query_range', [['query', 'up'], ['start', '10'], ['end', '0'], ['step', '1']]), 400, 'bad_data', 'invalid parameter "end": end timestamp must not be before start time');
    refused(await c('/query_range', [['query', 'up'], ['start', '0'], ['end', '10'], ['step', '0']]), 400, 'bad_data', 'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer');
    refused(await c('/query_range', [['query', 'up'], ['start', '0'], ['end', '10'], ['step', '-1s']]), 400, 'bad_data', /^invalid parameter "step": /);
    refused(await c('/query_range', [['query', 'up'], ['start', '0'], ['end', '11001'], ['step', '1']]), 400, 'bad_data', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)');
    assert.equal(ok(await c('/query_range', [['query', 'up'], ['start', '0'], ['end', '11000'], ['step', '1']])) !== undefined, true);
    refused(await c('/query_range', [['query', 'up'], ['end', '10'], ['step', '1']]), 400, 'bad_data', 'invalid parameter "start": cannot parse "" to a valid timestamp');
    refused(await c('/query_range', [['query', 'up{'], ['start', '0'], ['end', '10'], ['step', '1']]), 400, 'bad_data', '1:4: parse error: unexpected end of input inside braces');
    refused(await c('/query_range', [['query', '"a"'], ['start', '0'], ['end', '10'], ['step', '1']]), 400, 'bad_data', 'invalid expression type "string" for range query, must be Scalar or instant Vector');
  }
});

test('timeouts, huge match[] lists and regex bombs: quick answers, never a 5xx', async (t) => {
  const { baseUrl } = await start(t);
  // A regex RE2 answers in linear time, JavaScript's would not (refused by the parser or answered).
  const bomb = `{job=~"(a|aa)*c"}`;
  const t0 = Date.now();
  const a = await call(baseUrl, '/series', [['match[]', bomb]]);
  assert.ok(a.status === 200 || a.status === 400, JSON.stringify(a.body));
  const b = await call(baseUrl, '/query', [['query', `http_requests_total{instance=~"(x+x+)+y"}`], ['time', '0']]);
  assert.ok(b.status === 200 || b.status === 400, JSON.stringify(b.body));
  // 5,000 match[] sets in one form.
  const many: Array<[string, string]> = Array.from({ length: 5000 }, (_, i) => ['match[]', `{instance="h${i}"}`]);
  const c = await call(baseUrl, '/series', many, { method: 'POST' });
  assert.ok(c.status === 200 || c.status === 400, JSON.stringify(c.body).slice(0, 200));
  const d = await call(baseUrl, '/labels', many, { method: 'POST' });
  assert.ok(d.status === 200 || d.status === 400, JSON.stringify(d.body).slice(0, 200));
  assert.ok(Date.now() - t0 < 15_000, `took ${Date.now() - t0} ms`);
  // A query past its `timeout`: Prometheus's timeout error.
  refused(await call(baseUrl, '/query', [['query', 'vector(1)'], ['time', '1e308']]), 400, 'bad_data', /^invalid parameter "time": /);
  const slow = await call(baseUrl, '/query_range', [['query', 'sum(http_requests_total)'], ['start', '0'], ['end', '10000'], ['step', '1'], ['timeout', '0.000001']]);
  refused(slow, 503, 'timeout', /^query timed out in /);
  // The request's own deadline (x-tsdb-timeout, http.timeout) answers in the same envelope.
  const late = await call(baseUrl, '/query_range', [['query', 'sum(http_requests_total)'], ['start', '0'], ['end', '10000'], ['step', '1']], { headers: { 'x-tsdb-timeout': '1ms' } });
  refused(late, 503, 'timeout', /^query timed out in expression evaluation: Request timed out after 1ms/);
});

test('query.timeout bounds a query whose client sets no limit (HTTP with http.timeout off): an endless subquery stops', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env: { TSDB_STANDALONE__QUERY__TIMEOUT: '1s', TSDB_STANDALONE__HTTP__TIMEOUT: '0s' } });
  // 8.6 billion inner steps that hold no sample: only a deadline ends it.
  const t0 = Date.now();
  const a = await call(s.baseUrl, '/query', [['query', 'count_over_time((vector(1) > 2)[100d:1ms])'], ['time', '8640000']]);
  refused(a, 503, 'timeout', /^query timed out in expression evaluation/);
  assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
  // The server still answers.
  ok(await call(s.baseUrl, '/query', [['query', '1+1']]));
});

test('authentication: Basic credentials as the other /v1 routes; a wrong one is 401 in the envelope', async (t) => {
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const { baseUrl } = await start(t, ['--user-provider', 'static_user_provider:cmd:p=pw,w:writeonly=w'], basic('p', 'pw'));
  refused(await call(baseUrl, '/labels'), 401, 'unauthorized', /./);
  refused(await call(baseUrl, '/labels', [], { headers: basic('p', 'nope') }), 401, 'unauthorized', /./);
  refused(await call(baseUrl, '/labels', [], { headers: basic('w', 'w') }), 403, 'forbidden', /./);
  refused(await call(baseUrl, '/query', [['query', 'up']], { headers: basic('w', 'w') }), 403, 'forbidden', /./);
  assert.deepEqual(ok(await call(baseUrl, '/label/job/values', [], { headers: basic('p', 'pw') })), ['api', 'db']);
  assert.deepEqual(ok(await call(baseUrl, '/label/job/values', [['db', 'nope']], { headers: basic('p', 'pw') })), []);
});

test('/v1/promql: a range query as a table in the /v1/sql formats', async (t) => {
  const { baseUrl } = await start(t);
  const get = async (params: Record<string, string>) => {
    const res = await fetch(`${baseUrl}/v1/promql?${new URLSearchParams(params).toString()}`);
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
  };
  const csv = await get({ query: '1', start: '0', end: '10', step: '5s', format: 'csv' });
  assert.equal(csv.status, 200, csv.text);
  assert.equal(csv.text.replace(/\r/g, ''), '0,1\n5000,1\n10000,1\n');
  const v1 = await get({ query: 'http_requests_total{code="500"}', start: '0', end: '30', step: '15' });
  assert.equal(v1.status, 200, v1.text);
  const body = JSON.parse(v1.text) as { output: Array<{ records: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] } }> };
  const records = body.output[0]!.records;
  assert.deepEqual(records.schema.column_schemas.map((c) => [c.name, c.data_type]), [['ts', 'TimestampMillisecond'], ['value', 'Float64'], ['code', 'String'], ['instance', 'String'], ['job', 'String']]);
  assert.deepEqual(records.rows, [[0, 0, '500', 'b:1', 'api'], [15000, 10, '500', 'b:1', 'api'], [30000, 20, '500', 'b:1', 'api']]);
  const bad = await get({ query: 'up', start: '0', end: '10' });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.text, /step parameter is required/);
  const badQuery = await get({ query: 'up{', start: '0', end: '10', step: '1' });
  assert.equal(badQuery.status, 400, badQuery.text);
});

test('gRPC PrometheusGateway: instant and range queries answer the Prometheus JSON; errors in the body; authentication', async (t) => {
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const s = await start(t, ['--user-provider', 'static_user_provider:cmd:p=pw'], basic('p', 'pw'));
  const { PrometheusGateway } = greptimeClients();
  const client = new PrometheusGateway(s.grpc!, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, Function>;
  t.after(() => client.close());
  const auth = { authorization: { basic: { username: 'p', password: 'pw' } } };
  const handle = (req: object) =>
    new Promise<{ ok: true; body: unknown; status: number } | { ok: false; code: number; details: string }>((resolve) => {
      client['Handle']!(req, (err: grpc.ServiceError | null, res: { header: { status: { status_code: number } }; body: Buffer }) => {
        if (err) resolve({ ok: false, code: err.code, details: err.details });
        else resolve({ ok: true, body: JSON.parse(res.body.toString('utf8')), status: res.header.status.status_code });
      });
    });
  assert.deepEqual(await handle({ header: auth, instant_query: { query: 'up', time: '15' } }), {
    ok: true,
    status: 0,
    body: { status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'up', instance: 'a:1', job: 'api' }, value: [15, '1'] }] } },
  });
  assert.deepEqual(await handle({ header: auth, range_query: { query: 'up', start: '0', end: '1970-01-01T00:00:30Z', step: '15s', lookback: '10s' } }), {
    ok: true,
    status: 0,
    body: { status: 'success', data: { resultType: 'matrix', result: [{ metric: { __name__: 'up', instance: 'a:1', job: 'api' }, values: [[0, '1'], [15, '1']] }] } },
  });
  assert.deepEqual(await handle({ header: { ...auth, dbname: 'nope' }, instant_query: { query: 'up', time: '15' } }), { ok: true, status: 0, body: { status: 'success', data: { resultType: 'vector', result: [] } } });
  assert.deepEqual(await handle({ header: auth, range_query: { query: 'up', start: '10', end: '0', step: '1' } }), {
    ok: true,
    status: 0,
    body: { status: 'error', errorType: 'bad_data', error: 'invalid parameter "end": end timestamp must not be before start time' },
  });
  const bad = await handle({ header: auth, instant_query: { query: 'up{' } });
  assert.ok(bad.ok && (bad.body as { errorType: string }).errorType === 'bad_data', JSON.stringify(bad));
  const none = await handle({ header: auth });
  assert.ok(!none.ok && none.code === grpc.status.INVALID_ARGUMENT, JSON.stringify(none));
  const unauthenticated = await handle({ instant_query: { query: 'up' } });
  assert.ok(!unauthenticated.ok && unauthenticated.code === grpc.status.UNAUTHENTICATED, JSON.stringify(unauthenticated));
});

test('a stale marker written by remote write ends its series from the memtable, from an SST after a flush, and after a restart (WAL)', async (t) => {
  const dir = tempDir(t);
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir];
  let s = await startTsdb(t, args);
  const w = await fetch(`${s.baseUrl}/v1/prometheus/write`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }, body: encodeWriteRequest(WRITTEN) });
  assert.equal(w.status, 204);
  // A NaN that is no stale marker is a sample.
  const nan = series({ __name__: 'not_a_number', job: 'api' }, []);
  const w2 = await fetch(`${s.baseUrl}/v1/prometheus/write`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }, body: encodeWriteRequest([{ ...nan, samples: [{ timestampMs: 0, value: 1 }, { timestampMs: 15_000, value: Number.NaN }] }]) });
  assert.equal(w2.status, 204);
  const expectEnds = async (what: string) => {
    const gone = ok(await call(s.baseUrl, '/query_range', [['query', 'gone'], ['start', '30'], ['end', '90'], ['step', '15']]));
    assert.deepEqual(gone, { resultType: 'matrix', result: [{ metric: { __name__: 'gone', job: 'api' }, values: [[30, '3'], [45, '3']] }] }, what);
    const n = ok(await call(s.baseUrl, '/query_range', [['query', 'not_a_number'], ['start', '0'], ['end', '30'], ['step', '15']]));
    assert.deepEqual(n, { resultType: 'matrix', result: [{ metric: { __name__: 'not_a_number', job: 'api' }, values: [[0, '1'], [15, 'NaN'], [30, 'NaN']] }] }, what);
  };
  await expectEnds('memtable');
  await s.proc.stop();
  s = await startTsdb(t, args);
  await expectEnds('WAL replay');
  await sqlRows(s.baseUrl, "ADMIN FLUSH_TABLE('tsdb_physical_table')");
  await expectEnds('SST');
  await s.proc.stop();
  s = await startTsdb(t, args);
  await expectEnds('SST after a restart');
});

test('cluster: a frontend answers the Prometheus API over the datanodes (remote write, labels, series, query)', async (t) => {
  const c = await startCluster(t, { datanodes: 1 });
  const w = await fetch(`${c.url}/v1/prometheus/write`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }, body: encodeWriteRequest(WRITTEN) });
  assert.equal(w.status, 204, await w.text());
  assert.deepEqual(ok(await call(c.url, '/labels')), ['__name__', 'code', 'instance', 'job']);
  assert.deepEqual(ok(await call(c.url, '/series', [['match[]', 'up']])), [{ __name__: 'up', instance: 'a:1', job: 'api' }]);
  assert.deepEqual(ok(await call(c.url, '/query', [['query', 'http_requests_total{code="500"}'], ['time', '30']], { method: 'POST' })), {
    resultType: 'vector',
    result: [{ metric: { __name__: 'http_requests_total', code: '500', instance: 'b:1', job: 'api' }, value: [30, '20'] }],
  });
  assert.deepEqual(ok(await call(c.url, '/query_range', [['query', 'gone'], ['start', '30'], ['end', '90'], ['step', '15']])), {
    resultType: 'matrix',
    result: [{ metric: { __name__: 'gone', job: 'api' }, values: [[30, '3'], [45, '3']] }],
  });
});
