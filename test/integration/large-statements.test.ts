/**
 * Very large statements do not stall the server: while a 1,000,000-element IN list (6–9 MB of SQL:
 * integers on a field, NOT IN, strings on a tag, integers on the time index) is parsed, planned and
 * run, `/health` (polled every 100 ms) answers within 2 s and `SELECT 1` keeps being served; the
 * answers are right. The same holds for long lists over MySQL (text and prepared statements) and
 * PostgreSQL (simple and extended protocol), for timestamp strings read in the session's time zone,
 * and in INSERT … SELECT and DELETE. The list is folded out of the statement while tsdb parses it
 * (`src/sql/literal-lists.ts`); before that, /health waited ~9 s (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rows of `t`: ts = i s (in ms), host `h<i>`, v = 200·i. */
const ROWS = 10_000;
const MILLION = 1_000_000;

function form(sql: string): string {
  return `sql=${encodeURIComponent(sql)}`;
}

/** POSTs a form body to /v1/sql; the first cell of the first output, or throws with tsdb's error. */
async function firstCell(baseUrl: string, body: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body, signal: AbortSignal.timeout(120_000) });
  const json = (await res.json()) as { code?: number; error?: string; output?: Array<{ records?: { rows: unknown[][] }; affectedrows?: number }> };
  if (res.status !== 200) throw Object.assign(new Error(`${res.status} ${json.code}: ${json.error}`), { code: json.code });
  const out = json.output!.at(-1)!;
  return out.records !== undefined ? out.records.rows[0]?.[0] : out.affectedrows;
}

/** Polls /health every 100 ms and runs `SELECT 1` back to back until stopped; every latency seen. */
function watch(baseUrl: string): { health: number[]; small: number[]; failures: string[]; stop(): Promise<void> } {
  const health: number[] = [];
  const small: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  const polls: Promise<void>[] = [];
  const polling = (async () => {
    while (!stopped) {
      const started = performance.now();
      polls.push(
        fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(60_000) })
          .then(async (r) => {
            await r.arrayBuffer();
            if (r.status !== 200) failures.push(`/health answered ${r.status}`);
            health.push(performance.now() - started);
          })
          .catch((e: unknown) => void failures.push(`/health: ${String(e)}`)),
      );
      await sleep(100);
    }
    await Promise.all(polls);
  })();
  const querying = (async () => {
    const body = form('SELECT 1');
    while (!stopped) {
      const started = performance.now();
      try {
        const one = await firstCell(baseUrl, body);
        if (one !== 1) failures.push(`SELECT 1 gave ${String(one)}`);
        small.push(performance.now() - started);
      } catch (e) {
        failures.push(`SELECT 1: ${String(e)}`);
      }
      await sleep(50);
    }
  })();
  return {
    health,
    small,
    failures,
    stop: async () => {
      stopped = true;
      await Promise.all([polling, querying]);
    },
  };
}

const list = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');

