/**
 * What the load benchmark sends:
 * - **writes**: InfluxDB line protocol, `batch` rows per request, into table `load` (tags host,
 *   region, rack; fields usage_user, usage_system, requests). Global row r is series r mod `series`
 *   at step ⌊r / series⌋ (one second per step from the start), so every row has its own
 *   (series, time) and the stored count must equal the acknowledged rows;
 * - **reads**: typical dashboard queries over the same table, in turn: last-5-minutes aggregates per
 *   host, the latest points of one series, count(*);
 * - **runaways**: queries that never end on their own (cross join, unbounded recursive CTE, a giant
 *   string_agg, repeat('x', 2e9)), each sent with a short `x-tsdb-timeout`.
 */

export const TABLE = 'load';

/** Line protocol of global rows [from, from + n), nanosecond timestamps. */
export function lineProtocolBatch(from: number, n: number, series: number, startMs: number): Buffer {
  const lines: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const r = from + i;
    const s = r % series;
    const step = Math.floor(r / series);
    const ts = startMs + step * 1000;
    // Deterministic, varied values from the row number.
    const u = ((r * 7919) % 10000) / 100;
    const sys = ((r * 104729) % 10000) / 100;
    lines[i] = `${TABLE},host=host_${s},region=region_${s % 16},rack=rack_${s % 256} usage_user=${u},usage_system=${sys},requests=${r % 1000}i ${ts}000000`;
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

export interface ReadQuery {
  readonly name: string;
  readonly sql: string;
}

/** The i-th read query (round robin over the three kinds), with a series picked from `i`. */
export function readQuery(i: number, series: number): ReadQuery {
  switch (i % 3) {
    case 0:
      return {
        name: 'read: 5-min aggregate by host',
        sql: `SELECT host, avg(usage_user) AS u, max(usage_system) AS s FROM ${TABLE} WHERE tsdb_timestamp > now() - INTERVAL '5 minutes' GROUP BY host ORDER BY u DESC LIMIT 10`,
      };
    case 1: {
      const host = `host_${(i * 2654435761) % series}`;
      return { name: 'read: one series', sql: `SELECT tsdb_timestamp, usage_user, usage_system FROM ${TABLE} WHERE host = '${host}' ORDER BY tsdb_timestamp DESC LIMIT 100` };
    }
    default:
      return { name: 'read: count(*)', sql: `SELECT count(*) FROM ${TABLE}` };
  }
}

export const RUNAWAY_KINDS = ['cross-join', 'recursive-cte', 'string-agg', 'repeat'] as const;
export type RunawayKind = (typeof RUNAWAY_KINDS)[number];

export function runawaySql(kind: RunawayKind): string {
  switch (kind) {
    case 'cross-join':
      return 'SELECT count(*) FROM range(100000000) a CROSS JOIN range(100000000) b WHERE a.range + b.range = -1';
    case 'recursive-cte':
      return 'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t';
    case 'string-agg':
      return "SELECT length(string_agg(repeat('x', 1000), ',')) FROM range(3000000)";
    case 'repeat':
      return "SELECT length(repeat('x', 2000000000))";
  }
}
