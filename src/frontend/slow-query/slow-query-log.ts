/**
 * The sink of `slow_query.record_type = "log"` (GreptimeDB's `greptimedb-slow-queries.*` files): each
 * slow query is a JSON line of `tsdb-slow-queries.<date>.<n>.log` in logging.dir (rotated daily,
 * `logging.max_log_files` kept, written as the main log files are: a file that cannot be written
 * never blocks), and a warning of the main log, so that whoever reads only the server's log sees it.
 */
import { createLogFile, type Logger, type LoggerHandle } from '../../common/logging.js';
import type { SlowQueryRecord, SlowQuerySink } from './slow-query-recorder.js';

/** The file name's stem in logging.dir. */
export const SLOW_QUERY_LOG_NAME = 'tsdb-slow-queries';

/** The fields of a record's log line (the timestamp as ISO text: the line's own `time` is when it was written). */
function fields(r: SlowQueryRecord): Record<string, unknown> {
  const ms = Number(r.timestamp / 1_000_000n);
  return {
    cost: r.cost,
    threshold: r.threshold,
    query: r.query,
    is_promql: r.is_promql,
    ...(r.is_promql && { promql_range: r.promql_range, promql_step: r.promql_step, promql_start: r.promql_start, promql_end: r.promql_end }),
    catalog: r.catalog_name,
    database: r.schema_name,
    user: r.username,
    protocol: r.protocol,
    ended_at: new Date(ms).toISOString(),
  };
}

export class SlowQueryLog implements SlowQuerySink {
  private constructor(
    private readonly file: LoggerHandle | undefined,
    private readonly logger: Logger,
  ) {}

  /** Opens the file in `dir` (none when `dir` is undefined: warnings only). */
  static async open(dir: string | undefined, maxFiles: number, logger: Logger): Promise<SlowQueryLog> {
    return new SlowQueryLog(dir === undefined ? undefined : await createLogFile(dir, SLOW_QUERY_LOG_NAME, maxFiles), logger);
  }

  write(records: readonly SlowQueryRecord[]): Promise<void> {
    for (const r of records) {
      const f = fields(r);
      this.file?.logger.info(f, 'slow query');
      this.logger.warn({ slow_query: f }, `slow query (${r.cost}ms ≥ ${r.threshold}ms): ${r.query.length > 200 ? `${r.query.slice(0, 200)}…` : r.query}`);
    }
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.file?.close();
  }
}
