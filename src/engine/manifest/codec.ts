/**
 * Bytes of the manifest files (docs/format/manifest.md): pure functions, no I/O.
 *
 * Decoding tells two failures apart, because they mean different things:
 * - `damaged`: the bytes are not a JSON document (empty, cut short, garbage). A write cut short by a
 *   crash looks like this — a proper prefix of a JSON object never parses — so for the newest delta
 *   it means "never committed".
 * - `invalid`: a whole JSON document that is not what the file should hold. No crash produces that;
 *   it is a bug or a file from another program or version, and it is never silently overwritten.
 */
import { crc32c } from '@node-rs/crc32';
import { ACTION_KINDS, type RegionAction } from './action.js';
import type { RegionManifest } from './region-manifest.js';

export type Decoded<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'damaged'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** `_last_checkpoint`: which checkpoint is the newest, and how to check it is whole. */
export interface CheckpointPointer {
  readonly version: number;
  /** Size of the checkpoint file in bytes. */
  readonly size: number;
  /** CRC-32C (Castagnoli) of the checkpoint file's bytes. */
  readonly checksum: number;
}

export interface Checkpoint {
  readonly last_version: number;
  readonly checkpoint: RegionManifest;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function encode(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function parse(bytes: Uint8Array): Decoded<unknown> {
  if (bytes.length === 0) return { kind: 'damaged', reason: 'empty file' };
  try {
    return { kind: 'ok', value: JSON.parse(utf8.decode(bytes)) };
  } catch (err) {
    return { kind: 'damaged', reason: `not JSON (${bytes.length} bytes): ${(err as Error).message}` };
  }
}

function decodeWith<T>(bytes: Uint8Array, check: (doc: unknown) => string | undefined): Decoded<T> {
  const parsed = parse(bytes);
  if (parsed.kind !== 'ok') return parsed;
  const problem = check(parsed.value);
  return problem === undefined ? { kind: 'ok', value: parsed.value as T } : { kind: 'invalid', reason: problem };
}

export function encodeDelta(actions: readonly RegionAction[]): Uint8Array {
  return encode({ actions });
}

export function decodeDelta(bytes: Uint8Array): Decoded<readonly RegionAction[]> {
  const doc = decodeWith<{ actions: readonly RegionAction[] }>(bytes, (d) => {
    if (!isRecord(d) || !Array.isArray(d['actions'])) return 'expected {"actions":[…]}';
    if (d['actions'].length === 0) return 'no actions (an update needs at least one)';
    for (const [i, a] of d['actions'].entries()) {
      const problem = checkAction(a);
      if (problem !== undefined) return `action ${i}: ${problem}`;
    }
    return undefined;
  });
  return doc.kind === 'ok' ? { kind: 'ok', value: doc.value.actions } : doc;
}

export function encodeCheckpoint(state: RegionManifest): Uint8Array {
  const checkpoint: Checkpoint = { last_version: state.manifest_version, checkpoint: state };
  return encode(checkpoint);
}

export function decodeCheckpoint(bytes: Uint8Array): Decoded<Checkpoint> {
  return decodeWith<Checkpoint>(bytes, (d) => {
    if (!isRecord(d) || !isVersion(d['last_version'])) return 'expected {"last_version":…,"checkpoint":{…}}';
    const problem = checkState(d['checkpoint']);
    if (problem !== undefined) return `checkpoint: ${problem}`;
    const state = d['checkpoint'] as RegionManifest;
    if (state.manifest_version !== d['last_version']) {
      return `last_version ${d['last_version']} but the state is at version ${state.manifest_version}`;
    }
    return undefined;
  });
}

export function pointerTo(version: number, checkpointBytes: Uint8Array): CheckpointPointer {
  return { version, size: checkpointBytes.length, checksum: crc32c(checkpointBytes) };
}

/** Whether `bytes` are the checkpoint the pointer names (size and checksum). */
export function matchesPointer(pointer: CheckpointPointer, bytes: Uint8Array): boolean {
  return bytes.length === pointer.size && crc32c(bytes) === pointer.checksum;
}

export function encodePointer(pointer: CheckpointPointer): Uint8Array {
  return encode({ version: pointer.version, size: pointer.size, checksum: pointer.checksum });
}

export function decodePointer(bytes: Uint8Array): Decoded<CheckpointPointer> {
  return decodeWith<CheckpointPointer>(bytes, (d) => {
    if (!isRecord(d) || !isVersion(d['version']) || !isCount(d['size']) || !isU32(d['checksum'])) {
      return 'expected {"version":…,"size":…,"checksum":…}';
    }
    return undefined;
  });
}

// Shape checks: enough to refuse what is not a manifest file, not a full schema validation.

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isCount(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}

function isVersion(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 1;
}

function isU32(x: unknown): x is number {
  return Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffff_ffff;
}

function isOptionalCount(x: unknown): boolean {
  return x === undefined || isCount(x);
}

function checkFileMeta(x: unknown): string | undefined {
  if (!isRecord(x)) return 'file meta is not an object';
  if (typeof x['file_id'] !== 'string' || x['file_id'] === '') return 'file meta without file_id';
  const range = x['time_range'];
  if (!Array.isArray(range) || range.length !== 2 || !range.every((t) => typeof t === 'number')) {
    return `file ${x['file_id']}: time_range is not [min, max]`;
  }
  if (x['level'] !== 0 && x['level'] !== 1) return `file ${x['file_id']}: level is not 0 or 1`;
  for (const key of ['file_size', 'num_rows', 'num_row_groups', 'max_sequence']) {
    if (!isCount(x[key])) return `file ${x['file_id']}: ${key} is not a count`;
  }
  if (!isOptionalCount(x['index_file_size'])) return `file ${x['file_id']}: index_file_size is not a count`;
  const ids = x['column_ids'];
  if (ids !== undefined && !(Array.isArray(ids) && ids.every(isCount))) return `file ${x['file_id']}: column_ids is not a list of column ids`;
  return undefined;
}

function checkMetadata(x: unknown): string | undefined {
  if (!isRecord(x)) return 'metadata is not an object';
  if (typeof x['region_id'] !== 'string' || !/^\d+$/.test(x['region_id'])) return 'metadata without a region_id';
  if (!isCount(x['schema_version'])) return 'metadata without a schema_version';
  if (!Array.isArray(x['columns']) || !Array.isArray(x['primary_key']) || !isCount(x['time_index'])) {
    return 'metadata without columns, primary_key or time_index';
  }
  if (!isRecord(x['options'])) return 'metadata without options';
  return undefined;
}

function checkStrings(x: unknown, what: string): string | undefined {
  if (!Array.isArray(x) || !x.every((s) => typeof s === 'string')) return `${what} is not a list of file ids`;
  return undefined;
}

function checkAction(a: unknown): string | undefined {
  if (!isRecord(a)) return 'not an object';
  const kind = a['kind'];
  if (typeof kind !== 'string' || !(ACTION_KINDS as readonly string[]).includes(kind)) {
    return `unknown action kind ${JSON.stringify(kind)}`;
  }
  switch (kind) {
    case 'change':
      return checkMetadata(a['metadata']);
    case 'edit': {
      if (!Array.isArray(a['files_to_add'])) return 'files_to_add is not a list';
      for (const f of a['files_to_add']) {
        const problem = checkFileMeta(f);
        if (problem !== undefined) return problem;
      }
      const problem = checkStrings(a['files_to_remove'], 'files_to_remove');
      if (problem !== undefined) return problem;
      for (const key of ['flushed_sequence', 'committed_sequence', 'compaction_time_window']) {
        if (!isOptionalCount(a[key])) return `${key} is not a count`;
      }
      return isCount(a['timestamp_ms']) ? undefined : 'timestamp_ms is not a count';
    }
    case 'truncate':
      if (!isCount(a['truncated_sequence'])) return 'truncated_sequence is not a count';
      return isCount(a['timestamp_ms']) ? undefined : 'timestamp_ms is not a count';
    case 'purge':
      return checkStrings(a['file_ids'], 'file_ids');
    default:
      return undefined;
  }
}

function checkState(x: unknown): string | undefined {
  if (!isRecord(x)) return 'not an object';
  const problem = checkMetadata(x['metadata']);
  if (problem !== undefined) return problem;
  const files = x['files'];
  if (!isRecord(files)) return 'files is not an object';
  for (const [id, meta] of Object.entries(files)) {
    const bad = checkFileMeta(meta);
    if (bad !== undefined) return bad;
    if ((meta as { file_id: string }).file_id !== id) return `file listed as ${id} has file_id ${(meta as { file_id: string }).file_id}`;
  }
  const removed = x['removed_files'];
  if (!Array.isArray(removed) || !removed.every((r) => isRecord(r) && typeof r['file_id'] === 'string' && isCount(r['removed_at_ms']))) {
    return 'removed_files is not a list of {file_id, removed_at_ms}';
  }
  for (const key of ['flushed_sequence', 'committed_sequence', 'truncated_sequence']) {
    if (!isCount(x[key])) return `${key} is not a count`;
  }
  if (!isVersion(x['manifest_version'])) return 'manifest_version is not a version';
  if (!isOptionalCount(x['compaction_time_window'])) return 'compaction_time_window is not a count';
  if (typeof x['removed'] !== 'boolean') return 'removed is not a boolean';
  return undefined;
}
