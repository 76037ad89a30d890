/**
 * A region's manifest on its object store (docs/format/manifest.md): every update is a delta file
 * `{version:020}.json`; every `checkpointDistance` versions the whole state goes to a checkpoint,
 * so that opening reads one checkpoint and a few deltas, and the older files are deleted.
 *
 * An update is committed when the write of its delta returned: the manager publishes the new
 * state only then, and a crash at any later point cannot lose it. An update whose write failed is
 * in doubt — its delta may or may not be on the store — so the version is not taken: the next
 * update writes the same version over it. Until then a reopen may show it; callers treat a failed
 * update as "maybe applied" (e.g. a flush keeps its SST files, which a reopen may reference).
 *
 * Checkpoints are written in the background, one at a time, from an immutable snapshot of the
 * state: updates go on meanwhile, and a failed checkpoint is only logged (the next update retries).
 */
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { changeAction, type RegionAction } from './action.js';
import { deleteReplaced, writeCheckpoint } from './checkpoint.js';
import { decodeDelta, encodeDelta } from './codec.js';
import { deltaFileName } from './file-names.js';
import { ManifestError, type ManifestLocation } from './manifest-error.js';
import { loadManifest, type ManifestLogger } from './manifest-loader.js';
import { applyActions, InvalidTransitionError, type RegionManifest } from './region-manifest.js';

export type { ManifestLogger } from './manifest-loader.js';

export interface ManifestOptions {
  /** `region_engine.mito.manifest_checkpoint_distance`: versions between checkpoints, ≥ 1. */
  readonly checkpointDistance: number;
  /** Receives what was skipped while reading (damaged files) and failed checkpoints. Default: none. */
  readonly logger?: ManifestLogger;
}

const SILENT: ManifestLogger = { warn: () => {} };

function normalizeDir(dir: string): string {
  return dir === '' || dir.endsWith('/') ? dir : `${dir}/`;
}

function checkOptions(opts: ManifestOptions): void {
  if (!Number.isSafeInteger(opts.checkpointDistance) || opts.checkpointDistance < 1) {
    throw new RangeError(`manifest checkpoint distance must be an integer ≥ 1, got ${opts.checkpointDistance}`);
  }
}

/**
 * The delta of an update and the state after it, or ManifestError `invalid-transition`. The state
 * is computed from the delta as a reopen will decode it, not from the caller's objects, so that
 * what is in memory is exactly what a reopen gives, and a delta that a reopen would refuse (a NaN
 * sequence, a malformed file meta) is never written.
 */
function prepare(
  where: ManifestLocation,
  state: RegionManifest | undefined,
  actions: readonly RegionAction[],
  version: number,
): { state: RegionManifest; bytes: Uint8Array } {
  const refuse = (message: string, cause?: unknown): ManifestError =>
    new ManifestError('invalid-transition', where, `update to version ${version} refused: ${message}`, { cause });
  const bytes = encodeDelta(actions);
  const decoded = decodeDelta(bytes);
  if (decoded.kind !== 'ok') throw refuse(decoded.reason);
  try {
    return { state: applyActions(state, decoded.value, version), bytes };
  } catch (err) {
    if (err instanceof InvalidTransitionError) throw refuse(err.message, err);
    throw err;
  }
}

