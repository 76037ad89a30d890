/**
 * `/metrics` on a real standalone server: known work (rows by InfluxDB line protocol, Prometheus
 * remote write, gRPC and SQL INSERT; statements over HTTP, MySQL and PostgreSQL; a PromQL query;
 * flushes and a compaction) moves each counter by exactly what was done; the text parses (tsdb's
 * reader and `promtool check metrics`); scraping needs no credentials.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { parsePromText, promtoolLint, type Scrape } from '../support/prom-text.js';
import { cpuRows, greptimeGrpc } from '../support/greptime-grpc.js';
import { mysqlClient, pgClient } from '../support/sql-clients.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

async function scrape(baseUrl: string): Promise<Scrape & { body: string; contentType: string }> {
  const res = await fetch(`${baseUrl}/metrics`);
  assert.equal(res.status, 200);
  const body = await res.text();
  return { ...parsePromText(body), body, contentType: res.headers.get('content-type') ?? '' };
}

async function sql(baseUrl: string, statement: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${baseUrl}/v1/sql?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: statement }).toString() });
  return { status: res.status, body: await res.text() };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Names that break promtool's naming lint on purpose: GreptimeDB's names (kept for its dashboards) and prom-client's Node gauges. */
const KNOWN_LINT = new Set([
  'nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total',
  'tsdb_mito_cache_hit', 'tsdb_mito_cache_miss', 'tsdb_mito_region_count', 'tsdb_table_operator_ingest_rows', 'tsdb_meta_heartbeat_recv',
]);

