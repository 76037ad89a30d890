/**
 * A large answer out through every protocol (issue 17 item 6): TSBS high-cpu-all's shape
 * (`SELECT * FROM cpu WHERE usage_user > 90.0 AND ts >= … AND ts < …`, 21 columns: 10 tags, the
 * millisecond time index, 10 doubles) from a standalone tsdb holding TSBS cpu-only data (bench/tsbs
 * generation, `--hosts` × `--hours`, flushed), received whole by a real client of each protocol:
 * MySQL text (mysql2 `query`), MySQL binary (mysql2 `execute`: COM_STMT_PREPARE/EXECUTE),
 * PostgreSQL text (node-postgres, simple query), PostgreSQL binary (extended protocol with binary
 * results, by `pg-raw.ts`: node-postgres cannot read binary fields), `POST /v1/sql` (JSON) and Arrow
 * Flight `DoGet`; `/v1/sql?format=null` (the rows read, only their count written) is the query alone.
 * Rounds rotate the order; each answer is checked against the rows the generator made.
 *
 * Server time is split two ways: the server's CPU per answer (/proc, whole process) against
 * `format=null`'s, and, in this process, the encoders themselves timed on the same answer's cells
 * (the row-at-a-time encoders the servers used before, and the batch encoders they use now).
 *
 *   npm run build && node dist/bench/result-encode/main.js [--hosts 100] [--hours 12] [--rounds 7]
 *     [--protocols mysql,mysql-binary,pg,pg-binary,http,flight,http-null] [--base DIR] [--cpu-prof DIR] [--keep]
 *
 * `--base DIR`: also a server from another built checkout (e.g. main), loaded alike, its answers
 * timed in the same rounds (alternating), so that before and after share the machine's noise.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Table } from 'apache-arrow';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { fmt, loadAverages, machine } from '../common/machine.js';
import { monotonicUs, profileMarkdown, summarizeProfiles, type ProfileWindow } from '../ingest/cpu-profile.js';
import { cpuSeconds } from '../ingest/proc-stats.js';
import { startTsdb, type TsdbServer } from '../ingest/tsdb-server.js';
import { tsdbSql } from '../tsbs/clients.js';
import { FIELDS, generate, lineProtocolBatch, rowHost, rowTime, TAGS, TSDB_CREATE_TABLE, type Dataset } from '../tsbs/data.js';
import { decodeDoGet, FlightClient, sqlTicket } from '../../test/support/flight-client.js';
import type { FlightDataMessage } from '../../src/servers/grpc/flight-service.js';
import { encodeCases, type EncodeCase } from './encode-cases.js';
import { RawPgClient } from './pg-raw.js';

const PROTOCOLS = ['mysql', 'mysql-binary', 'pg', 'pg-binary', 'http', 'flight', 'http-null'] as const;
type Protocol = (typeof PROTOCOLS)[number];
const LABELS: Record<Protocol, string> = {
  mysql: 'MySQL text (mysql2 query)',
  'mysql-binary': 'MySQL binary (mysql2 execute)',
  pg: 'PostgreSQL text (pg, simple query)',
  'pg-binary': 'PostgreSQL binary (extended, binary results)',
  http: 'POST /v1/sql (JSON, greptimedb_v1)',
  flight: 'Arrow Flight DoGet',
  'http-null': 'POST /v1/sql?format=null (query only)',
};

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '12' },
    seed: { type: 'string', default: '123' },
    rounds: { type: 'string', default: '7' },
    'encode-rounds': { type: 'string', default: '9' },
    protocols: { type: 'string', default: PROTOCOLS.join(',') },
    'cpu-prof': { type: 'string' },
    base: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const hosts = Number(opts.hosts);
const hours = Number(opts.hours);
const rounds = Number(opts.rounds);
const encodeRounds = Number(opts['encode-rounds']);
const protocols = opts.protocols.split(',').map((p) => p.trim()) as Protocol[];
for (const p of protocols) if (!PROTOCOLS.includes(p)) throw new Error(`unknown protocol ${p}; known: ${PROTOCOLS.join(', ')}`);
if (![hosts, hours, rounds, encodeRounds].every((n) => Number.isInteger(n) && n > 0)) throw new Error('--hosts, --hours, --rounds, --encode-rounds are positive integers');

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const log = (m: string): void => void process.stderr.write(`[result-encode] ${m}\n`);

/** A row as every protocol's answer is compared: 10 tags, time in epoch ms, 10 doubles. */
type Row = (string | number)[];
const COLUMNS = [...TAGS, 'ts', ...FIELDS] as const;

