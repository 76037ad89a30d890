/**
 * One query cannot starve the server (issue 13, items 2 and 5), against the real `bin/tsdb` with a
 * small query budget: runaway queries of each kind fail with "resources exhausted" (6000, HTTP 400)
 * while `/health`, line-protocol writes and `SELECT 1` keep answering within their usual time; a
 * query past its memory budget spills to `{data_home}/tmp/duckdb` (created at start) and
 * succeeds; a flush succeeds while the queries' memory is used up; `max_concurrent_queries` queues
 * the rest and refuses a query that waited past `concurrent_query_limiter_timeout` (6001, HTTP 429);
 * a far-future row does not turn a RANGE … FILL query into a runaway.
 *
 * The latency bounds are loose (a 2-core machine shared with other work) but fail a stall of
 * seconds; the figures seen are printed as diagnostics.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  readonly status: number;
  readonly code: number;
  readonly error?: string;
  readonly rows?: unknown[][];
  readonly ms: number;
}

async function sql(baseUrl: string, text: string, timeoutMs = 120_000): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `sql=${encodeURIComponent(text)}`,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = (await res.json()) as { code?: number; error?: string; output?: Array<{ records?: { rows: unknown[][] } }> };
  return { status: res.status, code: json.code ?? 0, ...(json.error !== undefined && { error: json.error }), ...(json.output?.at(-1)?.records !== undefined && { rows: json.output.at(-1)!.records!.rows }), ms: performance.now() - started };
}

function ok(a: Answer, what: string): unknown[][] {
  assert.equal(a.status, 200, `${what}: ${a.status} ${a.code} ${a.error ?? ''}`);
  return a.rows ?? [];
}

function exhausted(a: Answer, pattern: RegExp, what: string): void {
  assert.equal(a.code, 6000, `${what}: ${a.status} ${a.code} ${a.error ?? ''}`);
  assert.equal(a.status, 400, what);
  assert.match(a.error!, pattern, what);
}

/** Latencies of /health (every 100 ms), `SELECT 1` and a one-line line-protocol write (back to back) until stopped. */
function watch(baseUrl: string): { stop(): Promise<{ health: number[]; select1: number[]; write: number[]; failures: string[] }> } {
  const health: number[] = [];
  const select1: number[] = [];
  const write: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  const timed = async (into: number[], what: string, run: () => Promise<Response>) => {
    const started = performance.now();
    try {
      const res = await run();
      const body = await res.text();
      if (res.status !== 200 && res.status !== 204) failures.push(`${what}: ${res.status} ${body}`);
      into.push(performance.now() - started);
    } catch (e) {
      failures.push(`${what}: ${String(e)}`);
    }
  };
  const loops = [
    (async () => {
      const polls: Promise<void>[] = [];
      while (!stopped) {
        polls.push(timed(health, '/health', () => fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(60_000) })));
        await sleep(100);
      }
      await Promise.all(polls);
    })(),
    (async () => {
      while (!stopped) {
        await timed(select1, 'SELECT 1', () => fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'sql=SELECT%201', signal: AbortSignal.timeout(60_000) }));
        await sleep(50);
      }
    })(),
    (async () => {
      let i = 0;
      while (!stopped) {
        const line = `watch,host=h${i % 10} v=${i} ${Date.now()}000000`;
        i++;
        await timed(write, 'write', () => fetch(`${baseUrl}/v1/influxdb/write?db=public`, { method: 'POST', body: line, signal: AbortSignal.timeout(60_000) }));
        await sleep(50);
      }
    })(),
  ];
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return { health, select1, write, failures };
    },
  };
}

const max = (xs: number[]) => Math.round(Math.max(0, ...xs));
const p50 = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);

/** The budgets of the first server: small enough that each runaway meets one within seconds. */
const BUDGET_ENV = {
  TSDB_STANDALONE__QUERY__MEMORY_POOL_SIZE: '128MiB',
  TSDB_STANDALONE__QUERY__MAX_SPILL_SIZE: '2GiB',
  TSDB_STANDALONE__QUERY__MAX_RESULT_ROWS: '200000',
  TSDB_STANDALONE__QUERY__MAX_RESULT_BYTES: '32MiB',
};

async function start(t: TestContext, env: Record<string, string>): Promise<Started & { dataHome: string }> {
  const dataHome = tempDir(t);
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dataHome], { env });
  return { ...s, dataHome };
}

