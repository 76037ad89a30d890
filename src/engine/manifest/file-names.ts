/**
 * Names of the files in a manifest directory (docs/format/manifest.md). Versions are zero-padded
 * to 20 digits (a u64 in decimal), so that sorting names sorts versions, as in GreptimeDB.
 */

export const VERSION_DIGITS = 20;
export const DELTA_SUFFIX = '.json';
export const CHECKPOINT_SUFFIX = '.checkpoint';
/** Names the newest checkpoint: `{version, size, checksum}`. */
export const POINTER_FILE = '_last_checkpoint';

export type ManifestFile =
  | { readonly kind: 'delta'; readonly version: number }
  | { readonly kind: 'checkpoint'; readonly version: number }
  | { readonly kind: 'pointer' };

const VERSIONED = /^(\d{20})(\.json|\.checkpoint)$/;

export function versionText(version: number): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new RangeError(`manifest version ${version} is not a positive integer`);
  return String(version).padStart(VERSION_DIGITS, '0');
}

/** `00000000000000000007.json` */
export function deltaFileName(version: number): string {
  return versionText(version) + DELTA_SUFFIX;
}

/** `00000000000000000006.checkpoint` */
export function checkpointFileName(version: number): string {
  return versionText(version) + CHECKPOINT_SUFFIX;
}

/**
 * What a file name in a manifest directory is; undefined for names that are none of ours (they are
 * left alone), including versions beyond what a JS number holds exactly.
 */
export function parseManifestFileName(name: string): ManifestFile | undefined {
  if (name === POINTER_FILE) return { kind: 'pointer' };
  const m = VERSIONED.exec(name);
  if (m === null) return undefined;
  const version = Number(m[1]);
  if (!Number.isSafeInteger(version) || version < 1) return undefined;
  return { kind: m[2] === DELTA_SUFFIX ? 'delta' : 'checkpoint', version };
}
