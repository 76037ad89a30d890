/**
 * OTLP tracing (`logging.enable_otlp_tracing`) end to end: a standalone exports its spans over
 * gRPC OTLP to a receiver the test starts (test/support/otlp-receiver.ts). Checked: the spans of
 * an HTTP SQL query (request → sql → parse / execute → plan), of line-protocol ingestion, of a gRPC
 * insert, of ADMIN flush_table and compact_table, their attributes and resource, a caller's
 * `traceparent` continued, no statement text in any attribute, ratio 0 exporting nothing, a
 * collector that is down or never answers costing the queries nothing, and, in a cluster, one
 * trace across the frontend and the datanode.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster } from '../support/cluster.js';
import { cpuRows, greptimeGrpc, type GrpcResult } from '../support/greptime-grpc.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { sqlRows } from '../support/sql-rows.js';
import { tempDir } from '../support/temp.js';
import { runTsdb, startTsdb } from '../support/tsdb-process.js';

function tracingEnv(prefix: string, endpoint: string, ratio = 1): NodeJS.ProcessEnv {
  return {
    [`${prefix}__LOGGING__ENABLE_OTLP_TRACING`]: 'true',
    [`${prefix}__LOGGING__OTLP_ENDPOINT`]: endpoint,
    [`${prefix}__LOGGING__TRACING_SAMPLE_RATIO__DEFAULT_RATIO`]: String(ratio),
  };
}

async function startTraced(t: TestContext, endpoint: string, ratio = 1, args: string[] = []) {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args], { env: tracingEnv('TSDB_STANDALONE', endpoint, ratio) });
}

async function receiver(t: TestContext): Promise<OtlpReceiver> {
  const r = await OtlpReceiver.start();
  t.after(() => r.stop());
  return r;
}

async function sql(baseUrl: string, statement: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { error?: string } }> {
  const res = await fetch(`${baseUrl}/v1/sql?db=public`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

function one(spans: readonly ReceivedSpan[], test: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(test);
  assert.equal(found.length, 1, `one ${what}: ${JSON.stringify(found.map((s) => ({ name: s.name, attributes: s.attributes })))}`);
  return found[0]!;
}

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);
}

function ok(r: GrpcResult): number {
  if (!r.ok) assert.fail(`gRPC call failed: ${r.code} ${r.details}`);
  return r.value.affected_rows.value;
}

test('a standalone exports spans of HTTP, SQL, ingestion, gRPC, flush and compaction, with parents and attributes', async (t) => {
  const rx = await receiver(t);
  const { baseUrl, grpc } = await startTraced(t, rx.address);

  // Line protocol: the table is created by the first write.
  const influx = await fetch(`${baseUrl}/v1/influxdb/write?db=public&precision=ms`, { method: 'POST', body: 'cpu,host=a usage=1.5 1000\ncpu,host=b usage=2 2000\ncpu,host=c usage=3 3000' });
  assert.equal(influx.status, 204);

  // A query continuing the caller's trace.
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const q = await sql(baseUrl, 'SELECT host, usage FROM cpu ORDER BY host', { traceparent: `00-${traceId}-${callerSpan}-01` });
  assert.equal(q.status, 200, q.body.error);

  // An INSERT whose values must never show in a span.
  assert.equal((await sql(baseUrl, "INSERT INTO cpu (host, usage, tsdb_timestamp) VALUES ('very-secret-literal', 9, 4000)")).status, 200);
  // A failing statement.
  assert.equal((await sql(baseUrl, 'SELECT * FROM no_such_table')).status, 400);

  // gRPC row insert.
  const client = greptimeGrpc(t, grpc!);
  assert.equal(ok(await client.handle(cpuRows('grpc_cpu', [['a', 1000, 1.5], ['b', 2000, 2.5]], { dbname: 'public' }))), 2);

  // Two flushes of overlapping rows, then a compaction that merges them.
  await sqlRows(baseUrl, "ADMIN flush_table('cpu')");
  await sqlRows(baseUrl, "INSERT INTO cpu (host, usage, tsdb_timestamp) VALUES ('a', 5, 2000000000)");
  await sqlRows(baseUrl, "ADMIN flush_table('cpu')");
  await sqlRows(baseUrl, "ADMIN compact_table('cpu')");

  await rx.waitFor((spans) => spans.filter((s) => s.name === 'compaction').length >= 1 && spans.some((s) => s.name === 'POST /v1/sql' && s.attributes['http.response.status_code'] === 400) && spans.filter((s) => s.name === 'flush').length >= 2);
  // Spans end out of order across batches: give the last batch a moment.
  await sleep(1500);
  const spans = rx.spans;

  // Resource and scope.
  for (const s of spans) {
    assert.equal(s.resource['service.name'], 'standalone');
    assert.equal(typeof s.resource['service.instance.id'], 'string');
    assert.equal(s.scope, 'tsdb');
  }

  // The query: HTTP request span under the caller's span, then sql → parse, execute → plan.
  const http = one(spans, (s) => s.traceId === traceId && s.kind === 'SPAN_KIND_SERVER', 'HTTP span of the traced query');
  assert.equal(http.name, 'POST /v1/sql');
  assert.equal(http.parentSpanId, callerSpan, 'the caller\'s traceparent is continued');
  assert.equal(http.attributes['http.request.method'], 'POST');
  assert.equal(http.attributes['http.route'], '/v1/sql');
  assert.equal(http.attributes['http.response.status_code'], 200);
  const statement = one(childrenOf(spans, http), (s) => s.name === 'sql', 'sql span under the HTTP span');
  assert.equal(statement.attributes['db.namespace'], 'public');
  assert.equal(statement.attributes['tsdb.protocol'], 'http');
  const parse = one(childrenOf(spans, statement), (s) => s.name === 'sql.parse', 'sql.parse');
  assert.equal(parse.attributes['tsdb.statement.count'], 1);
  const execute = one(childrenOf(spans, statement), (s) => s.name === 'sql.execute', 'sql.execute');
  assert.equal(execute.attributes['tsdb.statement.kind'], 'query');
  assert.equal(execute.attributes['db.response.returned_rows'], 3);
  const plan = one(childrenOf(spans, execute), (s) => s.name === 'sql.plan', 'sql.plan');
  // Each span anchors its times to Date.now() (whole milliseconds) when it starts: compared across
  // spans, times are good to about a millisecond.
  const SLACK = 2_000_000n;
  assert.ok(parse.endNs <= execute.startNs + SLACK, 'parsing ends before execution starts');
  assert.ok(plan.startNs + SLACK >= execute.startNs && plan.endNs <= execute.endNs + SLACK, 'planning is within the execution');
  assert.ok(statement.startNs + SLACK >= http.startNs && statement.endNs <= http.endNs + SLACK);

  // Line protocol ingestion.
  const influxSpan = one(spans, (s) => s.kind === 'SPAN_KIND_SERVER' && s.attributes['tsdb.protocol'] === 'influxdb', 'InfluxDB request span');
  assert.equal(influxSpan.attributes['http.response.status_code'], 204);
  const ingest = one(childrenOf(spans, influxSpan), (s) => s.name === 'ingest', 'ingest span of the line protocol');
  assert.equal(ingest.attributes['tsdb.ingest.rows'], 3);
  assert.equal(ingest.attributes['tsdb.ingest.tables'], 1);
  assert.equal(ingest.attributes['tsdb.protocol'], 'influxdb');

  // gRPC.
  const grpcSpan = one(spans, (s) => s.name === 'greptime.v1.GreptimeDatabase/Handle', 'gRPC span');
  assert.equal(grpcSpan.kind, 'SPAN_KIND_SERVER');
  assert.equal(grpcSpan.attributes['rpc.system'], 'grpc');
  assert.equal(grpcSpan.attributes['rpc.method'], 'Handle');
  assert.equal(grpcSpan.attributes['rpc.grpc.status_code'], 0);
  const grpcIngest = one(childrenOf(spans, grpcSpan), (s) => s.name === 'ingest', 'ingest span of the gRPC insert');
  assert.equal(grpcIngest.attributes['tsdb.ingest.rows'], 2);
  assert.equal(grpcIngest.attributes['tsdb.protocol'], 'grpc');

  // The failing statement: its sql span is marked failed with the user's message.
  const failed = one(spans, (s) => s.name === 'sql' && s.status === 'STATUS_CODE_ERROR', 'failed sql span');
  assert.match(failed.statusMessage, /no_such_table/);
  assert.equal(failed.attributes['tsdb.error.code'], 4001);

  // Flush and compaction under their ADMIN statements.
  const flushes = spans.filter((s) => s.name === 'flush');
  assert.ok(flushes.length >= 2);
  for (const f of flushes.slice(0, 2)) {
    assert.match(String(f.attributes['tsdb.region.id']), /^\d+\(\d+, \d+\)$|^\d+/);
    assert.equal(f.attributes['tsdb.files.added'], 1);
    assert.ok(Number(f.attributes['tsdb.bytes.written']) > 0);
    assert.ok(Number(f.attributes['tsdb.rows']) >= 1);
    const parent = spans.find((s) => s.spanId === f.parentSpanId);
    assert.equal(parent?.name, 'sql.execute', 'a flush asked by ADMIN flush_table hangs under its statement');
    assert.equal(parent?.attributes['tsdb.statement.kind'], 'admin');
  }
  const merged = spans.filter((s) => s.name === 'compaction' && s.attributes['tsdb.files.removed'] === 2);
  assert.equal(merged.length, 1, `one compaction merged the two files: ${JSON.stringify(spans.filter((s) => s.name === 'compaction').map((s) => s.attributes))}`);
  assert.equal(merged[0]!.attributes['tsdb.files.added'], 1);
  assert.ok(Number(merged[0]!.attributes['tsdb.bytes.before']) > 0 && Number(merged[0]!.attributes['tsdb.bytes.after']) > 0);

  // No statement text (nor the INSERT's literal) in any attribute or status.
  const text = JSON.stringify(spans.map((s) => ({ a: s.attributes, m: s.statusMessage, n: s.name })));
  assert.ok(!text.includes('very-secret-literal'), 'an INSERT\'s values never appear in a span');
  assert.ok(!text.includes('SELECT host'), 'a statement\'s text never appears in a span');
});

test('ratio 0 exports no span; a sampled caller\'s traceparent is still followed', async (t) => {
  const rx = await receiver(t);
  const { baseUrl } = await startTraced(t, rx.address, 0);
  for (let i = 0; i < 10; i++) assert.equal((await sql(baseUrl, 'SELECT 1')).status, 200);
  await sleep(2500);
  assert.equal(rx.spans.length, 0, `no spans at ratio 0, got ${rx.spans.map((s) => s.name).join(', ')}`);
  // ParentBased: a caller that sampled its trace gets it continued.
  const traceId = randomBytes(16).toString('hex');
  assert.equal((await sql(baseUrl, 'SELECT 1', { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status, 200);
  await rx.waitFor((spans) => spans.some((s) => s.traceId === traceId && s.name === 'sql.execute'));
  assert.ok(rx.spans.every((s) => s.traceId === traceId));
});

/** 50 queries one after the other; returns how long they took (ms). */
const AUTH = { authorization: `Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}` };

