/**
 * Timestamp columns in DuckDB's parse tree of a query:
 * - integer literals compared with a timestamp column (`ts >= 1000`, `ts BETWEEN 0 AND 10`,
 *   `ts IN (1, 2)`) are epochs in the column's unit, as in GreptimeDB; DuckDB refuses to compare
 *   them, so they become timestamps of that unit;
 * - any other expression compared with a timestamp column (`ts > now() - INTERVAL '5 minutes'`,
 *   `ts < to_timestamp(…)`, a subquery) is cast to the column's type: DuckDB refuses to compare a
 *   TIMESTAMP_S/_MS/_NS column with a TIMESTAMP WITH TIME ZONE, and the column stays bare, so that
 *   DuckDB still pushes the comparison into the Parquet scan;
 * - the time range a query's WHERE puts on a table's time index (bounds joined by AND: literals, and
 *   constant expressions the caller evaluated, `foldableBounds`) goes to the table's scan, so that
 *   SST files outside it are never opened.
 */
import { convertTime, parseTimestamp } from '../common/time/timestamp.js';
import type { TimeUnit } from '../types/time-unit.js';
import { integerOf } from './sql-json.js';
import { castNode, castTypeOf, columnNamesOf, functionNode, isNode, stringOf, type FoldedListOf, type Json, type Node } from './sql-tree.js';
import { whereOfTable, type BaseTableNode } from './table-refs.js';

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'INTEGER_LITERAL']);

/** The integer of an integer constant node, else undefined. */
function integerConstant(n: Json | undefined): bigint | undefined {
  if (!isNode(n) || n['class'] !== 'CONSTANT') return undefined;
  const value = n['value'] as Node;
  const type = (value['type'] as Node)['id'] as string;
  if (!INTEGER_TYPES.has(type) || value['is_null'] === true) return undefined;
  // Integers beyond 2^53 are lossless-json numbers (sql-json.ts).
  return integerOf(value['value']);
}

/** The string of a string constant node (or of a cast of one), else undefined. */
function stringConstant(n: Json | undefined): string | undefined {
  if (isNode(n) && n['class'] === 'CAST') return stringConstant(n['child']);
  return stringOf(n);
}

const fn = (name: string, child: Json): Node => functionNode(name, [child]);
const cast = castNode;

/** A timestamp of `unit` from an integer constant node. */
function timestampOf(constant: Node, unit: TimeUnit): Node {
  switch (unit) {
    case 's':
      return cast(fn('to_timestamp', constant), 'TIMESTAMP_S');
    case 'ms':
      return cast(fn('epoch_ms', constant), 'TIMESTAMP_MS');
    case 'us':
      return fn('make_timestamp', constant);
    case 'ns':
      return fn('make_timestamp_ns', constant);
  }
}

/** `timestampOf` as SQL text, of an integer expression's text (how DuckDB writes the node back). */
export function epochSql(integer: string, unit: TimeUnit): string {
  switch (unit) {
    case 's':
      return `CAST(to_timestamp(${integer}) AS TIMESTAMP_S)`;
    case 'ms':
      return `CAST(epoch_ms(${integer}) AS TIMESTAMP_MS)`;
    case 'us':
      return `make_timestamp(${integer})`;
    case 'ns':
      return `make_timestamp_ns(${integer})`;
  }
}

