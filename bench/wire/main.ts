/**
 * Point-query benchmark over tsdb's wire protocols: one-row `SELECT * FROM cpu WHERE hostname = …
 * AND ts = …` over MySQL (mysql2, text or prepared), PostgreSQL (pg, simple query or prepared) and
 * `POST /v1/sql`, each with 1, 16 and 64 connections in closed loops, against PostgreSQL 15 running
 * the same query text on the same rows as a reference. One server at a time (127.0.0.1, free ports,
 * own temp dir), stopped by PID. Reports queries/s and p50/p90/p99 latency per (system, protocol,
 * connections), server and client CPU, ratios against /v1/sql and PostgreSQL from the same run;
 * Markdown on stdout, progress on stderr, raw figures with --json; with --cpu-prof tsdb runs under
 * `node --cpu-prof` and each measured window's top self-time functions are listed.
 *
 *   npm run build && node dist/bench/wire/main.js [--hosts 1000 --points 100] [--seconds 10] [--concurrency 1,16,64]
 *     [--protocols mysql,pg,http] [--systems tsdb,postgres] [--json f] [--cpu-prof dir]
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt, machine } from '../common/machine.js';
import { profileMarkdown, summarizeProfiles, type ProfileSummary } from '../ingest/cpu-profile.js';
import { waitIdle } from '../ingest/proc-stats.js';
import { startTsdb, type TsdbServer } from '../ingest/tsdb-server.js';
import { tsdbSql } from '../tsbs/clients.js';
import { installExitCleanup, log } from '../tsbs/servers.js';
import { openConnections, PROTOCOLS, type Endpoints, type Protocol } from './clients.js';
import { runLevel, type LevelResult } from './closed-loop.js';
import {
  expectedValue, FIELDS, insertStatements, makeDataset, PointQueries, pointQuerySql, POSTGRES_CREATE_TABLE, TABLE, TSDB_CREATE_TABLE,
  type Dataset,
} from './dataset.js';
import { DEFAULT_PG_BIN, startPostgres, type PostgresServer } from './postgres-server.js';

type SystemName = 'tsdb' | 'postgres';

const OPTIONS = {
  hosts: { type: 'string', default: '1000' },
  points: { type: 'string', default: '100' },
  'data-seed': { type: 'string', default: '123' },
  seed: { type: 'string', default: '42' },
  batch: { type: 'string', default: '1000' },
  unflushed: { type: 'string', default: '10' },
  concurrency: { type: 'string', default: '1,16,64' },
  seconds: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '2' },
  protocols: { type: 'string', default: 'mysql,pg,http' },
  systems: { type: 'string', default: 'tsdb,postgres' },
  'pg-bin': { type: 'string', default: DEFAULT_PG_BIN },
  'idle-wait': { type: 'string', default: '60' },
  'cpu-prof': { type: 'string' },
  json: { type: 'string' },
  keep: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const USAGE = `usage: node dist/bench/wire/main.js [options]   (npm run bench:wire -- [options]; bench/wire/README.md)
  --hosts N (1000) --points N (100) --unflushed PERCENT (10) --batch ROWS (1000) --data-seed N --seed N
  --concurrency 1,16,64 --seconds 10 --warmup 2 --protocols mysql,pg,http (also mysql-prepared, pg-prepared)
  --systems tsdb,postgres --pg-bin DIR --idle-wait SECONDS --cpu-prof DIR --json FILE --keep`;

function parseOptions() {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

const { values: opts } = parseOptions();
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

function positiveInt(name: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: a positive integer, not ${v}`);
  return n;
}

function positiveNumber(name: string, v: string | undefined, allowZero = false): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) throw new Error(`--${name}: a ${allowZero ? 'non-negative' : 'positive'} number, not ${v}`);
  return n;
}

function list<T extends string>(name: string, v: string, allowed: readonly T[]): T[] {
  const out = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const s of out) if (!(allowed as readonly string[]).includes(s)) throw new Error(`--${name}: unknown ${s} (one of ${allowed.join(', ')})`);
  if (out.length === 0) throw new Error(`--${name}: empty`);
  return out as T[];
}

const HOSTS = positiveInt('hosts', opts.hosts);
const POINTS = positiveInt('points', opts.points);
const DATA_SEED = Number(opts['data-seed']);
const SEED = Number(opts.seed);
const BATCH = positiveInt('batch', opts.batch);
const UNFLUSHED_PCT = positiveNumber('unflushed', opts.unflushed, true);
if (UNFLUSHED_PCT > 100) throw new Error(`--unflushed: a percentage (0–100), not ${opts.unflushed}`);
const LEVELS = opts.concurrency.split(',').map((s) => positiveInt('concurrency', s.trim()));
const DURATION_MS = positiveNumber('seconds', opts.seconds) * 1000;
const WARMUP_MS = positiveNumber('warmup', opts.warmup, true) * 1000;
const PROTOS = list('protocols', opts.protocols, PROTOCOLS);
const SYSTEMS = list<SystemName>('systems', opts.systems, ['tsdb', 'postgres']);
const IDLE_WAIT_MS = positiveNumber('idle-wait', opts['idle-wait'], true) * 1000;
const CPU_PROF = opts['cpu-prof'] === undefined ? undefined : resolve(opts['cpu-prof']);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
if (SYSTEMS.includes('tsdb') && !existsSync(join(REPO, 'bin', 'tsdb'))) throw new Error(`bin/tsdb not found under ${REPO}`);
const COMMAND = `node dist/bench/wire/main.js${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
/** Steps (time points) loaded and flushed to SSTs before the rest goes to the memtable. */
const FLUSHED_STEPS = POINTS - Math.round((POINTS * UNFLUSHED_PCT) / 100);

