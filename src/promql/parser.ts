/**
 * PromQL text to tsdb's AST (`ast.ts`), parsed with Prometheus's own grammar
 * (`@prometheus-io/lezer-promql`) and checked as Prometheus's parser checks it (types of function
 * arguments and operands, matchers, durations), with Prometheus's error messages.
 */
import type { Expr, ValueType } from './ast.js';
import { PromqlError } from './errors.js';

/** Parses a query; a bad one throws PromqlError('bad_data', <Prometheus's message>). */
export function parsePromql(text: string): Expr {
  throw new PromqlError('internal', `PromQL parser not built yet: ${text.length}`);
}

/** The value type of an expression (Prometheus's `Expr.Type()`). */
export function typeOf(expr: Expr): ValueType {
  throw new PromqlError('internal', `PromQL parser not built yet: ${expr.kind}`);
}
