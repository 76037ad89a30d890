/**
 * The durable embedded key-value store of a standalone server: LevelDB (classic-level) in a
 * directory under `data_home`. Keys are stored as their UTF-8 bytes, so LevelDB's byte-wise order
 * is the interface's. Every write is synced to disk before it is acknowledged, so it survives a
 * crash. Writes go one at a time through an in-process mutex, which makes compareAndPut's read and
 * write, and delete's existence check, one atomic step; this relies on one process owning the
 * directory, which LevelDB's LOCK file enforces.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import { upperBound, type KvBackend, type KvEntry, type KvOp } from './kv-backend.js';

type Db = ClassicLevel<Buffer, Buffer>;

/** A lone surrogate cannot be encoded in UTF-8: two such keys would collide as bytes. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const SYNC = { sync: true } as const;

export class LevelKvBackend implements KvBackend {
  readonly description: string;
  readonly #db: Db;
  /** The last write queued; the next one starts when it settles. */
  #writes: Promise<unknown> = Promise.resolve();
  /** Every operation under way, waited for by close(). */
  readonly #running = new Set<Promise<unknown>>();
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(db: Db, dir: string) {
    this.#db = db;
    this.description = `LevelDB(${dir})`;
  }

  /** Opens the store in `dir`, creating the directory and the database when missing. */
  static async open(dir: string): Promise<LevelKvBackend> {
    const abs = resolve(dir);
    try {
      await mkdir(abs, { recursive: true });
    } catch (err) {
      throw new TsdbError(StatusCode.StorageUnavailable, `create the directory of the key-value store ${abs}: ${errorMessage(err)}`, { cause: err });
    }
    const db: Db = new ClassicLevel<Buffer, Buffer>(abs, { keyEncoding: 'buffer', valueEncoding: 'buffer', createIfMissing: true });
    try {
      await db.open();
    } catch (err) {
      // abstract-level wraps LevelDB's error ("Database failed to open") around the real one.
      const inner = err instanceof Error && err.cause !== undefined ? err.cause : err;
      if (codeOf(inner) === 'LEVEL_LOCKED' || codeOf(err) === 'LEVEL_LOCKED') {
        throw new TsdbError(
          StatusCode.StorageUnavailable,
          `the key-value store in ${abs} is in use by another process (or already open in this one): ${errorMessage(inner)}`,
          { cause: err },
        );
      }
      throw new TsdbError(StatusCode.StorageUnavailable, `open the key-value store in ${abs}: ${errorMessage(inner)}`, { cause: err });
    }
    return new LevelKvBackend(db, abs);
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#read(`get ${key}`, async () => {
      const value = await this.#db.get(encodeKey(key));
      return value === undefined ? undefined : copy(value);
    });
  }

  put(key: string, value: Uint8Array): Promise<void> {
    return this.#write(`put ${key}`, () => this.#db.put(encodeKey(key), Buffer.from(value), SYNC));
  }

  delete(key: string): Promise<boolean> {
    return this.#write(`delete ${key}`, async () => {
      const k = encodeKey(key);
      if (!(await this.#db.has(k))) return false;
      await this.#db.del(k, SYNC);
      return true;
    });
  }

  range(prefix: string): Promise<KvEntry[]> {
    return this.#read(`range prefix ${prefix}`, async () => {
      const start = encodeKey(prefix);
      const end = upperBound(start);
      const entries = await this.#db.iterator(end === undefined ? { gte: start } : { gte: start, lt: end }).all();
      return entries.map(([k, v]) => ({ key: k.toString('utf8'), value: copy(v) }));
    });
  }

  compareAndPut(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean> {
    return this.#write(`compare-and-put ${key}`, async () => {
      const k = encodeKey(key);
      const current = await this.#db.get(k);
      if (!sameValue(current, expected)) return false;
      await this.#db.put(k, Buffer.from(value), SYNC);
      return true;
    });
  }

  batch(ops: readonly KvOp[]): Promise<void> {
    const what = ops.length === 0 ? 'batch of 0 operations' : `batch of ${ops.length} operations from ${ops[0]!.key}`;
    return this.#write(what, async () => {
      const encoded = ops.map((op) =>
        op.type === 'put' ? { type: 'put' as const, key: encodeKey(op.key), value: Buffer.from(op.value) } : { type: 'del' as const, key: encodeKey(op.key) },
      );
      if (encoded.length > 0) await this.#db.batch(encoded, SYNC);
    });
  }

  /** Waits for the operations under way, then closes the database. A second call is a no-op. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#running]);
      try {
        await this.#db.close();
      } catch (err) {
        throw new TsdbError(StatusCode.StorageUnavailable, `close ${this.description}: ${errorMessage(err)}`, { cause: err });
      }
    })();
    return this.#closing;
  }

  /** Runs a read now, alongside other reads and writes (LevelDB reads see committed writes only). */
  #read<T>(action: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return this.#rejectClosed();
    return this.#track(this.#attempt(action, fn));
  }

  /** Runs a write after every write queued before it. */
  #write<T>(action: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return this.#rejectClosed();
    const run = this.#writes.then(() => this.#attempt(action, fn));
    this.#writes = run.catch(() => {});
    return this.#track(run);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#running.add(p);
    const forget = (): void => void this.#running.delete(p);
    p.then(forget, forget);
    return p;
  }

  async #attempt<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof TsdbError) throw err;
      throw new TsdbError(StatusCode.StorageUnavailable, `${action} in ${this.description}: ${errorMessage(err)}`, { cause: err });
    }
  }

  #rejectClosed(): Promise<never> {
    return Promise.reject(new TsdbError(StatusCode.IllegalState, `the key-value store ${this.description} is closed`));
  }
}

function encodeKey(key: string): Buffer {
  if (LONE_SURROGATE.test(key)) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid key ${JSON.stringify(key)}: it has a lone surrogate, which UTF-8 cannot encode`);
  }
  return Buffer.from(key, 'utf8');
}


/** Both absent, or both present with the same bytes. */
function sameValue(a: Buffer | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.equals(b);
}

/** A plain Uint8Array with its own copy of the bytes. */
function copy(value: Uint8Array): Uint8Array {
  return new Uint8Array(value);
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}
