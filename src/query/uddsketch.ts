/**
 * UDDSketch (uniform collapsing DDSketch), the sketch of GreptimeDB's `uddsketch_state`,
 * `uddsketch_merge` and `uddsketch_calc`: a value v > 0 counts in bucket ⌈ln v / ln γ⌉ with
 * γ = (1 + α) / (1 − α) (negative values likewise by magnitude, zero apart); when there are more
 * buckets than the sketch's maximum, every bucket k becomes ⌈k / 2⌉ (γ squared, α grown to
 * 2α / (1 + α²)) until they fit. A quantile is the bucket holding the value of rank
 * ⌊count·q⌋ + 1, answered as γ^(k−1)·(1 + α): within relative error α of the true value.
 *
 * Collapsing is the same function of the final bucket set whatever order the values came in, so a
 * sketch built from DuckDB's per-bucket counts of the values (a `histogram` of their bucket codes,
 * `sketch-functions.ts`) equals the one built value by value, and two sketches merge exactly.
 *
 * The state is tsdb's own binary layout (not GreptimeDB's bytes: its encoding is its crate's),
 * little-endian:
 *   0  'TSUD', 4 version (1), 5 collapses, 8 max buckets u32, 12 initial α f64, 20 count u64,
 *   28 sum f64, 36 negative buckets u32, 40 zero count u64, 48 positive buckets u32,
 *   52 the buckets: key i64, count u64 — negative ones, then positive ones, each by ascending key.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

const MAGIC = 0x44555354; // 'TSUD' read little-endian
const HEADER = 52;

export interface UddSketch {
  readonly maxBuckets: number;
  readonly initialError: number;
  readonly collapses: number;
  readonly count: bigint;
  readonly sum: number;
  /** Counts by key, of magnitudes of negative values and of positive values. */
  readonly negative: Map<bigint, bigint>;
  readonly positive: Map<bigint, bigint>;
  readonly zero: bigint;
}

/** The bucket code of the SQL side (`sketch-functions.ts`): 2k for a positive value's key k, 2k + 1 for a negative one's; zero has ZERO_CODE. */
export const ZERO_CODE = -(2n ** 63n);

const ceilHalf = (k: bigint): bigint => (k > 0n ? (k + 1n) / 2n : k / 2n);

function collapse(buckets: Map<bigint, bigint>): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  for (const [k, c] of buckets) {
    const h = ceilHalf(k);
    out.set(h, (out.get(h) ?? 0n) + c);
  }
  return out;
}

function collapseTimes(buckets: Map<bigint, bigint>, times: number): Map<bigint, bigint> {
  let b = buckets;
  for (let i = 0; i < times; i++) b = collapse(b);
  return b;
}

const bucketCount = (s: { negative: Map<bigint, bigint>; positive: Map<bigint, bigint>; zero: bigint }) => s.negative.size + s.positive.size + (s.zero > 0n ? 1 : 0);

/** Checks the parameters of a sketch as GreptimeDB's planner does. */
export function checkParameters(maxBuckets: number, initialError: number): void {
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1 || maxBuckets > 0xffffffff) throw new TsdbError(StatusCode.EngineExecuteQuery, `Error during planning: Invalid UDDSketch bucket size: ${maxBuckets}`);
  if (!(initialError > 0 && initialError < 1)) throw new TsdbError(StatusCode.EngineExecuteQuery, `Error during planning: Invalid UDDSketch error rate: ${initialError}`);
}

/** Collapses `s` until its buckets fit its maximum. */
function fit(s: UddSketch): UddSketch {
  let { negative, positive, collapses } = s;
  while (bucketCount({ negative, positive, zero: s.zero }) > s.maxBuckets && collapses < 64) {
    negative = collapse(negative);
    positive = collapse(positive);
    collapses++;
  }
  return { ...s, negative, positive, collapses };
}

/** The sketch of values given as their bucket codes (uncollapsed keys) with each code's count, and the values' sum. */
export function sketchOfCodes(maxBuckets: number, initialError: number, codes: readonly bigint[], counts: readonly bigint[], sum: number): UddSketch {
  checkParameters(maxBuckets, initialError);
  const negative = new Map<bigint, bigint>();
  const positive = new Map<bigint, bigint>();
  let zero = 0n;
  let count = 0n;
  codes.forEach((code, i) => {
    const c = counts[i]!;
    count += c;
    if (code === ZERO_CODE) zero += c;
    else {
      const side = (code & 1n) === 1n ? negative : positive;
      const key = (code - (code & 1n)) / 2n;
      side.set(key, (side.get(key) ?? 0n) + c);
    }
  });
  return fit({ maxBuckets, initialError, collapses: 0, count, sum: count === 0n ? 0 : sum, negative, positive, zero });
}

