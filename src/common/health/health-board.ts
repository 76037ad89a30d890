/**
 * What keeps the process from working fully, for `/health`: a storage that refuses writes (a full
 * disk, an I/O error), log lines dropped because the log directory cannot be written. Parts report
 * a condition under their own key when it starts and clear it when it ends; the server keeps
 * answering meanwhile.
 */

export interface HealthCondition {
  /** Who reports it, e.g. `wal`, `flush`, `logging`. */
  readonly source: string;
  readonly message: string;
  /** When it was first reported (ISO 8601), unchanged while it lasts. */
  readonly since: string;
  /** Whether it keeps the process from serving at all (e.g. a metasrv without its store): `/ready` answers 503. */
  readonly unready?: true;
}

export interface HealthReport {
  readonly conditions: readonly HealthCondition[];
  /** Log lines dropped since start because they could not be written. */
  readonly log_lines_dropped: number;
}

export class HealthBoard {
  private readonly conditions = new Map<string, HealthCondition>();
  private dropped = 0;

  /** Reports (or updates the message of) the condition `key`; keeps its first `since`. `unready`: the process cannot serve while it lasts. */
  set(key: string, source: string, message: string, unready = false): void {
    const prev = this.conditions.get(key);
    this.conditions.set(key, { source, message, since: prev?.since ?? new Date().toISOString(), ...(unready && { unready: true as const }) });
  }

  /** Whether no condition keeps the process from serving. */
  ready(): boolean {
    for (const c of this.conditions.values()) if (c.unready === true) return false;
    return true;
  }

  /** The condition `key` is over. */
  clear(key: string): void {
    this.conditions.delete(key);
  }

  has(key: string): boolean {
    return this.conditions.has(key);
  }

  countDroppedLogLines(n = 1): void {
    this.dropped += n;
  }

  report(): HealthReport {
    return { conditions: [...this.conditions.values()], log_lines_dropped: this.dropped };
  }
}

/** The board of this process, reported by `/health`. */
export const processHealth = new HealthBoard();
