/**
 * The TSBS cpu-only query set, one seeded instance of each, written five times: tsdb SQL (the
 * TimescaleDB forms of TSBS with date_bin for time_bucket), InfluxQL (TSBS's InfluxDB forms, with
 * `AS` aliases so the result columns match the SQL ones), PromQL/MetricsQL where PromQL can say
 * it (TSBS's VictoriaMetrics forms; null where it cannot), ClickHouse SQL (TSBS's ClickHouse forms:
 * toStartOfMinute/Hour, lastpoint as `(host, time) IN (… max(time) …)`, on a flat table rather
 * than TSBS's separate tags table) and PostgreSQL SQL (the TimescaleDB forms without timescale
 * functions: date_trunc for time_bucket). All SQL forms name their columns alike, so their
 * answers compare column by column.
 */
import { FIELDS, Rng, TAGS, type Dataset } from './data.js';

export interface PromQuery {
  readonly kind: 'range' | 'instant';
  readonly query: string;
  /** range: start and end (ms) and step (s); instant: evaluated at endMs. */
  readonly startMs: number;
  readonly endMs: number;
  readonly stepS: number;
}

export interface QueryDef {
  readonly name: string;
  readonly description: string;
  readonly sql: string;
  readonly influxql: string;
  readonly promql: PromQuery | null;
  /** How the PromQL form differs from the TSBS semantics, or why there is none. */
  readonly promNote: string;
  readonly clickhouse: string;
  readonly postgresql: string;
}

const HOUR = 3600_000;
const MINUTE = 60_000;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** n distinct hosts (all of them if n ≥ hosts), in the order drawn. */
function pickHosts(rng: Rng, hosts: number, n: number): string[] {
  const all = Array.from({ length: hosts }, (_, i) => i);
  for (let i = all.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [all[i], all[j]] = [all[j] ?? 0, all[i] ?? 0];
  }
  return all.slice(0, Math.min(n, hosts)).map((h) => `host_${h}`);
}

/** A random window of durMs inside the data, start on a whole second (the whole data if it is shorter). */
function window(rng: Rng, ds: Dataset, durMs: number): [number, number] {
  const total = ds.endMs - ds.startMs;
  if (durMs >= total) return [ds.startMs, ds.endMs];
  const start = ds.startMs + Math.floor((rng.float() * (total - durMs)) / 1000) * 1000;
  return [start, start + durMs];
}

function sqlHosts(hosts: readonly string[]): string {
  return `hostname IN (${hosts.map((h) => `'${h}'`).join(', ')})`;
}

function influxHosts(hosts: readonly string[]): string {
  return `(${hosts.map((h) => `hostname = '${h}'`).join(' OR ')})`;
}

function promSelector(metrics: readonly string[], hosts: readonly string[] | null): string {
  const name = metrics.length === 1 ? `__name__="cpu_${metrics[0]}"` : `__name__=~"cpu_(${metrics.join('|')})"`;
  return hosts === null ? `{${name}}` : `{${name},hostname=~"${hosts.join('|')}"}`;
}

/** ClickHouse 18 compares a DateTime with `YYYY-MM-DD hh:mm:ss` text (the server runs in UTC). */
function chTime(a: number, b: number): string {
  return `ts >= '${chIso(a)}' AND ts < '${chIso(b)}'`;
}

function chIso(ms: number): string {
  return iso(ms).replace('T', ' ').replace('Z', '');
}

function sqlTime(a: number, b: number): string {
  return `ts >= '${iso(a)}' AND ts < '${iso(b)}'`;
}

function influxTime(a: number, b: number): string {
  return `time >= '${iso(a)}' AND time < '${iso(b)}'`;
}

/** `max(usage_user) AS max_usage_user, …` in SQL and InfluxQL alike. */
function aggs(fn: string, metrics: readonly string[]): string {
  return metrics.map((m) => `${fn}(${m}) AS ${fn}_${m}`).join(', ');
}

