/**
 * What a metasrv process runs behind its gRPC server: the metadata store (etcd at `store_addr`, or
 * memory with `use_memory_store`), the metasrv itself (heartbeats, leases, placement, DDL
 * procedures, failover) and its meta service on `bind_addr`.
 *
 * etcd unreachable at start does not keep the process from starting: its HTTP server answers
 * (`/ready` 503, `/health` says why), the meta service answers "not ready" (retryable), and the
 * connection is retried with backoff, each failure logged, until etcd answers; then the metasrv
 * starts and says so. Never a silent "started" without its store. Once started, etcd is watched
 * (`meta/kv/watched-kv-backend.ts`): while it cannot be reached `/ready` says 503 and the log
 * says why; metadata calls then fail at once with StorageUnavailable naming etcd.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { processHealth } from '../common/health/health-board.js';
import type { Logger } from '../common/logging.js';
import type { MetasrvOptions } from '../config/options.js';
import { EtcdKvBackend } from '../meta/kv/etcd-kv-backend.js';
import type { KvBackend } from '../meta/kv/kv-backend.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import { WatchedKvBackend } from '../meta/kv/watched-kv-backend.js';
import type { MetaService } from '../meta/meta-service.js';
import { Metasrv } from '../meta/metasrv/metasrv.js';
import type { GrpcServer } from '../servers/grpc/grpc-server.js';
import { addMetaService } from '../servers/grpc/meta-service-server.js';
import { RemoteRegionServer } from '../servers/grpc/region-client.js';
import type { AdminHandler } from '../servers/handlers.js';
import type { RpcServices } from './component.js';

const STORE_HEALTH_KEY = 'metasrv:store';
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export class MetasrvServices implements RpcServices {
  private kv: KvBackend | undefined;
  private metasrv: Metasrv | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private advertised: string;

  constructor(
    private readonly config: MetasrvOptions,
    private readonly logger: Logger,
  ) {
    this.advertised = config.server_addr;
  }

  /** The meta service: the metasrv once its store is open; until then every call answers "not ready". */
  private readonly service: MetaService = new Proxy({} as MetaService, {
    get: (_target, prop: keyof MetaService) => {
      if (prop === 'subscribe') {
        return (listener: Parameters<MetaService['subscribe']>[0]) => {
          if (this.metasrv === undefined) throw this.notReady();
          return this.metasrv.subscribe(listener);
        };
      }
      return (...args: unknown[]) => {
        const m = this.metasrv;
        if (m === undefined) return Promise.reject(this.notReady());
        return (m[prop] as (...a: unknown[]) => unknown).apply(m, args);
      };
    },
  });

  private notReady(): TsdbError {
    const where = this.config.use_memory_store ? 'memory' : `etcd at ${this.config.store_addr.join(',')}`;
    return new TsdbError(StatusCode.StorageUnavailable, `metasrv is not ready: its metadata store (${where}) is not open yet`);
  }

  /** The cluster view of `/admin/…`. */
  readonly admin: AdminHandler = {
    nodes: async () => {
      const m = this.metasrv;
      if (m === undefined) throw this.notReady();
      return m.clusterInfo();
    },
    routes: async () => {
      const m = this.metasrv;
      if (m === undefined) throw this.notReady();
      return (await m.range('__table_route/')).map((e) => JSON.parse(Buffer.from(e.value).toString('utf8')) as unknown);
    },
  };

  async start(): Promise<(server: GrpcServer) => void> {
    if (this.config.enable_region_failover && !this.config.allow_region_failover_on_local_wal) {
      throw new TsdbError(
        StatusCode.InvalidArguments,
        'enable_region_failover needs allow_region_failover_on_local_wal = true: tsdb datanodes keep their WAL on local disk, so rows a lost datanode acknowledged but had not flushed are lost when its regions move to another datanode; set it to accept that risk',
      );
    }
    if (this.config.use_memory_store) {
      this.logger.warn('use_memory_store: cluster metadata is kept in memory and lost when this metasrv stops (for tests only)');
      await this.open(new MemoryKvBackend());
    } else {
      await this.connectStore(FIRST_RETRY_MS);
    }
    return (server) => addMetaService(server, this.service, this.logger);
  }

  serving(addr: string): void {
    // Bound to port 0 (tests): what others reach is the port chosen.
    if (this.config.bind_addr.endsWith(':0') || this.config.server_addr.endsWith(':0')) this.advertised = addr;
  }

  /** Tries etcd once; on failure reports it and tries again later (doubling the wait up to 10 s). */
  private async connectStore(waitMs: number): Promise<void> {
    const endpoints = this.config.store_addr;
    try {
      const kv = await EtcdKvBackend.connect({ endpoints });
      if (this.stopped) {
        await kv.close();
        return;
      }
      if (processHealth.has(STORE_HEALTH_KEY)) this.logger.info({ store_addr: endpoints }, 'etcd reachable again');
      await this.open(this.watch(kv));
    } catch (err) {
      if (this.stopped) return;
      const message = `cannot reach etcd at ${endpoints.join(',')} (${(err as Error).message}); retrying in ${Math.round(waitMs / 100) / 10} s`;
      processHealth.set(STORE_HEALTH_KEY, 'metasrv', `metadata store unreachable: ${message}`, true);
      this.logger.error({ store_addr: endpoints }, `metasrv not ready: ${message}`);
      this.retry = setTimeout(() => void this.connectStore(Math.min(waitMs * 2, MAX_RETRY_MS)), waitMs);
    }
  }

  /** etcd once open: an outage marks the metasrv not ready (and is logged) until etcd answers again. */
  private watch(kv: KvBackend): KvBackend {
    const endpoints = this.config.store_addr.join(',');
    return new WatchedKvBackend(kv, {
      onDown: (err) => {
        const message = `cannot reach etcd at ${endpoints}: ${err.message}`;
        processHealth.set(STORE_HEALTH_KEY, 'metasrv', `metadata store unreachable: ${message}`, true);
        this.logger.error({ store_addr: this.config.store_addr }, `metasrv not ready: ${message}; DDL and metadata reads fail until it answers (tried every second), heartbeats keep the leases of regions whose placement is known`);
      },
      onUp: (downMs) => {
        processHealth.clear(STORE_HEALTH_KEY);
        this.logger.info({ store_addr: this.config.store_addr, down_ms: downMs }, `etcd reachable again after ${Math.round(downMs / 100) / 10} s: metasrv ready`);
      },
    });
  }

  private async open(kv: KvBackend): Promise<void> {
    this.kv = kv;
    const self = this;
    const metasrv = new Metasrv({
      kv,
      selector: this.config.selector,
      // Read when asked: bound to port 0, the address is known once the server listens.
      get serverAddr() {
        return self.advertised;
      },
      connect: (peer) => new RemoteRegionServer(peer.addr),
      enableFailover: this.config.enable_region_failover,
      logger: this.logger,
    });
    await metasrv.start();
    this.metasrv = metasrv;
    processHealth.clear(STORE_HEALTH_KEY);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    await this.metasrv?.stop();
    this.metasrv = undefined;
    await this.kv?.close();
    this.kv = undefined;
  }
}
