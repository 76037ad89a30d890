/**
 * A component (`standalone`, `frontend`, `datanode`, `metasrv`) is wiring of the layers below:
 * it prepares its directories, starts its servers, and stops them in reverse order.
 */
import { buildInfo, host } from '../common/build-info.js';
import { DirLock, ensureWritableDir } from '../common/fs/dirs.js';
import type { Logger } from '../common/logging.js';
import { formatDuration } from '../common/time/duration.js';
import { formatAddress } from '../common/net/address.js';
import type { ComponentName } from '../config/flags.js';
import type { HttpOptions, TlsOptions } from '../config/options.js';
import { renderConfig } from '../config/render.js';
import type { Section } from '../config/schema.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { AdminHandler, AuthHandler, HttpHandlers, IngestHandler, IngestProtocols, PromqlHandler, PromQueryEnded, SqlContext, SqlHandler, StatusInfo } from '../servers/handlers.js';
import { HttpServer } from '../servers/http/http-server.js';
import { greptimeDatabaseService, healthCheckService, withDirectRowDecoding, withLenientDecoding } from '../servers/grpc/database-service.js';
import { flightPackageDefinition, flightServiceDefinition, flightServiceImplementation } from '../servers/grpc/flight-service.js';
import { GrpcServer } from '../servers/grpc/grpc-server.js';
import { addRegionService } from '../servers/grpc/region-service.js';
import { prometheusGatewayService } from '../servers/grpc/prometheus-gateway.js';
import type { RegionServer } from '../types/region-server.js';
import { greptimePackageDefinition, greptimeServiceDefinition } from '../servers/grpc/protos.js';
import { MysqlServer } from '../servers/mysql/mysql-server.js';
import { PostgresServer } from '../servers/postgres/postgres-server.js';
import type { Server } from '../servers/server.js';
import { startProcessMetrics } from '../common/metrics/registry.js';
import { startMetricsExport, type ExportMetricsConfig, type MetricsExporter } from '../servers/export-metrics/metrics-exporter.js';

export interface Component {
  readonly name: ComponentName;
  /** Starts everything; on failure, what was started is left for `stop()` to undo. */
  start(): Promise<void>;
  /**
   * Stops what was started (safe after a failed or partial start): running statements are
   * interrupted, the servers stop accepting and answer what is in flight, then the data side
   * closes (the WAL keeps every acknowledged row). The data directory stays locked until the
   * process exits (common/fs/dirs.ts), so that no second server opens it while this one ends.
   */
  stop(): Promise<void>;
  /** The servers it runs, with their bound addresses once started. */
  servers(): readonly Server[];
}

export interface ServingComponentOptions {
  readonly name: ComponentName;
  readonly schema: Section;
  readonly config: unknown;
  readonly http: HttpOptions;
  /** Serve the dashboard (frontend and standalone, unless `http.disable_dashboard`). */
  readonly dashboard?: boolean;
  /** The directory this component owns: created, checked writable and locked (none on a frontend). */
  readonly home?: { readonly option: string; readonly dir: string };
  /** Other directories it writes: created and checked writable. */
  readonly dirs?: ReadonlyArray<{ readonly option: string; readonly dir: string }>;
  readonly logger: Logger;
  /** Configured listeners this build does not serve yet, e.g. `MySQL on 127.0.0.1:4002`; logged at start. */
  readonly notServedYet?: readonly string[];
  /** What answers SQL (storage, catalog, engine, frontend), started before the servers. */
  readonly services?: ComponentServices;
  /** The ingestion protocols served over HTTP (with `services`). */
  readonly protocols?: IngestProtocols;
  /** The PostgreSQL server's address and TLS, when it is enabled (with `services`). */
  readonly postgres?: { readonly addr: string; readonly tls?: TlsOptions };
  /** The MySQL server's address and TLS, when it is enabled (with `services`). */
  readonly mysql?: { readonly addr: string; readonly tls?: TlsOptions };
  /** The gRPC server's address (with `services`). */
  readonly grpc?: { readonly addr: string };
  /** The time zone of sessions that name none (`default_timezone`); undefined: UTC. */
  readonly defaultTimezone?: string;
  /**
   * The region service (a datanode's, DESIGN.md D13): the region server `regions` opens, served
   * over gRPC on `addr` (`servers/grpc/region-service.ts`).
   */
  readonly regionService?: { readonly addr: string; readonly regions: RegionServices };
  /** Other gRPC services of the component (a metasrv's meta service), served on `addr`. */
  readonly rpc?: { readonly addr: string; readonly services: RpcServices };
  /** The cluster view a metasrv serves over HTTP (`/admin/…`). */
  readonly admin?: AdminHandler;
  /** `[export_metrics]`: started once the servers listen, stopped first. */
  readonly exportMetrics?: ExportMetricsConfig;
}

