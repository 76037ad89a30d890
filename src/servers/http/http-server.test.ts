import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import { formatAddress } from '../../common/net/address.js';
import type { HttpHandlers, StatusInfo } from '../handlers.js';
import { headerSafe, HttpServer, MAX_ERROR_HEADER_LENGTH, type HttpServerOptions } from './http-server.js';

const STATUS: StatusInfo = {
  version: '1.2.3',
  commit: 'abc',
  branch: 'main',
  build_date: '2026-01-01T00:00:00Z',
  node_version: 'v20',
  hostname: 'h',
  component: 'standalone',
  pid: 1,
  start_time: '2026-01-01T00:00:00Z',
  uptime: '1s',
  uptime_seconds: 1,
};

const handlers: HttpHandlers = {
  status: { status: () => STATUS },
  config: { configToml: () => 'mode = "standalone"\n' },
};

function server(t: TestContext, opts: Partial<HttpServerOptions> = {}): HttpServer {
  const s = new HttpServer({ timeout: 30_000, bodyLimit: 1024, logger: silentLogger(), ...opts }, handlers);
  t.after(() => s.shutdown());
  return s;
}

test('health endpoints answer 200 {} to GET and POST', async (t) => {
  const s = server(t);
  for (const url of ['/health', '/ready', '/v1/health']) {
    for (const method of ['GET', 'POST'] as const) {
      const res = await s.app.inject({ method, url });
      assert.equal(res.statusCode, 200, `${method} ${url}`);
      assert.deepEqual(res.json(), {});
    }
  }
});

