/**
 * The partition rule of a table (reference internals.md §6.7): `PARTITION ON COLUMNS (a, b)
 * (expr, …)` gives region `region_numbers[i]` the rows for which `exprs[i]` is true, the first
 * true one winning; a row no expression matches goes to region 0. An expression is AND / OR of
 * `column op literal` (`=`, `!=`/`<>`, `<`, `<=`, `>`, `>=`, the literal on either side), over the
 * listed columns only (GreptimeDB's `MultiDimPartitionRule`).
 *
 * Three uses, all here so that they agree on what a comparison means:
 * - CREATE checks a rule: no expression twice, none overlapping another, all together covering every
 *   value. Per column, the literals cut the line into points and the open gaps between them; every
 *   expression is evaluated at each cell of the grid (one rank per column), which decides both
 *   exactly (GreptimeDB's `PartitionChecker`, with its messages: `Checkpoint `a=10` is not covered`).
 * - A write splits its batch by region, one typed-array pass per comparison.
 * - A query reads only the regions its key values (`key-predicates.ts`) can reach.
 *
 * NULL sorts before every value (GreptimeDB's "null first"): `a < 10` holds for a NULL `a`, `a > 10`
 * and `a = 10` do not.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { checkTimestampRange, daysFromCivil, civilFromDays, formatTimestamp, parseTimestamp } from '../common/time/timestamp.js';
import type { KeyValues } from '../query/key-predicates.js';
import { tokenize, type Token } from '../sql/lexer.js';
import type { ColumnType } from '../types/region-metadata.js';
import { timeUnitOf } from '../types/time-unit.js';
import type { Vector, WriteBatch } from '../types/write-batch.js';
import type { ColumnSchema, TableInfo } from './table-info.js';

export type PartitionOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

/**
 * A literal of a rule, as the column's write vectors hold values: a number (floats, integers up to
 * 32 bits, dates as days), a bigint (64-bit integers, timestamps in the column's unit), a string or
 * a boolean.
 */
export type PartitionValue = number | bigint | string | boolean;

/** A parsed expression, the column always on the left (`10 > a` is `a < 10`). */
export type PartitionExpr =
  | { readonly kind: 'compare'; readonly column: string; readonly op: PartitionOp; readonly value: PartitionValue }
  | { readonly kind: 'and' | 'or'; readonly left: PartitionExpr; readonly right: PartitionExpr };

/** A partition column: its name and type, and where a write batch holds it. */
export interface PartitionColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly column_id: number;
  /** Its DEFAULT: what a row written without the column holds (undefined: NULL). */
  readonly default?: PartitionValue | 'now';
}

/** `Invalid partition rule: …` (InvalidArguments), GreptimeDB's wording. */
function invalidRule(reason: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid partition rule: ${reason}`);
}

/** `Invalid SQL, error: …` (InvalidSyntax): what GreptimeDB's parser says of a malformed rule. */
function invalidSql(msg: string): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL, error: ${msg}`);
}

// ---------------------------------------------------------------------------------------------
// Values