/** PostgreSQL speaks only its own protocol: the pg variants asked for, or the simple query. */
const PG_PROTOS: Protocol[] = PROTOS.filter((p) => p === 'pg' || p === 'pg-prepared');
if (PG_PROTOS.length === 0) PG_PROTOS.push('pg');

const LABEL: Record<Protocol, string> = {
  mysql: 'MySQL text',
  'mysql-prepared': 'MySQL prepared',
  pg: 'PG simple query',
  'pg-prepared': 'PG prepared',
  http: 'HTTP /v1/sql',
};
const SYSTEM_NAME: Record<SystemName, string> = { tsdb: 'tsdb', postgres: 'PostgreSQL 15' };

interface Run extends LevelResult {
  readonly system: SystemName;
  readonly protocol: Protocol;
  profile?: ProfileSummary;
}

interface SystemResult {
  readonly system: SystemName;
  version?: string;
  pid?: number;
  loadSeconds?: number;
  loadNote?: string;
  count?: number;
  checks: Partial<Record<Protocol, string>>;
  runs: Run[];
  profileDir?: string;
  logErrors?: string[];
  error?: string;
}

function errMsg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Worker i of every run draws the same queries. */
function queriesOf(ds: Dataset): (worker: number) => PointQueries {
  return (worker) => new PointQueries(ds, SEED + 7919 * (worker + 1));
}

/** Checks a few answers against the generated values over one connection; returns a problem or undefined. */
async function check(protocol: Protocol, ep: Endpoints, ds: Dataset): Promise<string | undefined> {
  const set = await openConnections(protocol, ep, 1);
  try {
    const gen = new PointQueries(ds, SEED - 1);
    for (let i = 0; i < 20; i++) {
      const q = gen.next();
      const a = await set.connections[0]!.run(q);
      if (a.rows !== 1 || a.first === undefined) return `${pointQuerySql(q)}: ${a.rows} rows`;
      if (a.first['hostname'] !== q.hostname) return `${pointQuerySql(q)}: hostname ${String(a.first['hostname'])}`;
      for (const f of [0, FIELDS.length - 1]) {
        const want = expectedValue(ds, q, f);
        const got = Number(a.first[FIELDS[f]!]);
        if (!(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)))) return `${pointQuerySql(q)}: ${FIELDS[f]} = ${got}, generated ${want}`;
      }
    }
    return undefined;
  } finally {
    await set.close();
  }
}

