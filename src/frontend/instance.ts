/**
 * The frontend instance: parses SQL, dispatches each statement (DDL to the catalog and regions,
 * writes to regions, queries to DuckDB over region scans) and returns one output per statement.
 * Servers reach it through `servers/handlers.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { LocalTableDdl, type TableDdl } from '../catalog/table-ddl.js';
import { regionOptionsOf } from '../catalog/table-options.js';
import type { RegionRoute } from '../catalog/table-route.js';
import { informationSchemaTable, type ClusterNodeRow, type InformationSchemaSource } from '../catalog/information-schema.js';
import { fullTableName, INFORMATION_SCHEMA, regionDir, tableRegionIds, type TableInfo } from '../catalog/table-info.js';
import { valuesRelation } from '../query/values-relation.js';
import { quoteIdent } from '../common/sql-quote.js';
import { PG_CATALOG, pgCatalogTable, relationOid, type PgCatalogSession } from '../catalog/pg-catalog.js';
import { pgDialect } from '../query/pg-dialect.js';
import { buildInfo } from '../common/build-info.js';
import { installFunctions, versionOf } from '../query/session-functions.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { isValidTimeZone } from '../common/time/timestamp.js';
import { timeUnitOf, type TimeUnit } from '../types/time-unit.js';
import { affected, records, type Output } from '../query/output.js';
import { duckdbError, isQueryMemoryExhausted } from '../query/duckdb-error.js';
import { runQuery, type ExplainMode, type QueryContext, type QueryEnd, type QueryWriter, type TableSource } from '../query/query-executor.js';
import type { Statement, TqlCteQuery, TqlQuery, ValueExpr } from '../sql/ast.js';
import { parseSql } from '../sql/parser.js';
import { parseFoldedSql, type LiteralList } from '../sql/literal-lists.js';
import { withSpan, withSpanSync } from '../common/tracing/tracing.js';
import { ingestSpanAttributes, sqlSpanAttributes, statementSpanAttributes, tracedOutput, tracedParse } from './statement-spans.js';
import { KeyedMutex } from '../common/sync/keyed-mutex.js';
import { checkPermission, type AccessKind } from './auth/permission.js';
import { Ingester, schemaLockKey } from './ingest.js';
import { isLogicalTable, isPhysicalTable, LOGICAL_TABLE_OPTION } from './metric-engine.js';
import { MetricTables } from './metric-tables.js';
import { unlimitedBudget, untilDoneOrAborted, type QueryBudget } from './query-gate.js';
import { ProcessList } from './process-list.js';
import { processRows, showProcessList } from './statement/process-list.js';
import { showCharsetOrCollation, showTableStatus } from './statement/show-status.js';
import { commented } from './statement/comment-on.js';
import { numbersRelation, NUMBERS_TABLE } from '../catalog/information-schema-more.js';
import { startStatements, type StatementControl } from './statement-control.js';
import { TableRouter } from './table-router.js';
import type { IngestOptions, IngestTable } from './ingest-request.js';
import type { RegionServer } from '../types/region-server.js';
import type { RegionId } from '../types/region-id.js';
import { decimalOf } from '../types/region-metadata.js';
import type { Session } from './session.js';
import type { TableSummary } from './table-summary.js';
import type { SlowQueryRecorder } from './slow-query/slow-query-recorder.js';
import { endedSql } from './slow-query/ended-statement.js';
import { altered, alterTable } from './statement/alter-table.js';
import { createTable } from './statement/create-table.js';
import { alterDatabase, createDatabaseOptions } from './statement/alter-database.js';
import { deleteRows, insertSelect, insertValues } from './statement/insert.js';
import { resolveName } from './statement/names.js';
import { runTql, tqlArrow, tqlTable, type TqlContext } from './statement/tql.js';
import { publishArrow, type ArrowPublication } from '../query/arrow-scan-function.js';
import { describeTable, showColumns, showCreateDatabase, showCreateTable, showDatabases, showIndex, showTables, type ShowWhere } from './statement/show.js';
import { timedStatement } from './statement-metrics.js';
import { createView, dropView, showCreateView, showViews } from './statement/view.js';
import { boundSql, deallocate, prepare } from './statement/prepared.js';
import { runCopy } from './statement/copy.js';
import type { Logger } from '../common/logging.js';

/** What a statement does to data, for permissions: read, write, or neither (USE, SET). */
function accessOf(stmt: Statement): AccessKind | undefined {
  switch (stmt.kind) {
    case 'use':
    case 'set':
      return undefined;
    case 'query':
    case 'explain':
    case 'show_databases':
    case 'show_tables':
    case 'show_columns':
    case 'show_index':
    case 'show_create_table':
    case 'show_create_database':
    case 'describe_table':
    case 'show_variables':
    case 'show_status':
    case 'show_processlist':
    case 'show_table_status':
    case 'show_charset':
    case 'show_collation':
    case 'tql':
    case 'tql_query':
    case 'show_views':
    case 'show_create_view':
      return 'read';
    case 'kill':
    // A prepared statement is checked when it runs, as the statement it is.
    case 'prepare':
    case 'execute':
    case 'deallocate':
      return undefined;
    default:
      return 'write';
  }
}

/** The PostgreSQL version the PostgreSQL server announces (`server_version` `16.3-tsdb-<version>`). */
const PG_SERVER_VERSION = '16.3';

/** The name the rows of a SHOW stand under in its WHERE's query (a per-process nonce: no table has it). */
const SHOW_ROWS = `__tsdb_show_rows_${randomBytes(6).toString('hex')}`;

/** The names TQL CTEs' rows stand under in the query around them (a per-process nonce: no table has it). */
const TQL_ROWS = `__tsdb_tql_rows_${randomBytes(6).toString('hex')}`;

/** The name a view's query stands under while its columns are read (CREATE VIEW). */
const VIEW_PROBE = `__tsdb_view_${randomBytes(6).toString('hex')}`;

/** How often a cancelled query's connection (or, at shutdown, every running one) is interrupted again until the query ends. */
const INTERRUPT_REPEAT_MS = 100;

