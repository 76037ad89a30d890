/**
 * CREATE [OR REPLACE] VIEW, DROP VIEW, SHOW VIEWS and SHOW CREATE VIEW (reference api.md §4), with
 * GreptimeDB's checks and messages (its `operator/src/statement/ddl.rs` `create_view`,
 * `drop_view`): the view's query is planned when the view is created (a missing table fails it
 * then), its column names must match its column count, a table's name is never a view's. The
 * record is `catalog/view-info.ts`; queries read views through `query/view-expansion.ts`.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { checkTableName } from '../../catalog/limit-checks.js';
import type { TableDdl } from '../../catalog/table-ddl.js';
import type { ViewInfo } from '../../catalog/view-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { affected, records, type Output } from '../../query/output.js';
import type { Statement } from '../../sql/ast.js';
import type { Session } from '../session.js';
import { resolveName } from './names.js';
import { filtered, type ShowWhere } from './show.js';

/** What a view's creation needs of the instance. */
export interface ViewDeps {
  readonly catalog: CatalogManager;
  readonly ddl: TableDdl;
  /** The column names of the view's query, planned (and refused) as a query of the session is. */
  columnsOf(query: string, tql: boolean): Promise<string[]>;
}

export async function createView(stmt: Extract<Statement, { kind: 'create_view' }>, session: Session, deps: ViewDeps): Promise<Output> {
  const { database, table: name } = resolveName(stmt.name, session);
  const planColumns = await deps.columnsOf(stmt.query, stmt.tql);
  if (stmt.columns.length > 0 && stmt.columns.length !== planColumns.length) {
    throw new TsdbError(StatusCode.InvalidArguments, `Expect ${planColumns.length} columns for view ${stmt.name.parts.join('.')}, but found ${stmt.columns.length}`);
  }
  if (stmt.orReplace && stmt.ifNotExists) {
    throw new TsdbError(StatusCode.InvalidArguments, 'Invalid SQL, error: syntax error Create Or Replace and If Not Exist cannot be used together');
  }
  await deps.catalog.requireDatabase(database);
  const full = `${session.catalog}.${database}.${name}`;
  if ((await deps.catalog.table(database, name)) !== undefined) throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${full}\``);
  const existing = await deps.catalog.view(database, name);
  if (existing !== undefined && !stmt.orReplace) {
    if (stmt.ifNotExists) return affected(0);
    throw new TsdbError(StatusCode.TableAlreadyExists, `View already exists: \`${full}\``);
  }
  try {
    checkTableName(name);
  } catch {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid view name: ${name}`);
  }
  const info: ViewInfo = {
    view_id: existing?.view_id ?? (await deps.ddl.allocateTableId()),
    catalog: session.catalog,
    database,
    name,
    definition: stmt.definition,
    query: stmt.query,
    ...(stmt.tql && { tql: true }),
    query_database: session.database,
    columns: stmt.columns,
    plan_columns: planColumns,
    created_at: existing?.created_at ?? Date.now(),
  };
  await deps.ddl.createView(info, stmt.orReplace);
  return affected(0);
}

export async function dropView(stmt: Extract<Statement, { kind: 'drop_view' }>, session: Session, catalog: CatalogManager, ddl: TableDdl): Promise<Output> {
  const { database, table: name } = resolveName(stmt.name, session);
  const full = `${session.catalog}.${database}.${name}`;
  const view = await catalog.view(database, name);
  if (view === undefined) {
    if ((await catalog.table(database, name)) !== undefined) throw new TsdbError(StatusCode.InvalidArguments, `Invalid view "${full}": not a view`);
    if (stmt.ifExists) return affected(0);
    throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${full}`);
  }
  await ddl.dropView(view);
  return affected(0);
}

/** `SHOW VIEWS [FROM db] [LIKE | WHERE]`: one column, `Views`, sorted by name. */
export async function showViews(stmt: Extract<Statement, { kind: 'show_views' }>, session: Session, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const database = stmt.database ?? session.database;
  await catalog.requireDatabase(database);
  const names = (await catalog.views(database)).map((v) => [v.name]);
  return filtered(['Views'], names, stmt.filter, where);
}

/** `SHOW CREATE VIEW v`: `View | Create View`, the definition as GreptimeDB prints it. */
export async function showCreateView(stmt: Extract<Statement, { kind: 'show_create_view' }>, session: Session, catalog: CatalogManager): Promise<Output> {
  const { database, table: name } = resolveName(stmt.name, session);
  const view = await catalog.view(database, name);
  if (view === undefined) throw new TsdbError(StatusCode.TableNotFound, `View not found: ${name}`);
  return records(
    [
      { name: 'View', data_type: 'String' },
      { name: 'Create View', data_type: 'String' },
    ],
    [[stmt.name.parts.join('.'), view.definition]],
  );
}
