/**
 * tsdb's PromQL syntax tree: what the parser (`parser.ts`, Prometheus 2.42's grammar)
 * produces and the evaluator (`engine.ts`) and printer (`printer.ts`) consume. Shaped like
 * Prometheus's `promql/parser/ast.go`; times are milliseconds.
 */

/** The four PromQL value types (Prometheus's `parser.ValueType`). */
export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export type MatchType = '=' | '!=' | '=~' | '!~';

/** One label matcher; the metric name is a matcher on `__name__`. */
export interface LabelMatcher {
  readonly name: string;
  readonly type: MatchType;
  readonly value: string;
}

/** `@ <time>`, `@ start()`, `@ end()`. */
export type AtModifier = { readonly kind: 'time'; readonly ms: number } | { readonly kind: 'start' } | { readonly kind: 'end' };

/** Offsets in the text of an expression (for error messages that point at it). */
export interface PosRange {
  readonly start: number;
  readonly end: number;
}

export interface NumberLiteral {
  readonly kind: 'number';
  readonly value: number;
  readonly pos?: PosRange;
}

export interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
  readonly pos?: PosRange;
}

/** `name{matchers} offset d @ t`: `matchers` includes the `__name__` matcher of `name`. */
export interface VectorSelector {
  readonly kind: 'vector';
  /** The metric name as written before the braces, if any. */
  readonly name?: string;
  readonly matchers: readonly LabelMatcher[];
  /** `offset` in ms (negative offsets allowed); 0 when absent. */
  readonly offsetMs: number;
  readonly at?: AtModifier;
  readonly pos?: PosRange;
}

/** `selector[range]`; the offset and `@` live on the selector. */
export interface MatrixSelector {
  readonly kind: 'matrix';
  readonly selector: VectorSelector;
  readonly rangeMs: number;
  readonly pos?: PosRange;
}

/** `expr[range:step] offset d @ t`; `stepMs` 0 means the query's step (or the default evaluation interval). */
export interface SubqueryExpr {
  readonly kind: 'subquery';
  readonly expr: Expr;
  readonly rangeMs: number;
  readonly stepMs: number;
  readonly offsetMs: number;
  readonly at?: AtModifier;
  readonly pos?: PosRange;
}

export interface Call {
  readonly kind: 'call';
  /** The function's name as Prometheus spells it (`rate`, `label_replace`…). */
  readonly func: string;
  readonly args: readonly Expr[];
  readonly pos?: PosRange;
}

export type AggregateOp = 'sum' | 'avg' | 'count' | 'min' | 'max' | 'group' | 'stddev' | 'stdvar' | 'topk' | 'bottomk' | 'quantile' | 'count_values';

export interface AggregateExpr {
  readonly kind: 'aggregate';
  readonly op: AggregateOp;
  readonly expr: Expr;
  /** The parameter of topk/bottomk/quantile/count_values. */
  readonly param?: Expr;
  /** `by (…)` or `without (…)` labels; empty with `without: false` means one group. */
  readonly grouping: readonly string[];
  readonly without: boolean;
  readonly pos?: PosRange;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';
export type ComparisonOp = '==' | '!=' | '>' | '<' | '>=' | '<=';
export type SetOp = 'and' | 'or' | 'unless';
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp;

export type Cardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/** How the two sides of a vector–vector operation are matched (Prometheus's `VectorMatching`). */
export interface VectorMatching {
  readonly card: Cardinality;
  /** `on(…)` when true, `ignoring(…)` when false. */
  readonly on: boolean;
  readonly labels: readonly string[];
  /** The labels of `group_left(…)`/`group_right(…)` copied from the "one" side. */
  readonly include: readonly string[];
}

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
  /** The `bool` modifier of a comparison. */
  readonly returnBool: boolean;
  /** Present when both sides are vectors (set operators: many-to-many). */
  readonly matching?: VectorMatching;
  readonly pos?: PosRange;
}

export interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: '-' | '+';
  readonly expr: Expr;
  readonly pos?: PosRange;
}

export interface ParenExpr {
  readonly kind: 'paren';
  readonly expr: Expr;
  readonly pos?: PosRange;
}

export type Expr = NumberLiteral | StringLiteral | VectorSelector | MatrixSelector | SubqueryExpr | Call | AggregateExpr | BinaryExpr | UnaryExpr | ParenExpr;

/** The metric name label. */
export const METRIC_NAME = '__name__';
