/**
 * Admission of queries (`max_concurrent_queries`): at most `limit` run at once, the others wait in
 * arrival order. A wait ends with an error after `timeoutMs` (`concurrent_query_limiter_timeout`:
 * RateLimited, retryable) or when the statement's signal aborts (its deadline, its client gone,
 * KILL: the signal's reason). Each running query holds a libuv thread while DuckDB works for it, so
 * the limit also keeps threads free for file I/O (the WAL, logs).
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatDuration, type Millis } from '../common/time/duration.js';
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
        }, this.timeoutMs);
      }
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.queue[0]?.grant();
    };
  }
}
