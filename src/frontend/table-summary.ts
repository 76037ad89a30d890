/** A table as the protocol servers see it (remote read looks tables up by their columns). */
export interface TableSummary {
  readonly name: string;
  readonly engine: string;
  /** Whether it is a physical table of the metric engine (its rows are read through its logical tables). */
  readonly physical: boolean;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly semantic: 'tag' | 'field' | 'timestamp'; readonly type: string }>;
  /**
   * A logical table of the metric engine: its physical table (same database) and its `__table_id`
   * there. Its rows are the physical table's with that id, so readers of several logical tables
   * can scan the physical one once (PromQL's selectors).
   */
  readonly logical?: { readonly physicalTable: string; readonly tableId: number };
}
