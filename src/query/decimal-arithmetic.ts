/**
 * `+`, `-` and `*` of DECIMALs typed as DataFusion types them (GreptimeDB's answers), where DuckDB's
 * types are narrower and overflow: DuckDB multiplies a DECIMAL(18, 1) by the literal 2 in
 * DECIMAL(18) and fails on 99000000000000000.0 · 2; DataFusion widens an Int64 operand to
 * Decimal(20, 0) and types
 * - `a + b`, `a - b`: scale max(s1, s2), precision max(p1 - s1, p2 - s2) + scale + 1;
 * - `a * b`: scale s1 + s2, precision p1 + p2 + 1;
 * - `a / b` (Arrow's): scale s1 + 4, precision p1 - s1 + s2 + scale, the quotient truncated and
 *   exact (DuckDB divides decimals as DOUBLEs), a zero divisor the error `Divide by zero error`;
 * precisions capped at 38; and `ceil`, `floor` of a DECIMAL keep its type (DuckDB's drop the scale).
 *
 * Rewritten in the parse tree where both operands' types are known here: a column of a DECIMAL type
 * in the query's tables (the name means one decimal type in all of them), an integer literal, a
 * cast to a DECIMAL type, or such arithmetic itself; at least one of the two a DECIMAL (integer
 * arithmetic stays integer). The operation runs on operands cast to DECIMAL(38, s) (DuckDB's
 * product of two is DECIMAL(38, s1 + s2)) and its result is cast to DataFusion's type. Other
 * operands (an integer column, a float) keep DuckDB's typing; so does `%`.
 */
import type { DecimalType } from './decimal-aggregates.js';
import { integerOf } from './sql-json.js';
import { castNode, functionNode, isNode, replaceInPlace, stringNode, type Json, type Node } from './sql-tree.js';
import { DECIMAL_DIVIDE, DIVISION_FUNCTIONS } from './division.js';

const [DIVIDE] = DIVISION_FUNCTIONS;

const MAX_PRECISION = 38;

/** Functions whose result has their decimal argument's type in DataFusion. */
const ROUNDING = new Set(['ceil', 'ceiling', 'floor']);

/** An operand's type: a DECIMAL, or an integer literal (DataFusion's Int64, widened to Decimal(20, 0)). */
interface Operand extends DecimalType {
  readonly integer: boolean;
}

const INT64_AS_DECIMAL: Operand = { precision: 20, scale: 0, integer: true };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function decimalCast(child: Json, d: DecimalType): Node {
  return {
    class: 'CAST',
    type: 'OPERATOR_CAST',
    alias: '',
    query_location: 0,
    child,
    cast_type: { id: 'DECIMAL', type_info: { type: 'DECIMAL_TYPE_INFO', alias: '', extension_info: null, width: d.precision, scale: d.scale } },
    try_cast: false,
  };
}

/** DataFusion's result type of `a op b`, or undefined when it exceeds what DuckDB computes here. */
function resultType(op: string, a: DecimalType, b: DecimalType): DecimalType | undefined {
  if (op === '*') {
    const scale = a.scale + b.scale;
    return scale > MAX_PRECISION ? undefined : { precision: Math.min(MAX_PRECISION, a.precision + b.precision + 1), scale };
  }
  const scale = Math.max(a.scale, b.scale);
  return { precision: Math.min(MAX_PRECISION, Math.max(a.precision - a.scale, b.precision - b.scale) + scale + 1), scale };
}

/**
 * Rewrites the decimal `+`, `-`, `*` of a serialized parse tree whose operand types are known
 * (`decimals`: lower-cased column name → its type), in place. Returns whether it changed anything.
 */
