/**
 * A string constant cast to an integer type converts as Arrow's cast does in GreptimeDB: only an
 * optionally signed run of digits is an integer (`'0.5'::INT`, `' 7 '::INT` and `'1e3'::INT` are
 * cast errors, 3001), where DuckDB would round, trim or read the exponent; TRY_CAST of one gives NULL.
 * Done on the parse tree before DuckDB folds the constant.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { ARROW_TYPE_NAMES } from './arrow-type-names.js';

/** DuckDB's integer types (named by Arrow's names in the error, `arrow-type-names.ts`). */
const INTEGER_TYPES: ReadonlySet<string> = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);

type Node = { [k: string]: unknown };

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Throws GreptimeDB's cast error for a string constant cast to an integer type that is not an integer. */
export function checkIntegerStringCasts(tree: unknown): void {
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    if (!isNode(n)) return;
    if (n['class'] === 'CAST' && isNode(n['cast_type']) && isNode(n['child'])) {
      const type = String(n['cast_type']['id']);
      const arrow = INTEGER_TYPES.has(type) ? ARROW_TYPE_NAMES[type] : undefined;
      const child = n['child'];
      const value = isNode(child['value']) ? child['value'] : undefined;
      if (arrow !== undefined && child['class'] === 'CONSTANT' && value !== undefined && value['is_null'] !== true && isNode(value['type']) && value['type']['id'] === 'VARCHAR') {
        const text = String(value['value']);
        if (!/^[+-]?\d+$/.test(text)) {
          if (n['try_cast'] !== true) throw new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Cannot cast string '${text}' to value of ${arrow} type`);
          value['is_null'] = true;
          value['value'] = null;
        }
      }
    }
    for (const v of Object.values(n)) visit(v);
  };
  visit(tree);
}
