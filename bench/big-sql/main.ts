/**
 * Very large SQL statements against a running tsdb, and whether the server stays responsive while
 * it handles them: each statement is sent over HTTP while `/health` is polled every 100 ms and
 * `SELECT 1` runs back to back; reported per statement: its size, the time to its answer, and the
 * worst `/health` and `SELECT 1` latencies seen meanwhile.
 *
 *   npm run build && node dist/bench/big-sql/main.js                    # this work tree's tsdb
 *   node dist/bench/big-sql/main.js --repo /path/to/other/checkout      # another build's bin/tsdb
 *   node dist/bench/big-sql/main.js --cases in,not_in --elements 100000 # fewer, smaller
 *   node dist/bench/big-sql/main.js --cases insert --insert-mb 62       # an INSERT of a 62 MiB body (limit: 64)
 *   node dist/bench/big-sql/main.js --cpu-prof /tmp/prof                # profile the server
 *
 * Cases: `in` (`v IN (0, 1, …)` on a BIGINT field), `not_in`, `tag_in` (strings on the primary key
 * column), `ts_in` (integers on the time index: epochs in its unit), `or` (`v = 0 OR v = 1 OR …`),
 * `case` (`CASE v WHEN 0 THEN … END`), `insert` (one multi-row INSERT); `mysql_in`, `mysql_prepared_in`
 * (`host = ? OR v IN (…)`), `pg_in`, `pg_extended_in` (`host = $1 OR v IN (…)`): `in` over the wire
 * protocols (mysql2, pg).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverages, machine } from '../common/machine.js';
import { startTsdb } from '../ingest/tsdb-server.js';

interface Args {
  repo: string;
  cases: string[];
  elements: number;
  insertMb: number;
  cpuProf?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { repo: new URL('../../..', import.meta.url).pathname, cases: ['in', 'not_in', 'tag_in', 'ts_in'], elements: 1_000_000, insertMb: 62 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    if (a === '--help' || a === '-h') {
      process.stdout.write('node dist/bench/big-sql/main.js [--repo <checkout>] [--cases in,not_in,tag_in,ts_in,or,case,insert,mysql_in,mysql_prepared_in,pg_in,pg_extended_in] [--elements N] [--insert-mb N] [--cpu-prof <dir>]\n');
      process.exit(0);
    }
    if (a === '--repo' && v) args.repo = v;
    else if (a === '--cases' && v) args.cases = v.split(',');
    else if (a === '--elements' && v) args.elements = Number(v);
    else if (a === '--insert-mb' && v) args.insertMb = Number(v);
    else if (a === '--cpu-prof' && v) args.cpuProf = v;
    else {
      process.stderr.write(`unknown argument or missing value: ${a} (--help lists the options)\n`);
      process.exit(2);
    }
    i++;
  }
  return args;
}

const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

/** Rows of table `t`: v = 200·i (half of them below 1,000,000), host `h<i>`, ts = i seconds in ms. */
const ROWS = 10_000;

async function sql(baseUrl: string, text: string, timeoutMs = 600_000): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `sql=${encodeURIComponent(text)}`,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - started };
}

function firstCell(body: unknown): unknown {
  return (body as { output?: Array<{ records?: { rows?: unknown[][] } }> }).output?.[0]?.records?.rows?.[0]?.[0];
}

