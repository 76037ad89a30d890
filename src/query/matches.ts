/**
 * GreptimeDB's `matches(text, pattern)`: a full-text query over a string column, true where the
 * text satisfies the pattern. The pattern language and its reading follow GreptimeDB's
 * `scalars/matches.rs` (facts read there, written anew here):
 * - terms are words, or `"quoted phrases"` (`\` escapes a character); `AND` / `OR` (any case) join
 *   terms, juxtaposition is OR, `AND` binds tighter; parentheses group;
 * - `+term` must match, `-term` must not; within an OR, once a term is required the optional ones
 *   no longer matter (`fox +jumps -over` = jumps AND NOT over);
 * - a term matches where it occurs anywhere in the text, case-sensitively (GreptimeDB: `LIKE
 *   '%term%'`).
 * A malformed pattern is an error naming what is wrong (GreptimeDB's texts). A JavaScript scalar
 * function (`js-functions.ts`); a column matched against one pattern parses it once.
 */
import { BOOLEAN, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { registrar, scalar } from './js-functions.js';

type Unary = 'must' | 'optional' | 'negative';
type Token = { kind: 'must' | 'negative' | 'optional' | 'and' | 'or' | 'open' | 'close' } | { kind: 'phrase'; text: string };
type Ast = { kind: 'literal'; op: Unary; text: string } | { kind: 'binary'; op: 'and' | 'or'; children: Ast[] } | { kind: 'group'; op: Unary; child: Ast };

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.EngineExecuteQuery, `Invalid function args: ${message}`);
}

const DEBUG_NAMES: Record<string, string> = { must: 'Must', negative: 'Negative' };

function tokenize(pattern: string): Token[] {
  const chars = [...pattern];
  const tokens: Token[] = [];
  let at = 0;
  const phrase = (quoted: boolean): string => {
    let text = '';
    let quote = false;
    while (at < chars.length) {
      let c = chars[at]!;
      if (c === '"') {
        quote = true;
        break;
      }
      if (!quoted && c === ' ') break;
      if (!quoted && '()+-'.includes(c)) {
        at--;
        break;
      }
      if (c === '\\') {
        at++;
        if (at >= chars.length) throw invalid("Unexpected end of pattern, expected a character after escape ('\\')");
        c = chars[at]!;
      }
      text += c;
      at++;
    }
    if (quoted !== quote) throw invalid(`Unclosed quotes ('"')`);
    return text;
  };
  while (at < chars.length) {
    const c = chars[at]!;
    if (c === '+') tokens.push({ kind: 'must' });
    else if (c === '-') tokens.push({ kind: 'negative' });
    else if (c === '(') tokens.push({ kind: 'open' });
    else if (c === ')') tokens.push({ kind: 'close' });
    else if (c === ' ') {
      const last = tokens.at(-1);
      if (last !== undefined && (last.kind === 'must' || last.kind === 'negative')) throw invalid(`Unexpected space after ${DEBUG_NAMES[last.kind]}`);
    } else if (c === '"') {
      at++;
      tokens.push({ kind: 'phrase', text: phrase(true) });
      at++;
      if (at < chars.length && chars[at] !== ' ') throw invalid(`Expect a space after quotes ('"')`);
    } else {
      const text = phrase(false);
      const word = text.toUpperCase();
      tokens.push(word === 'AND' ? { kind: 'and' } : word === 'OR' ? { kind: 'or' } : { kind: 'phrase', text });
    }
    at++;
  }
  return tokens;
}

const isUnary = (t: Token) => t.kind === 'must' || t.kind === 'optional' || t.kind === 'negative';

/** Makes the implicit operators explicit: OR between adjacent terms, OPTIONAL before a bare term or group. */
function explicit(raw: readonly Token[]): Token[] {
  let prevUnary = false;
  let binaryBefore = true;
  let unaryBefore = false;
  const out: Token[] = [];
  for (const t of raw) {
    if (!binaryBefore && (t.kind === 'phrase' || t.kind === 'open' || isUnary(t))) {
      binaryBefore = true;
      out.push({ kind: 'or' });
    }
    if (t.kind === 'open' || t.kind === 'and' || t.kind === 'or') binaryBefore = true;
    else if (t.kind === 'phrase' || t.kind === 'close') binaryBefore = false;
    if (!prevUnary && (t.kind === 'phrase' || t.kind === 'open')) out.push({ kind: 'optional' });
    else prevUnary = t.kind === 'must' || t.kind === 'negative';
    if (isUnary(t)) {
      if (unaryBefore) throw invalid('Invalid pattern, unary operators should not be adjacent');
      unaryBefore = true;
    } else unaryBefore = false;
    out.push(t);
  }
  return out;
}

/** Reverse Polish order (shunting-yard). */
function toRpn(tokens: readonly Token[]): Token[] {
  const ops: Token[] = [];
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.kind === 'phrase') out.push(t);
    else if (isUnary(t) || t.kind === 'open') ops.push(t);
    else if (t.kind === 'and' || t.kind === 'or') {
      for (let top = ops.at(-1); top !== undefined && ((top.kind === 'and' && t.kind === 'or') || isUnary(top)); top = ops.at(-1)) out.push(ops.pop()!);
      ops.push(t);
    } else {
      let found = false;
      for (let op = ops.pop(); op !== undefined; op = ops.pop()) {
        if (op.kind === 'open') {
          found = true;
          break;
        }
        out.push(op);
      }
      if (!found) throw invalid('Unmatched close parentheses');
    }
  }
  for (let op = ops.pop(); op !== undefined; op = ops.pop()) {
    if (op.kind === 'open') throw invalid('Unmatched parentheses');
    out.push(op);
  }
  return out;
}

