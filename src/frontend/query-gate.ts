/**
 * Admission of queries (`max_concurrent_queries`): at most `limit` run at once, the others wait in
 * arrival order. A wait ends with an error after `timeoutMs` (`concurrent_query_limiter_timeout`:
 * RateLimited, retryable) or when the statement's signal aborts (its deadline, its client gone,
 * KILL: the signal's reason). Each running query holds a libuv thread while DuckDB works for it, so
 * the limit also keeps threads free for file I/O (the WAL, logs).
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatDuration, timerDelay, type Millis } from '../common/time/duration.js';
import { NO_RESULT_LIMITS, type ResultLimits } from '../query/resource-limits.js';
import type { SpillWatchdog } from './spill-watchdog.js';

/** What bounds the queries of a frontend: their admission, what one result may hold, their spill. */
export interface QueryBudget {
  readonly gate: QueryGate;
  readonly limits: ResultLimits;
  readonly spill?: SpillWatchdog;
}

/** No limits (tests, tools). */
export function unlimitedBudget(): QueryBudget {
  return { gate: new QueryGate(0, 0), limits: NO_RESULT_LIMITS };
}

interface Waiter {
  readonly grant: () => void;
}

export class QueryGate {
  private running = 0;
  private readonly queue: Waiter[] = [];
  /** Admission order of the queries holding a slot, and the promise each one's release settles. */
  private nextSeq = 0;
  private readonly seqOf = new WeakMap<() => void, number>();
  private readonly live = new Map<number, { readonly ended: Promise<void>; readonly end: () => void }>();

  /** `limit` 0: no limit; `timeoutMs` 0: a query waits until its signal aborts. */
  constructor(
    readonly limit: number,
    readonly timeoutMs: Millis,
  ) {}

  /** Queries running and waiting. */
  stats(): { readonly running: number; readonly queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  /** Waits for a slot; call the returned function (once) when the query is done. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.limit === 0 || (this.running < this.limit && this.queue.length === 0)) {
      this.running++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          this.running++;
          resolve();
        },
      };
      const onAbort = () => {
        leave();
        reject(signal!.reason);
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.timeoutMs > 0) {
        timer = setTimeout(() => {
          leave();
          reject(
            new TsdbError(
              StatusCode.RateLimited,
              `Too many concurrent queries: waited ${formatDuration(this.timeoutMs)} (concurrent_query_limiter_timeout) for one of the ${this.limit} query slots (max_concurrent_queries); try again later`,
            ),
          );
        }, timerDelay(this.timeoutMs));
      }
    });
    return this.releaser();
  }

  /**
   * The end of every query admitted before the one holding `release`; undefined when none runs.
   * The memory of queries is one pool (DuckDB has no limit per query): a query that finds it used
   * up by older ones — a runaway meeting its budget — gives back its slot, waits for them, and runs
   * once more instead of failing with them. Only older ones are awaited, so two such queries never
   * wait for each other, and the oldest fails at once.
   */
  older(release: () => void): Promise<void> | undefined {
    const seq = this.seqOf.get(release);
    if (seq === undefined) return undefined;
    const older = [...this.live].filter(([s]) => s < seq).map(([, q]) => q.ended);
    return older.length === 0 ? undefined : Promise.all(older).then(() => undefined);
  }

  private releaser(): () => void {
    let released = false;
    const seq = this.nextSeq++;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.live.set(seq, { ended, end });
    const release = () => {
      if (released) return;
      released = true;
      this.live.delete(seq);
      end();
      this.running--;
      this.queue[0]?.grant();
    };
    this.seqOf.set(release, seq);
    return release;
  }
}

/** Waits for `done`, or fails with the signal's reason when it aborts first. */
export async function untilDoneOrAborted(done: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return done;
  signal.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void done.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