/** DuckDB's timestamp types, but the one with a time zone, and DATE: what a timestamp column compares with as it is. */
const PLAIN_TIME_TYPES = new Set(['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'DATE']);

/**
 * Whether an expression compared with a timestamp column is cast to the column's type: anything but
 * a constant (DuckDB casts it), a column, or a cast to a timestamp type without a time zone.
 */
function needsCast(n: Json | undefined): boolean {
  if (!isNode(n) || n['class'] === 'CONSTANT' || n['class'] === 'COLUMN_REF') return false;
  const type = castTypeOf(n);
  return type === undefined || !PLAIN_TIME_TYPES.has(type);
}

/** DuckDB's timestamp type of each unit. */
export const TIME_TYPES: Record<TimeUnit, string> = { s: 'TIMESTAMP_S', ms: 'TIMESTAMP_MS', us: 'TIMESTAMP', ns: 'TIMESTAMP_NS' };

/** Functions whose result keeps the unit of their timestamp argument in GreptimeDB (DuckDB gives microseconds). */
const UNIT_KEEPING = new Set(['date_bin', 'date_trunc', 'time_bucket']);

/**
 * Rewrites integer literals compared with timestamp columns (`columns`: column name → unit of
 * the tables the query reads) into timestamps, and casts `date_bin` / `date_trunc` of them back to
 * their unit, in place; a folded literal list (`foldedList`) is told its integers are epochs.
 * Returns the casts that are unaliased select items: the caller names them as DuckDB named the
 * expression before the cast.
 */
export function rewriteTimeLiterals(tree: unknown, columns: ReadonlyMap<string, TimeUnit>, foldedList?: FoldedListOf): Array<{ node: { [k: string]: unknown }; original: unknown }> {
  const unnamed: Array<{ node: Node; original: Node }> = [];
  const wrappedFunctions = new WeakSet<Node>();
  const unitOf = (n: Json | undefined) => {
    const names = columnNamesOf(n);
    return names === undefined ? undefined : columns.get(names[names.length - 1]!);
  };
  const fix = (parent: Node | Json[], key: string | number, unit: TimeUnit) => {
    const c = (parent as Record<string | number, Json>)[key];
    const folded = foldedList?.(c);
    if (folded !== undefined) return folded.integersAreEpochs(unit);
    if (integerConstant(c) !== undefined) (parent as Record<string | number, Json>)[key] = timestampOf(c as Node, unit);
    else if (needsCast(c)) (parent as Record<string | number, Json>)[key] = cast(c!, TIME_TYPES[unit]);
  };
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (!isNode(n)) return;
    if (n['class'] === 'COMPARISON') {
      const l = unitOf(n['left']);
      const r = unitOf(n['right']);
      if (l !== undefined) fix(n, 'right', l);
      if (r !== undefined) fix(n, 'left', r);
    } else if (n['class'] === 'BETWEEN') {
      const u = unitOf(n['input']);
      if (u !== undefined) {
        fix(n, 'lower', u);
        fix(n, 'upper', u);
      }
    } else if (n['class'] === 'OPERATOR' && (n['type'] === 'COMPARE_IN' || n['type'] === 'COMPARE_NOT_IN')) {
      const children = n['children'] as Json[];
      const u = unitOf(children[0]);
      if (u !== undefined) for (let i = 1; i < children.length; i++) fix(children, i, u);
    }
    for (const k in n) {
      const v = n[k]!;
      if (typeof v !== 'object' || v === null) continue;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) v[i] = keepUnit(v[i]!, k === 'select_list');
        for (const x of v) walk(x);
      } else {
        const kept = keepUnit(v, false);
        if (kept !== v) n[k] = kept;
        walk(kept);
      }
    }
  };
  /** date_bin(…, ts) / date_trunc(…, ts) keep ts's unit, as in GreptimeDB: wrapped in a cast to it. */
  const keepUnit = (x: Json, selectItem: boolean): Json => {
    if (!isNode(x) || x['class'] !== 'FUNCTION' || !UNIT_KEEPING.has(String(x['function_name']).toLowerCase()) || wrappedFunctions.has(x)) return x;
    const u = (x['children'] as Json[]).map((a) => unitOf(a)).find((y) => y !== undefined);
    if (u === undefined || u === 'us') return x;
    wrappedFunctions.add(x);
    const wrapped = cast(x, TIME_TYPES[u]);
    wrapped['alias'] = x['alias'] as string;
    x['alias'] = '';
    if (wrapped['alias'] === '' && selectItem) unnamed.push({ node: wrapped, original: x });
    return wrapped;
  };
  walk(tree as Json);
  return unnamed;
}

/** An inclusive range on a time index, in its unit. */
export interface TimeRange {
  start?: bigint;
  end?: bigint;
}

/** Comparison types as seen from the column's side (`X < ts` is `ts > X`). */
const FLIPPED: Record<string, string> = {
  COMPARE_LESSTHAN: 'COMPARE_GREATERTHAN',
  COMPARE_GREATERTHAN: 'COMPARE_LESSTHAN',
  COMPARE_LESSTHANOREQUALTO: 'COMPARE_GREATERTHANOREQUALTO',
  COMPARE_GREATERTHANOREQUALTO: 'COMPARE_LESSTHANOREQUALTO',
};

/**
 * The terms joined by AND in the WHERE clause of the SELECT that reads `table` directly (`SELECT …
 * FROM table WHERE …`, as the query, a subquery or a CTE) that compare its column `column` with
 * something else: `[comparison type as seen from the column, the other side]` (a BETWEEN gives two).
 * Undefined when the table is read some other way (a join) or has no WHERE.
 */
