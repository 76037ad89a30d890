/** What a scan of one region reads: the part of a region query the frontend passes to regions. */

/** A value a primary key column may equal: a string (string tags) or an integer (integer tags). */
export type KeyFilterValue = string | bigint;

/**
 * A condition on a primary key column's value that rows must meet besides `keys` (a term of the
 * query's WHERE joined by AND): `tag != v` / `tag NOT IN (…)` (`not_in`), `regexp_matches(tag, p)`
 * and `tag ~ p` (`regex`, `full`: the whole value must match; `negated`: `NOT …`), `tag [NOT] LIKE p`
 * (`like`). NULL meets none.
 * Scans may skip rows (by an index) that provably fail one; they never filter by them otherwise.
 */
export type KeyCondition =
  | { readonly kind: 'not_in'; readonly values: readonly KeyFilterValue[] }
  | { readonly kind: 'regex'; readonly pattern: string; readonly full: boolean; readonly negated: boolean }
  | { readonly kind: 'like'; readonly pattern: string; readonly negated: boolean };

/** What a scan reads: an inclusive time range (time index unit), and values of primary key columns. */
export interface ScanRequest {
  readonly start?: bigint;
  readonly end?: bigint;
  /**
   * Primary key column id → the values it may hold (from the query's `tag = …` / `tag IN (…)`):
   * rows with other values (NULL included) may be left out. Strings for string tags, integers for
   * integer tags; other columns are ignored.
   */
  readonly keys?: ReadonlyMap<number, readonly KeyFilterValue[]>;
  /**
   * Only the last row of each series (in the time range) is wanted: the query keeps, of the rows
   * of each group of series, the one of the latest time (`query/last-row-read.ts`). The scan may
   * then leave out any row but the latest of its series in each of its sources; the merge across
   * sources still runs, so the answer is the full scan's. A region may ignore it (read in full).
   */
  readonly lastRow?: boolean;
  /** Primary key column id → further conditions its value meets (see `KeyCondition`). */
  readonly conditions?: ReadonlyMap<number, readonly KeyCondition[]>;
}
