/**
 * What the protocol servers need from the component that runs them. A server sees the rest of
 * tsdb only through these interfaces; the component passes the implementations in, tests pass fakes
 * (GreptimeDB `src/servers/src/query_handler.rs`).
 */
import type { UserEntry, UserInfo, VerifierKind } from '../frontend/auth/user-provider.js';
import type { IngestOptions, IngestTable } from '../frontend/ingest-request.js';
import type { SessionProtocol } from '../frontend/session.js';
import type { TableSummary } from '../frontend/table-summary.js';
import type { PromSource } from '../promql/source.js';
import type { Output } from '../query/output.js';

/** `GET /status`: what is running. */
export interface StatusInfo {
  readonly version: string;
  readonly commit: string;
  readonly branch: string;
  readonly build_date: string;
  readonly node_version: string;
  readonly hostname: string;
  readonly component: string;
  readonly pid: number;
  readonly start_time: string;
  /** Time since start, written like a configuration duration (`1h2m3s`). */
  readonly uptime: string;
  readonly uptime_seconds: number;
}

export interface StatusHandler {
  status(): StatusInfo;
}

/** `GET /config`: the effective configuration as TOML, secrets masked. */
export interface ConfigHandler {
  configToml(): string;
}

/** Where a SQL request runs: its database and time zone. */
export interface SqlContext {
  readonly database: string;
  readonly timezone: string;
  /** Who asks (the default user when authentication is off); statements are checked against its permission. */
  readonly user: UserInfo;
  /** The protocol of the connection (PostgreSQL sessions see pg_catalog; gRPC's is `grpc`); undefined for HTTP. */
  readonly protocol?: SessionProtocol;
  /**
   * Aborted when the client no longer wants the answer (disconnect, HTTP deadline, PostgreSQL
   * CancelRequest): the running statement stops and fails with the reason when it is a TsdbError
   * (else StatusCode.Cancelled).
   */
  readonly signal?: AbortSignal;
  /** Time limit of each executeSql call in milliseconds (MySQL max_execution_time, PostgreSQL statement_timeout); 0/absent: none. */
  readonly timeoutMs?: number;
  /** The client's address (`host:port`), shown by SHOW PROCESSLIST. */
  readonly client?: string;
  /** The MySQL connection id or PostgreSQL backend pid, for `KILL QUERY <id>` and CancelRequest. */
  readonly connectionId?: number;
  /** Queries may answer their rows as Arrow record batches (`Output.arrow`; Flight DoGet). */
  readonly arrow?: boolean;
  /**
   * The connection's SQL `PREPARE`d statements, by name (MySQL, PostgreSQL: they outlive one call);
   * absent: a call's statements share their own (HTTP).
   */
  readonly prepared?: Map<string, { readonly sql: string; readonly types: readonly string[] }>;
}

/** Present when a user provider is configured: every `/v1/**` request must authenticate. */
export interface AuthHandler {
  /** Checks a cleartext password (HTTP Basic, PostgreSQL cleartext). */
  authenticate(username: string, password: string): Promise<UserInfo>;
  /**
   * The user's entry with its verifier, for handshakes that never see the password (MySQL
   * mysql_native_password, PostgreSQL SCRAM-SHA-256); undefined for an unknown user.
   */
  userEntry(username: string): UserEntry | undefined;
  /** The verifier kinds in use (PostgreSQL offers SCRAM only when every user's allows it). */
  verifierKinds(): ReadonlySet<VerifierKind>;
}

/** `/v1/sql` (and later the MySQL and PostgreSQL servers): runs SQL text. */
export interface SqlHandler {
  /** Runs the statements in order; the first failure rejects (earlier results are dropped). */
  executeSql(sql: string, ctx: SqlContext): Promise<Output[]>;
  /** Whether the database exists (requests name it before anything runs). */
  databaseExists(database: string): Promise<boolean>;
  /**
   * The tables of `ctx.database` (only `names` when given) with their columns, for protocols that
   * look them up: remote read (`access` read, the default) and Flight DoPut, which maps its columns
   * to the table's before writing (`access` write: a write-only user may look up what it writes).
   */
  tables(ctx: SqlContext, names?: readonly string[], access?: 'read' | 'write'): Promise<TableSummary[]>;
  /**
   * Cancels the statements running on a connection of `protocol` (MySQL `KILL QUERY` from another
   * connection, COM_PROCESS_KILL, PostgreSQL CancelRequest); `ctx` is who asks (with authentication
   * on, only its own statements). Returns how many were cancelled.
   */
  cancelConnection?(protocol: SessionProtocol, connectionId: number, why: string, ctx?: SqlContext): number;
}

/** PromQL (the Prometheus HTTP API, `/v1/promql`, the gRPC PrometheusGateway): what queries read. */
export interface PromqlHandler {
  /**
   * The samples of `ctx.database` as `ctx.user` reads them (read permission, checked as SQL checks
   * it; PermissionDenied otherwise); undefined when the database does not exist. Its scans run
   * under `query.timeout` and stop with `ctx.signal`.
   */
  source(ctx: SqlContext): Promise<PromSource | undefined>;
  /** `query.timeout` in ms: the longest a PromQL query may run when its client sets no shorter limit (0/absent: none). */
  readonly queryTimeoutMs?: number;
  /**
   * Told of each PromQL query when it ends, failed or not, with how long it ran (the slow query
   * recorder). Returns at once and never throws.
   */
  queryEnded?(query: PromQueryEnded, ctx: SqlContext, elapsedMs: number): void;
}

/** A PromQL query that ended: its text and evaluation range (ms since the epoch) and step (ms; 0: instant). */
export interface PromQueryEnded {
  readonly query: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
}

/** The ingestion protocols (InfluxDB, OpenTSDB, Prometheus remote write): rows decoded into tables. */
export interface IngestHandler {
  /**
   * Writes the tables into `ctx.database`, creating tables and adding columns as needed; checked
   * whole before anything is written. Returns the number of rows written.
   */
  ingest(tables: readonly IngestTable[], ctx: SqlContext, opts?: IngestOptions): Promise<number>;
  /**
   * Deletes the rows the tables name by primary key (every tag) and time index (gRPC row deletes;
   * field columns are ignored); each table must exist. Checked whole before anything is written.
   * Returns the number of rows deleted.
   */
  deleteRows(tables: readonly IngestTable[], ctx: SqlContext): Promise<number>;
}

/** Which ingestion protocols the HTTP server serves (`influxdb.enable`, `opentsdb.enable`, `prom_store.enable`). */
export interface IngestProtocols {
  readonly influxdb: boolean;
  readonly opentsdb: boolean;
  readonly promStore: boolean;
  /** `prom_store.with_metric_engine`: remote write makes logical tables of the metric engine. */
  readonly promWithMetricEngine: boolean;
}

/** A metasrv's view of the cluster (`/admin/nodes`, `/admin/routes`). */
export interface AdminHandler {
  nodes(): Promise<unknown[]>;
  routes(): Promise<unknown[]>;
}

export interface HttpHandlers {
  readonly status: StatusHandler;
  readonly config: ConfigHandler;
  /** Present on a metasrv. */
  readonly admin?: AdminHandler;
  /** Present on components that answer SQL (standalone, frontend). */
  readonly sql?: SqlHandler;
  /** Present with `sql`: PromQL's reads. */
  readonly promql?: PromqlHandler;
  readonly auth?: AuthHandler;
  /** Present on components that store rows (standalone, frontend), with the protocols switched on. */
  readonly ingest?: { readonly handler: IngestHandler; readonly protocols: IngestProtocols };
}