const INT_RANGE: Partial<Record<ColumnType, readonly [bigint, bigint]>> = {
  Int8: [-128n, 127n],
  Int16: [-32768n, 32767n],
  Int32: [-(2n ** 31n), 2n ** 31n - 1n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
  UInt8: [0n, 255n],
  UInt16: [0n, 65535n],
  UInt32: [0n, 2n ** 32n - 1n],
  UInt64: [0n, 2n ** 64n - 1n],
};

/** Whether values of `type` are bigints (64-bit integers, timestamps). */
function isBigType(type: ColumnType): boolean {
  return type === 'Int64' || type === 'UInt64' || timeUnitOf(type) !== undefined;
}

/** Whether values of `type` are numbers (floats, integers up to 32 bits, dates). */
function isNumberType(type: ColumnType): boolean {
  return !isBigType(type) && type !== 'String' && type !== 'Boolean' && type !== 'Binary';
}

/**
 * Strings in code point order (UTF-8 byte order, as Rust and DuckDB compare them); JavaScript's `<`
 * compares UTF-16 units, which puts U+E000–U+FFFF after the surrogates of higher code points.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Sign of a − b for two values of one column; NaN sorts after every number (Arrow's total order). */
export function compareValues(a: PartitionValue, b: PartitionValue): number {
  if (typeof a === 'string') return Math.sign(compareStrings(a, b as string));
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  if (typeof a === 'number' && (a !== a || b !== b)) return a !== a ? (b !== b ? 0 : 1) : -1;
  const y = b as number | bigint;
  return a < y ? -1 : a > y ? 1 : 0;
}

/** Which signs of (value − literal) each operator accepts: bit 0 for −1, bit 1 for 0, bit 2 for +1. */
const OP_SIGNS: Readonly<Record<PartitionOp, number>> = { '<': 0b001, '<=': 0b011, '=': 0b010, '<>': 0b101, '>': 0b100, '>=': 0b110 };

function holds(op: PartitionOp, sign: number): boolean {
  return ((OP_SIGNS[op] >> (sign + 1)) & 1) === 1;
}

/** The operator seen from the other side: `10 > a` is `a < 10`. */
const SWAPPED: Readonly<Record<PartitionOp, PartitionOp>> = { '<': '>', '<=': '>=', '=': '=', '<>': '<>', '>': '<', '>=': '<=' };

/** A float as Rust prints it (`1` for 1.0, `-0` for −0.0). */
function floatText(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

function dateText(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A value as GreptimeDB's `Value` displays it (`partition_description`, checkpoints): strings bare. */
function displayValue(v: PartitionValue, type: ColumnType): string {
  const unit = timeUnitOf(type);
  if (unit !== undefined) return formatTimestamp(v as bigint, unit);
  if (type === 'Date') return dateText(v as number);
  if (typeof v === 'number') return floatText(v);
  return String(v);
}

/** A value as a SQL literal of its column's type (read back by `parsePartitionExpr`). */
function sqlValue(v: PartitionValue, type: ColumnType): string {
  if (typeof v === 'string') return quoteLiteral(v);
  if (timeUnitOf(type) !== undefined || type === 'Date') return quoteLiteral(displayValue(v, type));
  return displayValue(v, type);
}

/** GreptimeDB's `Debug` of a `Value` (the messages of duplicate and mismatched rules). */
function debugValue(v: PartitionValue, type: ColumnType): string {
  const unit = timeUnitOf(type);
  if (unit !== undefined) {
    const units = { s: 'Second', ms: 'Millisecond', us: 'Microsecond', ns: 'Nanosecond' } as const;
    return `Timestamp(Timestamp { value: ${v}, unit: ${units[unit]} })`;
  }
  switch (type) {
    case 'String':
      return `String(StringBytes(${JSON.stringify(v)}))`;
    case 'Boolean':
      return `Boolean(${v})`;
    case 'Float32':
    case 'Float64': {
      const n = v as number;
      return `${type}(OrderedFloat(${Number.isInteger(n) && Math.abs(n) < 1e16 ? `${floatText(n)}.0` : floatText(n)}))`;
    }
    case 'Date':
      return `Date(Date(${v}))`;
    default:
      return `${type}(${v})`;
  }
}

/**
 * The value of a literal for a column of `type` (`negative`: a `-` before it), with GreptimeDB's
 * messages for one that does not fit (`common/sql/src/convert.rs`).
 */
function literalFor(column: string, type: ColumnType, t: Token, negative: boolean, zone: string): PartitionValue {
  const mismatch = (actual: string) => new TsdbError(StatusCode.InvalidArguments, `Column ${column} expect type: ${type}, actual: ${actual}`);
  if (t.kind === 'number') {
    const text = negative ? `-${t.value}` : t.value;
    const cannotParse = () => new TsdbError(StatusCode.InvalidSyntax, `Failed to parse value: Fail to parse number ${text}, invalid column type: ${type}`);
    const range = INT_RANGE[type];
    const unit = timeUnitOf(type);
    if (range !== undefined || unit !== undefined) {
      if (!/^-?\d+$/.test(text)) throw cannotParse();
      const v = BigInt(text);
      if (unit !== undefined) {
        checkTimestampRange(v, unit, column);
        return v;
      }
      if (v < range![0] || v > range![1]) throw new TsdbError(StatusCode.InvalidArguments, `Value ${text} is out of range for column type ${type}`);
      return isBigType(type) ? v : Number(v);
    }
    if (type === 'Float32') return Math.fround(Number(text));
    if (type === 'Float64') return Number(text);
    if (type === 'Boolean' && (text === '0' || text === '1')) return text === '1';
    throw cannotParse();
  }
  if (t.kind === 'string') {
    if (negative) throw new TsdbError(StatusCode.InvalidArguments, `Invalid unary operator - for value ${t.value}`);
    const unit = timeUnitOf(type);
    if (unit !== undefined) {
      const v = parseTimestamp(t.value, unit, zone);
      if (v === undefined) throw new TsdbError(StatusCode.InvalidSyntax, `Failed to parse value: Failed to parse ${t.value} to Timestamp value`);
      checkTimestampRange(v, unit, column, t.value);
      return v;
    }
    if (type === 'Date') {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t.value.trim());
      const days = m === null ? undefined : daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
      if (days === undefined || dateText(days) !== t.value.trim()) throw new TsdbError(StatusCode.InvalidSyntax, `Failed to parse value: Failed to parse ${t.value} to Date value`);
      return days;
    }
    if (type === 'String') return t.value;
    throw mismatch('String');
  }
  const word = t.kind === 'ident' ? t.value.toLowerCase() : '';
  if (word === 'true' || word === 'false') {
    if (negative) throw new TsdbError(StatusCode.InvalidArguments, `Invalid unary operator - for value ${word}`);
    if (type !== 'Boolean') throw mismatch('Boolean');
    return word === 'true';
  }
  if (word === 'null') throw invalidRule(`NULL is not a partition bound (column ${column})`);
  if (t.kind === 'hex') throw mismatch('Binary');
  throw invalidRule(`invalid partition expr: ${t.text} is not a literal`);
}

// ---------------------------------------------------------------------------------------------
// Parsing and printing

const KEYWORDS = new Set(['and', 'or', 'true', 'false', 'null', 'not']);

/** A column name as an expression writes it: bare when SQL reads it back unchanged, else quoted. */
function columnText(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !KEYWORDS.has(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The deepest parenthesis nesting of a rule (sqlparser's recursion limit). */
const MAX_NESTING = 50;

class ExprParser {
  private pos = 0;
  private depth = 0;
  private readonly toks: Token[];

  constructor(
    private readonly text: string,
    private readonly columns: ReadonlyMap<string, ColumnType>,
    private readonly zone: string,
  ) {
    this.toks = tokenize(text);
  }

  parse(): PartitionExpr {
    const first = this.peek();
    const expr = this.or();
    if (this.peek().kind !== 'eof') {
      const t = this.peek();
      if (t.kind === 'op' && !['(', ')', ','].includes(t.value)) throw invalidRule(`unsupported operator in partition expr ${t.value}`);
      throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: Expected end of partition expression, found: ${t.text}`);
    }
    // A rule is a comparison or a conjunction of them; a bare column or literal is not.
    if (expr === undefined) throw invalidSql(`Partition rule expr ${this.text.trim() || first.text} is not a binary expr`);
    return expr;
  }

  private peek(): Token {
    return this.toks[this.pos]!;
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.value.toLowerCase() === word;
  }

  private or(): PartitionExpr | undefined {
    let left = this.and();
    while (this.isWord('or')) {
      this.pos++;
      const right = this.and();
      left = this.join('or', left, right);
    }
    return left;
  }

  private and(): PartitionExpr | undefined {
    let left = this.primary();
    while (this.isWord('and')) {
      this.pos++;
      const right = this.primary();
      left = this.join('and', left, right);
    }
    return left;
  }

  private join(kind: 'and' | 'or', left: PartitionExpr | undefined, right: PartitionExpr | undefined): PartitionExpr {
    if (left === undefined || right === undefined) throw invalidRule(`invalid partition expr ${this.text.trim()}`);
    return { kind, left, right };
  }

  /** A parenthesized expression or a comparison; undefined for a lone operand (not a rule). */
  private primary(): PartitionExpr | undefined {
    const t = this.peek();
    if (t.kind === 'op' && t.value === '(') {
      this.pos++;
      if (++this.depth > MAX_NESTING) throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL syntax: sql parser error: recursion limit exceeded');
      const inner = this.or();
      this.depth--;
      const close = this.peek();
      if (close.kind !== 'op' || close.value !== ')') {
        throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: Expected ), found: ${close.text || 'EOF'}`);
      }
      this.pos++;
      if (inner === undefined) throw invalidRule(`invalid partition expr ${this.text.trim()}`);
      return inner;
    }
    const left = this.operand();
    const opTok = this.peek();
    const op = opTok.kind === 'op' ? opOf(opTok.value) : undefined;
    if (op === undefined) {
      if (opTok.kind === 'op' && !['(', ')', ','].includes(opTok.value)) throw invalidRule(`unsupported operator in partition expr ${opTok.value}`);
      if (opTok.kind === 'ident' && !['and', 'or'].includes(opTok.value.toLowerCase())) throw invalidRule(`unsupported operator in partition expr ${opTok.value.toUpperCase()}`);
      return undefined;
    }
    this.pos++;
    const right = this.operand();
    if (left.kind === 'column' && right.kind === 'literal') return { kind: 'compare', column: left.name, op, value: this.value(left.name, right) };
    if (left.kind === 'literal' && right.kind === 'column') return { kind: 'compare', column: right.name, op: SWAPPED[op], value: this.value(right.name, left) };
    throw invalidRule(`invalid partition expr ${this.text.trim()}`);
  }

  private value(column: string, lit: { token: Token; negative: boolean }): PartitionValue {
    return literalFor(column, this.columns.get(column)!, lit.token, lit.negative, this.zone);
  }

  /** A column of the rule or a literal (a `-` or `+` before a number or string is kept with it). */
  private operand(): { kind: 'column'; name: string } | { kind: 'literal'; token: Token; negative: boolean } {
    const t = this.peek();
    if (t.kind === 'op' && (t.value === '-' || t.value === '+')) {
      this.pos++;
      const inner = this.peek();
      if (inner.kind !== 'number' && inner.kind !== 'string' && inner.kind !== 'ident') throw invalidRule(`invalid partition expr ${this.text.trim()}`);
      this.pos++;
      return { kind: 'literal', token: inner, negative: t.value === '-' };
    }
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'hex') {
      this.pos++;
      return { kind: 'literal', token: t, negative: false };
    }
    if (t.kind === 'ident' && ['true', 'false', 'null'].includes(t.value.toLowerCase())) {
      this.pos++;
      return { kind: 'literal', token: t, negative: false };
    }
    if ((t.kind === 'ident' && !KEYWORDS.has(t.value.toLowerCase())) || t.kind === 'quoted_ident') {
      this.pos++;
      const name = t.kind === 'ident' ? t.value.toLowerCase() : t.value;
      if (!this.columns.has(name)) throw invalidSql(`Column "${name}" in rule expr is not referenced in PARTITION ON`);
      return { kind: 'column', name };
    }
    if (t.kind === 'eof') throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: Expected an expression, found: EOF`);
    throw invalidRule(`invalid partition expr ${this.text.trim()}`);
  }
}

function opOf(text: string): PartitionOp | undefined {
  switch (text) {
    case '=':
    case '<':
    case '<=':
    case '>':
    case '>=':
    case '<>':
      return text;
    case '!=':
      return '<>';
    default:
      return undefined;
  }
}

/**
 * Parses one expression of a rule over `columns` (the partition columns and their types); `zone`
 * reads timestamp strings without an offset.
 */
export function parsePartitionExpr(text: string, columns: ReadonlyMap<string, ColumnType>, zone = 'UTC'): PartitionExpr {
  return new ExprParser(text, columns, zone).parse();
}

/**
 * An expression as text: `sql` for SHOW CREATE TABLE and storage (literals quoted, read back the
 * same), `display` for `partition_description` (GreptimeDB's `Display`: strings bare). An OR inside
 * an AND keeps its parentheses.
 */
export function formatPartitionExpr(e: PartitionExpr, types: ReadonlyMap<string, ColumnType>, style: 'sql' | 'display' = 'sql'): string {
  if (e.kind === 'compare') {
    const type = types.get(e.column)!;
    const value = style === 'sql' ? sqlValue(e.value, type) : displayValue(e.value, type);
    return `${style === 'sql' ? columnText(e.column) : e.column} ${e.op} ${value}`;
  }
  const side = (c: PartitionExpr) => (e.kind === 'and' && c.kind === 'or' ? `(${formatPartitionExpr(c, types, style)})` : formatPartitionExpr(c, types, style));
  return `${side(e.left)} ${e.kind.toUpperCase()} ${side(e.right)}`;
}

const DEBUG_OPS: Readonly<Record<PartitionOp | 'and' | 'or', string>> = { '=': 'Eq', '<>': 'NotEq', '<': 'Lt', '<=': 'LtEq', '>': 'Gt', '>=': 'GtEq', and: 'And', or: 'Or' };

/** GreptimeDB's `Debug` of a `PartitionExpr`, which its messages print. */
function debugExpr(e: PartitionExpr, types: ReadonlyMap<string, ColumnType>): string {
  if (e.kind === 'compare') {
    return `PartitionExpr { lhs: Column(${JSON.stringify(e.column)}), op: ${DEBUG_OPS[e.op]}, rhs: Value(${debugValue(e.value, types.get(e.column)!)}) }`;
  }
  return `PartitionExpr { lhs: Expr(${debugExpr(e.left, types)}), op: ${DEBUG_OPS[e.kind]}, rhs: Expr(${debugExpr(e.right, types)}) }`;
}

/** GreptimeDB's `RestrictedOp` in declaration order (its derived `Ord`). */
const OP_ORDER: readonly PartitionOp[] = ['=', '<>', '<', '<=', '>', '>='];

/** The order GreptimeDB's derived `Ord` gives expressions (a column before a sub-expression, then by operator). */
function compareExprs(a: PartitionExpr, b: PartitionExpr): number {
  if (a.kind === 'compare' && b.kind === 'compare') {
    return compareStrings(a.column, b.column) || OP_ORDER.indexOf(a.op) - OP_ORDER.indexOf(b.op) || compareValues(a.value, b.value);
  }
  if (a.kind === 'compare') return -1;
  if (b.kind === 'compare') return 1;
  return compareExprs(a.left, b.left) || (a.kind === b.kind ? 0 : a.kind === 'and' ? -1 : 1) || compareExprs(a.right, b.right);
}

// ---------------------------------------------------------------------------------------------
// The rule

/** The comparisons of an expression, left to right. */
function leavesOf(e: PartitionExpr, out: Array<Extract<PartitionExpr, { kind: 'compare' }>> = []): Array<Extract<PartitionExpr, { kind: 'compare' }>> {
  if (e.kind === 'compare') out.push(e);
  else {
    leavesOf(e.left, out);
    leavesOf(e.right, out);
  }
  return out;
}

/** An expression's disjuncts, each a sorted list of its comparisons (as text); undefined beyond `cap`. */
function disjunctsOf(e: PartitionExpr, types: ReadonlyMap<string, ColumnType>, cap: number): string[][] | undefined {
  if (e.kind === 'compare') return [[formatPartitionExpr(e, types)]];
  const l = disjunctsOf(e.left, types, cap);
  const r = disjunctsOf(e.right, types, cap);
  if (l === undefined || r === undefined) return undefined;
  if (e.kind === 'or') return l.length + r.length > cap ? undefined : [...l, ...r];
  if (l.length * r.length > cap) return undefined;
  return l.flatMap((a) => r.map((b) => [...a, ...b]));
}

/** How many grid cells a check may evaluate (GreptimeDB evaluates its whole matrix; this bounds the work). */
const MAX_CHECK_CELLS = 4_000_000;
/** How many combinations of a query's key values pruning enumerates before it reads every region. */
const MAX_PRUNE_COMBINATIONS = 4096;

/** Rows of a batch for one region: `index` into the rule's expressions (and the table's `region_numbers`). */
export interface RegionRows {
  readonly index: number;
  readonly batch: WriteBatch;
}

export class PartitionRule {
  private readonly types: ReadonlyMap<string, ColumnType>;
  private readonly byName: ReadonlyMap<string, PartitionColumn>;

  /**
   * `columns`: the listed partition columns; `exprs[i]` the condition of region index i;
   * `defaultIndex`: the index of region number 0, where rows no expression matches go.
   */
  constructor(
    readonly columns: readonly PartitionColumn[],
    readonly exprs: readonly PartitionExpr[],
    readonly defaultIndex = 0,
  ) {
    this.types = new Map(columns.map((c) => [c.name, c.type]));
    this.byName = new Map(columns.map((c) => [c.name, c]));
  }

  /** Parses a rule's expressions; every referenced column must be one of `columns`. */
  static parse(columns: readonly PartitionColumn[], exprs: readonly string[], zone = 'UTC', defaultIndex = 0): PartitionRule {
    const types = new Map(columns.map((c) => [c.name, c.type]));
    return new PartitionRule(columns, exprs.map((e) => parsePartitionExpr(e, types, zone)), defaultIndex);
  }

  /** The number of regions the rule spreads rows over (one when it has no expression). */
  get regionCount(): number {
    return Math.max(1, this.exprs.length);
  }

  /** Each expression as SQL (what the table info stores and SHOW CREATE TABLE prints). */
  sqlTexts(): string[] {
    return this.exprs.map((e) => formatPartitionExpr(e, this.types, 'sql'));
  }

  /** Each expression as `information_schema.partitions.partition_description` shows it. */
  descriptions(): string[] {
    return this.exprs.map((e) => formatPartitionExpr(e, this.types, 'display'));
  }

  /** The expressions as GreptimeDB's messages list them: sorted, in its `Debug` form. */
  debugList(): string {
    return `[${[...this.exprs].sort(compareExprs).map((e) => debugExpr(e, this.types)).join(', ')}]`;
  }

  /** Whether two rules have the same expressions, in any order. */
  sameExprs(other: PartitionRule): boolean {
    const a = this.sqlTexts().sort();
    const b = other.sqlTexts().sort();
    return a.length === b.length && a.every((t, i) => t === b[i]);
  }

  /**
   * Refuses a rule with an expression twice (also as one disjunct of two expressions), or with a
   * value that no expression or more than one matches, naming the first such value in the grid's
   * order (columns by name, values ascending): `a=10`, `a<10`, `10<a<20`, `a>20`, joined by `, `.
   */
  check(): void {
    if (this.exprs.length === 0) return;
    this.checkDuplicates();
    // Per column (by name) its distinct literals in order; a cell is a rank: 2j+1 is literal j,
    // 2j the open gap below it, 2k the gap above the last.
    const names = [...new Set(this.exprs.flatMap((e) => leavesOf(e).map((l) => l.column)))].sort(compareStrings);
    const literals = names.map((n) => {
      const values = this.exprs.flatMap((e) => leavesOf(e).filter((l) => l.column === n).map((l) => l.value));
      values.sort(compareValues);
      return values.filter((v, i) => i === 0 || compareValues(v, values[i - 1]!) !== 0);
    });
    const sizes = literals.map((v) => 2 * v.length + 1);
    const cells = sizes.reduce((a, b) => a * b, 1);
    if (cells > MAX_CHECK_CELLS) throw invalidRule(`too many partition bounds to check (${cells} combinations of ${names.join(', ')})`);
    const position = new Map(names.map((n, i) => [n, i]));
    const rank = new Int32Array(names.length);
    // Each leaf compares the cell's rank with its literal's rank.
    const compiled = this.exprs.map((e) => compileRanked(e, position, literals));
    for (let cell = 0; cell < cells; cell++) {
      let rest = cell;
      for (let c = names.length - 1; c >= 0; c--) {
        rank[c] = rest % sizes[c]!;
        rest = Math.floor(rest / sizes[c]!);
      }
      let matched = 0;
      for (const f of compiled) if (f(rank)) matched++;
      if (matched === 1) continue;
      const point = names
        .map((n, c) => {
          const r = rank[c]!;
          const values = literals[c]!;
          const type = this.types.get(n)!;
          if (r % 2 === 1) return `${n}=${displayValue(values[(r - 1) / 2]!, type)}`;
          if (r === 0) return `${n}<${displayValue(values[0]!, type)}`;
          if (r === 2 * values.length) return `${n}>${displayValue(values[values.length - 1]!, type)}`;
          return `${displayValue(values[r / 2 - 1]!, type)}<${n}<${displayValue(values[r / 2]!, type)}`;
        })
        .join(', ');
      throw new TsdbError(StatusCode.InvalidArguments, `Checkpoint \`${point}\` is ${matched === 0 ? 'not covered' : 'overlapped'}`);
    }
  }

  private checkDuplicates(): void {
    const seen = new Map<string, number>();
    for (const [i, e] of this.exprs.entries()) {
      const disjuncts = disjunctsOf(e, this.types, 1024) ?? [[formatPartitionExpr(e, this.types)]];
      for (const d of disjuncts) {
        const key = [...new Set(d)].sort().join('\u0000');
        const first = seen.get(key);
        if (first !== undefined && first !== i) throw new TsdbError(StatusCode.InvalidArguments, `Duplicate expr: ${debugExpr(this.exprs[first]!, this.types)}`);
        seen.set(key, i);
      }
    }
  }

  /** The region index of each row of `batch` (first matching expression; none: the default region). */
  regionIndexes(batch: WriteBatch): Int32Array {
    const n = batch.rowCount;
    const out = new Int32Array(n).fill(-1);
    if (this.exprs.length === 0) return out.fill(this.defaultIndex);
    let left = n;
    for (const [i, e] of this.exprs.entries()) {
      const mask = this.mask(e, batch);
      for (let r = 0; r < n; r++) {
        if (out[r]! < 0 && mask[r] === 1) {
          out[r] = i;
          left--;
        }
      }
      if (left === 0) return out;
    }
    for (let r = 0; r < n; r++) if (out[r]! < 0) out[r] = this.defaultIndex;
    return out;
  }

  /** Whether `batch` holds every partition column (a delete without one cannot be routed by value). */
  covers(batch: WriteBatch): boolean {
    return this.exprs.every((e) => leavesOf(e).every((l) => batch.columns.has(this.byName.get(l.column)!.column_id)));
  }

  /**
   * Splits a batch by region: one part per region that gets rows, the batch itself when all go to
   * one. A partition column the batch lacks holds its default (or NULL) in every row.
   */
  split(batch: WriteBatch): RegionRows[] {
    if (this.exprs.length === 0 || batch.rowCount === 0) return [{ index: this.defaultIndex, batch }];
    const indexes = this.regionIndexes(batch);
    const counts = new Int32Array(this.exprs.length);
    for (let r = 0; r < indexes.length; r++) counts[indexes[r]!]!++;
    const used: number[] = [];
    counts.forEach((c, i) => c > 0 && used.push(i));
    if (used.length === 1) return [{ index: used[0]!, batch }];
    const rows = used.map((i) => new Uint32Array(counts[i]!));
    const fill = new Int32Array(this.exprs.length);
    const slot = new Int32Array(this.exprs.length).fill(-1);
    used.forEach((i, k) => (slot[i] = k));
    for (let r = 0; r < indexes.length; r++) {
      const k = slot[indexes[r]!]!;
      rows[k]![fill[k]!++] = r;
    }
    return used.map((index, k) => {
      const take = rows[k]!;
      const columns = new Map<number, Vector>();
      for (const [id, v] of batch.columns) columns.set(id, gather(v, take));
      return { index, batch: { op: batch.op, rowCount: take.length, columns } };
    });
  }

  /** The comparison mask of `e` over the rows of `batch` (1: true). */
  private mask(e: PartitionExpr, batch: WriteBatch): Uint8Array {
    if (e.kind !== 'compare') {
      const l = this.mask(e.left, batch);
      const r = this.mask(e.right, batch);
      if (e.kind === 'and') for (let i = 0; i < l.length; i++) l[i]! &= r[i]!;
      else for (let i = 0; i < l.length; i++) l[i]! |= r[i]!;
      return l;
    }
    const column = this.byName.get(e.column)!;
    const out = new Uint8Array(batch.rowCount);
    const v = batch.columns.get(column.column_id);
    if (v === undefined) return out.fill(compareConstant(column, e.op, e.value) ? 1 : 0);
    compareVector(v, e.op, e.value, out, column.type === 'Float32');
    return out;
  }

  /**
   * The indexes of the regions that may hold rows with the primary key values `keys` allows (every
   * region when it allows any). A column of the rule the query does not constrain may hold anything,
   * NULL too; the values of a constrained one are never NULL.
   */
  prune(keys: KeyValues | undefined): number[] {
    const all = Array.from({ length: this.regionCount }, (_, i) => i);
    if (this.exprs.length <= 1 || keys === undefined) return all;
    const constrained: Array<{ name: string; values: PartitionValue[] }> = [];
    let combinations = 1;
    for (const c of this.columns) {
      const given = keys.get(c.name);
      if (given === undefined || given.length === 0) continue;
      const values = keyValuesFor(c.type, given);
      if (values === undefined) continue;
      constrained.push({ name: c.name, values });
      combinations *= values.length;
    }
    if (constrained.length === 0 || combinations > MAX_PRUNE_COMBINATIONS) return all;
    const keep = new Uint8Array(this.exprs.length);
    const at = new Map<string, PartitionValue>();
    for (let k = 0; k < combinations; k++) {
      let rest = k;
      for (const c of constrained) {
        at.set(c.name, c.values[rest % c.values.length]!);
        rest = Math.floor(rest / c.values.length);
      }
      let certain = false;
      for (const [i, e] of this.exprs.entries()) {
        const t = evaluate3(e, at);
        if (t === FALSE) continue;
        keep[i] = 1;
        if (t === TRUE) {
          certain = true;
          break;
        }
      }
      if (!certain) keep[this.defaultIndex] = 1;
    }
    return all.filter((i) => keep[i] === 1);
  }
}

