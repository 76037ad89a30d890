/**
 * The functions that reshape or summarise a whole instant vector or produce scalars: sort,
 * sort_desc, sort_by_label(_desc), scalar, vector, pi, time, timestamp, absent. Sorting
 * reproduces Go's sort sequence so ties and NaNs land where Prometheus puts them.
 */
import type { Expr } from '../ast.js';
import { METRIC_NAME } from '../ast.js';
import { compareLabels, getLabel, labelsFrom } from '../labels.js';
import type { Labels } from '../labels.js';
import type { Sample, Vector } from '../values.js';
import { dropName } from './drop-name.js';
import { goSortArray } from './go-sort.js';
import type { InstantFunction } from './types.js';

/** sort: ascending, NaN last (Prometheus reverses a descending order that puts NaN first). */
const sort: InstantFunction = {
  kind: 'instant',
  apply: (args) => goSortArray((args[0] as Vector).slice(), (a, b) => Number.isNaN(b.v) || b.v > a.v),
};

/** sort_desc: descending, NaN last. */
const sortDesc: InstantFunction = {
  kind: 'instant',
  apply: (args) => goSortArray((args[0] as Vector).slice(), (a, b) => Number.isNaN(b.v) || b.v < a.v),
};

/**
 * github.com/facette/natsort's Compare, which Prometheus's sort_by_label uses: chunks of digits
 * compare as integers (when they fit an int64), other chunks as strings.
 */
export function natsortLess(a: string, b: string): boolean {
  const ca = a.match(/\d+|\D+/g) ?? [];
  const cb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < ca.length; i++) {
    if (i >= cb.length) return false;
    const x = ca[i]!;
    const y = cb[i]!;
    const xi = goAtoi(x);
    const yi = goAtoi(y);
    if (xi !== undefined && yi !== undefined) {
      if (xi === yi) {
        if (i === ca.length - 1) return true;
        if (i === cb.length - 1) return false;
        continue;
      }
      return xi < yi;
    }
    if (x === y) {
      if (i === ca.length - 1) return true;
      if (i === cb.length - 1) return false;
      continue;
    }
    return x < y;
  }
  return false;
}

/** strconv.Atoi of a chunk of ASCII digits: undefined when it overflows int64. */
function goAtoi(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v > 9223372036854775807n ? undefined : v;
}

function sortByLabel(desc: boolean): InstantFunction {
  return {
    kind: 'instant',
    apply: (args) => {
      const names = args.slice(1) as string[];
      const cmp = (a: Sample, b: Sample): number => {
        for (const n of names) {
          const x = getLabel(a.labels, n);
          const y = getLabel(b.labels, n);
          if (x === y) continue;
          return natsortLess(x, y) === !desc ? -1 : 1;
        }
        const c = compareLabels(a.labels, b.labels);
        return desc ? -c : c;
      };
      return goSortArray((args[0] as Vector).slice(), (a, b) => cmp(a, b) < 0);
    },
  };
}

const scalar: InstantFunction = {
  kind: 'instant',
  apply: (args, ctx) => {
    const v = args[0] as Vector;
    return [{ labels: [], t: ctx.evalTimeMs, v: v.length === 1 ? v[0]!.v : Number.NaN }];
  },
};

const vector: InstantFunction = { kind: 'instant', apply: (args, ctx) => [{ labels: [], t: ctx.evalTimeMs, v: args[0] as number }] };
const pi: InstantFunction = { kind: 'instant', apply: (_args, ctx) => [{ labels: [], t: ctx.evalTimeMs, v: Math.PI }] };
const time: InstantFunction = { kind: 'instant', apply: (_args, ctx) => [{ labels: [], t: ctx.evalTimeMs, v: ctx.evalTimeMs / 1000 }] };

/** timestamp: each sample's own time in seconds (the evaluator hands selector samples with their times). */
const timestamp: InstantFunction = {
  kind: 'instant',
  apply: (args) => (args[0] as Vector).map((s) => ({ labels: dropName(s.labels), t: s.t, v: s.t / 1000 })),
};

/**
 * The labels absent() and absent_over_time() give their 1: those an `=` matcher of a plain
 * selector fixes, except `__name__`; a label matched more than once (or by another matcher
 * type) is left out (Prometheus's createLabelsForAbsentFunction).
 */
export function absentLabels(arg: Expr | undefined): Labels {
  let e = arg;
  while (e !== undefined && e.kind === 'paren') e = e.expr;
  const sel = e === undefined ? undefined : e.kind === 'vector' ? e : e.kind === 'matrix' ? e.selector : undefined;
  if (sel === undefined) return [];
  const out = new Map<string, string>();
  const has = new Set<string>();
  for (const m of sel.matchers) {
    if (m.name === METRIC_NAME) continue;
    if (m.type === '=' && !has.has(m.name)) {
      out.set(m.name, m.value);
      has.add(m.name);
    } else out.delete(m.name);
  }
  return labelsFrom(out);
}

const absentLabelsCache = new WeakMap<Expr, Labels>();

const absent: InstantFunction = {
  kind: 'instant',
  apply: (args, ctx) => {
    if ((args[0] as Vector).length > 0) return [];
    const arg = ctx.args[0];
    let labels: Labels = [];
    if (arg !== undefined) {
      const hit = absentLabelsCache.get(arg);
      if (hit !== undefined) labels = hit;
      else {
        labels = absentLabels(arg);
        absentLabelsCache.set(arg, labels);
      }
    }
    return [{ labels, t: ctx.evalTimeMs, v: 1 }];
  },
};

export const VECTOR_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['sort', sort],
  ['sort_desc', sortDesc],
  ['sort_by_label', sortByLabel(false)],
  ['sort_by_label_desc', sortByLabel(true)],
  ['scalar', scalar],
  ['vector', vector],
  ['pi', pi],
  ['time', time],
  ['timestamp', timestamp],
  ['absent', absent],
]);
