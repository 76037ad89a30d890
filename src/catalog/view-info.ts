/**
 * What the catalog records of a view (`CREATE VIEW`): its query as SQL text, run in place of the
 * view's name whenever a query reads it (`query/view-expansion.ts`), and the definition `SHOW CREATE
 * VIEW` and `information_schema.views` show. Views share the table namespace of their database
 * (a view and a table never have one name), as in GreptimeDB, but are kept under keys of their own
 * (`__view_name/{catalog}/{db}/{view}`), so that everything that reads tables (regions opened at
 * start, ingestion, PromQL) never meets one.
 */

export interface ViewInfo {
  /** Unique among tables and views (GreptimeDB gives views table ids; information_schema shows it). */
  readonly view_id: number;
  readonly catalog: string;
  readonly database: string;
  readonly name: string;
  /** The CREATE VIEW statement, in GreptimeDB's printed form (`SHOW CREATE VIEW`, `information_schema.views`). */
  readonly definition: string;
  /** The view's query as written (SQL, or a TQL statement when `tql`). */
  readonly query: string;
  readonly tql?: boolean;
  /** The database its unqualified table names are in: the creating session's (GreptimeDB plans the query there). */
  readonly query_database: string;
  /** `CREATE VIEW v (a, b)`: the names of the query's columns; empty when not given. */
  readonly columns: readonly string[];
  /** The query's own column names when the view was created. */
  readonly plan_columns: readonly string[];
  readonly created_at: number;
}

/** What keeps `value` from being a ViewInfo (a DDL task from another node); undefined when it is one. */
export function viewInfoProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const v = value as Record<string, unknown>;
  if (typeof v['view_id'] !== 'number' || !Number.isSafeInteger(v['view_id']) || v['view_id'] < 0) return 'view_id is not a count';
  for (const k of ['catalog', 'database', 'name', 'definition', 'query', 'query_database'] as const) if (typeof v[k] !== 'string') return `${k} is not a string`;
  for (const k of ['columns', 'plan_columns'] as const) if (!Array.isArray(v[k]) || !(v[k] as unknown[]).every((x) => typeof x === 'string')) return `${k} is not an array of strings`;
  if (v['tql'] !== undefined && typeof v['tql'] !== 'boolean') return 'tql is not a boolean';
  if (typeof v['created_at'] !== 'number' || !Number.isFinite(v['created_at'])) return 'created_at is not a number';
  return undefined;
}
