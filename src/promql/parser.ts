/**
 * PromQL text to tsdb's AST (`ast.ts`), with Prometheus 2.42's grammar, checks and error messages.
 *
 * A hand-written recursive-descent parser over `lexer.ts` (Prometheus's own lexer, token for
 * token) that follows `promql/parser/generated_parser.y`: the same precedences (`^` right, unary
 * at `*`'s level, `offset`/`@`/`[…]` binding tightest), the same "unexpected …" messages with the
 * context of the innermost rule that catches the error, and then `checkAST`'s type checks in its
 * order, so the first error reported is Prometheus's first. (Prometheus's lezer grammar, the
 * other candidate, follows 3.x: it lacks `holt_winters`, accepts 3.x-only syntax and cannot name
 * an unknown function, and its error recovery cannot give Prometheus's messages.)
 *
 * Nesting is bounded (`MAX_DEPTH`): the parser, the checks, the printer and the evaluator recurse
 * over the tree, and a query must fail with a clear error rather than overflow the stack.
 */
import type {
  AggregateExpr,
  AggregateOp,
  AtModifier,
  BinaryExpr,
  BinaryOp,
  Call,
  Expr,
  LabelMatcher,
  MatchType,
  MatrixSelector,
  NumberLiteral,
  ParenExpr,
  PosRange,
  SubqueryExpr,
  UnaryExpr,
  ValueType,
  VectorMatching,
  VectorSelector,
} from './ast.js';
import { METRIC_NAME } from './ast.js';
import { PromqlError } from './errors.js';
import { FUNCTION_SIGNATURES } from './functions/signatures.js';
import { goQuote } from './go-format.js';
import { AGGREGATORS, Lexer, describeToken, isLabelName, parseError, unquoteString } from './lexer.js';
import type { Token, TokenType } from './lexer.js';
import { compileMatcherRegex, matcherMatches } from './regex.js';

/** The deepest expression tree accepted (Prometheus has no limit; real queries stay far below). */
export const MAX_DEPTH = 1000;

/** Parses a query; a bad one throws PromqlError('bad_data', <Prometheus's message>). */
export function parsePromql(text: string): Expr {
  try {
    const p = new Parser(text);
    const expr = p.parseQuery();
    new Checker(text).check(expr);
    return expr;
  } catch (e) {
    if (e instanceof PromqlError) throw e;
    if (e instanceof RangeError) throw new PromqlError('bad_data', `expression nests too deeply (more than ${MAX_DEPTH} levels)`);
    throw new PromqlError('bad_data', `parse error: ${(e as Error).message}`);
  }
}

/**
 * A bare series selector (`name{…}`, `{…}`), as Prometheus parses `match[]` (ParseMetricSelector):
 * anything else — a range, an offset, an operator — is a parse error at its first token.
 */
export function parseSeriesSelector(text: string): VectorSelector {
  try {
    const sel = new Parser(text).parseSelectorOnly();
    new Checker(text).check(sel);
    return sel;
  } catch (e) {
    if (e instanceof PromqlError) throw e;
    throw new PromqlError('bad_data', `parse error: ${(e as Error).message}`);
  }
}

/** The value type of an expression (Prometheus's `Expr.Type()`). */
export function typeOf(expr: Expr): ValueType {
  switch (expr.kind) {
    case 'number':
      return 'scalar';
    case 'string':
      return 'string';
    case 'vector':
    case 'aggregate':
      return 'vector';
    case 'matrix':
    case 'subquery':
      return 'matrix';
    case 'call':
      return FUNCTION_SIGNATURES.get(expr.func)?.returnType ?? 'vector';
    case 'binary':
      return typeOf(expr.lhs) === 'scalar' && typeOf(expr.rhs) === 'scalar' ? 'scalar' : 'vector';
    case 'unary':
    case 'paren':
      return typeOf(expr.expr);
  }
}

