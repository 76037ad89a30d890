/**
 * A backstop for `query.max_spill_size`: DuckDB enforces it (`max_temp_directory_size`) for sorts,
 * joins and aggregates, but not for every spill — a recursive CTE growing tenfold per step wrote
 * 4.6 GB past a 512 MiB limit. While queries run, the spill directory's size is checked every
 * `intervalMs`; past the limit the longest-running query is interrupted, and it fails with
 * RuntimeResourcesExhausted instead of filling the disk.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatSize } from '../common/size/size.js';

interface Running {
  readonly conn: DuckDBConnection;
  reason?: TsdbError;
}

/** A query being watched: its error when the watchdog stopped it; `done` when it ends. */
export interface Watched {
  reason(): TsdbError | undefined;
  done(): void;
}

export class SpillWatchdog {
  /** In start order: the first is the longest-running. */
  private readonly running: Running[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly intervalMs = 250,
  ) {}

  track(conn: DuckDBConnection): Watched {
    const entry: Running = { conn };
    this.running.push(entry);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.check(), this.intervalMs);
      this.timer.unref();
    }
    return {
      reason: () => entry.reason,
      done: () => {
        const i = this.running.indexOf(entry);
        if (i >= 0) this.running.splice(i, 1);
        if (this.running.length === 0 && this.timer !== undefined) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    };
  }

  /** Bytes of the files in the spill directory (DuckDB writes no subdirectories there). */
  spilled(): number {
    let bytes = 0;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    for (const name of names) {
      try {
        bytes += statSync(join(this.dir, name)).size;
      } catch {
        // Deleted meanwhile.
      }
    }
    return bytes;
  }

  private check(): void {
    // A query stopped and still running is interrupted again (an interrupt that comes between two
    // DuckDB calls is lost), and no other is stopped until it has ended and freed its spill.
    const stopping = this.running.find((r) => r.reason !== undefined);
    if (stopping !== undefined) {
      stopping.conn.interrupt();
      return;
    }
    const bytes = this.spilled();
    if (bytes <= this.maxBytes) return;
    // One query at a time, the longest-running first; the next check sees what that freed.
    const victim = this.running[0];
    if (victim === undefined) return;
    victim.reason = new TsdbError(
      StatusCode.RuntimeResourcesExhausted,
      `Resources exhausted: queries spilled ${formatSize(bytes)} to disk, more than query.max_spill_size (${formatSize(this.maxBytes)}); this query, the longest-running, was stopped`,
    );
    victim.conn.interrupt();
  }
}
