/**
 * What the SQL front end costs per query: server CPU (the tsdb process and its threads, DuckDB's
 * included) and wall time per query for a few query shapes over POST /v1/sql — a point query, a time
 * range of literals, `ts > now() - INTERVAL …`, a range of naive literals in a non-UTC session, and
 * a `date_trunc` group in that session — each answer checked. With several `--repos` (checkouts of
 * tsdb, each built), the same rounds run against each in turn, so that their figures are measured in
 * the same run (a shape a checkout refuses or answers wrongly is reported as such, not timed).
 *
 *   npm run build && node dist/bench/query-path/main.js [--repos .,../other-checkout] [--queries 400] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { cpuSeconds } from '../ingest/proc-stats.js';
import { startTsdb, type TsdbServer } from '../ingest/tsdb-server.js';

const { values: opts } = parseArgs({
  options: {
    repos: { type: 'string', default: '.' },
    queries: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '3' },
    hosts: { type: 'string', default: '100' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  process.stdout.write('node dist/bench/query-path/main.js [--repos <checkout>,…] [--queries N] [--rounds R] [--hosts H]\n');
  process.exit(0);
}
const positive = (name: string, text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a positive integer, not ${text}\n`);
    process.exit(2);
  }
  return n;
};
const QUERIES = positive('queries', opts.queries);
const ROUNDS = positive('rounds', opts.rounds);
const HOSTS = positive('hosts', opts.hosts);
const here = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const repos = opts.repos.split(',').map((r) => resolve(r === '.' ? here : r));

/** Rows per host, 10 s apart from 2023-11-14T22:13:20Z (1,700,000,000,000 ms). */
const POINTS = 100;
const T0 = 1_700_000_000_000;

interface Shape {
  readonly name: string;
  readonly timezone?: string;
  sql(i: number): string;
  /** The answer's rows as JSON, to check. */
  expect(i: number): string;
}

const SHAPES: readonly Shape[] = [
  {
    name: 'point (key and epoch)',
    sql: (i) => `SELECT usage FROM cpu WHERE host = 'h${i % HOSTS}' AND ts = ${T0 + (i % POINTS) * 10_000}`,
    expect: (i) => JSON.stringify([[i % POINTS]]),
  },
  {
    name: 'range of UTC literals',
    sql: (i) => `SELECT count(*) FROM cpu WHERE host = 'h${i % HOSTS}' AND ts >= '2023-11-14 22:13:20' AND ts < '2023-11-14 22:20:00'`,
    expect: () => JSON.stringify([[40]]),
  },
  {
    name: 'ts > now() - INTERVAL',
    sql: (i) => `SELECT count(*) FROM cpu WHERE host = 'h${i % HOSTS}' AND ts > now() - INTERVAL '5 minutes'`,
    expect: () => JSON.stringify([[0]]),
  },
  {
    name: 'range of naive literals, New York',
    timezone: 'America/New_York',
    sql: (i) => `SELECT count(*) FROM cpu WHERE host = 'h${i % HOSTS}' AND ts >= '2023-11-14 17:13:20' AND ts < '2023-11-14 17:20:00'`,
    expect: () => JSON.stringify([[40]]),
  },
  {
    name: 'date_trunc group, New York',
    timezone: 'America/New_York',
    sql: (i) => `SELECT date_trunc('hour', ts) AS h, count(*) FROM cpu WHERE host = 'h${i % HOSTS}' GROUP BY h ORDER BY h`,
    // A host's 100 points (22:13:20Z to 22:29:50Z) are 17:13 to 17:29 EST: one bucket, 17:00 EST = 22:00Z.
    expect: () => JSON.stringify([[Date.UTC(2023, 10, 14, 22), POINTS]]),
  },
];

