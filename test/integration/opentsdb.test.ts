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