/** `ff`: two hosts, a row a minute for 10 minutes. */
async function rangeTable(baseUrl: string): Promise<void> {
  ok(await sql(baseUrl, 'CREATE TABLE ff (host STRING, ts TIMESTAMP TIME INDEX, v DOUBLE, PRIMARY KEY (host))'), 'create ff');
  const values = Array.from({ length: 20 }, (_, i) => `('h${i % 2}', ${1_700_000_000_000 + Math.floor(i / 2) * 60_000}, ${i})`).join(', ');
  ok(await sql(baseUrl, `INSERT INTO ff VALUES ${values}`), 'insert ff');
}

const RANGE_FILL = "SELECT ts, host, avg(v) RANGE '5m' FILL PREV FROM ff ALIGN '1m' BY (host) ORDER BY host, ts";

test('runaway queries fail with "resources exhausted" while /health, writes and SELECT 1 answer promptly', async (t) => {
  const { baseUrl } = await start(t, BUDGET_ENV);
  await rangeTable(baseUrl);
  ok(await sql(baseUrl, "INSERT INTO ff VALUES ('h0', 86286002000000, 99)"), 'a far-future row');
  // Writes create their table before the watch starts timing them.
  assert.equal((await fetch(`${baseUrl}/v1/influxdb/write?db=public`, { method: 'POST', body: 'watch,host=h v=0 1700000000000000000' })).status, 204);
  const runaways: Array<[string, string, RegExp]> = [
    ['string_agg of GBs', "SELECT length(string_agg(repeat('x', 1000), ',')) FROM range(3000000)", /memory of queries \(query\.memory_pool_size\) is used up/],
    ['a huge cross join', 'SELECT * FROM range(100000) a, range(100000) b', /more than 200000 rows \(query\.max_result_rows\)/],
    ['a 200 MB string', "SELECT repeat('x', 200000000) AS s", /more than 32MiB \(query\.max_result_bytes\)/],
    ['a recursive CTE', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r, range(10) WHERE n < 8) SELECT * FROM r', /more than 200000 rows \(query\.max_result_rows\)/],
    ['RANGE FILL over a far-future row', RANGE_FILL, /Range query too large: FILL would make \d+ slots/],
  ];
  await sleep(300);
  const watcher = watch(baseUrl);
  let answers: Answer[];
  let large: Answer;
  let elapsed: number;
  let seen: Awaited<ReturnType<ReturnType<typeof watch>['stop']>>;
  try {
    await sleep(500);
    const started = performance.now();
    // Beside them, a heavy query within the budgets succeeds: a large result, converted while the others run.
    const largeAnswer = sql(baseUrl, 'SELECT i, i * 2 AS j FROM range(150000) t(i)');
    answers = await Promise.all(runaways.map(([, text]) => sql(baseUrl, text)));
    large = await largeAnswer;
    elapsed = performance.now() - started;
    await sleep(300);
  } finally {
    // Stopped whatever happens, or its loops would keep the test running.
    seen = await watcher.stop();
  }
  const largeRows = ok(large, 'the large result');
  assert.deepEqual([largeRows.length, largeRows[149999]], [150000, [149999, 299998]]);
  // At once they share the queries' memory: one may meet the budget another used up. Each fails
  // with "resources exhausted"; alone, each meets its own limit.
  runaways.forEach(([what], i) => exhausted(answers[i]!, /./, what));
  for (const [what, text, pattern] of runaways) exhausted(await sql(baseUrl, text), pattern, `${what}, alone`);
  t.diagnostic(`five runaways and a large result at once ended in ${Math.round(elapsed)} ms: ${runaways.map(([what], i) => `${what} ${Math.round(answers[i]!.ms)} ms`).join(', ')}`);
  t.diagnostic(`meanwhile: /health ×${seen.health.length} p50 ${p50(seen.health)} max ${max(seen.health)} ms; SELECT 1 ×${seen.select1.length} p50 ${p50(seen.select1)} max ${max(seen.select1)} ms; write ×${seen.write.length} p50 ${p50(seen.write)} max ${max(seen.write)} ms`);
  assert.deepEqual(seen.failures, []);
  assert.ok(seen.health.length >= 5 && seen.select1.length >= 3 && seen.write.length >= 3, 'each was timed while the runaways ran');
  assert.ok(max(seen.health) < 2000, `/health waited ${max(seen.health)} ms`);
  assert.ok(max(seen.select1) < 3000, `SELECT 1 waited ${max(seen.select1)} ms`);
  assert.ok(max(seen.write) < 3000, `a write waited ${max(seen.write)} ms`);
  // The server is whole afterwards.
  assert.deepEqual(ok(await sql(baseUrl, 'SELECT 1'), 'SELECT 1'), [[1]]);
});

