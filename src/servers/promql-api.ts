/**
 * What the PromQL front ends share (the Prometheus HTTP API, `/v1/promql`, the gRPC
 * PrometheusGateway): Prometheus 2.42's parameter parsing (`web/api/v1/api.go` parseTime,
 * parseDuration, parseMatchersParam, with its messages), running a query over the component's
 * PromSource under a deadline, the JSON of a result, and the error types with their HTTP statuses.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { LabelMatcher } from '../promql/ast.js';
import { checkResolution, evaluateQuery } from '../promql/engine.js';
import { DEFAULT_LOOKBACK_MS, DEFAULT_MAX_SAMPLES, PromqlError, type PromErrorType } from '../promql/errors.js';
import { labelsObject, type Labels } from '../promql/labels.js';
import { parseDurationMs, parsePromql, parseSeriesSelector } from '../promql/parser.js';
import { matcherMatches } from '../promql/regex.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../promql/source.js';
import { formatTime, formatValue, type QueryResult } from '../promql/values.js';
import type { PromqlHandler, SqlContext } from './handlers.js';
import { secondsSince } from '../common/metrics/latency-buckets.js';
import { queryElapsed } from '../common/metrics/server-metrics.js';

/** Prometheus's `minTime`/`maxTime` (the defaults of the metadata endpoints' start and end), in ms. */
export const MIN_TIME_MS = (-9223372036854775 + 62135596801) * 1000;
export const MAX_TIME_MS = (9223372036854775 - 62135596801) * 1000 + 999;
/** How Go prints them (RFC 3339): the only out-of-range years its parser takes back. */
const MIN_TIME_TEXT = '-292273086-05-16T16:47:06Z';
const MAX_TIME_TEXT = '292277025-08-18T07:12:54.999999999Z';

const GO_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

const goQuote = (s: string) => JSON.stringify(s);

/** Go's math.Round: half away from zero. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Prometheus's parseTime: float unix seconds (ms precision) or RFC 3339; ms. Throws the bare message. */
export function parsePromTime(s: string): number {
  if (GO_FLOAT.test(s)) {
    const t = Number(s);
    if (Number.isFinite(t)) {
      const sec = Math.trunc(t);
      const ms = sec * 1000 + roundHalfAway((t - sec) * 1000);
      // Past Prometheus's own time range (Go's int64 would overflow): not a time.
      if (ms >= MIN_TIME_MS && ms <= MAX_TIME_MS) return ms;
    }
  }
  const m = RFC3339.exec(s);
  if (m !== null) {
    const [, y, mo, d, h, mi, sec, frac, zone] = m;
    const month = Number(mo);
    const day = Number(d);
    const valid = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(Number(y), month) && Number(h) < 24 && Number(mi) < 60 && Number(sec) < 60;
    if (valid) {
      // setUTCFullYear: Date.UTC would take years 0–99 for 1900–1999.
      const date = new Date(0);
      date.setUTCFullYear(Number(y), month - 1, day);
      date.setUTCHours(Number(h), Number(mi), Number(sec), 0);
      const base = date.getTime();
      let offset = 0;
      if (zone !== 'Z') {
        const sign = zone!.startsWith('-') ? -1 : 1;
        const [oh, om] = zone!.slice(1).split(':').map(Number);
        if (oh! < 24 && om! < 60) offset = sign * (oh! * 60 + om!) * 60_000;
        else offset = Number.NaN;
      }
      // Go's timestamp.FromTime: nanoseconds truncated to ms.
      const ms = base + Math.floor(Number((frac ?? '').padEnd(9, '0') || '0') / 1e6) - offset;
      if (Number.isFinite(ms)) return ms;
    }
  }
  if (s === MIN_TIME_TEXT) return MIN_TIME_MS;
  if (s === MAX_TIME_TEXT) return MAX_TIME_MS;
  throw new Error(`cannot parse ${goQuote(s)} to a valid timestamp`);
}

/**
 * Prometheus's parseDuration: float seconds or a Prometheus duration (`5m`, `1h30m`); whole ms
 * (a step), or with `fractional` the ms with Go's ns precision (a timeout of `0.000001`).
 */