/** gRPC services a component serves besides the protocols: opened at start, closed after the servers stop. */
export interface RpcServices {
  /** Opens what the services need; returns how to add them to the gRPC server. */
  start(): Promise<(server: GrpcServer) => void>;
  /** Once the gRPC server listens: its bound address (`host:port`). */
  serving?(addr: string): void;
  stop(): Promise<void>;
}

/** The data side of a datanode: the region server it serves, opened after its directory is locked. */
export interface RegionServices {
  start(): Promise<RegionServer>;
  /** Once the region service listens: its bound address (`host:port`), e.g. to advertise it to the metasrv. */
  serving?(addr: string): void;
  stop(): Promise<void>;
}

/** The data side of a component: started after its directory is locked, stopped after its servers. */
export interface ComponentServices {
  start(): Promise<{ readonly sql: SqlHandler; readonly ingest: IngestHandler; readonly promql?: PromqlHandler; readonly auth?: AuthHandler }>;
  stop(): Promise<void>;
  /**
   * At shutdown, before the servers wait for their requests: refuses new statements and
   * interrupts the running ones. Returns how many were interrupted.
   */
  interrupt?(): number;
  /** Whether requests must authenticate (a user provider is configured). */
  readonly authEnabled: boolean;
}

/** The lifecycle every component shares: home directory, HTTP server, status and config. */
export class ServingComponent implements Component {
  readonly name: ComponentName;
  private readonly startedAt = new Date();
  private readonly log: Logger;
  private lock: DirLock | undefined;
  private readonly http: HttpServer;
  private readonly postgres: PostgresServer | undefined;
  private readonly mysql: MysqlServer | undefined;
  private readonly grpc: GrpcServer | undefined;
  private regionGrpc: GrpcServer | undefined;
  private regionsStarted = false;
  private rpcGrpc: GrpcServer | undefined;
  private rpcStarted = false;
  private sql: SqlHandler | undefined;
  private ingest: IngestHandler | undefined;
  private promql: PromqlHandler | undefined;
  private auth: AuthHandler | undefined;
  private servicesStarted = false;
  private exporter: MetricsExporter | undefined;