const FALSE = 0;
const TRUE = 1;
const UNKNOWN = 2;

/** An expression's truth for rows whose constrained columns hold `at` (others: UNKNOWN). */
function evaluate3(e: PartitionExpr, at: ReadonlyMap<string, PartitionValue>): number {
  if (e.kind === 'compare') {
    const v = at.get(e.column);
    if (v === undefined) return UNKNOWN;
    return holds(e.op, compareValues(v, e.value)) ? TRUE : FALSE;
  }
  const l = evaluate3(e.left, at);
  if (e.kind === 'and' && l === FALSE) return FALSE;
  if (e.kind === 'or' && l === TRUE) return TRUE;
  const r = evaluate3(e.right, at);
  if (e.kind === 'and') return r === FALSE ? FALSE : l === TRUE && r === TRUE ? TRUE : UNKNOWN;
  return r === TRUE ? TRUE : l === FALSE && r === FALSE ? FALSE : UNKNOWN;
}

/**
 * A query's key values as values of a column of `type`; undefined when one cannot be compared
 * without a cast (a string for a number column, an integer for a string column, timestamps, dates,
 * booleans): that column is then left unconstrained.
 */
function keyValuesFor(type: ColumnType, given: readonly (string | bigint)[]): PartitionValue[] | undefined {
  if (type === 'String') return given.every((v) => typeof v === 'string') ? [...given] : undefined;
  if (!given.every((v) => typeof v === 'bigint')) return undefined;
  if (type === 'Int64' || type === 'UInt64') return [...given];
  if (isNumberType(type) && type !== 'Date') return given.map((v) => Number(v));
  return undefined;
}