export function parsePromDuration(s: string, fractional = false): number {
  if (GO_FLOAT.test(s)) {
    const d = Number(s);
    const ns = d * 1e9;
    if (ns > 2 ** 63 || ns < -(2 ** 63)) throw new Error(`cannot parse ${goQuote(s)} to a valid duration. It overflows int64`);
    return fractional ? Math.trunc(ns) / 1e6 : Math.trunc(ns / 1e6);
  }
  const ms = parseDurationMs(s);
  if (typeof ms === 'number') return ms;
  throw new Error(`cannot parse ${goQuote(s)} to a valid duration`);
}

/** `invalid parameter "<name>": <message>` (Prometheus's invalidParamError). */
export function invalidParam(name: string, message: string): PromqlError {
  return new PromqlError('bad_data', `invalid parameter ${goQuote(name)}: ${message}`);
}

/** A parameter parsed by `fn` (parsePromTime, parsePromDuration); its failure is `invalid parameter "<name>": …`. */
export function parsedParam(name: string, text: string, fn: (s: string) => number): number {
  try {
    return fn(text);
  } catch (err) {
    throw invalidParam(name, (err as Error).message);
  }
}

/** A time parameter (parseTimeParam): `fallback` when absent or empty. */
export function timeParam(params: ReadonlyMap<string, readonly string[]>, name: string, fallback: number): number {
  const v = params.get(name)?.[0];
  if (v === undefined || v === '') return fallback;
  try {
    return parsePromTime(v);
  } catch (err) {
    throw invalidParam(name, `Invalid time value for '${name}': ${(err as Error).message}`);
  }
}