/** The sketch of `states` merged, each made with `maxBuckets` and `initialError` (else GreptimeDB's error). */
export function mergeSketches(maxBuckets: number, initialError: number, states: readonly Uint8Array[]): UddSketch {
  checkParameters(maxBuckets, initialError);
  const sketches = states.map(decodeSketch);
  for (const s of sketches) {
    if (s.maxBuckets !== maxBuckets || s.initialError !== initialError) {
      throw new TsdbError(StatusCode.EngineExecuteQuery, `Error during planning: Merging UDDSketch with different parameters: arguments=(${maxBuckets}, ${initialError}) vs actual input=(${s.maxBuckets}, ${s.initialError})`);
    }
  }
  const collapses = sketches.reduce((m, s) => Math.max(m, s.collapses), 0);
  const negative = new Map<bigint, bigint>();
  const positive = new Map<bigint, bigint>();
  let zero = 0n;
  let count = 0n;
  let sum = 0;
  for (const s of sketches) {
    for (const [from, to] of [[s.negative, negative], [s.positive, positive]] as const) {
      for (const [k, c] of collapseTimes(from, collapses - s.collapses)) to.set(k, (to.get(k) ?? 0n) + c);
    }
    zero += s.zero;
    count += s.count;
    sum += s.sum;
  }
  return fit({ maxBuckets, initialError, collapses, count, sum, negative, positive, zero });
}

/** α and γ after `collapses` collapses of a sketch of initial error `initialError`. */
function mapping(initialError: number, collapses: number): { alpha: number; gamma: number } {
  let alpha = initialError;
  let gamma = (1 + initialError) / (1 - initialError);
  for (let i = 0; i < collapses; i++) {
    gamma *= gamma;
    alpha = (2 * alpha) / (1 + alpha ** 2);
  }
  return { alpha, gamma };
}

/** The estimate of quantile `q` (0 … 1); undefined for an empty sketch or a q outside 0 … 1 (GreptimeDB answers NULL). */
export function sketchQuantile(s: UddSketch, q: number): number | undefined {
  if (!Number.isFinite(q) || q < 0 || q > 1 || s.count === 0n) return undefined;
  const { alpha, gamma } = mapping(s.initialError, s.collapses);
  const count = s.count;
  const byRank = BigInt(Math.floor(Number(count) * q)) + 1n;
  const target = q === 1 ? count : byRank < count ? byRank : count;
  const magnitude = (k: bigint) => gamma ** (Number(k) - 1) * (1 + alpha);
  let seen = 0n;
  // Negative values from the largest magnitude, zero, then positive ones.
  for (const k of [...s.negative.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))) {
    seen += s.negative.get(k)!;
    if (seen >= target) return -magnitude(k);
  }
  seen += s.zero;
  if (s.zero > 0n && seen >= target) return 0;
  for (const k of [...s.positive.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    seen += s.positive.get(k)!;
    if (seen >= target) return magnitude(k);
  }
  return undefined;
}

export function encodeSketch(s: UddSketch): Uint8Array {
  const neg = [...s.negative.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const pos = [...s.positive.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const out = new Uint8Array(HEADER + 16 * (neg.length + pos.length));
  const v = new DataView(out.buffer);
  v.setUint32(0, MAGIC, true);
  v.setUint8(4, 1);
  v.setUint8(5, s.collapses);
  v.setUint32(8, s.maxBuckets, true);
  v.setFloat64(12, s.initialError, true);
  v.setBigUint64(20, s.count, true);
  v.setFloat64(28, s.sum, true);
  v.setUint32(36, neg.length, true);
  v.setBigUint64(40, s.zero, true);
  v.setUint32(48, pos.length, true);
  let at = HEADER;
  for (const [k, c] of [...neg, ...pos]) {
    v.setBigInt64(at, k, true);
    v.setBigUint64(at + 8, c, true);
    at += 16;
  }
  return out;
}

function invalidState(): TsdbError {
  return new TsdbError(StatusCode.EngineExecuteQuery, 'Error during planning: Failed to deserialize UDDSketch from binary');
}

export function decodeSketch(bytes: Uint8Array): UddSketch {
  if (bytes.length < HEADER) throw invalidState();
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== MAGIC || v.getUint8(4) !== 1) throw invalidState();
  const nNeg = v.getUint32(36, true);
  const nPos = v.getUint32(48, true);
  if (bytes.length !== HEADER + 16 * (nNeg + nPos)) throw invalidState();
  const negative = new Map<bigint, bigint>();
  const positive = new Map<bigint, bigint>();
  let at = HEADER;
  for (let i = 0; i < nNeg + nPos; i++) {
    (i < nNeg ? negative : positive).set(v.getBigInt64(at, true), v.getBigUint64(at + 8, true));
    at += 16;
  }
  return {
    maxBuckets: v.getUint32(8, true),
    initialError: v.getFloat64(12, true),
    collapses: v.getUint8(5),
    count: v.getBigUint64(20, true),
    sum: v.getFloat64(28, true),
    negative,
    positive,
    zero: v.getBigUint64(40, true),
  };
}