/** A check-grid evaluator of `e`: comparisons read the cell's rank of their column. */
function compileRanked(e: PartitionExpr, position: ReadonlyMap<string, number>, literals: ReadonlyArray<readonly PartitionValue[]>): (rank: Int32Array) => boolean {
  if (e.kind === 'compare') {
    const c = position.get(e.column)!;
    const lit = 2 * literals[c]!.findIndex((v) => compareValues(v, e.value) === 0) + 1;
    const op = e.op;
    return (rank) => holds(op, Math.sign(rank[c]! - lit));
  }
  const l = compileRanked(e.left, position, literals);
  const r = compileRanked(e.right, position, literals);
  return e.kind === 'and' ? (rank) => l(rank) && r(rank) : (rank) => l(rank) || r(rank);
}

/** A comparison of a column a batch lacks: its default against the literal (NULL: before every value). */
function compareConstant(column: PartitionColumn, op: PartitionOp, lit: PartitionValue): boolean {
  let d = column.default;
  if (d === 'now') {
    const unit = timeUnitOf(column.type);
    d = unit === undefined ? undefined : (BigInt(Date.now()) * { s: 1n, ms: 1000n, us: 1_000_000n, ns: 1_000_000_000n }[unit]) / 1000n;
  }
  if (d === undefined) return op === '<' || op === '<=';
  return holds(op, compareValues(d, lit));
}

