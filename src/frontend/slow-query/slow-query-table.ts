/**
 * `tsdb_private.slow_queries` (GreptimeDB's `greptime_private.slow_queries`): the sink of
 * `slow_query.record_type = "system_table"`. A real table — append mode, the configured `ttl` —
 * created with its database the first time a slow query is written (and again if it was dropped),
 * written through the ingestion path like any other rows, so that it survives a restart and is
 * read with SQL (and PromQL) like any table.
 *
 * Columns: GreptimeDB's (cost, threshold, query, is_promql, timestamp, promql_range, promql_step,
 * promql_start, promql_end, catalog_name, schema_name) and tsdb's `username` and `protocol`.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatDuration } from '../../common/time/duration.js';
import type { IngestColumn, IngestTable } from '../ingest-request.js';
import type { SlowQueryRecord, SlowQuerySink } from './slow-query-recorder.js';

export const SLOW_QUERY_DATABASE = 'tsdb_private';
export const SLOW_QUERY_TABLE = 'slow_queries';

/** What the table sink needs of the frontend: DDL run as SQL (never recorded itself), and rows ingested. */
export interface SlowQueryTableWriter {
  sql(text: string): Promise<void>;
  /** Writes rows into an existing table of SLOW_QUERY_DATABASE; TableNotFound when it does not exist. */
  ingest(table: IngestTable): Promise<void>;
}

/** The statements that create the database and table; `ttlMs` 0 keeps rows forever. */
export function slowQueryDdl(ttlMs: number): string[] {
  const ttl = ttlMs > 0 ? formatDuration(ttlMs) : 'forever';
  return [
    `CREATE DATABASE IF NOT EXISTS ${SLOW_QUERY_DATABASE}`,
    `CREATE TABLE IF NOT EXISTS ${SLOW_QUERY_DATABASE}.${SLOW_QUERY_TABLE} (
  cost UINT64 NOT NULL COMMENT 'How long the query ran, in milliseconds',
  threshold UINT64 NOT NULL COMMENT 'The slow_query.threshold it reached, in milliseconds',
  query STRING NOT NULL COMMENT 'The query text (INSERT values and secrets cut)',
  is_promql BOOLEAN NOT NULL COMMENT 'Whether the query is PromQL (the Prometheus API, or TQL)',
  "timestamp" TIMESTAMP(9) NOT NULL COMMENT 'When the query ended',
  promql_range UINT64 NOT NULL COMMENT 'PromQL: end - start, in milliseconds',
  promql_step UINT64 NOT NULL COMMENT 'PromQL: the step, in milliseconds (0: an instant query)',
  promql_start TIMESTAMP(3) NOT NULL COMMENT 'PromQL: the start of the evaluation',
  promql_end TIMESTAMP(3) NOT NULL COMMENT 'PromQL: the end of the evaluation',
  catalog_name STRING NOT NULL COMMENT 'The catalog of the session',
  schema_name STRING NOT NULL COMMENT 'The database of the session',
  username STRING NOT NULL COMMENT 'Who ran the query',
  protocol STRING NOT NULL COMMENT 'http, mysql, postgres or grpc',
  TIME INDEX ("timestamp")
) WITH (ttl = '${ttl}', append_mode = 'true')`,
  ];
}

/** The records as the table's rows. */
export function slowQueryRows(records: readonly SlowQueryRecord[]): IngestTable {
  const n = records.length;
  const u64 = (pick: (r: SlowQueryRecord) => number) => {
    const data = new BigUint64Array(n);
    for (let i = 0; i < n; i++) data[i] = BigInt(pick(records[i]!));
    return data;
  };
  const i64 = (pick: (r: SlowQueryRecord) => bigint | number) => {
    const data = new BigInt64Array(n);
    for (let i = 0; i < n; i++) data[i] = BigInt(pick(records[i]!));
    return data;
  };
  const str = (pick: (r: SlowQueryRecord) => string) => records.map(pick);
  const is = new Uint8Array(n);
  for (let i = 0; i < n; i++) is[i] = records[i]!.is_promql ? 1 : 0;
  const columns: IngestColumn[] = [
    { name: 'cost', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: u64((r) => r.cost) } },
    { name: 'threshold', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: u64((r) => r.threshold) } },
    { name: 'query', semantic: 'field', type: 'String', vector: { type: 'string', data: str((r) => r.query) } },
    { name: 'is_promql', semantic: 'field', type: 'Boolean', vector: { type: 'bool', data: is } },
    { name: 'timestamp', semantic: 'timestamp', type: 'TimestampNanosecond', vector: { type: 'int64', data: i64((r) => r.timestamp) } },
    { name: 'promql_range', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: u64((r) => r.promql_range) } },
    { name: 'promql_step', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: u64((r) => r.promql_step) } },
    { name: 'promql_start', semantic: 'field', type: 'TimestampMillisecond', vector: { type: 'int64', data: i64((r) => r.promql_start) } },
    { name: 'promql_end', semantic: 'field', type: 'TimestampMillisecond', vector: { type: 'int64', data: i64((r) => r.promql_end) } },
    { name: 'catalog_name', semantic: 'field', type: 'String', vector: { type: 'string', data: str((r) => r.catalog_name) } },
    { name: 'schema_name', semantic: 'field', type: 'String', vector: { type: 'string', data: str((r) => r.schema_name) } },
    { name: 'username', semantic: 'field', type: 'String', vector: { type: 'string', data: str((r) => r.username) } },
    { name: 'protocol', semantic: 'field', type: 'String', vector: { type: 'string', data: str((r) => r.protocol) } },
  ];
  return { name: SLOW_QUERY_TABLE, rowCount: n, columns };
}

/** Writes records as rows of `tsdb_private.slow_queries`, creating it when it is missing. */
export class SlowQueryTable implements SlowQuerySink {
  private created: Promise<void> | undefined;

  constructor(
    private readonly writer: SlowQueryTableWriter,
    private readonly ttlMs: number,
  ) {}

  async write(records: readonly SlowQueryRecord[]): Promise<void> {
    if (records.length === 0) return;
    const rows = slowQueryRows(records);
    await this.create();
    try {
      await this.writer.ingest(rows);
    } catch (err) {
      // Dropped (or its database) since it was created here: created again, written once more.
      if (!(err instanceof TsdbError) || (err.code !== StatusCode.TableNotFound && err.code !== StatusCode.DatabaseNotFound)) throw err;
      this.created = undefined;
      await this.create();
      await this.writer.ingest(rows);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private create(): Promise<void> {
    this.created ??= (async () => {
      for (const sql of slowQueryDdl(this.ttlMs)) await this.writer.sql(sql);
    })().catch((err: unknown) => {
      this.created = undefined;
      throw err;
    });
    return this.created;
  }
}