test('a query past its memory budget spills to {data_home}/tmp/duckdb, created at start, and succeeds; a flush succeeds while the budget is used up', async (t) => {
  const { baseUrl, dataHome } = await start(t, BUDGET_ENV);
  const spill = join(dataHome, 'tmp', 'duckdb', 'query');
  assert.ok(existsSync(spill), 'created at start');
  assert.deepEqual(readdirSync(spill), []);
  // A window over 5M rows of ~50 bytes: about twice the 128 MiB budget.
  const heavy = 'SELECT max(rn), count(DISTINCT pad) FROM (SELECT row_number() OVER (ORDER BY r) AS rn, pad FROM (SELECT random() AS r, repeat(\'x\', 30) || (i % 7) AS pad FROM range(5000000) t(i)))';
  let files = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      files = Math.max(files, readdirSync(spill).length);
      await sleep(20);
    }
  })();
  const answer = await sql(baseUrl, heavy);
  polling = false;
  await poller;
  assert.deepEqual(ok(answer, 'the spilling query'), [[5000000, 7]]);
  assert.ok(files > 0, 'spill files were written under tmp/duckdb/query');
  t.diagnostic(`the query spilled (${files} files at most) and took ${Math.round(answer.ms)} ms`);

  // While queries keep using up their memory (each fails with 6000), rows are written and flushed.
  let busy = true;
  const failures: Answer[] = [];
  const hogs = Array.from({ length: 3 }, async () => {
    while (busy) failures.push(await sql(baseUrl, "SELECT length(string_agg(repeat('x', 1000), ',')) FROM range(3000000)"));
  });
  await sleep(200);
  const lines = Array.from({ length: 1000 }, (_, i) => `flushed,host=h${i % 5} v=${i} ${1_700_000_000_000 + i}000000`).join('\n');
  assert.equal((await fetch(`${baseUrl}/v1/influxdb/write?db=public`, { method: 'POST', body: lines })).status, 204);
  const flush = await sql(baseUrl, "ADMIN FLUSH_TABLE('flushed')");
  busy = false;
  await Promise.all(hogs);
  ok(flush, 'the flush');
  assert.ok(failures.length > 0 && failures.every((a) => a.code === 6000), `the queries met their budget: ${failures.map((a) => a.code).join(',')}`);
  assert.deepEqual(ok(await sql(baseUrl, 'SELECT count(*), sum(v) FROM flushed'), 'count'), [[1000, 499500]]);
  const sst = readdirSync(join(dataHome, 'data'), { recursive: true }).filter((f) => String(f).endsWith('.parquet'));
  assert.ok(sst.length > 0, 'the flush wrote an SST');
});

test('max_concurrent_queries: the rest wait their turn; a wait past concurrent_query_limiter_timeout fails with 6001 (HTTP 429)', async (t) => {
  // One slot, no queue timeout: a query sent while another runs waits for it, then runs.
  const one = await start(t, { TSDB_STANDALONE__MAX_CONCURRENT_QUERIES: '1', TSDB_STANDALONE__CONCURRENT_QUERY_LIMITER_TIMEOUT: '0s' });
  const slow = 'SELECT count(*) FROM range(20000) a, range(20000) b WHERE a.range + b.range = -1';
  let slowDone = 0;
  const first = sql(one.baseUrl, slow).then((a) => ((slowDone = performance.now()), a));
  await sleep(300);
  const second = await sql(one.baseUrl, 'SELECT 1');
  const done = performance.now();
  assert.deepEqual(ok(await first, 'the slow query'), [[0]]);
  assert.deepEqual(ok(second, 'the queued query'), [[1]]);
  assert.ok(slowDone > 0 && done >= slowDone, 'the queued query ran after the one holding the slot');
  t.diagnostic(`the queued SELECT 1 waited ${Math.round(second.ms)} ms for the slow query`);
  await one.proc.stop('SIGKILL');

  // One slot, a 1 s queue timeout: a query that never ends holds the slot; the next is refused.
  const two = await start(t, { TSDB_STANDALONE__MAX_CONCURRENT_QUERIES: '1', TSDB_STANDALONE__CONCURRENT_QUERY_LIMITER_TIMEOUT: '1s' });
  void sql(two.baseUrl, 'SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1', 600_000).catch(() => {});
  await sleep(300);
  const refused = await sql(two.baseUrl, 'SELECT 1');
  assert.equal(refused.status, 429);
  assert.equal(refused.code, 6001);
  assert.match(refused.error!, /Too many concurrent queries: waited 1s \(concurrent_query_limiter_timeout\) for one of the 1 query slots \(max_concurrent_queries\)/);
  assert.ok(refused.ms >= 900 && refused.ms < 5000, `refused after ${Math.round(refused.ms)} ms`);
  // Health and writes do not queue behind queries.
  assert.equal((await fetch(`${two.baseUrl}/health`)).status, 200);
  assert.equal((await fetch(`${two.baseUrl}/v1/influxdb/write?db=public`, { method: 'POST', body: 'm,host=a v=1 1700000000000000000' })).status, 204);
});

