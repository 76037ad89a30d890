/**
 * Prometheus HTTP API answers, normalized and compared: what the PromQL oracle test (and the PromQL
 * benchmark's cross-check) needs to say whether two servers gave the same answer. Label sets are
 * compared as sets; order only where the query defines it (sort, sort_desc, topk, bottomk at the
 * top of an instant query; compared by value, as equal values may come in either order); values with
 * Prometheus' tolerance (relative 1e-6, NaN equals NaN, ±Inf exactly); an error only matches an
 * error of the same type.
 */

export type PromAnswer =
  | { readonly status: 'success'; readonly resultType: string; readonly series: readonly AnswerSeries[] }
  | { readonly status: 'error'; readonly errorType: string; readonly error: string; readonly httpStatus: number };

/** One series (or the single scalar/string) of an answer: its label key and its points. */
export interface AnswerSeries {
  readonly key: string;
  readonly t: readonly number[];
  /** Numbers (NaN, ±Inf included); a string result's text stays a string. */
  readonly v: ReadonlyArray<number | string>;
}

export interface PromParams {
  readonly [name: string]: string;
}

/** A sample value from the API's text (`"NaN"`, `"+Inf"`, `"-Inf"`, `"1.5"`). */
export function apiValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** The key of a label set: its pairs sorted by name, as JSON. */
export function labelKey(metric: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

type Point = [number, string];

/** Turns a parsed API body (and its HTTP status) into a PromAnswer; throws on a body of neither shape. */
export function normalizeAnswer(body: unknown, httpStatus: number): PromAnswer {
  const b = body as { status?: string; errorType?: string; error?: string; data?: { resultType: string; result: unknown } };
  if (b.status === 'error') return { status: 'error', errorType: String(b.errorType), error: String(b.error), httpStatus };
  if (b.status !== 'success' || b.data === undefined) throw new Error(`not a Prometheus API answer (HTTP ${httpStatus}): ${JSON.stringify(body).slice(0, 500)}`);
  const { resultType, result } = b.data;
  const ms = (t: number) => Math.round(t * 1000);
  switch (resultType) {
    case 'scalar':
    case 'string': {
      const [t, v] = result as Point;
      return { status: 'success', resultType, series: [{ key: '', t: [ms(t)], v: [resultType === 'scalar' ? apiValue(v) : v] }] };
    }
    case 'vector': {
      const rows = result as Array<{ metric: Record<string, string>; value: Point }>;
      return { status: 'success', resultType, series: rows.map((r) => ({ key: labelKey(r.metric), t: [ms(r.value[0])], v: [apiValue(r.value[1])] })) };
    }
    case 'matrix': {
      const rows = result as Array<{ metric: Record<string, string>; values?: Point[] }>;
      return { status: 'success', resultType, series: rows.map((r) => ({ key: labelKey(r.metric), t: (r.values ?? []).map((p) => ms(p[0])), v: (r.values ?? []).map((p) => apiValue(p[1])) })) };
    }
    default:
      throw new Error(`unknown resultType ${resultType}`);
  }
}

/** GET `<apiBase>/<path>?<params>` (apiBase ends in `/api/v1`) and the normalized answer. */
export async function promApi(apiBase: string, path: 'query' | 'query_range', params: PromParams, timeoutMs = 60_000): Promise<PromAnswer> {
  const url = `${apiBase}/${path}?${new URLSearchParams(params).toString()}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`GET ${url}: HTTP ${res.status}, not JSON: ${text.slice(0, 500)}`);
  }
  return normalizeAnswer(body, res.status);
}

/** Equal within Prometheus' tolerance: NaN = NaN, infinities exactly, else relative 1e-6 (absolute 1e-12 near zero). */
export function closeEnough(a: number | string, b: number | string): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= 1e-6 * Math.max(Math.abs(a), Math.abs(b)) || diff <= 1e-12;
}

const MAX_LISTED = 6;

/** Counts over compared answers: values compared, and those equal only within the tolerance. */
export interface CompareStats {
  values: number;
  inexact: number;
}

function show(s: AnswerSeries): string {
  const pts = s.t.map((t, i) => `${t}:${String(s.v[i])}`);
  return `${s.key} ${pts.length > MAX_LISTED ? `${pts.slice(0, MAX_LISTED).join(' ')} … (${pts.length} points)` : pts.join(' ')}`;
}

/**
 * Why `got` differs from `expected` (undefined when they agree). `ordered`: the series order is
 * part of the answer (compared by value).
 */
export function compareAnswers(expected: PromAnswer, got: PromAnswer, ordered = false, stats?: CompareStats): string | undefined {
  if (expected.status === 'error' || got.status === 'error') {
    if (expected.status === 'error' && got.status === 'error') {
      return expected.errorType === got.errorType ? undefined : `error types differ: expected ${expected.errorType} (${expected.error}), got ${got.errorType} (${got.error})`;
    }
    if (expected.status === 'error') return `expected error ${expected.errorType}: ${expected.error}; got a ${got.status === 'success' ? got.resultType : ''} result of ${got.status === 'success' ? got.series.length : 0} series: ${got.status === 'success' ? got.series.slice(0, 3).map(show).join('; ') : ''}`;
    return `expected a ${expected.resultType} of ${expected.series.length} series (${expected.series.slice(0, 3).map(show).join('; ')}); got error ${got.status === 'error' ? `${got.errorType}: ${got.error}` : ''}`;
  }
  if (expected.resultType !== got.resultType) return `result type: expected ${expected.resultType}, got ${got.resultType}`;
  const problems: string[] = [];
  const gotByKey = new Map(got.series.map((s) => [s.key, s]));
  const expByKey = new Map(expected.series.map((s) => [s.key, s]));
  if (gotByKey.size !== got.series.length) problems.push(`got a label set twice`);
  for (const e of expected.series) {
    const g = gotByKey.get(e.key);
    if (g === undefined) {
      problems.push(`missing series ${show(e)}`);
      continue;
    }
    const gotAt = new Map(g.t.map((t, i) => [t, g.v[i]!]));
    const expTimes = new Set(e.t);
    const bad: string[] = [];
    e.t.forEach((t, i) => {
      if (!gotAt.has(t)) bad.push(`${t}: expected ${String(e.v[i])}, got no point`);
      else if (!closeEnough(e.v[i]!, gotAt.get(t)!)) bad.push(`${t}: expected ${String(e.v[i])}, got ${String(gotAt.get(t))}`);
      else if (stats !== undefined) {
        stats.values++;
        const a = e.v[i]!;
        const b = gotAt.get(t)!;
        if (a !== b && !(typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b))) stats.inexact++;
      }
    });
    for (let i = 0; i < g.t.length; i++) if (!expTimes.has(g.t[i]!)) bad.push(`${g.t[i]}: expected no point, got ${String(g.v[i])}`);
    if (bad.length > 0) problems.push(`series ${e.key}: ${bad.slice(0, MAX_LISTED).join('; ')}${bad.length > MAX_LISTED ? ` … (${bad.length} points differ of ${e.t.length})` : ''}`);
  }
  for (const g of got.series) if (!expByKey.has(g.key)) problems.push(`unexpected series ${show(g)}`);
  if (problems.length === 0 && ordered) {
    const ev = expected.series.map((s) => s.v[0]!);
    const gv = got.series.map((s) => s.v[0]!);
    if (ev.some((v, i) => !closeEnough(v, gv[i]!))) problems.push(`order: expected values ${ev.join(', ')}; got ${gv.join(', ')}`);
  }
  return problems.length === 0 ? undefined : problems.slice(0, MAX_LISTED).join('\n    ') + (problems.length > MAX_LISTED ? `\n    … ${problems.length} problems` : '');
}
