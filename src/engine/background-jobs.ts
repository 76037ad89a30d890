/**
 * At most `max_background_jobs` flushes and compactions run at once; the rest wait in arrival
 * order. A job for a key (e.g. "flush region 42") that is already queued is not queued twice.
 */
export class BackgroundJobs {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly queued = new Map<string, Promise<unknown>>();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`max background jobs must be ≥ 1, got ${limit}`);
  }

  /** Runs `job` once a slot is free. With a key, a job already queued under it is reused. */
  run<T>(job: () => Promise<T>, key?: string): Promise<T> {
    if (key !== undefined) {
      const existing = this.queued.get(key);
      if (existing) return existing as Promise<T>;
    }
    const p = this.acquire().then(async () => {
      if (key !== undefined) this.queued.delete(key);
      try {
        return await job();
      } finally {
        this.release();
      }
    });
    if (key !== undefined) this.queued.set(key, p);
    return p;
  }

  private acquire(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => {
      this.running++;
      resolve();
    }));
  }

  private release(): void {
    this.running--;
    const next = this.waiting.shift();
    if (next) next();
    else if (this.running === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Jobs running now. */
  get active(): number {
    return this.running;
  }

  /** Resolves when nothing runs or waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