async function queryLoop(baseUrl: string, n = 50, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await sql(baseUrl, `SELECT ${i} AS i`, headers);
    assert.equal(r.status, 200, r.body.error);
  }
  return performance.now() - started;
}

test('a collector that is down or never answers does not slow queries; its failures are logged rarely', async (t) => {
  // Down: a port nothing listens on.
  const gone = await OtlpReceiver.start();
  const downAddr = gone.address;
  await gone.stop();
  // Slow: accepts connections and never says a word (exports time out).
  const sockets: Socket[] = [];
  const silent = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const silentAddr = `127.0.0.1:${(silent.address() as { port: number }).port}`;

  for (const [what, endpoint] of [['down', `http://${downAddr}`], ['silent', silentAddr]] as const) {
    const { baseUrl, proc } = await startTraced(t, endpoint, 1, ['--user-provider', 'static_user_provider:cmd:alice=s3cret-pw']);
    await queryLoop(baseUrl, 5, AUTH);
    const ms = await queryLoop(baseUrl, 50, AUTH);
    assert.ok(ms < 10_000, `50 queries with the collector ${what} took ${Math.round(ms)} ms`);
    // Several export intervals pass: at most one failure is logged.
    await sleep(what === 'silent' ? 7000 : 3000);
    assert.equal((await sql(baseUrl, 'SELECT 1', AUTH)).status, 200);
    assert.ok(proc.lines.every((l) => !JSON.stringify(l).includes('s3cret-pw')), 'no log line holds the password');
    const failures = proc.lines.filter((l) => /OTLP trace export failed/.test(l.msg));
    assert.ok(failures.length <= 1, `export failures logged ${failures.length} times`);
    if (what === 'down') assert.equal(failures.length, 1, 'the failure is logged once');
    assert.ok(proc.lines.every((l) => l.level !== 'fatal'));
  }
});