async function post(server: TsdbServer, sql: string, timezone?: string): Promise<{ code: number; rows?: unknown; error?: string }> {
  const res = await fetch(`${server.baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(timezone !== undefined && { 'x-tsdb-timezone': timezone }) },
    body: new URLSearchParams({ sql }).toString(),
  });
  const body = (await res.json()) as { code: number; error?: string; output?: Array<{ records?: { rows: unknown } }> };
  return { code: body.code, ...(body.error !== undefined && { error: body.error }), rows: body.output?.[0]?.records?.rows };
}

async function load(server: TsdbServer): Promise<void> {
  const must = async (sql: string) => {
    const r = await post(server, sql);
    if (r.code !== 0) throw new Error(`${sql.slice(0, 80)}: ${r.error ?? r.code}`);
  };
  await must('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE)');
  for (let h = 0; h < HOSTS; h += 10) {
    const rows: string[] = [];
    for (let k = h; k < Math.min(HOSTS, h + 10); k++) for (let p = 0; p < POINTS; p++) rows.push(`('h${k}', ${T0 + p * 10_000}, ${p})`);
    await must(`INSERT INTO cpu VALUES ${rows.join(', ')}`);
  }
  await must("ADMIN FLUSH_TABLE('cpu')");
}

const results = new Map<string, { cpu: number[]; wall: number[]; refused?: string }>();

process.stderr.write(`query-path bench: ${repos.length} checkout(s), ${QUERIES} queries × ${SHAPES.length} shapes × ${ROUNDS} rounds\n`);
const loadAtStart = loadAverages();
const servers: Array<{ repo: string; server: TsdbServer; dir: string }> = [];
try {
  for (const repo of repos) {
    const dir = mkdtempSync(join(tmpdir(), 'tsdb-query-path-'));
    const server = await startTsdb(repo, dir);
    servers.push({ repo, server, dir });
    await load(server);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of SHAPES) {
      for (const { repo, server } of servers) {
        const key = `${shape.name}\u0000${repo}`;
        const r = results.get(key) ?? { cpu: [], wall: [] };
        results.set(key, r);
        if (r.refused !== undefined) continue;
        const c0 = cpuSeconds(server.pid, true).seconds;
        const t0 = performance.now();
        for (let i = 0; i < QUERIES; i++) {
          const answer = await post(server, shape.sql(i), shape.timezone);
          const expected = shape.expect(i);
          if (answer.code !== 0) {
            r.refused = `code ${answer.code}: ${answer.error ?? ''}`.slice(0, 160);
            break;
          }
          if (JSON.stringify(answer.rows) !== expected) {
            r.refused = `wrong answer: ${JSON.stringify(answer.rows).slice(0, 60)}, not ${expected}`;
            break;
          }
        }
        if (r.refused !== undefined) continue;
        r.cpu.push(((cpuSeconds(server.pid, true).seconds - c0) * 1000) / QUERIES);
        r.wall.push((performance.now() - t0) / QUERIES);
        process.stderr.write(`round ${round + 1}: ${shape.name} on ${repo}: ${fmt(r.cpu.at(-1), 3)} ms CPU/query\n`);
      }
    }
  }
} finally {
  for (const { server, dir } of servers) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)]!;
};
const out: string[] = [];
out.push(`Machine: ${machine(loadAtStart)}`);
out.push(`Data: ${HOSTS} hosts × ${POINTS} points, one SST; ${QUERIES} queries per shape per round, ${ROUNDS} rounds; medians over rounds.`);
out.push('');
out.push(`| query | ${servers.map(({ server }) => `${server.version}: server CPU ms/query | wall ms/query`).join(' | ')} |`);
out.push(`|---|${servers.map(() => '---|---').join('|')}|`);
for (const shape of SHAPES) {
  const cells = servers.map(({ repo }) => {
    const r = results.get(`${shape.name}\u0000${repo}`)!;
    return r.refused !== undefined ? `${r.refused.startsWith('wrong') ? '' : 'refused: '}${r.refused} | –` : `${fmt(median(r.cpu), 3)} | ${fmt(median(r.wall), 3)}`;
  });
  out.push(`| ${shape.name} | ${cells.join(' | ')} |`);
}
process.stdout.write(`${out.join('\n')}\n`);
