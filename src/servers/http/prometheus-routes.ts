/**
 * Prometheus remote write and remote read (reference api.md §1.6): `POST /v1/prometheus/write`
 * (snappy-compressed protobuf WriteRequest, v1) makes one table per metric name with
 * `tsdb_timestamp`, `tsdb_value` and a STRING tag per label — logical tables of the metric engine on
 * `tsdb_physical_table` when `prom_store.with_metric_engine` (the default) — and answers 204;
 * `POST /v1/prometheus/read` answers a snappy-compressed ReadResponse with the samples that match
 * each query's label matchers and time range, read with SQL.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';
import type { Cell } from '../../query/output.js';
import type { AuthHandler, IngestHandler, SqlContext, SqlHandler } from '../handlers.js';
import { decodeReadRequest, encodeReadResponse, negotiateResponseType, type ReadMatcher, type ReadQuery, type ReadSeries } from '../prometheus/remote-read.js';
import { decodeRemoteWrite, METRIC_NAME_LABEL, TIMESTAMP_COLUMN, VALUE_COLUMN } from '../prometheus/remote-write.js';
import { ingestRemoteWrite } from '../prometheus/remote-write-ingest.js';
import { databaseOf, decompressedBodyLimit, requestBytes, requestDatabase, sendWriteError, withBasicAuth } from './write-routes.js';
import { ingestBytesTotal, recordIngest, recordIngestRejected } from '../../common/metrics/server-metrics.js';
import { bodySize, rowsOf } from '../ingest-metrics.js';

export interface PromStoreOptions {
  /** `prom_store.with_metric_engine`. */
  readonly withMetricEngine: boolean;
}

/** What is wrong with the headers of a remote write (answered 415), if anything: snappy content, protobuf v1 WriteRequest. */
function writeHeadersProblem(req: FastifyRequest): string | undefined {
  const encoding = String(req.headers['content-encoding'] ?? 'snappy').trim().toLowerCase();
  if (encoding !== 'snappy') return `Unsupported Content-Encoding for remote write: ${encoding} (snappy is supported)`;
  const type = String(req.headers['content-type'] ?? '').toLowerCase().replaceAll(' ', '');
  if (type === '' || type === 'application/x-protobuf' || type === 'application/x-protobuf;proto=prometheus.writerequest') return undefined;
  if (/proto=io\.prometheus\.write\.v2\.request/.test(type)) return 'Prometheus remote write 2.0 (io.prometheus.write.v2.Request) is not supported; send v1 (prometheus.WriteRequest)';
  return `Unsupported Content-Type for remote write: ${type} (application/x-protobuf is supported)`;
}

/** SQL conditions of a query's label matchers on a table's tag columns; undefined when no row can match. */
function labelConditions(matchers: readonly ReadMatcher[], tags: ReadonlySet<string>): string[] | undefined {
  const out: string[] = [];
  for (const m of matchers) {
    if (m.name === METRIC_NAME_LABEL) continue;
    // A label the table lacks is the empty string on every row (Prometheus: absent = "").
    const col = tags.has(m.name) ? `coalesce(${quoteIdent(m.name)}, '')` : `''`;
    const v = quoteLiteral(m.value);
    let cond: string;
    switch (m.type) {
      case 'EQ':
        cond = `${col} = ${v}`;
        break;
      case 'NEQ':
        cond = `${col} <> ${v}`;
        break;
      case 'RE':
        cond = `regexp_full_match(${col}, ${v})`;
        break;
      case 'NRE':
        cond = `NOT regexp_full_match(${col}, ${v})`;
        break;
    }
    if (!tags.has(m.name)) {
      // Decide now: the condition is on a constant.
      const matches = m.type === 'EQ' ? m.value === '' : m.type === 'NEQ' ? m.value !== '' : m.type === 'RE' ? new RegExp(`^(?:${m.value})$`).test('') : !new RegExp(`^(?:${m.value})$`).test('');
      if (!matches) return undefined;
      continue;
    }
    out.push(cond);
  }
  return out;
}

/** Refuses a regular expression matcher whose pattern does not compile. */
function checkMatchers(q: ReadQuery): void {
  for (const m of q.matchers) {
    if (m.type !== 'RE' && m.type !== 'NRE') continue;
    try {
      new RegExp(`^(?:${m.value})$`);
    } catch {
      throw new TsdbError(StatusCode.InvalidArguments, `Invalid regular expression in matcher ${m.name}=~"${m.value}"`);
    }
  }
}

function nameMatches(m: ReadMatcher, name: string): boolean {
  switch (m.type) {
    case 'EQ':
      return name === m.value;
    case 'NEQ':
      return name !== m.value;
    case 'RE':
      return new RegExp(`^(?:${m.value})$`).test(name);
    case 'NRE':
      return !new RegExp(`^(?:${m.value})$`).test(name);
  }
}

async function records(sql: SqlHandler, statement: string, ctx: SqlContext): Promise<ReadonlyArray<readonly Cell[]>> {
  const [out] = await sql.executeSql(statement, ctx);
  return out !== undefined && out.kind === 'records' ? out.rows : [];
}

