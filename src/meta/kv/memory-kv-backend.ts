/**
 * The in-memory key-value store (`use_memory_store`, tests): an array of entries sorted by the
 * UTF-8 bytes of their keys, as LevelDB and etcd order them. Values are copied in and out, so
 * callers may reuse their arrays. Every call resolves after a microtask, like a real store, and
 * then runs as one synchronous step, which makes it atomic.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { KvBackend, KvEntry, KvOp } from './kv-backend.js';

/** A lone surrogate cannot be encoded in UTF-8: two such keys would collide in a byte-keyed store. */
const LONE_SURROGATE = /\p{Surrogate}/u;

interface Slot {
  readonly key: string;
  readonly bytes: Buffer;
  value: Uint8Array;
}

export class MemoryKvBackend implements KvBackend {
  readonly description = 'memory';
  /** Sorted by `bytes`. */
  readonly #slots: Slot[] = [];
  #closed = false;

  async get(key: string): Promise<Uint8Array | undefined> {
    await this.#enter();
    const i = this.#search(encodeKey(key));
    return i >= 0 ? copy(this.#slots[i]!.value) : undefined;
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    await this.#enter();
    this.#set(key, encodeKey(key), copy(value));
  }

  async delete(key: string): Promise<boolean> {
    await this.#enter();
    return this.#remove(encodeKey(key));
  }

  async range(prefix: string): Promise<KvEntry[]> {
    await this.#enter();
    const bytes = encodeKey(prefix);
    const out: KvEntry[] = [];
    const start = this.#search(bytes);
    for (let i = start >= 0 ? start : ~start; i < this.#slots.length; i++) {
      const slot = this.#slots[i]!;
      if (!startsWith(slot.bytes, bytes)) break;
      out.push({ key: slot.key, value: copy(slot.value) });
    }
    return out;
  }

  async compareAndPut(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean> {
    await this.#enter();
    const bytes = encodeKey(key);
    const i = this.#search(bytes);
    const current = i >= 0 ? this.#slots[i]!.value : undefined;
    if (!sameValue(current, expected)) return false;
    this.#set(key, bytes, copy(value));
    return true;
  }

  async batch(ops: readonly KvOp[]): Promise<void> {
    await this.#enter();
    // Check every key before changing anything: all or nothing.
    const encoded = ops.map((op) => encodeKey(op.key));
    ops.forEach((op, i) => {
      if (op.type === 'put') this.#set(op.key, encoded[i]!, copy(op.value));
      else this.#remove(encoded[i]!);
    });
  }

  async close(): Promise<void> {
    await Promise.resolve();
    this.#closed = true;
    this.#slots.length = 0;
  }

  /** Waits a microtask, as a real store would, then fails when the store is closed. */
  async #enter(): Promise<void> {
    await Promise.resolve();
    if (this.#closed) throw new TsdbError(StatusCode.IllegalState, `the key-value store ${this.description} is closed`);
  }

  /** Index of the slot with these bytes, or `~insertionPoint` when there is none. */
  #search(bytes: Buffer): number {
    let lo = 0;
    let hi = this.#slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = Buffer.compare(this.#slots[mid]!.bytes, bytes);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return ~lo;
  }

  #set(key: string, bytes: Buffer, value: Uint8Array): void {
    const i = this.#search(bytes);
    if (i >= 0) this.#slots[i]!.value = value;
    else this.#slots.splice(~i, 0, { key, bytes, value });
  }

  #remove(bytes: Buffer): boolean {
    const i = this.#search(bytes);
    if (i < 0) return false;
    this.#slots.splice(i, 1);
    return true;
  }
}

function encodeKey(key: string): Buffer {
  if (LONE_SURROGATE.test(key)) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid key ${JSON.stringify(key)}: it has a lone surrogate, which UTF-8 cannot encode`);
  }
  return Buffer.from(key, 'utf8');
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** Both absent, or both present with the same bytes. */
function sameValue(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** A plain Uint8Array with its own copy of the bytes (`Buffer#slice` would share them). */
function copy(value: Uint8Array): Uint8Array {
  return new Uint8Array(value);
}