const OPERAND_NAMES: Record<Unary, string> = { must: '"+"', negative: '"-"', optional: 'OPTIONAL(space)' };

/** Builds the tree from the RPN tokens, read from their end. */
function build(rpn: Token[]): Ast {
  const stack: Ast[] = [];
  const one = (): void => {
    const t = rpn.pop();
    if (t === undefined) return;
    if (t.kind === 'phrase') {
      stack.push({ kind: 'literal', op: 'optional', text: t.text });
    } else if (t.kind === 'must' || t.kind === 'negative' || t.kind === 'optional') {
      if (stack.length === 0) one();
      const x = stack.pop();
      if (x === undefined) throw invalid(`Invalid pattern, ${OPERAND_NAMES[t.kind]} operator should have one operand`);
      stack.push(x.kind === 'literal' ? { kind: 'literal', op: t.kind, text: x.text } : { kind: 'group', op: t.kind, child: x });
    } else if (t.kind === 'and' || t.kind === 'or') {
      const missing = () => invalid(`Invalid pattern, "${t.kind.toUpperCase()}" operator should have two operands`);
      if (stack.length === 0) one();
      const rhs = stack.pop();
      if (rhs === undefined) throw missing();
      if (stack.length === 0) one();
      const lhs = stack.pop();
      if (lhs === undefined) throw missing();
      stack.push({ kind: 'binary', op: t.kind, children: [lhs, rhs] });
    } else throw invalid('Unexpected parentheses');
  };
  while (rpn.length > 0) one();
  if (stack.length === 0) throw invalid('Empty pattern');
  return stack.length === 1 ? stack[0]! : { kind: 'binary', op: 'or', children: stack };
}

const mapChildren = (n: Ast, f: (c: Ast) => Ast): Ast => (n.kind === 'binary' ? { ...n, children: n.children.map(f) } : n.kind === 'group' ? { ...n, child: f(n.child) } : n);
const up = (n: Ast, f: (n: Ast) => Ast): Ast => f(mapChildren(n, (c) => up(c, f)));
const down = (n: Ast, f: (n: Ast) => Ast): Ast => mapChildren(f(n), (c) => down(c, f));

/** A binary node takes in its children of the same operator. */
function collapse(n: Ast): Ast {
  if (n.kind !== 'binary') return n;
  const collapsed: Ast[] = [];
  const remains: Ast[] = [];
  for (const c of n.children) {
    if (c.kind !== 'binary') collapsed.push(c);
    else if (c.op === n.op) collapsed.push(...c.children);
    else remains.push(c);
  }
  return { kind: 'binary', op: n.op, children: collapsed.length === 0 ? remains : [...collapsed, ...remains] };
}

/** Within an OR, required and excluded terms are ANDed, and the optional ones drop out once one is required. */
function eliminateOptional(n: Ast): Ast {
  if (n.kind !== 'binary' || n.op !== 'or') return n;
  const must: Ast[] = [];
  const mustNot: Ast[] = [];
  let optional: Ast[] = [];
  const compound: Ast[] = [];
  for (const c of n.children) {
    if (c.kind === 'binary') compound.push(c);
    else if (c.op === 'must') must.push(c);
    else if (c.op === 'negative') mustNot.push(c);
    else optional.push(c);
  }
  if (must.length > 0) optional = [];
  const level: Ast = { kind: 'binary', op: 'or', children: [...optional, ...compound] };
  return must.length > 0 || mustNot.length > 0 ? { kind: 'binary', op: 'and', children: [...must, ...mustNot, level] } : level;
}

function eliminateSingleChild(n: Ast): Ast {
  if (n.kind !== 'binary') return n;
  const children = n.children.filter((c) => c.kind !== 'binary' || c.children.length > 0);
  return children.length === 1 ? children[0]! : { ...n, children };
}

/** The most terms and operators a pattern has: its tree is built and walked recursively. */
export const MAX_PATTERN_TOKENS = 2000;

/** The pattern as the tree `evaluate` reads; throws GreptimeDB's error for a malformed one. */
export function parsePattern(pattern: string): Ast {
  const tokens = tokenize(pattern);
  if (tokens.length > MAX_PATTERN_TOKENS) throw invalid(`Invalid pattern, more than ${MAX_PATTERN_TOKENS} terms and operators`);
  const ast = build(toRpn(explicit(tokens)));
  return down(up(up(ast, collapse), eliminateOptional), eliminateSingleChild);
}

/** Whether `text` satisfies the pattern's tree. */
export function evaluate(ast: Ast, text: string): boolean {
  switch (ast.kind) {
    case 'literal':
      return ast.op === 'negative' ? !text.includes(ast.text) : text.includes(ast.text);
    case 'group':
      return ast.op === 'negative' ? !evaluate(ast.child, text) : evaluate(ast.child, text);
    case 'binary':
      if (ast.children.length === 0) return true;
      return ast.op === 'and' ? ast.children.every((c) => evaluate(c, text)) : ast.children.some((c) => evaluate(c, text));
  }
}

/** `matches(text, pattern)` for one text. */
export function matches(text: string, pattern: string): boolean {
  return evaluate(parsePattern(pattern), text);
}

export function registerMatches(conn: DuckDBConnection): void {
  let last: { pattern: string; ast: Ast } | undefined;
  registrar(conn).registerScalarFunction(
    scalar('matches', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => {
      const pattern = input[1]!.getItem(i) as string;
      if (last?.pattern !== pattern) last = { pattern, ast: parsePattern(pattern) };
      return evaluate(last.ast, input[0]!.getItem(i) as string);
    }),
  );
}
