/**
 * Division and remainder by zero as GreptimeDB computes them (DataFusion's arithmetic), where
 * DuckDB's differ. The query DuckDB already divides integers as integers (`integer_division`,
 * truncating: `7 / 2` = 3, `-7 / 2` = -3, as DataFusion); what is left is that an integer divided
 * by, or taken modulo, zero is DataFusion's error `Divide by zero error` (GreptimeDB: 3001), where
 * DuckDB answers NULL.
 *
 * Each `a / b`, `a % b` and `mod(a, b)` of the user's query becomes a macro's call (`__tsdb_div`,
 * `__tsdb_mod`) whose divisor is `b`, or DuckDB's `error()` when `b` is zero and both operands are
 * integers. The operand types are DuckDB's `typeof`, which it folds to constants when it binds the
 * call: the types need not be known here, and the result keeps DuckDB's type (a macro overloaded by
 * parameter type would pick its overload before an aggregate argument has a type, and pick wrong).
 * Only the operators the user wrote are rewritten (the rewrite runs before tsdb's own rewrites add
 * theirs); the macros are installed with tsdb's other functions (`session-functions.ts`), so a
 * datanode running a frontend's query text has them too.
 *
 * Not matched: a floating-point division by zero stays DuckDB's NULL in this mode where DataFusion
 * gives IEEE's inf or NaN (GreptimeDB's HTTP JSON writes those as null too); a result typed by the
 * operands' kinds cannot choose between the two here.
 */
import { isNode, type Json } from './sql-tree.js';

const DIVIDE = '__tsdb_div';
const MODULO = '__tsdb_mod';

/** The macros `a / b`, `a % b` and `mod(a, b)` become. */
export const DIVISION_FUNCTIONS = [DIVIDE, MODULO] as const;

/** DuckDB's integer types (`typeof`'s names). */
const INTEGER_TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT'];

/** DataFusion's message for an integer division by zero (arrow's `ArrowError::DivideByZero`). */
export const DIVIDE_BY_ZERO = 'Divide by zero error';

/**
 * The exact quotient of two decimals (`decimal-arithmetic.ts`): `a` and `b` DECIMALs of their own
 * scales, `factor` 10^k shifting the dividend's unscaled value, `step` 10^-scale of the result. The
 * unscaled values are their text without the point (DuckDB writes every digit of the scale), as
 * HUGEINTs: a DECIMAL(38) multiplied by 10^k could overflow where a HUGEINT does not.
 */
export const DECIMAL_DIVIDE = '__tsdb_decimal_div';

/** The CREATE MACRO statements (idempotent). */
export function divisionMacros(): string[] {
  const integers = `(${INTEGER_TYPES.map((t) => `'${t}'`).join(', ')})`;
  const divisor = `CASE WHEN b = 0 AND typeof(a) IN ${integers} AND typeof(b) IN ${integers} THEN error('${DIVIDE_BY_ZERO}') ELSE b END`;
  const unscaled = (x: string) => `CAST(replace(CAST(${x} AS VARCHAR), '.', '') AS HUGEINT)`;
  return [
    `CREATE OR REPLACE MACRO ${DIVIDE}(a, b) AS a / ${divisor}`,
    `CREATE OR REPLACE MACRO ${MODULO}(a, b) AS a % ${divisor}`,
    `CREATE OR REPLACE MACRO ${DECIMAL_DIVIDE}(a, b, factor, step) AS CAST((${unscaled('a')} * factor) // CASE WHEN ${unscaled('b')} = 0 THEN error('${DIVIDE_BY_ZERO}') ELSE ${unscaled('b')} END AS DECIMAL(38, 0)) * step`,
  ];
}

/**
 * Rewrites the user's `a / b`, `a % b` and `mod(a, b)` in a serialized parse tree into the macros'
 * calls, in place (so that nodes others hold, the result names', stay the same objects). Returns
 * whether it changed anything.
 */
export function rewriteDivision(tree: unknown): boolean {
  let changed = false;
  const visit = (n: Json | undefined): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!isNode(n)) return;
    for (const v of Object.values(n)) visit(v);
    if (n['class'] !== 'FUNCTION' || n['schema'] !== '' || !Array.isArray(n['children']) || n['children'].length !== 2) return;
    const name = String(n['function_name']).toLowerCase();
    const target = n['is_operator'] === true ? (name === '/' ? DIVIDE : name === '%' ? MODULO : undefined) : name === 'mod' ? MODULO : undefined;
    if (target === undefined) return;
    n['function_name'] = target;
    n['is_operator'] = false;
    changed = true;
  };
  visit(tree as Json);
  return changed;
}
