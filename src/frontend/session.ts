/**
 * A session: who is asking, in which database and time zone. Each HTTP request is a fresh session
 * (reference api.md §7); a `USE` or `SET` changes only the later statements of the same request.
 */
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/table-info.js';
import { DEFAULT_USER, type UserInfo } from './auth/user-provider.js';

export interface Session {
  readonly catalog: string;
  database: string;
  /** IANA name or offset (`UTC`, `Asia/Shanghai`, `+08:00`). */
  timezone: string;
  readonly user: UserInfo;
  /**
   * The wire protocol the session came over (undefined: HTTP or in-process). PostgreSQL sessions
   * see `pg_catalog` and PostgreSQL's dialect of catalog queries (`query/pg-dialect.ts`).
   */
  readonly protocol?: SessionProtocol;
  /**
   * Aborted when the running statements must stop (KILL, the client's disconnect or deadline,
   * `statement-control.ts`); its reason is the TsdbError to fail with. Set while statements run. A
   * query waiting for a slot (`query-gate.ts`) stops waiting with the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * Queries answer their rows as Arrow record batches (`Output.arrow`) where their types allow
   * (Flight DoGet): no row of JavaScript values is built.
   */
  readonly arrow?: boolean;
  /** Statements tsdb runs for itself (a PromQL query's reads): not counted in `tsdb_query_elapsed`. */
  readonly internal?: boolean;
  /** The MySQL connection id or PostgreSQL backend pid (`connection_id()`, `pg_backend_pid()`); absent: 0. */
  readonly connectionId?: number;
  /** SQL `PREPARE`d statements by name (`statement/prepared.ts`); created by the first PREPARE. */
  prepared?: Map<string, PreparedStatement>;
}

/** A statement kept by SQL `PREPARE`: its text with placeholders, and its parameters' declared types. */
export interface PreparedStatement {
  readonly sql: string;
  readonly types: readonly string[];
}

export type SessionProtocol = 'postgres' | 'mysql' | 'http' | 'grpc';

export function newSession(database = DEFAULT_DATABASE, timezone = 'UTC', user: UserInfo = DEFAULT_USER, protocol?: SessionProtocol): Session {
  return { catalog: DEFAULT_CATALOG, database, timezone, user, ...(protocol !== undefined && { protocol }) };
}