function columnTerms(tree: unknown, table: BaseTableNode, column: string): Array<[string, Json]> | undefined {
  // The SELECT that reads the table directly: its WHERE filters every row the table gives, so its
  // bounds on the column may prune the table's scan.
  const found = whereOfTable(tree, table);
  if (found === undefined) return undefined;
  const where = found.where as Node;
  const names = found.names;
  const isColumn = (n: Json | undefined) => {
    const c = columnNamesOf(n);
    if (c === undefined || c[c.length - 1] !== column) return false;
    return c.length === 1 || (c.length === 2 && names.has(c[0]!));
  };
  const out: Array<[string, Json]> = [];
  const terms = where['class'] === 'CONJUNCTION' && where['type'] === 'CONJUNCTION_AND' ? (where['children'] as Json[]) : [where];
  for (const t of terms) {
    if (!isNode(t)) continue;
    if (t['class'] === 'BETWEEN' && isColumn(t['input'])) {
      out.push(['COMPARE_GREATERTHANOREQUALTO', t['lower']!], ['COMPARE_LESSTHANOREQUALTO', t['upper']!]);
    } else if (t['class'] === 'COMPARISON') {
      if (isColumn(t['left'])) out.push([t['type'] as string, t['right']!]);
      else if (isColumn(t['right'])) out.push([FLIPPED[t['type'] as string] ?? (t['type'] as string), t['left']!]);
    }
  }
  return out;
}

/** Functions whose value changes from call to call: an expression calling one is not a constant. */
const VOLATILE = new Set(['random', 'uuid', 'gen_random_uuid', 'uuidv4', 'uuidv7', 'nextval', 'currval', 'setseed']);

/** Whether an expression has the same value wherever it is evaluated: no column, subquery, parameter or volatile call. */
function isConstantExpression(n: Json): boolean {
  if (Array.isArray(n)) return n.every(isConstantExpression);
  if (!isNode(n)) return true;
  const c = n['class'];
  if (c === 'COLUMN_REF' || c === 'SUBQUERY' || c === 'PARAMETER' || c === 'STAR' || c === 'WINDOW' || c === 'LAMBDA_REF') return false;
  if (c === 'FUNCTION' && VOLATILE.has(String(n['function_name']).toLowerCase())) return false;
  return Object.values(n).every(isConstantExpression);
}

/** The epoch functions `timestampOf` writes, and the unit of their integer, by the cast around them (if any). */
const EPOCH_FUNCTIONS: Record<string, { cast: string | undefined; unit: TimeUnit }> = {
  to_timestamp: { cast: 'TIMESTAMP_S', unit: 's' },
  epoch_ms: { cast: 'TIMESTAMP_MS', unit: 'ms' },
  make_timestamp: { cast: undefined, unit: 'us' },
  make_timestamp_ns: { cast: undefined, unit: 'ns' },
};

/** A literal bound in `unit`: an integer epoch (exact when no finer than `unit`) or a timestamp string read as UTC, floored (inexact). */
function literalBound(n: Json | undefined, unit: TimeUnit): { value: bigint; exact: boolean } | undefined {
  const castType = castTypeOf(n);
  const f = castType !== undefined && isNode(n) ? n['child'] : n;
  const epoch = isNode(f) && f['class'] === 'FUNCTION' ? EPOCH_FUNCTIONS[String(f['function_name'])] : undefined;
  if (epoch !== undefined && epoch.cast === castType && (f as Node)['schema'] === '' && ((f as Node)['children'] as Json[]).length === 1) {
    const v = integerConstant(((f as Node)['children'] as Json[])[0]);
    if (v === undefined) return undefined;
    const value = convertTime(v, epoch.unit, unit);
    return { value, exact: convertTime(value, unit, epoch.unit) === v };
  }
  const s = stringConstant(n);
  const v = s === undefined ? undefined : parseTimestamp(s, unit, 'UTC');
  return v === undefined ? undefined : { value: v, exact: false };
}

/**
 * The other sides of `columnTerms` that are no literal but a constant expression (`now() - INTERVAL
 * '5 minutes'`, cast to the column's type by `rewriteTimeLiterals`): the caller evaluates them once
 * and gives their values to `timeRangeOf`.
 */
export function foldableBounds(tree: unknown, table: BaseTableNode, column: string, unit: TimeUnit): Node[] {
  return (columnTerms(tree, table, column) ?? []).map(([, other]) => other).filter((o): o is Node => isNode(o) && literalBound(o, unit) === undefined && isConstantExpression(o));
}

/**
 * The time range that the WHERE clause of the SELECT reading `table` directly puts on the table's
 * time index `column` (unit `unit`): its terms joined by AND that compare the column with a literal,
 * or with a constant expression whose value (nanoseconds since the epoch) `folded` holds. Undefined
 * when the table is read some other way (a join) or nothing usable is said. Only bounds that can
 * only narrow correctly are taken; the caller pushes them only for a table read once.
 */
