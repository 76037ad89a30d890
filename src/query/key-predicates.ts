/**
 * The primary key values a query's WHERE allows a table (`tag = 'a'`, `'a' = t.tag`,
 * `tag IN ('a', 'b')`), found in DuckDB's parse tree, so that the table's scan reads only those
 * series: SST row groups pruned on the key, memtable series skipped before DuckDB sees them
 * (engine/read/region-scan.ts). Like the time range (`time-predicates.ts`), only terms joined by AND
 * in the WHERE of the SELECT that reads the table directly count, and only literals whose meaning
 * cannot depend on a cast: strings (plain or cast to VARCHAR) and integers. The scan only narrows;
 * DuckDB still applies the WHERE.
 *
 * `keyConditionsOf` finds, the same way, the terms an inverted index can also answer:
 * `tag != v`, `tag NOT IN (…)`, `regexp_matches(tag, 'p')`, `regexp_full_match` (`~`, SIMILAR TO),
 * `[NOT] LIKE`, and their NOT.
 */
import type { KeyCondition } from '../types/scan-request.js';
import { whereOfTable, type BaseTableNode } from './table-refs.js';

type Json = null | boolean | number | string | bigint | Json[] | { [k: string]: Json };
type Node = { [k: string]: Json };

function isNode(v: Json | undefined): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value a primary key column is compared with: a string, or an integer. */
export type KeyValue = string | bigint;

/** Column name → the values it may hold. */
export type KeyValues = ReadonlyMap<string, readonly KeyValue[]>;

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'INTEGER_LITERAL']);

/** The value of a non-NULL string or integer constant (a string may be cast to VARCHAR), else undefined. */
function constantOf(n: Json | undefined): KeyValue | undefined {
  if (!isNode(n)) return undefined;
  if (n['class'] === 'CAST') {
    const to = n['cast_type'];
    if (n['try_cast'] === true || !isNode(to) || to['id'] !== 'VARCHAR' || to['type_info'] !== null) return undefined;
    const v = constantOf(n['child']);
    return typeof v === 'string' ? v : undefined;
  }
  if (n['class'] !== 'CONSTANT') return undefined;
  const value = n['value'];
  if (!isNode(value) || value['is_null'] !== false || !isNode(value['type'])) return undefined;
  const type = value['type']['id'];
  const v = value['value'];
  if (type === 'VARCHAR') return typeof v === 'string' ? v : undefined;
  if (typeof type !== 'string' || !INTEGER_TYPES.has(type)) return undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : undefined;
}

/**
 * The key column (of `wanted`) a column reference names, when it names one of the table read
 * under `names` (unqualified, or qualified by one of them); else undefined.
 */
function keyColumnOf(names: ReadonlySet<string>, wanted: ReadonlySet<string>): (n: Json | undefined) => string | undefined {
  return (n) => {
    if (!isNode(n) || n['class'] !== 'COLUMN_REF') return undefined;
    const c = n['column_names'] as string[];
    const name = c[c.length - 1]!;
    if (!wanted.has(name)) return undefined;
    return c.length === 1 || (c.length === 2 && names.has(c[0]!)) ? name : undefined;
  };
}

/**
 * The values of the columns `columns` (a table's primary key) that the WHERE of the SELECT reading
 * `table` directly allows; undefined when it allows any. Several terms on one column intersect.
 */