async function runProtocols(r: SystemResult, protocols: readonly Protocol[], ep: Endpoints, pid: number, ds: Dataset): Promise<void> {
  for (const protocol of protocols) {
    const label = `${r.system} ${protocol}`;
    try {
      const problem = await check(protocol, ep, ds);
      if (problem !== undefined) {
        r.checks[protocol] = problem;
        log(`${label}: CHECK FAILED: ${problem}`);
      } else {
        log(`${label}: 20 answers checked against the generated rows`);
      }
    } catch (e) {
      r.checks[protocol] = `check failed: ${errMsg(e)}`;
      log(`${label}: ${r.checks[protocol]}`);
      continue;
    }
    for (const c of LEVELS) {
      const lbl = `${label} ×${c}`;
      let set;
      try {
        set = await openConnections(protocol, ep, c);
      } catch (e) {
        log(`${lbl}: could not open ${c} connections: ${errMsg(e)}`);
        r.runs.push({ ...emptyLevel(c), system: r.system, protocol, errors: 1, firstError: `connect: ${errMsg(e)}` });
        continue;
      }
      log(`${lbl}: ${c} connection(s) open; ${WARMUP_MS / 1000} s warm-up, ${DURATION_MS / 1000} s measured`);
      try {
        const lvl = await runLevel(set, { label: lbl, warmupMs: WARMUP_MS, durationMs: DURATION_MS, serverPid: pid, queries: queriesOf(ds) });
        r.runs.push({ ...lvl, system: r.system, protocol });
        log(`${lbl}: ${int(lvl.qps)} q/s, p50 ${lvl.p50Ms.toFixed(2)} ms, p99 ${lvl.p99Ms.toFixed(2)} ms; server ${(lvl.serverCpuSeconds / lvl.seconds).toFixed(2)} cores, client ${(lvl.clientCpuSeconds / lvl.seconds).toFixed(2)} cores` +
          `${lvl.errors > 0 ? `; ${lvl.errors} error(s), first: ${lvl.firstError ?? ''}` : ''}${lvl.wrongAnswers > 0 ? `; ${lvl.wrongAnswers} answer(s) without exactly one row` : ''}`);
      } finally {
        await set.close();
      }
    }
  }
}

function emptyLevel(c: number): LevelResult {
  const nan = Number.NaN;
  return { concurrency: c, seconds: 0, queries: 0, qps: nan, meanMs: nan, p50Ms: nan, p90Ms: nan, p99Ms: nan, maxMs: nan, errors: 0, wrongAnswers: 0, serverCpuSeconds: nan, clientCpuSeconds: nan, window: { fromUs: 0, toUs: 0 }, stuck: 0 };
}

/** Error and fatal lines of tsdb's output and log directory (pino levels 50/60). */
function tsdbLogErrors(logFile: string, dataDir: string): string[] {
  const files = [logFile];
  const logDir = join(dataDir, 'logs');
  if (existsSync(logDir)) for (const f of readdirSync(logDir)) files.push(join(logDir, f));
  const out: string[] = [];
  for (const f of files) {
    try {
      for (const line of readFileSync(f, 'utf8').split('\n')) if (/"level":(50|60)\b|\b(ERROR|FATAL)\b/.test(line)) out.push(line.slice(0, 500));
    } catch {
      // no such log
    }
  }
  return [...new Set(out)].slice(0, 10);
}

