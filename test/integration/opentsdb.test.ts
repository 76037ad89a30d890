/**
 * OpenTSDB `POST /v1/opentsdb/api/put` on a real standalone server, driven by `curl` with the
 * fixtures of `test/fixtures/opentsdb/` (their README lists the expected answers): plain,
 * `?summary` and `?details` requests, what lands in the tables, the switch and authentication.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { tempDir, tempFile } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/opentsdb/', import.meta.url));

/** POSTs a fixture with curl; returns status and body. */
async function put(baseUrl: string, fixture: string, query = '', extra: string[] = []): Promise<{ status: number; body: string }> {
  const { stdout } = await run('curl', ['-sS', '-X', 'POST', '-H', 'content-type: application/json', '--data-binary', `@${FIXTURES}${fixture}`, ...extra, '-w', '\n%{http_code}', `${baseUrl}/v1/opentsdb/api/put${query}`]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

const rows = (baseUrl: string, statement: string) => sqlRows(baseUrl, statement);

async function start(t: TestContext, args: string[] = []) {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
}

test('OpenTSDB put: every fixture gets the documented answer, plain, with summary and with details', async (t) => {
  const { baseUrl } = await start(t);
  const ok: Array<[string, number]> = [['single-point.json', 1], ['array.json', 3], ['timestamps.json', 4], ['string-value.json', 3], ['empty-tags.json', 1]];
  for (const [fixture, n] of ok) {
    assert.deepEqual(await put(baseUrl, fixture), { status: 204, body: '' }, fixture);
    assert.deepEqual(await put(baseUrl, fixture, '?summary'), { status: 200, body: JSON.stringify({ success: n, failed: 0 }) }, fixture);
    assert.deepEqual(await put(baseUrl, fixture, '?details'), { status: 200, body: JSON.stringify({ success: n, failed: 0, errors: [] }) }, fixture);
  }
  const failing: Array<[string, number, number]> = [['missing-tags.json', 0, 1], ['bad-metric.json', 0, 1], ['mixed.json', 2, 5]];
  for (const [fixture, success, failed] of failing) {
    assert.deepEqual(await put(baseUrl, fixture), { status: 500, body: JSON.stringify({ error: 'Internal error: 1003' }) }, fixture);
    assert.deepEqual(await put(baseUrl, fixture, '?summary'), { status: 200, body: JSON.stringify({ success, failed }) }, fixture);
    const details = await put(baseUrl, fixture, '?details');
    assert.equal(details.status, 200);
    const body = JSON.parse(details.body) as { success: number; failed: number; errors: Array<{ datapoint: unknown; error: string }> };
    assert.equal(body.success, success);
    assert.equal(body.errors.length, failed);
  }
  const mixed = JSON.parse((await put(baseUrl, 'mixed.json', '?details')).body) as { errors: Array<{ error: string }> };
  assert.deepEqual(mixed.errors.map((e) => e.error), [
    'Metric name was empty',
    'Invalid timestamp',
    'Unable to parse value to a number',
    'Empty value',
    'Invalid tag value ("web#05"): illegal character: #',
  ]);
  for (const fixture of ['not-json.txt', 'not-an-object.json']) {
    for (const q of ['', '?summary', '?details']) assert.deepEqual(await put(baseUrl, fixture, q), { status: 400, body: JSON.stringify({ error: 'Invalid OpenTSDB Json request' }) }, `${fixture}${q}`);
  }
  // What landed: metrics are tables with tsdb_timestamp (ms), tsdb_value and a tag per key.
  assert.deepEqual(await rows(baseUrl, 'SELECT host, dc, rack, tsdb_timestamp, tsdb_value FROM "sys.cpu.nice" ORDER BY tsdb_timestamp, host'), [
    ['web01', 'lga', null, 1346846400000, 18],
    ['web02', 'lga', null, 1346846400000, 9],
    ['web02', null, 'r1', 1346846401000, 9],
  ]);
  assert.deepEqual(await rows(baseUrl, 'SELECT host, tsdb_value FROM "sys.cpu.user"'), [['web01', 3.5]]);
  assert.deepEqual(await rows(baseUrl, 'SELECT tsdb_timestamp FROM "sys.load" ORDER BY 1'), [[1346846400000], [1346846400500], [1346846401000], [1346846401500]]);
  assert.deepEqual(await rows(baseUrl, 'SELECT tsdb_value FROM "sys.mem.free" ORDER BY 1'), [[-7], [42.5], [1300]]);
  assert.deepEqual(await rows(baseUrl, 'SELECT count(*) FROM "sys.uptime"'), [[1]]);
  const desc = await rows(baseUrl, 'DESC TABLE "sys.cpu.nice"');
  assert.deepEqual(desc.map((r) => [r[0], r[1], r[5]]).filter((r) => r[0] === 'tsdb_value' || r[0] === 'tsdb_timestamp'), [
    ['tsdb_value', 'Float64', 'FIELD'],
    ['tsdb_timestamp', 'TimestampMillisecond', 'TIMESTAMP'],
  ]);
  // A table whose value column has another type refuses that table's points only.
  await rows(baseUrl, 'CREATE TABLE "sys.typed" (host STRING PRIMARY KEY, tsdb_timestamp TIMESTAMP TIME INDEX, tsdb_value BIGINT)');
  const file = tempFile(t, 'typed.json', JSON.stringify([{ metric: 'sys.typed', timestamp: 1, value: 1, tags: { host: 'a' } }, { metric: 'sys.other', timestamp: 1, value: 1, tags: { host: 'a' } }]));
  const typed = await run('curl', ['-sS', '-X', 'POST', '--data-binary', `@${file}`, `${baseUrl}/v1/opentsdb/api/put?details`]);
  const answer = JSON.parse(typed.stdout) as { success: number; failed: number; errors: Array<{ error: string }> };
  assert.equal(answer.success, 1);
  assert.equal(answer.failed, 1);
  assert.match(answer.errors[0]!.error, /tsdb_value expect type Int64, given: Float64/);
});

test('OpenTSDB put: off with opentsdb.enable = false; authenticated with a user provider; db selects the database', async (t) => {
  const off = await start(t, ['-c', tempFile(t, 'tsdb.toml', '[opentsdb]\nenable = false\n')]);
  assert.equal((await put(off.baseUrl, 'single-point.json')).status, 404);

  const { baseUrl } = await start(t, ['--user-provider', 'static_user_provider:cmd:w:wo=pw,r:ro=pw']);
  const noAuth = await put(baseUrl, 'single-point.json');
  assert.equal(noAuth.status, 401);
  assert.match(noAuth.body, /Not found http or grpc authorization header/);
  assert.equal((await put(baseUrl, 'single-point.json', '', ['-u', 'w:bad'])).status, 401);
  const readOnly = await put(baseUrl, 'single-point.json', '', ['-u', 'r:pw']);
  assert.equal(readOnly.status, 403);
  assert.match(readOnly.body, /not authorized/);
  assert.equal((await put(baseUrl, 'single-point.json', '?db=nope', ['-u', 'w:pw'])).status, 400);
  assert.equal((await put(baseUrl, 'single-point.json', '', ['-u', 'w:pw'])).status, 204);
});

/** POSTs a body (not a fixture) with fetch; returns status and body. */
async function putBody(baseUrl: string, body: string, query = ''): Promise<{ status: number; body: string }> {
  const res = await fetch(`${baseUrl}/v1/opentsdb/api/put${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.text() };
}

test('OpenTSDB put into a nanosecond table: a timestamp past its range refuses the whole request with 400; the edge is written and reads back exactly', async (t) => {
  const { baseUrl } = await start(t);
  await rows(baseUrl, 'CREATE TABLE "sys.ns" (host STRING PRIMARY KEY, tsdb_timestamp TIMESTAMP(9) TIME INDEX, tsdb_value DOUBLE)');
  const point = (metric: string, timestamp: number, value: number) => ({ metric, timestamp, value, tags: { host: 'web01' } });
  // 9223372036855 ms is 2262-04-11T23:47:16.855: a nanosecond int64 would have wrapped it to 1677.
  const body = JSON.stringify([point('sys.ok', 1346846400, 1), point('sys.ns', 9223372036854, 2), point('sys.ns', 9223372036855, 3)]);
  const message = 'Invalid request to table tsdb.public.sys.ns, reason: Timestamp 9223372036855000000 (2262-04-11T23:47:16.855000000Z) is out of range for column tsdb_timestamp (TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';
  for (const q of ['', '?summary', '?details']) assert.deepEqual(await putBody(baseUrl, body, q), { status: 400, body: JSON.stringify({ error: message }) }, q);
  // Seconds (fewer than 13 digits) past the range too: 10^10 s.
  const seconds = await putBody(baseUrl, JSON.stringify(point('sys.ns', 10000000000, 4)));
  assert.equal(seconds.status, 400);
  assert.match(JSON.parse(seconds.body).error, /Timestamp 10000000000000000000 \(2286-11-20T17:46:40Z\) is out of range/);
  // Nothing of the refused requests was written.
  assert.deepEqual(await rows(baseUrl, 'SELECT count(*) FROM "sys.ns"'), [[0]]);
  assert.ok(!(await rows(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'sys.ok'));
  // The last millisecond a nanosecond column holds.
  assert.deepEqual(await putBody(baseUrl, JSON.stringify([point('sys.ok', 1346846400, 1), point('sys.ns', 9223372036854, 2)])), { status: 204, body: '' });
  assert.deepEqual(await rows(baseUrl, 'SELECT host, tsdb_value, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR), CAST(tsdb_timestamp AS VARCHAR) FROM "sys.ns"'), [['web01', 2, '9223372036854000000', '2262-04-11 23:47:16.854']]);
  assert.deepEqual(await rows(baseUrl, 'SELECT tsdb_timestamp, tsdb_value FROM "sys.ok"'), [[1346846400000, 1]]);
});

test('OpenTSDB put: deeply nested JSON is a 400 with a clear message, not a stack overflow; the server keeps serving', async (t) => {
  const { baseUrl } = await start(t);
  const n = 100_000;
  const message = 'Invalid OpenTSDB Json request: arrays and objects nested deeper than 128 levels';
  const deep = '['.repeat(n) + ']'.repeat(n);
  const bodies = [
    deep,
    '{"a":'.repeat(n) + '1' + '}'.repeat(n),
    `{"metric":${deep},"timestamp":1,"value":1,"tags":{"host":"a"}}`,
    `{"metric":"m","timestamp":1,"value":1,"tags":{"host":${deep}}}`,
    `[{"metric":"m","timestamp":1,"value":1,"tags":{"host":"a"},"extra":${deep}}]`,
  ];
  for (const body of bodies) {
    for (const q of ['', '?details']) assert.deepEqual(await putBody(baseUrl, body, q), { status: 400, body: JSON.stringify({ error: message }) }, `${body.slice(0, 20)}${q}`);
  }
  // A value nested within the limit is refused as a point, with details that can be written out.
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const shallow = await putBody(baseUrl, `[{"metric":${nested(126)},"timestamp":1,"value":1,"tags":{"host":"a"}},{"metric":"ok","timestamp":1,"value":1,"tags":{"host":"a"}}]`, '?details');
  assert.equal(shallow.status, 200);
  const answer = JSON.parse(shallow.body) as { success: number; failed: number; errors: Array<{ error: string }> };
  assert.deepEqual([answer.success, answer.failed], [1, 1]);
  assert.match(answer.errors[0]!.error, /^Invalid metric name: \[\[\[/);
  assert.deepEqual(await put(baseUrl, 'single-point.json'), { status: 204, body: '' });
  assert.equal((await fetch(`${baseUrl}/health`)).status, 200);
});

test('OpenTSDB put: a point with more tags than a table may have columns is refused whole with 400', async (t) => {
  const { baseUrl } = await start(t);
  const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, `v${i}`]));
  const body = JSON.stringify([{ metric: 'sys.ok', timestamp: 1, value: 1, tags: { host: 'a' } }, { metric: 'sys.wide', timestamp: 1, value: 1, tags: tags(10_000) }]);
  for (const q of ['', '?details']) {
    assert.deepEqual(await putBody(baseUrl, body, q), {
      status: 400,
      body: JSON.stringify({ error: 'Too many tags for metric sys.wide: 10000, maximum allowed: 4094 (a table has at most 4096 columns, tsdb_timestamp and tsdb_value included)' }),
    });
  }
  assert.ok(!(await rows(baseUrl, 'SHOW TABLES')).some((r) => r[0] === 'sys.ok'));
  assert.deepEqual(await putBody(baseUrl, JSON.stringify({ metric: 'sys.wide', timestamp: 1, value: 1, tags: tags(4094) })), { status: 204, body: '' });
  assert.deepEqual(await rows(baseUrl, 'SELECT count(*), min(t4093) FROM "sys.wide"'), [[1, 'v4093']]);
});
