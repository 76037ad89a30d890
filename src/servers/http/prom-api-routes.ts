/**
 * The Prometheus HTTP API under `/v1/prometheus/api/v1` (reference api.md §1.7), as Prometheus
 * 2.42 answers it (`web/api/v1/api.go`): `query`, `query_range`, `labels`, `label/<name>/values`,
 * `series`, `metadata`, `format_query`, `parse_query`, `status/buildinfo`, by GET or POST
 * (form-encoded; the form's values come before the query string's, as Go's `r.Form` orders them).
 * Answers are Prometheus's envelope — `{"status":"success","data":…}` or
 * `{"status":"error","errorType":…,"error":…}` with its HTTP status — so that Grafana, promtool
 * and Prometheus client libraries read them. The database is the `db` parameter, else the
 * `x-tsdb-db-name` header, else `public`; a database that does not exist answers empty data.
 *
 * What tsdb does not keep: metric metadata (`metadata` answers `{}`), exemplars, rules, alerts,
 * targets (those paths are not routed).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildInfo } from '../../common/build-info.js';
import type { Logger } from '../../common/logging.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import { astJson } from '../../promql/ast-json.js';
import { parsePromql } from '../../promql/parser.js';
import { prettyExpr } from '../../promql/printer.js';
import type { PromSource } from '../../promql/source.js';
import type { AuthHandler, PromqlHandler, SqlContext } from '../handlers.js';
import {
  apiErrorOf,
  checkRange,
  EMPTY_SOURCE,
  errorJson,
  invalidParam,
  isServerFault,
  matcherSetsOf,
  MAX_TIME_MS,
  MIN_TIME_MS,
  parsePromDuration,
  parsePromTime,
  parsedParam,
  resultJson,
  runPromQuery,
  successJson,
  timeParam,
} from '../promql-api.js';
import { credentialsFromHeaders } from './basic-auth.js';
import { databaseOf } from './write-routes.js';
import { PromqlError } from '../../promql/errors.js';

export const PROM_API_PREFIX = '/v1/prometheus/api/v1';

/** The Prometheus version whose API this one follows (what `status/buildinfo` reports as `version`). */
export const PROMETHEUS_API_VERSION = '2.42.0';

const FORM = 'application/x-www-form-urlencoded';
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Params = Map<string, string[]>;

/** The request's parameters: form body values, then the query string's (Go's `r.Form`). */
function paramsOf(req: FastifyRequest): Params {
  const out: Params = new Map();
  const add = (search: URLSearchParams) => {
    for (const [k, v] of search) {
      const list = out.get(k);
      if (list === undefined) out.set(k, [v]);
      else list.push(v);
    }
  };
  const body = req.body;
  if (Buffer.isBuffer(body) && body.length > 0) {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === FORM) add(new URLSearchParams(body.toString('utf8')));
  }
  const q = req.url.indexOf('?');
  if (q >= 0) add(new URLSearchParams(req.url.slice(q + 1)));
  return out;
}

const first = (p: Params, name: string): string | undefined => p.get(name)?.[0];

/** `limit` of the metadata endpoints: 0 or absent = all. */
function limitOf(p: Params): number {
  const v = first(p, 'limit');
  if (v === undefined || v === '') return 0;
  if (!/^[+-]?\d+$/.test(v)) throw invalidParam('limit', `cannot parse ${JSON.stringify(v)} to a valid limit`);
  const n = Number(v);
  if (n < 0) throw invalidParam('limit', 'limit must be non-negative');
  return n;
}

/** A duration parameter (`timeout`, `lookback_delta`); undefined when absent. */
function durationParam(p: Params, names: readonly string[], fractional = false): number | undefined {
  for (const name of names) {
    const v = first(p, name);
    if (v === undefined || v === '') continue;
    try {
      return parsePromDuration(v, fractional);
    } catch (err) {
      throw invalidParam(name, (err as Error).message);
    }
  }
  return undefined;
}

/** The lookback of a query: `lookback_delta` (Prometheus), `lookback` (GreptimeDB); positive. */
function lookbackOf(p: Params): number | undefined {
  const ms = durationParam(p, ['lookback_delta', 'lookback']);
  if (ms !== undefined && ms <= 0) return undefined;
  return ms;
}

interface Req {
  readonly params: Params;
  readonly ctx: SqlContext;
  /** The database's source (empty for a database that does not exist). */
  source(): Promise<PromSource>;
}

type ApiFn = (r: Req, req: FastifyRequest) => Promise<string>;

