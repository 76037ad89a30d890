/**
 * Failures of the storage under a region (a full disk, an I/O error, an unreachable object store)
 * as users see them: StorageUnavailable (HTTP 503, retryable), the message naming the file and the
 * store. Errors that already carry a status code pass unchanged.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { ManifestError } from './manifest/manifest-error.js';

export function storageError(err: unknown): unknown {
  if (err instanceof ManifestError && (err.kind === 'storage' || err.kind === 'corrupt')) {
    return new TsdbError(StatusCode.StorageUnavailable, err.message, { cause: err });
  }
  return err;
}

/** Runs `fn`, converting what storageError() knows. */
export async function withStorageErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storageError(err);
  }
}