/** TSBS single-groupby-M-H-T: max of M metrics over H random hosts, T hours, per minute. */
function singleGroupby(rng: Rng, ds: Dataset, m: number, h: number, t: number): QueryDef {
  const metrics = FIELDS.slice(0, m);
  const hosts = pickHosts(rng, ds.hosts, h);
  const [a, b] = window(rng, ds, t * HOUR);
  return {
    name: `single-groupby-${m}-${h}-${t}`,
    description: `max of ${m} metric(s), ${h} host(s), ${t} h, per minute`,
    sql: `SELECT date_bin(INTERVAL '1 minute', ts) AS minute, ${aggs('max', metrics)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${sqlTime(a, b)} GROUP BY minute ORDER BY minute`,
    influxql: `SELECT ${aggs('max', metrics)} FROM cpu WHERE ${influxHosts(hosts)} AND ${influxTime(a, b)} GROUP BY time(1m)`,
    promql: { kind: 'range', query: `max(max_over_time(${promSelector(metrics, hosts)}[1m])) by (__name__)`, startMs: a + MINUTE, endMs: b, stepS: 60 },
    promNote: 'range query, step 1m, max_over_time over (t-1m, t]',
    clickhouse: `SELECT toStartOfMinute(ts) AS minute, ${aggs('max', metrics)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${chTime(a, b)} GROUP BY minute ORDER BY minute`,
    postgresql: `SELECT date_trunc('minute', ts) AS minute, ${aggs('max', metrics)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${sqlTime(a, b)} GROUP BY minute ORDER BY minute`,
  };
}

/** TSBS cpu-max-all-H: max of all 10 metrics for H random hosts over 8 h, per hour. */
function cpuMaxAll(rng: Rng, ds: Dataset, h: number): QueryDef {
  const hosts = pickHosts(rng, ds.hosts, h);
  const [a, b] = window(rng, ds, 8 * HOUR);
  return {
    name: `cpu-max-all-${h}`,
    description: `max of all 10 metrics, ${h} host(s), 8 h, per hour`,
    sql: `SELECT date_bin(INTERVAL '1 hour', ts) AS hour, ${aggs('max', FIELDS)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${sqlTime(a, b)} GROUP BY hour ORDER BY hour`,
    influxql: `SELECT ${aggs('max', FIELDS)} FROM cpu WHERE ${influxHosts(hosts)} AND ${influxTime(a, b)} GROUP BY time(1h)`,
    promql: { kind: 'range', query: `max(max_over_time(${promSelector(FIELDS, hosts)}[1h])) by (__name__)`, startMs: a + HOUR, endMs: b, stepS: 3600 },
    promNote: 'range query, step 1h',
    clickhouse: `SELECT toStartOfHour(ts) AS hour, ${aggs('max', FIELDS)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${chTime(a, b)} GROUP BY hour ORDER BY hour`,
    postgresql: `SELECT date_trunc('hour', ts) AS hour, ${aggs('max', FIELDS)} FROM cpu WHERE ${sqlHosts(hosts)} AND ${sqlTime(a, b)} GROUP BY hour ORDER BY hour`,
  };
}