/** The statement of a case, and the answer it should give. */
function statementOf(kind: string, n: number, insertMb: number): { text: string; expect: (body: unknown) => boolean } {
  const ints = (from = 0) => Array.from({ length: n }, (_, i) => String(from + i)).join(',');
  const below = Math.min(ROWS, Math.ceil(n / 200));
  switch (kind) {
    case 'in':
      return { text: `SELECT count(*) FROM t WHERE v IN (${ints()})`, expect: (b) => Number(firstCell(b)) === below };
    case 'not_in':
      return { text: `SELECT count(*) FROM t WHERE v NOT IN (${ints()})`, expect: (b) => Number(firstCell(b)) === ROWS - below };
    case 'tag_in':
      return { text: `SELECT count(*) FROM t WHERE host IN (${Array.from({ length: n }, (_, i) => `'h${i}'`).join(',')})`, expect: (b) => Number(firstCell(b)) === Math.min(ROWS, n) };
    case 'ts_in':
      return { text: `SELECT count(*) FROM t WHERE ts IN (${Array.from({ length: n }, (_, i) => String(i * 1000)).join(',')})`, expect: (b) => Number(firstCell(b)) === Math.min(ROWS, n) };
    case 'or':
      return { text: `SELECT count(*) FROM t WHERE ${Array.from({ length: n }, (_, i) => `v = ${i}`).join(' OR ')}`, expect: (b) => Number(firstCell(b)) === below };
    case 'case':
      return { text: `SELECT sum(CASE v ${Array.from({ length: n }, (_, i) => `WHEN ${i} THEN 1`).join(' ')} ELSE 0 END) FROM t`, expect: (b) => Number(firstCell(b)) === below };
    case 'insert': {
      // About insertMb MiB once form-encoded (`,` is `%2C`; the rest of a row is not encoded).
      const rows: string[] = [];
      let size = 0;
      for (let i = 0; size < insertMb * 2 ** 20 - 200; i++) {
        const r = `('h${i % 1000}',${i},${i})`;
        rows.push(r);
        size += r.length + 4 + 3; // its two commas and the one between rows, each 3 bytes encoded
      }
      return { text: `INSERT INTO ins (host, v, ts) VALUES ${rows.join(',')}`, expect: (b) => (b as { output?: Array<{ affectedrows?: number }> }).output?.[0]?.affectedrows === rows.length };
    }
    default:
      throw new Error(`unknown case ${kind}`);
  }
}

interface Poll {
  max: number;
  count: number;
  failures: number;
}

