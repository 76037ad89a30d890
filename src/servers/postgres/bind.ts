/**
 * Parameters of the extended query protocol: `$1`, `$2` … of a statement replaced by the bound
 * values as SQL literals (outside quoted strings, quoted identifiers and comments), so that the
 * statement runs through the same SQL path as a simple query; in a query, each marked as its
 * parameter's, which names the result columns made of it (`sql/parameter-marks.ts`).
 */
import { marksParameters, parameterMark } from '../../sql/parameter-marks.js';
import type { ParamValue } from './types.js';
import { PgWireError, SQLSTATE } from './pg-error.js';

/**
 * A bound value as an SQL literal: bytes (bytea) as `from_hex('…')`, so that any byte survives;
 * negative zero as `-0.0` (`String(-0)` is `0`).
 */
export function literalOf(v: ParamValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return '-0.0';
    return Number.isFinite(v) ? String(v) : `'${String(v)}'::DOUBLE`;
  }
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v)) return `from_hex('${v.toString('hex')}')`;
  return `'${v.replaceAll("'", "''")}'`;
}

/** The highest `$n` of a statement (its parameter count when Parse names no types). */
export function parameterCount(sql: string): number {
  let max = 0;
  scan(sql, (n) => {
    max = Math.max(max, n);
    return '';
  });
  return max;
}

/** `sql` with each `$n` replaced by `values[n - 1]` as a literal. */
export function bindParameters(sql: string, values: readonly ParamValue[]): string {
  const marked = marksParameters(sql);
  return scan(sql, (n) => {
    if (n > values.length) throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `bind message supplies ${values.length} parameters, but the statement uses $${n}`);
    return (marked ? parameterMark(n) : '') + literalOf(values[n - 1]!);
  });
}

/** Calls `replace` for each `$n` outside quotes and comments; returns the text with the replacements. */
function scan(sql: string, replace: (n: number) => string): string {
  let out = '';
  let i = 0;
  let copied = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end + 1;
      // A doubled quote continues the string: the loop meets it as a new quoted part.
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      out += sql.slice(copied, i) + replace(Number(sql.slice(i + 1, j)));
      copied = j;
      i = j;
      continue;
    }
    i++;
  }
  return out + sql.slice(copied);
}
