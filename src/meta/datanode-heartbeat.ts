/**
 * A datanode's heartbeats to the metasrv (reference internals.md §6.3): every interval (3 s, or
 * what the last answer asked for) the node reports itself and the regions it has open, with
 * their statistics; the answer renews the leases of the regions the routes place here (from when
 * the request was sent), and names regions to close (placed elsewhere) and to open (placed here,
 * not open). Opens and closes run beside the loop, one at a time per region.
 *
 * A heartbeat that fails is retried at the next interval; failures are logged once when they
 * start, then at most once a minute, and once more when heartbeats reach the metasrv again.
 * Meanwhile the leases lapse and this node's regions refuse writes (leased-region-server.ts).
 */
import type { Peer } from '../catalog/table-route.js';
import { StatusCode } from '../common/error/status-code.js';
import { errorMessage, TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import { formatRegionId, type RegionId } from '../types/region-id.js';
import type { RegionServer } from '../types/region-server.js';
import type { RegionLeases } from './leased-region-server.js';
import type { HeartbeatResponse, MetaService, RegionStat, RegionToOpen } from './meta-service.js';
import { heartbeatSent, leasedRegions } from '../common/metrics/meta-metrics.js';

/** How often a failure that goes on is logged again. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

export interface DatanodeHeartbeatOptions {
  readonly meta: MetaService;
  /** This datanode: its node_id and the address of its region service. */
  readonly peer: Peer;
  readonly version: string;
  readonly startTimeMs: number;
  /** Whether its regions are on storage other nodes can read (object storage): only those can fail over. */
  readonly sharedStorage: boolean;
  /** The regions open now. */
  readonly openRegionIds: () => Iterable<RegionId>;
  /** Where the statistics of open regions come from. */
  readonly regions: Pick<RegionServer, 'statistics'>;
  /** Renewed from every answer (the LeasedRegionServer the node serves). */
  readonly leases: RegionLeases;
  /** Opens a region the routes place here (the LeasedRegionServer's openRegion, so it gets a first lease). */
  readonly openRegion: (region: RegionToOpen) => Promise<void>;
  /** Closes a region the routes place elsewhere. */
  readonly closeRegion: (id: RegionId) => Promise<void>;
  readonly logger: Logger;
  /** The interval until an answer says otherwise. Default 3000. */
  readonly intervalMs?: number;
  /** The time, in ms. Default Date.now. */
  readonly clock?: () => number;
}

export class DatanodeHeartbeat {
  private readonly clock: () => number;
  private intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Regions being opened or closed now. */
  private readonly busy = new Set<RegionId>();
  /** Regions whose last open or close failed (logged once until it succeeds). */
  private readonly failingRegions = new Set<RegionId>();
  private failures = 0;
  private lastFailureLog = 0;

  constructor(private readonly opts: DatanodeHeartbeatOptions) {
    this.clock = opts.clock ?? Date.now;
    this.intervalMs = opts.intervalMs ?? 3000;
  }

  /** The interval in force (the last answer's). */
  get interval(): number {
    return this.intervalMs;
  }

  /** Sends the first heartbeat now, then one every interval until `stop()`. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Ends the loop; waits for a heartbeat under way (its answer is then ignored). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const run = (this.running = this.beat().catch(() => undefined));
      void run.finally(() => this.schedule(this.intervalMs));
    }, delay);
    this.timer.unref();
  }

  /** One heartbeat: report, then apply the answer. Resolves with the answer, rejects with the failure (logged). */
  async beat(): Promise<HeartbeatResponse> {
    const o = this.opts;
    const sentAt = this.clock();
    let res: HeartbeatResponse;
    try {
      const regions = await this.regionStats();
      res = await o.meta.heartbeat({ role: 'datanode', peer: o.peer, version: o.version, start_time_ms: o.startTimeMs, regions, shared_storage: o.sharedStorage });
    } catch (err) {
      heartbeatSent.inc({ result: 'failure' });
      this.failed(err);
      throw err;
    }
    heartbeatSent.inc({ result: 'success' });
    if (this.stopped) return res;
    if (this.failures > 0) o.logger.info({ failed_heartbeats: this.failures }, 'heartbeats reach the metasrv again');
    this.failures = 0;
    if (res.heartbeat_interval_ms > 0) {
      this.intervalMs = res.heartbeat_interval_ms;
      o.leases.setHeartbeatInterval(res.heartbeat_interval_ms);
    }
    o.leases.renew(
      res.leased_regions.map((r) => BigInt(r)),
      sentAt + res.lease_ms,
    );
    leasedRegions.set(res.leased_regions.length);
    for (const r of res.close_regions) this.closeInBackground(BigInt(r));
    for (const r of res.open_regions) this.openInBackground(r);
    return res;
  }

  private failed(err: unknown): void {
    const now = this.clock();
    this.failures++;
    if (this.failures === 1 || now - this.lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
      this.lastFailureLog = now;
      this.opts.logger.warn({ err, failed_heartbeats: this.failures }, `a heartbeat to the metasrv failed (retried every ${this.intervalMs} ms; region leases lapse meanwhile): ${errorMessage(err)}`);
    }
  }

  /** The open regions with their statistics (zeros for one whose statistics fail: it is still reported open). */
  private async regionStats(): Promise<RegionStat[]> {
    const ids = [...this.opts.openRegionIds()];
    return Promise.all(
      ids.map(async (id): Promise<RegionStat> => {
        try {
          const s = await this.opts.regions.statistics(id);
          return { region_id: String(id), memtable_rows: s.memtable_rows, memtable_bytes: s.memtable_bytes, sst_rows: s.sst_rows, sst_files: s.sst_files, sst_bytes: s.sst_bytes };
        } catch {
          return { region_id: String(id), memtable_rows: 0, memtable_bytes: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 };
        }
      }),
    );
  }

  private openInBackground(r: RegionToOpen): void {
    const id = BigInt(r.region_id);
    if (this.busy.has(id) || new Set(this.opts.openRegionIds()).has(id)) return;
    this.inBackground(id, 'open', () => this.opts.openRegion(r), [StatusCode.RegionAlreadyExists]);
  }

  private closeInBackground(id: RegionId): void {
    if (this.busy.has(id)) return;
    this.inBackground(id, 'close', () => this.opts.closeRegion(id), [StatusCode.RegionNotFound]);
  }

  private inBackground(id: RegionId, what: 'open' | 'close', task: () => Promise<void>, fine: readonly StatusCode[]): void {
    this.busy.add(id);
    const log = this.opts.logger;
    task()
      .then(
        () => {
          this.failingRegions.delete(id);
          log.info({ region: formatRegionId(id) }, `region ${formatRegionId(id)} ${what === 'open' ? 'opened' : 'closed'}: the metasrv's routes ${what === 'open' ? 'place it on' : 'no longer place it on'} this datanode`);
        },
        (err: unknown) => {
          if (err instanceof TsdbError && fine.includes(err.code)) return;
          if (this.failingRegions.has(id)) return;
          this.failingRegions.add(id);
          log.warn({ err, region: formatRegionId(id) }, `the metasrv asked to ${what} region ${formatRegionId(id)}, which failed (tried again at the next heartbeats)`);
        },
      )
      .finally(() => this.busy.delete(id));
  }
}
