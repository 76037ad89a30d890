/**
 * A key-value store whose outages are noticed, for the metasrv's etcd: the first operation that
 * finds the store unreachable (StorageUnavailable) marks it down and calls `onDown` (the metasrv
 * then logs why and answers `/ready` with 503). While it is down, every operation fails at once
 * with StorageUnavailable saying since when and why, instead of each waiting out the store's own
 * deadline (5 s for etcd) — longer than the callers of the metasrv wait (`meta_client.timeout`,
 * 3 s), who would otherwise get a bare "timed out" naming neither etcd nor the cause. Failing
 * before sending is safe for every operation: nothing reaches the store.
 *
 * A probe (a read of one key) every `probeIntervalMs` finds the store back; then `onUp`, and
 * operations go through again. Failures other than unreachability (a refused request, a closed
 * store) pass through and change nothing.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import { formatDuration } from '../../common/time/duration.js';
import type { KvBackend, KvEntry, KvOp } from './kv-backend.js';

export const DEFAULT_PROBE_INTERVAL_MS = 1000;
/** The key the probe reads (any key does: only whether the store answers matters). */
const PROBE_KEY = '__probe';

export interface WatchedKvOptions {
  /** The store became unreachable: `err` is the failure that showed it. */
  readonly onDown: (err: TsdbError) => void;
  /** The store answers again after `downMs`. */
  readonly onUp: (downMs: number) => void;
  /** How often a store marked down is tried. Default 1000. */
  readonly probeIntervalMs?: number;
  /** The time, in ms. Default Date.now. */
  readonly clock?: () => number;
}

export class WatchedKvBackend implements KvBackend {
  readonly description: string;
  private down: { readonly since: number; readonly cause: string } | undefined;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly clock: () => number;

  constructor(
    private readonly inner: KvBackend,
    private readonly opts: WatchedKvOptions,
  ) {
    this.description = inner.description;
    this.clock = opts.clock ?? Date.now;
  }

  /** Whether the store is marked unreachable now. */
  get isDown(): boolean {
    return this.down !== undefined;
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    const down = this.down;
    if (down !== undefined) {
      return Promise.reject(
        new TsdbError(
          StatusCode.StorageUnavailable,
          `the metadata store ${this.description} is unreachable (for ${formatDuration(this.clock() - down.since)}; retried every ${formatDuration(this.probeIntervalMs)}): ${down.cause}`,
        ),
      );
    }
    return op().catch((err: unknown) => {
      if (err instanceof TsdbError && err.code === StatusCode.StorageUnavailable) this.markDown(err);
      throw err;
    });
  }

  private get probeIntervalMs(): number {
    return this.opts.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  }

  private markDown(err: TsdbError): void {
    if (this.down !== undefined || this.closed) return;
    this.down = { since: this.clock(), cause: errorMessage(err) };
    this.opts.onDown(err);
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    this.probe = setTimeout(() => {
      this.probe = undefined;
      const up = () => {
        const since = this.down?.since;
        this.down = undefined;
        if (since !== undefined && !this.closed) this.opts.onUp(this.clock() - since);
      };
      this.inner.get(PROBE_KEY).then(up, (err: unknown) => {
        if (this.closed) return;
        // Any other failure is an answer: the store is reachable.
        if (!(err instanceof TsdbError && err.code === StatusCode.StorageUnavailable)) return up();
        if (this.down !== undefined) this.down = { since: this.down.since, cause: errorMessage(err) };
        this.scheduleProbe();
      });
    }, this.probeIntervalMs);
    this.probe.unref();
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.run(() => this.inner.get(key));
  }

  put(key: string, value: Uint8Array): Promise<void> {
    return this.run(() => this.inner.put(key, value));
  }

  delete(key: string): Promise<boolean> {
    return this.run(() => this.inner.delete(key));
  }

  range(prefix: string): Promise<KvEntry[]> {
    return this.run(() => this.inner.range(prefix));
  }

  compareAndPut(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean> {
    return this.run(() => this.inner.compareAndPut(key, expected, value));
  }

  batch(ops: readonly KvOp[]): Promise<void> {
    return this.run(() => this.inner.batch(ops));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probe !== undefined) clearTimeout(this.probe);
    this.probe = undefined;
    await this.inner.close();
  }
}
