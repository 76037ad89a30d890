/**
 * Every function against real Prometheus 2.42: the same queries over the same samples, answered by
 * `promtool test rules` (test/support/promtool-oracle.ts) and by these implementations through a
 * small evaluator for `f(selector[range], …)` and `f(selector, …)`; values must agree to the bit
 * (NaN with NaN, -0 with -0) and errors word for word.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { Expr } from '../ast.js';
import { dropMetricName, labelsFrom, labelsObject } from '../labels.js';
import type { Vector } from '../values.js';
import { PROMTOOL, promtoolEval } from '../../../test/support/promtool-oracle.js';
import type { OracleCase, OracleResult, OracleSeries } from '../../../test/support/promtool-oracle.js';
import { FUNCTIONS } from './index.js';
import type { FnArg, SeriesWindow } from './types.js';

const LOOKBACK_MS = 300_000;

/** 'SEL' stands for the selector of metric `x` (a range selector when the case has a range). */
type Arg = 'SEL' | number | string;

interface Case {
  readonly series: readonly OracleSeries[];
  readonly fn: string;
  readonly args: readonly Arg[];
  readonly rangeMs?: number;
  readonly atMs: number;
  readonly intervalMs?: number;
  /** The selector's text (default: the metric name `x`). */
  readonly selector?: string;
}

function numberLiteral(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function exprOf(c: Case): string {
  const sel = c.selector ?? 'x';
  const args = c.args.map((a) => (a === 'SEL' ? (c.rangeMs !== undefined ? `${sel}[${c.rangeMs}ms]` : sel) : typeof a === 'number' ? numberLiteral(a) : JSON.stringify(a)));
  return `${c.fn}(${args.join(', ')})`;
}

interface Got {
  readonly labels: string;
  readonly value: number;
}

type Outcome = { error: string } | { samples: Got[] };

function seriesSamples(s: OracleSeries, intervalMs: number): { t: number[]; v: number[]; stale: boolean[] } {
  const t: number[] = [];
  const v: number[] = [];
  const stale: boolean[] = [];
  s.values.forEach((x, i) => {
    if (x === null) return;
    t.push(i * intervalMs);
    v.push(x === 'stale' ? Number.NaN : x);
    stale.push(x === 'stale');
  });
  return { t, v, stale };
}

function labelsOf(s: OracleSeries) {
  return labelsFrom({ __name__: s.name, ...(s.labels ?? {}) });
}

/** Our answer: the selector evaluated as Prometheus 2.42 selects, then the function. */
function ours(c: Case): Outcome {
  const fn = FUNCTIONS.get(c.fn);
  assert.ok(fn !== undefined, `no implementation of ${c.fn}`);
  const interval = c.intervalMs ?? 60_000;
  const selected = c.series.filter((s) => s.name === (c.selector ?? 'x'));
  const out: Vector = [];
  try {
    if (fn.kind === 'range') {
      assert.ok(c.rangeMs !== undefined);
      const params = c.args.filter((a): a is number => typeof a === 'number');
      for (const s of selected) {
        const all = seriesSamples(s, interval);
        const t: number[] = [];
        const v: number[] = [];
        all.t.forEach((ts, i) => {
          if (!all.stale[i]) {
            t.push(ts);
            v.push(all.v[i]!);
          }
        });
        const start = c.atMs - c.rangeMs;
        let from = 0;
        while (from < t.length && t[from]! < start) from++;
        let to = from;
        while (to < t.length && t[to]! <= c.atMs) to++;
        if (to <= from) continue;
        const w: SeriesWindow = { labels: labelsOf(s), t, v, from, to, rangeStartMs: start, rangeEndMs: c.atMs };
        const r = fn.apply(w, params, c.atMs);
        if (r !== undefined) out.push({ labels: fn.dropsName ? dropMetricName(w.labels) : w.labels, t: c.atMs, v: r });
      }
    } else {
      const vec: Vector = [];
      for (const s of selected) {
        const all = seriesSamples(s, interval);
        let k = all.t.length - 1;
        while (k >= 0 && all.t[k]! > c.atMs) k--;
        if (k < 0 || all.t[k]! < c.atMs - LOOKBACK_MS || all.stale[k]) continue;
        vec.push({ labels: labelsOf(s), t: c.fn === 'timestamp' ? all.t[k]! : c.atMs, v: all.v[k]! });
      }
      const args: FnArg[] = c.args.map((a) => (a === 'SEL' ? vec : a));
      const exprs: Expr[] = c.args.map((a): Expr => {
        if (a === 'SEL') return { kind: 'vector', name: 'x', matchers: selectorMatchers(c.selector ?? 'x'), offsetMs: 0 };
        return typeof a === 'number' ? { kind: 'number', value: a } : { kind: 'string', value: a };
      });
      out.push(...fn.apply(args, { evalTimeMs: c.atMs, args: exprs }));
    }
  } catch (e) {
    return { error: (e as Error).message };
  }
  return { samples: out.map((s) => ({ labels: JSON.stringify(labelsObject(s.labels)), value: s.v })).sort(byLabels) };
}

/** `name{a="b",c!="d"}` → matchers (enough for the absent() cases). */
function selectorMatchers(sel: string) {
  const m = /^(\w+)(?:\{(.*)\})?$/.exec(sel)!;
  const out = [{ name: '__name__', type: '=' as const, value: m[1]! }];
  for (const part of (m[2] ?? '').split(',').filter((p) => p !== '')) {
    const mm = /^(\w+)(=~|!~|!=|=)"(.*)"$/.exec(part.trim())!;
    out.push({ name: mm[1]!, type: mm[2] as '=', value: mm[3]! });
  }
  return out;
}

function byLabels(a: Got, b: Got): number {
  return a.labels < b.labels ? -1 : a.labels > b.labels ? 1 : 0;
}

function theirs(r: OracleResult): Outcome {
  if ('error' in r) return r;
  return { samples: r.samples.map((s) => ({ labels: JSON.stringify(labelsObject(labelsFrom(s.labels))), value: s.value })).sort(byLabels) };
}

function show(o: Outcome): string {
  if ('error' in o) return `error: ${o.error}`;
  return o.samples.map((s) => `${s.labels} ${Object.is(s.value, -0) ? '-0' : String(s.value)}`).join('\n');
}

/** The distance in units of the last place between two doubles (0 for equal, NaN with NaN). */
function ulps(a: number, b: number): number {
  if (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b))) return 0;
  if (!Number.isFinite(a) || !Number.isFinite(b) || Math.sign(a) !== Math.sign(b)) return Infinity;
  const buf = new DataView(new ArrayBuffer(16));
  buf.setFloat64(0, Math.abs(a));
  buf.setFloat64(8, Math.abs(b));
  return Math.abs(Number(buf.getBigInt64(0) - buf.getBigInt64(8)));
}