export function timeRangeOf(tree: unknown, table: BaseTableNode, column: string, unit: TimeUnit, folded?: ReadonlyMap<object, bigint>): TimeRange | undefined {
  const terms = columnTerms(tree, table, column);
  if (terms === undefined) return undefined;
  const bound = (n: Json): { value: bigint; exact: boolean } | undefined => {
    const ns = isNode(n) ? folded?.get(n) : undefined;
    // A folded value is floored to the unit: inexact, as a string.
    return ns !== undefined ? { value: convertTime(ns, 'ns', unit), exact: false } : literalBound(n, unit);
  };
  const range: TimeRange = {};
  const narrow = (start?: bigint, end?: bigint) => {
    if (start !== undefined && (range.start === undefined || start > range.start)) range.start = start;
    if (end !== undefined && (range.end === undefined || end < range.end)) range.end = end;
  };
  for (const [type, other] of terms) {
    const b = bound(other);
    if (b === undefined) continue;
    switch (type) {
      case 'COMPARE_EQUAL':
        narrow(b.value, b.value);
        break;
      case 'COMPARE_GREATERTHAN':
        narrow(b.value + 1n);
        break;
      case 'COMPARE_GREATERTHANOREQUALTO':
        narrow(b.value);
        break;
      case 'COMPARE_LESSTHAN':
        // The scan range only prunes (DuckDB still applies the WHERE): a bound that may have lost
        // a fraction of the unit must not exclude the instant it was floored to.
        narrow(undefined, b.exact ? b.value - 1n : b.value);
        break;
      case 'COMPARE_LESSTHANOREQUALTO':
        narrow(undefined, b.value);
        break;
    }
  }
  return range.start === undefined && range.end === undefined ? undefined : range;
}

/**
 * How the WHERE term `term` bounds the time index (`isColumn` tells its references; unit `unit`)
 * in the range `timeRangeOf` takes from it: `exact` when that range keeps exactly the rows the term
 * keeps (a scan of the range then holds no row the term drops), `loose` when the term names the
 * column in a comparison the range does not hold exactly (a bound floored to the unit, `!=`, a
 * non-constant side), undefined when it is no comparison of the column. `folded` as for
 * `timeRangeOf`.
 */
export function timeBoundOf(term: Json, isColumn: (n: Json | undefined) => boolean, unit: TimeUnit, folded?: ReadonlyMap<object, bigint>): 'exact' | 'loose' | undefined {
  if (!isNode(term)) return undefined;
  let bounds: Array<[string, Json | undefined]>;
  if (term['class'] === 'BETWEEN' && isColumn(term['input'])) {
    bounds = [
      ['COMPARE_GREATERTHANOREQUALTO', term['lower']],
      ['COMPARE_LESSTHANOREQUALTO', term['upper']],
    ];
  } else if (term['class'] === 'COMPARISON' && isColumn(term['left'])) {
    bounds = [[term['type'] as string, term['right']]];
  } else if (term['class'] === 'COMPARISON' && isColumn(term['right'])) {
    bounds = [[FLIPPED[term['type'] as string] ?? (term['type'] as string), term['left']]];
  } else return undefined;
  for (const [type, other] of bounds) {
    // `instant`: the bound is the instant the term names, not one floored to the unit; `taken`:
    // `timeRangeOf` took it so (it ends `ts < x` at x - 1 only then).
    let instant: boolean;
    let taken = false;
    const ns = isNode(other) ? folded?.get(other) : undefined;
    if (ns !== undefined) instant = convertTime(convertTime(ns, 'ns', unit), unit, 'ns') === ns;
    else {
      const b = literalBound(other, unit);
      if (b === undefined) return 'loose';
      taken = b.exact;
      const s = b.exact ? undefined : stringConstant(other);
      instant = b.exact || (s !== undefined && parseTimestamp(s, 'ns', 'UTC') === convertTime(b.value, unit, 'ns'));
    }
    // `ts > x` (from x floored + 1) and `ts <= x` (to x floored) hold exactly whatever x is.
    if (type === 'COMPARE_GREATERTHAN' || type === 'COMPARE_LESSTHANOREQUALTO') continue;
    if ((type === 'COMPARE_GREATERTHANOREQUALTO' || type === 'COMPARE_EQUAL') && instant) continue;
    if (type === 'COMPARE_LESSTHAN' && taken) continue;
    return 'loose';
  }
  return 'exact';
}
