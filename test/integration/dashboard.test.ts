/**
 * The dashboard in a real browser (issue 19 item 5): Debian's chromium, headless, driven by
 * playwright-core against a real standalone with a user provider. It logs in, writes lines on the
 * ingest page (pasted and as a file), runs a SQL and a PromQL query and sees the table and the
 * chart, browses the table (row and series counts), reads the status page, and checks the browser
 * console for errors. Screenshots go to test-artifacts/dashboard/ (git-ignored). Also: the dashboard
 * without authentication, `--disable-dashboard`, path traversal and content types over raw HTTP.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { TestCluster } from '../support/cluster.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

const CHROMIUM = process.env['TSDB_CHROMIUM'] ?? '/usr/bin/chromium';
const ARTIFACTS = new URL('../../../test-artifacts/dashboard/', import.meta.url).pathname;
const USER = { name: 'admin', password: 'dash-secret' };

function standalone(t: TestContext, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  return startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t, 'tsdb-dashboard-'), ...extra], { env });
}

async function browser(t: TestContext): Promise<Browser> {
  const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => b.close());
  return b;
}

/**
 * Console messages of type error, and uncaught page errors. Chromium logs every non-2xx response
 * as "Failed to load resource"; the ones this dashboard causes by design are let through: the 401
 * that makes it show the login form.
 */