test('a far-future row does not turn RANGE … FILL into a runaway: the query fails at once naming the limit', async (t) => {
  const { baseUrl } = await start(t, BUDGET_ENV);
  await rangeTable(baseUrl);
  const rows = ok(await sql(baseUrl, RANGE_FILL), 'normal rows');
  assert.equal(rows.length, 28, 'two hosts: 10 minutes of rows, slots from 4 minutes before the first');
  // Year ~4704, next to the normal rows (issue 13).
  ok(await sql(baseUrl, "INSERT INTO ff VALUES ('h0', 86286002000000, 99)"), 'a far-future row');
  const answer = await sql(baseUrl, RANGE_FILL);
  exhausted(answer, /^Range query too large: FILL would make \d{10} slots \(groups × ALIGN steps from each group's first row to its last\), more than 200000 \(query\.max_result_rows\); narrow its time range with WHERE$/, 'FILL over a far-future row');
  assert.ok(answer.ms < 5000, `refused in ${Math.round(answer.ms)} ms`);
  // Narrowed to the normal rows, it answers; without FILL no slot is made between the rows.
  assert.equal(ok(await sql(baseUrl, RANGE_FILL.replace(' ALIGN', " WHERE ts < '2100-01-01' ALIGN")), 'narrowed').length, 28);
  assert.equal(ok(await sql(baseUrl, RANGE_FILL.replace(' FILL PREV', '')), 'without FILL').length, 28 + 5);
  // A RANGE much longer than its ALIGN is refused before it runs.
  exhausted(await sql(baseUrl, "SELECT ts, host, avg(v) RANGE '30d' FROM ff ALIGN '1s' BY (host)"), /each row in 2592000 slots, more than 200000 \(query\.max_result_rows\)/, 'RANGE 30d ALIGN 1s');
});

test('a query that spills past query.max_spill_size is stopped, even where DuckDB does not count its spill (a recursive CTE)', async (t) => {
  const { baseUrl, dataHome } = await start(t, { ...BUDGET_ENV, TSDB_STANDALONE__QUERY__MAX_SPILL_SIZE: '256MiB' });
  const spill = join(dataHome, 'tmp', 'duckdb', 'query');
  let most = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      let bytes = 0;
      for (const f of readdirSync(spill)) bytes += statSync(join(spill, f), { throwIfNoEntry: false })?.size ?? 0;
      most = Math.max(most, bytes);
      await sleep(20);
    }
  })();
  // Tenfold rows per step: DuckDB's max_temp_directory_size lets it write gigabytes.
  const answer = await sql(baseUrl, 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r, range(10) WHERE n < 11) SELECT count(*) FROM r');
  polling = false;
  await poller;
  exhausted(answer, /^Resources exhausted: queries spilled [\d.]+[KMG]?i?B to disk, more than query\.max_spill_size \(256MiB\); this query, the longest-running, was stopped$/, 'the recursive CTE');
  t.diagnostic(`stopped after ${Math.round(answer.ms)} ms with ${Math.round(most / 2 ** 20)} MiB spilled at most`);
  assert.ok(most < 1024 * 2 ** 20, `spilled ${most} bytes`);
  assert.deepEqual(ok(await sql(baseUrl, 'SELECT 1'), 'SELECT 1 afterwards'), [[1]]);
});
