/**
 * Where a COPY statement's files are: a local path, which must lie in the configured copy directory
 * (`[copy] dir`), or an object storage URL (`s3://bucket/path` with the statement's CONNECTION keys).
 * This is the only gate between SQL and the server's file system (DESIGN.md D12): `..`, absolute
 * paths elsewhere and symbolic links leading out of the directory are refused with "permission
 * denied" (7006) before any file is touched.
 */
import { realpath, lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { OpendalObjectStore } from '../../storage/opendal-object-store.js';

/** The directory of the copy directory that COPY to object storage stages its files in; never a user's path. */
export const STAGING_DIR = '.tsdb-staging';

export type CopyLocation =
  | {
      readonly kind: 'local';
      /** The absolute path. */
      readonly path: string;
      /** The location names a directory (ends with `/`). */
      readonly directory: boolean;
      /** What messages show: the path as the statement gave it. */
      readonly shown: string;
    }
  | {
      readonly kind: 'remote';
      readonly store: ObjectStore;
      /** The object's path in the store (no leading `/`); a directory ends with `/` (or is ''). */
      readonly path: string;
      readonly directory: boolean;
      readonly shown: string;
    };

function denied(location: string, why: string): TsdbError {
  return new TsdbError(StatusCode.PermissionDenied, `Permission denied: COPY may only use files in the configured copy directory ([copy] dir): ${why}: ${location}`);
}

/** The object storage schemes of URLs, by the storage type they name. */
const SCHEMES: Record<string, 'S3' | 'Oss' | 'Gcs' | 'Azblob'> = { s3: 'S3', oss: 'Oss', gs: 'Gcs', gcs: 'Gcs', azblob: 'Azblob' };

/**
 * Resolves a COPY location. `root` is the copy directory (undefined: local files are refused).
 * A local location is relative to it, or absolute inside it.
 */
export async function resolveCopyLocation(location: string, connection: Readonly<Record<string, string>>, root: string | undefined): Promise<CopyLocation> {
  if (location.includes('\0')) throw denied(location.replaceAll('\0', '\\0'), 'a NUL character');
  const url = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(location);
  if (url !== null && url[1]!.toLowerCase() !== 'file') return remoteLocation(url[1]!.toLowerCase(), url[2]!, connection, location);
  if (Object.keys(connection).length > 0) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid SQL, error: CONNECTION is only for object storage locations (s3://…, oss://…, gs://…, azblob://…)');
  const path = url !== null ? url[2]! : location;
  if (root === undefined || root === '') throw denied(location, 'no copy directory is configured');
  const directory = path.endsWith('/') || path === '' || path.endsWith(`${sep}.`);
  if (path.split(/[\\/]/).some((part) => part === '..')) throw denied(location, 'a path may not contain ..');
  if (path.split(/[\\/]/).some((part) => part === STAGING_DIR)) throw denied(location, `${STAGING_DIR} is tsdb's own`);
  const base = resolve(root);
  const full = isAbsolute(path) ? resolve(path) : resolve(base, path);
  if (!within(base, full)) throw denied(location, 'outside the copy directory');
  // A symbolic link anywhere on the way may lead elsewhere: the real path of what exists of it must stay inside.
  const realBase = await realpath(base).catch(() => base);
  const real = await realExisting(full);
  if (!within(realBase, real) && !within(base, real)) throw denied(location, 'a symbolic link leads outside the copy directory');
  return { kind: 'local', path: full, directory, shown: location };
}

function within(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path`'s longest existing prefix, joined with the rest. */
async function realExisting(path: string): Promise<string> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      return join(await realpath(existing), ...rest.reverse());
    } catch {
      const parent = resolve(existing, '..');
      if (parent === existing) return path;
      rest.push(existing.slice(parent.length).replace(/^[\\/]/, ''));
      existing = parent;
    }
  }
}

/** The keys a CONNECTION may give, per storage type, under OpenDAL's names. */
function remoteLocation(scheme: string, rest: string, connection: Readonly<Record<string, string>>, shown: string): CopyLocation {
  const type = SCHEMES[scheme];
  if (type === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: unsupported location scheme ${scheme}:// (local paths, s3://, oss://, gs://, azblob://)`);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash + 1);
  if (bucket === '') throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: no bucket in ${shown}`);
  if (path.split('/').some((part) => part === '..')) throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: a path may not contain ..: ${shown}`);
  const c = connection;
  const config: Record<string, string | undefined> =
    type === 'S3'
      ? { bucket, endpoint: c['endpoint'], region: c['region'] ?? 'us-east-1', access_key_id: c['access_key_id'], secret_access_key: c['secret_access_key'], session_token: c['session_token'], enable_virtual_host_style: c['enable_virtual_host_style'] }
      : type === 'Oss'
        ? { bucket, endpoint: c['endpoint'], access_key_id: c['access_key_id'], access_key_secret: c['access_key_secret'] ?? c['secret_access_key'] }
        : type === 'Gcs'
          ? { bucket, endpoint: c['endpoint'], credential_path: c['credential_path'], credential: c['credential'], scope: c['scope'] }
          : { container: bucket, endpoint: c['endpoint'] ?? (c['account_name'] !== undefined ? `https://${c['account_name']}.blob.core.windows.net` : undefined), account_name: c['account_name'], account_key: c['account_key'], sas_token: c['sas_token'] };
  const defined = Object.fromEntries(Object.entries(config).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  let store: ObjectStore;
  try {
    store = new OpendalObjectStore({ scheme: type.toLowerCase(), config: { ...defined, root: '/' }, description: `${type}(${bucket})` });
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid CONNECTION for ${type}(${bucket}): ${err instanceof Error ? err.message : String(err)}`);
  }
  return { kind: 'remote', store, path, directory: path === '' || path.endsWith('/'), shown };
}