function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    const url = msg.location().url;
    if (/Failed to load resource: the server responded with a status of 401/.test(text)) return;
    errors.push(`${text} (${url})`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  return errors;
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Replaces the text of the visible CodeMirror editor. */
async function typeQuery(page: Page, testid: string, text: string): Promise<void> {
  const content = page.locator(`[data-testid=${testid}] .cm-content`);
  await content.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  // Closes the completion list the text may have opened.
  await page.keyboard.press('Escape');
}

/** Types `text` into an editor and waits for `option` in the completion list. */
async function completes(page: Page, testid: string, text: string, option: string): Promise<void> {
  await typeQuery(page, testid, '');
  await page.keyboard.type(text);
  await page.locator('.cm-tooltip-autocomplete .cm-completionLabel').filter({ hasText: new RegExp(`^${option}$`) }).first().waitFor();
  await page.keyboard.press('Escape');
}

/** A raw GET (no URL normalisation, unlike fetch), for path traversal attempts. */
function rawGet(http: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const [host, port] = http.split(':');
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host, port: Number(port), path, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the dashboard with authentication: log in, ingest, query (table and chart), browse, status', { timeout: 180_000 }, async (t) => {
  const server = await standalone(t, ['--user-provider', `static_user_provider:cmd:${USER.name}=${USER.password}`]);
  const page = await (await browser(t)).newPage({ viewport: { width: 1400, height: 900 } });
  const errors = watchConsole(page);

  // The page itself needs no credentials; its first API call answers 401 and the login form shows.
  await page.goto(`${server.baseUrl}/dashboard`);
  assert.equal(new URL(page.url()).pathname, '/dashboard/');
  await page.getByTestId('login').waitFor();
  await page.getByTestId('login-user').fill(USER.name);
  await page.getByTestId('login-password').fill('wrong');
  await page.getByTestId('login-submit').click();
  // A wrong password: the form comes back with the server's message.
  await page.getByTestId('login').waitFor();
  assert.match(await page.locator('.login-message').innerText(), /password|user/i);
  await shot(page, '01-login');
  await page.getByTestId('login-user').fill(USER.name);
  await page.getByTestId('login-password').fill(USER.password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login').waitFor({ state: 'detached' });
  await page.getByTestId('user').getByText(USER.name).waitFor();
  await page.locator('[data-testid=db-select] option[value=public]').waitFor({ state: 'attached' });

  // Ingest: 10 points of two hosts over the last 10 minutes, pasted (v2, ns) …
  const now = Math.floor(Date.now() / 1000);
  const lines: string[] = [];
  for (let i = 0; i < 10; i++) {
    for (const [host, base] of [['web-1', 10], ['web-2', 20]] as const) lines.push(`cpu,host=${host} usage=${base + i} ${(now - 600 + i * 60) * 1e9}`);
  }
  await page.getByTestId('nav-ingest').click();
  await page.getByTestId('ingest-text').fill(lines.join('\n'));
  await page.getByTestId('ingest-precision').selectOption('ns');
  await page.getByTestId('ingest-send').click();
  await page.getByTestId('ingest-status').getByText('Written 20 lines').waitFor();
  await shot(page, '02-ingest');
  // … and a file (v1, ms).
  await page.getByTestId('ingest-text').fill('');
  await page.getByTestId('ingest-api').selectOption('v1');
  await page.getByTestId('ingest-precision').selectOption('ms');
  await page.getByTestId('ingest-file').setInputFiles({ name: 'mem.lp', mimeType: 'text/plain', buffer: Buffer.from(`mem,host=web-1 used=512 ${now * 1000}\nmem,host=web-1 used=640 ${(now - 60) * 1000}\n`) });
  await page.getByTestId('ingest-send').click();
  await page.getByTestId('ingest-status').getByText(/Written .*bytes/).waitFor();

  // SQL: completion knows the tables of the database.
  await page.getByTestId('nav-query').click();
  await completes(page, 'sql-editor', 'SELECT * FROM me', 'mem');

  // SQL: the table and the chart (a line per host).
  await typeQuery(page, 'sql-editor', 'SELECT host, usage, tsdb_timestamp FROM cpu ORDER BY tsdb_timestamp, host');
  await page.getByTestId('run').click();
  const table = page.getByTestId('result-table');
  await table.waitFor();
  assert.equal(await table.locator('tbody tr').count(), 20);
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['host', 'usage', 'tsdb_timestamp']);
  const first = table.locator('tbody tr').first().locator('td');
  assert.equal(await first.nth(1).innerText(), '10');
  assert.equal(await first.nth(2).innerText(), new Date((now - 600) * 1000).toISOString());
  const chart = page.getByTestId('chart');
  await chart.locator('canvas').waitFor();
  const legend = await chart.locator('.u-legend .u-series').allInnerTexts();
  assert.ok(legend.some((l) => l.includes('usage{host=web-1}')) && legend.some((l) => l.includes('usage{host=web-2}')), legend.join(' | '));
  await shot(page, '03-sql');

  // The file's lines are there too (Ctrl+Enter runs the query).
  await typeQuery(page, 'sql-editor', 'SELECT count(*) AS n FROM mem');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('result-table').locator('tbody td').getByText('2', { exact: true }).waitFor();

  // PromQL: metric names complete from tsdb's Prometheus API (the calls carry the credentials).
  await page.getByTestId('tab-promql').click();
  await completes(page, 'promql-editor', 'cp', 'cpu');

  // PromQL: a range query, a series per host in the table and the chart.
  await typeQuery(page, 'promql-editor', 'max by (host) (cpu)');
  await page.getByTestId('range').selectOption({ label: 'last 15m' });
  await page.getByTestId('run').click();
  await page.getByTestId('chart').locator('canvas').waitFor();
  const promRows = await page.getByTestId('result-table').locator('tbody tr').allInnerTexts();
  assert.equal(promRows.length, 2, promRows.join('\n'));
  assert.match(promRows[0]!, /web-1.*19/s);
  assert.match(promRows[1]!, /web-2.*29/s);
  await shot(page, '04-promql');

  // History: the queries run, newest first; one click puts a query back.
  const history = await page.getByTestId('history').locator('li').allInnerTexts();
  assert.equal(history.length, 3, history.join('\n'));
  assert.match(history[0]!, /PromQL max by \(host\) \(cpu\)/);
  await page.getByTestId('history').locator('li button').nth(2).click();
  assert.match(await page.locator('[data-testid=sql-editor] .cm-content').innerText(), /SELECT host, usage/);

  // Browse: databases, tables, columns, row and series counts.
  await page.getByTestId('nav-browse').click();
  await page.locator('[data-testid=db-list] button[data-db=public]').click();
  await page.locator('[data-testid=table-list] button[data-table=cpu]').click();
  await page.getByTestId('row-count').getByText('20', { exact: true }).waitFor();
  await page.getByTestId('series-count').getByText('2', { exact: true }).waitFor();
  const columns = await page.getByTestId('columns').locator('tbody tr').allInnerTexts();
  assert.deepEqual(columns.map((c) => c.split('\t').slice(0, 3).join(' ')), ['host String TAG', 'usage Float64 FIELD', 'tsdb_timestamp TimestampNanosecond TIMESTAMP']);
  await shot(page, '05-browse');
  // "Query this table" runs a query of it on the query page.
  await page.getByTestId('query-table').click();
  await page.getByTestId('result-table').locator('tbody tr').nth(19).waitFor();

  // Status: /status and /health figures, and the server's memory and regions from /metrics.
  await page.getByTestId('nav-status').click();
  await page.getByTestId('status-version').getByText(/^\d+\.\d+\.\d+ \(/).waitFor();
  assert.match(await page.getByTestId('status-uptime').innerText(), /\d+s$/);
  assert.equal(await page.getByTestId('status-health').innerText(), 'ok');
  const memory = await page.getByTestId('status-memory').innerText();
  assert.match(memory, /\d+(\.\d)? (KiB|MiB|GiB)/);
  assert.match(await page.getByTestId('status-regions').innerText(), /^\d+$/);
  await shot(page, '06-status');

  assert.deepEqual(errors, []);
});

test('the dashboard without authentication needs no login', { timeout: 120_000 }, async (t) => {
  const server = await standalone(t);
  const page = await (await browser(t)).newPage();
  const errors = watchConsole(page);
  await page.goto(`${server.baseUrl}/dashboard/`);
  await typeQuery(page, 'sql-editor', 'SELECT 1 + 1 AS two');
  await page.getByTestId('run').click();
  await page.getByTestId('result-table').locator('tbody td').getByText('2', { exact: true }).waitFor();
  assert.equal(await page.getByTestId('login').count(), 0);
  assert.deepEqual(errors, []);

  // Assets over raw HTTP: content types, gzip, cache headers, traversal.
  const index = await rawGet(server.http, '/dashboard/');
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
  const script = /src="(assets\/[^"]+\.js)"/.exec(index.body)?.[1];
  const style = /href="(assets\/[^"]+\.css)"/.exec(index.body)?.[1];
  assert.ok(script !== undefined && style !== undefined, index.body);
  const js = await rawGet(server.http, `/dashboard/${script}`, { 'accept-encoding': 'gzip' });
  assert.equal(js.status, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(js.headers['content-encoding'], 'gzip');
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok(js.body.length < 500 * 1024, `bundle is ${js.body.length} bytes gzipped`);
  assert.equal((await rawGet(server.http, `/dashboard/${style}`)).headers['content-type'], 'text/css; charset=utf-8');
  for (const path of ['/dashboard/../package.json', '/dashboard/../../package.json', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/assets/..%2f..%2f..%2fpackage.json', '/dashboard/..\\..\\package.json', '/dashboard/assets/missing.js']) {
    const res = await rawGet(server.http, path);
    assert.equal(res.status, 404, path);
    assert.doesNotMatch(res.body, /"dependencies"/, path);
  }
});

