/**
 * GreptimeDB's anomaly-score window functions, `anomaly_score_zscore(v)`, `anomaly_score_mad(v)`
 * and `anomaly_score_iqr(v, k)` `OVER (…)`, as expressions of DuckDB's own window aggregates
 * over the same window (partitions, order, frame), rewritten in the parse tree. For the current
 * row's value v and the frame's finite, non-NULL values W (GreptimeDB's
 * `src/common/function/src/scalars/anomaly/`):
 *
 * - zscore: |v − mean(W)| / stddev_pop(W), at least 2 values;
 * - mad: |v − median(W)| / (1.4826 · MAD(W)), at least 3 values;
 * - iqr: how far v lies beyond the fences Q1 − k·IQR, Q3 + k·IQR, in IQRs (0 inside them), at
 *   least 3 values, Q1 and Q3 interpolated (DuckDB's `quantile_cont`); NULL for k NULL or < 0;
 *
 * NULL when v is NULL or not finite, or too few values; a zero spread gives 0 for a v at the
 * centre and +∞ otherwise. DuckDB has no window functions of its macros' or of JavaScript's, and
 * its windowed aggregates (`avg`, `stddev_pop`, `median`, `mad`, `quantile_cont`) run vectorized
 * and incrementally over the frames.
 */
import { isNode, replaceByTemplate, type Json, type Node } from './sql-tree.js';

/** The finite values of the frame (`__v` is the function's argument). */
const W = '(CASE WHEN isfinite(CAST(__v AS DOUBLE)) THEN CAST(__v AS DOUBLE) END)';
const V = 'CAST(__v AS DOUBLE)';
const NOT_SCORED = `__v IS NULL OR NOT isfinite(${V})`;

/** distance / scale, 0 or +∞ for a zero scale. */
const ratio = (d: string, s: string) => `CASE WHEN ${s} = 0 THEN CASE WHEN ${d} = 0 THEN 0.0 ELSE 'inf'::DOUBLE END ELSE ${d} / ${s} END`;

/** Each function's expression; window calls written `OVER ()` take the original's window. */
export const ANOMALY_TEMPLATES: Readonly<Record<string, { readonly args: number; readonly sql: string }>> = {
  anomaly_score_zscore: {
    args: 1,
    sql: `CASE WHEN ${NOT_SCORED} THEN NULL WHEN count(${W}) OVER () < 2 THEN NULL ELSE ${ratio(`abs(${V} - avg(${W}) OVER ())`, `stddev_pop(${W}) OVER ()`)} END`,
  },
  anomaly_score_mad: {
    args: 1,
    sql: `CASE WHEN ${NOT_SCORED} THEN NULL WHEN count(${W}) OVER () < 3 THEN NULL ELSE ${ratio(`abs(${V} - median(${W}) OVER ())`, `(mad(${W}) OVER () * 1.4826)`)} END`,
  },
  anomaly_score_iqr: {
    args: 2,
    sql: (() => {
      const q1 = `quantile_cont(${W}, 0.25) OVER ()`;
      const q3 = `quantile_cont(${W}, 0.75) OVER ()`;
      const k = 'CAST(__k AS DOUBLE)';
      const iqr = `(${q3} - ${q1})`;
      return `CASE WHEN ${NOT_SCORED} OR __k IS NULL OR NOT isfinite(${k}) OR ${k} < 0 THEN NULL WHEN count(${W}) OVER () < 3 THEN NULL ` +
        // Beyond a fence with a zero IQR: +∞ (DuckDB's x / 0 would be NULL).
        `WHEN ${V} < ${q1} - ${k} * ${iqr} THEN CASE WHEN ${iqr} = 0 THEN 'inf'::DOUBLE ELSE (${q1} - ${k} * ${iqr} - ${V}) / ${iqr} END ` +
        `WHEN ${V} > ${q3} + ${k} * ${iqr} THEN CASE WHEN ${iqr} = 0 THEN 'inf'::DOUBLE ELSE (${V} - (${q3} + ${k} * ${iqr})) / ${iqr} END ELSE 0.0 END`;
    })(),
  },
};

/** The window of a WINDOW node: what the template's window calls take from the original. */
const WINDOW_KEYS = ['partitions', 'orders', 'start', 'end', 'start_expr', 'end_expr', 'exclude_clause'] as const;

/** The placeholders of a template, one an argument in order. */
const PLACEHOLDERS = ['__v', '__k'] as const;

/** Whether the query text may call an anomaly function (the rewrite is skipped otherwise). */
export function mayCallAnomaly(sql: string): boolean {
  return /anomaly_score_/i.test(sql);
}

/**
 * Rewrites the anomaly window calls of a serialized parse tree in place; `template` gives the
 * parsed expression of a function's template (`ANOMALY_TEMPLATES`). Returns whether any was.
 */
export async function rewriteAnomalyScores(tree: unknown, template: (sql: string) => Promise<unknown>): Promise<boolean> {
  const calls: Node[] = [];
  const find = (n: Json): void => {
    if (Array.isArray(n)) return n.forEach(find);
    if (!isNode(n)) return;
    if (n['class'] === 'WINDOW' && typeof n['function_name'] === 'string' && ANOMALY_TEMPLATES[n['function_name'].toLowerCase()] !== undefined) calls.push(n);
    Object.values(n).forEach(find);
  };
  find(tree as Json);
  for (const call of calls) {
    const spec = ANOMALY_TEMPLATES[(call['function_name'] as string).toLowerCase()]!;
    const args = call['children'] as Json[];
    // A call GreptimeDB would refuse keeps its name: DuckDB reports the unknown window function.
    if (args.length !== spec.args || call['distinct'] === true || call['filter_expr'] !== null) continue;
    const placeholders = Object.fromEntries(args.map((arg, i) => [PLACEHOLDERS[i]!, arg]));
    replaceByTemplate(call, (await template(spec.sql)) as Json, placeholders, (n) => (n['class'] === 'WINDOW' ? WINDOW_KEYS : []));
  }
  return calls.length > 0;
}
