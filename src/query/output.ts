/**
 * What a statement returns, whatever the protocol: rows with a typed schema, or a count of affected
 * rows. Cells are JSON-like (numbers, 64-bit integers as bigint, strings, booleans, null, arrays,
 * objects); timestamps are integers in their column's unit (reference api.md §1.2).
 */

import type { RecordBatch, Schema } from 'apache-arrow';

/** A column of a result: its name and its type name as clients see it (`Int64`, `TimestampMillisecond`, …). */
export interface OutputColumn {
  readonly name: string;
  readonly data_type: string;
}

export type Cell = number | bigint | string | boolean | null | readonly Cell[] | { readonly [k: string]: Cell };

/** A 64-bit integer as a cell: a number when exact, else a bigint. */
export function int64Cell(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/**
 * A query's rows as Arrow record batches (asked for with `QueryContext.arrow`, by Flight DoGet):
 * then the `records` output's `rows` are empty and its columns name the fields.
 */
export interface ArrowRows {
  readonly schema: Schema;
  readonly batches: readonly RecordBatch[];
}

export type Output =
  | { readonly kind: 'records'; readonly columns: readonly OutputColumn[]; readonly rows: ReadonlyArray<readonly Cell[]>; readonly arrow?: ArrowRows }
  | { readonly kind: 'affected'; readonly rows: number };

export function records(columns: readonly OutputColumn[], rows: ReadonlyArray<readonly Cell[]>): Output {
  return { kind: 'records', columns, rows };
}

export function affected(rows: number): Output {
  return { kind: 'affected', rows };
}
