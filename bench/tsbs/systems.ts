/**
 * The systems of the benchmark behind one interface, so that main.ts runs them all the same way:
 * start, create the tables, bulk-load in the system's own bulk format, make the writes queryable,
 * count, then for each of its data states (tsdb: rows in memtables, then flushed; the peers: one
 * state, as loaded) wait for it to go idle and answer the TSBS queries; time single-row writes;
 * stop. tsdb standalone and tsdb through a frontend (a cluster of one datanode, bench/cluster's
 * nodes) share everything but how they start.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  influxQuery, influxRows, influxWrite, tsdbRows, tsdbSql, vmForceFlush, vmPoints, vmQuery, vmScalar, vmWrite, type Row,
} from './clients.js';
import { chExec, chInsertTsv, chQuery, chRowCount, chRows, startClickhouse } from './clickhouse.js';
import {
  CLICKHOUSE_CREATE_TABLE, clickhouseTime, FIELDS, INTERVAL_MS, lineProtocol, lineProtocolBatch, POSTGRES_CREATE_TABLE, postgresTime,
  sqlInsert, sqlTuple, TAGS, TSDB_CREATE_TABLE, TSV_COLUMNS, tsvBatch, type Dataset,
} from './data.js';
import { pgCopy, pgQuery, pgRows, startPostgresql, PG_SETTINGS, type PgRunning } from './postgresql.js';
import type { QueryDef, SqlVariant } from './queries.js';
import { processTree, startInfluxdb, startTsdb, startVictoriaMetrics, type TsbsSystem } from './servers.js';
import { startCluster } from '../cluster/nodes.js';

/** A started system: what main.ts needs of it, whatever its processes. */
export interface Running {
  /** Its HTTP address ('' for PostgreSQL, reached over its wire protocol). */
  readonly baseUrl: string;
  readonly version: string;
  /** For the log: pids and addresses. */
  readonly describe: string;
  /** The processes whose CPU says whether it is idle and whose RSS is reported (read at each call). */
  pids(): readonly number[];
  /** Directories holding its stored data, by label, for the on-disk size. */
  readonly dataDirs: Readonly<Record<string, string>>;
  stop(): Promise<void>;
  /** PostgreSQL's connections. */
  readonly pg?: PgRunning;
}

/** An answer: its client-side time and, parsed on demand (outside the timed part), its records. */
export interface Answer {
  readonly ms: number;
  /** Comparable records, or null where the answer is not rows (PromQL series). */
  rows(): Row[] | null;
  /** Rows, or (series, sample) points for VictoriaMetrics. */
  size(): number;
}

/** A state of the loaded data that the queries run in. */
export interface StateDef {
  /** `memtable`, `flushed`, or `loaded` for a system with one state. */
  readonly name: string;
  /** Brings the data into this state; says what it did and found, and `warning` if the state does not hold. */
  enter(r: Running): Promise<{ note: string; warning?: string }>;
  /** After the state's queries: a warning if the state no longer held (e.g. a flush happened meanwhile). */
  check?(r: Running): Promise<string | undefined>;
}

export interface Adapter {
  readonly system: TsbsSystem;
  start(dir: string): Promise<Running>;
  setup(r: Running): Promise<void>;
  /** The body of a bulk-load request of rows [from, to). */
  serialize(ds: Dataset, from: number, to: number): string;
  send(r: Running, body: string): Promise<void>;
  /** What makes acknowledged writes queryable (and counted), before any state. */
  afterLoad(r: Running, ds: Dataset): Promise<string>;
  readonly states: readonly StateDef[];
  count(r: Running, ds: Dataset): Promise<number>;
  /** null: not expressible for this system. */
  query(r: Running, q: QueryDef): Promise<Answer> | null;
  /** Other SQL forms run on this system (tsdb's lastpoint forms). */
  readonly variants: readonly SqlVariant[];
  runVariant(r: Running, v: SqlVariant): Promise<Answer>;
  singleWrite(r: Running, ds: Dataset, i: number): Promise<void>;
}