test('1,000,000-element IN lists (HTTP, MySQL, PostgreSQL) are answered right while /health answers within 1 s and SELECT 1 is served', async (t) => {
  // The HTTP deadline raised from 30 s: on two shared cores under the whole suite, the NOT IN of a
  // million literals has taken 18–24 s, and this test is about answers and
  // responsiveness, not that deadline.
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--http-timeout', '120s', '--data-home', tempDir(t)]);
  const base = s.baseUrl;
  await firstCell(base, form('CREATE TABLE t (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, v BIGINT)'));
  const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `(${(from + k) * 1000}, 'h${from + k}', ${(from + k) * 200})`).join(',');
  // Half of the rows in an SST, half in the memtable.
  await firstCell(base, form(`INSERT INTO t (ts, host, v) VALUES ${rows(0, ROWS / 2)}`));
  await firstCell(base, form("ADMIN FLUSH_TABLE('t')"));
  await firstCell(base, form(`INSERT INTO t (ts, host, v) VALUES ${rows(ROWS / 2, ROWS)}`));

  // Every statement is built (and form-encoded) before the watch starts: this process stays responsive.
  const big: Array<{ name: string; body: string; bytes: number; expect: number }> = [
    { name: 'v IN (0, 1, …, 999999)', sql: `SELECT count(*) FROM t WHERE v IN (${list(MILLION, String)})`, expect: 5000 },
    { name: 'v NOT IN (0, 1, …, 999999)', sql: `SELECT count(*) FROM t WHERE v NOT IN (${list(MILLION, String)})`, expect: 5000 },
    { name: "host IN ('h0', 'h2', …) on the primary key", sql: `SELECT count(*) FROM t WHERE host IN (${list(MILLION, (i) => `'h${2 * i}'`)})`, expect: 5000 },
    // Rows 0, 3, …, 2997 (ts ≤ 2,999,997 ms, a multiple of 3); read as seconds, 3,334 rows would match.
    { name: 'ts IN (0, 3, 6, …) on the time index (epochs in ms)', sql: `SELECT count(*) FROM t WHERE ts IN (${list(MILLION, (i) => String(3 * i))})`, expect: 1000 },
  ].map(({ name, sql, expect }) => ({ name, body: form(sql), bytes: sql.length, expect }));
  const ints200k = list(200_000, String);
  const epochs200k = list(200_000, (i) => String(3000 * i));
  // Wall-clock texts in +08:00 of every other row's instant: right only when read in the session's zone.
  const local = list(5000, (i) => `'${new Date(2 * i * 1000 + 8 * 3600 * 1000).toISOString().slice(0, 19).replace('T', ' ')}'`);

  const my = await mysql.createConnection({ host: s.mysql!.slice(0, s.mysql!.lastIndexOf(':')), port: Number(s.mysql!.slice(s.mysql!.lastIndexOf(':') + 1)), user: 'root', database: 'public' });
  const pgc = new pg.Client({ host: s.postgres!.slice(0, s.postgres!.lastIndexOf(':')), port: Number(s.postgres!.slice(s.postgres!.lastIndexOf(':') + 1)), user: 'tsdb', database: 'public' });
  await pgc.connect();

  const w = watch(base);
  try {
    await sleep(300);
    for (const b of big) {
      const servedBefore = w.small.length;
      const started = performance.now();
      assert.equal(await firstCell(base, b.body), b.expect, b.name);
      t.diagnostic(`${b.name}: ${(b.bytes / 2 ** 20).toFixed(1)} MiB of SQL answered in ${((performance.now() - started) / 1000).toFixed(2)} s`);
      assert.ok(w.small.length > servedBefore, `SELECT 1 was served while ${b.name} ran`);
    }
    // The wire protocols: MySQL text and prepared statements, PostgreSQL simple and extended query.
    const [textRows] = await my.query(`SELECT count(*) AS n FROM t WHERE v IN (${ints200k})`);
    assert.equal(Number((textRows as Array<{ n: unknown }>)[0]!.n), 1000, 'MySQL text protocol');
    const [prepRows] = await my.execute(`SELECT count(*) AS n FROM t WHERE host = ? OR v IN (${ints200k})`, ['h9999']);
    assert.equal(Number((prepRows as Array<{ n: unknown }>)[0]!.n), 1001, 'MySQL prepared statement');
    const simple = await pgc.query(`SELECT count(*) AS n FROM t WHERE v NOT IN (${ints200k})`);
    assert.equal(Number(simple.rows[0].n), 9000, 'PostgreSQL simple query');
    const extended = await pgc.query({ text: `SELECT count(*) AS n FROM t WHERE host = $1 OR ts IN (${epochs200k})`, values: ['h9998'] });
    assert.equal(Number(extended.rows[0].n), 3335, 'PostgreSQL extended query (bound parameter), epochs on the time index');
    // Strings on the time index are read in the session's zone; lists in INSERT … SELECT and DELETE.
    assert.equal(await firstCell(base, form(`SELECT count(*) FROM t WHERE ts IN (${local})`), { 'x-tsdb-timezone': '+08:00' }), 5000);
    assert.equal(await firstCell(base, form(`SELECT count(*) FROM t WHERE ts IN (${local})`)), 0, 'the same texts in UTC are other instants');
    await firstCell(base, form('CREATE TABLE t2 (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, v BIGINT)'));
    assert.equal(await firstCell(base, form(`INSERT INTO t2 SELECT * FROM t WHERE host IN (${list(5000, (i) => `'h${i}'`)})`)), 5000);
    assert.equal(await firstCell(base, form(`DELETE FROM t2 WHERE v NOT IN (${list(2000, (i) => String(200 * i))})`)), 3000);
    assert.equal(await firstCell(base, form('SELECT count(*) FROM t2')), 2000);
    // The sandbox still sees the whole statement.
    await assert.rejects(firstCell(base, form(`SELECT count(*) FROM t WHERE v IN (${list(5000, String)}) AND current_setting('threads') = '1'`)), (e: { code?: number }) => e.code === 7006);
  } finally {
    await w.stop();
    // Before the server is killed (its t.after hook).
    await Promise.all([my.end(), pgc.end()]);
  }
  const max = (xs: number[]) => Math.max(0, ...xs);
  t.diagnostic(`max /health latency ${max(w.health).toFixed(0)} ms over ${w.health.length} polls; max SELECT 1 latency ${max(w.small).toFixed(0)} ms over ${w.small.length} queries`);
  assert.deepEqual(w.failures, []);
  assert.ok(w.health.length >= 20, `${w.health.length} polls`);
  // The stall this guards against was ~9 s; on two cores shared with other test files (loads of 7–10)
  // GC and scheduling alone gave single answers of 1.0–1.5 s.
  assert.ok(max(w.health) < 2000, `every /health answered within 2 s (worst: ${max(w.health).toFixed(0)} ms)`);
});