function expectedRows(ds: Dataset, fromMs: number, toMs: number): Row[] {
  const out: Row[] = [];
  for (let r = 0; r < ds.rows; r++) {
    const ts = rowTime(ds, r);
    if (ts < fromMs || ts >= toMs || ds.values[r * FIELDS.length]! <= 90) continue;
    out.push([...ds.tagValues[rowHost(ds, r)]!, ts, ...ds.values.subarray(r * FIELDS.length, (r + 1) * FIELDS.length)]);
  }
  return sortRows(out);
}

function sortRows(rows: Row[]): Row[] {
  return rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : (a[10] as number) - (b[10] as number)));
}

/** Rows of an answer whose columns are named `names`, each cell turned into a Row's value by `cell`. */
function canonical<T>(names: readonly string[], rows: readonly (readonly T[])[], cell: (v: T, column: string) => string | number): Row[] {
  const at = COLUMNS.map((c) => {
    const i = names.indexOf(c);
    if (i < 0) throw new Error(`answer without column ${c}: ${names.join(', ')}`);
    return i;
  });
  return sortRows(rows.map((r) => at.map((i, k) => cell(r[i]!, COLUMNS[k]!))));
}

const isTag = (c: string): boolean => (TAGS as readonly string[]).includes(c);
/** `YYYY-MM-DD HH:MM:SS[.fff…]` in UTC as epoch ms. */
const textTimeMs = (s: string): number => Date.parse(`${s.replace(' ', 'T')}Z`);

interface Received {
  readonly rows: number;
  /** The answer as Rows, built after the clock stopped (undefined for the count-only answer). */
  readonly check: (() => Row[]) | undefined;
}

interface Clients {
  mysql?: mysql.Connection;
  pg?: pg.Client;
  pgRaw?: RawPgClient;
  flight?: FlightClient;
}

const textDoubles = (field: { type: string; string(): string | null }, next: () => unknown): unknown => {
  if (field.type !== 'DOUBLE') return next();
  const s = field.string();
  return s === null ? null : Number(s);
};

const RAW_TEXT = { getTypeParser: () => (v: string) => v };

