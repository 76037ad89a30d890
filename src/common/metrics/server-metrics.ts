/**
 * Metrics of the protocol servers (HTTP, gRPC, MySQL, PostgreSQL) and of ingestion, named as
 * GreptimeDB's (`greptime_servers_*`, `greptime_table_operator_ingest_rows`) with the `tsdb_`
 * prefix. Labels are bounded: HTTP requests carry the route pattern (`/v1/influxdb/write`, never
 * the raw URL with its query string), gRPC calls their method path, SQL statements their first
 * keyword out of a fixed list.
 */
import { Counter, Histogram } from 'prom-client';
import { REQUEST_BUCKETS } from './latency-buckets.js';
import { metricsRegistry } from './registry.js';

const registers = [metricsRegistry];
const buckets = [...REQUEST_BUCKETS];

export const httpRequestsTotal = new Counter({
  name: 'tsdb_servers_http_requests_total',
  help: 'HTTP requests answered, by method, route and status code',
  labelNames: ['method', 'path', 'code'] as const,
  registers,
});

export const httpRequestsElapsed = new Histogram({
  name: 'tsdb_servers_http_requests_elapsed',
  help: 'HTTP request latency in seconds, by method, route and status code',
  labelNames: ['method', 'path', 'code'] as const,
  buckets,
  registers,
});

export const grpcRequestsTotal = new Counter({
  name: 'tsdb_servers_grpc_requests_total',
  help: 'gRPC calls finished, by method path and gRPC status code',
  labelNames: ['path', 'code'] as const,
  registers,
});

export const grpcRequestsElapsed = new Histogram({
  name: 'tsdb_servers_grpc_requests_elapsed',
  help: 'gRPC call latency in seconds, by method path and gRPC status code',
  labelNames: ['path', 'code'] as const,
  buckets,
  registers,
});

export const mysqlQueryElapsed = new Histogram({
  name: 'tsdb_servers_mysql_query_elapsed',
  help: 'MySQL statement latency in seconds, by statement kind and result',
  labelNames: ['kind', 'result'] as const,
  buckets,
  registers,
});

export const postgresQueryElapsed = new Histogram({
  name: 'tsdb_servers_postgres_query_elapsed',
  help: 'PostgreSQL statement latency in seconds, by statement kind and result',
  labelNames: ['kind', 'result'] as const,
  buckets,
  registers,
});

export const serverErrors = new Counter({
  name: 'tsdb_servers_error_total',
  help: 'Requests and statements that failed, by protocol',
  labelNames: ['protocol'] as const,
  registers,
});

/** The ingestion protocols counted by the ingest metrics. */
export type IngestProtocol = 'influxdb' | 'prometheus' | 'opentsdb' | 'grpc' | 'sql';

export const ingestRowsTotal = new Counter({
  name: 'tsdb_servers_ingest_rows_total',
  help: 'Rows written through each ingestion protocol',
  labelNames: ['protocol'] as const,
  registers,
});

export const ingestBytesTotal = new Counter({
  name: 'tsdb_servers_ingest_bytes_total',
  help: 'Request body bytes (as received, before decompression) of accepted and refused writes, by ingestion protocol',
  labelNames: ['protocol'] as const,
  registers,
});

export const ingestRejectedRequests = new Counter({
  name: 'tsdb_servers_ingest_rejected_requests_total',
  help: 'Write requests refused (nothing of them written), by ingestion protocol',
  labelNames: ['protocol'] as const,
  registers,
});

export const ingestRejectedRows = new Counter({
  name: 'tsdb_servers_ingest_rejected_rows_total',
  help: 'Rows (lines, samples, data points) of refused write requests, where the request was decoded before it failed, by ingestion protocol',
  labelNames: ['protocol'] as const,
  registers,
});

export const tableOperatorIngestRows = new Counter({
  name: 'tsdb_table_operator_ingest_rows',
  help: 'Rows written, by database',
  labelNames: ['db'] as const,
  registers,
});

export const queryElapsed = new Histogram({
  name: 'tsdb_query_elapsed',
  help: 'Statement and query latency in seconds, by query language (sql, tql, promql), statement kind and result',
  labelNames: ['kind', 'statement', 'result'] as const,
  buckets,
  registers,
});

/** Counts rows written by an ingestion protocol into `db`. */
export function recordIngest(protocol: IngestProtocol, db: string, rows: number, bytes = 0): void {
  ingestRowsTotal.inc({ protocol }, rows);
  tableOperatorIngestRows.inc({ db }, rows);
  if (bytes > 0) ingestBytesTotal.inc({ protocol }, bytes);
}

/** Counts a refused write request: `rows` decoded before it failed (0 when it did not decode). */
export function recordIngestRejected(protocol: IngestProtocol, rows: number, bytes = 0): void {
  ingestRejectedRequests.inc({ protocol });
  if (rows > 0) ingestRejectedRows.inc({ protocol }, rows);
  if (bytes > 0) ingestBytesTotal.inc({ protocol }, bytes);
}

/** Statement kinds the MySQL and PostgreSQL metrics are labelled with; any other first word is `other`. */
const STATEMENT_KINDS = new Set([
  'select', 'insert', 'delete', 'show', 'describe', 'desc', 'explain', 'create', 'drop', 'alter', 'truncate',
  'set', 'use', 'tql', 'admin', 'with', 'values', 'copy', 'kill', 'begin', 'commit', 'rollback',
]);

/**
 * The kind of a SQL statement for metric labels: its first keyword (lowercased) when it is one of
 * a fixed list, else `other`. Leading blanks, `--` and block comments, and parentheses are skipped;
 * at most the first 256 characters are looked at.
 */
export function statementKind(sql: string): string {
  const end = Math.min(sql.length, 256);
  let i = 0;
  for (;;) {
    while (i < end && /[\s(;]/.test(sql[i]!)) i++;
    if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      if (nl < 0) return 'other';
      i = nl + 1;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) return 'other';
      i = close + 2;
      continue;
    }
    break;
  }
  let j = i;
  while (j < end && /[A-Za-z_]/.test(sql[j]!)) j++;
  const word = sql.slice(i, j).toLowerCase();
  return STATEMENT_KINDS.has(word) ? word : 'other';
}