export class ManifestManager {
  private current: RegionManifest;
  private readonly where: ManifestLocation;
  private readonly logger: ManifestLogger;
  /** Tail of the update queue: updates run one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Version of the checkpoint the pointer names (as far as this manager knows); 0 for none. */
  private checkpointVersion: number;
  private checkpointing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly store: ObjectStore,
    /** The manifest directory, ending with `/`. */
    readonly dir: string,
    private readonly opts: ManifestOptions,
    state: RegionManifest,
    checkpointVersion: number,
  ) {
    this.current = state;
    this.checkpointVersion = checkpointVersion;
    this.where = { store: store.description, dir };
    this.logger = opts.logger ?? SILENT;
  }

  /**
   * Creates the manifest of a new region in `dir` (e.g. `{region_dir}/manifest/`): version 1, a
   * `change` action. Fails with `exists` when `dir` already holds a manifest.
   */
  static async create(store: ObjectStore, dir: string, metadata: RegionMetadata, opts: ManifestOptions): Promise<ManifestManager> {
    checkOptions(opts);
    dir = normalizeDir(dir);
    const where = { store: store.description, dir };
    const existing = await loadManifest(store, dir, opts.logger ?? SILENT);
    if (existing !== undefined) {
      throw new ManifestError('exists', where, `a manifest already exists (version ${existing.state.manifest_version})`);
    }
    const { state, bytes } = prepare(where, undefined, [changeAction(metadata)], 1);
    const manager = new ManifestManager(store, dir, opts, state, 0);
    await manager.writeDelta(1, bytes);
    manager.maybeCheckpoint();
    return manager;
  }

  /**
   * Opens the manifest in `dir`: the state of its last committed update. Undefined when there is
   * no manifest. A removed region opens (its state says `removed`) so that the engine can finish
   * dropping it; it refuses updates.
   */
  static async open(store: ObjectStore, dir: string, opts: ManifestOptions): Promise<ManifestManager | undefined> {
    checkOptions(opts);
    dir = normalizeDir(dir);
    const loaded = await loadManifest(store, dir, opts.logger ?? SILENT);
    if (loaded === undefined) return undefined;
    return new ManifestManager(store, dir, opts, loaded.state, loaded.checkpointVersion);
  }

  /** The state after the last committed update. */
  get state(): RegionManifest {
    return this.current;
  }

  get version(): number {
    return this.current.manifest_version;
  }

  /**
   * Records `actions` as the next version, applied together; resolves to that version once its
   * delta is written. Calls run one at a time in call order, each against the state the previous
   * one left. Actions that do not apply are refused (`invalid-transition`) before anything is
   * written.
   */
  update(actions: readonly RegionAction[]): Promise<number> {
    if (this.closed) return Promise.reject(new ManifestError('closed', this.where, 'update after close'));
    const result = this.queue.then(() => this.commit(actions));
    this.queue = result.catch(() => {});
    return result;
  }

  /** Waits until queued updates and checkpoints (including ones they start) are done. */
  async settled(): Promise<void> {
    for (;;) {
      const queue = this.queue;
      await queue;
      const checkpointing = this.checkpointing;
      if (checkpointing !== undefined) await checkpointing;
      if (queue === this.queue && this.checkpointing === undefined) return;
    }
  }

  /** Refuses further updates and waits for the queued ones and a running checkpoint. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  private async commit(actions: readonly RegionAction[]): Promise<number> {
    const state = this.current;
    if (state.removed) throw new ManifestError('removed', this.where, 'the region is removed; it takes no more updates');
    const version = state.manifest_version + 1;
    const { state: next, bytes } = prepare(this.where, state, actions, version);
    await this.writeDelta(version, bytes);
    this.current = next;
    this.maybeCheckpoint();
    return version;
  }

  private async writeDelta(version: number, bytes: Uint8Array): Promise<void> {
    const name = deltaFileName(version);
    try {
      await this.store.write(this.dir + name, bytes);
    } catch (err) {
      throw new ManifestError('storage', this.where, `cannot write delta: ${(err as Error).message}`, { file: name, cause: err });
    }
  }

  /** Starts a checkpoint of the current state when it is due and none is running. */
  private maybeCheckpoint(): void {
    if (this.checkpointing !== undefined) return;
    const state = this.current;
    if (state.manifest_version - this.checkpointVersion < this.opts.checkpointDistance) return;
    this.checkpointing = this.checkpoint(state).then((written) => {
      this.checkpointing = undefined;
      // Updates that came meanwhile may have made the next one due already.
      if (written) this.maybeCheckpoint();
    });
  }

  /** Never rejects: a failed checkpoint leaves the previous one in charge, and is retried. */
  private async checkpoint(state: RegionManifest): Promise<boolean> {
    const version = state.manifest_version;
    try {
      await writeCheckpoint(this.store, this.dir, state);
    } catch (err) {
      this.logger.warn(
        { manifest_dir: this.dir, version, err },
        `region manifest ${this.dir} in ${this.store.description}: checkpoint of version ${version} failed; the next update retries`,
      );
      return false;
    }
    this.checkpointVersion = version;
    try {
      await deleteReplaced(this.store, this.dir, version);
    } catch (err) {
      this.logger.warn(
        { manifest_dir: this.dir, version, err },
        `region manifest ${this.dir} in ${this.store.description}: deleting files replaced by checkpoint ${version} failed; the next checkpoint deletes them`,
      );
    }
    return true;
  }
}