async function post(srv: TsdbServer, sql: string, format?: string): Promise<string> {
  const res = await fetch(`${srv.baseUrl}/v1/sql?db=public${format === undefined ? '' : `&format=${format}`}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql }).toString(),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`/v1/sql: HTTP ${res.status}: ${body.slice(0, 300)}`);
  return body;
}

interface SqlJson {
  readonly code: number;
  readonly output: readonly { readonly records: { readonly schema: { readonly column_schemas: readonly { name: string; data_type: string }[] }; readonly rows: (string | number | null)[][] } }[];
}

async function receive(p: Protocol, c: Clients, srv: TsdbServer, sql: string): Promise<Received> {
  switch (p) {
    case 'mysql':
    case 'mysql-binary': {
      // mysql2's own text-to-double parsing is off in the last digit now and then: doubles of the
      // text protocol are taken as text and read by Number.
      const q = { sql, rowsAsArray: true, ...(p === 'mysql' && { typeCast: textDoubles }) };
      const [rows, fields] = p === 'mysql' ? await c.mysql!.query(q) : await c.mysql!.execute(q);
      const list = rows as unknown as (string | number)[][];
      const names = fields.map((f) => f.name);
      return { rows: list.length, check: () => canonical(names, list, (v, col) => (col === 'ts' ? textTimeMs(v as string) : v)) };
    }
    case 'pg': {
      const res = await c.pg!.query({ text: sql, rowMode: 'array', types: RAW_TEXT });
      const list = res.rows as string[][];
      const names = res.fields.map((f) => f.name);
      return { rows: list.length, check: () => canonical(names, list, (v, col) => (isTag(col) ? v : col === 'ts' ? textTimeMs(v) : Number(v))) };
    }
    case 'pg-binary': {
      const res = await c.pgRaw!.queryBinary(sql);
      const names = res.fields.map((f) => f.name);
      // timestamp: µs since 2000-01-01.
      const cell = (v: Buffer | null, col: string): string | number =>
        isTag(col) ? v!.toString('utf8') : col === 'ts' ? Number(v!.readBigInt64BE(0) / 1000n) + 946_684_800_000 : v!.readDoubleBE(0);
      return { rows: res.rows.length, check: () => canonical(names, res.rows, cell) };
    }
    case 'http': {
      const parsed = JSON.parse(await post(srv, sql)) as SqlJson;
      const rec = parsed.output[0]!.records;
      return { rows: rec.rows.length, check: () => canonical(rec.schema.column_schemas.map((s) => s.name), rec.rows, (v) => v!) };
    }
    case 'http-null': {
      const body = await post(srv, sql, 'null');
      const m = /^(\d+) rows in set/.exec(body);
      if (m === null) throw new Error(`format=null: ${body}`);
      return { rows: Number(m[1]), check: undefined };
    }
    case 'flight': {
      const messages: FlightDataMessage[] = [];
      for await (const m of c.flight!.doGetStream(sqlTicket(sql, { dbname: 'public' })) as AsyncIterable<FlightDataMessage>) messages.push(m);
      const table = decodeDoGet(messages).table as Table;
      return {
        rows: table.numRows,
        check: () => {
          const names = table.schema.fields.map((f) => f.name);
          const cols = names.map((n) => table.getChild(n)!.toArray() as ArrayLike<unknown>);
          const rows: unknown[][] = [];
          for (let r = 0; r < table.numRows; r++) rows.push(cols.map((col, k) => (isTag(names[k]!) ? table.getChild(names[k]!)!.get(r) : col[r])));
          return canonical(names, rows, (v, col) => (col === 'ts' ? Number(v as bigint | number) : (v as string | number)));
        },
      };
    }
  }
}

async function load(srv: TsdbServer, ds: Dataset): Promise<void> {
  await tsdbSql(srv.baseUrl, 'public', TSDB_CREATE_TABLE('cpu'));
  const batch = 10_000;
  for (let from = 0; from < ds.rows; from += batch) {
    const res = await fetch(`${srv.baseUrl}/v1/influxdb/write?db=public&precision=ms`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: lineProtocolBatch(ds, from, Math.min(ds.rows, from + batch)),
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`write: HTTP ${res.status}: ${body.slice(0, 300)}`);
  }
  await tsdbSql(srv.baseUrl, 'public', "ADMIN flush_table('cpu')");
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('.000Z', '');

const startedAt = new Date();
const loadAtStart = loadAverages();
const ds = generate(hosts, hours, Number(opts.seed));
const fromMs = ds.startMs;
const toMs = ds.endMs;
const sql = `SELECT * FROM cpu WHERE usage_user > 90.0 AND ts >= '${iso(fromMs)}' AND ts < '${iso(toMs)}'`;
const expected = expectedRows(ds, fromMs, toMs);
const profDir = opts['cpu-prof'] === undefined ? undefined : resolve(opts['cpu-prof']);
log(`${ds.rows.toLocaleString('en-US')} rows (${hosts} hosts × ${hours} h); the answer: ${expected.length.toLocaleString('en-US')} rows`);

/** A server under test: this build, and with --base another build's checkout, in the same run. */
interface Target {
  readonly name: string;
  readonly root: string;
  readonly dir: string;
  srv?: TsdbServer;
  readonly clients: Clients;
  readonly times: Map<Protocol, { ms: number[]; cpuMs: number[] }>;
  readonly windows: Map<Protocol, ProfileWindow[]>;
}
const roots: [string, string][] = [['this build', repoRoot]];
if (opts.base !== undefined) roots.push(['base', resolve(opts.base)]);
const targets: Target[] = roots.map(([name, root], k) => ({
  name,
  root,
  dir: mkdtempSync(join(tmpdir(), `tsdb-result-encode-${k}-`)),
  clients: {},
  times: new Map(protocols.map((p) => [p, { ms: [], cpuMs: [] }])),
  windows: new Map(protocols.map((p) => [p, []])),
}));
let encode: EncodeCase[] = [];
try {
  for (const t of targets) {
    const t0 = performance.now();
    const profile = profDir === undefined ? {} : { cpuProfDir: join(profDir, t.name.replace(/\W+/g, '-')) };
    const srv = (t.srv = await startTsdb(t.root, t.dir, profile));
    await load(srv, ds);
    log(`${t.name} (${srv.version}): loaded and flushed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t.clients.mysql = await mysql.createConnection({ host: '127.0.0.1', port: srv.ports.mysql, user: 'root', database: 'public', dateStrings: true });
    t.clients.pg = new pg.Client({ host: '127.0.0.1', port: srv.ports.postgres, user: 'postgres', database: 'public' });
    await t.clients.pg.connect();
    t.clients.pgRaw = await RawPgClient.connect('127.0.0.1', srv.ports.postgres, 'postgres', 'public');
    t.clients.flight = new FlightClient(`127.0.0.1:${srv.ports.rpc}`);
  }
  // Under --cpu-prof each protocol's rounds run together, so that a profile window holds only its answers.
  const order: [number, Protocol, Target][] = [];
  for (let r = 0; r <= rounds; r++) {
    for (let k = 0; k < protocols.length; k++) {
      for (let j = 0; j < targets.length; j++) order.push([r, protocols[(k + r) % protocols.length]!, targets[(j + r + k) % targets.length]!]);
    }
  }
  if (profDir !== undefined) order.sort((a, b) => protocols.indexOf(a[1]) - protocols.indexOf(b[1]) || a[0] - b[0]);
  let lastRound = -1;
  for (const [r, p, t] of order) {
    const srv = t.srv!;
    const cpu0 = cpuSeconds(srv.pid, true).seconds;
    const w0 = monotonicUs();
    const started = performance.now();
    const got = await receive(p, t.clients, srv, sql);
    const ms = performance.now() - started;
    const w1 = monotonicUs();
    const cpuMs = (cpuSeconds(srv.pid, true).seconds - cpu0) * 1000;
    assert.equal(got.rows, expected.length, `${t.name} ${p}: rows`);
    // Every answer of the first round is compared cell by cell; the later ones by count.
    if (r === 0 && got.check !== undefined) assert.deepStrictEqual(got.check(), expected, `${t.name} ${p}: the answer differs from the generated rows`);
    if (r !== lastRound && profDir === undefined) log(`round ${r}${r === 0 ? ' (warm-up, every answer checked)' : ''}`);
    lastRound = r;
    if (r === 0) continue;
    t.times.get(p)!.ms.push(ms);
    t.times.get(p)!.cpuMs.push(cpuMs);
    t.windows.get(p)!.push({ fromUs: w0, toUs: w1 });
  }
  // The encoders alone, on this answer's cells as the server holds them (from the JSON answer).
  const json = JSON.parse(await post(targets[0]!.srv!, sql)) as SqlJson;
  const rec = json.output[0]!.records;
  encode = encodeCases(rec.schema.column_schemas, rec.rows, encodeRounds);
} finally {
  for (const t of targets) {
    await t.clients.mysql?.end().catch(() => {});
    await t.clients.pg?.end().catch(() => {});
    t.clients.pgRaw?.close();
    await t.srv?.stop();
  }
}

