/**
 * Reads a region's manifest from its directory: a starting point (a checkpoint, or nothing before
 * version 1) and every later delta in version order. The argument for why this gives the state
 * of the last committed update after a crash at any point is in docs/format/manifest.md.
 *
 * Starting points are tried in this order, and the first one followed by an unbroken run of
 * delta files is taken:
 * 1. the checkpoint named by `_last_checkpoint`, when its size and checksum match;
 * 2. the other checkpoints, newest first, when they parse (a missing or damaged pointer);
 * 3. the pointer's checkpoint even though its checksum does not match, when it parses (the
 *    pointer may be the damaged one) — last, so that an older checkpoint whose deltas are all
 *    there wins over a checkpoint that may be wrong;
 * 4. nothing, replaying from version 1, when delta 1 is still there.
 */
import type { ObjectStore } from '../../storage/object-store.js';
import { decodeCheckpoint, decodeDelta, decodePointer, matchesPointer } from './codec.js';
import { checkpointFileName, deltaFileName, parseManifestFileName, POINTER_FILE } from './file-names.js';
import { ManifestError, type ManifestLocation } from './manifest-error.js';
import { applyActions, InvalidTransitionError, type RegionManifest } from './region-manifest.js';

/** Where the manifest reports what it skipped; a pino logger fits. */
export interface ManifestLogger {
  warn(obj: object, msg: string): void;
}

export interface LoadedManifest {
  readonly state: RegionManifest;
  /** Version of the checkpoint the state started from; 0 when replayed from version 1. */
  readonly checkpointVersion: number;
}

interface Listing {
  /** Delta versions, ascending. */
  readonly deltas: readonly number[];
  /** Checkpoint versions, ascending. */
  readonly checkpoints: readonly number[];
  readonly pointer: boolean;
}

interface Start {
  /** 0: before the first delta. */
  readonly version: number;
  readonly state: RegionManifest | undefined;
  /** For messages: the checkpoint file, or "version 1". */
  readonly label: string;
}

class Loader {
  private readonly where: ManifestLocation;

  constructor(
    private readonly store: ObjectStore,
    private readonly dir: string,
    private readonly logger: ManifestLogger,
  ) {
    this.where = { store: store.description, dir };
  }

  async load(): Promise<LoadedManifest | undefined> {
    const listing = await this.list();
    if (listing.deltas.length === 0 && listing.checkpoints.length === 0 && !listing.pointer) return undefined;

    const unusable: string[] = [];
    for await (const start of this.starts(listing)) {
      const gap = firstGap(listing.deltas, start.version);
      if (gap !== undefined) {
        unusable.push(`${start.label}: delta ${deltaFileName(gap)} after it is missing`);
        continue;
      }
      const state = await this.replay(start, listing.deltas.filter((v) => v > start.version));
      if (state !== undefined) return { state, checkpointVersion: start.version };
      // Only the start "version 1" has no state, and no delta of it could be read.
      if (listing.checkpoints.length > 0 || listing.pointer) {
        unusable.push(`${start.label}: no delta can be read`);
        break;
      }
      // Nothing but a first delta cut short: a create that never completed.
      return undefined;
    }
    throw new ManifestError('corrupt', this.where, `no checkpoint and unbroken run of deltas to open from (${unusable.join('; ')})`);
  }

  private async list(): Promise<Listing> {
    let entries;
    try {
      entries = await this.store.list(this.dir);
    } catch (err) {
      throw new ManifestError('storage', this.where, `cannot list: ${(err as Error).message}`, { cause: err });
    }
    const deltas: number[] = [];
    const checkpoints: number[] = [];
    let pointer = false;
    for (const entry of entries) {
      const file = parseManifestFileName(entry.path.slice(this.dir.length));
      if (file?.kind === 'delta') deltas.push(file.version);
      else if (file?.kind === 'checkpoint') checkpoints.push(file.version);
      else if (file?.kind === 'pointer') pointer = true;
    }
    const asc = (a: number, b: number): number => a - b;
    return { deltas: deltas.sort(asc), checkpoints: checkpoints.sort(asc), pointer };
  }