export function keyValuesOf(tree: unknown, table: BaseTableNode, columns: readonly string[]): KeyValues | undefined {
  if (columns.length === 0) return undefined;
  const found = whereOfTable(tree, table);
  if (found === undefined) return undefined;
  const where = found.where as Node;
  const keyColumn = keyColumnOf(found.names, new Set(columns));
  const out = new Map<string, KeyValue[]>();
  const kinds = new Map<string, Set<string>>();
  const narrow = (column: string, values: KeyValue[]) => {
    for (const v of values) kinds.set(column, (kinds.get(column) ?? new Set()).add(typeof v));
    const had = out.get(column);
    out.set(column, had === undefined ? [...new Set(values)] : had.filter((v) => values.includes(v)));
  };
  const terms = where['class'] === 'CONJUNCTION' && where['type'] === 'CONJUNCTION_AND' ? (where['children'] as Json[]) : [where];
  for (const t of terms) {
    if (!isNode(t)) continue;
    if (t['class'] === 'COMPARISON' && t['type'] === 'COMPARE_EQUAL') {
      const l = keyColumn(t['left']);
      const r = keyColumn(t['right']);
      const column = l ?? r;
      const value = constantOf(l !== undefined ? t['right'] : t['left']);
      if (column !== undefined && value !== undefined) narrow(column, [value]);
    } else if (t['class'] === 'OPERATOR' && t['type'] === 'COMPARE_IN') {
      const [first, ...rest] = t['children'] as Json[];
      const column = keyColumn(first);
      const values = rest.map(constantOf);
      if (column !== undefined && values.length > 0 && values.every((v) => v !== undefined)) narrow(column, values as KeyValue[]);
    }
  }
  // One kind per column: a string and an integer for one column would need DuckDB's casts.
  for (const [column, k] of kinds) if (k.size > 1) out.delete(column);
  return out.size === 0 ? undefined : out;
}

/** Column name → conditions its value meets (`KeyCondition`). */
export type KeyConditions = ReadonlyMap<string, readonly KeyCondition[]>;

/**
 * The terms on the columns `columns` besides equality (`KeyCondition`) that the WHERE of the
 * SELECT reading `table` directly holds, joined by AND; undefined when there are none.
 */
export function keyConditionsOf(tree: unknown, table: BaseTableNode, columns: readonly string[]): KeyConditions | undefined {
  if (columns.length === 0) return undefined;
  const found = whereOfTable(tree, table);
  if (found === undefined) return undefined;
  const where = found.where as Node;
  const keyColumn = keyColumnOf(found.names, new Set(columns));
  const out = new Map<string, KeyCondition[]>();
  const add = (column: string, c: KeyCondition): void => {
    out.set(column, [...(out.get(column) ?? []), c]);
  };
  /** `regexp_matches(col, 'p')` and the like, `negated` when under NOT. */
  const pattern = (n: Node, negated: boolean): void => {
    if (n['class'] !== 'FUNCTION' || n['schema'] !== '' || n['filter'] !== null || n['distinct'] === true) return;
    const args = n['children'] as Json[];
    if (args.length !== 2) return;
    const column = keyColumn(args[0]);
    const p = constantOf(args[1]);
    if (column === undefined || typeof p !== 'string') return;
    switch (n['function_name']) {
      case 'regexp_matches':
        return add(column, { kind: 'regex', pattern: p, full: false, negated });
      case 'regexp_full_match':
        return add(column, { kind: 'regex', pattern: p, full: true, negated });
      case '~~':
        return add(column, { kind: 'like', pattern: p, negated });
      case '!~~':
        return add(column, { kind: 'like', pattern: p, negated: !negated });
    }
  };
  const terms = where['class'] === 'CONJUNCTION' && where['type'] === 'CONJUNCTION_AND' ? (where['children'] as Json[]) : [where];
  for (const t of terms) {
    if (!isNode(t)) continue;
    if (t['class'] === 'COMPARISON' && t['type'] === 'COMPARE_NOTEQUAL') {
      const l = keyColumn(t['left']);
      const r = keyColumn(t['right']);
      const column = l ?? r;
      const value = constantOf(l !== undefined ? t['right'] : t['left']);
      if (column !== undefined && value !== undefined) add(column, { kind: 'not_in', values: [value] });
    } else if (t['class'] === 'OPERATOR' && t['type'] === 'COMPARE_NOT_IN') {
      const [first, ...rest] = t['children'] as Json[];
      const column = keyColumn(first);
      const values = rest.map(constantOf);
      // One kind of value: a string and an integer for one column would need DuckDB's casts.
      if (column !== undefined && values.length > 0 && values.every((v) => v !== undefined) && new Set(values.map((v) => typeof v)).size === 1) {
        add(column, { kind: 'not_in', values: values as KeyValue[] });
      }
    } else if (t['class'] === 'OPERATOR' && t['type'] === 'OPERATOR_NOT') {
      const [inner] = t['children'] as Json[];
      if (isNode(inner)) pattern(inner, true);
    } else pattern(t, false);
  }
  return out.size === 0 ? undefined : out;
}
