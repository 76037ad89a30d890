/** What a scan of one region reads: the part of a region query the frontend passes to regions. */

/** A value a primary key column may equal: a string (string tags) or an integer (integer tags). */
export type KeyFilterValue = string | bigint;

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
}
