/**
 * Object storage through the server (issue 14 items 3 and 4), on s3rver behind a fault proxy:
 * tables on File and on S3 side by side, placed by their `storage` option and shown where they
 * live; an unknown provider refused; a restart with an empty cache downloads; a drop removes the
 * objects. Then the store becomes unreachable: flushes fail and are retried, writes go on until
 * the write buffer's reject size and then get a clear retryable 503, and once the store is back
 * every acknowledged row is flushed and read; a query needing a file the store cannot give fails
 * naming the provider, quickly.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { startS3rver, type S3Server } from '../support/object-servers.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';
import { OpendalObjectStore } from '../../src/storage/opendal-object-store.js';

interface Answer {
  readonly status: number;
  readonly code?: number;
  readonly error?: string;
  readonly rows?: unknown[][];
}

async function sql(base: string, text: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}/v1/sql`, { method: 'POST', body: new URLSearchParams({ sql: text }), headers, signal: AbortSignal.timeout(60_000) });
  const body = (await res.json()) as { code?: number; error?: string; output?: Array<{ records?: { rows: unknown[][] } }> };
  return { status: res.status, ...(body.code !== undefined && { code: body.code }), ...(body.error !== undefined && { error: body.error }), ...(body.output?.[0]?.records && { rows: body.output[0].records.rows }) };
}

async function ok(base: string, text: string): Promise<unknown[][]> {
  const a = await sql(base, text);
  assert.equal(a.status, 200, `${text}: ${a.error}`);
  return a.rows ?? [];
}

async function s3(t: TestContext): Promise<{ server: S3Server; proxy: FaultProxy }> {
  const server = await startS3rver();
  t.after(() => server.stop());
  const url = new URL(server.endpoint);
  const proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port) });
  t.after(() => proxy.close());
  return { server, proxy };
}

/** The objects under the bucket's `root`, read directly from s3rver. */
async function objects(server: S3Server, root: string, prefix = ''): Promise<string[]> {
  const store = new OpendalObjectStore({ scheme: 's3', config: server.config(root), description: `S3(${server.bucket}/${root})` });
  return (await store.list(prefix)).map((e) => e.path);
}

/** A secret that must never be shown (/config, logs, errors). */
const AZ_KEY = Buffer.from('tsdb-test-account-key-never-shown').toString('base64');

function lines(from: number, n: number, measurement = 'cpu'): string {
  return Array.from({ length: n }, (_, i) => `${measurement},host=h${(from + i) % 20} v=${from + i}i ${1_700_000_000_000 + from + i}`).join('\n');
}

