/**
 * Errors of a region's manifest, naming the store, the manifest directory and (when there is one)
 * the file. The engine maps `kind` to a status code; nobody needs to read the message to decide.
 */

export type ManifestErrorKind =
  /** `create` found a manifest already there. */
  | 'exists'
  /** An update of a removed (dropped) region. */
  | 'removed'
  /** An update after `close()`. */
  | 'closed'
  /** An update whose actions do not apply to the current state (nothing was written). */
  | 'invalid-transition'
  /** The manifest on the store cannot be read into a state without losing committed updates. */
  | 'corrupt'
  /** The store failed (the message says which operation and file). */
  | 'storage';

/** Where a manifest is: for messages. */
export interface ManifestLocation {
  /** `ObjectStore.description`, e.g. `File(/var/lib/tsdb)`. */
  readonly store: string;
  /** The manifest directory, e.g. `data/tsdb/public/1024/1024_0000000000/manifest/`. */
  readonly dir: string;
}

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  readonly dir: string;
  /** Name of the file concerned, when there is one (e.g. `00000000000000000007.json`). */
  readonly file: string | undefined;

  constructor(
    readonly kind: ManifestErrorKind,
    where: ManifestLocation,
    message: string,
    opts?: { readonly cause?: unknown; readonly file?: string },
  ) {
    const file = opts?.file !== undefined ? ` file ${opts.file}` : '';
    super(`region manifest ${where.dir} in ${where.store}${file}: ${message}`, { cause: opts?.cause });
    this.dir = where.dir;
    this.file = opts?.file;
  }
}