async function runTsdb(ds: Dataset, workDir: string): Promise<SystemResult> {
  const r: SystemResult = { system: 'tsdb', checks: {}, runs: [] };
  const dir = join(workDir, 'tsdb');
  let srv: TsdbServer;
  try {
    if (CPU_PROF !== undefined) {
      mkdirSync(CPU_PROF, { recursive: true });
      r.profileDir = mkdtempSync(join(CPU_PROF, 'tsdb-wire-'));
    }
    srv = await startTsdb(REPO, dir, r.profileDir === undefined ? {} : { cpuProfDir: r.profileDir });
  } catch (e) {
    r.error = `start failed: ${errMsg(e)}`;
    log(`tsdb: ${r.error}`);
    return r;
  }
  r.version = srv.version;
  r.pid = srv.pid;
  log(`tsdb: ${srv.version}, pid ${srv.pid}, http ${srv.ports.http}, mysql ${srv.ports.mysql}, postgres ${srv.ports.postgres}`);
  try {
    const sql = (s: string) => tsdbSql(srv.baseUrl, 'public', s);
    await sql(TSDB_CREATE_TABLE);
    const t0 = performance.now();
    for (const stmt of insertStatements(ds, 0, FLUSHED_STEPS, BATCH)) await sql(stmt);
    if (FLUSHED_STEPS > 0) await sql(`ADMIN flush_table('${TABLE}')`);
    for (const stmt of insertStatements(ds, FLUSHED_STEPS, POINTS, BATCH)) await sql(stmt);
    r.loadSeconds = (performance.now() - t0) / 1000;
    const countBody = (await sql(`SELECT count(*) FROM ${TABLE}`)).body;
    r.count = Number((JSON.parse(countBody) as { output: [{ records: { rows: [[number]] } }] }).output[0].records.rows[0][0]);
    r.loadNote = `${int(FLUSHED_STEPS * HOSTS)} rows (the first ${FLUSHED_STEPS} points of each host) inserted and flushed to SST with ADMIN flush_table, then ${int((POINTS - FLUSHED_STEPS) * HOSTS)} rows left in the memtable`;
    log(`tsdb: loaded ${int(r.count)} rows in ${r.loadSeconds.toFixed(1)} s (${r.loadNote})`);
    if (r.count !== ds.rows) throw new Error(`counted ${r.count} rows, expected ${ds.rows}`);
    const idle = await waitIdle(srv.pid, true, IDLE_WAIT_MS);
    log(`tsdb: idle after ${(idle / 1000).toFixed(0)} s`);
    const ep: Endpoints = {
      host: '127.0.0.1',
      mysql: { port: srv.ports.mysql, database: 'public' },
      postgres: { port: srv.ports.postgres, database: 'public', user: 'postgres' },
      http: { baseUrl: srv.baseUrl, database: 'public' },
    };
    await runProtocols(r, PROTOS, ep, srv.pid, ds);
  } catch (e) {
    r.error = errMsg(e);
    log(`tsdb: FAILED: ${r.error}`);
  } finally {
    await srv.stop();
    const errors = tsdbLogErrors(srv.logFile, dir);
    if (errors.length > 0) {
      r.logErrors = errors;
      log(`tsdb: ${errors.length} error line(s) in the server log, first: ${errors[0]}`);
    }
  }
  if (r.profileDir !== undefined) {
    try {
      for (const run of r.runs) if (run.window.toUs > 0) run.profile = summarizeProfiles(r.profileDir, REPO, run.window);
      log(`tsdb: CPU profile in ${r.profileDir}`);
    } catch (e) {
      log(`tsdb: could not read the CPU profile in ${r.profileDir}: ${errMsg(e)}`);
    }
  }
  return r;
}

async function runPostgres(ds: Dataset): Promise<SystemResult> {
  const r: SystemResult = { system: 'postgres', checks: {}, runs: [] };
  let srv: PostgresServer;
  try {
    srv = await startPostgres(opts['pg-bin'], Math.max(100, Math.max(...LEVELS) + 20));
  } catch (e) {
    r.error = `start failed: ${errMsg(e)}`;
    log(`postgres: ${r.error}`);
    return r;
  }
  r.version = srv.version;
  r.pid = srv.pid;
  log(`postgres: ${srv.version}, pid ${srv.pid}, port ${srv.port}, dir ${srv.dir}`);
  try {
    const client = new pg.Client({ host: '127.0.0.1', port: srv.port, user: srv.user, database: 'postgres' });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(POSTGRES_CREATE_TABLE);
      const t0 = performance.now();
      for (const stmt of insertStatements(ds, 0, POINTS, BATCH)) await client.query(stmt);
      await client.query(`VACUUM ANALYZE ${TABLE}`);
      r.loadSeconds = (performance.now() - t0) / 1000;
      r.count = Number(((await client.query(`SELECT count(*) AS n FROM ${TABLE}`)).rows[0] as { n: string }).n);
      r.loadNote = 'the same INSERT statements, then VACUUM ANALYZE; default configuration except max_connections';
      log(`postgres: loaded ${int(r.count)} rows in ${r.loadSeconds.toFixed(1)} s`);
      if (r.count !== ds.rows) throw new Error(`counted ${r.count} rows, expected ${ds.rows}`);
      const plan = (await client.query(`EXPLAIN ${pointQuerySql(new PointQueries(ds, SEED).next())}`)).rows.map((x: { 'QUERY PLAN': string }) => x['QUERY PLAN']);
      log(`postgres: plan: ${plan.join(' / ')}`);
    } finally {
      await client.end();
    }
    const ep: Endpoints = { host: '127.0.0.1', postgres: { port: srv.port, database: 'postgres', user: srv.user } };
    await runProtocols(r, PG_PROTOS, ep, srv.pid, ds);
  } catch (e) {
    r.error = errMsg(e);
    log(`postgres: FAILED: ${r.error}`);
  } finally {
    const errors = readFileSync(srv.logFile, 'utf8').split('\n').filter((l) => /\b(ERROR|FATAL|PANIC):/.test(l)).slice(0, 10);
    if (errors.length > 0) r.logErrors = errors;
    await srv.stop();
  }
  return r;
}

