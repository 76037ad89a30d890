/**
 * Real Prometheus (Debian's promtool 2.42) as a test oracle for instant PromQL queries: each query
 * becomes a `promtool test rules` case that expects an impossible sample, and the "got:" line of the
 * failure report gives Prometheus's exact answer (values printed with Go's shortest 'E' format,
 * so they parse back to the same doubles) or its evaluation error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMTOOL = '/usr/bin/promtool';

/** One input series: values at 0, interval, 2·interval…; null = no sample, 'stale' = stale marker. */
export interface OracleSeries {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly values: readonly (number | null | 'stale')[];
}

export interface OracleCase {
  readonly series: readonly OracleSeries[];
  readonly expr: string;
  readonly atMs: number;
  /** Spacing of the input samples (default 60 s). */
  readonly intervalMs?: number;
}

export interface OracleSample {
  readonly labels: Record<string, string>;
  readonly value: number;
}

export type OracleResult = { readonly error: string } | { readonly samples: OracleSample[] };

function formatValue(v: number | null | 'stale'): string {
  if (v === null) return '_';
  if (v === 'stale') return 'stale';
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

function formatSeries(s: OracleSeries): string {
  const ls = Object.entries(s.labels ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return ls.length === 0 ? s.name : `${s.name}{${ls.join(',')}}`;
}

/**
 * Evaluates every case with promtool; results in case order. promtool appends input samples only up
 * to the last multiple of `evaluation_interval` at or before the latest eval time, so cases run in
 * one promtool call per eval time with that time as the interval.
 */
export function promtoolEval(cases: readonly OracleCase[]): OracleResult[] {
  const byTime = new Map<number, number[]>();
  cases.forEach((c, i) => {
    const list = byTime.get(c.atMs) ?? [];
    list.push(i);
    byTime.set(c.atMs, list);
  });
  const results: OracleResult[] = new Array(cases.length);
  for (const [atMs, idx] of byTime) {
    const part = runPromtool(
      idx.map((i) => cases[i]!),
      atMs > 0 ? atMs : 60_000,
    );
    idx.forEach((i, k) => (results[i] = part[k]!));
  }
  return results;
}

function runPromtool(cases: readonly OracleCase[], evalIntervalMs: number): OracleResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-oracle-'));
  try {
    const doc = {
      evaluation_interval: `${evalIntervalMs}ms`,
      tests: cases.map((c) => ({
        interval: `${c.intervalMs ?? 60_000}ms`,
        input_series: c.series.map((s) => ({ series: formatSeries(s), values: s.values.map(formatValue).join(' ') })),
        promql_expr_test: [{ expr: c.expr, eval_time: `${c.atMs}ms`, exp_samples: [{ labels: '__oracle_impossible__', value: -123456789 }] }],
      })),
    };
    const file = join(dir, 'oracle.yml');
    // JSON is YAML: promtool reads it as is.
    writeFileSync(file, JSON.stringify(doc));
    const r = spawnSync(PROMTOOL, ['test', 'rules', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const out = `${r.stdout}\n${r.stderr}`;
    const results = parseReport(out);
    if (results.length !== cases.length) throw new Error(`promtool oracle: ${results.length} results for ${cases.length} cases:\n${out}`);
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseReport(out: string): OracleResult[] {
  const lines = out.split('\n');
  const results: OracleResult[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s+expr: ".*", time: [^,]+,(?: err: (.*))?$/.exec(lines[i]!);
    if (m === null) continue;
    if (m[1] !== undefined) {
      results.push({ error: m[1] });
      continue;
    }
    const got = lines[i + 2]?.trim() ?? '';
    if (!got.startsWith('got: ')) throw new Error(`promtool oracle: unexpected report line ${JSON.stringify(got)}`);
    results.push({ samples: parseSamples(got.slice(5)) });
  }
  return results;
}

/** `{a="1"} 1E+00, {} +Inf` (or `nil`). */
export function parseSamples(s: string): OracleSample[] {
  const out: OracleSample[] = [];
  if (s === 'nil') return out;
  let i = 0;
  while (i < s.length) {
    if (s[i] !== '{') throw new Error(`promtool oracle: bad sample list at ${i}: ${s}`);
    i++;
    const labels: Record<string, string> = {};
    while (s[i] !== '}') {
      const eq = s.indexOf('=', i);
      const name = s.slice(i, eq);
      i = eq + 1;
      // A Go-quoted string: find the closing quote, skipping escapes.
      let j = i + 1;
      while (s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      labels[name] = JSON.parse(s.slice(i, j + 1)) as string;
      i = j + 1;
      if (s.startsWith(', ', i)) i += 2;
    }
    i += 2;
    let end = s.indexOf(', {', i);
    if (end < 0) end = s.length;
    out.push({ labels, value: parseGoFloat(s.slice(i, end)) });
    i = end + 2;
  }
  return out;
}

function parseGoFloat(s: string): number {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return Number.NaN;
  return Number(s);
}