// `--disable-dashboard` is a frontend flag (spec §2.5; src/cli/precedence.test.ts checks that it sets
// http.disable_dashboard); a standalone takes the option from its configuration or environment.
/** What prom-client and the metrics of issue 19 answer, in the shapes the status page reads. */
const METRICS_FIXTURE = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 104857600
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1700000000
# HELP tsdb_mito_region_count Regions open.
# TYPE tsdb_mito_region_count gauge
tsdb_mito_region_count{worker="0"} 2
tsdb_mito_region_count{worker="1"} 1
# HELP tsdb_mito_cache_hit Cache hits.
# TYPE tsdb_mito_cache_hit counter
tsdb_mito_cache_hit{type="page"} 30
tsdb_mito_cache_hit{type="meta"} 45
# HELP tsdb_mito_cache_miss Cache misses.
# TYPE tsdb_mito_cache_miss counter
tsdb_mito_cache_miss{type="page"} 25
# HELP tsdb_mito_write_rows_total Rows written, with a "quoted\\ label".
# TYPE tsdb_mito_write_rows_total counter
tsdb_mito_write_rows_total{note="a \\"b\\", c}"} 1234
# HELP tsdb_query_elapsed Query time.
# TYPE tsdb_query_elapsed histogram
tsdb_query_elapsed_bucket{kind="sql",le="0.1"} 3
tsdb_query_elapsed_bucket{kind="sql",le="+Inf"} 4
tsdb_query_elapsed_sum{kind="sql"} 0.5
tsdb_query_elapsed_count{kind="sql"} 4
`;

test('the status page reads /metrics (Prometheus text) and shows what is there', { timeout: 60_000 }, async (t) => {
  const server = await standalone(t);
  const page = await (await browser(t)).newPage({ viewport: { width: 1400, height: 900 } });
  const errors = watchConsole(page);
  await page.route('**/metrics', (route) => route.fulfill({ status: 200, contentType: 'text/plain; version=0.0.4', body: METRICS_FIXTURE }));
  await page.goto(`${server.baseUrl}/dashboard/#status`);
  await page.getByTestId('metric-families').waitFor();
  assert.equal(await page.getByTestId('status-memory').innerText(), '100.0 MiB');
  assert.equal(await page.getByTestId('status-regions').innerText(), '3');
  assert.equal(await page.getByTestId('status-rows').innerText(), '1,234');
  assert.equal(await page.getByTestId('status-cache-ratio').innerText(), '75.0 %');
  assert.equal(await page.getByTestId('status-ingested').innerText(), '—');
  const families = await page.getByTestId('metric-families').locator('tbody tr').allInnerTexts();
  assert.deepEqual(families.map((f) => f.split('\t').slice(0, 3).join(' ')), [
    'tsdb_mito_cache_hit counter 75',
    'tsdb_mito_cache_miss counter 25',
    'tsdb_mito_region_count gauge 3',
    'tsdb_mito_write_rows_total counter 1,234',
    'tsdb_query_elapsed histogram count 4, sum 0.5',
  ]);
  await shot(page, '07-status-metrics');
  assert.deepEqual(errors, []);
});

test('http.disable_dashboard: /dashboard is 404', { timeout: 60_000 }, async (t) => {
  const server = await standalone(t, [], { TSDB_STANDALONE__HTTP__DISABLE_DASHBOARD: 'true' });
  for (const path of ['/dashboard', '/dashboard/', '/dashboard/index.html']) assert.equal((await rawGet(server.http, path)).status, 404, path);
  // The rest of the HTTP API is there.
  assert.equal((await rawGet(server.http, '/health')).status, 200);
});

test('a frontend serves the dashboard unless --disable-dashboard; a metasrv does not', { timeout: 60_000 }, async (t) => {
  const cluster = new TestCluster(t, {});
  await cluster.startMetasrv();
  const on = await cluster.startFrontend();
  const off = await cluster.startFrontend(['--disable-dashboard']);
  const page = await rawGet(on.http, '/dashboard/');
  assert.equal(page.status, 200);
  assert.match(page.body, /<script type="module" src="assets\/main-[A-Z0-9]+\.js">/);
  assert.equal((await rawGet(off.http, '/dashboard/')).status, 404);
  assert.equal((await rawGet(cluster.metasrv.http, '/dashboard/')).status, 404);
});