/** Column types `sum` and `avg` take as numbers (a split query's partial sums: `query/query-split.ts`). */
const NUMERIC_TYPES: ReadonlySet<string> = new Set(['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'Float32', 'Float64']);

/** Query connections kept open between queries. */
const MAX_IDLE_CONNECTIONS = 8;

export class FrontendInstance {
  constructor(
    readonly catalog: CatalogManager,
    readonly regions: RegionServer,
    /**
     * The frontend's own DuckDB: every query is planned and finished here (`query/query-duckdb.ts`),
     * over the relations of the regions it reads (DESIGN.md D13).
     */
    private readonly queries: DuckDBInstance,
    /**
     * Names of the configured storage providers (`storage` table option); default: File. Undefined
     * in a cluster's frontend: the datanodes hold the storage, and refuse a provider they lack.
     */
    private readonly storageProviders: readonly string[] | undefined = ['File'],
    /** Admission and result limits of queries (`query-gate.ts`); default: none. */
    private readonly budget: QueryBudget = unlimitedBudget(),
    /** The statements running here (SHOW PROCESSLIST, KILL). */
    readonly processes: ProcessList = new ProcessList(),
    /**
     * Where DDL is applied once a statement is checked: here (standalone, the default), or by the
     * cluster's metasrv.
     */
    private readonly ddl: TableDdl = new LocalTableDdl(catalog, regions),
    /** What a cluster's frontend knows of the cluster (`information_schema.cluster_info`); absent in a standalone server. */
    private readonly cluster?: { nodes(): Promise<ClusterNodeRow[]>; routes(t: TableInfo): Promise<readonly RegionRoute[] | undefined> },
  ) {
    this.tables = new TableRouter(catalog, regions, budget.limits.maxBytes);
    this.metricTables = new MetricTables(catalog, ddl, this.schemaLocks);
    this.ingester = new Ingester(catalog, ddl, this.tables, this.metricTables, this.schemaLocks);
  }

  /** COPY's directory (`[copy] dir`, undefined: COPY refuses local files) and where it logs progress; set by the component. */
  copy: { readonly dir: string | undefined; readonly objectStorage?: boolean; readonly objectStoragePrefixes?: readonly string[]; readonly logger?: Logger } = { dir: undefined };

  /** Told of each statement when it ends (`[slow_query]`, `slow-query/`); set by the component. */
  slowQueries: SlowQueryRecorder | undefined;

  /** Serializes schema changes per table (ALTER TABLE, columns added by ingestion). */
  private readonly schemaLocks = new KeyedMutex();
  private readonly ingester: Ingester;
  private readonly metricTables: MetricTables;
  /** Where each table's rows are (its regions, or its physical metric table's). */
  private readonly tables: TableRouter;

  /**
   * Writes rows decoded by an ingestion protocol into `session.database` (tables and columns
   * created as needed); returns the number of rows written.
   */
  async ingest(tables: readonly IngestTable[], session: Session, opts?: IngestOptions): Promise<number> {
    checkPermission(session.user, 'write');
    return withSpan('ingest', ingestSpanAttributes(tables, session), () => this.ingester.ingest(session.database, tables, opts));
  }

  /**
   * Deletes rows named by primary key and time index (gRPC row deletes) from tables of
   * `session.database`; returns the number of keys deleted.
   */
  async deleteRows(tables: readonly IngestTable[], session: Session): Promise<number> {
    checkPermission(session.user, 'write');
    return this.ingester.delete(session.database, tables);
  }

  /** The tables of the session's database (or those of `names` that exist), for protocol servers that read (`access` read) or write them. */
  async tableSummaries(session: Session, names?: readonly string[], access: 'read' | 'write' = 'read'): Promise<TableSummary[]> {
    checkPermission(session.user, access);
    const infos = names === undefined ? await this.catalog.tables(session.database) : (await Promise.all(names.map((n) => this.catalog.table(session.database, n)))).filter((t): t is TableInfo => t !== undefined);
    return infos.map((t) => ({
      name: t.name,
      engine: t.engine,
      physical: isPhysicalTable(t),
      columns: t.columns.map((c) => ({ name: c.name, semantic: c.semantic_type, type: c.data_type })),
      ...(isLogicalTable(t) && t.options[LOGICAL_TABLE_OPTION] !== undefined && { logical: { physicalTable: t.options[LOGICAL_TABLE_OPTION], tableId: t.table_id } }),
    }));
  }

  /** Opens the regions of every table in the catalog (at startup). */
  async openTables(): Promise<number> {
    let n = 0;
    for (const t of await this.catalog.allTables()) {
      // Logical metric tables have no regions: their rows are in their physical table's.
      if (isLogicalTable(t)) {
        n++;
        continue;
      }
      const storage = t.options['storage'];
      const providers = this.storageProviders ?? [];
      if (storage !== undefined && !providers.includes(storage)) {
        throw new TsdbError(
          StatusCode.InvalidArguments,
          `table ${fullTableName(t)} is stored on storage provider "${storage}", which is not configured (configured: ${providers.join(', ')}); add it back to [[storage.providers]]`,
        );
      }
      for (const [i, id] of tableRegionIds(t).entries()) await this.regions.openRegion(id, regionDir(t, t.region_numbers[i]!), storage);
      n++;
    }
    return n;
  }

  /**
   * Parses `sql` and runs its statements in order; the first failure stops the rest. Long literal
   * lists (`x IN (1, 2, …)`) are folded out of the text while it is parsed and planned, and put back
   * for DuckDB (`sql/literal-lists.ts`). The call is one entry of the process list while it runs;
   * `control` bounds it (the client's signal, a time limit): once aborted, the running query is
   * interrupted, no further statement starts, and the call fails with the abort's error
   * (`statement-control.ts`).
   */
  async executeSql(sql: string, session: Session, control?: StatementControl): Promise<Output[]> {
    return withSpan('sql', sqlSpanAttributes(session), () => this.runSql(sql, session, control));
  }

  private async runSql(sql: string, session: Session, control?: StatementControl): Promise<Output[]> {
    // Listed (and killable) from the start: parsing a very large statement takes time too.
    const running = startStatements(this.processes, session, sql, control);
    session.signal = running.signal;
    try {
      running.check();
      const { statements, lists } = withSpanSync('sql.parse', undefined, (span) => tracedParse(span, parseFoldedSql(sql)));
      const outputs: Output[] = [];
      const recorder = control?.internal === true ? undefined : this.slowQueries;
      for (const stmt of statements) {
        running.check();
        const traced = () => withSpan('sql.execute', statementSpanAttributes(stmt, session), (span) => tracedOutput(span, this.execute(stmt, session, lists)));
        const began = performance.now();
        try {
          outputs.push(session.internal === true ? await traced() : await timedStatement(stmt, session.database, traced));
        } finally {
          // Failed statements too (a timeout is the slowest of all); only a slow one costs more than this check.
          const ms = performance.now() - began;
          if (recorder !== undefined && ms >= recorder.thresholdMs) recorder.ended(endedSql(stmt, session, lists), ms);
        }
      }
      // No check after the last statement: a write applied before the cancel arrived answers as applied.
      return outputs;
    } catch (err) {
      throw running.error(err);
    } finally {
      running.end();
      delete session.signal;
    }
  }

  /** Runs one statement; `lists` are the literal lists folded out of its text, by marker. */
  async execute(stmt: Statement, session: Session, lists?: ReadonlyMap<string, LiteralList>): Promise<Output> {
    const access = accessOf(stmt);
    if (access !== undefined) checkPermission(session.user, access);
    const where = this.showWhere(session);
    const query = (q: string) => this.query(q, session, { lists });
    switch (stmt.kind) {
      case 'query':
        // Only a statement's own rows may come as Arrow: the queries of INSERT … SELECT, DELETE and
        // SHOW are read as rows by tsdb itself.
        return this.query(stmt.sql, session, { lists, arrow: session.arrow === true, names: true });
      case 'explain':
        const mode = stmt.analyze ? 'analyze' : stmt.verbose ? 'verbose' : 'explain';
        if (stmt.tql !== undefined) return this.tqlQuery(stmt.tql, session, mode);
        return this.query(stmt.statement, session, { explain: mode, lists });
      case 'tql':
        return runTql(stmt, this.tqlContext(session));
      case 'tql_query':
        return this.tqlQuery(stmt, session);
      case 'insert':
        await this.refuseViewWrite(stmt, session);
        if (stmt.source.kind === 'query') return affected(await insertSelect(stmt, session, this.catalog, this.tables, (q, wrap) => this.query(q, session, { lists, ...(wrap !== undefined && { wrap }) })));
        // With result names: the VALUES expressions' integer literals are then Int64 (`widenIntegerLiterals`).
        return affected(await insertValues(stmt, session, this.catalog, this.tables, (q) => this.query(q, session, { lists, names: true })));
      case 'delete':
        return affected(await deleteRows(stmt, session, this.catalog, this.tables, query));
      case 'create_table': {
        this.checkStorage(stmt.options);
        await createTable(stmt, session, this.catalog, this.ddl, (info, ifNotExists) => this.metricTables.create(info, ifNotExists));
        return affected(0);
      }
      case 'create_database':
        this.checkStorage(stmt.options);
        return affected((await this.ddl.createDatabase(stmt.name, createDatabaseOptions(stmt.options), stmt.ifNotExists)) ? 1 : 0);
      case 'alter_database':
        this.checkStorage(stmt.set);
        await alterDatabase(stmt.name, stmt.set, stmt.unset, this.catalog, this.ddl, (t, change) => this.schemaLocks.run(schemaLockKey(t.database, t.name), change));
        return affected(0);
      case 'drop_database':
        return this.dropDatabase(stmt.name, stmt.ifExists);
      case 'use':
        await this.catalog.requireDatabase(stmt.database);
        session.database = stmt.database;
        return affected(0);
      case 'show_databases':
        return showDatabases(stmt, this.catalog, where);
      case 'show_tables':
        return showTables(stmt, session, this.catalog, where);
      case 'show_columns':
        return showColumns(stmt, session, this.catalog, where);
      case 'show_index':
        return showIndex(stmt, session, this.catalog, where);
      case 'show_create_table': {
        const { database, table } = resolveName(stmt.name, session);
        if ((await this.catalog.table(database, table)) === undefined && (await this.catalog.view(database, table)) !== undefined) {
          throw new TsdbError(StatusCode.Unsupported, `Show create table only for base table. ${session.catalog}.${database}.${table} is VIEW`);
        }
        return showCreateTable(stmt, session, this.catalog);
      }
      case 'show_create_database':
        return showCreateDatabase(stmt, this.catalog);
      case 'describe_table':
        return describeTable(stmt, session, this.catalog);
      case 'drop_table': {
        for (const name of stmt.names) {
          const info = await this.lookup(name, session);
          if (info === undefined) {
            // DROP TABLE of a view drops the view (its name is in the tables' namespace).
            const view = await this.catalog.view(resolveName(name, session).database, resolveName(name, session).table);
            if (view !== undefined) {
              await this.ddl.dropView(view);
              continue;
            }
            if (stmt.ifExists) continue;
            const { database, table } = resolveName(name, session);
            throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
          }
          await this.dropTable(info);
        }
        return affected(0);
      }
      case 'alter_table': {
        const { database, table } = resolveName(stmt.name, session);
        // Serialized with the schema changes of ingestion (new columns) on the same table.
        await this.schemaLocks.run(schemaLockKey(database, table), async () => {
          const info = await this.catalog.table(database, table);
          if (info !== undefined && info.engine === 'metric') return this.alterMetricTable(info, stmt.action);
          return alterTable(stmt, session, this.catalog, this.ddl);
        });
        return affected(0);
      }
      case 'truncate_table': {
        const info = await this.requireTable(stmt.name, session);
        // A logical metric table shares its region: its rows are deleted instead.
        if (isLogicalTable(info)) await deleteRows({ kind: 'delete', name: stmt.name, text: stmt.text }, session, this.catalog, this.tables, (q) => this.query(q, session));
        else await this.ddl.truncateTable(info);
        return affected(0);
      }
      case 'admin':
        return this.admin(stmt.func, stmt.args, session, stmt.text);
      case 'set':
        return this.set(stmt.variable, stmt.value, session);
      case 'show_variables':
        return this.showVariable(stmt.name, session);
      case 'show_status':
        return records([{ name: 'Variable_name', data_type: 'String' }, { name: 'Value', data_type: 'String' }], []);
      case 'show_processlist':
        return showProcessList(stmt.full, this.processes.list(session.user), this.processes.serverAddr);
      case 'kill':
        return this.kill(stmt, session);
      case 'create_view':
        return createView(stmt, session, { catalog: this.catalog, ddl: this.ddl, columnsOf: (q, tql) => this.viewColumns(q, tql, session) });
      case 'drop_view':
        return dropView(stmt, session, this.catalog, this.ddl);
      case 'show_views':
        return showViews(stmt, session, this.catalog, where);
      case 'show_create_view':
        return showCreateView(stmt, session, this.catalog);
      case 'prepare':
        await prepare(stmt, session, async (q) => {
          await this.query(q, session, { wrap: (sql) => `SELECT * FROM (${sql}) AS ${quoteIdent(VIEW_PROBE)} LIMIT 0` });
        });
        return affected(0);
      case 'execute': {
        const bound = parseFoldedSql(boundSql(stmt, session));
        if (bound.statements.length !== 1) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid prepare statement: EXECUTE runs one statement');
        return this.execute(bound.statements[0]!, session, bound.lists);
      }
      case 'deallocate':
        deallocate(stmt, session);
        return affected(0);
      case 'show_table_status':
        return showTableStatus(stmt, session, this.informationSchemaSource(session), where);
      case 'show_charset':
      case 'show_collation':
        return showCharsetOrCollation(stmt, this.informationSchemaSource(session), where);
      case 'comment_on': {
        const { database, table } = resolveName(stmt.name, session);
        await this.schemaLocks.run(schemaLockKey(database, table), async () => {
          const info = await this.requireTable(stmt.name, session);
          await this.ddl.alterTable(info, commented(info, stmt));
        });
        return affected(0);
      }
      case 'copy':
        return runCopy(stmt, session, {
          catalog: this.catalog,
          tables: this.tables,
          dir: this.copy.dir,
          objectStorage: this.copy.objectStorage === true,
          objectStoragePrefixes: this.copy.objectStoragePrefixes ?? [],
          logger: this.copy.logger,
          withConnection: (s, fn) => this.withConnection(s, fn),
          writeQuery: async (q, s, write) => {
            const out = await this.query(q, s, { names: true, write });
            return out.kind === 'affected' ? out.rows : 0;
          },
          execute: (st, s) => this.execute(st, s),
        });
      default: {
        const unhandled: never = stmt;
        throw new TsdbError(StatusCode.Unsupported, `SQL statement is not supported yet: ${(unhandled as Statement).text}`);
      }
    }
  }

  /**
   * ALTER of a metric-engine table: a logical table may add tags (added to its physical table too)
   * and be renamed; a physical table may change options. Anything else would break the tables
   * sharing the region.
   */
  private async alterMetricTable(info: TableInfo, action: Extract<Statement, { kind: 'alter_table' }>['action']): Promise<void> {
    const logical = isLogicalTable(info);
    if (logical && action.kind === 'add_columns') {
      const next = altered(info, action);
      const added = next.columns.filter((c) => !info.columns.some((x) => x.name === c.name));
      const notTag = added.find((c) => c.semantic_type !== 'tag' || c.data_type !== 'String');
      if (notTag !== undefined) throw new TsdbError(StatusCode.Unsupported, `A logical metric table can only add STRING tags (PRIMARY KEY), not ${notTag.name}`);
      if (added.length > 0) await this.metricTables.addLogicalTags(info, added);
      return;
    }
    const allowed = logical ? action.kind === 'rename' : action.kind === 'set_options' || action.kind === 'unset_options';
    if (!allowed) throw new TsdbError(StatusCode.Unsupported, `ALTER TABLE … ${action.kind.toUpperCase().replaceAll('_', ' ')} is not supported on ${logical ? 'logical' : 'physical'} metric table ${info.name}`);
    if (action.kind === 'rename' && (await this.catalog.table(info.database, action.newName)) !== undefined) {
      throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${info.catalog}.${info.database}.${action.newName}\``);
    }
    const next = altered(info, action);
    regionOptionsOf(next.options);
    await this.ddl.alterTable(info, next);
  }

  /**
   * INSERT into a view fails as GreptimeDB's does: a view has no columns of its own, so every value
   * is one too many.
   */
  private async refuseViewWrite(stmt: Extract<Statement, { kind: 'insert' }>, session: Session): Promise<void> {
    const { database, table } = resolveName(stmt.name, session);
    if ((await this.catalog.table(database, table)) !== undefined || (await this.catalog.view(database, table)) === undefined) return;
    const values = stmt.source.kind === 'values' ? (stmt.source.rows[0]?.length ?? 0) : 0;
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: column count mismatch, columns: ${stmt.columns?.length ?? 0}, values: ${values}`);
  }

  /**
   * The column names of a view's query, planned as the session's query (so a missing table, a
   * column that is not there or a refused function fails the CREATE VIEW): read with no rows.
   */
  private async viewColumns(query: string, tql: boolean, session: Session): Promise<string[]> {
    if (tql) return (await tqlTable(viewTql(query), this.tqlContext(session))).columns.map((c) => c.name);
    const out = await this.query(query, session, { wrap: (sql) => `SELECT * FROM (${sql}) AS ${quoteIdent(VIEW_PROBE)} LIMIT 0` });
    return out.kind === 'records' ? out.columns.map((c) => c.name) : [];
  }

  private async lookup(name: { parts: readonly string[] }, session: Session): Promise<TableInfo | undefined> {
    const { database, table } = resolveName(name, session);
    return this.catalog.table(database, table);
  }

  private async requireTable(name: { parts: readonly string[] }, session: Session): Promise<TableInfo> {
    const info = await this.lookup(name, session);
    if (info === undefined) {
      const { database, table } = resolveName(name, session);
      throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
    }
    return info;
  }

  private async dropTable(info: TableInfo, droppingDatabase = false): Promise<void> {
    if (isPhysicalTable(info) && !droppingDatabase) {
      const users = (await this.catalog.tables(info.database)).filter((t) => isLogicalTable(t) && t.options[LOGICAL_TABLE_OPTION] === info.name);
      if (users.length > 0) {
        throw new TsdbError(StatusCode.InvalidArguments, `Physical table ${info.name} is used by logical tables: ${users.map((t) => t.name).sort().join(', ')}; drop them first`);
      }
    }
    // A logical metric table's rows stay in the physical region, unreachable (its id is not reused).
    await this.ddl.dropTable(info);
  }

  private async dropDatabase(name: string, ifExists: boolean): Promise<Output> {
    const db = await this.catalog.database(name);
    if (db === undefined) {
      if (ifExists) return affected(0);
      throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${name}`);
    }
    for (const t of await this.catalog.tables(name)) await this.dropTable(t, true);
    for (const v of await this.catalog.views(name)) await this.ddl.dropView(v);
    await this.ddl.dropDatabase(name);
    return affected(0);
  }

  private functionsInstalled: Promise<void> | undefined;
  /** Idle query connections, taken by one query at a time. */
  private readonly idle: DuckDBConnection[] = [];
  /** Connections running a query now (interrupted at shutdown). */
  private readonly busy = new Set<DuckDBConnection>();
  /** Set by `interruptAll()`: queries are refused from then on. */
  private stopping = false;

  private async takeConnection(): Promise<DuckDBConnection> {
    if (this.stopping) throw shuttingDown();
    const conn = this.idle.pop() ?? (await this.queries.connect());
    this.busy.add(conn);
    return conn;
  }

  private giveBack(conn: DuckDBConnection): void {
    this.busy.delete(conn);
    if (this.idle.length < MAX_IDLE_CONNECTIONS && !this.stopping) this.idle.push(conn);
    else conn.closeSync();
  }

  /**
   * At shutdown: refuses queries from now on and interrupts every running one (DuckDB stops it at
   * its next check and it fails with Cancelled). Returns how many were interrupted.
   */
  /** A `storage` option must name a configured storage provider (`[storage]`, `[[storage.providers]]`). */
  private checkStorage(options: Readonly<Record<string, string>>): void {
    const storage = Object.entries(options).find(([k]) => k.toLowerCase() === 'storage')?.[1];
    const providers = this.storageProviders;
    if (storage !== undefined && providers !== undefined && !providers.includes(storage)) {
      throw new TsdbError(StatusCode.InvalidArguments, `Object store not found: ${storage} (configured: ${providers.join(', ')})`);
    }
  }

  interruptAll(): number {
    this.stopping = true;
    const running = this.busy.size;
    // A query between its DuckDB calls (planning, or its next statement) is not interrupted by
    // one call: repeated until none runs.
    const interrupt = (): void => {
      for (const c of this.busy) c.interrupt();
      if (this.busy.size > 0) setTimeout(interrupt, INTERRUPT_REPEAT_MS).unref();
    };
    interrupt();
    return running;
  }

  /** Closes the idle query connections (at shutdown, before the engine closes). */
  close(): void {
    for (const c of this.idle.splice(0)) c.closeSync();
  }

  /**
   * `SHOW … WHERE cond` over the rows shown: a query of one relation of them, `SELECT * FROM <rows>
   * WHERE cond`, and nothing else (a condition that would end the WHERE, `… UNION SELECT …`, is refused).
   */
  private showWhere(session: Session): ShowWhere {
    return (columns, rows, condition) => {
      const name = SHOW_ROWS;
      const shape = (tree: unknown) => {
        const node = (tree as { statements: Array<{ node: Record<string, unknown> }> }).statements[0]?.node;
        const from = node?.['from_table'] as Record<string, unknown> | undefined;
        const cte = node?.['cte_map'] as { map?: unknown[] } | undefined;
        const ok =
          node?.['type'] === 'SELECT_NODE' && from?.['type'] === 'BASE_TABLE' && from['table_name'] === name && from['schema_name'] === '' &&
          (node['modifiers'] as unknown[]).length === 0 && (node['group_expressions'] as unknown[]).length === 0 && node['having'] === null && node['qualify'] === null && (cte?.map ?? []).length === 0;
        if (!ok) throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: SHOW … WHERE takes one condition on the rows shown, not: ${condition}`);
      };
      return this.query(`SELECT * FROM ${name} WHERE ${condition}`, session, { rows: { name, relation: valuesRelation(columns, rows), shape } });
    };
  }

  /**
   * Runs a query (`runQuery`) for the session: `explain` for EXPLAIN [VERBOSE|ANALYZE]; `rows` for a SHOW's
   * rows under a name, with the shape its query must have; `wrap` turns the query's plain SQL (range
   * queries expanded) into the one that runs; `lists` are the long literal lists folded out of the
   * statement's text (`sql/literal-lists.ts`).
   */
  private async query(
    sql: string,
    session: Session,
    opts: {
      readonly explain?: ExplainMode;
      readonly rows?: { readonly name: string; readonly relation: string; readonly shape: (tree: unknown) => void };
      readonly wrap?: (sql: string) => string;
      readonly lists?: ReadonlyMap<string, LiteralList> | undefined;
      /** The rows as Arrow record batches where their types allow (`Output.arrow`). */
      readonly arrow?: boolean;
      /** Relations (SQL) the query reads under names (TQL CTEs' rows). */
      readonly relations?: ReadonlyMap<string, string>;
      /** Checks the parsed query's shape; throws to refuse it. */
      readonly check?: (tree: unknown) => void;
      /** The statement's own result: columns named as GreptimeDB names them (`QueryContext.names`). */
      readonly names?: boolean;
      /** The result written by `write` rather than read (COPY (<query>) TO; `QueryEnd`): the output is the rows written. */
      readonly write?: QueryWriter;
    } = {},
  ): Promise<Output> {
    const { explain, rows, wrap, lists, relations } = opts;
    const end: QueryEnd | undefined = opts.write !== undefined ? { write: opts.write } : explain;
    const signal = session.signal;
    signal?.throwIfAborted();
    let release = await this.budget.gate.acquire(signal);
    const conn = await this.takeConnection().catch((err: unknown) => {
      release();
      throw err;
    });
    await this.withFunctions(conn, release);
    // A cancelled statement interrupts what runs on its connection (freeing DuckDB's worker); runQuery
    // also checks the signal between its DuckDB calls, since an interrupt between two calls is lost.
    // DuckDB also forgets an interrupt that comes before a call it was sent has started (one still
    // queued for a worker): the interrupt is repeated until the query ends.
    let again: NodeJS.Timeout | undefined;
    const interrupt = () => {
      conn.interrupt();
      again ??= setInterval(() => conn.interrupt(), INTERRUPT_REPEAT_MS);
    };
    signal?.addEventListener('abort', interrupt, { once: true });
    const pg = session.protocol === 'postgres' ? this.pgCatalogSession(session) : undefined;
    const ctx: QueryContext = {
      database: session.database,
      timezone: session.timezone,
      user: session.user.username,
      ...(session.protocol !== undefined && { channel: session.protocol }),
      ...(session.connectionId !== undefined && { connectionId: session.connectionId }),
      ...(pg !== undefined && {
        dialect: pgDialect({
          user: pg.user,
          database: pg.database,
          // GreptimeDB's: `PostgreSQL 16.3 <product> <version>`.
          version: versionOf('postgres'),
          relationOid: (text) => relationOid(text, this.informationSchemaSource(), pg),
        }),
      }),
      ...(rows !== undefined && { check: rows.shape }),
      ...(opts.check !== undefined && { check: opts.check }),
      ...(wrap !== undefined && { wrap }),
      ...(lists !== undefined && { lists }),
      limits: this.budget.limits,
      ...(signal !== undefined && { signal }),
      ...(opts.arrow === true && { arrow: true }),
      ...(opts.names === true && { names: true }),
      view: async (catalog, database, name) => {
        if (catalog !== '' && catalog !== session.catalog) return undefined;
        if (catalog === '' && (name === rows?.name || relations?.has(name) === true)) return undefined;
        if (database === INFORMATION_SCHEMA || database.toLowerCase() === PG_CATALOG) return undefined;
        // Names are a table's or a view's, never both: a table (the common case, cached) asks no more.
        if ((await this.catalog.table(database, name)) !== undefined) return undefined;
        const v = await this.catalog.view(database, name);
        if (v === undefined) return undefined;
        if (v.tql !== true) return { database: v.query_database, query: v.query, columns: v.columns };
        // A view over TQL reads the rows its TQL gives now (read as the session, in the view's query database).
        const table = await tqlTable(viewTql(v.query), this.tqlContext({ ...session, database: v.query_database }));
        return { database: v.query_database, query: valuesRelation(table.columns, table.rows), columns: v.columns };
      },
      resolve: async (catalog, database, name): Promise<TableSource> => {
        if (rows !== undefined && catalog === '' && name === rows.name) return { key: rows.name, relation: async () => ({ sql: rows.relation }) };
        const named = catalog === '' ? relations?.get(name) : undefined;
        if (named !== undefined) return { key: name, relation: async () => ({ sql: named }) };
        const shown = `${catalog === '' ? session.catalog : catalog}.${database}.${name}`;
        // information_schema in any case (`INFORMATION_SCHEMA.TABLES`), as GreptimeDB takes it.
        if (database.toLowerCase() === INFORMATION_SCHEMA && (catalog === '' || catalog === session.catalog)) {
          const table = await informationSchemaTable(name, this.informationSchemaSource(session));
          if (table === undefined) throw new TsdbError(StatusCode.TableNotFound, `Failed to plan SQL: Table not found: ${shown}`);
          return { key: shown.toLowerCase(), relation: async () => ({ sql: valuesRelation(table.columns, table.rows) }) };
        }
        // pg_catalog is only seen over PostgreSQL (reference api.md §5).
        if (pg !== undefined && database.toLowerCase() === PG_CATALOG && (catalog === '' || catalog === session.catalog)) {
          const table = await pgCatalogTable(name, this.informationSchemaSource(), pg);
          if (table === undefined) throw new TsdbError(StatusCode.TableNotFound, `Failed to plan SQL: Table not found: ${shown}`);
          return { key: shown.toLowerCase(), relation: async () => ({ sql: valuesRelation(table.columns, table.rows) }) };
        }
        const info = catalog === '' || catalog === session.catalog ? await this.catalog.table(database, name) : undefined;
        // GreptimeDB's test table `public.numbers` (0 to 99), unless a table of that name was made.
        if (info === undefined && database === 'public' && name === NUMBERS_TABLE && (catalog === '' || catalog === session.catalog)) {
          return {
            key: `${session.catalog}.public.${NUMBERS_TABLE}`,
            columnNames: ['number'],
            limitedScan: true,
            relation: async (_range, _keys, _signal, _columns, hints) => ({ sql: numbersRelation(hints?.limit) }),
          };
        }
        if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Failed to plan SQL: Table not found: ${shown}`);
        const ts = info.columns.find((c) => c.name === info.time_index)!;
        const timestampColumns = new Map<string, TimeUnit>();
        for (const c of info.columns) {
          const unit = timeUnitOf(c.data_type);
          if (unit !== undefined) timestampColumns.set(c.name, unit);
        }
        return {
          key: fullTableName(info),
          timeIndex: { name: ts.name, unit: timeUnitOf(ts.data_type)! },
          primaryKey: info.primary_key,
          // A partitioned table's partition columns choose the regions read, tags or not.
          keyColumns: [...new Set([...info.primary_key, ...(info.partition?.columns ?? [])])],
          timestampColumns,
          columnNames: info.columns.map((c) => c.name),
          ...(info.partition !== undefined && info.partition.columns.length > 0 && { partitionColumns: info.partition.columns }),
          numericColumns: info.columns.filter((c) => NUMERIC_TYPES.has(c.data_type)).map((c) => c.name),
          decimalColumns: new Map(info.columns.flatMap((c) => {
            const d = decimalOf(c.data_type);
            return d === undefined ? [] : [[c.name, d] as const];
          })),
          relation: (range, keys, signal, columns, hints) => this.tables.relation(info, range, keys, signal, columns, hints),
          pushdown: (query) => this.tables.pushdown(info, query),
        };
      },
    };
    let watched = this.budget.spill?.track(conn);
    let failed = false;
    try {
      if (this.stopping) throw shuttingDown();
      signal?.throwIfAborted();
      try {
        return await runQuery(conn, sql, ctx, end);
      } catch (err) {
        // The pool of query memory used up by older queries (`QueryGate.older`): without holding a
        // slot or being watched meanwhile, wait for them to end, then run once more.
        const older = this.stopping || watched?.reason() !== undefined || !isQueryMemoryExhausted(err) ? undefined : this.budget.gate.older(release);
        if (older === undefined) throw err;
        watched?.done();
        watched = undefined;
        release();
        await untilDoneOrAborted(older, signal);
        release = await this.budget.gate.acquire(signal);
        watched = this.budget.spill?.track(conn);
        return await runQuery(conn, sql, ctx, end);
      }
    } catch (err) {
      failed = true;
      if (this.stopping) throw shuttingDown(err);
      throw watched?.reason() ?? err;
    } finally {
      watched?.done();
      signal?.removeEventListener('abort', interrupt);
      if (again !== undefined) clearInterval(again);
      // A failed query may leave DuckDB state behind on its connection (a result stopped by a limit
      // keeps its sort runs, hash tables and spill files until the connection's next query): closed.
      if (failed) {
        this.busy.delete(conn);
        conn.closeSync();
      } else this.giveBack(conn);
      release();
    }
  }

  /**
   * Runs `fn` on a query connection of its own (COPY's file reads and writes: never one a user query
   * runs on), under the query budget's admission, interrupted when the statement is cancelled.
   */
  /**
   * Installs tsdb's functions on the instance of `conn` once; on failure closes `conn`, calls
   * `release` and throws (tried again by the next statement: a failure here, say DuckDB's memory
   * used up, is not for good).
   */
  private async withFunctions(conn: DuckDBConnection, release: () => void): Promise<void> {
    try {
      this.functionsInstalled ??= installFunctions(conn);
      await this.functionsInstalled;
    } catch (err) {
      this.functionsInstalled = undefined;
      this.busy.delete(conn);
      conn.closeSync();
      release();
      throw duckdbError(err);
    }
  }

  private async withConnection<T>(session: Session, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const signal = session.signal;
    signal?.throwIfAborted();
    const release = await this.budget.gate.acquire(signal);
    let conn: DuckDBConnection;
    try {
      conn = await this.takeConnection();
    } catch (err) {
      release();
      throw err;
    }
    // COPY's statements read tables (VECTOR and JSON columns through tsdb's functions) before any query may have run.
    await this.withFunctions(conn, release);
    const interrupt = () => conn.interrupt();
    signal?.addEventListener('abort', interrupt, { once: true });
    let failed = false;
    try {
      return await fn(conn);
    } catch (err) {
      failed = true;
      signal?.throwIfAborted();
      throw err;
    } finally {
      signal?.removeEventListener('abort', interrupt);
      if (failed) {
        this.busy.delete(conn);
        conn.closeSync();
      } else this.giveBack(conn);
      release();
    }
  }

  /** What TQL reads for `session`: its databases through this instance's query path, as its user. */
  private tqlContext(session: Session): TqlContext {
    return {
      session,
      access: async (database) => {
        if ((await this.catalog.database(database)) === undefined) return undefined;
        const s: Session = database === session.database ? session : { ...session, database };
        return {
          tables: (names) => this.tableSummaries(s, names),
          rows: async (sql) => {
            const out = await this.query(sql, s);
            return out.kind === 'records' ? out.rows : [];
          },
          arrow: async (sql) => {
            const out = await this.query(sql, s, { arrow: true });
            return out.kind === 'records' ? out.arrow : undefined;
          },
        };
      },
      // A TQL parameter is one expression: the query must stay `SELECT epoch((<expr>))`.
      seconds: async (expr) => {
        const out = await this.query(`SELECT epoch((${expr}))`, session, { check: oneExpression });
        const v = out.kind === 'records' ? out.rows[0]?.[0] : undefined;
        return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : Number.NaN;
      },
    };
  }

  /**
   * A query with TQL CTEs (`WITH x AS (TQL EVAL …) SELECT … FROM x`): each TQL is evaluated first,
   * its body replaced by a read of its rows under a name of their own (no user text is re-parsed:
   * the spans were cut by the parser), then the query runs as any other.
   */
  private async tqlQuery(q: TqlCteQuery, session: Session, explain?: ExplainMode): Promise<Output> {
    const ctx = this.tqlContext(session);
    const relations = new Map<string, string>();
    const published: ArrowPublication[] = [];
    try {
      let sql = '';
      let at = 0;
      for (const [i, cte] of q.ctes.entries()) {
        const { columns, rows } = await tqlTable(cte.tql, ctx);
        // The rows as Arrow batches DuckDB scans in place (no SQL text of the values to parse).
        const { schema, batch } = tqlArrow(columns, rows);
        const publication = publishArrow(schema, [batch]);
        published.push(publication);
        const name = `${TQL_ROWS}_${i}`;
        relations.set(name, `SELECT * FROM ${publication.sql}`);
        // Under the CTE's name: a column named after its table (`sum(x.val)`) names the CTE, not the nonce.
        sql += `${q.sql.slice(at, cte.start)}SELECT * FROM ${name} AS ${quoteIdent(cte.name)}`;
        at = cte.end;
      }
      sql += q.sql.slice(at);
      return await this.query(sql, session, { relations, names: true, ...(explain !== undefined ? { explain } : { arrow: session.arrow === true }) });
    } finally {
      for (const p of published) p.dispose();
    }
  }

  /** What pg_catalog shows of a PostgreSQL session. */
  private pgCatalogSession(session: Session): PgCatalogSession {
    return { database: session.database, user: session.user.username, serverVersion: `${PG_SERVER_VERSION}-tsdb-${buildInfo().version}`, timezone: session.timezone };
  }

  /** What information_schema reads: the catalog, the statistics of the regions here, and (for `session`) its running statements. */
  private informationSchemaSource(session?: Session): InformationSchemaSource {
    return {
      ...(session !== undefined && { processes: () => processRows(this.processes.list(session.user), this.processes.serverAddr) }),
      ...(this.cluster !== undefined && { clusterNodes: () => this.cluster!.nodes(), regionRoutes: (t: TableInfo) => this.cluster!.routes(t) }),
      databases: () => this.catalog.databases(),
      tables: (db) => this.catalog.tables(db),
      views: (db) => this.catalog.views(db),
      regionSsts: (t) => this.perRegion(t, async (id) => ({ ssts: await this.regions.ssts(id) })),
      regionInfo: (t) => this.perRegion(t, async (id) => ({ info: await this.regions.info(id) })),
      regionStatistics: (t) =>
        isLogicalTable(t)
          ? Promise.resolve([])
          : Promise.all(
              t.region_numbers.map(async (n, i) => {
                const st = await this.regions.statistics(tableRegionIds(t)[i]!);
                return { region_number: n, memtable_rows: st.memtable_rows, memtable_bytes: st.memtable_bytes, sst_rows: st.sst_rows, sst_files: st.sst_files, sst_bytes: st.sst_bytes };
              }),
            ),
    };
  }

  /** `ask` of each region of a table, with its number and node (GreptimeDB's node 0 in a standalone server; a cluster's route leader). */
  private async perRegion<T>(t: TableInfo, ask: (id: RegionId) => Promise<T>): Promise<Array<T & { region_number: number; node_id: number | null }>> {
    const routes = await this.cluster?.routes(t);
    const ids = tableRegionIds(t);
    return Promise.all(
      t.region_numbers.map(async (n, i) => ({
        ...(await ask(ids[i]!)),
        region_number: n,
        node_id: routes === undefined ? 0 : (routes.find((r) => r.region_number === n)?.leader_peer?.id ?? null),
      })),
    );
  }

  private async admin(func: string, args: readonly ValueExpr[], session: Session, statement: string): Promise<Output> {
    const name = func.toLowerCase();
    // The column is the statement as GreptimeDB prints it: `ADMIN FLUSH_TABLE('t')`, the name as written.
    const written = /^\s*ADMIN\s+([A-Za-z_]\w*)/i.exec(statement)?.[1] ?? name;
    const text = `ADMIN ${written}(${args.map((a) => (a.kind === 'string' ? `'${a.value.replaceAll("'", "''")}'` : a.kind === 'number' ? a.text : a.kind)).join(', ')})`;
    if (name === 'flush_table' || name === 'compact_table') {
      const arg = args[0];
      if (arg?.kind !== 'string') throw new TsdbError(StatusCode.InvalidArguments, `${name} expects a table name, e.g. ${name}('cpu')`);
      const info = await this.requireTable({ parts: arg.value.split('.') }, session);
      await (name === 'flush_table' ? this.tables.flush(info) : this.tables.compact(info));
      return records([{ name: text, data_type: 'UInt64' }], [[0]]);
    }
    throw new TsdbError(StatusCode.Unsupported, `Unsupported admin function: ${func}`);
  }

  /**
   * `KILL <id>` / `KILL '<id>'`: cancels a statement of the process list; `KILL QUERY|CONNECTION <n>`:
   * the statements of MySQL connection `n` (an idle one is no error). One row affected per statement.
   */
  private kill(stmt: Extract<Statement, { kind: 'kill' }>, session: Session): Output {
    if (stmt.target === 'connection') return affected(this.processes.killConnection('mysql', stmt.id, `killed by KILL QUERY ${stmt.id}`, session.user));
    // `KILL '<addr>/<id>'`: a statement of this frontend (GreptimeDB forwards others; tsdb does not).
    if (stmt.server !== undefined && stmt.server !== this.processes.serverAddr) {
      throw new TsdbError(StatusCode.InvalidArguments, `Unknown process id: ${stmt.server}/${stmt.id} (this frontend is ${this.processes.serverAddr})`);
    }
    this.processes.kill(stmt.id, session.user);
    return affected(1);
  }

  private set(variable: string, value: ValueExpr, session: Session): Output {
    const v = variable.toLowerCase();
    if (v === 'time_zone' || v === 'timezone') {
      const zone = value.kind === 'string' ? value.value : value.kind === 'sql' ? value.text : '';
      if (!isValidTimeZone(zone)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time zone: ${zone}`);
      session.timezone = zone;
      return affected(0);
    }
    throw new TsdbError(StatusCode.Unsupported, `Not supported: Unsupported set variable ${variable.toUpperCase()}`);
  }

  private showVariable(name: string, session: Session): Output {
    const v = name.toLowerCase();
    if (v === 'time_zone' || v === 'timezone') return records([{ name: name.toUpperCase(), data_type: 'String' }], [[session.timezone]]);
    if (v === 'system_time_zone') return records([{ name: name.toUpperCase(), data_type: 'String' }], [['UTC']]);
    throw new TsdbError(StatusCode.Unsupported, `Unsupported show variable: ${name.toUpperCase()}`);
  }
}

/** The TQL of a view over TQL (`CREATE VIEW v AS TQL EVAL …`): only EVAL gives rows. */
function viewTql(query: string): TqlQuery {
  const [stmt, ...rest] = parseSql(query);
  if (stmt?.kind !== 'tql' || stmt.mode !== 'eval' || rest.length > 0) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid statement to create view');
  return stmt;
}

/** The parse tree of one SELECT of one expression, with no FROM (a TQL parameter's query). */
function oneExpression(tree: unknown): void {
  const t = tree as { statements?: Array<{ node?: Record<string, unknown> }> };
  const node = t.statements?.length === 1 ? t.statements[0]!.node : undefined;
  const from = node?.['from_table'] as Record<string, unknown> | undefined;
  const list = node?.['select_list'] as unknown[] | undefined;
  if (node?.['type'] !== 'SELECT_NODE' || from?.['type'] !== 'EMPTY' || list?.length !== 1 || node['where_clause'] !== null || (node['group_expressions'] as unknown[] | undefined)?.length !== 0) {
    throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid TQL syntax: a TQL parameter must be one expression (a number, a string, or an expression like now() - interval \'5 minutes\')');
  }
}

/** A query refused or interrupted because the server is shutting down. */
function shuttingDown(cause?: unknown): TsdbError {
  return new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled: the server is shutting down', cause === undefined ? undefined : { cause });
}
