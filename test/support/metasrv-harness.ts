/**
 * A metasrv in process for unit tests: a real Metasrv over a key-value store the test gives
 * (memory, etcd), datanodes as fake region servers that share one "object storage" (a region
 * created on one can be opened on another from its directory, as on S3), a clock the test moves,
 * and helpers to send heartbeats and to build table infos.
 */
import type { TestContext } from 'node:test';
import type { TableInfo } from '../../src/catalog/table-info.js';
import type { Peer } from '../../src/catalog/table-route.js';
import { silentLogger, type Logger } from '../../src/common/logging.js';
import type { KvBackend } from '../../src/meta/kv/kv-backend.js';
import type { HeartbeatResponse, MetaEvent } from '../../src/meta/meta-service.js';
import { Metasrv, type MetasrvParams } from '../../src/meta/metasrv/metasrv.js';
import type { RegionId } from '../../src/types/region-id.js';
import { FakeRegionServer } from './fake-region-server.js';

/** A fake datanode whose regions live on storage every fake of its group can open them from. */
export class SharedStorageFake extends FakeRegionServer {
  constructor(
    readonly id: number,
    private readonly group: ReadonlyMap<number, SharedStorageFake>,
  ) {
    super();
  }

  override async openRegion(id: RegionId, dir: string): Promise<void> {
    if (!this.regions.has(id)) {
      for (const other of this.group.values()) {
        const r = other.regions.get(id);
        if (other !== this && r !== undefined && r.dir === dir) {
          this.regions.set(id, { ...r, open: false });
          break;
        }
      }
    }
    return super.openRegion(id, dir);
  }

  /** The regions open here. */
  openIds(): RegionId[] {
    return [...this.regions].filter(([, r]) => r.open).map(([id]) => id);
  }
}

export interface Harness {
  readonly kv: KvBackend;
  readonly fakes: Map<number, SharedStorageFake>;
  readonly events: MetaEvent[];
  /** The metasrv now (replaced by `restart`). */
  ms: Metasrv;
  /** The clock of every metasrv of this harness. */
  now: number;
  peer(id: number): Peer;
  /** A heartbeat from datanode `id` reporting the regions its fake has open (or `regions`). */
  beat(id: number, regions?: readonly RegionId[], shared?: boolean): Promise<HeartbeatResponse>;
  /** A new metasrv on the same store and datanodes (the old one stopped first, as after a crash). */
  restart(params?: Partial<MetasrvParams>): Promise<Metasrv>;
  make(params?: Partial<MetasrvParams>): Metasrv;
}

export async function metasrvHarness(t: TestContext, kv: KvBackend, datanodes: readonly number[], params: Partial<MetasrvParams> = {}): Promise<Harness> {
  const fakes = new Map<number, SharedStorageFake>();
  for (const id of datanodes) fakes.set(id, new SharedStorageFake(id, fakes));
  const logger: Logger = params.logger ?? silentLogger();
  const h: Harness = {
    kv,
    fakes,
    events: [],
    ms: undefined as unknown as Metasrv,
    now: 1_000_000,
    peer: (id) => ({ id, addr: `10.0.0.${id}:3001` }),
    make: (extra = {}) => {
      const ms = new Metasrv({
        kv,
        serverAddr: '127.0.0.1:3002',
        connect: (peer) => {
          const f = fakes.get(peer.id);
          if (f === undefined) throw new Error(`no fake datanode ${peer.id}`);
          return f;
        },
        logger,
        selector: 'round_robin',
        clock: () => h.now,
        ...params,
        ...extra,
        procedures: { retryDelayMs: 1, stopTimeoutMs: 200, ...params.procedures, ...extra.procedures },
      });
      ms.subscribe((e) => h.events.push(e));
      t.after(() => ms.stop());
      return ms;
    },
    beat: (id, regions, shared = true) => {
      const f = fakes.get(id)!;
      const ids = regions ?? f.openIds();
      return h.ms.heartbeat({
        role: 'datanode',
        peer: h.peer(id),
        version: 'test',
        start_time_ms: 1,
        regions: ids.map((r) => ({ region_id: String(r), memtable_rows: 0, memtable_bytes: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 })),
        shared_storage: shared,
      });
    },
    restart: async (extra = {}) => {
      await h.ms.stop();
      h.ms = h.make(extra);
      await h.ms.start();
      return h.ms;
    },
  };
  h.ms = h.make();
  await h.ms.start();
  for (const id of datanodes) await h.beat(id);
  return h;
}

/** A table with a tag, a time index and a field, in `public`, with `regions` regions. */
export function tableInfo(id: number, name: string, over: Partial<TableInfo> = {}): TableInfo {
  return {
    table_id: id,
    catalog: 'tsdb',
    database: 'public',
    name,
    columns: [
      { column_id: 0, name: 'host', data_type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'ts', data_type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 2, name: 'v', data_type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: ['host'],
    time_index: 'ts',
    engine: 'mito',
    options: {},
    region_numbers: [0],
    next_column_id: 3,
    schema_version: 0,
    created_at: 0,
    ...over,
  };
}

/** `info` with one more field column (a schema change that reaches the regions). */
export function withColumn(info: TableInfo, name: string): TableInfo {
  return {
    ...info,
    columns: [...info.columns, { column_id: info.next_column_id, name, data_type: 'Int64', semantic_type: 'field', nullable: true }],
    next_column_id: info.next_column_id + 1,
    schema_version: info.schema_version + 1,
  };
}

/** Resolves when `release()` is called: a step held until the test lets it go. */
export function gate(): { readonly wait: Promise<void>; release(): void } {
  let release!: () => void;
  const wait = new Promise<void>((r) => (release = r));
  return { wait, release };
}
