/**
 * Wires `[slow_query]` to a frontend instance (standalone and frontend components): the recorder
 * with its sink — `tsdb_private.slow_queries` written through the instance, or the slow query log
 * in logging.dir — set on the instance, whose statements it is then told of.
 */
import type { Logger } from '../../common/logging.js';
import type { SlowQueryOptions } from '../../config/options.js';
import type { FrontendInstance } from '../instance.js';
import { newSession } from '../session.js';
import { SlowQueryLog } from './slow-query-log.js';
import { SlowQueryRecorder, type SlowQuerySink } from './slow-query-recorder.js';
import { SLOW_QUERY_DATABASE, SlowQueryTable } from './slow-query-table.js';

/** The recorder of `frontend` (set as its `slowQueries`), or undefined when `options.enable` is false. */
export async function startSlowQueries(
  options: SlowQueryOptions,
  logging: { readonly dir?: string | undefined; readonly max_log_files: number },
  frontend: FrontendInstance,
  logger: Logger,
): Promise<SlowQueryRecorder | undefined> {
  if (!options.enable) return undefined;
  let sink: SlowQuerySink;
  if (options.record_type === 'log') {
    sink = await SlowQueryLog.open(logging.dir, logging.max_log_files, logger);
  } else {
    sink = new SlowQueryTable(
      {
        // As the default user (read-write; the table is the server's own), never recorded themselves.
        sql: async (text) => void (await frontend.executeSql(text, newSession(), { internal: true })),
        ingest: async (table) => void (await frontend.ingest([table], newSession(SLOW_QUERY_DATABASE), { autoCreateTable: false })),
      },
      options.ttl,
    );
  }
  const recorder = new SlowQueryRecorder({ thresholdMs: options.threshold, sampleRatio: options.sample_ratio, sink, logger });
  frontend.slowQueries = recorder;
  logger.info({ record_type: options.record_type, threshold_ms: options.threshold, sample_ratio: options.sample_ratio }, 'recording slow queries');
  return recorder;
}