// ---- report ----



function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '–';
  const r = a / b;
  return `${r < 0.1 ? r.toPrecision(2) : r.toFixed(2)}×`;
}

function report(ds: Dataset, results: readonly SystemResult[], loadAtStart: string): string {
  const out: string[] = [];
  const all = results.flatMap((r) => r.runs);
  const find = (s: SystemName, p: Protocol, c: number) => all.find((x) => x.system === s && x.protocol === p && x.concurrency === c);
  out.push(`## Point queries over the wire protocols: ${int(HOSTS)} hosts × ${int(POINTS)} points = ${int(ds.rows)} rows`);
  out.push('');
  out.push(`Command: \`${COMMAND}\``);
  out.push('');
  out.push(`Machine: ${machine(loadAtStart)}.`);
  out.push('');
  out.push(`Query: \`${pointQuerySql(new PointQueries(ds, SEED).next())}\` (one row; host and time drawn uniformly per call, seeded per connection, so every system gets the same sequence). ` +
    `Each connection is a closed loop; ${WARMUP_MS / 1000} s warm-up, then ${DURATION_MS / 1000} s measured per level; latency is client-side (send → answer parsed). One server at a time.`);
  out.push('');
  for (const r of results) out.push(`- ${SYSTEM_NAME[r.system]}: ${r.version ?? '–'}; load ${fmt(r.loadSeconds, 1)} s: ${r.loadNote ?? r.error ?? '–'}.`);
  out.push('');
  out.push('| system | protocol | conns | queries/s | p50 ms | p90 ms | p99 ms | max ms | server CPU ms / query | server cores | client cores | errors |');
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const x of all) {
    const errs = [x.errors > 0 ? `${x.errors}: ${(x.firstError ?? '').slice(0, 120)}` : '', x.wrongAnswers > 0 ? `${x.wrongAnswers} wrong` : '', x.stuck > 0 ? `${x.stuck} stuck` : ''].filter((s) => s !== '').join('; ');
    out.push(`| ${SYSTEM_NAME[x.system]} | ${LABEL[x.protocol]} | ${x.concurrency} | ${Number.isFinite(x.qps) ? int(x.qps) : '**failed**'} | ${fmt(x.p50Ms, 2)} | ${fmt(x.p90Ms, 2)} | ${fmt(x.p99Ms, 2)} | ${fmt(x.maxMs, 1)} | ${fmt((1000 * x.serverCpuSeconds) / x.queries, 3)} | ${fmt(x.serverCpuSeconds / x.seconds, 2)} | ${fmt(x.clientCpuSeconds / x.seconds, 2)} | ${errs === '' ? '0' : errs} |`);
  }
  const tsdbProtos = PROTOS.filter((p) => results.some((r) => r.system === 'tsdb' && r.runs.some((x) => x.protocol === p)));
  if (tsdbProtos.length > 0) {
    out.push('');
    out.push('Ratios, this run (queries/s: > 1 = the first is faster; p99: < 1 = the first answers sooner):');
    out.push('');
    out.push('| tsdb protocol | conns | q/s ÷ tsdb /v1/sql | p99 ÷ tsdb /v1/sql | q/s ÷ PostgreSQL | p99 ÷ PostgreSQL | server CPU / query ÷ PostgreSQL | PostgreSQL reference |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const p of tsdbProtos) {
      for (const c of LEVELS) {
        const t = find('tsdb', p, c);
        if (t === undefined) continue;
        const h = p === 'http' ? undefined : find('tsdb', 'http', c);
        const refProto: Protocol = (p === 'pg-prepared' || p === 'mysql-prepared') && find('postgres', 'pg-prepared', c) !== undefined ? 'pg-prepared' : 'pg';
        const ref = find('postgres', refProto, c);
        out.push(`| ${LABEL[p]} | ${c} | ${ratio(t.qps, h?.qps)} | ${ratio(t.p99Ms, h?.p99Ms)} | ${ratio(t.qps, ref?.qps)} | ${ratio(t.p99Ms, ref?.p99Ms)} | ${ratio(t.serverCpuSeconds / t.queries, ref === undefined ? undefined : ref.serverCpuSeconds / ref.queries)} | ${ref === undefined ? '–' : LABEL[refProto]} |`);
      }
    }
  }
  const problems: string[] = [];
  for (const r of results) {
    if (r.error !== undefined) problems.push(`- ${SYSTEM_NAME[r.system]}: ${r.error.split('\n')[0]?.slice(0, 1000)}`);
    for (const [p, msg] of Object.entries(r.checks)) problems.push(`- ${SYSTEM_NAME[r.system]} ${p} answer check: ${msg}`);
    for (const l of r.logErrors ?? []) problems.push(`- ${SYSTEM_NAME[r.system]} log: \`${l.replaceAll('`', "'")}\``);
  }
  if (problems.length > 0) {
    out.push('');
    out.push('### Problems');
    out.push('');
    out.push(...problems);
  }
  const profiled = all.filter((x) => x.profile !== undefined);
  if (profiled.length > 0) {
    out.push('');
    out.push('### tsdb CPU profiles of the measured windows (`node --cpu-prof`; the figures above include the sampling overhead)');
    for (const x of profiled) {
      out.push('');
      out.push(profileMarkdown(`tsdb ${LABEL[x.protocol]}, ${x.concurrency} connection(s)`, x.profile!, 25));
    }
  }
  return out.join('\n');
}

