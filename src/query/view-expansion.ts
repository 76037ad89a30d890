/**
 * Views in a query's parse tree: each table reference naming a view becomes a subquery holding the
 * view's own query, parsed from its text (`catalog/view-info.ts`), with the view's name (or the
 * reference's alias) and column names. The expanded tree then goes through every step a query's
 * own text does — the sandbox (`sandbox.ts`: a view is never a way around it), table resolution,
 * the session's time rules — so a view reads exactly what its query would, with the reader's
 * permissions. Tables the view's query names without a database are its database's (GreptimeDB
 * stores the plan with full names): they are qualified as the view is expanded. Views of views
 * expand in turn; a cycle (views replaced into one) stops at a depth limit with an error.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { tableRefs, type BaseTableNode } from './table-refs.js';

/** What a query needs of a view: its query, the database its unqualified names are in, its column names. */
export interface ViewBody {
  readonly database: string;
  readonly query: string;
  /** `CREATE VIEW v (a, b)`: names of the query's columns in order; empty: the query's own. */
  readonly columns: readonly string[];
}

/** How deep views may name views. */
const MAX_DEPTH = 32;

/**
 * Replaces, in place, each reference of `tree` to a view (`view` answers for its catalog, database
 * and name; the session's database for an unqualified one) by the view's query (`parse` gives the
 * parse tree of a view's text — `statements[0].node` — as read in its database). Returns whether
 * any view was expanded.
 */
export async function expandViews(
  tree: unknown,
  database: string,
  view: (catalog: string, database: string, name: string) => Promise<ViewBody | undefined>,
  parse: (query: string, database: string) => Promise<unknown>,
): Promise<boolean> {
  let expanded = false;
  for (let depth = 0; ; depth++) {
    let found = false;
    for (const ref of tableRefs(tree)) {
      const body = await view(ref.catalog_name, ref.schema_name === '' ? database : ref.schema_name, ref.table_name);
      if (body === undefined) continue;
      if (depth >= MAX_DEPTH) {
        throw new TsdbError(StatusCode.InvalidArguments, `Failed to plan SQL: view ${ref.table_name} names views more than ${MAX_DEPTH} deep (do views name each other?)`);
      }
      const parsed = (await parse(body.query, body.database)) as { statements?: Array<{ node?: unknown }> };
      const node = parsed.statements?.[0]?.node;
      if (parsed.statements?.length !== 1 || node === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Invalid view "${ref.table_name}": its query is not one query`);
      for (const inner of tableRefs(parsed)) if (inner.schema_name === '') inner.schema_name = body.database;
      replaceBySubquery(ref, node, body.columns);
      found = true;
      expanded = true;
    }
    if (!found) return expanded;
  }
}

/** Turns the BASE_TABLE node `ref` into a SUBQUERY node of `node` (DuckDB's serialized shape). */
function replaceBySubquery(ref: BaseTableNode, node: unknown, columns: readonly string[]): void {
  const r = ref as unknown as Record<string, unknown>;
  const aliases = Array.isArray(r['column_name_alias']) ? (r['column_name_alias'] as string[]) : [];
  const subquery = {
    type: 'SUBQUERY',
    alias: ref.alias !== '' ? ref.alias : ref.table_name,
    sample: r['sample'] ?? null,
    query_location: r['query_location'] ?? 0,
    subquery: { node, named_param_map: [] },
    // The reference's own column aliases first (`FROM v AS x(a)`), then the view's.
    column_name_alias: [...aliases, ...columns.slice(aliases.length)],
  };
  for (const k of Object.keys(r)) delete r[k];
  Object.assign(r, subquery);
}
