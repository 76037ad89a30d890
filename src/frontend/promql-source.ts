/**
 * PromQL's view of a database (`promql/source.ts` over SQL): a table is a metric (`__name__`),
 * its tags are labels, its time index the sample time and a numeric field the value; label
 * matchers and the time range become the WHERE of one scan per table, so the region scan reads
 * only the series and time asked for. Used by the Prometheus HTTP API, `/v1/promql`, the gRPC
 * PrometheusGateway and TQL.
 */
import { PromqlError } from '../promql/errors.js';
import type { Labels } from '../promql/labels.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../promql/source.js';
import type { Cell } from '../query/output.js';
import type { TableSummary } from './table-summary.js';

/** What the source needs of the database it reads: its tables and a way to run a SELECT. */
export interface PromTableAccess {
  /** The tables of the database (only `names` when given). */
  tables(names?: readonly string[]): Promise<TableSummary[]>;
  /** The rows of one SELECT over the database. */
  rows(sql: string, signal?: AbortSignal): Promise<ReadonlyArray<readonly Cell[]>>;
}

export class SqlPromSource implements PromSource {
  constructor(private readonly access: PromTableAccess) {}

  select(req: SelectRequest): Promise<SeriesData[]> {
    return Promise.reject(new PromqlError('internal', `not built yet ${req.matchers.length} ${typeof this.access}`));
  }

  series(req: MetadataRequest): Promise<Labels[]> {
    return Promise.reject(new PromqlError('internal', `not built yet ${req.limit}`));
  }

  labelNames(req: MetadataRequest): Promise<string[]> {
    return Promise.reject(new PromqlError('internal', `not built yet ${req.limit}`));
  }

  labelValues(name: string, req: MetadataRequest): Promise<string[]> {
    return Promise.reject(new PromqlError('internal', `not built yet ${name} ${req.limit}`));
  }
}
