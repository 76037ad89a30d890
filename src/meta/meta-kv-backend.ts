/**
 * The cluster's metadata as a frontend or datanode reads it: the metasrv's store through the meta
 * client, read-only. Every change is DDL the metasrv runs (`meta-table-ddl.ts`); a write reaching
 * here is a bug in tsdb, refused.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { KvBackend, KvEntry, KvOp } from './kv/kv-backend.js';
import type { MetaService } from './meta-service.js';

function readOnly(what: string): TsdbError {
  return new TsdbError(StatusCode.Unexpected, `cluster metadata is changed by metasrv DDL only, not by ${what} from this node`);
}

export class MetaKvBackend implements KvBackend {
  readonly description = 'metasrv';

  constructor(private readonly meta: MetaService) {}

  get(key: string): Promise<Uint8Array | undefined> {
    return this.meta.get(key);
  }

  range(prefix: string): Promise<KvEntry[]> {
    return this.meta.range(prefix);
  }

  put(key: string): Promise<void> {
    return Promise.reject(readOnly(`a put of ${key}`));
  }

  delete(key: string): Promise<boolean> {
    return Promise.reject(readOnly(`a delete of ${key}`));
  }

  compareAndPut(key: string): Promise<boolean> {
    return Promise.reject(readOnly(`a compare-and-put of ${key}`));
  }

  batch(ops: readonly KvOp[]): Promise<void> {
    return Promise.reject(readOnly(`a batch of ${ops.length} operations`));
  }

  async close(): Promise<void> {}
}
