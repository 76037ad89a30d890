/**
 * The JSON of `/api/v1/parse_query`: Prometheus's `translateAST` (`web/api/v1/translate_ast.go`,
 * added in 3.0; 2.42 has no such endpoint), in its 3.0 shape, before the duration-expression,
 * `fill` and `anchored`/`smoothed` fields of later versions: `{type: "vectorSelector", name,
 * offset, matchers, timestamp, startOrEnd}`, `binaryExpr` with `matching`, `call` with the
 * function's signature, numbers as strings (`strconv.FormatFloat(v, 'f', -1, 64)`).
 */
import type { AtModifier, Expr, LabelMatcher } from './ast.js';
import { FUNCTION_SIGNATURES } from './functions/signatures.js';
import { formatGoFloatF } from './printer.js';

export type AstJson = { readonly [key: string]: unknown };

export function astJson(expr: Expr): AstJson {
  switch (expr.kind) {
    case 'aggregate':
      return {
        type: 'aggregation',
        op: expr.op,
        expr: astJson(expr.expr),
        param: expr.param === undefined ? null : astJson(expr.param),
        grouping: [...expr.grouping],
        without: expr.without,
      };
    case 'binary': {
      const m = expr.matching;
      return {
        type: 'binaryExpr',
        op: expr.op,
        lhs: astJson(expr.lhs),
        rhs: astJson(expr.rhs),
        matching: m === undefined ? null : { card: m.card, labels: [...m.labels], on: m.on, include: [...m.include] },
        bool: expr.returnBool,
      };
    }
    case 'call': {
      const sig = FUNCTION_SIGNATURES.get(expr.func);
      return {
        type: 'call',
        func: { name: expr.func, argTypes: sig ? [...sig.argTypes] : [], variadic: sig?.variadic ?? 0, returnType: sig?.returnType ?? 'vector' },
        args: expr.args.map(astJson),
      };
    }
    case 'matrix': {
      const vs = expr.selector;
      return {
        type: 'matrixSelector',
        name: vs.name ?? '',
        range: expr.rangeMs,
        offset: vs.offsetMs,
        matchers: matchersJson(vs.matchers),
        ...atJson(vs.at),
      };
    }
    case 'subquery':
      return {
        type: 'subquery',
        expr: astJson(expr.expr),
        range: expr.rangeMs,
        offset: expr.offsetMs,
        step: expr.stepMs,
        ...atJson(expr.at),
      };
    case 'number':
      return { type: 'numberLiteral', val: formatGoFloatF(expr.value) };
    case 'paren':
      return { type: 'parenExpr', expr: astJson(expr.expr) };
    case 'string':
      return { type: 'stringLiteral', val: expr.value };
    case 'unary':
      return { type: 'unaryExpr', op: expr.op, expr: astJson(expr.expr) };
    case 'vector':
      return {
        type: 'vectorSelector',
        name: expr.name ?? '',
        offset: expr.offsetMs,
        matchers: matchersJson(expr.matchers),
        ...atJson(expr.at),
      };
  }
}

function matchersJson(ms: readonly LabelMatcher[]): AstJson[] {
  return ms.map((m) => ({ name: m.name, value: m.value, type: m.type }));
}

function atJson(at: AtModifier | undefined): { timestamp: number | null; startOrEnd: string | null } {
  if (at === undefined) return { timestamp: null, startOrEnd: null };
  if (at.kind === 'time') return { timestamp: at.ms, startOrEnd: null };
  return { timestamp: null, startOrEnd: at.kind };
}