export function promApiRoutes(app: FastifyInstance, promql: PromqlHandler, auth: AuthHandler | undefined, log: Logger): void {
  const send = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('application/json').send(body);

  const handle = (fn: ApiFn) => async (req: FastifyRequest, reply: FastifyReply) => {
    let user: UserInfo = DEFAULT_USER;
    if (auth !== undefined) {
      try {
        const { username, password } = credentialsFromHeaders(req.headers);
        user = await auth.authenticate(username, password);
      } catch (err) {
        const e = apiErrorOf(err);
        return send(reply, 401, errorJson({ ...e, errorType: 'unauthorized', status: 401 }));
      }
    }
    try {
      const params = paramsOf(req);
      let database: string | undefined;
      try {
        database = databaseOf(first(params, 'db') ?? (req.headers['x-tsdb-db-name'] as string | undefined) ?? 'public');
      } catch {
        // A catalog other than tsdb: no such database.
      }
      const ctx: SqlContext = { database: database ?? '', timezone: 'UTC', user, signal: req.deadline, client: `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}` };
      const r: Req = {
        params,
        ctx,
        source: async () => (database === undefined ? EMPTY_SOURCE : ((await promql.source(ctx)) ?? EMPTY_SOURCE)),
      };
      const data = await fn(database === undefined ? { ...r, source: () => Promise.resolve(EMPTY_SOURCE) } : r, req);
      if (reply.sent) return reply;
      return send(reply, 200, successJson(data));
    } catch (err) {
      // The request's deadline has already answered.
      if (reply.sent) return reply;
      const e = apiErrorOf(err);
      if (isServerFault(e)) log.error({ err, url: req.url }, `Prometheus API: ${(err as Error).message}`);
      return send(reply, e.status, errorJson(e));
    }
  };

  const route = (path: string, fn: ApiFn, methods: Array<'GET' | 'POST'> = ['GET', 'POST']) => {
    for (const method of methods) app.route({ method, url: `${PROM_API_PREFIX}${path}`, handler: handle(fn) });
  };

  route('/query', async (r) => {
    const p = r.params;
    const time = timeParam(p, 'time', Date.now());
    const timeoutMs = durationParam(p, ['timeout'], true);
    const lookbackMs = lookbackOf(p);
    const query = first(p, 'query') ?? '';
    try {
      parsePromql(query);
    } catch (err) {
      if (err instanceof PromqlError && err.errorType === 'bad_data') throw invalidParam('query', err.message);
      throw err;
    }
    const result = await runPromQuery(sourceHandler(r, promql), r.ctx, { query, startMs: time, endMs: time, stepMs: 0, ...(lookbackMs !== undefined && { lookbackMs }), ...(timeoutMs !== undefined && { timeoutMs }) });
    return resultJson(result);
  });

  route('/query_range', async (r) => {
    const p = r.params;
    const parse = (name: string, fn: (s: string) => number) => parsedParam(name, first(p, name) ?? '', fn);
    const start = parse('start', parsePromTime);
    const end = parse('end', parsePromTime);
    if (end < start) throw invalidParam('end', 'end timestamp must not be before start time');
    const step = parse('step', parsePromDuration);
    checkRange(start, end, step);
    const timeoutMs = durationParam(p, ['timeout'], true);
    const lookbackMs = lookbackOf(p);
    const result = await runPromQuery(sourceHandler(r, promql), r.ctx, { query: first(p, 'query') ?? '', startMs: start, endMs: end, stepMs: step, ...(lookbackMs !== undefined && { lookbackMs }), ...(timeoutMs !== undefined && { timeoutMs }) });
    return resultJson(result);
  });

  /** start/end (default: all time), match[] sets, limit: what the metadata endpoints take. */
  const metadataRequest = (r: Req, matchRequired: boolean, matchParam: string | undefined) => {
    const p = r.params;
    const texts = p.get('match[]') ?? [];
    if (matchRequired && texts.length === 0) throw new PromqlError('bad_data', 'no match[] parameter provided');
    const startMs = timeParam(p, 'start', MIN_TIME_MS);
    const endMs = timeParam(p, 'end', MAX_TIME_MS);
    let matcherSets;
    try {
      matcherSets = matcherSetsOf(texts);
    } catch (err) {
      if (matchParam !== undefined && err instanceof PromqlError && err.errorType === 'bad_data') throw invalidParam(matchParam, err.message);
      throw err;
    }
    return { matcherSets, startMs, endMs, limit: limitOf(p), ...(r.ctx.signal !== undefined && { signal: r.ctx.signal }) };
  };

  route('/labels', async (r) => {
    const m = metadataRequest(r, false, undefined);
    return JSON.stringify(await (await r.source()).labelNames(m));
  });

  route('/label/:name/values', async (r, req) => {
    const name = (req.params as { name: string }).name;
    if (!LABEL_NAME.test(name)) throw new PromqlError('bad_data', `invalid label name: ${JSON.stringify(name)}`);
    const m = metadataRequest(r, false, undefined);
    return JSON.stringify(await (await r.source()).labelValues(name, m));
  });

  route('/series', async (r) => {
    const m = metadataRequest(r, true, 'match[]');
    const series = await (await r.source()).series(m);
    return `[${series.map((s) => JSON.stringify(Object.fromEntries(s.map((l) => [l.name, l.value])))).join(',')}]`;
  });

  // tsdb keeps no metric metadata (type, unit, help): none is known.
  route('/metadata', () => Promise.resolve('{}'));

  route('/format_query', (r) => {
    try {
      return Promise.resolve(JSON.stringify(prettyExpr(parsePromql(first(r.params, 'query') ?? ''))));
    } catch (err) {
      if (err instanceof PromqlError && err.errorType === 'bad_data') throw invalidParam('query', err.message);
      throw err;
    }
  });

  route('/parse_query', (r) => {
    try {
      return Promise.resolve(JSON.stringify(astJson(parsePromql(first(r.params, 'query') ?? ''))));
    } catch (err) {
      if (err instanceof PromqlError && err.errorType === 'bad_data') throw invalidParam('query', err.message);
      throw err;
    }
  });

  route('/status/buildinfo', () => {
    const b = buildInfo();
    return Promise.resolve(
      JSON.stringify({ version: PROMETHEUS_API_VERSION, revision: b.commit, branch: b.branch, buildUser: 'tsdb', buildDate: b.build_date, goVersion: `node ${process.version}`, tsdbVersion: b.version }),
    );
  });
}

/** A PromqlHandler answering with the request's source (so that a bad `db` reads the empty source). */
function sourceHandler(r: Req, promql: PromqlHandler): PromqlHandler {
  return {
    source: () => r.source(),
    ...(promql.queryTimeoutMs !== undefined && { queryTimeoutMs: promql.queryTimeoutMs }),
    ...(promql.queryEnded !== undefined && { queryEnded: promql.queryEnded.bind(promql) }),
  };
}