/** Same labels, values within `maxUlps`. */
function close(want: Outcome, got: Outcome, maxUlps: number): boolean {
  if ('error' in want || 'error' in got) return false;
  if (want.samples.length !== got.samples.length) return false;
  return want.samples.every((w, i) => w.labels === got.samples[i]!.labels && ulps(w.value, got.samples[i]!.value) <= maxUlps);
}

/** Runs all cases through promtool and reports every disagreement (beyond `maxUlps` units in the last place). */
function compareAll(cases: readonly Case[], maxUlps = 0): void {
  const oracleCases: OracleCase[] = cases.map((c) => ({ series: c.series, expr: exprOf(c), atMs: c.atMs, ...(c.intervalMs !== undefined ? { intervalMs: c.intervalMs } : {}) }));
  const results = promtoolEval(oracleCases);
  const failures: string[] = [];
  cases.forEach((c, i) => {
    const wantO = theirs(results[i]!);
    const gotO = ours(c);
    const want = show(wantO);
    const got = show(gotO);
    if (want !== got && !(maxUlps > 0 && close(wantO, gotO, maxUlps))) failures.push(`${exprOf(c)} @${c.atMs}ms\n  prometheus: ${want.replace(/\n/g, '\n              ')}\n  ours:       ${got.replace(/\n/g, '\n              ')}`);
  });
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} disagree:\n${failures.join('\n')}`);
}

// promtool comes with Debian's prometheus package, which .ci/run installs: missing, these tests fail.
test('promtool (Debian prometheus 2.42) is installed', () => {
  assert.ok(existsSync(PROMTOOL), `${PROMTOOL} is missing: apt-get install prometheus`);
});
const series = (name: string, labels: Record<string, string>, values: (number | null | 'stale')[]): OracleSeries => ({ name, labels, values });

// ---------------------------------------------------------------------------------------------
// Range functions: many sample shapes × every function × several windows.

const RANGE_SETS: { intervalMs: number; series: OracleSeries[] }[] = [
  {
    intervalMs: 60_000,
    series: [
      series('x', { s: 'counter-reset' }, [0, 10, 20, 5, 15, 25, 30, 2, 4, 8]),
      series('x', { s: 'gaps' }, [null, 1, null, 4, 9, null, null, 16, 25, null]),
      series('x', { s: 'specials' }, [1, Number.NaN, 3, Infinity, -Infinity, 2, Number.NaN, Number.NaN, 7, 7]),
      series('x', { s: 'negative' }, [-5, -3, 2, 2, -1, -8, 4, 0, 0, 1]),
      series('x', { s: 'constant' }, [3, 3, 3, 3, 3, 3, 3, 3, 3, 3]),
      series('x', { s: 'huge' }, [1e308, 1e308, -1e308, 1e308, 5, 1e-300, 1e308, 1e308, 1e308, -1e308]),
      series('x', { s: 'stale' }, [1, 2, 'stale', 4, 5, 'stale', 'stale', 8, 9, 10]),
      series('x', { s: 'inf-const' }, [Infinity, Infinity, Infinity, Infinity, Infinity, Infinity, Infinity, Infinity, Infinity, Infinity]),
      series('x', { s: 'fractional' }, [0.1, 0.7, 1.3, 2.0000001, 2.9, 3.3, 4.123456789, 4.9, 6.02e23, 0.3]),
    ],
  },
  {
    intervalMs: 15_000,
    series: [
      series('x', { s: 'fast' }, [5, 6, 8, 11, 15, 20, 26, 33, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]),
      series('x', { s: 'jitter' }, [100, null, 101, 103, null, null, 110, 111, 112, null, 130, 131, 0, 0, 5, null, 6, 7, null, 9]),
    ],
  },
];

const RANGE_CALLS: { fn: string; args: Arg[] }[] = [
  { fn: 'rate', args: ['SEL'] },
  { fn: 'increase', args: ['SEL'] },
  { fn: 'delta', args: ['SEL'] },
  { fn: 'irate', args: ['SEL'] },
  { fn: 'idelta', args: ['SEL'] },
  { fn: 'deriv', args: ['SEL'] },
  { fn: 'predict_linear', args: ['SEL', 600] },
  { fn: 'predict_linear', args: ['SEL', -30.5] },
  { fn: 'holt_winters', args: ['SEL', 0.3, 0.7] },
  { fn: 'holt_winters', args: ['SEL', 0.9, 0.1] },
  { fn: 'changes', args: ['SEL'] },
  { fn: 'resets', args: ['SEL'] },
  { fn: 'avg_over_time', args: ['SEL'] },
  { fn: 'sum_over_time', args: ['SEL'] },
  { fn: 'count_over_time', args: ['SEL'] },
  { fn: 'min_over_time', args: ['SEL'] },
  { fn: 'max_over_time', args: ['SEL'] },
  { fn: 'stddev_over_time', args: ['SEL'] },
  { fn: 'stdvar_over_time', args: ['SEL'] },
  { fn: 'last_over_time', args: ['SEL'] },
  { fn: 'present_over_time', args: ['SEL'] },
  { fn: 'quantile_over_time', args: [0.5, 'SEL'] },
  { fn: 'quantile_over_time', args: [0, 'SEL'] },
  { fn: 'quantile_over_time', args: [0.9, 'SEL'] },
  { fn: 'quantile_over_time', args: [1, 'SEL'] },
  { fn: 'quantile_over_time', args: [-0.5, 'SEL'] },
  { fn: 'quantile_over_time', args: [1.5, 'SEL'] },
  { fn: 'quantile_over_time', args: [Number.NaN, 'SEL'] },
];

/** Windows: [range, eval time] pairs — aligned, unaligned, short, past the data, before it. */
const WINDOWS: [number, number][] = [
  [300_000, 300_000],
  [300_000, 540_000],
  [180_000, 333_000],
  [60_000, 120_000],
  [90_000, 271_500],
  [600_000, 600_000],
  [120_000, 700_000],
  [1_000, 60_500],
  [240_000, 900_000],
];

test('range functions agree with Prometheus 2.42 over counters, resets, gaps, NaN/±Inf, stale markers and window edges', () => {
  const cases: Case[] = [];
  for (const set of RANGE_SETS) {
    for (const call of RANGE_CALLS) {
      for (const [rangeMs, atMs] of WINDOWS) {
        const scale = set.intervalMs / 60_000;
        cases.push({ series: set.series, fn: call.fn, args: call.args, rangeMs: Math.round(rangeMs * scale), atMs: Math.round(atMs * scale), intervalMs: set.intervalMs });
      }
    }
  }
  compareAll(cases);
});

test('holt_winters: smoothing and trend factors outside (0, 1) fail with Prometheus\'s message', () => {
  const s = [series('x', {}, [1, 2, 3, 5])];
  const cases: Case[] = [
    [0, 0.5],
    [1, 0.5],
    [2, 0.5],
    [-0.25, 0.5],
    [0.5, 0],
    [0.5, 1.0000001],
    [0.5, Infinity],
    [Number.NaN, 0.5],
    [0.5, Number.NaN],
    [0.0078125 * 1e-4, 0.5],
  ].map(([sf, tf]) => ({ series: s, fn: 'holt_winters', args: ['SEL', sf!, tf!], rangeMs: 300_000, atMs: 180_000 }));
  compareAll(cases);
});

// ---------------------------------------------------------------------------------------------
// Element-wise functions over a spread of values, one series each.

const VALUES = [0, -0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 0.7, 3.14159, 100, -100, 1e-10, 123456.789, 1e15 + 0.3, 1e300, -1e300, 5e-324, Number.NaN, Infinity, -Infinity, 0.9999999, 1.0000001, 2, 10, 1024, 1000];
const valueSeries = VALUES.map((v, i) => series('x', { i: String(i) }, [v]));

/** Functions whose last bit depends on the libm (V8's fdlibm ports vs Go's math package). */
const TRANSCENDENTAL = new Set(['exp', 'ln', 'log10', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh']);
const TRANSCENDENTAL_ULPS = 0;

const INSTANT_CALLS: { fn: string; args: Arg[] }[] = [
  ...['abs', 'ceil', 'floor', 'exp', 'sqrt', 'ln', 'log2', 'log10', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'rad', 'deg', 'sgn', 'timestamp'].map((fn) => ({ fn, args: ['SEL'] as Arg[] })),
  { fn: 'round', args: ['SEL'] },
  { fn: 'round', args: ['SEL', 0.1] },
  { fn: 'round', args: ['SEL', 3] },
  { fn: 'round', args: ['SEL', -1] },
  { fn: 'round', args: ['SEL', 0] },
  { fn: 'round', args: ['SEL', Number.NaN] },
  { fn: 'clamp', args: ['SEL', -1, 1] },
  { fn: 'clamp', args: ['SEL', 1, -1] },
  { fn: 'clamp', args: ['SEL', 0, 0] },
  { fn: 'clamp', args: ['SEL', Number.NaN, 1] },
  { fn: 'clamp', args: ['SEL', -Infinity, Infinity] },
  { fn: 'clamp_min', args: ['SEL', 0] },
  { fn: 'clamp_min', args: ['SEL', Number.NaN] },
  { fn: 'clamp_max', args: ['SEL', 0] },
  { fn: 'clamp_max', args: ['SEL', -Infinity] },
  { fn: 'sort', args: ['SEL'] },
  { fn: 'sort_desc', args: ['SEL'] },
  { fn: 'scalar', args: ['SEL'] },
];

test('element-wise math, round, clamp*, sgn, timestamp, sort, scalar agree with Prometheus 2.42', () => {
  const cases: Case[] = INSTANT_CALLS.map((c) => ({ series: valueSeries, fn: c.fn, args: c.args, atMs: 90_000 }));
  compareAll(cases.filter((c) => !TRANSCENDENTAL.has(c.fn)));
  compareAll(cases.filter((c) => TRANSCENDENTAL.has(c.fn)), TRANSCENDENTAL_ULPS);
});

test('trig and exp/log functions agree with Go on a dense sweep of inputs', () => {
  const sweep: number[] = [];
  for (let i = -40; i <= 40; i++) sweep.push(i / 7, i * 3.3, Math.exp(i / 5), -Math.exp(i / 3), i * 1e8 + 0.25, i * 7.77e15, 1 - i * 1e-9);
  sweep.push(0.7071067811865476, 1.4142135623730951, 5e-324, 2.2250738585072014e-308, 1e-310, 708.39, 709.7, -708.39, -709.5, -745.2, 2 ** 29, 2 ** 60, 1e300, 0.625, 0.66, 2.414213562373095, 21, 21.5, 44.01, 2 ** 28, 2 ** -28, 2 ** -29, 0.4142135623730950, -0.2928932188134524);
  const s = sweep.map((v, i) => series('x', { i: String(i) }, [v]));
  const fns = ['exp', 'ln', 'log2', 'log10', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'sqrt', 'rad', 'deg'];
  compareAll(fns.map((fn) => ({ series: s, fn, args: ['SEL'], atMs: 0 })), TRANSCENDENTAL_ULPS);
});

test('scalar, vector, pi, time and absent agree with Prometheus 2.42', () => {
  const one = [series('x', { a: '1' }, [7])];
  const two = [series('x', { a: '1' }, [7]), series('x', { a: '2' }, [8])];
  compareAll([
    { series: one, fn: 'scalar', args: ['SEL'], atMs: 0 },
    { series: two, fn: 'scalar', args: ['SEL'], atMs: 0 },
    { series: two, fn: 'scalar', args: ['SEL'], atMs: 400_000 },
    { series: one, fn: 'vector', args: [4.5], atMs: 0 },
    { series: one, fn: 'vector', args: [Number.NaN], atMs: 0 },
    { series: one, fn: 'pi', args: [], atMs: 0 },
    { series: one, fn: 'time', args: [], atMs: 123_456 },
    { series: one, fn: 'absent', args: ['SEL'], atMs: 0 },
    { series: one, fn: 'absent', args: ['SEL'], atMs: 400_000 },
    { series: one, fn: 'absent', args: ['SEL'], atMs: 0, selector: 'nope{a="1",b="2",c!="3"}' },
    { series: one, fn: 'absent', args: ['SEL'], atMs: 0, selector: 'nope{a="1",a="2",b=~"x",c="z"}' },
  ]);
});

// ---------------------------------------------------------------------------------------------
// Time functions: sample values as Unix seconds, and the step time when called without argument.

const TIMES = [0, -1, 86399, 86400, 951782400, 951868800, 1709164800, 1709251199.9, 4102444800, -62135596800, -62135596801, 253402300800, 1e12, -1e12, 1e18, 1e19, -1e19, 9.2e18, Number.NaN, Infinity, -Infinity, 1234567890.5, 68169600, 1582934400];
const timeSeries = TIMES.map((v, i) => series('x', { i: String(i) }, [v]));

test('date functions agree with Prometheus 2.42 (leap days, epoch edges, huge and non-finite values)', () => {
  const fns = ['day_of_month', 'day_of_week', 'day_of_year', 'days_in_month', 'hour', 'minute', 'month', 'year'];
  const cases: Case[] = fns.map((fn) => ({ series: timeSeries, fn, args: ['SEL'], atMs: 0 }));
  for (const fn of fns) for (const at of [0, 59_999, 3_661_000, 86_400_000 * 59 + 7_000]) cases.push({ series: timeSeries, fn, args: [], atMs: at });
  compareAll(cases);
});

// ---------------------------------------------------------------------------------------------
// Labels.

const labelSeries = [
  series('x', { a: 'foo-bar', b: '1' }, [1]),
  series('x', { a: 'baz', c: 'ü-ñ' }, [2]),
  series('x', { b: '22' }, [3]),
  series('x', { a: '', d: 'd' }, [4]),
];

test('label_replace and label_join agree with Prometheus 2.42 (templates, no match, empty result, errors)', () => {
  const lr = (dst: string, repl: string, src: string, re: string): { fn: string; args: Arg[] } => ({ fn: 'label_replace', args: ['SEL', dst, repl, src, re] });
  const lj = (...args: string[]): { fn: string; args: Arg[] } => ({ fn: 'label_join', args: ['SEL', ...args] });
  const calls = [
    lr('dst', '$1', 'a', '(.*)-(.*)'),
    lr('dst', '${2}x$1', 'a', '(.*)-(.*)'),
    lr('dst', '$1x', 'a', '(.*)-(.*)'),
    lr('dst', '$$1 $ $', 'a', '(.*)'),
    lr('dst', '$name!', 'a', '(?P<name>f.o)-.*'),
    lr('dst', '${name}', 'a', '(?P<name>.*)'),
    lr('dst', '$01$9$', 'a', '(.*)'),
    lr('a', '', 'a', 'foo.*'),
    lr('b', 'new', 'a', ''),
    lr('dst', 'x', 'c', 'ü.*'),
    lr('dst', '$1', 'a', 'ba'),
    lr('dst', '$1', 'a', '(?i)BAZ|(F)OO-BAR'),
    lr('__name__', 'renamed_$1', 'b', '(.*)'),
    lr('dst', '$1', 'a', '(.*'),
    lr('1dst', '$1', 'a', '(.*)'),
    lr('d-st', '$1', 'a', '(.*)'),
    lj('j', '-', 'a', 'b'),
    lj('j', '', 'a', 'b', 'c'),
    lj('j', ',', 'nope'),
    lj('a', ',', 'b', 'a'),
    lj('j', ','),
    lj('1j', ',', 'a'),
    lj('j', ',', 'a-b'),
  ];
  compareAll(calls.map((c) => ({ series: labelSeries, fn: c.fn, args: c.args, atMs: 0 })));
});

// ---------------------------------------------------------------------------------------------
// histogram_quantile over classic buckets.

function buckets(labels: Record<string, string>, les: Record<string, number>, name = 'x'): OracleSeries[] {
  return Object.entries(les).map(([le, v]) => series(name, { ...labels, le }, [v]));
}

const histogramSeries = [
  ...buckets({ h: 'normal' }, { '0.1': 1, '0.5': 4, '1': 9, '+Inf': 10 }),
  ...buckets({ h: 'non-monotonic' }, { '0.1': 5, '0.5': 3, '1': 9, '2': 8, '+Inf': 10 }),
  ...buckets({ h: 'no-inf' }, { '0.1': 1, '1': 2 }),
  ...buckets({ h: 'only-inf' }, { '+Inf': 3 }),
  ...buckets({ h: 'empty' }, { '0.1': 0, '1': 0, '+Inf': 0 }),
  ...buckets({ h: 'negative' }, { '-1': 2, '0': 4, '1': 5, '+Inf': 6 }),
  ...buckets({ h: 'dup-le' }, { '1': 2, '1.0': 3, '+Inf': 8, '5': 7 }),
  ...buckets({ h: 'odd-le' }, { '0x1p-1': 2, '1e0': 4, 'inf': 6, 'bogus': 100 }),
  ...buckets({ h: 'nan-count' }, { '0.5': Number.NaN, '1': 3, '+Inf': 4 }),
  ...buckets({ h: 'top-bucket' }, { '1': 1, '2': 2, '+Inf': 10 }),
  series('x', { h: 'no-le' }, [5]),
];

test('histogram_quantile agrees with Prometheus 2.42 (interpolation, monotonicity fix, +Inf, NaN, q outside [0,1])', () => {
  const qs = [0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 1, -0.1, 1.1, Number.NaN];
  compareAll(qs.map((q) => ({ series: histogramSeries, fn: 'histogram_quantile', args: [q, 'SEL'], atMs: 0 })));
});

test('native-histogram functions return nothing on float samples, as Prometheus 2.42', () => {
  compareAll([
    { series: histogramSeries, fn: 'histogram_count', args: ['SEL'], atMs: 0 },
    { series: histogramSeries, fn: 'histogram_sum', args: ['SEL'], atMs: 0 },
    { series: histogramSeries, fn: 'histogram_fraction', args: [0, 1, 'SEL'], atMs: 0 },
  ]);
});

test('every signature has an implementation', () => {
  // Imported lazily so a missing function names itself.
  return import('./signatures.js').then(({ FUNCTION_SIGNATURES }) => {
    for (const name of FUNCTION_SIGNATURES.keys()) assert.ok(FUNCTIONS.has(name), name);
    for (const name of FUNCTIONS.keys()) assert.ok(FUNCTION_SIGNATURES.has(name), name);
  });
});

