/**
 * The SQL of each workload over a source relation `src` with the memtable's columns, and the
 * checks of their results (row counts and sums that every candidate must reproduce).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Memtable } from './memtable-fixture.js';

export const POINT_SERIES = 'host_7';
/** The one-hour window of the point query, starting at the middle of the memtable's time span. */
export function pointWindow(mt: Memtable): { fromMs: number; toMs: number } {
  const spanMs = (mt.series[0]?.length ?? 0) * mt.intervalMs;
  const fromMs = mt.startMs + Math.floor(spanMs / 2 / 60_000) * 60_000;
  return { fromMs, toMs: fromMs + 3_600_000 };
}

function tsLiteral(ms: number): string {
  return `CAST('${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}' AS TIMESTAMP_MS)`;
}

export class WorkloadSql {
  private readonly tags: string;
  private readonly cols: string;

  constructor(private readonly mt: Memtable) {
    this.tags = mt.tagNames.join(', ');
    // Tags cast to VARCHAR so that an ENUM-typed source writes the same Parquet schema.
    this.cols = [
      ...mt.tagNames.map((t) => `${t}::VARCHAR AS ${t}`),
      'ts',
      'seq::UBIGINT AS seq',
      'op',
      ...mt.fieldNames,
    ].join(', ');
  }

  aggregate(src: string): string {
    const [f1, f2] = this.mt.fieldNames;
    return `SELECT ${this.mt.tagNames[0]!}, avg(${f1!}) AS a, max(${f2!}) AS m FROM ${src} GROUP BY ${this.mt.tagNames[0]!}`;
  }

  point(src: string): string {
    const { fromMs, toMs } = pointWindow(this.mt);
    return (
      `SELECT ts, ${this.mt.fieldNames.slice(0, 3).join(', ')} FROM ${src} ` +
      `WHERE ${this.mt.tagNames[0]!} = '${POINT_SERIES}' AND ts BETWEEN ${tsLiteral(fromMs)} AND ${tsLiteral(toMs)}`
    );
  }

  /** Named parameters with which a memtable scan prunes to the point query's series and hour. */
  pointPruneArgs(): string {
    const { fromMs, toMs } = pointWindow(this.mt);
    return `series_key := '${POINT_SERIES}', ts_from := ${fromMs}, ts_to := ${toMs}`;
  }

  flushSorted(src: string, path: string): string {
    return this.copy(`SELECT ${this.cols} FROM ${src} ORDER BY ${this.tags}, ts, seq DESC`, path);
  }

  /** The source already yields rows in (key, ts, seq desc) order, deduplicated if needed. */
  flushPresorted(src: string, path: string): string {
    return this.copy(`SELECT ${this.cols} FROM ${src}`, path);
  }

  dedupQualify(src: string, path: string): string {
    return this.copy(
      `SELECT ${this.cols} FROM ${src} ` +
        `QUALIFY row_number() OVER (PARTITION BY ${this.tags}, ts ORDER BY seq DESC) = 1 ORDER BY ${this.tags}, ts`,
      path,
    );
  }

  /** `arg_max_null`, not `arg_max`: the latter skips NULL values and would resurrect older ones. */
  dedupArgMax(src: string, path: string): string {
    const picks = ['op', ...this.mt.fieldNames].map((c) => `arg_max_null(${c}, seq) AS ${c}`).join(', ');
    const tags = this.mt.tagNames.map((t) => `${t}::VARCHAR AS ${t}`).join(', ');
    return this.copy(
      `SELECT ${tags}, ts, max(seq)::UBIGINT AS seq, ${picks} FROM ${src} GROUP BY ${this.tags}, ts ORDER BY ${this.tags}, ts`,
      path,
    );
  }

  private copy(select: string, path: string): string {
    return `COPY (${select}) TO '${path}' (FORMAT parquet, COMPRESSION zstd)`;
  }
}

/** Aggregate: group count and the sum of the per-group results, rounded. */
export async function runAggregate(con: DuckDBConnection, sql: string): Promise<string> {
  const rows = (await con.runAndReadAll(sql)).getRows();
  let sum = 0;
  for (const row of rows) sum += Number(row[1]) + Number(row[2]);
  return `groups=${rows.length} sum=${sum.toFixed(3)}`;
}

export async function runPoint(con: DuckDBConnection, sql: string): Promise<string> {
  const rows = (await con.runAndReadAll(sql)).getRows();
  let sum = 0;
  for (const row of rows) sum += Number(row[1]);
  return `rows=${rows.length} sum=${sum.toFixed(3)}`;
}

/**
 * Reads a flushed file back: rows, a field sum, non-NULL count of the last field, rows out of
 * (key, ts, seq desc) order, and rows repeating the previous row's (key, ts).
 */
export async function checkParquet(con: DuckDBConnection, mt: Memtable, path: string): Promise<string> {
  const tags = mt.tagNames.join(', ');
  const sql =
    `SELECT count(*), sum(${mt.fieldNames[0]!}), count(${mt.fieldNames.at(-1)!}), ` +
    `count(*) FILTER (WHERE k <= pk), count(*) FILTER (WHERE k2 = pk2) FROM (` +
    `SELECT ${mt.fieldNames[0]!}, ${mt.fieldNames.at(-1)!}, ` +
    `row(${tags}, ts, -seq::DOUBLE) AS k, lag(row(${tags}, ts, -seq::DOUBLE)) OVER (ORDER BY file_row_number) AS pk, ` +
    `row(${tags}, ts) AS k2, lag(row(${tags}, ts)) OVER (ORDER BY file_row_number) AS pk2 ` +
    `FROM read_parquet('${path}', file_row_number := true))`;
  const [row] = (await con.runAndReadAll(sql)).getRows();
  const [n, sum, nonNull, disorder, repeated] = row!;
  return `rows=${String(n)} sum=${Number(sum).toFixed(3)} nonnull=${String(nonNull)} disorder=${String(disorder)} repeatedKeys=${String(repeated)}`;
}
