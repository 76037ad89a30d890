/**
 * Time-window compaction (TWCS, reference internals §1.7): files are bucketed by the time window of
 * their newest row; a window holding files that overlap, or at least `trigger_file_num` files, is
 * merged into one file. Pure planning: which files to merge, and whether the merge may drop
 * tombstones. Files whose rows are all past the TTL are dropped whole.
 */
import type { TimestampType } from '../../types/region-metadata.js';
import { toMillis } from '../../types/time-unit.js';
import type { FileMeta } from '../sst/file-meta.js';

const HOUR = 3_600_000;
/** Windows a region's window is inferred from, smallest first (GreptimeDB's). */
export const WINDOW_CANDIDATES = [HOUR, 2 * HOUR, 12 * HOUR, 24 * HOUR, 7 * 24 * HOUR] as const;

export const DEFAULT_TRIGGER_FILE_NUM = 4;
/** At most this many files in one compaction. */
export const MAX_INPUT_FILES = 32;

export interface TwcsOptions {
  readonly unit: TimestampType;
  /** `compaction.twcs.time_window` or the window persisted in the manifest; inferred when unset. */
  readonly windowMs?: number;
  readonly triggerFileNum?: number;
  readonly appendMode: boolean;
}

export interface CompactionPick {
  /** Window start, in milliseconds. */
  readonly windowStart: number;
  readonly windowMs: number;
  readonly inputs: readonly FileMeta[];
  /**
   * Tombstones and the rows they hide can go: every file that overlaps the inputs' time range is
   * an input (so nothing older elsewhere needs hiding), and the region is not in append mode.
   */
  readonly dropTombstones: boolean;
}

function msRange(f: FileMeta, unit: TimestampType): [number, number] {
  return [toMillis(BigInt(Math.floor(f.time_range[0])), unit), toMillis(BigInt(Math.ceil(f.time_range[1])), unit)];
}

/** The smallest candidate window that covers the time span of all files; 7 days when none does. */
export function inferWindow(files: readonly FileMeta[], unit: TimestampType): number {
  if (files.length === 0) return WINDOW_CANDIDATES[0];
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of files) {
    const [a, b] = msRange(f, unit);
    lo = Math.min(lo, a);
    hi = Math.max(hi, b);
  }
  const span = hi - lo;
  return WINDOW_CANDIDATES.find((w) => w >= span) ?? WINDOW_CANDIDATES[WINDOW_CANDIDATES.length - 1]!;
}

/** Files whose newest row is older than `now − ttl`. */
export function expiredFiles(files: readonly FileMeta[], ttlMs: number | undefined, nowMs: number, unit: TimestampType): FileMeta[] {
  if (ttlMs === undefined) return [];
  const cutoff = nowMs - ttlMs;
  return files.filter((f) => msRange(f, unit)[1] < cutoff);
}

function overlapping(files: readonly FileMeta[]): boolean {
  const sorted = [...files].sort((a, b) => a.time_range[0] - b.time_range[0]);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.time_range[0] <= sorted[i - 1]!.time_range[1]) return true;
  return false;
}

/** The compactions due among `files` (those not already being compacted). */
export function pickCompactions(files: readonly FileMeta[], opts: TwcsOptions): { windowMs: number; picks: CompactionPick[] } {
  const windowMs = opts.windowMs ?? inferWindow(files, opts.unit);
  const trigger = opts.triggerFileNum ?? DEFAULT_TRIGGER_FILE_NUM;
  const byWindow = new Map<number, FileMeta[]>();
  for (const f of files) {
    const start = Math.floor(msRange(f, opts.unit)[1] / windowMs) * windowMs;
    const list = byWindow.get(start) ?? [];
    list.push(f);
    byWindow.set(start, list);
  }
  const picks: CompactionPick[] = [];
  for (const [windowStart, inWindow] of [...byWindow].sort((a, b) => b[0] - a[0])) {
    if (inWindow.length < 2) continue;
    if (!overlapping(inWindow) && inWindow.length < trigger) continue;
    const inputs = [...inWindow].sort((a, b) => a.time_range[0] - b.time_range[0]).slice(0, MAX_INPUT_FILES);
    const lo = Math.min(...inputs.map((f) => f.time_range[0]));
    const hi = Math.max(...inputs.map((f) => f.time_range[1]));
    const ids = new Set(inputs.map((f) => f.file_id));
    const leftOut = files.some((f) => !ids.has(f.file_id) && f.time_range[0] <= hi && f.time_range[1] >= lo);
    picks.push({ windowStart, windowMs, inputs, dropTombstones: !opts.appendMode && !leftOut });
  }
  return { windowMs, picks };
}