  constructor(private readonly opts: ServingComponentOptions) {
    this.name = opts.name;
    this.log = opts.logger;
    const ingestHandler: IngestHandler = {
      ingest: (tables, ctx, o) => this.ingestHandler().ingest(tables, ctx, o),
      deleteRows: (tables, ctx) => this.ingestHandler().deleteRows(tables, ctx),
    };
    const tz = opts.defaultTimezone !== undefined ? { defaultTimezone: opts.defaultTimezone } : {};
    const handlers: HttpHandlers = {
      status: { status: () => this.status() },
      ...(opts.admin !== undefined && { admin: opts.admin }),
      config: { configToml: () => renderConfig(opts.schema, opts.config, { mask: true }) },
      ...(opts.services !== undefined && {
        sql: {
          executeSql: (sql, ctx) => this.sqlHandler().executeSql(sql, ctx),
          databaseExists: (db) => this.sqlHandler().databaseExists(db),
          tables: (ctx, names, access) => this.sqlHandler().tables(ctx, names, access),
        },
        promql: ((component) => ({
          source: (ctx: SqlContext) => component.promqlHandler().source(ctx),
          queryEnded: (q: PromQueryEnded, ctx: SqlContext, ms: number) => component.promql?.queryEnded?.(q, ctx, ms),
          get queryTimeoutMs(): number | undefined {
            return component.promql?.queryTimeoutMs;
          },
        }))(this),
        ...(opts.protocols !== undefined && {
          ingest: { handler: ingestHandler, protocols: opts.protocols },
        }),
        ...(opts.services.authEnabled && {
          auth: {
            authenticate: (username: string, password: string) => this.authHandler().authenticate(username, password),
            userEntry: (username: string) => this.authHandler().userEntry(username),
            verifierKinds: () => this.authHandler().verifierKinds(),
          },
        }),
      }),
    };
    this.http = new HttpServer(
      { timeout: opts.http.timeout, bodyLimit: opts.http.body_limit, logger: opts.logger, ...tz, ...(opts.dashboard === true && { dashboard: true }) },
      handlers,
    );
    if (opts.postgres !== undefined && handlers.sql !== undefined) {
      this.postgres = new PostgresServer({ logger: opts.logger, ...tz, ...(opts.postgres.tls !== undefined && { tls: opts.postgres.tls }) }, { sql: handlers.sql, ...(handlers.auth !== undefined && { auth: handlers.auth }) });
    }
    if (opts.grpc !== undefined && handlers.sql !== undefined) {
      const grpc = (this.grpc = new GrpcServer({ logger: opts.logger }));
      const grpcHandlers = { sql: handlers.sql, ingest: ingestHandler, ...(handlers.auth !== undefined && { auth: handlers.auth }), ...tz };
      const pkg = greptimePackageDefinition();
      grpc.addService(withLenientDecoding(withDirectRowDecoding(greptimeServiceDefinition('greptime.v1.GreptimeDatabase'))), greptimeDatabaseService(grpcHandlers, opts.logger), pkg);
      grpc.addService(greptimeServiceDefinition('greptime.v1.HealthCheck'), healthCheckService(), pkg);
      if (handlers.promql !== undefined) {
        grpc.addService(greptimeServiceDefinition('greptime.v1.PrometheusGateway'), prometheusGatewayService({ promql: handlers.promql, ...(handlers.auth !== undefined && { auth: handlers.auth }) }, opts.logger), pkg);
      }
      grpc.addService(flightServiceDefinition(), flightServiceImplementation({ ...grpcHandlers, logger: opts.logger }), flightPackageDefinition());
    }
    if (opts.mysql !== undefined && handlers.sql !== undefined) {
      this.mysql = new MysqlServer({ logger: opts.logger, ...tz, ...(opts.mysql.tls !== undefined && { tls: opts.mysql.tls }) }, { sql: handlers.sql, ...(handlers.auth !== undefined && { auth: handlers.auth }) });
    }
  }

  async start(): Promise<void> {
    // Process and Node metrics for /metrics and [export_metrics] (once per process).
    startProcessMetrics();
    const { home, dirs = [] } = this.opts;
    if (home !== undefined) {
      ensureWritableDir(home.dir, home.option);
      this.lock = DirLock.acquire(home.dir, home.option);
    }
    for (const d of dirs) ensureWritableDir(d.dir, d.option);
    const all = home !== undefined ? [home, ...dirs] : dirs;
    if (all.length > 0) {
      this.log.info(Object.fromEntries(all.map((d) => [d.option, d.dir])), `${this.name}: data directories ready`);
    }
    if (this.opts.services !== undefined) {
      this.servicesStarted = true;
      const started = await this.opts.services.start();
      this.sql = started.sql;
      this.ingest = started.ingest;
      this.promql = started.promql;
      this.auth = started.auth;
    }
    if (this.opts.regionService !== undefined) {
      this.regionsStarted = true;
      const regions = await this.opts.regionService.regions.start();
      const grpc = (this.regionGrpc = new GrpcServer({ logger: this.log }));
      addRegionService(grpc, regions, this.log);
    }
    if (this.opts.rpc !== undefined) {
      this.rpcStarted = true;
      const add = await this.opts.rpc.services.start();
      add((this.rpcGrpc = new GrpcServer({ logger: this.log })));
    }
    await this.http.start(this.opts.http.addr);
    if (this.grpc !== undefined) await this.grpc.start(this.opts.grpc!.addr);
    if (this.regionGrpc !== undefined) await this.regionGrpc.start(this.opts.regionService!.addr);
    if (this.rpcGrpc !== undefined) await this.rpcGrpc.start(this.opts.rpc!.addr);
    if (this.mysql !== undefined) await this.mysql.start(this.opts.mysql!.addr);
    if (this.postgres !== undefined) await this.postgres.start(this.opts.postgres!.addr);
    const bound = (s: GrpcServer | undefined) => {
      const a = s?.boundAddress();
      return a === undefined || a === null ? undefined : formatAddress(a);
    };
    const regionAddr = bound(this.regionGrpc);
    if (regionAddr !== undefined) this.opts.regionService!.regions.serving?.(regionAddr);
    const rpcAddr = bound(this.rpcGrpc);
    if (rpcAddr !== undefined) this.opts.rpc!.services.serving?.(rpcAddr);
    if (this.opts.exportMetrics !== undefined) this.exporter = await this.startExport(this.opts.exportMetrics);
    const pending = this.opts.notServedYet ?? [];
    if (pending.length > 0) this.log.info({ not_served: pending }, `not served by this build yet: ${pending.join(', ')}`);
  }

