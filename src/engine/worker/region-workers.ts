/**
 * Region workers (`num_workers`): every write goes to the worker of its region — (table_id mod n +
 * region_number mod n) mod n, as in GreptimeDB — and each worker takes the writes queued for it up
 * to 64 at a time (`worker_request_batch_size`), commits each region's share with one WAL append
 * (the regions' appends together share one group commit), then takes the next lot. Writes to a
 * region are thus applied in arrival order; a worker blocked on a region (a DDL holds its writes)
 * delays only the regions it serves.
 */
import type { WriteBatch } from '../../types/write-batch.js';
import { regionNumberOf, tableIdOf, type RegionId } from '../../types/region-id.js';
import type { Region, WriteResult } from '../region/region.js';

/** Writes a worker takes from its queue at once. */
export const WORKER_REQUEST_BATCH_SIZE = 64;

interface Request {
  readonly region: Region;
  readonly batch: WriteBatch;
  readonly resolve: (r: WriteResult) => void;
  readonly reject: (err: unknown) => void;
}

class Worker {
  private readonly queue: Request[] = [];
  private running = false;
  /** Write requests served, and the rounds they were served in (for statistics and tests). */
  requests = 0;
  rounds = 0;

  submit(region: Region, batch: WriteBatch): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ region, batch, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Starts on the next microtask, so that writes submitted together are served together.
        queueMicrotask(() => void this.loop());
      }
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const lot = this.queue.splice(0, WORKER_REQUEST_BATCH_SIZE);
      const byRegion = new Map<Region, Request[]>();
      for (const r of lot) {
        const list = byRegion.get(r.region);
        if (list) list.push(r);
        else byRegion.set(r.region, [r]);
      }
      await Promise.all(
        [...byRegion].map(async ([region, requests]) => {
          try {
            const results = await region.writeMany(requests.map((r) => r.batch));
            results.forEach((res, i) => (res instanceof Error ? requests[i]!.reject(res) : requests[i]!.resolve(res)));
          } catch (err) {
            for (const r of requests) r.reject(err);
          }
        }),
      );
      this.requests += lot.length;
      this.rounds++;
    }
    this.running = false;
  }
}

export class RegionWorkers {
  private readonly workers: Worker[];

  constructor(count: number) {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`num_workers must be ≥ 1, got ${count}`);
    this.workers = Array.from({ length: count }, () => new Worker());
  }

  /** The worker serving region `id`. */
  workerOf(id: RegionId): number {
    const n = this.workers.length;
    return ((tableIdOf(id) % n) + (regionNumberOf(id) % n)) % n;
  }

  write(region: Region, batch: WriteBatch): Promise<WriteResult> {
    return this.workers[this.workerOf(region.id)]!.submit(region, batch);
  }

  /** Per worker: write requests served and rounds taken. */
  stats(): Array<{ readonly requests: number; readonly rounds: number }> {
    return this.workers.map((w) => ({ requests: w.requests, rounds: w.rounds }));
  }
}
