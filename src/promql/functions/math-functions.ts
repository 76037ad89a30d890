/**
 * The element-wise functions on instant vectors (abs, ceil, exp, ln, the trig family, round,
 * clamp*, sgn…): one output sample per input sample, `__name__` dropped, values computed as Go's
 * `math` package defines them (NaN, ±Inf and out-of-domain inputs follow IEEE 754 as Go does).
 */
import type { Vector } from '../values.js';
import { dropName } from './drop-name.js';
import { goAcos, goAcosh, goAsin, goAsinh, goAtan, goAtanh, goCos, goCosh, goExp, goLog, goLog10, goLog2, goSin, goSinh, goTan, goTanh } from '../go-math.js';
import type { FnArg, InstantFunction } from './types.js';

function mapValues(vec: Vector, f: (v: number) => number): Vector {
  const out: Vector = new Array(vec.length);
  for (let i = 0; i < vec.length; i++) {
    const s = vec[i]!;
    out[i] = { labels: dropName(s.labels), t: s.t, v: f(s.v) };
  }
  return out;
}

function simple(f: (v: number) => number): InstantFunction {
  return { kind: 'instant', apply: (args) => mapValues(args[0] as Vector, f) };
}

function sgn(v: number): number {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v;
}

function scalarArg(a: FnArg | undefined, dflt: number): number {
  return a === undefined ? dflt : (a as number);
}

const round: InstantFunction = {
  kind: 'instant',
  apply: (args) => {
    // Prometheus multiplies by the inverse (fewer float surprises than dividing), ties round up.
    const toNearestInverse = 1.0 / scalarArg(args[1], 1);
    return mapValues(args[0] as Vector, (v) => Math.floor(v * toNearestInverse + 0.5) / toNearestInverse);
  },
};

const clamp: InstantFunction = {
  kind: 'instant',
  apply: (args) => {
    const min = args[1] as number;
    const max = args[2] as number;
    if (max < min) return [];
    return mapValues(args[0] as Vector, (v) => goMax(min, goMin(max, v)));
  },
};

const clampMax: InstantFunction = { kind: 'instant', apply: (args) => mapValues(args[0] as Vector, (v) => goMin(args[1] as number, v)) };
const clampMin: InstantFunction = { kind: 'instant', apply: (args) => mapValues(args[0] as Vector, (v) => goMax(args[1] as number, v)) };

/** Go's math.Max: +Inf wins over NaN, NaN over the rest, +0 over -0. */
function goMax(x: number, y: number): number {
  if (x === Infinity || y === Infinity) return Infinity;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  if (x === 0 && x === y) return Object.is(x, -0) ? y : x;
  return x > y ? x : y;
}

/** Go's math.Min: -Inf wins over NaN, NaN over the rest, -0 over +0. */
function goMin(x: number, y: number): number {
  if (x === -Infinity || y === -Infinity) return -Infinity;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  if (x === 0 && x === y) return Object.is(x, -0) ? x : y;
  return x < y ? x : y;
}

export const MATH_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['abs', simple(Math.abs)],
  ['ceil', simple(Math.ceil)],
  ['floor', simple(Math.floor)],
  ['exp', simple(goExp)],
  ['sqrt', simple(Math.sqrt)],
  ['ln', simple(goLog)],
  ['log2', simple(goLog2)],
  ['log10', simple(goLog10)],
  ['sin', simple(goSin)],
  ['cos', simple(goCos)],
  ['tan', simple(goTan)],
  ['asin', simple(goAsin)],
  ['acos', simple(goAcos)],
  ['atan', simple(goAtan)],
  ['sinh', simple(goSinh)],
  ['cosh', simple(goCosh)],
  ['tanh', simple(goTanh)],
  ['asinh', simple(goAsinh)],
  ['acosh', simple(goAcosh)],
  ['atanh', simple(goAtanh)],
  ['rad', simple((v) => (v * Math.PI) / 180)],
  ['deg', simple((v) => (v * 180) / Math.PI)],
  ['sgn', simple(sgn)],
  ['round', round],
  ['clamp', clamp],
  ['clamp_max', clampMax],
  ['clamp_min', clampMin],
]);