function topOf(p: ProfileSummary | undefined): ProfileSummary | undefined {
  return p === undefined ? undefined : { ...p, functions: [...p.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, 200) };
}

// ---- main ----

installExitCleanup();
const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');
const ds = makeDataset(HOSTS, POINTS, DATA_SEED);
log(`data: ${int(HOSTS)} hosts × ${int(POINTS)} points = ${int(ds.rows)} rows (seed ${DATA_SEED}); levels ${LEVELS.join(', ')}; ${PROTOS.join(', ')}; ${SYSTEMS.join(', ')}`);
const workDir = mkdtempSync(join(tmpdir(), 'wire-'));
process.on('exit', () => {
  if (!opts.keep) rmSync(workDir, { recursive: true, force: true });
});
const results: SystemResult[] = [];
for (const s of SYSTEMS) results.push(s === 'tsdb' ? await runTsdb(ds, workDir) : await runPostgres(ds));
if (opts.keep) log(`kept ${workDir}`);

process.stdout.write(`${report(ds, results, LOAD_AT_START)}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({
    command: COMMAND, machine: machine(LOAD_AT_START), hosts: HOSTS, points: POINTS, rows: ds.rows, dataSeed: DATA_SEED, seed: SEED,
    levels: LEVELS, seconds: DURATION_MS / 1000, warmup: WARMUP_MS / 1000, unflushedPercent: UNFLUSHED_PCT,
    results: results.map((r) => ({ ...r, runs: r.runs.map((x) => ({ ...x, profile: topOf(x.profile) })) })),
  }, null, 2));
  log(`wrote ${opts.json}`);
}
if (results.some((r) => r.error !== undefined || Object.keys(r.checks).length > 0 || r.runs.some((x) => x.errors > 0 || x.wrongAnswers > 0))) process.exitCode = 1;