export function rewriteDecimalArithmetic(tree: unknown, decimals: ReadonlyMap<string, DecimalType>): boolean {
  let changed = false;
  const replaceWith = (n: Node, by: Node): void => {
    replaceInPlace(n, by);
    changed = true;
  };
  // The type of `n` as an operand, rewriting the arithmetic within it first.
  const typeOf = (n: Json | undefined): Operand | undefined => {
    if (Array.isArray(n)) {
      n.forEach(typeOf);
      return undefined;
    }
    if (!isNode(n)) return undefined;
    const cls = n['class'];
    if (cls === 'COLUMN_REF' && Array.isArray(n['column_names'])) {
      const d = decimals.get(String(n['column_names'].at(-1)).toLowerCase());
      return d === undefined ? undefined : { ...d, integer: false };
    }
    if (cls === 'CONSTANT' && isNode(n['value'])) {
      const v = n['value'];
      const id = isNode(v['type']) ? v['type']['id'] : undefined;
      const i = v['is_null'] === false && (id === 'INTEGER' || id === 'BIGINT') ? integerOf(v['value']) : undefined;
      return i !== undefined && i >= INT64_MIN && i <= INT64_MAX ? INT64_AS_DECIMAL : undefined;
    }
    // Everything below is visited (its arithmetic rewritten) whatever this node turns out to be.
    const children = cls === 'FUNCTION' && Array.isArray(n['children']) ? (n['children'] as Json[]) : undefined;
    const childTypes = children?.map(typeOf);
    for (const [k, v] of Object.entries(n)) if ((k !== 'children' || children === undefined) && typeof v === 'object' && v !== null) typeOf(v);
    if (cls === 'CAST' && isNode(n['cast_type']) && n['cast_type']['id'] === 'DECIMAL' && isNode(n['cast_type']['type_info'])) {
      const info = n['cast_type']['type_info'];
      return typeof info['width'] === 'number' && typeof info['scale'] === 'number' ? { precision: info['width'], scale: info['scale'], integer: false } : undefined;
    }
    if (children === undefined || childTypes === undefined || n['schema'] !== '') return undefined;
    const op = String(n['function_name']).toLowerCase();
    // ceil and floor keep a decimal's type in DataFusion (DuckDB's drop the scale).
    if (n['is_operator'] !== true && ROUNDING.has(op) && children.length === 1 && childTypes[0]?.integer === false) {
      const type = childTypes[0];
      replaceWith(n, decimalCast({ ...n, alias: '' }, type));
      return type;
    }
    if (op === DIVIDE && children.length === 2) {
      const [a, b] = childTypes as [Operand | undefined, Operand | undefined];
      if (a === undefined || b === undefined) return undefined;
      if (a.integer && b.integer) return INT64_AS_DECIMAL;
      // Arrow's decimal division: scale s1 + 4, precision p1 - s1 + s2 + scale, the quotient of the
      // unscaled values (the dividend's shifted left by scale - s1 + s2 places) truncated.
      const scale = Math.min(MAX_PRECISION, a.scale + 4);
      const shift = scale - a.scale + b.scale;
      const result = { precision: Math.min(MAX_PRECISION, a.precision + shift), scale };
      const operands = [decimalCast(children[0]!, { precision: MAX_PRECISION, scale: a.scale }), decimalCast(children[1]!, { precision: MAX_PRECISION, scale: b.scale })];
      const factor = castNode(stringNode(`1${'0'.repeat(shift)}`), 'HUGEINT');
      const step = decimalCast(stringNode(scale === 0 ? '1' : `0.${'0'.repeat(scale - 1)}1`), { precision: scale + 1, scale });
      replaceWith(n, decimalCast(functionNode(DECIMAL_DIVIDE, [...operands, factor, step]), result));
      return { ...result, integer: false };
    }
    if (n['is_operator'] !== true) return undefined;
    if (op === '-' && children.length === 1) return childTypes[0];
    if ((op !== '+' && op !== '-' && op !== '*') || children.length !== 2) return undefined;
    const [a, b] = childTypes as [Operand | undefined, Operand | undefined];
    if (a === undefined || b === undefined) return undefined;
    if (a.integer && b.integer) return INT64_AS_DECIMAL;
    const result = resultType(op, a, b);
    if (result === undefined) return undefined;
    const wide = (c: Json, t: Operand): Node => decimalCast(c, { precision: MAX_PRECISION, scale: t.scale });
    replaceWith(n, decimalCast({ ...n, alias: '', children: [wide(children[0]!, a), wide(children[1]!, b)] }, result));
    return { ...result, integer: false };
  };
  typeOf(tree as Json);
  return changed;
}
