/**
 * Manifest actions (docs/format/manifest.md): what one update of a region's manifest records.
 * A delta file holds `{"actions":[…]}`; the actions of one delta are applied together or not at
 * all. Plain JSON values, so that what is written is exactly what is applied on reopen.
 *
 * Times are inside the actions (`timestamp_ms`) rather than read from the clock while applying:
 * replaying a delta years later must give the same state as applying it did.
 */
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { FileMeta } from '../sst/file-meta.js';

/** The region's schema and options, new or changed (create, alter). The first action of a region. */
export interface ChangeAction {
  readonly kind: 'change';
  readonly metadata: RegionMetadata;
}

/**
 * Files added and removed, by a flush (add, flushed sequence) or a compaction (add outputs, remove
 * inputs). Removed files are kept in the state's `removed_files` until the engine purged them.
 */
export interface EditAction {
  readonly kind: 'edit';
  readonly files_to_add: readonly FileMeta[];
  /** File ids; each must be in the region. */
  readonly files_to_remove: readonly string[];
  /** Rows at or below it are in SST files: the WAL below it may be purged. */
  readonly flushed_sequence?: number;
  readonly committed_sequence?: number;
  /** TWCS time window in milliseconds, once a compaction picked one. */
  readonly compaction_time_window?: number;
  /** When the edit was made: the removal time of `files_to_remove`. */
  readonly timestamp_ms: number;
}

/** Every file is removed and rows at or below `truncated_sequence` are gone (TRUNCATE TABLE). */
export interface TruncateAction {
  readonly kind: 'truncate';
  readonly truncated_sequence: number;
  /** When the truncate happened: the removal time of the files. */
  readonly timestamp_ms: number;
}

/** The region is dropped; nothing may follow. */
export interface RemoveAction {
  readonly kind: 'remove';
}

/**
 * The engine deleted these removed files (once no scan used them): they leave `removed_files`,
 * so that the list does not grow forever and a reopened region does not delete them again.
 */
export interface PurgeAction {
  readonly kind: 'purge';
  readonly file_ids: readonly string[];
}

export type RegionAction = ChangeAction | EditAction | TruncateAction | RemoveAction | PurgeAction;
export type RegionActionKind = RegionAction['kind'];

export const ACTION_KINDS: readonly RegionActionKind[] = Object.freeze(['change', 'edit', 'truncate', 'remove', 'purge']);

export function changeAction(metadata: RegionMetadata): ChangeAction {
  return Object.freeze({ kind: 'change', metadata });
}

export interface EditFields {
  readonly files_to_add?: readonly FileMeta[];
  readonly files_to_remove?: readonly string[];
  readonly flushed_sequence?: number;
  readonly committed_sequence?: number;
  readonly compaction_time_window?: number;
  /** Defaults to now. */
  readonly timestamp_ms?: number;
}

/** An edit; optional fields left undefined are left out (they do not appear in the JSON). */
export function editAction(fields: EditFields): EditAction {
  const action: { -readonly [K in keyof EditAction]: EditAction[K] } = {
    kind: 'edit',
    files_to_add: fields.files_to_add ?? [],
    files_to_remove: fields.files_to_remove ?? [],
    timestamp_ms: fields.timestamp_ms ?? Date.now(),
  };
  if (fields.flushed_sequence !== undefined) action.flushed_sequence = fields.flushed_sequence;
  if (fields.committed_sequence !== undefined) action.committed_sequence = fields.committed_sequence;
  if (fields.compaction_time_window !== undefined) action.compaction_time_window = fields.compaction_time_window;
  return Object.freeze(action);
}

export function truncateAction(truncatedSequence: number, timestampMs: number = Date.now()): TruncateAction {
  return Object.freeze({ kind: 'truncate', truncated_sequence: truncatedSequence, timestamp_ms: timestampMs });
}

export function removeAction(): RemoveAction {
  return Object.freeze({ kind: 'remove' });
}

export function purgeAction(fileIds: readonly string[]): PurgeAction {
  return Object.freeze({ kind: 'purge', file_ids: fileIds });
}