test('/status and /config come from the handlers', async (t) => {
  const s = server(t);
  const status = await s.app.inject('/status');
  assert.deepEqual(status.json(), STATUS);
  const config = await s.app.inject('/config');
  assert.equal(config.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(config.body, 'mode = "standalone"\n');
});

test('an unknown route is 404 with the error shape', async (t) => {
  const res = await server(t).app.inject('/nope?x=1');
  assert.equal(res.statusCode, 404);
  assert.equal(res.headers['x-tsdb-err-code'], '1001');
  const body = res.json();
  assert.equal(body.code, StatusCode.Unsupported);
  assert.equal(body.error, 'Not found: GET /nope');
  assert.equal(typeof body.execution_time_ms, 'number');
});

test('a body over http.body_limit is rejected with 413', async (t) => {
  const s = server(t, { bodyLimit: 100 });
  const ok = await s.app.inject({ method: 'POST', url: '/health', payload: 'x'.repeat(100), headers: { 'content-type': 'text/plain' } });
  assert.equal(ok.statusCode, 200);
  const res = await s.app.inject({ method: 'POST', url: '/health', payload: 'x'.repeat(101), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.statusCode, 413);
  assert.deepEqual({ ...(res.json() as object), execution_time_ms: 0 }, {
    code: StatusCode.InvalidArguments,
    error: 'Request body is larger than http.body_limit (100B)',
    execution_time_ms: 0,
  });
  assert.equal(res.headers['connection'], 'close');
});

test('body_limit 0 disables the limit', async (t) => {
  const s = server(t, { bodyLimit: 0 });
  const res = await s.app.inject({ method: 'POST', url: '/health', payload: Buffer.alloc(2 * 1024 * 1024), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.statusCode, 200);
});

test('a request past http.timeout is answered 408 (remote write 504) and its signal aborts', async (t) => {
  const s = server(t, { timeout: 100 });
  let aborted = false;
  s.app.get('/slow', async (req) => {
    await new Promise<void>((resolve) => req.deadline.addEventListener('abort', () => resolve()));
    aborted = true;
    return { late: true };
  });
  // Remote write times out with 504, which Prometheus retries.
  s.app.post('/v1/prometheus/write', async (req) => {
    await new Promise<void>((resolve) => req.deadline.addEventListener('abort', () => resolve()));
    return {};
  });
  const started = Date.now();
  const res = await s.app.inject('/slow');
  assert.equal(res.statusCode, 408);
  assert.equal(res.json().code, StatusCode.DeadlineExceeded);
  assert.equal(res.json().error, 'Request timed out after 100ms');
  assert.ok(Date.now() - started < 5000);
  await sleep(10);
  assert.ok(aborted, 'the handler saw the abort');
  assert.equal((await s.app.inject({ method: 'POST', url: '/v1/prometheus/write' })).statusCode, 504);
});

test('x-tsdb-timeout sets the deadline of one request (shorter or longer than http.timeout, 0 for none); a malformed one is 400', async (t) => {
  const s = server(t, { timeout: 300 });
  s.app.get('/wait', async (req) => {
    await Promise.race([sleep(500), new Promise((resolve) => req.deadline.addEventListener('abort', resolve))]);
    return { aborted: req.deadline.aborted };
  });
  const short = await s.app.inject({ url: '/wait', headers: { 'x-tsdb-timeout': '50ms' } });
  assert.equal(short.statusCode, 408);
  assert.equal(short.json().error, 'Request timed out after 50ms');
  const longer = await s.app.inject({ url: '/wait', headers: { 'x-tsdb-timeout': '2' } });
  assert.deepEqual([longer.statusCode, longer.json()], [200, { aborted: false }]);
  const none = await s.app.inject({ url: '/wait', headers: { 'x-tsdb-timeout': '0' } });
  assert.equal(none.statusCode, 200);
  const bad = await s.app.inject({ url: '/wait', headers: { 'x-tsdb-timeout': 'soon' } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, StatusCode.InvalidArguments);
  assert.match(bad.json().error, /^Invalid x-tsdb-timeout header: invalid duration "soon"/);
});

test('over a real socket, http.timeout answers 408 after the body was read, and a client that goes away aborts the deadline', async (t) => {
  const s = server(t, { timeout: 200 });
  let abortReason: unknown;
  s.app.post('/slow', async (req) => {
    await new Promise((resolve) => req.deadline.addEventListener('abort', resolve));
    abortReason = req.deadline.reason;
    return {};
  });
  await s.start('127.0.0.1:0');
  const base = `http://${formatAddress(s.boundAddress()!)}`;
  // fastify's handlerTimeout never fired here: its timer was cleared on the request's close event, which Node emits once the body is read.
  const res = await fetch(`${base}/slow`, { method: 'POST', body: 'x=1', headers: { 'content-type': 'text/plain' } });
  assert.equal(res.status, 408);
  assert.equal(((await res.json()) as { code: number }).code, StatusCode.DeadlineExceeded);
  assert.equal((abortReason as TsdbError).code, StatusCode.DeadlineExceeded);

  abortReason = undefined;
  const client = new AbortController();
  const pending = fetch(`${base}/slow`, { method: 'POST', body: 'x=1', headers: { 'content-type': 'text/plain', 'x-tsdb-timeout': '0' }, signal: client.signal }).catch(() => undefined);
  await sleep(50);
  client.abort();
  await pending;
  for (let i = 0; i < 50 && abortReason === undefined; i++) await sleep(10);
  assert.equal((abortReason as TsdbError).code, StatusCode.Cancelled);
});

test('errors map to the status code table; internal errors are masked', async (t) => {
  const s = server(t);
  s.app.get('/missing', async () => {
    throw new TsdbError(StatusCode.TableNotFound, 'Table not found: tsdb.public.t');
  });
  s.app.get('/busy', async () => {
    throw new TsdbError(StatusCode.RegionBusy, 'region is busy');
  });
  s.app.get('/boom', async () => {
    throw new Error('secret internals');
  });
  const missing = await s.app.inject('/missing');
  assert.equal(missing.statusCode, 400);
  assert.equal(missing.headers['x-tsdb-err-code'], '4001');
  assert.equal(missing.headers['x-tsdb-err-msg'], 'Table not found: tsdb.public.t');
  assert.equal(missing.json().error, 'Table not found: tsdb.public.t');
  assert.equal((await s.app.inject('/busy')).statusCode, 503);
  const boom = await s.app.inject('/boom');
  assert.equal(boom.statusCode, 500);
  assert.deepEqual([boom.json().code, boom.json().error], [1003, 'Internal error: 1003']);
});

test('a long error message is cut in x-tsdb-err-msg (clients refuse long headers) and whole in the body', async (t) => {
  const s = server(t);
  const message = `Table not found: ${'x'.repeat(100_000)}`;
  s.app.get('/long', async () => {
    throw new TsdbError(StatusCode.TableNotFound, message);
  });
  const res = await s.app.inject('/long');
  assert.equal(res.statusCode, 400);
  const header = String(res.headers['x-tsdb-err-msg']);
  assert.equal(header.length, MAX_ERROR_HEADER_LENGTH);
  assert.ok(header.startsWith('Table not found: xxx') && header.endsWith('xxx...'));
  assert.equal(res.json().error, message);
  // Escapes are never cut in half; short messages are unchanged.
  for (let pad = 0; pad < 8; pad++) {
    const cut = headerSafe(`${'a'.repeat(1000 + pad)}${'é'.repeat(100)}`);
    assert.ok(cut.length <= MAX_ERROR_HEADER_LENGTH && /(\\u00e9|a)\.\.\.$/.test(cut), cut.slice(-20));
  }
  assert.equal(headerSafe('naïve\n'), 'na\\u00efve\\u000a');
});

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('binds port 0; a second server on the same address fails clearly', async (t) => {
  const a = server(t);
  await a.start('127.0.0.1:0');
  const bound = a.boundAddress()!;
  assert.ok(bound.port > 0);
  assert.equal((await get(bound.port, '/health')).status, 200);
  const b = server(t);
  await assert.rejects(b.start(formatAddress(bound)), {
    message: `HTTP server cannot listen on ${formatAddress(bound)}: address already in use (another tsdb or another program listens there)`,
  });
});

test('shutdown finishes in-flight requests, then stops accepting', async (t) => {
  const s = server(t);
  // Shutdown starts once the handler runs (a fixed pause instead let a busy machine start it before
  // the server had read the request, which then was not in flight).
  let enter!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  s.app.get('/work', async () => {
    enter();
    await sleep(300);
    return { done: true };
  });
  await s.start('127.0.0.1:0');
  const port = s.boundAddress()!.port;
  const inFlight = get(port, '/work');
  await entered;
  const stopped = s.shutdown();
  const res = await inFlight;
  assert.deepEqual([res.status, JSON.parse(res.body)], [200, { done: true }]);
  await stopped;
  await assert.rejects(get(port, '/health'), { code: 'ECONNREFUSED' });
});

test('shutdown is bounded: connections of requests that do not finish are closed', async (t) => {
  const s = server(t, { timeout: 0, shutdownTimeout: 200 });
  let enter!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  s.app.get('/hang', () => {
    enter();
    return new Promise(() => {});
  });
  await s.start('127.0.0.1:0');
  const port = s.boundAddress()!.port;
  const hanging = get(port, '/hang').catch((err: NodeJS.ErrnoException) => err.code);
  await entered;
  const started = Date.now();
  await s.shutdown();
  assert.ok(Date.now() - started < 2000, 'shutdown returned within its bound');
  assert.equal(await hanging, 'ECONNRESET');
});
