/**
 * Databases and tables of the catalog, kept in a key-value store (DESIGN.md D11) under GreptimeDB's
 * keys (reference internals.md §6.2):
 *
 *   __catalog_name/{catalog}                 {}
 *   __schema_name/{catalog}/{db}             DatabaseInfo
 *   __table_name/{catalog}/{db}/{table}      {"table_id": N}
 *   __table_info/{table_id}                  TableInfo
 *   __meta_seq-table_id                      the next table id (from 1024)
 *   __view_name/{catalog}/{db}/{view}        ViewInfo (view-info.ts; its id from the table ids)
 *
 * A table is created by writing its info first, then claiming its name with a compare-and-put, so
 * that two creations of one name cannot both win and a crash between the two leaves only an
 * unreferenced info record. `information_schema` is virtual: it is never stored.
 *
 * In a cluster the metasrv is the only writer and serializes the changes of each table name with
 * its procedure locks; its changes carry the table's placement (table-route.ts) and are written
 * as one batch each — name, info, `__table_route/{id}` and every `__dn_table/{node}/{id}` — so a
 * crash never leaves a table whose route or datanode shares are missing, or the other way round.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { KvBackend } from '../meta/kv/kv-backend.js';
import type { KvOp } from '../meta/kv/kv-backend.js';
import { checkDatabaseName } from './limit-checks.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE, FIRST_TABLE_ID, INFORMATION_SCHEMA, fullTableName, type DatabaseInfo, type TableInfo } from './table-info.js';
import type { ViewInfo } from './view-info.js';
import { datanodeTableKey, datanodeTablePrefix, routeNodeIds, tableRouteKey, type DatanodeTable, type TablePlacement, type TableRoute } from './table-route.js';

const SEQ_TABLE_ID = '__meta_seq-table_id';

function encode(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

function decode<T>(bytes: Uint8Array): T {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
}

/** JSON with every object's keys sorted: equal for equal values, whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function tableExists(info: Pick<TableInfo, 'catalog' | 'database' | 'name'>): TsdbError {
  return new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${fullTableName(info)}\``);
}

export class CatalogManager {
  readonly catalog = DEFAULT_CATALOG;
  /**
   * Tables by `db/name`, as last read. In a standalone server this process is the only writer of
   * its catalog, so every change goes through here and clears the cache; in a cluster the metasrv
   * writes and the wiring calls `invalidate()` on its events.
   */
  private readonly tableCache = new Map<string, Promise<TableInfo | undefined>>();
  /**
   * Databases by name, kept the same way: a statement does not read its database from the store
   * each time (in a cluster, a round trip to the metasrv and etcd), and a frontend whose metasrv
   * cannot reach etcd still reads and writes the tables it knows.
   */
  private readonly databaseCache = new Map<string, Promise<DatabaseInfo | undefined>>();
  /**
   * Datanodes' shares by node id, for the metasrv's heartbeat answers: kept across its own changes
   * (`batchWithShares`), so that while etcd cannot be reached the leases of regions whose placement
   * is known are still renewed. Forgotten by `invalidate()`.
   */
  private readonly shareCache = new Map<number, Promise<DatanodeTable[]>>();
  /** Views by `db/name`, kept as tables are (every query naming a table not found asks). */
  private readonly viewCache = new Map<string, Promise<ViewInfo | undefined>>();

  private constructor(private readonly kv: KvBackend) {}

  /** Runs a change of the catalog with the cache cleared before and after (reads during it are not kept). */
  private async change<T>(fn: () => Promise<T>): Promise<T> {
    this.forgetNames();
    try {
      return await fn();
    } finally {
      this.forgetNames();
    }
  }

  private forgetNames(): void {
    this.tableCache.clear();
    this.databaseCache.clear();
    this.viewCache.clear();
  }

  /**
   * Applies a batch that writes datanodes' shares. The cached shares follow it (this process is
   * the only writer: applying a put or delete to a list read before or after the batch gives the
   * list after it) rather than being forgotten, so that a metasrv whose etcd stops answering right
   * after a DDL still knows what each datanode holds. A batch that failed may or may not have been
   * applied: then every cached share is forgotten.
   */
  private async batchWithShares(ops: readonly KvOp[]): Promise<void> {
    try {
      await this.kv.batch(ops);
    } catch (err) {
      this.shareCache.clear();
      throw err;
    }
    const byNode = new Map<number, KvOp[]>();
    for (const op of ops) {
      const m = /^__dn_table\/(\d+)\/(\d+)$/.exec(op.key);
      if (m === null) continue;
      const node = Number(m[1]);
      byNode.set(node, [...(byNode.get(node) ?? []), op]);
    }
    for (const [node, nodeOps] of byNode) {
      const before = this.shareCache.get(node);
      if (before === undefined) continue;
      const after = before.then((list) => {
        const byKey = new Map(list.map((share) => [datanodeTableKey(node, share.table_id), share]));
        for (const op of nodeOps) {
          if (op.type === 'put') byKey.set(op.key, decode<DatanodeTable>(op.value));
          else byKey.delete(op.key);
        }
        return [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, share]) => share);
      });
      this.shareCache.set(node, after);
      after.catch(() => {
        if (this.shareCache.get(node) === after) this.shareCache.delete(node);
      });
    }
  }

  /** Forgets what was read (the metadata changed elsewhere). */
  invalidate(): void {
    this.tableCache.clear();
    this.databaseCache.clear();
    this.shareCache.clear();
    this.viewCache.clear();
  }

  /** `read(key)` through `cache`; a failed read is not kept. */
  private cached<K, V>(cache: Map<K, Promise<V>>, key: K, read: () => Promise<V>): Promise<V> {
    let p = cache.get(key);
    if (p === undefined) {
      p = read();
      cache.set(key, p);
      const kept = p;
      p.catch(() => {
        if (cache.get(key) === kept) cache.delete(key);
      });
    }
    return p;
  }

  /**
   * The catalog in a store another process writes (a cluster's, written by the metasrv, which
   * creates the catalog and `public`): reads only, nothing written.
   */
  static attach(kv: KvBackend): CatalogManager {
    return new CatalogManager(kv);
  }

  /** Opens the catalog in `kv`, creating the catalog and its `public` database on first use. */
  static async open(kv: KvBackend): Promise<CatalogManager> {
    const m = new CatalogManager(kv);
    await kv.compareAndPut(`__catalog_name/${m.catalog}`, undefined, encode({}));
    if ((await m.database(DEFAULT_DATABASE)) === undefined) await m.createDatabase(DEFAULT_DATABASE, {}, true);
    return m;
  }

  private dbKey(name: string): string {
    return `__schema_name/${this.catalog}/${name}`;
  }

  private nameKey(db: string, table: string): string {
    return `__table_name/${this.catalog}/${db}/${table}`;
  }

  async database(name: string): Promise<DatabaseInfo | undefined> {
    if (name === INFORMATION_SCHEMA) return { name, options: {}, created_at: 0 };
    return this.cached(this.databaseCache, name, async () => {
      const v = await this.kv.get(this.dbKey(name));
      return v === undefined ? undefined : decode<DatabaseInfo>(v);
    });
  }

  /** Every database, `information_schema` included, sorted by name. */
  async databases(): Promise<DatabaseInfo[]> {
    const stored = (await this.kv.range(`__schema_name/${this.catalog}/`)).map((e) => decode<DatabaseInfo>(e.value));
    return [...stored, { name: INFORMATION_SCHEMA, options: {}, created_at: 0 }].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Creates a database; false when it exists and `ifNotExists`. The name is checked (`limit-checks.ts`). */
  async createDatabase(name: string, options: Readonly<Record<string, string>>, ifNotExists: boolean): Promise<boolean> {
    checkDatabaseName(name);
    const info: DatabaseInfo = { name, options, created_at: Date.now() };
    if (name !== INFORMATION_SCHEMA && (await this.change(() => this.kv.compareAndPut(this.dbKey(name), undefined, encode(info))))) return true;
    if (ifNotExists) return false;
    // GreptimeDB answers InvalidArguments here (reference api.md §2), not DatabaseAlreadyExists.
    throw new TsdbError(StatusCode.InvalidArguments, `Schema ${name} already exists`);
  }

  async alterDatabase(name: string, set: Readonly<Record<string, string>>, unset: readonly string[]): Promise<void> {
    return this.change(async () => {
      const current = await this.requireDatabase(name);
      const options: Record<string, string> = { ...current.options, ...set };
      for (const k of unset) delete options[k];
      await this.kv.put(this.dbKey(name), encode({ ...current, options }));
    });
  }

  /** Removes a database record (its tables must be dropped first by the caller). */
  async dropDatabase(name: string): Promise<void> {
    return this.change(async () => {
      if (name === INFORMATION_SCHEMA) throw new TsdbError(StatusCode.Unsupported, `Cannot drop the system database ${name}`);
      await this.kv.delete(this.dbKey(name));
    });
  }

  async requireDatabase(name: string): Promise<DatabaseInfo> {
    const db = await this.database(name);
    if (db === undefined) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${name}`);
    return db;
  }

  table(db: string, name: string): Promise<TableInfo | undefined> {
    return this.cached(this.tableCache, `${db}/${name}`, () => this.readTable(db, name));
  }

  private async readTable(db: string, name: string): Promise<TableInfo | undefined> {
    const ref = await this.kv.get(this.nameKey(db, name));
    if (ref === undefined) return undefined;
    return this.tableById(decode<{ table_id: number }>(ref).table_id);
  }

  async tableById(id: number): Promise<TableInfo | undefined> {
    const v = await this.kv.get(`__table_info/${id}`);
    return v === undefined ? undefined : decode<TableInfo>(v);
  }

  /** The tables of a database, sorted by name. */
  async tables(db: string): Promise<TableInfo[]> {
    const refs = await this.kv.range(`__table_name/${this.catalog}/${db}/`);
    const out: TableInfo[] = [];
    for (const r of refs) {
      const t = await this.tableById(decode<{ table_id: number }>(r.value).table_id);
      if (t !== undefined) out.push(t);
    }
    return out;
  }

  /** Every table of every database. */
  async allTables(): Promise<TableInfo[]> {
    const refs = await this.kv.range(`__table_name/${this.catalog}/`);
    const out: TableInfo[] = [];
    for (const r of refs) {
      const t = await this.tableById(decode<{ table_id: number }>(r.value).table_id);
      if (t !== undefined) out.push(t);
    }
    return out;
  }

  /** A new table id (unique, increasing). */
  async allocateTableId(): Promise<number> {
    for (;;) {
      const current = await this.kv.get(SEQ_TABLE_ID);
      const next = current === undefined ? FIRST_TABLE_ID : decode<number>(current);
      if (await this.kv.compareAndPut(SEQ_TABLE_ID, current, encode(next + 1))) return next;
    }
  }

  /**
   * Records a new table. Throws TableAlreadyExists (with the name) when the name is taken; the
   * caller has created the table's regions and removes them then.
   *
   * With a `placement` (a cluster's metasrv, which holds the name's lock): the name, info, route
   * and every datanode's share in one batch, after checking that the name is free.
   */
  async createTable(info: TableInfo, placement?: TablePlacement): Promise<void> {
    return this.change(async () => {
      // Views share the table namespace.
      if ((await this.kv.get(this.viewKey(info.database, info.name))) !== undefined) throw tableExists(info);
      if (placement !== undefined) {
        if ((await this.kv.get(this.nameKey(info.database, info.name))) !== undefined) throw tableExists(info);
        const ops: KvOp[] = [
          { type: 'put', key: `__table_info/${info.table_id}`, value: encode(info) },
          { type: 'put', key: this.nameKey(info.database, info.name), value: encode({ table_id: info.table_id }) },
          { type: 'put', key: tableRouteKey(info.table_id), value: encode(placement.route) },
        ];
        for (const [node, share] of placement.datanodeTables) ops.push({ type: 'put', key: datanodeTableKey(node, info.table_id), value: encode(share) });
        await this.batchWithShares(ops);
        return;
      }
      await this.kv.put(`__table_info/${info.table_id}`, encode(info));
      const claimed = await this.kv.compareAndPut(this.nameKey(info.database, info.name), undefined, encode({ table_id: info.table_id }));
      if (!claimed) {
        await this.kv.delete(`__table_info/${info.table_id}`);
        throw tableExists(info);
      }
    });
  }

  /**
   * Replaces a table's info (alter); a rename moves its name key in the same batch.
   *
   * With `checkCurrent` (a cluster's metasrv, which holds the names' locks): fails with
   * RequestOutdated when the stored info is no longer `before` (another change came first; the
   * statement can be run again), and writes the info and any rename in one batch.
   */
  async updateTable(before: TableInfo, after: TableInfo, opts: { readonly checkCurrent?: boolean } = {}): Promise<void> {
    return this.change(async () => {
      if (opts.checkCurrent === true) {
        await this.checkCurrent(before);
        const ops: KvOp[] = [{ type: 'put', key: `__table_info/${after.table_id}`, value: encode(after) }];
        if (before.name !== after.name || before.database !== after.database) {
          if ((await this.kv.get(this.nameKey(after.database, after.name))) !== undefined) throw tableExists(after);
          ops.push({ type: 'put', key: this.nameKey(after.database, after.name), value: encode({ table_id: after.table_id }) });
          ops.push({ type: 'delete', key: this.nameKey(before.database, before.name) });
        }
        await this.kv.batch(ops);
        return;
      }
      if (before.name === after.name) {
        await this.kv.put(`__table_info/${after.table_id}`, encode(after));
        return;
      }
      if (!(await this.kv.compareAndPut(this.nameKey(after.database, after.name), undefined, encode({ table_id: after.table_id })))) {
        throw tableExists(after);
      }
      await this.kv.batch([
        { type: 'put', key: `__table_info/${after.table_id}`, value: encode(after) },
        { type: 'delete', key: this.nameKey(before.database, before.name) },
      ]);
    });
  }

  /**
   * Fails unless the stored info of `expected.table_id` is `expected`, under its name: TableNotFound
   * when it is gone, RequestOutdated when it changed (a retry reads it again).
   */
  async checkCurrent(expected: TableInfo): Promise<void> {
    const ref = await this.kv.get(this.nameKey(expected.database, expected.name));
    const stored = ref === undefined || decode<{ table_id: number }>(ref).table_id !== expected.table_id ? undefined : await this.tableById(expected.table_id);
    if (stored === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${fullTableName(expected)}`);
    if (canonical(stored) !== canonical(expected)) {
      throw new TsdbError(
        StatusCode.RequestOutdated,
        `Table ${fullTableName(expected)} was changed by another statement (schema version ${expected.schema_version} read, ${stored.schema_version} stored): run the statement again`,
      );
    }
  }

  /**
   * Removes a table's name and info. With its `route` (a cluster's metasrv): the route and every
   * datanode's share of the table go in the same batch.
   */
  async dropTable(info: TableInfo, route?: TableRoute): Promise<void> {
    return this.change(async () => {
      const ops: KvOp[] = [
        { type: 'delete', key: this.nameKey(info.database, info.name) },
        { type: 'delete', key: `__table_info/${info.table_id}` },
      ];
      if (route !== undefined) {
        ops.push({ type: 'delete', key: tableRouteKey(info.table_id) });
        for (const node of routeNodeIds(route)) ops.push({ type: 'delete', key: datanodeTableKey(node, info.table_id) });
      }
      await this.batchWithShares(ops);
    });
  }

  /** A table's route (cluster). */
  async tableRoute(tableId: number): Promise<TableRoute | undefined> {
    const v = await this.kv.get(tableRouteKey(tableId));
    return v === undefined ? undefined : decode<TableRoute>(v);
  }

  /** A datanode's share of one table. */
  async datanodeTable(nodeId: number, tableId: number): Promise<DatanodeTable | undefined> {
    const v = await this.kv.get(datanodeTableKey(nodeId, tableId));
    return v === undefined ? undefined : decode<DatanodeTable>(v);
  }

  /** A datanode's shares of the tables (what it opens at start), by table id. */
  datanodeTables(nodeId: number): Promise<DatanodeTable[]> {
    return this.cached(this.shareCache, nodeId, async () => (await this.kv.range(datanodeTablePrefix(nodeId))).map((e) => decode<DatanodeTable>(e.value)));
  }

  /**
   * Replaces a table's route and some datanodes' shares of it in one batch (a region moved: its
   * leader and the shares of the nodes it left and joined); an undefined share is removed.
   */
  async updateRoute(route: TableRoute, shares: ReadonlyMap<number, DatanodeTable | undefined>): Promise<void> {
    return this.change(async () => {
      const ops: KvOp[] = [{ type: 'put', key: tableRouteKey(route.table_id), value: encode(route) }];
      for (const [node, share] of shares) {
        ops.push(share === undefined ? { type: 'delete', key: datanodeTableKey(node, route.table_id) } : { type: 'put', key: datanodeTableKey(node, route.table_id), value: encode(share) });
      }
      await this.batchWithShares(ops);
    });
  }

  private viewKey(db: string, name: string): string {
    return `__view_name/${this.catalog}/${db}/${name}`;
  }

  /** The view `db.name`, if there is one. */
  view(db: string, name: string): Promise<ViewInfo | undefined> {
    return this.cached(this.viewCache, `${db}/${name}`, async () => {
      const v = await this.kv.get(this.viewKey(db, name));
      return v === undefined ? undefined : decode<ViewInfo>(v);
    });
  }

  /** The views of a database, sorted by name. */
  async views(db: string): Promise<ViewInfo[]> {
    return (await this.kv.range(`__view_name/${this.catalog}/${db}/`)).map((e) => decode<ViewInfo>(e.value));
  }

  /**
   * Records a view; with `replace`, over the view of that name. A table of that name is
   * TableAlreadyExists; a view of that name without `replace`, TableAlreadyExists worded as
   * GreptimeDB words it (`View already exists`).
   */
  async createView(info: ViewInfo, replace: boolean): Promise<void> {
    return this.change(async () => {
      if ((await this.kv.get(this.nameKey(info.database, info.name))) !== undefined) throw tableExists(info);
      if (replace) {
        const before = await this.kv.get(this.viewKey(info.database, info.name));
        // A replaced view keeps its id and creation time.
        const kept = before === undefined ? info : { ...info, view_id: decode<ViewInfo>(before).view_id, created_at: decode<ViewInfo>(before).created_at };
        await this.kv.put(this.viewKey(info.database, info.name), encode(kept));
        return;
      }
      if (!(await this.kv.compareAndPut(this.viewKey(info.database, info.name), undefined, encode(info)))) {
        throw new TsdbError(StatusCode.TableAlreadyExists, `View already exists: \`${fullTableName(info)}\``);
      }
    });
  }

  /** Removes a view's record (none: nothing happens). */
  async dropView(db: string, name: string): Promise<void> {
    return this.change(async () => {
      await this.kv.delete(this.viewKey(db, name));
    });
  }
}
