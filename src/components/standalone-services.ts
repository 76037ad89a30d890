/**
 * The data side of a standalone server: the default object store, the catalog in a durable
 * key-value store under `{data_home}/metadata` (DESIGN.md D11), the region engine, and the frontend
 * that runs SQL on them. Started after the data home is locked, stopped after the servers.
 */
import { join } from 'node:path';
import { CatalogManager } from '../catalog/catalog-manager.js';
import type { Logger } from '../common/logging.js';
import type { StandaloneOptions } from '../config/options.js';
import { engineOptions } from '../engine/engine-options.js';
import { RegionEngine } from '../engine/region-engine.js';
import { FrontendInstance } from '../frontend/instance.js';
import { LocalRegionAccess } from '../frontend/region-access.js';
import { newSession } from '../frontend/session.js';
import { LevelKvBackend } from '../meta/kv/level-kv-backend.js';
import type { AuthHandler, IngestHandler, SqlHandler } from '../servers/handlers.js';
import { createUserProvider, type UserProvider } from '../frontend/auth/user-provider.js';
import { createObjectStore, storageProviders } from '../storage/create-object-store.js';
import { OpendalObjectStore } from '../storage/opendal-object-store.js';
import type { ComponentServices } from './component.js';

export class StandaloneServices implements ComponentServices {
  private kv: LevelKvBackend | undefined;
  private engine: RegionEngine | undefined;
  private frontend: FrontendInstance | undefined;
  private users: UserProvider | undefined;
  readonly authEnabled: boolean;

  constructor(
    private readonly config: StandaloneOptions,
    private readonly logger: Logger,
  ) {
    this.authEnabled = config.user_provider !== undefined && config.user_provider !== '';
  }

  async start(): Promise<{ sql: SqlHandler; ingest: IngestHandler; auth?: AuthHandler }> {
    const c = this.config;
    const store = createObjectStore(storageProviders(c.storage).get(c.storage.type)!);
    if (store instanceof OpendalObjectStore) {
      const removed = await store.removeStrayTemporaryFiles();
      if (removed > 0) this.logger.info({ files: removed }, 'removed temporary files of writes a crash interrupted');
    }
    this.kv = await LevelKvBackend.open(join(c.storage.data_home, 'metadata'));
    const catalog = await CatalogManager.open(this.kv);
    this.engine = await RegionEngine.open(engineOptions(c, store, this.logger));
    // Tables are stored in the default provider for now; the `storage` option must still name a configured one.
    const frontend = (this.frontend = new FrontendInstance(catalog, new LocalRegionAccess(this.engine), [...storageProviders(c.storage).keys()]));
    const started = Date.now();
    const tables = await frontend.openTables();
    this.logger.info({ tables, elapsed_ms: Date.now() - started }, 'opened the tables of the catalog');
    if (this.authEnabled) this.users = createUserProvider(c.user_provider!, { logger: this.logger });
    const users = this.users;
    return {
      sql: {
        executeSql: (sql, ctx) => frontend.executeSql(sql, newSession(ctx.database, ctx.timezone, ctx.user, ctx.protocol)),
        databaseExists: async (db) => (await catalog.database(db)) !== undefined,
        tables: (ctx, names) => frontend.tableSummaries(newSession(ctx.database, ctx.timezone, ctx.user), names),
      },
      ingest: {
        ingest: (tables, ctx, opts) => frontend.ingest(tables, newSession(ctx.database, ctx.timezone, ctx.user), opts),
      },
      ...(users !== undefined && {
        auth: { authenticate: (u: string, p: string) => users.authenticate(u, p), userEntry: (u: string) => users.userEntry(u), verifierKinds: () => users.verifierKinds() },
      }),
    };
  }

  interrupt(): number {
    return this.frontend?.interruptAll() ?? 0;
  }

  async stop(): Promise<void> {
    this.users?.close();
    this.users = undefined;
    this.frontend?.close();
    this.frontend = undefined;
    try {
      await this.engine?.close();
    } finally {
      this.engine = undefined;
      await this.kv?.close();
      this.kv = undefined;
    }
  }
}
