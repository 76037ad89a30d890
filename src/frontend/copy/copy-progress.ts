/**
 * Progress of a long COPY in the log: every few seconds, the rows and bytes so far (and once at the
 * end, with the time taken), so that an operator watching a backup or restore sees it move.
 */
import type { Logger } from '../../common/logging.js';

/** How often a running copy logs its progress. */
export const PROGRESS_INTERVAL_MS = 5_000;

export class CopyProgress {
  rows = 0;
  bytes = 0;
  private readonly began = Date.now();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger | undefined,
    /** What is copied, e.g. `public.cpu to /data/copy/cpu.parquet`. */
    private readonly what: string,
    /** Reads the figures of work a caller cannot count itself (DuckDB writing a file). */
    private readonly poll?: () => Promise<void> | void,
  ) {
    if (logger !== undefined) {
      this.timer = setInterval(() => void this.report(), PROGRESS_INTERVAL_MS);
      this.timer.unref();
    }
  }

  private async report(): Promise<void> {
    try {
      await this.poll?.();
    } catch {
      // A figure not read this time is read the next.
    }
    this.logger?.info({ copy: this.what, rows: this.rows, bytes: this.bytes, elapsed_ms: Date.now() - this.began }, 'copy in progress');
  }

  /** Stops the reports; logs the result when the copy succeeded. */
  end(ok: boolean): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (ok) this.logger?.info({ copy: this.what, rows: this.rows, bytes: this.bytes, elapsed_ms: Date.now() - this.began }, 'copy done');
  }
}
