/**
 * What a frontend instance answers through the servers (SQL, ingestion, authentication), shared by
 * the standalone server and the cluster's frontend: the same sessions, statement time limits and
 * user provider whatever holds the regions.
 */
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { DEFAULT_CATALOG } from '../catalog/table-info.js';
import type { Logger } from '../common/logging.js';
import { createUserProvider, type UserProvider } from '../frontend/auth/user-provider.js';
import type { FrontendInstance } from '../frontend/instance.js';
import { checkPermission } from '../frontend/auth/permission.js';
import { DatabaseRoutedSource, SqlPromSource } from '../frontend/promql-source.js';
import { newSession, type Session } from '../frontend/session.js';
import type { Output } from '../query/output.js';
import type { AuthHandler, IngestHandler, PromqlHandler, SqlContext, SqlHandler } from '../servers/handlers.js';

/** The time limit of a statement: the client's own (`requested`, 0 or undefined: none) within `query.timeout` (0: none). */
export function statementTimeout(requested: number | undefined, limit: number): number {
  const own = requested !== undefined && requested > 0 ? requested : 0;
  if (limit <= 0) return own;
  return own > 0 ? Math.min(own, limit) : limit;
}

export interface FrontendHandlers {
  readonly sql: SqlHandler;
  readonly ingest: IngestHandler;
  readonly promql: PromqlHandler;
  readonly auth?: AuthHandler;
  /** The user provider, closed at stop (when one is configured). */
  readonly users?: UserProvider;
}

/**
 * The handlers of `frontend`: statements bounded by `queryTimeoutMs` (`query.timeout`), users from
 * `userProvider` when one is configured.
 */
export function frontendHandlers(frontend: FrontendInstance, catalog: CatalogManager, queryTimeoutMs: number, userProvider: string | undefined, logger: Logger): FrontendHandlers {
  /** One statement of a PromQL read: its own session (executeSql sets the session's signal), the statement time limit. */
  const run = async (sql: string, ctx: SqlContext, arrow: boolean): Promise<Output | undefined> => {
    const timeoutMs = statementTimeout(ctx.timeoutMs, queryTimeoutMs);
    const session: Session = { ...newSession(ctx.database, ctx.timezone, ctx.user), ...(arrow && { arrow: true }), internal: true };
    // The query is recorded (slow queries, metrics) as PromQL, not its scans.
    const [out] = await frontend.executeSql(sql, session, { ...(ctx.signal !== undefined && { signal: ctx.signal }), ...(timeoutMs > 0 && { timeoutMs }), ...(ctx.client !== undefined && { address: ctx.client }), internal: true });
    return out;
  };
  const users = userProvider !== undefined && userProvider !== '' ? createUserProvider(userProvider, { logger }) : undefined;
  return {
    sql: {
      executeSql: (sql, ctx) => {
        const timeoutMs = statementTimeout(ctx.timeoutMs, queryTimeoutMs);
        const session: Session = {
          ...newSession(ctx.database, ctx.timezone, ctx.user, ctx.protocol),
          ...(ctx.prepared !== undefined && { prepared: ctx.prepared }),
          ...(ctx.connectionId !== undefined && { connectionId: ctx.connectionId }),
        };
        return frontend.executeSql(sql, ctx.arrow === true ? { ...session, arrow: true } : session, {
          ...(ctx.signal !== undefined && { signal: ctx.signal }),
          ...(timeoutMs > 0 && { timeoutMs }),
          ...(ctx.client !== undefined && { address: ctx.client }),
          ...(ctx.connectionId !== undefined && { connectionId: ctx.connectionId }),
        });
      },
      cancelConnection: (protocol, id, why, ctx) => frontend.processes.killConnection(protocol, id, why, ctx?.user),
      databaseExists: async (db) => (await catalog.database(db)) !== undefined,
      tables: (ctx, names, access) => frontend.tableSummaries(newSession(ctx.database, ctx.timezone, ctx.user), names, access),
    },
    promql: {
      queryTimeoutMs,
      queryEnded: (q, ctx, elapsedMs) => {
        const recorder = frontend.slowQueries;
        if (recorder === undefined || elapsedMs < recorder.thresholdMs) return;
        recorder.ended({ language: 'promql', query: q.query, catalog: DEFAULT_CATALOG, database: ctx.database, user: ctx.user.username, protocol: ctx.protocol ?? 'http', promql: q }, elapsedMs);
      },
      source: async (ctx) => {
        checkPermission(ctx.user, 'read');
        if ((await catalog.database(ctx.database)) === undefined) return undefined;
        const open = async (database: string): Promise<SqlPromSource | undefined> => {
          if ((await catalog.database(database)) === undefined) return undefined;
          const dbCtx = { ...ctx, database };
          return new SqlPromSource({
            tables: (names) => frontend.tableSummaries(newSession(database, ctx.timezone, ctx.user), names, 'read'),
            rows: async (sql, signal) => {
              const out = await run(sql, signal !== undefined ? { ...dbCtx, signal } : dbCtx, false);
              return out?.kind === 'records' ? out.rows : [];
            },
            arrow: async (sql, signal) => {
              const out = await run(sql, signal !== undefined ? { ...dbCtx, signal } : dbCtx, true);
              return out?.kind === 'records' ? out.arrow : undefined;
            },
          });
        };
        // GreptimeDB's `{__database__="db"}` on a selector reads another database.
        return new DatabaseRoutedSource(ctx.database, open, async () => (await catalog.databases()).map((d) => d.name));
      },
    },
    ingest: {
      ingest: (tables, ctx, opts) => frontend.ingest(tables, newSession(ctx.database, ctx.timezone, ctx.user), opts),
      deleteRows: (tables, ctx) => frontend.deleteRows(tables, newSession(ctx.database, ctx.timezone, ctx.user)),
    },
    ...(users !== undefined && {
      users,
      auth: { authenticate: (u: string, p: string) => users.authenticate(u, p), userEntry: (u: string) => users.userEntry(u), verifierKinds: () => users.verifierKinds() },
    }),
  };
}