/**
 * `out[i] = (v[i] op lit)` for every row: NULL before every value (true for `<`, `<=`), NaN after
 * every number. The literal is taken in the vector's kind; `f32`: the column stores 32-bit floats,
 * so a row's value is compared as it will be stored.
 */
function compareVector(v: Vector, op: PartitionOp, lit: PartitionValue, out: Uint8Array, f32 = false): void {
  const signs = OP_SIGNS[op];
  const onNull = op === '<' || op === '<=' ? 1 : 0;
  const n = out.length;
  switch (v.type) {
    case 'float64': {
      const l = Number(lit);
      const d = v.data;
      const valid = v.valid;
      for (let i = 0; i < n; i++) {
        if (valid !== undefined && valid[i] === 0) {
          out[i] = onNull;
          continue;
        }
        const x = f32 ? Math.fround(d[i]!) : d[i]!;
        const s = x < l ? 0 : x > l || x !== x ? 2 : 1;
        out[i] = (signs >> s) & 1;
      }
      return;
    }
    case 'int64':
    case 'uint64': {
      const l = typeof lit === 'bigint' ? lit : BigInt(Math.trunc(Number(lit)));
      const d = v.data;
      const valid = v.valid;
      for (let i = 0; i < n; i++) {
        if (valid !== undefined && valid[i] === 0) {
          out[i] = onNull;
          continue;
        }
        const x = d[i]!;
        const s = x < l ? 0 : x > l ? 2 : 1;
        out[i] = (signs >> s) & 1;
      }
      return;
    }
    case 'bool': {
      const l = lit === true || lit === 1 || lit === 1n ? 1 : 0;
      const d = v.data;
      const valid = v.valid;
      for (let i = 0; i < n; i++) {
        if (valid !== undefined && valid[i] === 0) {
          out[i] = onNull;
          continue;
        }
        const x = d[i]! === 0 ? 0 : 1;
        out[i] = (signs >> (x - l + 1)) & 1;
      }
      return;
    }
    case 'string': {
      const l = String(lit);
      const d = v.data;
      for (let i = 0; i < n; i++) {
        const x = d[i];
        if (x === null || x === undefined) {
          out[i] = onNull;
          continue;
        }
        out[i] = (signs >> (compareStrings(x, l) < 0 ? 0 : x === l ? 1 : 2)) & 1;
      }
      return;
    }
    case 'binary':
      throw new TsdbError(StatusCode.Unexpected, 'a binary column cannot partition a table');
  }
}

