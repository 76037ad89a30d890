/**
 * The state a region's manifest describes, and the pure function that applies an action to it.
 * Opening a region replays deltas through `apply`, and an update checks its actions with `apply`
 * before anything is written, so an action that cannot apply never reaches the store.
 */
import type { EditAction, RegionAction, TruncateAction } from './action.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { FileMeta } from '../sst/file-meta.js';

/** A file no longer in the region, kept so that the engine deletes it once no scan uses it. */
export interface RemovedFile {
  readonly file_id: string;
  readonly removed_at_ms: number;
}

/** A region's manifest state; a checkpoint stores it as is (JSON). */
export interface RegionManifest {
  readonly metadata: RegionMetadata;
  /** The region's SST files by file id. */
  readonly files: Readonly<Record<string, FileMeta>>;
  /** Removed files not yet purged, in removal order. */
  readonly removed_files: readonly RemovedFile[];
  /** Rows at or below it are in SST files (WAL replay starts after it). */
  readonly flushed_sequence: number;
  readonly committed_sequence: number;
  /** Rows at or below it were truncated; 0 when the region was never truncated. */
  readonly truncated_sequence: number;
  /** The version of the last delta applied. */
  readonly manifest_version: number;
  /** TWCS time window in milliseconds, once one was persisted; absent until then. */
  readonly compaction_time_window?: number;
  /** The region was dropped. */
  readonly removed: boolean;
}

/** An action that cannot apply to the state (a bug in the caller or a damaged manifest). */
export class InvalidTransitionError extends Error {
  override readonly name = 'InvalidTransitionError';
}

function fail(message: string): never {
  throw new InvalidTransitionError(message);
}

/** Applies one action; returns a new state and never changes `state`. Throws InvalidTransitionError. */
export function apply(state: RegionManifest | undefined, action: RegionAction): RegionManifest {
  if (state === undefined) {
    if (action.kind !== 'change') fail(`${action.kind} before any change: the region has no metadata yet`);
    return {
      metadata: action.metadata,
      files: {},
      removed_files: [],
      flushed_sequence: 0,
      committed_sequence: 0,
      truncated_sequence: 0,
      manifest_version: 0,
      removed: false,
    };
  }
  if (state.removed) fail(`${action.kind} after remove: the region is removed`);
  switch (action.kind) {
    case 'change':
      return applyChange(state, action.metadata);
    case 'edit':
      return applyEdit(state, action);
    case 'truncate':
      return applyTruncate(state, action);
    case 'remove':
      return { ...state, removed: true };
    case 'purge':
      return applyPurge(state, action.file_ids);
  }
}

/** Applies the actions of one delta, all or none, and records the delta's version. */
export function applyActions(state: RegionManifest | undefined, actions: readonly RegionAction[], version: number): RegionManifest {
  if (actions.length === 0) fail('an update needs at least one action');
  let next = state;
  for (const action of actions) next = apply(next, action);
  return { ...next!, manifest_version: version };
}

function applyChange(state: RegionManifest, metadata: RegionMetadata): RegionManifest {
  if (metadata.region_id !== state.metadata.region_id) {
    fail(`change of region ${state.metadata.region_id} carries metadata of region ${metadata.region_id}`);
  }
  if (metadata.schema_version < state.metadata.schema_version) {
    fail(`change to schema version ${metadata.schema_version}, older than the current ${state.metadata.schema_version}`);
  }
  return { ...state, metadata };
}

function applyEdit(state: RegionManifest, edit: EditAction): RegionManifest {
  const adding = new Set<string>();
  for (const file of edit.files_to_add) {
    if (adding.has(file.file_id)) fail(`edit adds file ${file.file_id} twice`);
    if (Object.hasOwn(state.files, file.file_id)) fail(`edit adds file ${file.file_id}, which is already in the region`);
    adding.add(file.file_id);
  }
  const removing = new Set<string>();
  for (const id of edit.files_to_remove) {
    if (removing.has(id)) fail(`edit removes file ${id} twice`);
    // A file both added and removed would be listed live and removed: the engine would purge a live file.
    if (adding.has(id)) fail(`edit both adds and removes file ${id}`);
    if (!Object.hasOwn(state.files, id)) fail(`edit removes file ${id}, which is not in the region`);
    removing.add(id);
  }

  const files: Record<string, FileMeta> = {};
  for (const [id, meta] of Object.entries(state.files)) if (!removing.has(id)) files[id] = meta;
  for (const file of edit.files_to_add) files[file.file_id] = file;
  const next: { -readonly [K in keyof RegionManifest]: RegionManifest[K] } = {
    ...state,
    files,
    removed_files: removing.size === 0 ? state.removed_files : [...state.removed_files, ...removedNow(removing, edit.timestamp_ms)],
    // Sequences only move forward: a late edit carrying an older sequence does not take it back.
    flushed_sequence: Math.max(state.flushed_sequence, edit.flushed_sequence ?? 0),
    committed_sequence: Math.max(state.committed_sequence, edit.committed_sequence ?? 0),
  };
  if (edit.compaction_time_window !== undefined) next.compaction_time_window = edit.compaction_time_window;
  return next;
}

function applyTruncate(state: RegionManifest, truncate: TruncateAction): RegionManifest {
  const t = truncate.truncated_sequence;
  return {
    ...state,
    files: {},
    removed_files: [...state.removed_files, ...removedNow(Object.keys(state.files), truncate.timestamp_ms)],
    truncated_sequence: Math.max(state.truncated_sequence, t),
    // Rows at or below t are gone, so none of them is waiting in the WAL either.
    flushed_sequence: Math.max(state.flushed_sequence, t),
    committed_sequence: Math.max(state.committed_sequence, t),
  };
}

function applyPurge(state: RegionManifest, fileIds: readonly string[]): RegionManifest {
  const purging = new Set(fileIds);
  if (purging.size !== fileIds.length) fail('purge names a file twice');
  const listed = new Set(state.removed_files.map((f) => f.file_id));
  for (const id of fileIds) if (!listed.has(id)) fail(`purge of file ${id}, which is not among the removed files`);
  return { ...state, removed_files: state.removed_files.filter((f) => !purging.has(f.file_id)) };
}

function removedNow(ids: Iterable<string>, timestampMs: number): RemovedFile[] {
  return Array.from(ids, (file_id) => ({ file_id, removed_at_ms: timestampMs }));
}
