/**
 * Checks of the paths given to an object store. A path is relative to the store's root and
 * `/`-separated; one that could name something outside the root is refused before it reaches
 * OpenDAL, whose fs service joins `../x` onto its root as it is (it would read `/tmp/x` for a
 * store rooted at `/tmp/tsdb`) and reads `/x` as `x`.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

/** What a path names: one object, or the start of object paths (a directory ends with `/`). */
export type PathKind = 'object' | 'prefix' | 'directory';

function problem(path: string, kind: PathKind): string | undefined {
  if (path.startsWith('/')) return "it is absolute; paths are relative to the store's root";
  if (path.includes('\0')) return 'it contains a NUL character';
  if (kind === 'object') {
    if (path === '') return 'it is empty';
    if (path.endsWith('/')) return 'it ends with "/", which names a directory, not an object';
  }
  if (kind === 'directory' && !path.endsWith('/')) return 'a directory prefix must end with "/"';
  if (path === '') return undefined;
  const segments = path.split('/');
  // A prefix may end in the middle of a name (`sst/00` matches `sst/0001.parquet`) or after `/`.
  if (kind !== 'object' && segments.at(-1) === '') segments.pop();
  for (const segment of segments) {
    if (segment === '..') return 'a ".." segment would leave the root';
    if (segment === '.') return 'it has a "." segment';
    if (segment === '') return 'it has an empty segment ("//")';
  }
  return undefined;
}

/** Throws a TsdbError (InvalidArguments) naming the path, the store and the reason. */
export function checkObjectPath(path: string, kind: PathKind, store: string): void {
  const why = problem(path, kind);
  if (why === undefined) return;
  const what = kind === 'object' ? 'object path' : 'path prefix';
  throw new TsdbError(StatusCode.InvalidArguments, `invalid ${what} "${path}" in ${store}: ${why}`);
}
