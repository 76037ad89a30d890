/**
 * The point-query data set and its SQL: `--hosts` hosts × `--points` rows each, one row per host
 * every 10 s from 2016-01-01 (bench/tsbs's seeded generator: the ten usage_* fields as random walks),
 * with hostname as the only tag. The same INSERT statements load tsdb and PostgreSQL, and the same
 * point query text runs on both: timestamps are written as `'YYYY-MM-DD HH:MM:SS'` literals, which
 * tsdb casts to its millisecond TIMESTAMP and PostgreSQL reads as `timestamp`.
 */
import { FIELDS, generate, INTERVAL_MS, Rng, type Dataset } from '../tsbs/data.js';

export { FIELDS };
export type { Dataset };

export const TABLE = 'cpu';

/** The data set: `points` rows per host (bench/tsbs's generator takes hours; 10 s per point). */
export function makeDataset(hosts: number, points: number, seed: number): Dataset {
  const ds = generate(hosts, (points * INTERVAL_MS) / 3_600_000, seed);
  if (ds.steps !== points) throw new Error(`generated ${ds.steps} points per host, wanted ${points}`);
  return ds;
}

export const TSDB_CREATE_TABLE =
  `CREATE TABLE IF NOT EXISTS ${TABLE} (hostname STRING, ts TIMESTAMP(3) NOT NULL, ` +
  `${FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, TIME INDEX (ts), PRIMARY KEY (hostname))`;

export const POSTGRES_CREATE_TABLE =
  `CREATE TABLE IF NOT EXISTS ${TABLE} (hostname text NOT NULL, ts timestamp NOT NULL, ` +
  `${FIELDS.map((f) => `${f} double precision`).join(', ')}, PRIMARY KEY (hostname, ts))`;

/** `'2016-01-01 00:00:10'` (UTC, whole seconds: every point is on a 10 s boundary). */
export function timestampLiteral(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Shortest round-trip decimal of a double, so both systems store the generated value exactly. */
function num(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

/**
 * Multi-row INSERTs of the steps [fromStep, toStep) (every host at each step, time-major), at most
 * `batch` rows per statement.
 */
export function insertStatements(ds: Dataset, fromStep: number, toStep: number, batch: number): string[] {
  const head = `INSERT INTO ${TABLE} (hostname, ts, ${FIELDS.join(', ')}) VALUES `;
  const out: string[] = [];
  let tuples: string[] = [];
  for (let row = fromStep * ds.hosts; row < toStep * ds.hosts; row++) {
    const step = Math.floor(row / ds.hosts);
    const host = row % ds.hosts;
    const parts = [`'host_${host}'`, `'${timestampLiteral(ds.startMs + step * INTERVAL_MS)}'`];
    for (let f = 0; f < FIELDS.length; f++) parts.push(num(ds.values[row * FIELDS.length + f] ?? 0));
    tuples.push(`(${parts.join(',')})`);
    if (tuples.length === batch) {
      out.push(head + tuples.join(','));
      tuples = [];
    }
  }
  if (tuples.length > 0) out.push(head + tuples.join(','));
  return out;
}

/** One point query: a host and one of its timestamps, drawn uniformly over the whole data set. */
export interface PointQuery {
  readonly host: number;
  readonly step: number;
  readonly hostname: string;
  /** The timestamp as a literal without quotes: `2016-01-01 00:00:10`. */
  readonly ts: string;
}

export const POINT_QUERY_MYSQL_PREPARED = `SELECT * FROM ${TABLE} WHERE hostname = ? AND ts = ?`;
export const POINT_QUERY_PG_PREPARED = `SELECT * FROM ${TABLE} WHERE hostname = $1 AND ts = $2`;

/** `SELECT * FROM cpu WHERE hostname = 'host_17' AND ts = '2016-01-01 00:05:30'`: the text every system runs. */
export function pointQuerySql(q: PointQuery): string {
  return `SELECT * FROM ${TABLE} WHERE hostname = '${q.hostname}' AND ts = '${q.ts}'`;
}

/** Draws point queries from a seeded generator (one per connection, so each system gets the same sequence). */
export class PointQueries {
  private readonly rng: Rng;

  constructor(
    private readonly ds: Dataset,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }

  next(): PointQuery {
    const host = this.rng.int(this.ds.hosts);
    const step = this.rng.int(this.ds.steps);
    return { host, step, hostname: `host_${host}`, ts: timestampLiteral(this.ds.startMs + step * INTERVAL_MS) };
  }
}

/** The stored value of `field` (index into FIELDS) for a query's row. */
export function expectedValue(ds: Dataset, q: PointQuery, field: number): number {
  return ds.values[(q.step * ds.hosts + q.host) * FIELDS.length + field] ?? Number.NaN;
}