/** The series of one read query: every table of the database shaped like a remote-write table. */
async function readQuery(sql: SqlHandler, ctx: SqlContext, q: ReadQuery): Promise<ReadSeries[]> {
  const nameMatchers = q.matchers.filter((m) => m.name === METRIC_NAME_LABEL);
  // An exact metric name looks up one table; other matchers look at every table.
  const exact = nameMatchers.find((m) => m.type === 'EQ');
  const summaries = await sql.tables(ctx, exact === undefined ? undefined : [exact.value]);
  // Tables shaped like remote-write tables: a time index tsdb_timestamp and a tsdb_value field
  // (not the physical tables of the metric engine: their rows are read through their logical tables).
  const tables = new Map<string, Set<string>>();
  for (const t of summaries) {
    if (t.physical) continue;
    const has = (name: string, semantic: string) => t.columns.some((c) => c.name === name && c.semantic === semantic);
    if (!has(TIMESTAMP_COLUMN, 'timestamp') || !has(VALUE_COLUMN, 'field')) continue;
    tables.set(t.name, new Set(t.columns.filter((c) => c.semantic === 'tag').map((c) => c.name)));
  }
  const series: ReadSeries[] = [];
  for (const [table, tags] of tables) {
    if (!nameMatchers.every((m) => nameMatches(m, table))) continue;
    const conds = labelConditions(q.matchers, tags);
    if (conds === undefined) continue;
    const tagList = [...tags].sort();
    const cols = [...tagList.map(quoteIdent), `CAST(epoch_ms(${quoteIdent(TIMESTAMP_COLUMN)}) AS DOUBLE)`, quoteIdent(VALUE_COLUMN)];
    const where = [`${quoteIdent(TIMESTAMP_COLUMN)} >= epoch_ms(${Math.trunc(q.startMs)})`, `${quoteIdent(TIMESTAMP_COLUMN)} <= epoch_ms(${Math.trunc(q.endMs)})`, ...conds];
    const order = [...tagList.map((t) => `${quoteIdent(t)} NULLS FIRST`), quoteIdent(TIMESTAMP_COLUMN)];
    const rows = await records(sql, `SELECT ${cols.join(', ')} FROM ${quoteIdent(table)} WHERE ${where.join(' AND ')} ORDER BY ${order.join(', ')}`, ctx);
    let current: { key: string; series: { labels: Array<{ name: string; value: string }>; samples: Array<{ value: number; timestampMs: number }> } } | undefined;
    for (const row of rows) {
      const key = JSON.stringify(row.slice(0, tagList.length));
      if (current === undefined || current.key !== key) {
        const labels = [{ name: METRIC_NAME_LABEL, value: table }];
        tagList.forEach((t, i) => {
          const v = row[i];
          if (v !== null && v !== '') labels.push({ name: t, value: String(v) });
        });
        labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        current = { key, series: { labels, samples: [] } };
        series.push(current.series);
      }
      const v = row[tagList.length + 1];
      current.series.samples.push({ timestampMs: Number(row[tagList.length]), value: v === null ? Number.NaN : Number(v) });
    }
  }
  return series;
}

export function prometheusRoutes(app: FastifyInstance, ingest: IngestHandler, sql: SqlHandler, auth: AuthHandler | undefined, opts: PromStoreOptions, log: Logger): void {
  app.post('/v1/prometheus/write', withBasicAuth(auth, log, async (req, reply, user) => {
    const query = req.query as Record<string, string | undefined>;
    const problem = writeHeadersProblem(req);
    if (problem !== undefined) return sendWriteError(req, reply, log, new TsdbError(StatusCode.Unsupported, problem), 415);
    let samples = 0;
    try {
      const database = requestDatabase(req);
      const { groups } = decodeRemoteWrite(await requestBytes(req, ['snappy']), decompressedBodyLimit());
      for (const g of groups) samples += g.table.rowCount;
      const physicalTable = query['physical_table'];
      const batches = await ingestRemoteWrite(ingest, groups, { database, user, withMetricEngine: opts.withMetricEngine, databaseOf, ...(physicalTable !== undefined && { physicalTable }) });
      for (const b of batches) recordIngest('prometheus', b.database, rowsOf(b.tables));
      ingestBytesTotal.inc({ protocol: 'prometheus' }, bodySize(req));
      return reply.code(204).send();
    } catch (err) {
      recordIngestRejected('prometheus', samples, bodySize(req));
      return sendWriteError(req, reply, log, err);
    }
  }));

  app.post('/v1/prometheus/read', withBasicAuth(auth, log, async (req, reply, user) => {
    try {
      const database = requestDatabase(req);
      if (!(await sql.databaseExists(database))) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${database}`);
      const { queries, acceptedResponseTypes } = decodeReadRequest(await requestBytes(req, ['snappy']), decompressedBodyLimit());
      negotiateResponseType(acceptedResponseTypes);
      const ctx: SqlContext = { database, timezone: 'UTC', user, signal: req.deadline };
      const results: ReadSeries[][] = [];
      for (const q of queries) checkMatchers(q);
      for (const q of queries) results.push(await readQuery(sql, ctx, q));
      return reply.code(200).header('content-type', 'application/x-protobuf').header('content-encoding', 'snappy').send(encodeReadResponse(results));
    } catch (err) {
      return sendWriteError(req, reply, log, err);
    }
  }));
}
