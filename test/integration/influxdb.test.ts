/**
 * InfluxDB line protocol on a real standalone server: `curl` posting line-protocol files to the v1
 * endpoint with each precision (plain and gzip), the v2 endpoint through the official
 * `@influxdata/influxdb-client` with a token, ping and health, schema on write, errors that refuse
 * a whole request, the switch, limits and authentication.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { InfluxDB, Point } from '@influxdata/influxdb-client';
import { tempDir, tempFile } from '../support/temp.js';
import { sqlRows } from '../support/sql-rows.js';
import { startTsdb } from '../support/tsdb-process.js';

const run = promisify(execFile);

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** POSTs a file with curl to `path`; returns status and body. */
async function curl(url: string, file: string, extra: string[] = []): Promise<Answer> {
  const { stdout } = await run('curl', ['-sS', '-X', 'POST', '--data-binary', `@${file}`, ...extra, '-w', '\n%{http_code}', url]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

const sql = (baseUrl: string, statement: string, auth?: string) => sqlRows(baseUrl, statement, auth === undefined ? {} : { auth });

async function start(t: TestContext, args: string[] = []) {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
}

test('v1 write with curl: every precision, missing timestamps, gzip bodies; tables created with their types', async (t) => {
  const { baseUrl } = await start(t);
  const write = `${baseUrl}/v1/influxdb/write?db=public`;
  const cases: Array<[string | undefined, string, bigint]> = [
    [undefined, '1700000000123456789', 1700000000123456789n],
    ['ns', '1700000000123456789', 1700000000123456789n],
    ['n', '1700000000123456788', 1700000000123456788n],
    ['u', '1700000000123456', 1700000000123456000n],
    ['us', '1700000000123457', 1700000000123457000n],
    ['ms', '1700000000123', 1700000000123000000n],
    ['s', '1700000000', 1700000000000000000n],
    ['m', '28333333', 28333333n * 60n * 1_000_000_000n],
    ['h', '472222', 472222n * 3600n * 1_000_000_000n],
  ];
  for (const [i, [precision, ts]] of cases.entries()) {
    const file = tempFile(t, `p${i}.lp`, `# precision ${precision ?? 'default'}\nweather,city=p${i} temp=${i}.5 ${ts}\n`);
    const ans = await curl(`${write}${precision === undefined ? '' : `&precision=${precision}`}`, file);
    assert.deepEqual(ans, { status: 204, body: '' }, `precision ${precision}`);
  }
  // Read as text: nanosecond times beyond 2^53 do not survive a JSON number on this side.
  const stored = await sql(baseUrl, 'SELECT city, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR) FROM weather ORDER BY temp');
  assert.deepEqual(stored.map((r) => [r[0], BigInt(r[1] as string)]), cases.map(([, , want], i) => [`p${i}`, want]));

  // Every field type; a line without a timestamp gets the time of the write.
  const before = BigInt(Date.now()) * 1_000_000n;
  const typed = tempFile(t, 'typed.lp', 'm,host=a,region=eu f=1.5,i=-7i,u=7u,s="say \\"hi\\"",b=true\r\nm,host=b i=8i 1000\n\n');
  assert.deepEqual(await curl(write, typed), { status: 204, body: '' });
  const after = BigInt(Date.now()) * 1_000_000n;
  const desc = await sql(baseUrl, 'DESC TABLE m');
  assert.deepEqual(desc.map((r) => [r[0], r[1], r[2], r[5]]), [
    ['host', 'String', 'PRI', 'TAG'],
    ['region', 'String', 'PRI', 'TAG'],
    ['f', 'Float64', '', 'FIELD'],
    ['i', 'Int64', '', 'FIELD'],
    ['u', 'UInt64', '', 'FIELD'],
    ['s', 'String', '', 'FIELD'],
    ['b', 'Boolean', '', 'FIELD'],
    ['tsdb_timestamp', 'TimestampNanosecond', 'PRI', 'TIMESTAMP'],
  ]);
  const rows = await sql(baseUrl, 'SELECT host, region, f, i, u, s, b, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR) FROM m ORDER BY host');
  assert.deepEqual(rows[0]!.slice(0, 7), ['a', 'eu', 1.5, -7, 7, 'say "hi"', true]);
  const now = BigInt(rows[0]![7] as string);
  assert.ok(now >= before && now <= after, `missing timestamp = now: ${now} in [${before}, ${after}]`);
  assert.deepEqual(rows[1], ['b', null, null, 8, null, null, null, '1000']);
  const create = String((await sql(baseUrl, 'SHOW CREATE TABLE m'))[0]![1]);
  assert.match(create, /comment = 'Created on insertion'/);
  assert.match(create, /merge_mode = 'last_non_null'/);

  // New tags and fields become columns; last_non_null keeps fields a later line leaves out.
  const more = tempFile(t, 'more.lp', 'm,host=b,dc=x i=9i,extra=2 1000\n');
  assert.equal((await curl(write, more)).status, 204);
  assert.deepEqual(await sql(baseUrl, "SELECT host, dc, i, extra FROM m WHERE host = 'b' ORDER BY dc NULLS FIRST"), [['b', null, 8, null], ['b', 'x', 9, 2]]);

  // gzip bodies.
  const gz = tempFile(t, 'body.lp.gz', '');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(gz, gzipSync('zipped,k=v x=1 1\nzipped,k=w x=2 2\n'));
  assert.equal((await curl(write, gz, ['-H', 'Content-Encoding: gzip'])).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT k, x FROM zipped ORDER BY k'), [['v', 1], ['w', 2]]);
  const notGzip = await curl(write, more, ['-H', 'Content-Encoding: gzip']);
  assert.equal(notGzip.status, 400);
  assert.match(notGzip.body, /Invalid gzip request body/);
});

test('a bad line or a type conflict refuses the whole request with 400 naming the problem; nothing is written', async (t) => {
  const { baseUrl } = await start(t);
  const write = `${baseUrl}/v1/influxdb/write`;
  const bad = tempFile(t, 'bad.lp', 'cpu,host=a v=1 1\ncpu,host=b v=2 2\ncpu,host=c v=abc 3\n');
  const ans = await curl(write, bad);
  assert.equal(ans.status, 400);
  const body = JSON.parse(ans.body) as { error: string };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.match(body.error, /line 3/);
  assert.match(body.error, /abc/);
  await assert.rejects(sql(baseUrl, 'SELECT * FROM cpu'), /Table not found/);

  assert.equal((await curl(write, tempFile(t, 'ok.lp', 'cpu,host=a v=1 1\n'))).status, 204);
  const conflict = await curl(write, tempFile(t, 'conflict.lp', 'cpu,host=z v=5 9\nother,host=z v=1 1\ncpu,host=b v=2i 2\n'));
  assert.equal(conflict.status, 400);
  assert.match(conflict.body, /line 3|v/);
  const existing = await curl(write, tempFile(t, 'existing.lp', 'other2,host=z v=1 1\ncpu,host=b v=2i 2\n'));
  assert.equal(existing.status, 400);
  assert.match(existing.body, /column v expect type Float64, given: Int64/);
  assert.deepEqual(await sql(baseUrl, 'SELECT host, v FROM cpu'), [['a', 1]]);
  await assert.rejects(sql(baseUrl, 'SELECT * FROM other2'), /Table not found/);

  // Bodies above 64 KiB are parsed in a worker thread: the same answers.
  const lines = Array.from({ length: 3000 }, (_, i) => `big,host=h${i % 10} v=${i} ${i + 1}`);
  const bigBad = await curl(write, tempFile(t, 'big-bad.lp', [...lines, 'big,host=x v=oops 1'].join('\n')));
  assert.equal(bigBad.status, 400);
  assert.match(JSON.parse(bigBad.body).error, /^Failed to parse InfluxDB line protocol, line 3001: invalid field value "oops"/);
  await assert.rejects(sql(baseUrl, 'SELECT * FROM big'), /Table not found/);
  assert.equal((await curl(write, tempFile(t, 'big.lp', lines.join('\n')))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*), sum(v) FROM big'), [[3000, 4498500]]);

  const precision = await curl(`${write}?precision=weeks`, tempFile(t, 'p.lp', 'cpu,host=a v=1 1\n'));
  assert.equal(precision.status, 400);
  assert.equal(JSON.parse(precision.body).error, 'Failed to convert time precision, name: weeks');
  const db = await curl(`${write}?db=nope`, tempFile(t, 'db.lp', 'cpu,host=a v=1 1\n'));
  assert.equal(db.status, 400);
  assert.equal(JSON.parse(db.body).error, 'Database not found: nope');
});

test('v2 write through @influxdata/influxdb-client with a token; ping and health', async (t) => {
  const { baseUrl } = await start(t, ['--user-provider', 'static_user_provider:cmd:writer=secret']);
  const client = new InfluxDB({ url: `${baseUrl}/v1/influxdb`, token: 'writer:secret' });
  const api = client.getWriteApi('any-org', 'public', 'ns');
  api.writePoint(new Point('sensors').tag('room', 'kitchen').floatField('temp', 21.5).intField('count', 3).booleanField('ok', true).stringField('note', 'fine').timestamp(1700000000000000001n.toString()));
  api.writePoint(new Point('sensors').tag('room', 'hall').floatField('temp', 19).timestamp(1700000000000000002n.toString()));
  await api.close();
  assert.deepEqual(await sql(baseUrl, 'SELECT room, temp, count, ok, note, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR) FROM sensors ORDER BY room', 'writer:secret'), [
    ['hall', 19, null, null, null, '1700000000000000002'],
    ['kitchen', 21.5, 3, true, 'fine', '1700000000000000001'],
  ]);
  const wrong = new InfluxDB({ url: `${baseUrl}/v1/influxdb`, token: 'writer:nope' }).getWriteApi('o', 'public', 'ns', { maxRetries: 0 });
  wrong.writePoint(new Point('sensors').tag('room', 'x').floatField('temp', 1));
  await assert.rejects(wrong.close(), (err: Error & { statusCode?: number }) => err.statusCode === 401);

  for (const method of ['GET', 'HEAD']) {
    const ping = await fetch(`${baseUrl}/v1/influxdb/ping`, { method });
    assert.equal(ping.status, 204, `${method} ping needs no credentials`);
    assert.equal((await fetch(`${baseUrl}/v1/influxdb/health`, { method })).status, 200);
  }
});

test('authentication: Token, Basic, u and p; the reference\'s errors; permissions', async (t) => {
  const { baseUrl } = await start(t, ['--user-provider', 'static_user_provider:cmd:w:wo=pw,r:ro=pw']);
  const file = tempFile(t, 'a.lp', 'auth,host=a v=1 1\n');
  const v1 = `${baseUrl}/v1/influxdb/write?db=public`;
  const none = await curl(v1, file);
  assert.equal(none.status, 401);
  assert.equal(JSON.parse(none.body).error, 'Not found influx http authorization info');
  const half = await curl(`${v1}&u=w`, file);
  assert.equal(half.status, 400);
  assert.equal(JSON.parse(half.body).error, 'influxdb auth: username and password must be provided together');
  assert.equal((await curl(`${v1}&u=w&p=bad`, file)).status, 401);
  assert.equal((await curl(`${v1}&u=w&p=pw`, file)).status, 204);
  assert.equal((await curl(v1, file, ['-u', 'w:pw'])).status, 204);
  assert.equal((await curl(`${baseUrl}/v1/influxdb/api/v2/write?bucket=public`, file, ['-H', 'Authorization: Token w:pw'])).status, 204);
  const ro = await curl(`${v1}&u=r&p=pw`, file);
  assert.equal(ro.status, 403);
  assert.match(JSON.parse(ro.body).error, /not authorized/);
});

test('influxdb.enable = false answers 404; http.body_limit applies', async (t) => {
  const off = await start(t, ['--influxdb-enable', 'false']);
  const file = tempFile(t, 'a.lp', 'x,host=a v=1 1\n');
  assert.equal((await curl(`${off.baseUrl}/v1/influxdb/write`, file)).status, 404);
  assert.equal((await fetch(`${off.baseUrl}/v1/influxdb/ping`)).status, 404);

  const small = await start(t, ['-c', tempFile(t, 'tsdb.toml', '[http]\nbody_limit = "1KB"\n')]);
  const big = tempFile(t, 'big.lp', Array.from({ length: 100 }, (_, i) => `x,host=h${i} v=${i} ${i}`).join('\n'));
  assert.equal((await curl(`${small.baseUrl}/v1/influxdb/write`, big)).status, 413);
  assert.equal((await curl(`${small.baseUrl}/v1/influxdb/write`, file)).status, 204);
});

const NS_RANGE = 'column tsdb_timestamp (TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';

test('timestamps outside the nanosecond column\'s range refuse the whole request (v1 and v2, every precision); the edges are written and read back exactly', async (t) => {
  const { baseUrl } = await start(t);
  const v1 = `${baseUrl}/v1/influxdb/write?db=public`;
  const v2 = `${baseUrl}/v1/influxdb/api/v2/write?bucket=public`;
  const refused = async (url: string, body: string, message: string) => {
    const ans = await curl(url, tempFile(t, 'refused.lp', body));
    assert.equal(ans.status, 400, ans.body);
    assert.deepEqual(JSON.parse(ans.body), { error: message });
  };
  // One past the end, on line 3 (the first two lines are fine): nothing of the body is written.
  await refused(
    v1,
    'edge,host=a v=1 1\nedge,host=b v=2 2\nedge,host=c v=3 9223372036854775807\n',
    `Failed to parse InfluxDB line protocol, line 3: Timestamp 9223372036854775807 (2262-04-11T23:47:16.854775807Z) is out of range for ${NS_RANGE}`,
  );
  await refused(
    `${v2}&precision=s`,
    'edge,host=a v=1 1\nedge,host=d v=4 -9223286401\n',
    `Failed to parse InfluxDB line protocol, line 2: Timestamp -9223286401000000000 (1677-09-21T23:59:59Z) is out of range for ${NS_RANGE} (written -9223286401 with precision s)`,
  );
  await refused(
    `${v1}&precision=ms`,
    'edge,host=e v=5 9223372036855\n',
    `Failed to parse InfluxDB line protocol, line 1: Timestamp 9223372036855000000 (2262-04-11T23:47:16.855000000Z) is out of range for ${NS_RANGE} (written 9223372036855 with precision ms)`,
  );
  // int64 wrapped this one before: 10^10 s is 10^19 ns.
  await refused(
    `${v1}&precision=s`,
    'edge,host=f v=6 10000000000\n',
    `Failed to parse InfluxDB line protocol, line 1: Timestamp 10000000000000000000 (2286-11-20T17:46:40Z) is out of range for ${NS_RANGE} (written 10000000000 with precision s)`,
  );
  await assert.rejects(sql(baseUrl, 'SELECT * FROM edge'), /Table not found/);

  // The edges themselves, at each precision that reaches them.
  assert.equal((await curl(v1, tempFile(t, 'ns.lp', 'edge,host=max v=1 9223372036854775806\nedge,host=min v=2 -9223286400000000000\n'))).status, 204);
  assert.equal((await curl(`${v2}&precision=s`, tempFile(t, 's.lp', 'edge,host=max_s v=3 9223372036\nedge,host=min_s v=4 -9223286400\n'))).status, 204);
  assert.equal((await curl(`${v1}&precision=ms`, tempFile(t, 'ms.lp', 'edge,host=max_ms v=5 9223372036854\n'))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT host, v, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR), CAST(tsdb_timestamp AS VARCHAR) FROM edge ORDER BY v'), [
    ['max', 1, '9223372036854775806', '2262-04-11 23:47:16.854775806'],
    ['min', 2, '-9223286400000000000', '1677-09-22 00:00:00'],
    ['max_s', 3, '9223372036000000000', '2262-04-11 23:47:16'],
    ['min_s', 4, '-9223286400000000000', '1677-09-22 00:00:00'],
    ['max_ms', 5, '9223372036854000000', '2262-04-11 23:47:16.854'],
  ]);
});

test('into an existing millisecond table, nanosecond points are floored; one out of the nanosecond range is refused, nothing written', async (t) => {
  const { baseUrl } = await start(t);
  await sql(baseUrl, 'CREATE TABLE msedge (host STRING PRIMARY KEY, ts TIMESTAMP(3) TIME INDEX, v DOUBLE)');
  const write = `${baseUrl}/v1/influxdb/write?db=public`;
  assert.equal((await curl(write, tempFile(t, 'ok.lp', 'msedge,host=a v=1 9223372036854775806\nmsedge,host=b v=2 -9223286399999999999\n'))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT host, CAST(epoch_ms(ts) AS VARCHAR) FROM msedge ORDER BY host'), [['a', '9223372036854'], ['b', '-9223286400000']]);
  const ans = await curl(`${write}&precision=s`, tempFile(t, 'bad.lp', 'msedge,host=c v=3 1\nmsedge,host=d v=4 9300000000\n'));
  assert.equal(ans.status, 400);
  assert.match(JSON.parse(ans.body).error, /^Failed to parse InfluxDB line protocol, line 2: Timestamp 9300000000000000000 \(2264-09-14T\d\d:\d\d:\d\dZ\) is out of range for column tsdb_timestamp/);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM msedge'), [[2]]);
});

test('a line with more tags and fields than a table may have columns is refused with 400; the server keeps serving', async (t) => {
  const { baseUrl } = await start(t);
  const write = `${baseUrl}/v1/influxdb/write?db=public`;
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}=v${i}`).join(',');
  const ans = await curl(write, tempFile(t, 'wide.lp', `ok,host=a v=1 1\nwide,${tags(10_000)} v=1 1\n`));
  assert.equal(ans.status, 400);
  assert.deepEqual(JSON.parse(ans.body), { error: 'Failed to parse InfluxDB line protocol, line 2: too many tags and fields in measurement "wide": at most 4095 (a table has at most 4096 columns, the time index included)' });
  await assert.rejects(sql(baseUrl, 'SELECT * FROM ok'), /Table not found/);
  // At the limit: 4094 tags, a field and the time index.
  assert.equal((await curl(write, tempFile(t, 'widest.lp', `wide,${tags(4094)} v=1 1\n`))).status, 204);
  assert.deepEqual(await sql(baseUrl, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'wide'"), [[4096]]);
  // One more column, in a later request, would grow the table beyond the limit.
  const grow = await curl(write, tempFile(t, 'grow.lp', 'wide,t0=v0 v=2,w=3 2\n'));
  assert.equal(grow.status, 400);
  assert.deepEqual(JSON.parse(grow.body), { error: 'Invalid request to table tsdb.public.wide, reason: it would have 4097 columns, more than the 4096 a table may have' });
  assert.equal((await curl(write, tempFile(t, 'same.lp', 'wide,t0=v0 v=2 2\n'))).status, 204);
  assert.deepEqual(await sql(baseUrl, 'SELECT count(*) FROM wide'), [[2]]);
});

test('a measurement, tag or field name longer than a name may be is refused with 400, nothing written', async (t) => {
  const { baseUrl } = await start(t);
  const write = `${baseUrl}/v1/influxdb/write?db=public`;
  for (const [name, body] of [
    ['measurement', `ok,host=a v=1 1\n${'m'.repeat(1 << 20)},host=a v=1 1\n`],
    ['tag', `ok,host=a v=1 1\nlong,${'t'.repeat(256)}=a v=1 1\n`],
    ['field', `ok,host=a v=1 1\nlong,host=a ${'f'.repeat(256)}=1 1\n`],
  ] as const) {
    const ans = await curl(write, tempFile(t, `${name}.lp`, body));
    assert.equal(ans.status, 400, name);
    assert.match(JSON.parse(ans.body).error as string, /Invalid (table|column) name: .*\((1048576|256) characters\).*: at most 255 characters/, name);
    assert.ok(ans.body.length < 1000, `${name}: the error does not repeat the name (${ans.body.length} bytes)`);
    await assert.rejects(sql(baseUrl, 'SELECT * FROM ok'), /Table not found/);
  }
  // At the limit: a 255-character measurement with a 255-character tag.
  assert.equal((await curl(write, tempFile(t, 'limit.lp', `${'m'.repeat(255)},${'t'.repeat(255)}=a v=1 1\n`))).status, 204);
  assert.deepEqual(await sql(baseUrl, `SELECT count(*) FROM ${'m'.repeat(255)}`), [[1]]);
});