test('tables on File and on S3 side by side: placed by their storage option, shown, read after a restart with an empty cache, dropped with their objects', async (t) => {
  const { server, proxy } = await s3(t);
  const home = tempDir(t);
  const config = join(home, 'tsdb.toml');
  writeFileSync(
    config,
    `[storage]
data_home = "${join(home, 'data')}"
type = "File"

[[storage.providers]]
name = "s3"
type = "S3"
bucket = "${server.bucket}"
root = "side"
endpoint = "${proxy.endpoint}"
region = "${server.region}"
access_key_id = "${server.accessKeyId}"
secret_access_key = "${server.secretAccessKey}"
cache_path = "${join(home, 'cache')}"
cache_capacity = "64MiB"

[[storage.providers]]
type = "Azblob"
container = "unused"
account_name = "devstoreaccount1"
account_key = "${AZ_KEY}"
endpoint = "http://127.0.0.1:9/devstoreaccount1"
`,
  );
  const args = ['standalone', 'start', '-c', config, '--http-addr', '127.0.0.1:0', '--log-dir', join(home, 'logs')];
  let srv: Started = await startTsdb(t, args);
  let base = srv.baseUrl;
  await ok(base, "CREATE TABLE on_s3 (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE) WITH (storage = 's3')");
  await ok(base, 'CREATE TABLE on_file (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE)');
  for (const table of ['on_s3', 'on_file']) {
    await ok(base, `INSERT INTO ${table} VALUES ('a', 1000, 1), ('b', 2000, 2), ('c', 3000, 3)`);
    await ok(base, `ADMIN FLUSH_TABLE('${table}')`);
  }

  const inBucket = (await objects(server, 'side')).filter((p) => p.endsWith('.parquet'));
  assert.equal(inBucket.length, 1, `one SST in the bucket: ${inBucket.join(', ')}`);
  const localSsts = (dir: string): string[] =>
    existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.parquet')).map((e) => join(e.parentPath, e.name)) : [];
  const local = localSsts(join(home, 'data', 'data'));
  assert.equal(local.length, 1, `one SST on File: ${local.join(', ')}`);
  assert.ok(!local[0]!.includes(inBucket[0]!.split('/').at(-1)!), 'the S3 table wrote nothing under data_home');

  const [[, create]] = (await ok(base, 'SHOW CREATE TABLE on_s3')) as [[string, string]];
  assert.match(create, /storage = 's3'/);
  const [[options]] = (await ok(base, "SELECT create_options FROM information_schema.tables WHERE table_name = 'on_s3'")) as [[string]];
  assert.match(options, /storage=s3/);

  const unknown = await sql(base, "CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH (storage = 'nope')");
  assert.equal(unknown.status, 400);
  assert.match(unknown.error!, /Object store not found: nope \(configured: File, s3, Azblob\)/);
  const shown = await (await fetch(`${base}/config`)).text();
  assert.match(shown, /container = "unused"/);
  assert.ok(!shown.includes(AZ_KEY), '/config masks the account key');
  const moved = await sql(base, "ALTER TABLE on_s3 SET 'storage' = 'File'");
  assert.equal(moved.status, 400);
  assert.match(moved.error!, /storage of a table cannot be changed/);

  // A restart with an empty cache: the S3 table's file is downloaded by the first query.
  await srv.proc.stop();
  rmSync(join(home, 'cache'), { recursive: true, force: true });
  srv = await startTsdb(t, args);
  base = srv.baseUrl;
  assert.deepEqual(await ok(base, 'SELECT host, v FROM on_s3 ORDER BY host'), [['a', 1], ['b', 2], ['c', 3]]);
  assert.deepEqual(await ok(base, 'SELECT count(*) FROM on_file'), [[3]]);
  assert.ok(existsSync(join(home, 'cache', 's3')), 'the cache of provider s3 is in cache_path/s3');

  assert.ok(!srv.proc.lines.some((l) => JSON.stringify(l).includes(AZ_KEY)), 'the account key is never logged');
  await ok(base, 'DROP TABLE on_s3');
  assert.deepEqual(await objects(server, 'side'), [], 'the dropped table left nothing in the bucket');
  assert.deepEqual(await ok(base, 'SELECT count(*) FROM on_file'), [[3]]);

  // A table whose provider is no longer configured stops the start with a message naming it.
  await ok(base, "CREATE TABLE again_s3 (ts TIMESTAMP TIME INDEX, v DOUBLE) WITH (storage = 's3')");
  await srv.proc.stop();
  writeFileSync(config, `[storage]\ndata_home = "${join(home, 'data')}"\ntype = "File"\n`);
  const failed = await startTsdb(t, args).then(
    () => undefined,
    (err: Error) => err.message,
  );
  assert.match(failed ?? 'started', /table tsdb\.public\.again_s3 is stored on storage provider "s3", which is not configured/);
});