/** Prometheus's `DocumentedType`. */
export function documentedType(t: ValueType): string {
  return t === 'vector' ? 'instant vector' : t === 'matrix' ? 'range vector' : t;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Binary operator precedences (yacc's `%left`/`%right` lines, higher binds tighter). */
const BINARY_PREC: Partial<Record<TokenType, number>> = {
  LOR: 1,
  LAND: 2,
  LUNLESS: 2,
  EQLC: 3,
  NEQ: 3,
  LTE: 3,
  LSS: 3,
  GTE: 3,
  GTR: 3,
  ADD: 4,
  SUB: 4,
  MUL: 5,
  DIV: 5,
  MOD: 5,
  ATAN2: 5,
  POW: 6,
};
const UNARY_OPERAND_PREC = 6;

const BINARY_OPS: Partial<Record<TokenType, BinaryOp>> = {
  LOR: 'or',
  LAND: 'and',
  LUNLESS: 'unless',
  EQLC: '==',
  NEQ: '!=',
  LTE: '<=',
  LSS: '<',
  GTE: '>=',
  GTR: '>',
  ADD: '+',
  SUB: '-',
  MUL: '*',
  DIV: '/',
  MOD: '%',
  ATAN2: 'atan2',
  POW: '^',
};

const MATCH_OPS: Partial<Record<TokenType, MatchType>> = { EQL: '=', NEQ: '!=', EQL_REGEX: '=~', NEQ_REGEX: '!~' };

/** Tokens that may name a metric (yacc's `metric_identifier`). */
const METRIC_IDENTIFIERS = new Set<TokenType>([
  'AVG', 'BOTTOMK', 'BY', 'COUNT', 'COUNT_VALUES', 'GROUP', 'IDENTIFIER', 'LAND', 'LOR', 'LUNLESS', 'MAX', 'METRIC_IDENTIFIER', 'MIN', 'OFFSET', 'QUANTILE', 'STDDEV',
  'STDVAR', 'SUM', 'TOPK', 'WITHOUT', 'START', 'END',
]);
/** Tokens that may name a label in grouping clauses (yacc's `maybe_label`). */
const MAYBE_LABELS = new Set<TokenType>([
  'AVG', 'BOOL', 'BOTTOMK', 'BY', 'COUNT', 'COUNT_VALUES', 'GROUP', 'GROUP_LEFT', 'GROUP_RIGHT', 'IDENTIFIER', 'IGNORING', 'LAND', 'LOR', 'LUNLESS', 'MAX',
  'METRIC_IDENTIFIER', 'MIN', 'OFFSET', 'ON', 'QUANTILE', 'STDDEV', 'STDVAR', 'SUM', 'TOPK', 'START', 'END', 'ATAN2',
]);
const PARAM_AGGREGATORS = new Set<AggregateOp>(['topk', 'bottomk', 'quantile', 'count_values']);

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

class Parser {
  private readonly lexer: Lexer;
  private lookahead: Token | undefined;
  /** End offset of the last token consumed. */
  private lastEnd = 0;
  /** Aggregations being parsed: an error inside one is reported "in aggregation". */
  private aggregations = 0;
  private level = 0;
  private readonly depth = new WeakMap<Expr, number>();

  constructor(private readonly input: string) {
    this.lexer = new Lexer(input);
  }

  parseQuery(): Expr {
    if (this.peek().type === 'EOF') throw parseError(this.input, 0, 'no expression found in input');
    const expr = this.parseExpr(0);
    if (this.peek().type !== 'EOF') this.unexpected();
    return expr;
  }

  /** The grammar's START_METRIC_SELECTOR: one vector selector, then the end. */
  parseSelectorOnly(): VectorSelector {
    const t = this.peek();
    let sel: VectorSelector;
    if (t.type === 'LEFT_BRACE') sel = this.vectorSelector(undefined);
    else if (METRIC_IDENTIFIERS.has(t.type)) {
      this.next();
      sel = this.vectorSelector(t);
    } else this.unexpected();
    if (this.peek().type !== 'EOF') this.unexpected();
    return sel;
  }

  private peek(): Token {
    if (this.lookahead === undefined) this.lookahead = this.lexer.next();
    return this.lookahead;
  }

  private next(): Token {
    const t = this.peek();
    this.lookahead = undefined;
    this.lastEnd = t.pos + t.val.length;
    return t;
  }

  private fail(pos: number, message: string): never {
    throw parseError(this.input, pos, message);
  }

  /** Prometheus's `unexpected(context, expected)` on the lookahead token. */
  private unexpected(context?: string, expected?: string): never {
    const t = this.peek();
    const ctx = context ?? (this.aggregations > 0 ? 'aggregation' : '');
    let msg = `unexpected ${describeToken(t)}`;
    if (ctx !== '') msg += ` in ${ctx}`;
    if (expected !== undefined && expected !== '') msg += `, expected ${expected}`;
    this.fail(t.pos, msg);
  }

  private depthOf(e: Expr): number {
    return this.depth.get(e) ?? 1;
  }

  /** Records a composite node's depth; refuses trees deeper than MAX_DEPTH. */
  private made<T extends Expr>(e: T, ...children: (Expr | undefined)[]): T {
    let d = 0;
    for (const c of children) if (c !== undefined) d = Math.max(d, this.depthOf(c));
    d += 1;
    if (d > MAX_DEPTH) this.tooDeep(e.pos?.start ?? 0);
    this.depth.set(e, d);
    return e;
  }

  private tooDeep(pos: number): never {
    this.fail(pos, `expression nests too deeply (more than ${MAX_DEPTH} levels)`);
  }

  private parseExpr(minPrec: number): Expr {
    let lhs = this.parseUnary();
    for (;;) {
      const opTok = this.peek();
      const prec = BINARY_PREC[opTok.type];
      if (prec === undefined || prec < minPrec) return lhs;
      this.next();
      const node = this.binModifiers(BINARY_OPS[opTok.type]!);
      const rhs = this.parseExpr(opTok.type === 'POW' ? prec : prec + 1);
      node.lhs = lhs;
      node.rhs = rhs;
      node.pos = { start: lhs.pos!.start, end: rhs.pos!.end };
      lhs = this.made(node as BinaryExpr, lhs, rhs);
    }
  }

  /** `bin_modifier`: `bool`, `on`/`ignoring (…)`, `group_left`/`group_right [(…)]`. */
  private binModifiers(op: BinaryOp): Mutable<BinaryExpr> {
    const matching: Mutable<VectorMatching> = { card: 'one-to-one', on: false, labels: [], include: [] };
    const node = { kind: 'binary', op, returnBool: false, matching } as unknown as Mutable<BinaryExpr>;
    if (this.peek().type === 'BOOL') {
      this.next();
      node.returnBool = true;
    }
    const t = this.peek().type;
    if (t === 'ON' || t === 'IGNORING') {
      this.next();
      matching.on = t === 'ON';
      matching.labels = this.groupingLabels();
      const g = this.peek().type;
      if (g === 'GROUP_LEFT' || g === 'GROUP_RIGHT') {
        this.next();
        matching.card = g === 'GROUP_LEFT' ? 'many-to-one' : 'one-to-many';
        if (this.peek().type === 'LEFT_PAREN') matching.include = this.groupingLabels();
      }
    }
    return node;
  }

  private parseUnary(): Expr {
    if (++this.level > MAX_DEPTH) this.tooDeep(this.peek().pos);
    try {
      const t = this.peek();
      if (t.type === 'ADD' || t.type === 'SUB') {
        this.next();
        const operand = this.parseExpr(UNARY_OPERAND_PREC);
        if (operand.kind === 'number') {
          // Prometheus folds a sign into a number literal.
          const n: NumberLiteral = { kind: 'number', value: t.type === 'SUB' ? -operand.value : operand.value, pos: { start: t.pos, end: operand.pos!.end } };
          return n;
        }
        const u: UnaryExpr = { kind: 'unary', op: t.type === 'SUB' ? '-' : '+', expr: operand, pos: { start: t.pos, end: operand.pos!.end } };
        return this.made(u, operand);
      }
      return this.postfix(this.primary());
    } finally {
      this.level--;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.type) {
      case 'NUMBER': {
        this.next();
        return { kind: 'number', value: this.number(t), pos: range(t) };
      }
      case 'STRING':
        this.next();
        return { kind: 'string', value: unquoteString(t.val), pos: range(t) };
      case 'LEFT_PAREN': {
        this.next();
        const inner = this.parseExpr(0);
        if (this.peek().type !== 'RIGHT_PAREN') this.unexpected();
        const close = this.next();
        const p: ParenExpr = { kind: 'paren', expr: inner, pos: { start: t.pos, end: close.pos + 1 } };
        return this.made(p, inner);
      }
      case 'LEFT_BRACE':
        return this.vectorSelector(undefined);
      case 'IDENTIFIER':
        this.next();
        if (this.peek().type === 'LEFT_PAREN') return this.call(t);
        return this.vectorSelector(t);
    }
    if (AGGREGATORS.has(t.type)) {
      this.next();
      const n = this.peek().type;
      if (n === 'LEFT_PAREN' || n === 'BY' || n === 'WITHOUT') return this.aggregate(t);
      return this.vectorSelector(t);
    }
    if (METRIC_IDENTIFIERS.has(t.type)) {
      this.next();
      return this.vectorSelector(t);
    }
    this.unexpected();
  }

  /** `NUMBER` as Prometheus reads it: Go's ParseInt with base prefixes (`0x1f`, octal `017`), else ParseFloat. */
  private number(t: Token): number {
    const v = t.val;
    let big: bigint | undefined;
    if (/^0[xX][0-9a-fA-F]+$/.test(v)) big = BigInt(v);
    else if (/^0[0-7]+$/.test(v)) big = BigInt(`0o${v.slice(1)}`);
    else if (/^[0-9]+$/.test(v)) big = BigInt(v);
    if (big !== undefined && big <= MAX_INT64 && big >= MIN_INT64) return Number(big);
    const lower = v.toLowerCase();
    if (lower === 'inf') return Infinity;
    if (lower === 'nan') return NaN;
    if (/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(v)) {
      const f = Number(v);
      if (Number.isFinite(f)) return f;
      this.fail(t.pos, `error parsing number: strconv.ParseFloat: parsing ${goQuote(v)}: value out of range`);
    }
    this.fail(t.pos, `error parsing number: strconv.ParseFloat: parsing ${goQuote(v)}: invalid syntax`);
  }

  private duration(t: Token): number {
    const r = parseDurationMs(t.val);
    if (typeof r === 'string') this.fail(t.pos, r);
    if (r === 0) this.fail(t.pos, 'duration must be greater than 0');
    return r;
  }

  /** `name`, `name{…}` or `{…}`; the `__name__` matcher of `name` goes last, as Prometheus puts it. */
  private vectorSelector(nameTok: Token | undefined): VectorSelector {
    const start = nameTok?.pos ?? this.peek().pos;
    let matchers: LabelMatcher[] = [];
    if (this.peek().type === 'LEFT_BRACE') matchers = this.labelMatchers();
    if (nameTok !== undefined) matchers.push({ name: METRIC_NAME, type: '=', value: nameTok.val });
    const vs: Mutable<VectorSelector> = { kind: 'vector', matchers, offsetMs: 0, pos: { start, end: this.lastEnd } };
    if (nameTok !== undefined) vs.name = nameTok.val;
    return vs;
  }

  private labelMatchers(): LabelMatcher[] {
    this.next(); // {
    const out: LabelMatcher[] = [];
    if (this.peek().type === 'RIGHT_BRACE') {
      this.next();
      return out;
    }
    for (;;) {
      const name = this.peek();
      if (name.type !== 'IDENTIFIER') this.unexpected('label matching', 'identifier or "}"');
      this.next();
      const op = MATCH_OPS[this.peek().type];
      if (op === undefined) this.unexpected('label matching', 'label matching operator');
      this.next();
      const valTok = this.peek();
      if (valTok.type !== 'STRING') this.unexpected('label matching', 'string');
      this.next();
      const value = unquoteString(valTok.val);
      if (op === '=~' || op === '!~') {
        try {
          compileMatcherRegex(value);
        } catch (e) {
          this.fail(name.pos, (e as Error).message);
        }
      }
      out.push({ name: name.val, type: op, value });
      const sep = this.peek().type;
      if (sep === 'COMMA') {
        this.next();
        if (this.peek().type === 'RIGHT_BRACE') {
          this.next();
          return out;
        }
      } else if (sep === 'RIGHT_BRACE') {
        this.next();
        return out;
      } else {
        this.unexpected('label matching', '"," or "}"');
      }
    }
  }

  /** `grouping_labels`: `(a, b)`. */
  private groupingLabels(): string[] {
    if (this.peek().type !== 'LEFT_PAREN') this.unexpected('grouping opts', '"("');
    this.next();
    const out: string[] = [];
    if (this.peek().type === 'RIGHT_PAREN') {
      this.next();
      return out;
    }
    for (;;) {
      const l = this.peek();
      if (!MAYBE_LABELS.has(l.type) || !isLabelName(l.val)) this.unexpected('grouping opts', 'label');
      this.next();
      out.push(l.val);
      const sep = this.peek().type;
      if (sep === 'COMMA') {
        this.next();
        if (this.peek().type === 'RIGHT_PAREN') {
          this.next();
          return out;
        }
      } else if (sep === 'RIGHT_PAREN') {
        this.next();
        return out;
      } else {
        this.unexpected('grouping opts', '"," or ")"');
      }
    }
  }

  /** `function_call_body`: `(expr, …)`, after the identifier. */
  private callArgs(): Expr[] {
    this.next(); // (
    const args: Expr[] = [];
    if (this.peek().type === 'RIGHT_PAREN') {
      this.next();
      return args;
    }
    for (;;) {
      args.push(this.parseExpr(0));
      const sep = this.peek();
      if (sep.type === 'COMMA') {
        this.next();
        // Prometheus's grammar reduces a comma followed by anything but an expression as a trailing one.
        if (!startsExpr(this.peek().type)) this.fail(sep.pos, 'trailing commas not allowed in function call args');
      } else if (sep.type === 'RIGHT_PAREN') {
        this.next();
        return args;
      } else {
        this.unexpected();
      }
    }
  }

  private call(nameTok: Token): Call {
    const args = this.callArgs();
    if (!FUNCTION_SIGNATURES.has(nameTok.val)) this.fail(nameTok.pos, `unknown function with name ${goQuote(nameTok.val)}`);
    const c: Call = { kind: 'call', func: nameTok.val, args, pos: { start: nameTok.pos, end: this.lastEnd } };
    return this.made(c, ...args);
  }

  private aggregate(opTok: Token): AggregateExpr {
    const op = opTok.val.toLowerCase() as AggregateOp;
    this.aggregations++;
    let grouping: string[] = [];
    let without = false;
    let modifier = false;
    const readModifier = (): void => {
      const t = this.next();
      without = t.type === 'WITHOUT';
      grouping = this.groupingLabels();
      modifier = true;
    };
    if (this.peek().type === 'BY' || this.peek().type === 'WITHOUT') readModifier();
    if (this.peek().type !== 'LEFT_PAREN') this.unexpected();
    const args = this.callArgs();
    if (!modifier && (this.peek().type === 'BY' || this.peek().type === 'WITHOUT')) readModifier();
    this.aggregations--;
    const pos = { start: opTok.pos, end: this.lastEnd };
    if (args.length === 0) this.fail(pos.start, 'no arguments for aggregate expression provided');
    const desired = PARAM_AGGREGATORS.has(op) ? 2 : 1;
    if (args.length !== desired) this.fail(pos.start, `wrong number of arguments for aggregate expression provided, expected ${desired}, got ${args.length}`);
    const a: Mutable<AggregateExpr> = { kind: 'aggregate', op, expr: args[desired - 1]!, grouping, without, pos };
    if (desired === 2) a.param = args[0]!;
    return this.made(a as AggregateExpr, ...args);
  }

  /** `[range]`, `[range:step]`, `offset d`, `@ t` after an expression, in any order. */
  private postfix(e: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.type === 'LEFT_BRACKET') e = this.bracket(e, t);
      else if (t.type === 'OFFSET') this.offset(e);
      else if (t.type === 'AT') this.at(e);
      else return e;
    }
  }

  private bracket(e: Expr, open: Token): Expr {
    this.next();
    const rangeTok = this.peek();
    if (rangeTok.type !== 'DURATION') this.unexpected('subquery selector', 'duration');
    this.next();
    const rangeMs = this.duration(rangeTok);
    const t = this.peek();
    if (t.type === 'RIGHT_BRACKET') {
      this.next();
      let msg: string | undefined;
      if (e.kind !== 'vector') msg = 'ranges only allowed for vector selectors';
      else if (e.offsetMs !== 0) msg = 'no offset modifiers allowed before range';
      else if (e.at?.kind === 'time') msg = 'no @ modifiers allowed before range';
      if (msg !== undefined) this.fail(open.pos, msg);
      const m: MatrixSelector = { kind: 'matrix', selector: e as VectorSelector, rangeMs, pos: { start: e.pos!.start, end: this.lastEnd } };
      return this.made(m, e);
    }
    if (t.type !== 'COLON') this.unexpected('subquery or range', '":" or "]"');
    this.next();
    let stepMs = 0;
    if (this.peek().type === 'DURATION') {
      stepMs = this.duration(this.next());
      if (this.peek().type !== 'RIGHT_BRACKET') this.unexpected('subquery selector', '"]"');
    } else if (this.peek().type !== 'RIGHT_BRACKET') {
      this.unexpected('subquery selector', 'duration or "]"');
    }
    this.next();
    const s: SubqueryExpr = { kind: 'subquery', expr: e, rangeMs, stepMs, offsetMs: 0, pos: { start: e.pos!.start, end: this.lastEnd } };
    return this.made(s, e);
  }

  private offset(e: Expr): void {
    this.next();
    let sign = 1;
    if (this.peek().type === 'SUB') {
      this.next();
      sign = -1;
    }
    const d = this.peek();
    if (d.type !== 'DURATION') this.unexpected('offset', 'duration');
    this.next();
    const ms = sign * this.duration(d);
    const target = modifierTarget(e);
    if (target === undefined) this.fail(e.pos!.start, 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery');
    if (target.offsetMs !== 0) this.fail(e.pos!.start, 'offset may not be set multiple times');
    target.offsetMs = ms;
    (e.pos as Mutable<PosRange>).end = this.lastEnd;
  }

  private at(e: Expr): void {
    this.next();
    const t = this.peek();
    let at: AtModifier;
    if (t.type === 'START' || t.type === 'END') {
      this.next();
      if (this.peek().type !== 'LEFT_PAREN') this.unexpected('@', 'timestamp');
      this.next();
      if (this.peek().type !== 'RIGHT_PAREN') this.unexpected('@', 'timestamp');
      this.next();
      at = { kind: t.type === 'START' ? 'start' : 'end' };
    } else {
      let sign = 1;
      if (t.type === 'ADD' || t.type === 'SUB') {
        this.next();
        if (t.type === 'SUB') sign = -1;
      }
      const n = this.peek();
      if (n.type !== 'NUMBER') this.unexpected('@', 'timestamp');
      this.next();
      const ts = sign * this.number(n);
      if (!Number.isFinite(ts) || ts >= 9223372036854775807 || ts <= -9223372036854775808) {
        this.fail(e.pos!.start, `timestamp out of bounds for @ modifier: ${goFloatF(ts)}`);
      }
      // Go's math.Round: halves away from zero.
      const scaled = ts * 1000;
      at = { kind: 'time', ms: Math.sign(scaled) * Math.round(Math.abs(scaled)) + 0 };
    }
    const target = modifierTarget(e);
    if (target === undefined) this.fail(e.pos!.start, '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery');
    if (target.at !== undefined) this.fail(e.pos!.start, '@ <timestamp> may not be set multiple times');
    target.at = at;
    (e.pos as Mutable<PosRange>).end = this.lastEnd;
  }
}

/** Whether a token can begin an expression. */
function startsExpr(t: TokenType): boolean {
  return t === 'NUMBER' || t === 'STRING' || t === 'LEFT_PAREN' || t === 'LEFT_BRACE' || t === 'ADD' || t === 'SUB' || AGGREGATORS.has(t) || METRIC_IDENTIFIERS.has(t);
}

function range(t: Token): PosRange {
  return { start: t.pos, end: t.pos + t.val.length };
}

/** Where `offset` and `@` of `e` are kept: the selector, the matrix's selector, the subquery. */
function modifierTarget(e: Expr): Mutable<VectorSelector> | Mutable<SubqueryExpr> | undefined {
  if (e.kind === 'vector' || e.kind === 'subquery') return e as Mutable<VectorSelector | SubqueryExpr>;
  if (e.kind === 'matrix') return e.selector as Mutable<VectorSelector>;
  return undefined;
}

/** Go's `%f`. */
function goFloatF(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (Math.abs(x) >= 1e21) return `${BigInt(x).toString()}.000000`;
  return x.toFixed(6);
}

const DURATION_RE = /^(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?(?:([0-9]+)ms)?$/;
const DURATION_UNITS_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];
const MAX_DURATION_NS = 2 ** 63 - 1;

/**
 * Prometheus's `model.ParseDuration` (common v0.39): milliseconds, or the error message. Units in
 * order y w d h m s ms, each at most once; `0` alone is zero.
 */
export function parseDurationMs(s: string): number | string {
  if (s === '0') return 0;
  if (s === '') return 'empty duration string';
  const m = DURATION_RE.exec(s);
  if (m === null) return `not a valid duration string: ${goQuote(s)}`;
  let ms = 0;
  for (let i = 0; i < DURATION_UNITS_MS.length; i++) {
    const g = m[i + 1];
    if (g === undefined) continue;
    const n = Number(g);
    const mult = DURATION_UNITS_MS[i]!;
    if (n > Math.floor(MAX_DURATION_NS / mult / 1e6)) return 'duration out of range';
    ms += n * mult;
    if (ms * 1e6 > MAX_DURATION_NS) return 'duration out of range';
  }
  return ms;
}

/** Prometheus's `checkAST`: types of operands and arguments, matchers, in its order. */
class Checker {
  constructor(private readonly input: string) {}

  private fail(pos: number, message: string): never {
    throw parseError(this.input, pos, message);
  }

  private expectType(e: Expr, want: ValueType, context: string): void {
    const t = this.check(e);
    if (t !== want) this.fail(e.pos?.start ?? 0, `expected type ${documentedType(want)} in ${context}, got ${documentedType(t)}`);
  }

  check(e: Expr): ValueType {
    const start = e.pos?.start ?? 0;
    switch (e.kind) {
      case 'number':
      case 'string':
        break;
      case 'paren':
        this.check(e.expr);
        break;
      case 'aggregate':
        this.expectType(e.expr, 'vector', 'aggregation expression');
        if (e.op === 'topk' || e.op === 'bottomk' || e.op === 'quantile') this.expectType(e.param!, 'scalar', 'aggregation parameter');
        if (e.op === 'count_values') this.expectType(e.param!, 'string', 'aggregation parameter');
        break;
      case 'call':
        this.checkCall(e);
        break;
      case 'binary':
        this.checkBinary(e as Mutable<BinaryExpr>);
        break;
      case 'unary': {
        const t = this.check(e.expr);
        if (t !== 'scalar' && t !== 'vector') {
          this.fail(start, `unary expression only allowed on expressions of type scalar or instant vector, got ${goQuote(documentedType(t))}`);
        }
        break;
      }
      case 'subquery': {
        const t = this.check(e.expr);
        if (t !== 'vector') this.fail(start, `subquery is only allowed on instant vector, got ${t} instead`);
        break;
      }
      case 'matrix':
        this.check(e.selector);
        break;
      case 'vector':
        this.checkSelector(e);
        break;
    }
    return typeOf(e);
  }

  private checkSelector(e: VectorSelector): void {
    const start = e.pos?.start ?? 0;
    if (e.name !== undefined) {
      for (const m of e.matchers.slice(0, -1)) {
        if (m.name === METRIC_NAME) this.fail(start, `metric name must not be set twice: ${goQuote(e.name)} or ${goQuote(m.value)}`);
      }
      return;
    }
    if (!e.matchers.some((m) => !matchesEmpty(m))) this.fail(start, 'vector selector must contain at least one non-empty matcher');
  }

  private checkCall(e: Call): void {
    const sig = FUNCTION_SIGNATURES.get(e.func)!;
    const start = e.pos?.start ?? 0;
    const nargs = sig.argTypes.length;
    const q = goQuote(e.func);
    if (sig.variadic === 0) {
      if (nargs !== e.args.length) this.fail(start, `expected ${nargs} argument(s) in call to ${q}, got ${e.args.length}`);
    } else {
      const na = nargs - 1;
      if (na > e.args.length) this.fail(start, `expected at least ${na} argument(s) in call to ${q}, got ${e.args.length}`);
      const max = na + sig.variadic;
      if (sig.variadic > 0 && max < e.args.length) this.fail(start, `expected at most ${max} argument(s) in call to ${q}, got ${e.args.length}`);
    }
    for (let i = 0; i < e.args.length; i++) {
      let j = i;
      if (j >= nargs) {
        if (sig.variadic === 0) break;
        j = nargs - 1;
      }
      this.expectType(e.args[i]!, sig.argTypes[j]!, `call to function ${q}`);
    }
  }

  private checkBinary(n: Mutable<BinaryExpr>): void {
    const lt = this.check(n.lhs);
    const rt = this.check(n.rhs);
    const start = n.pos?.start ?? 0;
    const opStart = (): number => {
      let i = n.lhs.pos?.end ?? start;
      while (i < this.input.length && ' \t\n\r'.includes(this.input[i]!)) i++;
      return i;
    };
    const comparison = n.op === '==' || n.op === '!=' || n.op === '<' || n.op === '>' || n.op === '<=' || n.op === '>=';
    const setOp = n.op === 'and' || n.op === 'or' || n.op === 'unless';
    if (n.returnBool && !comparison) this.fail(opStart(), 'bool modifier can only be used on comparison operators');
    if (comparison && !n.returnBool && lt === 'scalar' && rt === 'scalar') this.fail(opStart(), 'comparisons between scalars must use BOOL modifier');
    const vm = n.matching as Mutable<VectorMatching> | undefined;
    if (vm !== undefined) {
      if (setOp && vm.card === 'one-to-one') vm.card = 'many-to-many';
      if (vm.on) {
        for (const l of vm.labels) {
          if (vm.include.includes(l)) this.fail(opStart(), `label ${goQuote(l)} must not occur in ON and GROUP clause at once`);
        }
      }
    }
    if (lt !== 'scalar' && lt !== 'vector') this.fail(n.lhs.pos?.start ?? start, 'binary expression must contain only scalar and instant vector types');
    if (rt !== 'scalar' && rt !== 'vector') this.fail(n.rhs.pos?.start ?? start, 'binary expression must contain only scalar and instant vector types');
    if (vm !== undefined) {
      if (lt !== 'vector' || rt !== 'vector') {
        if (vm.labels.length > 0) this.fail(start, 'vector matching only allowed between instant vectors');
        delete n.matching;
      } else if (setOp) {
        if (vm.card === 'one-to-many' || vm.card === 'many-to-one') this.fail(start, `no grouping allowed for ${goQuote(n.op)} operation`);
        if (vm.card !== 'many-to-many') this.fail(start, 'set operations must always be many-to-many');
      }
    }
    if ((lt === 'scalar' || rt === 'scalar') && setOp) this.fail(start, `set operator ${goQuote(n.op)} not allowed in binary scalar expression`);
  }
}

const matchesEmpty = (m: LabelMatcher): boolean => matcherMatches(m, '');