test('in a cluster, one trace spans the frontend and the datanode (traceparent in the region calls)', async (t) => {
  const rx = await receiver(t);
  const cluster = await startCluster(t, {
    datanodes: 1,
    frontends: 0,
    datanodeEnv: tracingEnv('TSDB_DATANODE', rx.address),
  });
  const fe = await startTsdb(t, ['frontend', 'start', '--http-addr', '127.0.0.1:0', '--metasrv-addr', cluster.metaAddr], { env: tracingEnv('TSDB_FRONTEND', rx.address) });
  const created = await sql(fe.baseUrl, 'CREATE TABLE m (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))');
  assert.equal(created.status, 200, created.body.error);
  const traceId = randomBytes(16).toString('hex');
  const inserted = await sql(fe.baseUrl, "INSERT INTO m VALUES ('a', 1, 1000), ('b', 2, 2000)", { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
  assert.equal(inserted.status, 200, inserted.body.error);
  // Both processes' spans of the trace: the datanode's call and its parent, exported by the frontend.
  await rx.waitFor((spans) => spans.some((s) => s.traceId === traceId && s.resource['service.name'] === 'datanode' && spans.some((p) => p.spanId === s.parentSpanId)), 15_000, 'the datanode span and its parent');
  const trace = rx.spans.filter((s) => s.traceId === traceId);
  const remote = trace.find((s) => s.resource['service.name'] === 'datanode' && s.kind === 'SPAN_KIND_SERVER')!;
  assert.match(remote.name, /\/Handle$/, 'the region service\'s Handle call');
  assert.equal(remote.attributes['rpc.method'], 'Handle');
  assert.equal(remote.resource['service.instance.id'], '1', 'the datanode\'s node id');
  const parent = trace.find((s) => s.spanId === remote.parentSpanId);
  assert.ok(parent !== undefined, 'the datanode span\'s parent is a frontend span of the same trace');
  assert.equal(parent.resource['service.name'], 'frontend');
  assert.equal(parent.name, 'sql.execute');
});

test('an otlp_endpoint that is not host:port or http://host:port refuses to start', async (t) => {
  const r = await runTsdb(['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env: tracingEnv('TSDB_STANDALONE', 'https://collector.example:4317') });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /logging\.otlp_endpoint must be host:port or http:\/\/host:port/);
});