test('the store unreachable: flushes retried, writes go on until the reject size then a clear 503, nothing acknowledged is lost; a query fails naming the provider', async (t) => {
  const { server, proxy } = await s3(t);
  const home = tempDir(t);
  const env = {
    TSDB_STANDALONE__STORAGE__TYPE: 'S3',
    TSDB_STANDALONE__STORAGE__BUCKET: server.bucket,
    TSDB_STANDALONE__STORAGE__ROOT: 'down',
    TSDB_STANDALONE__STORAGE__ENDPOINT: proxy.endpoint,
    TSDB_STANDALONE__STORAGE__REGION: server.region,
    TSDB_STANDALONE__STORAGE__ACCESS_KEY_ID: server.accessKeyId,
    TSDB_STANDALONE__STORAGE__SECRET_ACCESS_KEY: server.secretAccessKey,
    TSDB_STANDALONE__WAL__DIR: join(home, 'wal'),
    TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE: '1MiB',
    TSDB_STANDALONE__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_REJECT_SIZE: '4MiB',
  };
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', join(home, 'data'), '--log-dir', join(home, 'logs')];
  let srv = await startTsdb(t, args, { env });
  let base = srv.baseUrl;
  let next = 0;
  let acknowledged = 0;
  const write = async (n: number): Promise<Response> => {
    const body = lines(next, n);
    next += n;
    const res = await fetch(`${base}/v1/influxdb/write?db=public&precision=ms`, { method: 'POST', body, signal: AbortSignal.timeout(30_000) });
    if (res.status === 204) acknowledged += n;
    return res;
  };
  assert.equal((await write(1000)).status, 204);
  await ok(base, "ADMIN FLUSH_TABLE('cpu')");

  proxy.mode = 'refuse';
  const started = Date.now();
  const flush = await sql(base, "ADMIN FLUSH_TABLE('cpu')");
  assert.equal((await write(10)).status, 204, 'a write goes on while the store is down');
  const refused = await sql(base, "ADMIN FLUSH_TABLE('cpu')");
  assert.equal(refused.status, 503, `a flush to an unreachable store: ${JSON.stringify(flush)} ${JSON.stringify(refused)}`);
  assert.match(refused.error!, /S3\(tsdb-test\/down\)/);
  assert.ok(Date.now() - started < 20_000, `the flush failed within seconds (${Date.now() - started} ms)`);

  // Writes go on into memory until the reject size, then a clear retryable error.
  // (The first refusals may come before the background flush has failed: they say only that the buffer is full.)
  let rejection: { error: string } | undefined;
  for (let i = 0; i < 600 && !/flushes are failing/.test(rejection?.error ?? ''); i++) {
    const res = await write(2000);
    if (res.status === 204) continue;
    assert.equal(res.status, 503);
    rejection = (await res.json()) as { error: string };
    await sleep(100);
  }
  assert.ok(rejection !== undefined, 'writes were refused once the write buffer reached its reject size');
  assert.match(rejection.error, /write buffer full.*flushes are failing and being retried: .*S3\(tsdb-test\/down\)/s);
  assert.ok(acknowledged > 5000, `${acknowledged} rows acknowledged while the store was down`);
  const health = (await (await fetch(`${base}/health`)).json()) as { degraded?: Array<{ source: string; message: string }> };
  assert.ok(health.degraded?.some((d) => d.source === 'flush'), `/health says flushes fail: ${JSON.stringify(health)}`);

  // The store comes back: the retried flush empties the buffer, writes are accepted again.
  proxy.mode = 'pass';
  let accepted = false;
  for (let i = 0; i < 150 && !accepted; i++) {
    await sleep(200);
    accepted = (await write(10)).status === 204;
  }
  assert.ok(accepted, 'writes were accepted again once the store came back');
  await ok(base, "ADMIN FLUSH_TABLE('cpu')");
  assert.deepEqual(await ok(base, 'SELECT count(*) FROM cpu'), [[acknowledged]]);

  // After a restart with an empty cache and the store down, a query fails at once, naming it.
  await srv.proc.stop();
  rmSync(join(home, 'data', 'object_cache'), { recursive: true, force: true });
  srv = await startTsdb(t, args, { env });
  base = srv.baseUrl;
  proxy.mode = 'refuse';
  const before = Date.now();
  const failed = await sql(base, 'SELECT count(*) FROM cpu');
  assert.equal(failed.status, 503, JSON.stringify(failed));
  assert.match(failed.error!, /S3\(tsdb-test\/down\)/);
  assert.ok(Date.now() - before < 15_000, `failed within seconds (${Date.now() - before} ms)`);
  // A store that accepts connections and never answers: the query ends at its deadline (each
  // request to the store is also bounded, by 30 s, with an error naming it).
  proxy.mode = 'silent';
  const hung = await sql(base, 'SELECT count(*) FROM cpu', { 'x-tsdb-timeout': '2s' });
  assert.equal(hung.status, 408, JSON.stringify(hung));
  assert.match(hung.error!, /Request timed out after 2s/);
  proxy.mode = 'pass';
  assert.deepEqual(await ok(base, 'SELECT count(*) FROM cpu'), [[acknowledged]]);
});
