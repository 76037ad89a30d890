import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { gzipSync } from 'node:zlib';
import { silentLogger } from '../../common/logging.js';
import type { HttpHandlers, StatusInfo } from '../handlers.js';
import { dashboardPath, dashboardRoutes } from './dashboard-routes.js';
import { HttpServer } from './http-server.js';

const handlers: HttpHandlers = {
  status: { status: () => ({}) as StatusInfo },
  config: { configToml: () => '' },
};

const INDEX = '<!doctype html><title>t</title>';
const SCRIPT = 'console.log("dashboard")';

const SECRET = 'TOP-SECRET-CONTENT';

/** A server with the dashboard routes over a built-looking directory (or an empty one), and a secret file beside it. */
function server(t: TestContext, built = true): { s: HttpServer; secret: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-dashboard-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  if (built) {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'index.html.gz'), gzipSync(INDEX));
    writeFileSync(join(dir, 'assets', 'main-ABC.js'), SCRIPT);
    writeFileSync(join(dir, 'assets', 'main-ABC.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(dir, 'assets', 'main-ABC.css'), 'body{}');
  }
  const secret = `${basename(dir)}-secret.txt`;
  writeFileSync(join(dir, '..', secret), SECRET);
  t.after(() => rmSync(join(dir, '..', secret), { force: true }));
  const s = new HttpServer({ timeout: 30_000, bodyLimit: 1024, logger: silentLogger() }, handlers);
  dashboardRoutes(s.app, dir);
  t.after(() => s.shutdown());
  return { s, secret };
}

test('/dashboard redirects to /dashboard/, which is index.html, not cached', async (t) => {
  const { s } = server(t);
  const redirect = await s.app.inject({ url: '/dashboard?x=1' });
  assert.equal(redirect.statusCode, 301);
  assert.equal(redirect.headers['location'], '/dashboard/?x=1');
  const res = await s.app.inject({ url: '/dashboard/' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'no-cache');
  assert.equal(res.body, INDEX);
});

test('assets have their content type, are cached for good, and come gzipped to clients that accept it', async (t) => {
  const { s } = server(t);
  const js = await s.app.inject({ url: '/dashboard/assets/main-ABC.js' });
  assert.equal(js.statusCode, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(js.headers['content-encoding'], undefined);
  assert.equal(js.body, SCRIPT);
  const gz = await s.app.inject({ url: '/dashboard/assets/main-ABC.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gz.headers['vary'], 'accept-encoding');
  assert.deepEqual(gz.rawPayload, gzipSync(SCRIPT));
  const refused = await s.app.inject({ url: '/dashboard/assets/main-ABC.js', headers: { 'accept-encoding': 'gzip;q=0' } });
  assert.equal(refused.headers['content-encoding'], undefined);
  // No .gz beside it: sent as is.
  const css = await s.app.inject({ url: '/dashboard/assets/main-ABC.css', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  assert.equal(css.headers['content-encoding'], undefined);
  assert.equal(css.body, 'body{}');
});

test('a page path falls back to index.html; a missing asset is 404', async (t) => {
  const { s } = server(t);
  const page = await s.app.inject({ url: '/dashboard/browse/public' });
  assert.equal(page.statusCode, 200);
  assert.equal(page.body, INDEX);
  for (const url of ['/dashboard/assets/other.js', '/dashboard/favicon.ico', '/dashboard/assets/x']) {
    assert.equal((await s.app.inject({ url })).statusCode, 404, url);
  }
});

test('paths that try to leave the directory are 404', async (t) => {
  const { s, secret: name } = server(t);
  for (const url of [
    `/dashboard/%2e%2e/${name}`,
    '/dashboard/..%2f..%2fetc%2fpasswd',
    '/dashboard/assets%2f..%2f..%2fetc%2fpasswd',
    '/dashboard/.%2findex.html',
    '/dashboard/..%5c..%5cetc%5cpasswd',
    '/dashboard/index.html%00.js',
  ]) {
    const res = await s.app.inject({ url });
    assert.equal(res.statusCode, 404, url);
    assert.ok(!res.body.includes(SECRET) && !res.body.includes('root:'), url);
  }
  assert.equal(dashboardPath('/dashboard/a/../b'), undefined);
  assert.equal(dashboardPath('/dashboard/%E0%A4%A'), undefined);
  assert.equal(dashboardPath('/dashboard/assets/main.js?v=1'), 'assets/main.js');
});

test('a dashboard that was not built answers 404 saying so', async (t) => {
  const { s } = server(t, false);
  const res = await s.app.inject({ url: '/dashboard/' });
  assert.equal(res.statusCode, 404);
  assert.match(res.json<{ error: string }>().error, /not built/);
});

test('an HTTP server that answers no SQL (datanode, metasrv) has no dashboard, even when asked', async (t) => {
  const off = new HttpServer({ timeout: 30_000, bodyLimit: 1024, logger: silentLogger(), dashboard: true }, handlers);
  t.after(() => off.shutdown());
  assert.equal((await off.app.inject({ url: '/dashboard' })).statusCode, 404);
});