  private startExport(config: ExportMetricsConfig): Promise<MetricsExporter | undefined> {
    // The `instance` label: the HTTP address, with the host name for a wildcard bind.
    const addr = this.http.boundAddress();
    const instance = addr === undefined ? host() : addr.host === '0.0.0.0' || addr.host === '::' ? `${host()}:${addr.port}` : formatAddress(addr);
    const selfImport = this.sql !== undefined && this.ingest !== undefined ? { sql: this.sql, ingest: this.ingest, withMetricEngine: this.opts.protocols?.promWithMetricEngine ?? true } : undefined;
    return startMetricsExport(config, { component: this.name, instance, logger: this.log, ...(selfImport !== undefined && { selfImport }) });
  }

  private ingestHandler(): IngestHandler {
    if (this.ingest === undefined) throw new TsdbError(StatusCode.IllegalState, `the ${this.name} is not ready`);
    return this.ingest;
  }

  private promqlHandler(): PromqlHandler {
    if (this.promql === undefined) throw new TsdbError(StatusCode.IllegalState, `the ${this.name} is not ready`);
    return this.promql;
  }

  private authHandler(): AuthHandler {
    if (this.auth === undefined) throw new TsdbError(StatusCode.IllegalState, `the ${this.name} is not ready`);
    return this.auth;
  }

  private sqlHandler(): SqlHandler {
    if (this.sql === undefined) throw new TsdbError(StatusCode.IllegalState, `the ${this.name} is not ready`);
    return this.sql;
  }

  async stop(): Promise<void> {
    await this.exporter?.stop();
    this.exporter = undefined;
    if (this.servicesStarted) {
      const interrupted = this.opts.services!.interrupt?.() ?? 0;
      if (interrupted > 0) this.log.info({ statements: interrupted }, `interrupted ${interrupted} running statement(s)`);
    }
    // Every server stops (and the data side closes) even if one of them fails to.
    const stopped = await Promise.allSettled([this.grpc?.shutdown(), this.regionGrpc?.shutdown(), this.rpcGrpc?.shutdown(), this.postgres?.shutdown(), this.mysql?.shutdown(), this.http.shutdown()]);
    if (this.rpcStarted) {
      this.rpcStarted = false;
      await this.opts.rpc!.services.stop();
    }
    if (this.regionsStarted) {
      this.regionsStarted = false;
      await this.opts.regionService!.regions.stop();
    }
    if (this.servicesStarted) {
      this.servicesStarted = false;
      this.sql = undefined;
      this.promql = undefined;
      this.auth = undefined;
      await this.opts.services!.stop();
    }
    const failed = stopped.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    // The lock (this.lock) is released when the process exits, not here.
  }

  servers(): readonly Server[] {
    return [this.http, ...(this.grpc !== undefined ? [this.grpc] : []), ...(this.regionGrpc !== undefined ? [this.regionGrpc] : []), ...(this.rpcGrpc !== undefined ? [this.rpcGrpc] : []), ...(this.mysql !== undefined ? [this.mysql] : []), ...(this.postgres !== undefined ? [this.postgres] : [])];
  }

  status(): StatusInfo {
    const b = buildInfo();
    const uptimeMs = Date.now() - this.startedAt.getTime();
    return {
      version: b.version,
      commit: b.commit,
      branch: b.branch,
      build_date: b.build_date,
      node_version: process.version,
      hostname: host(),
      component: this.name,
      pid: process.pid,
      start_time: this.startedAt.toISOString(),
      uptime: formatDuration(Math.floor(uptimeMs / 1000) * 1000),
      uptime_seconds: uptimeMs / 1000,
    };
  }
}
