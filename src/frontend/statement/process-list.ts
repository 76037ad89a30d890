/**
 * `SHOW [FULL] PROCESSLIST` and the rows of `information_schema.process_list`, from the process list
 * (`../process-list.ts`), shaped as GreptimeDB shows them: SHOW PROCESSLIST is `Id, Catalog, Query,
 * Elapsed Time`; SHOW FULL PROCESSLIST is `Id, Catalog, Schema, Client, Frontend, Start Time, Elapsed
 * Time, Query`; ordered by id. `Elapsed Time` is in milliseconds. Without FULL the query is cut to
 * its first 100 characters (as MySQL does).
 */
import { hostname } from 'node:os';
import type { ProcessRow } from '../../catalog/information-schema.js';
import { records, type Output, type OutputColumn } from '../../query/output.js';
import type { ProcessEntry } from '../process-list.js';

/** The query text SHOW PROCESSLIST (without FULL) shows. */
export const SHOW_QUERY_LENGTH = 100;

const FRONTEND = hostname();

/** The rows of `entries`, their ids qualified by `serverAddr` (`127.0.0.1:4001/7`, as GreptimeDB shows them). */
export function processRows(entries: readonly ProcessEntry[], serverAddr: string = FRONTEND, now = Date.now()): ProcessRow[] {
  return entries.map((e) => ({
    id: `${serverAddr}/${e.id}`,
    catalog: e.catalog,
    database: e.database,
    query: e.query,
    client: e.address === '' ? e.protocol : `${e.protocol}[${e.address}]`,
    frontend: serverAddr,
    startMs: e.startMs,
    elapsedMs: Math.max(0, now - e.startMs),
  }));
}

const str = (name: string): OutputColumn => ({ name, data_type: 'String' });

export function showProcessList(full: boolean, entries: readonly ProcessEntry[], serverAddr?: string): Output {
  const rows = processRows(entries, serverAddr);
  if (!full) {
    const columns = [str('Id'), str('Catalog'), str('Query'), { name: 'Elapsed Time', data_type: 'Int64' }];
    return records(columns, rows.map((r) => [r.id, r.catalog, r.query.length > SHOW_QUERY_LENGTH ? r.query.slice(0, SHOW_QUERY_LENGTH) : r.query, r.elapsedMs]));
  }
  const columns: OutputColumn[] = [
    str('Id'),
    str('Catalog'),
    str('Schema'),
    str('Client'),
    str('Frontend'),
    { name: 'Start Time', data_type: 'TimestampMillisecond' },
    { name: 'Elapsed Time', data_type: 'Int64' },
    str('Query'),
  ];
  return records(columns, rows.map((r) => [r.id, r.catalog, r.database, r.client, r.frontend, r.startMs, r.elapsedMs, r.query]));
}
