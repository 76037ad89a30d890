/**
 * `GET|POST /v1/promql` (reference api.md §1.3, GreptimeDB's `promql` handler): a PromQL range
 * query — `query`, `start`, `end`, `step` (required), `lookback` (default 5m), `db` — answered as a
 * table in the `/v1/sql` output formats (`format`: greptimedb_v1 by default, csv, json, …). The
 * table: `ts` (TimestampMillisecond), `value` (Float64; a string expression's value is a String),
 * then one String column per label of the result (sorted by name; `__name__` is left out, as
 * GreptimeDB's answer has the table's tags only), one row per sample, series by series. Errors
 * are tsdb's error shape (`{"code","error","execution_time_ms"}`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, statusCodeOf, TsdbError } from '../../common/error/tsdb-error.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import { METRIC_NAME } from '../../promql/ast.js';
import { PromqlError } from '../../promql/errors.js';
import type { QueryResult } from '../../promql/values.js';
import type { Cell, Output, OutputColumn } from '../../query/output.js';
import type { AuthHandler, PromqlHandler } from '../handlers.js';
import { apiErrorOf, checkRange, parsedParam, parsePromDuration, parsePromTime, runPromQuery } from '../promql-api.js';
import { credentialsFromHeaders } from './basic-auth.js';
import { elapsedMs, sendError } from './http-server.js';
import { formatOf, render } from './sql-format.js';
import { databaseOf } from './write-routes.js';

/** A query's answer as the rows of a table (see the file comment). */
export function resultTable(r: QueryResult): Output {
  const ts: OutputColumn = { name: 'ts', data_type: 'TimestampMillisecond' };
  if (r.type === 'scalar') return { kind: 'records', columns: [ts, { name: 'value', data_type: 'Float64' }], rows: [[r.t, r.v]] };
  if (r.type === 'string') return { kind: 'records', columns: [ts, { name: 'value', data_type: 'String' }], rows: [[r.t, r.v]] };
  const series = r.type === 'vector' ? r.vector.map((s) => ({ labels: s.labels, t: [s.t], v: [s.v] })) : r.matrix;
  const names = [...new Set(series.flatMap((s) => s.labels.map((l) => l.name)))].filter((n) => n !== METRIC_NAME).sort();
  const rows: Cell[][] = [];
  for (const s of series) {
    const labels = names.map((n) => s.labels.find((l) => l.name === n)?.value ?? null);
    for (let i = 0; i < s.t.length; i++) rows.push([s.t[i]!, s.v[i]!, ...labels]);
  }
  return { kind: 'records', columns: [ts, { name: 'value', data_type: 'Float64' }, ...names.map((name) => ({ name, data_type: 'String' }))], rows };
}

/** The request's parameters: form fields, then the query string over them. */
function paramsOf(req: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  const body = req.body;
  if (Buffer.isBuffer(body) && body.length > 0 && String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) out.set(k, v);
  }
  const q = req.url.indexOf('?');
  if (q >= 0) for (const [k, v] of new URLSearchParams(req.url.slice(q + 1))) out.set(k, v);
  return out;
}

function required(p: Map<string, string>, name: string): string {
  const v = p.get(name);
  if (v === undefined || v === '') throw new TsdbError(StatusCode.InvalidArguments, `${name} parameter is required.`);
  return v;
}

export function promqlRoutes(app: FastifyInstance, promql: PromqlHandler, auth: AuthHandler | undefined): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    let user: UserInfo = DEFAULT_USER;
    if (auth !== undefined) {
      try {
        const { username, password } = credentialsFromHeaders(req.headers);
        user = await auth.authenticate(username, password);
      } catch (err) {
        return sendError(req, reply, statusCodeOf(err), errorMessage(err), 401);
      }
    }
    try {
      const p = paramsOf(req);
      const format = formatOf(p.get('format'));
      const query = required(p, 'query');
      const startMs = parsedParam('start', required(p, 'start'), parsePromTime);
      const endMs = parsedParam('end', required(p, 'end'), parsePromTime);
      const stepMs = parsedParam('step', required(p, 'step'), parsePromDuration);
      const lookbackText = p.get('lookback');
      const lookbackMs = lookbackText === undefined || lookbackText === '' ? undefined : parsedParam('lookback', lookbackText, parsePromDuration);
      checkRange(startMs, endMs, stepMs);
      const database = databaseOf(p.get('db') ?? (req.headers['x-tsdb-db-name'] as string | undefined) ?? 'public');
      const result = await runPromQuery(promql, { database, timezone: 'UTC', user, signal: req.deadline }, { query, startMs, endMs, stepMs, ...(lookbackMs !== undefined && lookbackMs > 0 && { lookbackMs }) });
      if (reply.sent) return reply;
      const elapsed = elapsedMs(req);
      const { contentType, body } = render(format, [resultTable(result)], elapsed);
      return reply.header('x-tsdb-format', format).header('x-tsdb-execution-time', String(elapsed)).type(contentType).send(body);
    } catch (err) {
      if (reply.sent) return reply;
      if (err instanceof PromqlError) {
        const e = apiErrorOf(err);
        return sendError(req, reply, err.code, e.message, e.status);
      }
      if (err instanceof TsdbError) return sendError(req, reply, err.code, err.message);
      throw err;
    }
  };
  app.get('/v1/promql', handler);
  app.post('/v1/promql', handler);
}