/** TSBS double-groupby-M: mean of M metrics per host per hour over 12 h, all hosts. */
function doubleGroupby(rng: Rng, ds: Dataset, metrics: readonly string[], label: string): QueryDef {
  const [a, b] = window(rng, ds, 12 * HOUR);
  return {
    name: `double-groupby-${label}`,
    description: `mean of ${metrics.length} metric(s) per host per hour, all hosts, 12 h`,
    sql: `SELECT date_bin(INTERVAL '1 hour', ts) AS hour, hostname, ${aggs('avg', metrics).replaceAll(' AS avg_', ' AS mean_')} FROM cpu WHERE ${sqlTime(a, b)} GROUP BY hour, hostname ORDER BY hour, hostname`,
    influxql: `SELECT ${aggs('mean', metrics)} FROM cpu WHERE ${influxTime(a, b)} GROUP BY time(1h), hostname`,
    promql: { kind: 'range', query: `avg(avg_over_time(${promSelector(metrics, null)}[1h])) by (__name__, hostname)`, startMs: a + HOUR, endMs: b, stepS: 3600 },
    promNote: 'range query, step 1h',
    clickhouse: `SELECT toStartOfHour(ts) AS hour, hostname, ${aggs('avg', metrics).replaceAll(' AS avg_', ' AS mean_')} FROM cpu WHERE ${chTime(a, b)} GROUP BY hour, hostname ORDER BY hour, hostname`,
    postgresql: `SELECT date_trunc('hour', ts) AS hour, hostname, ${aggs('avg', metrics).replaceAll(' AS avg_', ' AS mean_')} FROM cpu WHERE ${sqlTime(a, b)} GROUP BY hour, hostname ORDER BY hour, hostname`,
  };
}

/** TSBS high-cpu-H: every row with usage_user > 90 over 12 h, for H hosts (all when null). */
function highCpu(rng: Rng, ds: Dataset, h: number | null): QueryDef {
  const hosts = h === null ? null : pickHosts(rng, ds.hosts, h);
  const [a, b] = window(rng, ds, 12 * HOUR);
  return {
    name: `high-cpu-${h ?? 'all'}`,
    description: `rows with usage_user > 90, ${h === null ? 'all hosts' : `${h} host`}, 12 h`,
    sql: `SELECT * FROM cpu WHERE usage_user > 90.0 AND ${sqlTime(a, b)}${hosts === null ? '' : ` AND ${sqlHosts(hosts)}`}`,
    influxql: `SELECT * FROM cpu WHERE usage_user > 90.0 AND ${influxTime(a, b)}${hosts === null ? '' : ` AND ${influxHosts(hosts)}`}`,
    promql: null,
    promNote: 'not expressible: PromQL returns series, not the rows (all 10 fields) where usage_user > 90',
    // TSBS's ClickHouse form filters with PREWHERE: read usage_user first, the other columns only where it matches.
    clickhouse: `SELECT * FROM cpu PREWHERE usage_user > 90.0 WHERE ${chTime(a, b)}${hosts === null ? '' : ` AND ${sqlHosts(hosts)}`}`,
    postgresql: `SELECT * FROM cpu WHERE usage_user > 90.0 AND ${sqlTime(a, b)}${hosts === null ? '' : ` AND ${sqlHosts(hosts)}`}`,
  };
}

function lastpoint(ds: Dataset): QueryDef {
  const total = ds.endMs - ds.startMs;
  return {
    name: 'lastpoint',
    description: 'last row of every host',
    sql: 'SELECT DISTINCT ON (hostname) * FROM cpu ORDER BY hostname, ts DESC',
    influxql: 'SELECT * FROM cpu GROUP BY hostname ORDER BY time DESC LIMIT 1',
    promql: { kind: 'instant', query: `last_over_time({__name__=~"cpu_usage_.*"}[${Math.ceil(total / 1000) + 60}s])`, startMs: ds.endMs, endMs: ds.endMs, stepS: 0 },
    promNote: 'MetricsQL last_over_time of every cpu series (no time-unbounded "last row"; window = whole data)',
    clickhouse: 'SELECT * FROM cpu WHERE (hostname, ts) IN (SELECT hostname, max(ts) FROM cpu GROUP BY hostname) ORDER BY hostname',
    postgresql: 'SELECT DISTINCT ON (hostname) * FROM cpu ORDER BY hostname, ts DESC',
  };
}