/** Polls `/health` every 100 ms until `stop`; the worst latency (a poll not answered yet counts as it waits). */
function pollHealth(baseUrl: string, signal: { stop: boolean }): { result: Promise<Poll> } {
  const poll: Poll = { max: 0, count: 0, failures: 0 };
  const result = (async () => {
    const inFlight: Promise<void>[] = [];
    while (!signal.stop) {
      const started = performance.now();
      inFlight.push(
        fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(600_000) })
          .then(async (r) => {
            await r.arrayBuffer();
            if (r.status !== 200) poll.failures++;
          })
          .catch(() => void poll.failures++)
          .finally(() => {
            poll.count++;
            poll.max = Math.max(poll.max, performance.now() - started);
          }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(inFlight);
    return poll;
  })();
  return { result };
}

/** Runs `SELECT 1` back to back until `stop`. */
async function smallQueries(baseUrl: string, signal: { stop: boolean }): Promise<Poll> {
  const poll: Poll = { max: 0, count: 0, failures: 0 };
  while (!signal.stop) {
    const r = await sql(baseUrl, 'SELECT 1');
    poll.count++;
    poll.max = Math.max(poll.max, r.ms);
    if (r.status !== 200 || Number(firstCell(r.body)) !== 1) poll.failures++;
    await new Promise((res) => setTimeout(res, 20));
  }
  return poll;
}

/** A case sent over MySQL or PostgreSQL instead of HTTP: its statement and the count it should give. */
async function overWire(kind: string, n: number, ports: { mysql: number; postgres: number }): Promise<{ bytes: number; run: () => Promise<unknown>; expect: number; close: () => Promise<void> } | undefined> {
  const ints = Array.from({ length: n }, (_, i) => String(i)).join(',');
  const below = Math.min(ROWS, Math.ceil(n / 200));
  if (kind.startsWith('mysql')) {
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: ports.mysql, user: 'root', database: 'public' });
    const text = kind === 'mysql_in' ? `SELECT count(*) AS n FROM t WHERE v IN (${ints})` : `SELECT count(*) AS n FROM t WHERE host = ? OR v IN (${ints})`;
    const run = async () => Number(((kind === 'mysql_in' ? (await conn.query(text))[0] : (await conn.execute(text, [`h${ROWS - 1}`]))[0]) as Array<{ n: unknown }>)[0]!.n);
    return { bytes: text.length, run, expect: kind === 'mysql_in' ? below : below + 1, close: () => conn.end() };
  }
  if (kind.startsWith('pg')) {
    const client = new pg.Client({ host: '127.0.0.1', port: ports.postgres, user: 'tsdb', database: 'public' });
    await client.connect();
    const text = kind === 'pg_in' ? `SELECT count(*) AS n FROM t WHERE v IN (${ints})` : `SELECT count(*) AS n FROM t WHERE host = $1 OR v IN (${ints})`;
    const run = async () => Number((kind === 'pg_in' ? await client.query(text) : await client.query({ text, values: [`h${ROWS - 1}`] })).rows[0].n);
    return { bytes: text.length, run, expect: kind === 'pg_in' ? below : below + 1, close: () => client.end() };
  }
  return undefined;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const loadAtStart = loadAverages();
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-big-sql-'));
  const server = await startTsdb(args.repo, dir, args.cpuProf !== undefined ? { cpuProfDir: args.cpuProf } : {});
  const results: string[] = [];
  let failed = false;
  try {
    const base = server.baseUrl;
    await sql(base, 'CREATE TABLE t (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, v BIGINT)');
    await sql(base, 'CREATE TABLE ins (ts TIMESTAMP(3) TIME INDEX, host STRING PRIMARY KEY, v BIGINT)');
    const values = Array.from({ length: ROWS }, (_, i) => `(${i * 1000}, 'h${i}', ${i * 200})`).join(',');
    const w = await sql(base, `INSERT INTO t (ts, host, v) VALUES ${values}`);
    if (w.status !== 200) throw new Error(`insert failed: ${JSON.stringify(w.body)}`);
    // Warm up the query path.
    for (let i = 0; i < 5; i++) await sql(base, 'SELECT count(*) FROM t WHERE v IN (1, 2, 3)');
    for (const kind of args.cases) {
      const wire = await overWire(kind, args.elements, server.ports);
      const { text, expect } = wire !== undefined ? { text: '', expect: () => true } : statementOf(kind, args.elements, args.insertMb);
      const bytes = wire?.bytes ?? Buffer.byteLength(text);
      const body = wire !== undefined ? 0 : `sql=${encodeURIComponent(text)}`.length;
      log(`${kind}: ${(bytes / 2 ** 20).toFixed(1)} MiB of SQL, ${(body / 2 ** 20).toFixed(1)} MiB of body`);
      const signal = { stop: false };
      const health = pollHealth(base, signal);
      const small = smallQueries(base, signal);
      await new Promise((r) => setTimeout(r, 300));
      let answer: { status: number; body: unknown; ms: number };
      try {
        if (wire === undefined) answer = await sql(base, text);
        else {
          const started = performance.now();
          try {
            const n = await wire.run();
            answer = { status: n === wire.expect ? 200 : 500, body: { count: n }, ms: performance.now() - started };
          } catch (e) {
            answer = { status: 500, body: { error: String(e) }, ms: performance.now() - started };
          } finally {
            await wire.close();
          }
        }
      } finally {
        await new Promise((r) => setTimeout(r, 300));
        signal.stop = true;
      }
      const h = await health.result;
      const s = await small;
      const ok = answer.status === 200 && expect(answer.body);
      if (!ok) failed = true;
      const line = `| ${kind} | ${(bytes / 2 ** 20).toFixed(1)} MiB | ${(answer.ms / 1000).toFixed(2)} s | ${ok ? 'right' : `WRONG: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`} | ${h.max.toFixed(0)} ms (${h.count} polls, ${h.failures} failed) | ${s.max.toFixed(0)} ms (${s.count} queries, ${s.failures} failed) |`;
      log(line);
      results.push(line);
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`tsdb: ${server.version}`);
  console.log(`Machine: ${machine(loadAtStart)}`);
  console.log(`Elements per list: ${args.elements}`);
  console.log('');
  console.log('| statement | size | time to answer | answer | max /health latency | max SELECT 1 latency |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) console.log(r);
  if (failed) process.exitCode = 1;
}

await main();
