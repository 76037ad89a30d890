/**
 * What PromQL evaluates to (Prometheus's `promql.Value`): instant vectors, range vectors
 * (matrices), scalars and strings; times are milliseconds since the epoch.
 */
import type { Labels } from './labels.js';

/** One sample of an instant vector. */
export interface Sample {
  readonly labels: Labels;
  readonly t: number;
  readonly v: number;
}

export type Vector = Sample[];

/** One series of a range result: parallel arrays of times (ms, ascending) and values. */
export interface MatrixSeries {
  readonly labels: Labels;
  readonly t: number[];
  readonly v: number[];
}

export type Matrix = MatrixSeries[];

/** The answer of a query, as the Prometheus HTTP API types it (`resultType`). */
export type QueryResult =
  | { readonly type: 'vector'; readonly vector: Vector }
  | { readonly type: 'matrix'; readonly matrix: Matrix }
  | { readonly type: 'scalar'; readonly t: number; readonly v: number }
  | { readonly type: 'string'; readonly t: number; readonly v: string };

/** Prometheus's stale marker: a NaN with this bit pattern, written by Prometheus when a series ends. */
export const STALE_NAN_BITS = 0x7ff0000000000002n;

const scratch = new DataView(new ArrayBuffer(8));

/** Whether a value is Prometheus's stale marker (not any NaN). */
export function isStaleNaN(v: number): boolean {
  if (!Number.isNaN(v)) return false;
  scratch.setFloat64(0, v);
  return scratch.getBigUint64(0) === STALE_NAN_BITS;
}

/** The stale marker as a number. */
export function staleNaN(): number {
  scratch.setBigUint64(0, STALE_NAN_BITS);
  return scratch.getFloat64(0);
}

/** A sample value as the Prometheus HTTP API writes it (`"NaN"`, `"+Inf"`, `"-Inf"`, Go's %g-like shortest form). */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  // Prometheus answers "-0" for negative zero (e.g. ceil(vector(-0.5))).
  if (Object.is(v, -0)) return '-0';
  return formatGoFloat(v);
}

/** Go's strconv.FormatFloat(v, 'f', -1, 64) for |exponent| < 21, else its 'e' form ('1e+21'). */
function formatGoFloat(v: number): string {
  const s = String(v);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(s);
  if (m === null) return s;
  const exp = m[3]!.length < 2 ? `0${m[3]}` : m[3]!;
  return `${m[1]}e${m[2]}${exp}`;
}

/** A time in ms as the HTTP API writes it: seconds as a number with up to three decimals. */
export function formatTime(ms: number): number {
  return ms / 1000;
}
