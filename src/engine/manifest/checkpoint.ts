/**
 * Writing a checkpoint, in the order that keeps every crash recoverable (docs/format/manifest.md):
 * 1. the checkpoint file — until the pointer names it, readers do not need it;
 * 2. the pointer `_last_checkpoint` — from now on the checkpoint is the starting point;
 * 3. only then the files the checkpoint replaces: deltas up to its version, older checkpoints.
 * A crash before step 2 leaves the previous starting point and all its deltas in place; a crash
 * in step 3 leaves files that open ignores and the next checkpoint deletes.
 */
import type { ObjectStore } from '../../storage/object-store.js';
import { encodeCheckpoint, encodePointer, pointerTo } from './codec.js';
import { checkpointFileName, parseManifestFileName, POINTER_FILE } from './file-names.js';
import type { RegionManifest } from './region-manifest.js';

/** Writes the checkpoint of `state` (at its manifest_version), then the pointer to it. */
export async function writeCheckpoint(store: ObjectStore, dir: string, state: RegionManifest): Promise<void> {
  const version = state.manifest_version;
  const bytes = encodeCheckpoint(state);
  await store.write(dir + checkpointFileName(version), bytes);
  await store.write(dir + POINTER_FILE, encodePointer(pointerTo(version, bytes)));
}

/**
 * Deletes what the checkpoint at `version` replaced: deltas at or below it and older checkpoints,
 * oldest first. Call only after the pointer names that checkpoint. Files of later versions
 * (written meanwhile by updates) are left alone.
 */
export async function deleteReplaced(store: ObjectStore, dir: string, version: number): Promise<number> {
  const replaced: Array<{ path: string; version: number }> = [];
  for (const entry of await store.list(dir)) {
    const file = parseManifestFileName(entry.path.slice(dir.length));
    if (file === undefined || file.kind === 'pointer') continue;
    if (file.version < version || (file.kind === 'delta' && file.version === version)) {
      replaced.push({ path: entry.path, version: file.version });
    }
  }
  replaced.sort((a, b) => a.version - b.version);
  for (const file of replaced) await store.delete(file.path);
  return replaced.length;
}
