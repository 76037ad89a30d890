/**
 * A synthetic memtable shaped like `src/engine/memtable` holds it: rows grouped by series, each
 * series a set of columnar typed arrays in arrival order (time index as int64 milliseconds,
 * sequence as float64, op type as uint8, float64 fields with an optional byte-per-row validity
 * where 0 marks NULL). Tags are the series key: a few strings per series.
 */

/** One float64 field column of one series; `valid` is absent when the column has no NULL. */
export interface FieldColumn {
  readonly data: Float64Array<ArrayBuffer>;
  readonly valid?: Uint8Array;
}

export interface MemtableSeries {
  /** Tag values, in `Memtable.tagNames` order. */
  readonly key: readonly string[];
  readonly ts: BigInt64Array<ArrayBuffer>;
  readonly seq: Float64Array<ArrayBuffer>;
  readonly op: Uint8Array<ArrayBuffer>;
  readonly fields: readonly FieldColumn[];
  readonly length: number;
  /** Times strictly increase in arrival order: nothing to sort or deduplicate. */
  readonly increasing: boolean;
}

export interface Memtable {
  readonly tagNames: readonly string[];
  readonly fieldNames: readonly string[];
  readonly series: readonly MemtableSeries[];
  readonly rowCount: number;
  /** Milliseconds of the first row of every series. */
  readonly startMs: number;
  readonly intervalMs: number;
}

export type DatasetShape = 'single' | 'tsbs';

export interface FixtureOptions {
  readonly shape: DatasetShape;
  readonly rows: number;
  readonly series: number;
  /** Share of rows that rewrite an earlier (series, ts) with a newer sequence, e.g. 0.1. */
  readonly duplicateFraction: number;
  readonly seed?: number;
}

/** 2024-01-01T00:00:00Z. */
export const START_MS = 1_704_067_200_000;
export const INTERVAL_MS = 10_000;
/** Op type of a put (GreptimeDB `OpType::Put`). */
export const OP_PUT = 1;

const TSBS_TAGS = [
  'hostname', 'region', 'datacenter', 'rack', 'os', 'arch', 'team', 'service', 'service_version',
  'service_environment',
] as const;
const TSBS_FIELDS = [
  'usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq',
  'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice',
] as const;
const REGIONS = ['us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-southeast-2', 'ap-northeast-1', 'sa-east-1'];

/** Deterministic xorshift32, so every child process builds the same rows. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

function tsbsKey(i: number, rnd: () => number): string[] {
  const region = REGIONS[i % REGIONS.length]!;
  return [
    `host_${i}`,
    region,
    `${region}${'abc'[Math.floor(rnd() * 3)]!}`,
    String(Math.floor(rnd() * 100)),
    ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'][Math.floor(rnd() * 3)]!,
    ['x64', 'x86'][Math.floor(rnd() * 2)]!,
    ['SF', 'NYC', 'LON', 'CHI'][Math.floor(rnd() * 4)]!,
    String(Math.floor(rnd() * 20)),
    String(Math.floor(rnd() * 2)),
    ['production', 'staging', 'test'][Math.floor(rnd() * 3)]!,
  ];
}

/**
 * Builds `rows` rows over `series` series of equal length. Arrival is time-major (every series gets
 * its row for one instant before the next instant), which fixes the sequence numbers; duplicates
 * arrive last, each rewriting a random earlier instant of its series with new field values.
 */
export function buildMemtable(options: FixtureOptions): Memtable {
  const rnd = random(options.seed ?? 42);
  const perSeries = Math.max(1, Math.floor(options.rows / options.series));
  const duplicates = Math.round(perSeries * options.duplicateFraction);
  const unique = perSeries - duplicates;
  const tagNames = options.shape === 'single' ? ['host'] : [...TSBS_TAGS];
  const fieldNames = options.shape === 'single' ? ['f1', 'f2', 'f3'] : [...TSBS_FIELDS];
  const series: MemtableSeries[] = [];
  for (let s = 0; s < options.series; s++) {
    const key = options.shape === 'single' ? [`host_${s}`] : tsbsKey(s, rnd);
    const ts = new BigInt64Array(perSeries);
    const seq = new Float64Array(perSeries);
    const op = new Uint8Array(perSeries).fill(OP_PUT);
    for (let i = 0; i < unique; i++) {
      ts[i] = BigInt(START_MS + i * INTERVAL_MS);
      seq[i] = i * options.series + s;
    }
    for (let d = 0; d < duplicates; d++) {
      const i = unique + d;
      ts[i] = BigInt(START_MS + Math.floor(rnd() * unique) * INTERVAL_MS);
      seq[i] = unique * options.series + d * options.series + s;
    }
    const fields: FieldColumn[] = fieldNames.map((_, f) => {
      const data = new Float64Array(perSeries);
      for (let i = 0; i < perSeries; i++) data[i] = Math.round(rnd() * 100_000) / 1000 + f;
      // The last field of every tenth series has about 1% NULLs, so validity paths are exercised.
      if (f === fieldNames.length - 1 && s % 10 === 0) {
        const valid = new Uint8Array(perSeries).fill(1);
        for (let i = 0; i < perSeries; i++) {
          if (rnd() < 0.01) {
            valid[i] = 0;
            data[i] = 0;
          }
        }
        return { data, valid };
      }
      return { data };
    });
    series.push({ key, ts, seq, op, fields, length: perSeries, increasing: duplicates === 0 });
  }
  return {
    tagNames,
    fieldNames,
    series,
    rowCount: perSeries * options.series,
    startMs: START_MS,
    intervalMs: INTERVAL_MS,
  };
}

/** Orders series keys the way DuckDB orders VARCHARs (byte-wise; UTF-16 order equals it for ASCII). */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The rows of a series sorted by (ts, seq desc), keeping only the newest row per ts (`last_row`).
 * Reads the int64 times as (high int32, low uint32) pairs, so no BigInt is created per row.
 * Returns undefined when the series is already strictly increasing (the identity).
 */
export function sortDedupSeries(series: MemtableSeries): Int32Array | undefined {
  if (series.increasing) return undefined;
  const n = series.length;
  const words = new Int32Array(series.ts.buffer, series.ts.byteOffset, n * 2);
  // Exact as a double while |ts| < 2^53 (milliseconds and microseconds); nanoseconds would need
  // the (high, low) pair compared as such.
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = words[2 * i + 1]! * 4294967296 + (words[2 * i]! >>> 0);
  const seq = series.seq;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => keys[a]! - keys[b]! || seq[b]! - seq[a]!);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const row = order[i]!;
    if (kept > 0 && keys[order[kept - 1]!] === keys[row]) continue;
    order[kept++] = row;
  }
  return order.subarray(0, kept);
}
