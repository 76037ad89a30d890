/**
 * The locks of the metasrv's procedures: a shared or exclusive hold on named keys (a database, a
 * table name, a table id). A DDL of a table holds its database shared and its name exclusive, so
 * tables of one database change in parallel while a change of the database itself waits for them.
 *
 * Keys are taken in sorted order, one after another, so two procedures never wait on each other;
 * each key grants in arrival order (a waiting exclusive hold is not starved by later shared ones).
 */

export interface LockRequest {
  readonly key: string;
  readonly exclusive: boolean;
}

interface Waiter {
  readonly exclusive: boolean;
  readonly grant: () => void;
}

interface KeyState {
  readers: number;
  writer: boolean;
  readonly queue: Waiter[];
}

export class LockManager {
  private readonly keys = new Map<string, KeyState>();

  /**
   * Takes every lock of `requests` (a key named twice is taken once, exclusive if either is);
   * resolves with the release. Each key is asked for as soon as the one before it is granted, in
   * the same call stack, so a request queues on every free key before anything asked later.
   */
  acquire(requests: readonly LockRequest[]): Promise<() => void> {
    const merged = new Map<string, boolean>();
    for (const r of requests) merged.set(r.key, (merged.get(r.key) ?? false) || r.exclusive);
    const sorted = [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return new Promise((resolve) => {
      const held: Array<[string, boolean]> = [];
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        for (const [key, exclusive] of held.reverse()) this.give(key, exclusive);
      };
      const next = (i: number): void => {
        if (i === sorted.length) return resolve(release);
        const [key, exclusive] = sorted[i]!;
        this.take(key, exclusive, () => {
          held.push([key, exclusive]);
          next(i + 1);
        });
      };
      next(0);
    });
  }

  /** The keys held or waited for now (for tests and diagnostics). */
  busyKeys(): string[] {
    return [...this.keys.keys()];
  }

  /** Calls `granted` once the key is held: at once when it is free, else when `give` hands it over. */
  private take(key: string, exclusive: boolean, granted: () => void): void {
    let s = this.keys.get(key);
    if (s === undefined) this.keys.set(key, (s = { readers: 0, writer: false, queue: [] }));
    if (s.queue.length === 0 && (exclusive ? !s.writer && s.readers === 0 : !s.writer)) {
      if (exclusive) s.writer = true;
      else s.readers++;
      granted();
      return;
    }
    s.queue.push({ exclusive, grant: granted });
  }

  private give(key: string, exclusive: boolean): void {
    const s = this.keys.get(key);
    if (s === undefined) return;
    if (exclusive) s.writer = false;
    else s.readers--;
    while (s.queue.length > 0) {
      const next = s.queue[0]!;
      if (next.exclusive ? s.writer || s.readers > 0 : s.writer) break;
      s.queue.shift();
      if (next.exclusive) s.writer = true;
      else s.readers++;
      next.grant();
    }
    if (!s.writer && s.readers === 0 && s.queue.length === 0) this.keys.delete(key);
  }
}