/** The rows `take` of a vector. */
function gather(v: Vector, take: Uint32Array): Vector {
  const k = take.length;
  const valid = (src: Uint8Array | undefined): Uint8Array | undefined => {
    if (src === undefined) return undefined;
    const out = new Uint8Array(k);
    for (let i = 0; i < k; i++) out[i] = src[take[i]!]!;
    return out;
  };
  switch (v.type) {
    case 'float64': {
      const out = new Float64Array(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      const m = valid(v.valid);
      return m === undefined ? { type: 'float64', data: out } : { type: 'float64', data: out, valid: m };
    }
    case 'int64': {
      const out = new BigInt64Array(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      const m = valid(v.valid);
      return m === undefined ? { type: 'int64', data: out } : { type: 'int64', data: out, valid: m };
    }
    case 'uint64': {
      const out = new BigUint64Array(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      const m = valid(v.valid);
      return m === undefined ? { type: 'uint64', data: out } : { type: 'uint64', data: out, valid: m };
    }
    case 'bool': {
      const out = new Uint8Array(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      const m = valid(v.valid);
      return m === undefined ? { type: 'bool', data: out } : { type: 'bool', data: out, valid: m };
    }
    case 'string': {
      const out = new Array<string | null>(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      return { type: 'string', data: out };
    }
    case 'binary': {
      const out = new Array<Uint8Array | null>(k);
      for (let i = 0; i < k; i++) out[i] = v.data[take[i]!]!;
      return { type: 'binary', data: out };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rules of tables

/** A column's DEFAULT as a partition value (what a row written without it holds). */
function defaultOf(c: ColumnSchema): PartitionValue | 'now' | undefined {
  const d = c.default;
  if (d === undefined) return undefined;
  if (d.kind === 'current_timestamp') return 'now';
  const v = d.value;
  if (v === null) return undefined;
  if (isBigType(c.data_type)) return BigInt(v as number | string);
  if (c.data_type === 'String') return String(v);
  if (c.data_type === 'Boolean') return v === true || v === 'true';
  if (isNumberType(c.data_type)) return Number(v);
  return undefined;
}

/** The partition columns of a table, with their types, ids and defaults. */
function partitionColumnsOf(info: Pick<TableInfo, 'columns' | 'name'>, names: readonly string[]): PartitionColumn[] {
  return names.map((name) => {
    const c = info.columns.find((x) => x.name === name);
    if (c === undefined) throw invalidSql(`Partition column "${name}" not defined`);
    const d = defaultOf(c);
    return d === undefined ? { name, type: c.data_type, column_id: c.column_id } : { name, type: c.data_type, column_id: c.column_id, default: d };
  });
}

/** Parses `PARTITION ON COLUMNS (columns) (exprs)` over a table's columns (not checked whole). */
export function parsePartition(
  partition: { readonly columns: readonly string[]; readonly exprs: readonly string[] },
  info: Pick<TableInfo, 'columns' | 'name'>,
  zone = 'UTC',
): PartitionRule {
  return PartitionRule.parse(partitionColumnsOf(info, partition.columns), partition.exprs, zone);
}

/**
 * Checks `PARTITION ON COLUMNS (columns) (exprs)` of a new table with columns `columns`: the columns
 * exist (any column may partition, GreptimeDB asks for no primary key), appear once and are not
 * binary; each expression parses over them with literals of their types; the rule is whole
 * (`PartitionRule.check`). Returns the columns and the expressions in their stored form.
 */
export function checkedPartition(
  partition: { readonly columns: readonly string[]; readonly exprs: readonly string[] },
  info: Pick<TableInfo, 'columns' | 'name'>,
  zone = 'UTC',
): { columns: string[]; exprs: string[] } {
  const columns = partitionColumnsOf(info, partition.columns);
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c.name)) throw invalidRule(`duplicate partition column '${c.name}'`);
    seen.add(c.name);
    if (c.type === 'Binary') throw new TsdbError(StatusCode.Unsupported, `Not supported: partitioning by the binary column ${c.name}`);
  }
  const rule = PartitionRule.parse(columns, partition.exprs, zone);
  rule.check();
  return { columns: [...partition.columns], exprs: rule.sqlTexts() };
}

const RULES = new WeakMap<TableInfo, PartitionRule | null>();

/**
 * The partition rule of a table with regions of its own; undefined for a table with one region.
 * Kept per table info (the catalog hands out one object until the table changes).
 */
export function partitionRuleOf(info: TableInfo): PartitionRule | undefined {
  const had = RULES.get(info);
  if (had !== undefined) return had ?? undefined;
  let rule: PartitionRule | null = null;
  const p = info.partition;
  if (p !== undefined && p.exprs.length > 0) {
    if (p.exprs.length !== info.region_numbers.length) {
      throw new TsdbError(StatusCode.Unexpected, `table ${info.name} has ${p.exprs.length} partition expressions for ${info.region_numbers.length} regions`);
    }
    const zero = info.region_numbers.indexOf(0);
    rule = PartitionRule.parse(partitionColumnsOf(info, p.columns), p.exprs, 'UTC', zero < 0 ? 0 : zero);
  }
  RULES.set(info, rule);
  return rule ?? undefined;
}