export interface AdapterContext {
  /** The repository whose bin/tsdb runs. */
  readonly repo: string;
  /** How tsdb is loaded: line protocol (`/v1/influxdb/write`) or batched `INSERT` over `/v1/sql`. */
  readonly tsdbLoad: 'lp' | 'sql';
  /** tsdb's states, in the order they are queried (memtable must come first). */
  readonly tsdbStates: readonly ('memtable' | 'flushed')[];
  /** tsdb's `global_write_buffer_size` (so the loaded rows stay in memtables until the flush). */
  readonly tsdbWriteBuffer: string;
  /** Requests in flight while loading (PostgreSQL opens this many connections). */
  readonly concurrency: number;
  readonly variants: readonly SqlVariant[];
}

/** InfluxDB's database, and tsdb's (`public`). */
export const INFLUX_DB = 'benchmark';
const TSDB_DB = 'public';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function timedAnswer(t: { ms: number; body: string }, rows: (body: string) => Row[] | null, size: (body: string) => number): Answer {
  return { ms: t.ms, rows: () => rows(t.body), size: () => size(t.body) };
}

function tsdbAnswer(t: { ms: number; body: string }): Answer {
  return timedAnswer(t, tsdbRows, (b) => tsdbRows(b).length);
}

export function tsdbVersion(repo: string): string {
  const name = spawnSync(process.execPath, [join(repo, 'bin', 'tsdb'), '--version'], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? 'tsdb';
  const head = spawnSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return head.status === 0 ? `${name} (work tree at ${head.stdout.trim()})` : name;
}

async function tsdbLp(baseUrl: string, body: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/influxdb/write?db=${TSDB_DB}&precision=ms`, { method: 'POST', body });
  const text = await res.text();
  if (!res.ok) throw new Error(`tsdb line protocol write: HTTP ${res.status}: ${text.slice(0, 500)}`);
}

interface RegionState {
  readonly ssts: number;
  readonly memtableBytes: number;
  readonly sstBytes: number;
}

/** cpu's regions' SST count and memtable bytes, from information_schema.region_statistics. */
async function regionState(baseUrl: string): Promise<RegionState> {
  const sql = 'SELECT sum(r.sst_num) AS ssts, sum(r.memtable_size) AS memtable, sum(r.sst_size) AS sst_size FROM information_schema.region_statistics r ' +
    `JOIN information_schema.tables t ON r.table_id = t.table_id WHERE t.table_schema = '${TSDB_DB}' AND t.table_name = 'cpu'`;
  const row = tsdbRows((await tsdbSql(baseUrl, TSDB_DB, sql)).body)[0] ?? {};
  return { ssts: Number(row['ssts'] ?? Number.NaN), memtableBytes: Number(row['memtable'] ?? Number.NaN), sstBytes: Number(row['sst_size'] ?? Number.NaN) };
}

function mib(b: number): string {
  return `${(b / 2 ** 20).toFixed(1)} MiB`;
}

function tsdbStates(ctx: AdapterContext): StateDef[] {
  const memtable: StateDef = {
    name: 'memtable',
    async enter(r) {
      const s = await regionState(r.baseUrl);
      const note = `as loaded: ${mib(s.memtableBytes)} in memtables, ${s.ssts} SST(s) (global_write_buffer_size ${ctx.tsdbWriteBuffer}, auto_flush_interval 24h)`;
      return s.ssts === 0 ? { note } : { note, warning: `cpu has ${s.ssts} SST(s) before any flush: not every row is in a memtable` };
    },
    async check(r) {
      const s = await regionState(r.baseUrl);
      return s.ssts === 0 ? undefined : `cpu had ${s.ssts} SST(s) after the memtable queries: a flush ran during them`;
    },
  };
  const flushed: StateDef = {
    name: 'flushed',
    async enter(r) {
      const t0 = performance.now();
      await tsdbSql(r.baseUrl, TSDB_DB, "ADMIN flush_table('cpu')");
      const seconds = (performance.now() - t0) / 1000;
      const s = await regionState(r.baseUrl);
      const note = `ADMIN flush_table('cpu'): ${seconds.toFixed(1)} s; then ${s.ssts} SST(s) (${mib(s.sstBytes)}), ${mib(s.memtableBytes)} in memtables`;
      return s.ssts > 0 && s.memtableBytes === 0 ? { note } : { note, warning: 'rows left in memtables (or no SST) after the flush' };
    },
  };
  return ctx.tsdbStates.map((s) => (s === 'memtable' ? memtable : flushed));
}

/** tsdb standalone or through a frontend: everything but the start. */
function tsdbLike(system: 'tsdb' | 'tsdb-cluster', ctx: AdapterContext, start: (dir: string) => Promise<Running>): Adapter {
  return {
    system,
    start,
    async setup(r) {
      await tsdbSql(r.baseUrl, TSDB_DB, TSDB_CREATE_TABLE('cpu'));
      await tsdbSql(r.baseUrl, TSDB_DB, TSDB_CREATE_TABLE('cpu_single'));
    },
    serialize: (ds, from, to) => (ctx.tsdbLoad === 'lp' ? lineProtocolBatch(ds, from, to) : sqlInsert(ds, 'cpu', from, to)),
    async send(r, body) {
      if (ctx.tsdbLoad === 'lp') await tsdbLp(r.baseUrl, body);
      else await tsdbSql(r.baseUrl, TSDB_DB, body);
    },
    afterLoad: () => Promise.resolve('none (writes are queryable once acknowledged)'),
    states: tsdbStates(ctx),
    async count(r) {
      const rows = tsdbRows((await tsdbSql(r.baseUrl, TSDB_DB, 'SELECT count(*) AS n FROM cpu')).body);
      return Number(rows[0]?.['n'] ?? Number.NaN);
    },
    query: async (r, q) => tsdbAnswer(await tsdbSql(r.baseUrl, TSDB_DB, q.sql)),
    variants: ctx.variants,
    runVariant: async (r, v) => tsdbAnswer(await tsdbSql(r.baseUrl, TSDB_DB, v.sql)),
    async singleWrite(r, ds, i) {
      const tuple = sqlTuple(ds, i % ds.rows, ds.startMs + i * INTERVAL_MS);
      await tsdbSql(r.baseUrl, TSDB_DB, `INSERT INTO cpu_single (${TAGS.join(',')},ts,${FIELDS.join(',')}) VALUES ${tuple}`);
    },
  };
}

/** Keeps the loaded rows in memtables until the bench flushes (see tsdbStates). */
function tsdbEnv(prefix: string, ctx: AdapterContext): Record<string, string> {
  return {
    [`${prefix}__REGION_ENGINE__MITO__GLOBAL_WRITE_BUFFER_SIZE`]: ctx.tsdbWriteBuffer,
    [`${prefix}__REGION_ENGINE__MITO__AUTO_FLUSH_INTERVAL`]: '24h',
  };
}

function tsdbAdapter(ctx: AdapterContext): Adapter {
  return tsdbLike('tsdb', ctx, async (dir) => {
    const srv = await startTsdb(ctx.repo, dir, { env: tsdbEnv('TSDB_STANDALONE', ctx) });
    return { baseUrl: srv.baseUrl, version: srv.version, describe: `pid ${srv.pid}, ${srv.baseUrl}`, pids: () => [srv.pid], dataDirs: srv.dataDirs, stop: () => srv.stop() };
  });
}

function tsdbClusterAdapter(ctx: AdapterContext): Adapter {
  return tsdbLike('tsdb-cluster', ctx, async (dir) => {
    // The datanode at info: debug would write a line per region query (~0.3 ms each, bench/cluster).
    const c = await startCluster(join(ctx.repo, 'bin', 'tsdb'), 'tsbs', dir, 1, [], { datanodeEnv: tsdbEnv('TSDB_DATANODE', ctx), datanodeLogLevel: 'info' });
    const dn = c.datanodes.get(1);
    const pids = [c.frontend.pid, ...(dn === undefined ? [] : [dn.pid]), c.metasrv.pid];
    return {
      baseUrl: c.baseUrl,
      version: `${tsdbVersion(ctx.repo)}: frontend + 1 datanode + metasrv`,
      describe: `frontend pid ${c.frontend.pid} ${c.baseUrl}, datanode pid ${dn?.pid ?? '?'}, metasrv pid ${c.metasrv.pid}`,
      pids: () => pids,
      dataDirs: { datanode: join(dir, 'datanode1') },
      stop: () => c.stop(),
    };
  });
}

function influxAdapter(): Adapter {
  return {
    system: 'influxdb',
    async start(dir) {
      const srv = await startInfluxdb(dir);
      return { baseUrl: srv.baseUrl, version: srv.version, describe: `pid ${srv.pid}, ${srv.baseUrl}`, pids: () => [srv.pid], dataDirs: srv.dataDirs, stop: () => srv.stop() };
    },
    async setup(r) {
      const res = await fetch(`${r.baseUrl}/query?q=${encodeURIComponent(`CREATE DATABASE ${INFLUX_DB}`)}`, { method: 'POST' });
      const body = await res.text();
      if (!res.ok) throw new Error(`influxdb CREATE DATABASE: ${res.status} ${body}`);
    },
    serialize: (ds, from, to) => lineProtocolBatch(ds, from, to),
    send: (r, body) => influxWrite(r.baseUrl, INFLUX_DB, body),
    afterLoad: () => Promise.resolve('none (writes are queryable once acknowledged)'),
    states: [{ name: 'loaded', enter: () => Promise.resolve({ note: 'as loaded' }) }],
    async count(r) {
      const rows = influxRows((await influxQuery(r.baseUrl, INFLUX_DB, 'SELECT count(usage_user) FROM cpu')).body);
      return Number(rows[0]?.['count'] ?? Number.NaN);
    },
    query: async (r, q) => timedAnswer(await influxQuery(r.baseUrl, INFLUX_DB, q.influxql), influxRows, (b) => influxRows(b).length),
    variants: [],
    runVariant: () => Promise.reject(new Error('no variants on influxdb')),
    singleWrite: (r, ds, i) => influxWrite(r.baseUrl, INFLUX_DB, `${lineProtocol(ds, i % ds.rows, 'cpu_single', ds.startMs + i * INTERVAL_MS)}\n`),
  };
}

async function vmCount(r: Running, ds: Dataset): Promise<number> {
  const window = Math.ceil((ds.endMs - ds.startMs) / 1000) + 60;
  const t = await vmQuery(r.baseUrl, { kind: 'instant', query: `sum(count_over_time(cpu_usage_user[${window}s]))`, startMs: ds.endMs, endMs: ds.endMs, stepS: 0 });
  return vmScalar(t.body);
}

function vmAdapter(): Adapter {
  return {
    system: 'victoriametrics',
    async start(dir) {
      const srv = await startVictoriaMetrics(dir);
      return { baseUrl: srv.baseUrl, version: srv.version, describe: `pid ${srv.pid}, ${srv.baseUrl}`, pids: () => [srv.pid], dataDirs: srv.dataDirs, stop: () => srv.stop() };
    },
    setup: () => Promise.resolve(),
    serialize: (ds, from, to) => lineProtocolBatch(ds, from, to),
    send: (r, body) => vmWrite(r.baseUrl, body),
    async afterLoad(r, ds) {
      const flushed = await vmForceFlush(r.baseUrl);
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        if ((await vmCount(r, ds)) === ds.rows) break;
        await sleep(500);
        await vmForceFlush(r.baseUrl);
      }
      return `${flushed ? '/internal/force_flush' : 'no /internal/force_flush'}, then polled until every sample was searchable`;
    },
    states: [{ name: 'loaded', enter: () => Promise.resolve({ note: 'as loaded and force-flushed' }) }],
    count: vmCount,
    query: (r, q) => (q.promql === null ? null : vmQuery(r.baseUrl, q.promql).then((t) => timedAnswer(t, () => null, vmPoints))),
    variants: [],
    runVariant: () => Promise.reject(new Error('no variants on victoriametrics')),
    singleWrite: (r, ds, i) => vmWrite(r.baseUrl, `${lineProtocol(ds, i % ds.rows, 'cpu_single', ds.startMs + i * INTERVAL_MS)}\n`),
  };
}

function clickhouseAdapter(): Adapter {
  return {
    system: 'clickhouse',
    async start(dir) {
      const srv = await startClickhouse(dir);
      return { baseUrl: srv.baseUrl, version: srv.version, describe: `pid ${srv.pid}, ${srv.baseUrl}`, pids: () => [srv.pid], dataDirs: srv.dataDirs, stop: () => srv.stop() };
    },
    async setup(r) {
      await chExec(r.baseUrl, CLICKHOUSE_CREATE_TABLE('cpu'));
      await chExec(r.baseUrl, CLICKHOUSE_CREATE_TABLE('cpu_single'));
    },
    serialize: (ds, from, to) => tsvBatch(ds, from, to, clickhouseTime),
    send: (r, body) => chInsertTsv(r.baseUrl, 'cpu', TSV_COLUMNS, body),
    // Inserted parts are queryable at once; the background merges of the many small parts are
    // what the wait for idleness before the queries lets finish.
    afterLoad: () => Promise.resolve('none (inserted parts are queryable at once; merges finish during the idle wait)'),
    states: [{
      name: 'loaded',
      async enter(r) {
        const parts = chRows((await chQuery(r.baseUrl, "SELECT count() AS parts FROM system.parts WHERE active AND table = 'cpu'")).body)[0]?.['parts'];
        return { note: `as loaded and merged by the server: ${String(parts)} active part(s)` };
      },
    }],
    async count(r) {
      return Number(chRows((await chQuery(r.baseUrl, 'SELECT count() AS n FROM cpu')).body)[0]?.['n'] ?? Number.NaN);
    },
    query: async (r, q) => timedAnswer(await chQuery(r.baseUrl, q.clickhouse), chRows, chRowCount),
    variants: [],
    runVariant: () => Promise.reject(new Error('no variants on clickhouse')),
    async singleWrite(r, ds, i) {
      const row = i % ds.rows;
      const text = tsvBatch(ds, row, row + 1, () => clickhouseTime(ds.startMs + i * INTERVAL_MS));
      await chInsertTsv(r.baseUrl, 'cpu_single', TSV_COLUMNS, text);
    },
  };
}

function pgOf(r: Running): PgRunning {
  if (r.pg === undefined) throw new Error('not a PostgreSQL');
  return r.pg;
}

function postgresAdapter(ctx: AdapterContext): Adapter {
  return {
    system: 'postgresql',
    async start() {
      // startPostgres makes its own temp dir (bench/wire's), removed when it stops.
      const pg = await startPostgresql(ctx.concurrency);
      return {
        baseUrl: '',
        version: pg.version,
        describe: `postmaster pid ${pg.pid}, port ${pg.port}, ${Object.entries(PG_SETTINGS).map(([k, v]) => `${k}=${v}`).join(' ')}`,
        pids: () => processTree(pg.pid),
        dataDirs: { data: pg.dataDir },
        stop: () => pg.stop(),
        pg,
      };
    },
    async setup(r) {
      for (const table of ['cpu', 'cpu_single']) for (const sql of POSTGRES_CREATE_TABLE(table)) await pgOf(r).queryClient.query(sql);
    },
    serialize: (ds, from, to) => tsvBatch(ds, from, to, postgresTime),
    async send(r, body) {
      await pgOf(r).withClient((c) => pgCopy(c, 'cpu', TSV_COLUMNS, body));
    },
    async afterLoad(r) {
      // The planner's statistics, as autovacuum would gather them soon after a load this size.
      await pgOf(r).queryClient.query('VACUUM ANALYZE cpu');
      return 'VACUUM ANALYZE cpu';
    },
    states: [{ name: 'loaded', enter: () => Promise.resolve({ note: 'as loaded and analyzed' }) }],
    async count(r) {
      return Number((await pgQuery(pgOf(r).queryClient, 'SELECT count(*) AS n FROM cpu')).answer.rows[0]?.[0] ?? Number.NaN);
    },
    async query(r, q) {
      const t = await pgQuery(pgOf(r).queryClient, q.postgresql);
      return { ms: t.ms, rows: () => pgRows(t.answer), size: () => t.answer.rows.length };
    },
    variants: [],
    runVariant: () => Promise.reject(new Error('no variants on postgresql')),
    async singleWrite(r, ds, i) {
      const row = i % ds.rows;
      const values = [...(ds.tagValues[row % ds.hosts] ?? []), postgresTime(ds.startMs + i * INTERVAL_MS), ...FIELDS.map((_, f) => ds.values[row * FIELDS.length + f] ?? 0)];
      await pgOf(r).queryClient.query(`INSERT INTO cpu_single (${TSV_COLUMNS.join(', ')}) VALUES (${values.map((_, k) => `$${k + 1}`).join(', ')})`, values);
    },
  };
}

export const ALL_SYSTEMS: readonly TsbsSystem[] = ['tsdb', 'tsdb-cluster', 'influxdb', 'victoriametrics', 'clickhouse', 'postgresql'];

export function adapterFor(system: TsbsSystem, ctx: AdapterContext): Adapter {
  switch (system) {
    case 'tsdb': return tsdbAdapter(ctx);
    case 'tsdb-cluster': return tsdbClusterAdapter(ctx);
    case 'influxdb': return influxAdapter();
    case 'victoriametrics': return vmAdapter();
    case 'clickhouse': return clickhouseAdapter();
    case 'postgresql': return postgresAdapter(ctx);
  }
}
