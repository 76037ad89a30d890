/**
 * The key-value store behind catalog and cluster metadata (DESIGN.md D11): one interface, three
 * stores — memory (`use_memory_store`, tests), a durable embedded store under `data_home`
 * (standalone), etcd (metasrv). Keys are strings compared byte-wise (UTF-8); values are bytes.
 * Every operation is atomic; `batch` applies all its operations or none.
 */

export interface KvEntry {
  readonly key: string;
  readonly value: Uint8Array;
}

export type KvOp = { readonly type: 'put'; readonly key: string; readonly value: Uint8Array } | { readonly type: 'delete'; readonly key: string };

export interface KvBackend {
  /** Human description for messages, e.g. `LevelDB(/data/metadata)` or `memory`. */
  readonly description: string;
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, value: Uint8Array): Promise<void>;
  /** Deletes the key; returns whether it existed. */
  delete(key: string): Promise<boolean>;
  /** Every entry whose key starts with `prefix`, sorted by key ('' = all). */
  range(prefix: string): Promise<KvEntry[]>;
  /**
   * Puts `value` only if the key's current value equals `expected` (undefined = the key must not
   * exist); returns whether it did. The check and the put are one atomic step.
   */
  compareAndPut(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean>;
  /** Applies every operation, in order, atomically. */
  batch(ops: readonly KvOp[]): Promise<void>;
  /** Releases the store; later calls fail. */
  close(): Promise<void>;
}

/**
 * The least byte string above every string that starts with `prefix` (the exclusive end of a
 * prefix range); undefined when there is none ('' or all 0xff bytes: the range runs to the end).
 */
export function upperBound(prefix: Buffer): Buffer | undefined {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}