/** Prometheus's resolution check of a range query, in its order and words. */
export function checkRange(startMs: number, endMs: number, stepMs: number): void {
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  if (stepMs <= 0) throw invalidParam('step', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
  checkResolution(startMs, endMs, stepMs);
}

const matchesEmpty = (m: LabelMatcher): boolean => matcherMatches(m, '');

/** Prometheus's parseMatchersParam: each `match[]` a series selector; one matcher per set must not match "". */
export function matcherSetsOf(texts: readonly string[]): LabelMatcher[][] {
  const sets: LabelMatcher[][] = [];
  for (const text of texts) {
    let sel;
    try {
      sel = parseSeriesSelector(text);
    } catch (err) {
      // Prometheus leaves this check to parseMatchersParam, in its words.
      if (err instanceof PromqlError && err.message.endsWith('vector selector must contain at least one non-empty matcher')) {
        throw new PromqlError('bad_data', 'match[] must contain at least one non-empty matcher');
      }
      throw err;
    }
    sets.push([...sel.matchers]);
  }
  for (const set of sets) {
    if (!set.some((m) => !matchesEmpty(m))) throw new PromqlError('bad_data', 'match[] must contain at least one non-empty matcher');
  }
  return sets;
}

/** A source over nothing: the answer for a database that does not exist (success, empty data). */
export const EMPTY_SOURCE: PromSource = {
  select: (_req: SelectRequest): Promise<SeriesData[]> => Promise.resolve([]),
  series: (_req: MetadataRequest): Promise<Labels[]> => Promise.resolve([]),
  labelNames: (_req: MetadataRequest): Promise<string[]> => Promise.resolve([]),
  labelValues: (_name: string, _req: MetadataRequest): Promise<string[]> => Promise.resolve([]),
};

/** The source of a request's database (the empty source for a database that does not exist). */
export async function promSource(handler: PromqlHandler, ctx: SqlContext): Promise<PromSource> {
  return (await handler.source(ctx)) ?? EMPTY_SOURCE;
}

export interface PromQuery {
  readonly query: string;
  /** Instant query: start = end, step 0. */
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly lookbackMs?: number;
  /** The query's own time limit in ms (the `timeout` parameter; 0 or less: already expired); absent: none besides the request's. */
  readonly timeoutMs?: number;
}

/**
 * Parses and evaluates a query. The query stops when `ctx.signal` aborts (the request's deadline
 * or disconnect: 'canceled' unless the reason is a deadline) or at `timeoutMs` ('timeout',
 * `query timed out in expression evaluation`, as Prometheus says).
 */
export async function runPromQuery(handler: PromqlHandler, ctx: SqlContext, q: PromQuery): Promise<QueryResult> {
  const started = process.hrtime.bigint();
  const statement = q.stepMs !== undefined && q.stepMs > 0 ? 'range' : 'instant';
  try {
    const result = await recordedPromQuery(handler, ctx, q);
    queryElapsed.observe({ kind: 'promql', statement, result: 'success' }, secondsSince(started));
    return result;
  } catch (err) {
    queryElapsed.observe({ kind: 'promql', statement, result: 'failure' }, secondsSince(started));
    throw err;
  }
}

/** Evaluates a query and tells the handler how long it took (the slow-query log). */
async function recordedPromQuery(handler: PromqlHandler, ctx: SqlContext, q: PromQuery): Promise<QueryResult> {
  const expr = parsePromql(q.query);
  const started = performance.now();
  try {
    return await evaluatePromQuery(handler, ctx, q, expr, started);
  } finally {
    handler.queryEnded?.({ query: q.query, startMs: q.startMs, endMs: q.endMs, stepMs: q.stepMs }, ctx, performance.now() - started);
  }
}

async function evaluatePromQuery(handler: PromqlHandler, ctx: SqlContext, q: PromQuery, expr: ReturnType<typeof parsePromql>, started: number): Promise<QueryResult> {
  // The `timeout` parameter, bounded by query.timeout (a query without one still has a deadline).
  const serverLimit = handler.queryTimeoutMs !== undefined && handler.queryTimeoutMs > 0 ? handler.queryTimeoutMs : undefined;
  const limitMs = q.timeoutMs === undefined ? serverLimit : serverLimit === undefined ? q.timeoutMs : Math.min(q.timeoutMs, serverLimit);
  const timeout = limitMs !== undefined ? AbortSignal.timeout(Math.max(0, Math.ceil(limitMs))) : undefined;
  const signal = timeout === undefined ? ctx.signal : ctx.signal === undefined ? timeout : AbortSignal.any([ctx.signal, timeout]);
  try {
    const source = await promSource(handler, signal !== undefined ? { ...ctx, signal } : ctx);
    const result = await evaluateQuery(expr, source, {
      startMs: q.startMs,
      endMs: q.endMs,
      stepMs: q.stepMs,
      lookbackMs: q.lookbackMs ?? DEFAULT_LOOKBACK_MS,
      maxSamples: DEFAULT_MAX_SAMPLES,
      ...(signal !== undefined && { signal }),
    });
    // Evaluation runs steps without yielding, so the timer may not have fired: the deadline still holds.
    if (limitMs !== undefined && performance.now() - started > limitMs) throw new PromqlError('timeout', 'query timed out in expression evaluation');
    return result;
  } catch (err) {
    if (err instanceof PromqlError && err.errorType === 'timeout') throw err;
    if (timeout?.aborted === true && !(ctx.signal?.aborted ?? false)) throw new PromqlError('timeout', 'query timed out in expression evaluation', { cause: err });
    if (ctx.signal?.aborted === true) {
      const reason: unknown = ctx.signal.reason;
      if (reason instanceof TsdbError && reason.code === StatusCode.DeadlineExceeded) throw new PromqlError('timeout', `query timed out in expression evaluation: ${reason.message}`, { cause: err });
      throw new PromqlError('canceled', 'query was canceled in expression evaluation', { cause: err });
    }
    throw err;
  }
}

/** A Prometheus API error: its type, message and HTTP status (web/api/v1 respondError). */
export interface ApiError {
  readonly errorType: PromErrorType | 'unauthorized' | 'forbidden';
  readonly message: string;
  readonly status: number;
}

const STATUS_OF_TYPE: Record<string, number> = { bad_data: 400, execution: 422, canceled: 503, timeout: 503, internal: 500, not_found: 404, unavailable: 503, unauthorized: 401, forbidden: 403 };

/**
 * The API error of a failure. PromQL's errors keep their type; tsdb's become Prometheus's: a
 * user's mistake (a 4xx code) is bad_data, a failing query execution, a deadline timeout,
 * a cancel canceled, unavailable storage unavailable; only what is tsdb's fault is internal.
 */
export function apiErrorOf(err: unknown): ApiError {
  if (err instanceof PromqlError) return { errorType: err.errorType, message: err.message, status: STATUS_OF_TYPE[err.errorType]! };
  if (err instanceof TsdbError) {
    const typed = (errorType: ApiError['errorType'], message = err.message): ApiError => ({ errorType, message, status: STATUS_OF_TYPE[errorType]! });
    switch (err.code) {
      case StatusCode.DeadlineExceeded:
        return typed('timeout');
      case StatusCode.Cancelled:
        return typed('canceled');
      case StatusCode.StorageUnavailable:
      case StatusCode.RegionNotReady:
      case StatusCode.TableUnavailable:
      case StatusCode.RateLimited:
        return typed('unavailable');
      case StatusCode.PermissionDenied:
      case StatusCode.AccessDenied:
        return typed('forbidden');
      case StatusCode.UserNotFound:
      case StatusCode.UserPasswordMismatch:
      case StatusCode.AuthHeaderNotFound:
      case StatusCode.InvalidAuthHeader:
      case StatusCode.UnsupportedPasswordType:
        return typed('unauthorized');
      case StatusCode.EngineExecuteQuery:
      case StatusCode.RuntimeResourcesExhausted:
      case StatusCode.PlanQuery:
        return typed('execution');
      case StatusCode.Internal:
      case StatusCode.Unknown:
      case StatusCode.Unexpected:
      case StatusCode.IllegalState:
        return typed('internal', `Internal error: ${err.code}`);
      default:
        return typed('bad_data');
    }
  }
  return { errorType: 'internal', message: `Internal error: ${StatusCode.Internal}`, status: 500 };
}

/** Whether the failure is tsdb's own (logged). */
export function isServerFault(e: ApiError): boolean {
  return e.status >= 500 && e.errorType !== 'timeout' && e.errorType !== 'canceled' && e.errorType !== 'unavailable';
}

const sampleJson = (t: number, v: string) => `[${formatTime(t)},${JSON.stringify(v)}]`;
const metricJson = (labels: Labels) => JSON.stringify(labelsObject(labels));

/** `{"resultType":…,"result":…}` of a query's answer, as Prometheus writes it. */
export function resultJson(r: QueryResult): string {
  switch (r.type) {
    case 'scalar':
      return `{"resultType":"scalar","result":${sampleJson(r.t, formatValue(r.v))}}`;
    case 'string':
      return `{"resultType":"string","result":${sampleJson(r.t, r.v)}}`;
    case 'vector':
      return `{"resultType":"vector","result":[${r.vector.map((s) => `{"metric":${metricJson(s.labels)},"value":${sampleJson(s.t, formatValue(s.v))}}`).join(',')}]}`;
    case 'matrix': {
      const parts: string[] = [];
      for (const s of r.matrix) {
        const points = new Array<string>(s.t.length);
        for (let i = 0; i < s.t.length; i++) points[i] = `[${formatTime(s.t[i]!)},"${formatValue(s.v[i]!)}"]`;
        parts.push(`{"metric":${metricJson(s.labels)},"values":[${points.join(',')}]}`);
      }
      return `{"resultType":"matrix","result":[${parts.join(',')}]}`;
    }
  }
}

/** The success envelope around a data JSON text. */
export function successJson(data: string, warnings: readonly string[] = []): string {
  return `{"status":"success","data":${data}${warnings.length > 0 ? `,"warnings":${JSON.stringify(warnings)}` : ''}}`;
}

/** The error envelope. */
export function errorJson(e: ApiError): string {
  return JSON.stringify({ status: 'error', errorType: e.errorType, error: e.message });
}