test('/metrics: counters move by exactly the work done; the text parses', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env: { TSDB_STANDALONE__WAL__SYNC_WRITE: 'true' } });
  const base = s.baseUrl;
  const s0 = await scrape(base);
  assert.equal(s0.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
    assert.ok(s0.find(name).length > 0, `${name} is missing`);
  }
  assert.equal(s0.value('tsdb_mito_region_count'), 0);

  // InfluxDB line protocol: 25 rows of 5 series, then a request that does not parse.
  const lines = Array.from({ length: 25 }, (_, i) => `lp_cpu,host=h${i % 5} v=${i} ${1000 + Math.floor(i / 5)}000000`).join('\n');
  let res = await fetch(`${base}/v1/influxdb/write?db=public`, { method: 'POST', body: lines });
  assert.equal(res.status, 204, await res.text());
  res = await fetch(`${base}/v1/influxdb/write?db=public`, { method: 'POST', body: 'not line protocol' });
  assert.equal(res.status, 400);
  // Prometheus remote write: 8 samples of 3 series of 2 metrics (logical tables of one physical table).
  const rw = encodeWriteRequest([
    { labels: [{ name: '__name__', value: 'rw_metric' }, { name: 'job', value: 'a' }], samples: [1, 2, 3, 4].map((i) => ({ timestampMs: i * 1000, value: i })) },
    { labels: [{ name: '__name__', value: 'rw_metric' }, { name: 'job', value: 'b' }], samples: [1, 2, 3].map((i) => ({ timestampMs: i * 1000, value: i })) },
    { labels: [{ name: '__name__', value: 'rw_other' }, { name: 'job', value: 'a' }], samples: [{ timestampMs: 1000, value: 1 }] },
  ]);
  res = await fetch(`${base}/v1/prometheus/write?db=public`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' }, body: rw });
  assert.equal(res.status, 204, await res.text());
  // gRPC row inserts: 3 rows.
  const grpcClient = greptimeGrpc(t, s.grpc!);
  const g = await grpcClient.handle(cpuRows('grpc_cpu', [['a', 1000, 1], ['b', 1000, 2], ['c', 1000, 3]]));
  assert.ok(g.ok, JSON.stringify(g));
  // SQL: a table, 4 rows by INSERT, 3 queries over HTTP.
  assert.equal((await sql(base, 'CREATE TABLE sql_t (host STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (host))')).status, 200);
  assert.equal((await sql(base, "INSERT INTO sql_t VALUES ('a', 1000, 1), ('b', 1000, 2), ('c', 1000, 3), ('a', 2000, 4)")).status, 200);
  for (let i = 0; i < 3; i++) assert.equal((await sql(base, 'SELECT count(*) FROM lp_cpu')).status, 200);
  // A PromQL instant query.
  res = await fetch(`${base}/v1/prometheus/api/v1/query?query=rw_metric&time=5`);
  assert.equal(res.status, 200, await res.text());
  // An unknown path: counted under its own label, not its URL.
  assert.equal((await fetch(`${base}/no/such/path?x=1`)).status, 404);

  const s1 = await scrape(base);
  // Connecting may run statements of the drivers' own: counted from after.
  const mysql = await mysqlClient(s.mysql!, undefined, 1);
  const pg = await pgClient(s.postgres!, undefined, 1);
  t.after(() => Promise.all([mysql.close(), pg.close()]));
  const s1b = await scrape(base);
  for (let i = 0; i < 2; i++) assert.ok((await mysql.run('SELECT count(*) FROM sql_t')).ok);
  assert.equal((await mysql.run('SELECT * FROM no_such_table')).ok, false);
  for (let i = 0; i < 4; i++) assert.ok((await pg.run('SELECT count(*) FROM sql_t')).ok);
  const s2 = await scrape(base);
  const d21 = (name: string, labels?: Record<string, string>) => s2.value(name, labels) - s1b.value(name, labels);
  assert.equal(d21('tsdb_servers_mysql_query_elapsed_count', { kind: 'select', result: 'success' }), 2);
  assert.equal(d21('tsdb_servers_mysql_query_elapsed_count', { kind: 'select', result: 'failure' }), 1);
  assert.equal(d21('tsdb_servers_error_total', { protocol: 'mysql' }), 1);
  assert.equal(d21('tsdb_servers_postgres_query_elapsed_count', { kind: 'select', result: 'success' }), 4);
  assert.equal(d21('tsdb_query_elapsed_count', { kind: 'sql', statement: 'query', result: 'success' }), 6);
  assert.equal(d21('tsdb_query_elapsed_count', { kind: 'sql', statement: 'query', result: 'failure' }), 1);

  const d = (name: string, labels?: Record<string, string>) => s1.value(name, labels) - s0.value(name, labels);
  assert.equal(d('tsdb_servers_ingest_rows_total', { protocol: 'influxdb' }), 25);
  assert.equal(d('tsdb_servers_ingest_bytes_total', { protocol: 'influxdb' }), Buffer.byteLength(lines) + 'not line protocol'.length);
  assert.equal(d('tsdb_servers_ingest_rejected_requests_total', { protocol: 'influxdb' }), 1);
  assert.equal(d('tsdb_servers_ingest_rows_total', { protocol: 'prometheus' }), 8);
  assert.equal(d('tsdb_servers_ingest_bytes_total', { protocol: 'prometheus' }), rw.length);
  assert.equal(d('tsdb_servers_ingest_rows_total', { protocol: 'grpc' }), 3);
  assert.equal(d('tsdb_servers_ingest_rows_total', { protocol: 'sql' }), 4);
  assert.equal(d('tsdb_table_operator_ingest_rows', { db: 'public' }), 25 + 8 + 3 + 4);
  assert.equal(d('tsdb_mito_write_rows_total', { type: 'put' }), 25 + 8 + 3 + 4);
  // Every write was synced (wal.sync_write) and its bytes counted.
  assert.ok(d('tsdb_mito_wal_fsync_elapsed_count') >= 1);
  assert.ok(d('tsdb_mito_wal_write_bytes_total') > 0);
  assert.ok(s1.value('tsdb_mito_wal_bytes') > 0);
  assert.equal(d('tsdb_query_elapsed_count', { kind: 'sql', statement: 'query', result: 'success' }), 3);
  assert.equal(d('tsdb_query_elapsed_count', { kind: 'sql', statement: 'insert', result: 'success' }), 1);
  assert.equal(d('tsdb_query_elapsed_count', { kind: 'sql', statement: 'create_table', result: 'success' }), 1);
  assert.equal(d('tsdb_query_elapsed_count', { kind: 'promql', statement: 'instant', result: 'success' }), 1);
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'POST', path: '/v1/sql', code: '200' }), 5);
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'POST', path: '/v1/influxdb/write', code: '204' }), 1);
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'POST', path: '/v1/influxdb/write', code: '400' }), 1);
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'GET', path: '/v1/prometheus/api/v1/query', code: '200' }), 1);
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'GET', path: 'unmatched', code: '404' }), 1);
  assert.equal(d('tsdb_servers_http_requests_elapsed_count', { method: 'POST', path: '/v1/sql', code: '200' }), 5);
  // The scrape before this one is counted too (the request ends after its body is rendered).
  assert.equal(d('tsdb_servers_http_requests_total', { method: 'GET', path: '/metrics', code: '200' }), 1);
  assert.equal(d('tsdb_servers_grpc_requests_total', { path: '/greptime.v1.GreptimeDatabase/Handle', code: '0' }), 1);
  assert.equal(d('tsdb_servers_grpc_requests_elapsed_count', { path: '/greptime.v1.GreptimeDatabase/Handle', code: '0' }), 1);
  // lp_cpu, the metric engine's physical table, grpc_cpu, sql_t: one region each.
  assert.equal(s1.value('tsdb_mito_region_count'), 4);
  assert.equal(s1.value('tsdb_mito_memtable_rows'), 25 + 8 + 3 + 4);
  assert.ok(s1.value('tsdb_mito_write_buffer_bytes') > 0);
  // Cardinality: series per table, named by the catalog.
  assert.equal(s1.value('tsdb_table_series', { db: 'public', table: 'lp_cpu', table_id: s1.find('tsdb_table_series', { table: 'lp_cpu' })[0]!.labels['table_id']! }), 5);
  assert.equal(s1.sum('tsdb_table_series', { table: 'sql_t' }), 3);
  assert.equal(s1.sum('tsdb_table_series', { table: 'grpc_cpu' }), 3);
  // The metric engine's series count per metric (logical table), not as one physical table.
  assert.equal(s1.value('tsdb_table_series', { db: 'public', table: 'rw_metric', table_id: s1.find('tsdb_table_series', { table: 'rw_metric' })[0]!.labels['table_id']! }), 2);
  assert.equal(s1.sum('tsdb_table_series', { table: 'rw_other' }), 1);
  assert.equal(s1.find('tsdb_table_series', { table: 'tsdb_physical_table' }).length, 0);
  assert.equal(s1.value('tsdb_series'), 5 + 3 + 3 + 2 + 1);
  assert.equal(s1.value('tsdb_tables_with_series'), 5);

  // Flushes and a compaction: lp_cpu flushed twice with overlapping rows, which the compaction
  // after the second flush merges into one file.
  const s3 = await scrape(base);
  assert.equal(s3.value('tsdb_mito_sst_files'), 0);
  assert.equal((await sql(base, "ADMIN flush_table('lp_cpu')")).status, 200);
  res = await fetch(`${base}/v1/influxdb/write?db=public`, { method: 'POST', body: 'lp_cpu,host=h0 v=100 1000000000\nlp_cpu,host=h9 v=1 1001000000' });
  assert.equal(res.status, 204);
  assert.equal((await sql(base, "ADMIN flush_table('lp_cpu')")).status, 200);
  const s4 = await until('the compaction', async () => {
    const x = await scrape(base);
    return x.value('tsdb_mito_compaction_total_elapsed_count') - s3.value('tsdb_mito_compaction_total_elapsed_count') === 2 ? x : undefined;
  });
  const d43 = (name: string, labels?: Record<string, string>) => s4.value(name, labels) - s3.value(name, labels);
  assert.equal(d43('tsdb_mito_flush_requests_total', { reason: 'manual' }), 2);
  assert.equal(d43('tsdb_mito_flush_files_total'), 2);
  assert.equal(d43('tsdb_mito_flush_elapsed_count', { type: 'total' }), 2);
  assert.equal(d43('tsdb_mito_flush_errors_total'), 0);
  assert.ok(d43('tsdb_mito_flush_bytes_total') > 0);
  assert.equal(d43('tsdb_mito_compaction_requests_total'), 2);
  assert.equal(d43('tsdb_mito_compaction_failure_total'), 0);
  assert.equal(d43('tsdb_mito_compaction_input_files_total'), 2);
  assert.ok(d43('tsdb_mito_compaction_output_bytes_total') > 0);
  assert.equal(s4.value('tsdb_mito_sst_files'), 1);
  assert.equal(s4.value('tsdb_mito_sst_bytes'), d43('tsdb_mito_compaction_output_bytes_total'));
  assert.equal(s4.value('tsdb_mito_memtable_rows'), 8 + 3 + 4);
  // Active series after a flush are those of the memtable flushed last (the working set): the
  // second flush held 2 series.
  assert.equal(s4.sum('tsdb_table_series', { table: 'lp_cpu' }), 2);
  // A query after the compaction reads the new file: the file cache of local storage is absent,
  // the engine's caches are listed.
  assert.deepEqual(s4.find('tsdb_mito_cache_bytes').map((x) => x.labels['type']).sort(), ['index', 'last_row', 'vector']);

  // The whole text: every family typed once, promtool parses it and finds only the known names.
  const lint = promtoolLint(s4.body);
  for (const line of lint) assert.ok(KNOWN_LINT.has(line.split(' ')[0]!), `promtool: ${line}`);
  for (const x of s4.samples) {
    const family = x.name.replace(/_(bucket|sum|count)$/, '');
    assert.ok(s4.types.has(x.name) || s4.types.has(family), `${x.name} has no # TYPE`);
  }
});

test('/metrics answers without credentials when authentication is on, like /health', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), '--user-provider', 'static_user_provider:cmd:admin=secret']);
  assert.equal((await fetch(`${s.baseUrl}/v1/sql?db=public`, { method: 'POST', body: 'sql=select 1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status, 401);
  const m = await scrape(s.baseUrl);
  assert.equal(m.value('tsdb_servers_http_requests_total', { method: 'POST', path: '/v1/sql', code: '401' }), 1);
});