  /** Starting points, best first, read only as far as needed. */
  private async *starts(listing: Listing): AsyncGenerator<Start> {
    let pointed: number | undefined;
    let suspect: Start | undefined;
    if (listing.pointer) {
      const pointer = decodePointer(await this.read(POINTER_FILE));
      if (pointer.kind !== 'ok') {
        this.warn(POINTER_FILE, `pointer unreadable (${pointer.reason}); using the newest readable checkpoint`);
      } else if (!listing.checkpoints.includes(pointer.value.version)) {
        this.warn(POINTER_FILE, `pointer names ${checkpointFileName(pointer.value.version)}, which is missing; using the newest readable checkpoint`);
      } else {
        pointed = pointer.value.version;
        const name = checkpointFileName(pointed);
        const bytes = await this.read(name);
        const checkpoint = this.decodeCheckpoint(bytes, pointed);
        if (matchesPointer(pointer.value, bytes) && checkpoint !== undefined) {
          yield { version: pointed, state: checkpoint, label: name };
        } else {
          this.warn(name, `checkpoint does not match ${POINTER_FILE} (size or checksum); trying other checkpoints first`);
          if (checkpoint !== undefined) suspect = { version: pointed, state: checkpoint, label: name };
        }
      }
    } else if (listing.checkpoints.length > 0) {
      this.warn(POINTER_FILE, 'no checkpoint pointer; using the newest readable checkpoint');
    }

    for (const version of [...listing.checkpoints].reverse()) {
      if (version === pointed) continue;
      const name = checkpointFileName(version);
      const state = this.decodeCheckpoint(await this.read(name), version);
      if (state !== undefined) yield { version, state, label: name };
    }
    if (suspect !== undefined) {
      this.warn(suspect.label, `using checkpoint although it does not match ${POINTER_FILE}: it parses, and nothing else can be opened`);
      yield suspect;
    }
    yield { version: 0, state: undefined, label: 'version 1' };
  }

  /** The state in a checkpoint file, or undefined (with a warning) when it cannot be used. */
  private decodeCheckpoint(bytes: Uint8Array, version: number): RegionManifest | undefined {
    const name = checkpointFileName(version);
    const decoded = decodeCheckpoint(bytes);
    if (decoded.kind !== 'ok') {
      this.warn(name, `ignoring unreadable checkpoint: ${decoded.reason}`);
      return undefined;
    }
    if (decoded.value.last_version !== version) {
      this.warn(name, `ignoring checkpoint of version ${decoded.value.last_version} stored under another version`);
      return undefined;
    }
    return decoded.value.checkpoint;
  }

  /**
   * Applies the deltas after `start`. A delta that does not parse ends the replay when every delta
   * after it is damaged too: the write of the newest update was cut short, so it was never
   * committed, and the next update overwrites it. When a whole delta follows it, a committed update
   * is lost, and the region is not opened from a state that never existed.
   */
  private async replay(start: Start, versions: readonly number[]): Promise<RegionManifest | undefined> {
    let state = start.state;
    for (let i = 0; i < versions.length; i++) {
      const version = versions[i]!;
      const name = deltaFileName(version);
      const delta = decodeDelta(await this.read(name));
      if (delta.kind === 'invalid') {
        throw new ManifestError('corrupt', this.where, `not a manifest delta: ${delta.reason}`, { file: name });
      }
      if (delta.kind === 'damaged') {
        await this.checkTail(versions.slice(i + 1), name, delta.reason);
        for (const v of versions.slice(i)) {
          this.warn(deltaFileName(v), 'ignoring damaged delta at the end of the manifest (an update cut short); the next update overwrites it');
        }
        break;
      }
      try {
        state = applyActions(state, delta.value, version);
      } catch (err) {
        if (!(err instanceof InvalidTransitionError)) throw err;
        throw new ManifestError('corrupt', this.where, `delta does not apply after ${start.label}: ${err.message}`, { file: name, cause: err });
      }
    }
    return state;
  }

  private async checkTail(later: readonly number[], damaged: string, reason: string): Promise<void> {
    for (const version of later) {
      const name = deltaFileName(version);
      if (decodeDelta(await this.read(name)).kind !== 'damaged') {
        throw new ManifestError(
          'corrupt',
          this.where,
          `delta is damaged (${reason}) but the later ${name} is whole: a committed update is lost`,
          { file: damaged },
        );
      }
    }
  }

  private async read(name: string): Promise<Uint8Array> {
    try {
      return await this.store.read(this.dir + name);
    } catch (err) {
      throw new ManifestError('storage', this.where, `cannot read: ${(err as Error).message}`, { file: name, cause: err });
    }
  }

  private warn(file: string, msg: string): void {
    this.logger.warn({ manifest_dir: this.dir, file }, `region manifest ${this.dir}: ${file}: ${msg}`);
  }
}

/** The first version after `start` that has no delta file, when a later one has. */
function firstGap(deltas: readonly number[], start: number): number | undefined {
  let expected = start + 1;
  for (const v of deltas) {
    if (v <= start) continue;
    if (v !== expected) return expected;
    expected++;
  }
  return undefined;
}

/**
 * The manifest in `dir` (ending with `/`): the state of its last committed update, and the
 * checkpoint it started from. Undefined when there is no manifest (or only a first delta cut
 * short). Throws ManifestError `corrupt` when committed updates cannot all be read.
 */
export function loadManifest(store: ObjectStore, dir: string, logger: ManifestLogger): Promise<LoadedManifest | undefined> {
  return new Loader(store, dir, logger).load();
}
