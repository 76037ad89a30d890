/**
 * Times a statement of a MySQL or PostgreSQL connection into `tsdb_servers_{mysql,postgres}_query_elapsed`
 * (labelled with the statement's first keyword and its result) and counts failures in
 * `tsdb_servers_error_total`.
 */
import { secondsSince } from '../common/metrics/latency-buckets.js';
import { mysqlQueryElapsed, postgresQueryElapsed, serverErrors, statementKind } from '../common/metrics/server-metrics.js';

export interface StatementTimer {
  /** Records success; returns `value`. */
  done<T>(value: T): T;
  /** Records failure; returns `err` (to rethrow). */
  failed(err: unknown): unknown;
}

export function startStatementTimer(protocol: 'mysql' | 'postgres', sql: string): StatementTimer {
  const started = process.hrtime.bigint();
  const histogram = protocol === 'mysql' ? mysqlQueryElapsed : postgresQueryElapsed;
  const kind = statementKind(sql);
  return {
    done(value) {
      histogram.observe({ kind, result: 'success' }, secondsSince(started));
      return value;
    },
    failed(err) {
      histogram.observe({ kind, result: 'failure' }, secondsSince(started));
      serverErrors.inc({ protocol });
      return err;
    },
  };
}
