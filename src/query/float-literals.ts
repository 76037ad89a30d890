/**
 * Decimal literals as DataFusion types them. GreptimeDB's SQL reads a number written with a point
 * (`1.5`, `0.01`) as a Float64; DuckDB's as a DECIMAL of its digits, which shows: `SELECT 1.5 + 1`
 * is Decimal(12, 1), written as the string "2.5" in HTTP JSON, `int_col * 0.5` a DECIMAL,
 * `round(1.5)` a DECIMAL without a point.
 *
 * Likewise an integer literal beyond BIGINT is a UInt64 (up to 2^64 - 1) or a Float64 in DataFusion,
 * a HUGEINT in DuckDB.
 *
 * Each DECIMAL constant of the user's query becomes a DOUBLE cast of its text (the double nearest
 * the literal as written: DataFusion's parse of it; DuckDB writes a DOUBLE constant back as text it
 * would parse as a DECIMAL again).
 * A decimal literal cast to a DECIMAL type (`CAST(0.1 AS DECIMAL(38, 30))`, `1.25::DECIMAL(3, 2)`)
 * keeps its exact digits: through a double it would gain digits its text does not have.
 */
import { integerOf } from './sql-json.js';
import { castNode, isNode, replaceInPlace, stringNode, type Json, type Node } from './sql-tree.js';

/** The exact text of a DECIMAL constant's value (`digits` unscaled, `scale` places). */
export function decimalText(digits: bigint, scale: number): string {
  const negative = digits < 0n;
  const s = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** The unscaled value of a DECIMAL constant's value: a number, or a wide one's HUGEINT halves. */
function unscaled(v: unknown): bigint | undefined {
  const direct = integerOf(v);
  if (direct !== undefined || !isNode(v as Json)) return direct;
  const upper = integerOf((v as Node)['upper']);
  const lower = integerOf((v as Node)['lower']);
  return upper === undefined || lower === undefined ? undefined : upper * 2n ** 64n + lower;
}

/** The text of a DECIMAL constant (its `value` node), or undefined when it is not one. */
export function decimalConstantText(value: Node): string | undefined {
  const type = value['type'];
  if (value['is_null'] !== false || !isNode(type) || type['id'] !== 'DECIMAL') return undefined;
  const info = type['type_info'];
  const digits = unscaled(value['value']);
  return digits === undefined || !isNode(info) || typeof info['scale'] !== 'number' ? undefined : decimalText(digits, info['scale']);
}

/**
 * DataFusion's type of an integer literal beyond BIGINT (DuckDB's HUGEINT): UInt64 up to 2^64 - 1,
 * else Float64.
 */
export function wideIntegerType(value: bigint): 'UBIGINT' | 'DOUBLE' {
  return value >= 0n && value < 2n ** 64n ? 'UBIGINT' : 'DOUBLE';
}

/** The value of a HUGEINT constant (its `value` node) beyond BIGINT, or undefined when it is not one. */
function wideIntegerOf(value: Node): bigint | undefined {
  const type = value['type'];
  if (value['is_null'] !== false || !isNode(type) || (type['id'] !== 'HUGEINT' && type['id'] !== 'UHUGEINT')) return undefined;
  const v = unscaled(value['value']);
  return v === undefined || (v >= -(2n ** 63n) && v < 2n ** 63n) ? undefined : v;
}

/**
 * Rewrites the DECIMAL constants of a serialized parse tree into DOUBLE ones, and integer constants
 * beyond BIGINT into UBIGINT or DOUBLE ones (`wideIntegerType`), in place. Returns whether it
 * changed anything.
 */
export function floatDecimalLiterals(tree: unknown): boolean {
  let changed = false;
  const visit = (n: Json | undefined): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!isNode(n)) return;
    // A decimal literal cast to a DECIMAL keeps its digits.
    const child = n['child'];
    if (n['class'] === 'CAST' && isNode(n['cast_type']) && n['cast_type']['id'] === 'DECIMAL' && isNode(child) && child['class'] === 'CONSTANT' && isNode(child['value']) && decimalConstantText(child['value']) !== undefined) return;
    if (n['class'] === 'CONSTANT' && isNode(n['value'])) {
      const wide = wideIntegerOf(n['value']);
      const text = wide !== undefined ? wide.toString() : decimalConstantText(n['value']);
      if (text !== undefined) {
        replaceInPlace(n, castNode(stringNode(text), wide !== undefined ? wideIntegerType(wide) : 'DOUBLE'));
        changed = true;
      }
      return;
    }
    for (const v of Object.values(n)) visit(v);
  };
  visit(tree as Json);
  return changed;
}