const out: string[] = [];
out.push(`## A large answer out (issue 17 item 6): ${expected.length.toLocaleString('en-US')} rows × 21 columns`);
out.push('');
out.push(`${machine(loadAtStart)}; started ${startedAt.toISOString()}; ${targets.map((t) => `${t.name}: ${t.srv?.version ?? '?'}`).join('; ')}.`);
out.push(`Data: TSBS cpu-only, ${hosts} hosts × ${hours} h = ${ds.rows.toLocaleString('en-US')} rows, flushed. Query: \`${sql}\`.`);
out.push(`${rounds} timed rounds after a warm-up round, protocols${targets.length > 1 ? ' and servers' : ''} in rotating order; every warm-up answer equal, cell for cell, to the generated rows; every answer of ${expected.length.toLocaleString('en-US')} rows.`);
for (const t of targets) {
  out.push('');
  out.push(`### ${t.name}`);
  out.push('');
  const base = t.times.get('http-null');
  const baseCpu = base === undefined ? undefined : median(base.cpuMs);
  out.push('| protocol | median ms (client) | min ms | server CPU ms / answer | of which beyond the query (vs format=null) |');
  out.push('|---|---:|---:|---:|---:|');
  for (const p of protocols) {
    const x = t.times.get(p)!;
    const cpu = median(x.cpuMs);
    const beyond = baseCpu === undefined || p === 'http-null' ? '–' : `${fmt(cpu - baseCpu, 0)} (${fmt((100 * (cpu - baseCpu)) / cpu, 0)}%)`;
    out.push(`| ${LABELS[p]} | ${fmt(median(x.ms), 1)} | ${fmt(Math.min(...x.ms), 1)} | ${fmt(cpu, 0)} | ${beyond} |`);
  }
}
if (targets.length > 1) {
  out.push('');
  out.push('this build / base, median ms: ' + protocols.map((p) => `${p} ${fmt(median(targets[0]!.times.get(p)!.ms) / median(targets[1]!.times.get(p)!.ms), 2)}×`).join(', '));
}
out.push('');
out.push(`Server CPU is the whole process's (all threads, /proc, 10 ms ticks), median of the rounds. The encoders alone, in this process, on the same ${expected.length.toLocaleString('en-US')} rows (median of ${encodeRounds} after a warm-up):`);
out.push('');
out.push('| encoding | ms | bytes |');
out.push('|---|---:|---:|');
for (const e of encode) out.push(`| ${e.name} | ${fmt(e.ms, 1)} | ${e.bytes.toLocaleString('en-US')} |`);
if (profDir !== undefined) {
  for (const t of targets) {
    for (const p of protocols) {
      const ws = t.windows.get(p)!;
      const window = { fromUs: Math.min(...ws.map((w) => w.fromUs)), toUs: Math.max(...ws.map((w) => w.toUs)) };
      out.push('');
      out.push(profileMarkdown(`Server profile (${t.name}): ${LABELS[p]}, its ${rounds} timed answers`, summarizeProfiles(join(profDir, t.name.replace(/\W+/g, '-')), t.root, window), 12));
    }
  }
}
process.stdout.write(`${out.join('\n')}\n`);
if (!opts.keep) for (const t of targets) rmSync(t.dir, { recursive: true, force: true });