/** TSBS groupby-orderby-limit: max usage_user per minute, the last 5 minutes before a random end. */
function groupbyOrderbyLimit(rng: Rng, ds: Dataset): QueryDef {
  const end = ds.startMs + 5 * MINUTE + Math.floor((rng.float() * (ds.endMs - ds.startMs - 5 * MINUTE)) / 1000) * 1000;
  const endMinute = Math.floor(end / MINUTE) * MINUTE;
  return {
    name: 'groupby-orderby-limit',
    description: 'max usage_user per minute, last 5 minutes before a random end, LIMIT 5',
    sql: `SELECT date_bin(INTERVAL '1 minute', ts) AS minute, max(usage_user) AS max_usage_user FROM cpu WHERE ts < '${iso(end)}' GROUP BY minute ORDER BY minute DESC LIMIT 5`,
    // InfluxQL needs a lower time bound (else it buckets from 1970); end − 5 min yields the same 5 buckets.
    influxql: `SELECT max(usage_user) AS max_usage_user FROM cpu WHERE time < '${iso(end)}' AND time >= '${iso(end - 5 * MINUTE)}' GROUP BY time(1m) ORDER BY time DESC LIMIT 5`,
    promql: { kind: 'range', query: 'max(max_over_time(cpu_usage_user[1m]))', startMs: endMinute - 3 * MINUTE, endMs: endMinute + MINUTE, stepS: 60 },
    promNote: 'range query over the last 5 steps (no ORDER BY/LIMIT in PromQL)',
    clickhouse: `SELECT toStartOfMinute(ts) AS minute, max(usage_user) AS max_usage_user FROM cpu WHERE ts < '${chIso(end)}' GROUP BY minute ORDER BY minute DESC LIMIT 5`,
    postgresql: `SELECT date_trunc('minute', ts) AS minute, max(usage_user) AS max_usage_user FROM cpu WHERE ts < '${iso(end)}' GROUP BY minute ORDER BY minute DESC LIMIT 5`,
  };
}

/** The 11 queries, drawn from a generator seeded with `seed` (same instances for every system). */
export function tsbsQueries(ds: Dataset, seed: number): QueryDef[] {
  const rng = new Rng(seed);
  return [
    cpuMaxAll(rng, ds, 1),
    cpuMaxAll(rng, ds, 8),
    singleGroupby(rng, ds, 1, 1, 1),
    singleGroupby(rng, ds, 1, 8, 1),
    singleGroupby(rng, ds, 5, 8, 1),
    doubleGroupby(rng, ds, FIELDS.slice(0, 1), '1'),
    doubleGroupby(rng, ds, FIELDS, 'all'),
    highCpu(rng, ds, 1),
    highCpu(rng, ds, null),
    lastpoint(ds),
    groupbyOrderbyLimit(rng, ds),
  ];
}

/** Other SQL forms of a TSBS query, run on tsdb only, to see what the query shape costs. */
export interface SqlVariant {
  readonly name: string;
  /** The TSBS query it answers (its InfluxDB answer is the reference). */
  readonly of: string;
  readonly sql: string;
}

export function tsdbVariants(): SqlVariant[] {
  return [
    { name: 'lastpoint (QUALIFY row_number)', of: 'lastpoint', sql: 'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY hostname ORDER BY ts DESC) = 1' },
    // Not a lastpoint shape to tsdb (a QUALIFY of two terms): every row read, what a last-row scan saves.
    { name: 'lastpoint (QUALIFY … AND true: full scan)', of: 'lastpoint', sql: 'SELECT * FROM cpu QUALIFY row_number() OVER (PARTITION BY hostname ORDER BY ts DESC) = 1 AND true' },
    { name: 'lastpoint (join on max(ts))', of: 'lastpoint', sql: 'SELECT c.* FROM cpu c JOIN (SELECT hostname, max(ts) AS last_ts FROM cpu GROUP BY hostname) m ON c.hostname = m.hostname AND c.ts = m.last_ts' },
    // GreptimeDB's TSBS client's form: its last_value aggregate per host.
    {
      name: 'lastpoint (last_value)',
      of: 'lastpoint',
      sql: `SELECT hostname, ${[...TAGS.slice(1), 'ts', ...FIELDS].map((c) => `last_value(${c} ORDER BY ts) AS ${c}`).join(', ')} FROM cpu GROUP BY hostname`,
    },
  ];
}
