/**
 * The key-value store of a cluster (DESIGN.md D7/D11): etcd, through the etcd3 client's raw KV
 * service. Every key lives under a namespace (default `/tsdb/`), which also gives the interface's
 * empty key a place, since etcd has no empty key. etcd orders keys by their bytes and serves each
 * range from one revision, so ranges are sorted and never see half a transaction.
 *
 * compareAndPut is one etcd transaction comparing the value (or create-revision 0 for "must not
 * exist"). A batch is one transaction too, after folding repeated keys to their last operation
 * (etcd refuses a transaction that touches a key twice). etcd caps a transaction at
 * `--max-txn-ops` operations (128 by default); splitting a larger batch would not be atomic, so a
 * batch over `maxTxnOps` distinct keys is refused with InvalidArguments before anything is sent.
 *
 * Every call has a deadline (`requestTimeoutMs`) and never waits longer. Within it, a failure
 * that proves the request never reached etcd (no connection, an open circuit) is retried, on
 * another endpoint when there are several; other transient failures are retried only for
 * operations that are safe to repeat (reads, put, batch). compareAndPut and delete answer with
 * what they found, which a repeat would misreport, so an ambiguous failure of theirs says that
 * the outcome is unknown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { circuitBreaker, ConsecutiveBreaker, handleWhen, isBrokenCircuitError, noop } from 'cockatiel';
import { ClientClosedError, Etcd3, GRPCDeadlineExceededError, GRPCInvalidArgumentError, isRecoverableError } from 'etcd3';
import type { ICompare, IRequestOp, KVClient } from 'etcd3';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import { upperBound, type KvBackend, type KvEntry, type KvOp } from './kv-backend.js';

export interface EtcdKvOptions {
  /** etcd client endpoints as host:port; calls go to any of them. */
  readonly endpoints: readonly string[];
  /**
   * The prefix of every key this store writes; it must end with `/` so that namespaces like
   * `/a/` and `/ab/` stay apart (one inside another, like `/a/` and `/a/b/`, still overlaps).
   * Default `/tsdb/`.
   */
  readonly namespace?: string;
  /** How long connect() waits for etcd to answer. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** The deadline of each operation, retries included. Default 5000. */
  readonly requestTimeoutMs?: number;
  /** The server's `--max-txn-ops` (default 128): the most distinct keys one batch may touch. */
  readonly maxTxnOps?: number;
}

export const DEFAULT_ETCD_NAMESPACE = '/tsdb/';
export const DEFAULT_ETCD_MAX_TXN_OPS = 128;
const DEFAULT_TIMEOUT_MS = 5000;
/** How long an endpoint that failed 3 times in a row is skipped before it is tried again. */
const HALF_OPEN_AFTER_MS = 1000;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 500;

/** A lone surrogate cannot be encoded in UTF-8: two such keys would collide as bytes. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const ENDPOINT = /^[^\s/:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/;
/** Every key from the start key on (etcd's range_end "\0"). */
const TO_THE_END = Buffer.from([0]);

export class EtcdKvBackend implements KvBackend {
  readonly description: string;
  readonly endpoints: readonly string[];
  readonly namespace: string;
  readonly #client: Etcd3;
  readonly #kv: KVClient;
  readonly #ns: Buffer;
  readonly #requestTimeoutMs: number;
  readonly #maxTxnOps: number;
  /** Every operation under way, waited for by close(). */
  readonly #running = new Set<Promise<unknown>>();
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(client: Etcd3, endpoints: readonly string[], namespace: string, requestTimeoutMs: number, maxTxnOps: number) {
    this.#client = client;
    this.#kv = client.kv;
    this.endpoints = endpoints;
    this.namespace = namespace;
    this.#ns = Buffer.from(namespace, 'utf8');
    this.#requestTimeoutMs = requestTimeoutMs;
    this.#maxTxnOps = maxTxnOps;
    this.description = `etcd(${endpoints.join(',')})`;
  }

  /**
   * Connects to etcd and checks that it answers within `connectTimeoutMs`; fails with
   * StorageUnavailable naming the endpoints when it does not.
   */
  static async connect(options: EtcdKvOptions): Promise<EtcdKvBackend> {
    const endpoints = [...options.endpoints];
    if (endpoints.length === 0) throw new TsdbError(StatusCode.InvalidArguments, 'etcd: no endpoints given (expected host:port, one or more)');
    for (const e of endpoints) {
      if (!ENDPOINT.test(e)) throw new TsdbError(StatusCode.InvalidArguments, `etcd: invalid endpoint ${JSON.stringify(e)} (expected host:port)`);
    }
    const namespace = options.namespace ?? DEFAULT_ETCD_NAMESPACE;
    if (!namespace.endsWith('/')) {
      // Without it, namespace /a would see the keys of /ab as its own.
      throw new TsdbError(StatusCode.InvalidArguments, `etcd: invalid namespace ${JSON.stringify(namespace)}: it must end with "/"`);
    }
    if (LONE_SURROGATE.test(namespace)) throw new TsdbError(StatusCode.InvalidArguments, `etcd: invalid namespace ${JSON.stringify(namespace)}: it has a lone surrogate`);
    const connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    const requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    const maxTxnOps = positive('maxTxnOps', options.maxTxnOps ?? DEFAULT_ETCD_MAX_TXN_OPS);
    const client = new Etcd3({
      hosts: endpoints,
      grpcOptions: {
        // A range of many large values must not fail on gRPC's default 4 MiB receive limit.
        'grpc.max_receive_message_length': -1,
        // Reconnect soon after etcd comes back instead of gRPC's default backoff of up to 2 min.
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1000,
      },
      faultHandling: {
        // Retries are ours (below), since whether one is safe depends on the operation.
        global: noop,
        host: () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: HALF_OPEN_AFTER_MS, breaker: new ConsecutiveBreaker(3) }),
      },
    });
    const kv = new EtcdKvBackend(client, endpoints, namespace, requestTimeoutMs, maxTxnOps);
    try {
      await kv.#call('connect', true, connectTimeoutMs, (deadline) => kv.#kv.range({ key: kv.#ns, limit: 1, keys_only: true }, { deadline }));
    } catch (err) {
      client.close();
      throw err;
    }
    return kv;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#op(`get ${key}`, true, async (deadline) => {
      const res = await this.#kv.range({ key: this.#encode(key) }, { deadline });
      const found = res.kvs[0];
      return found === undefined ? undefined : copy(found.value);
    });
  }

  put(key: string, value: Uint8Array): Promise<void> {
    return this.#op(`put ${key}`, true, async (deadline) => {
      await this.#kv.put({ key: this.#encode(key), value: Buffer.from(value) }, { deadline });
    });
  }

  delete(key: string): Promise<boolean> {
    return this.#op(`delete ${key}`, false, async (deadline) => {
      const res = await this.#kv.deleteRange({ key: this.#encode(key) }, { deadline });
      return Number(res.deleted) > 0;
    });
  }

  range(prefix: string): Promise<KvEntry[]> {
    return this.#op(`range prefix ${prefix}`, true, async (deadline) => {
      const start = this.#encode(prefix);
      const res = await this.#kv.range({ key: start, range_end: upperBound(start) ?? TO_THE_END }, { deadline });
      const skip = this.#ns.length;
      return res.kvs.map((e) => ({ key: e.key.toString('utf8', skip), value: copy(e.value) }));
    });
  }

  compareAndPut(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean> {
    return this.#op(`compare-and-put ${key}`, false, async (deadline) => {
      const k = this.#encode(key);
      // A value compare on a missing key is false in etcd, so "missing" never equals "empty".
      const compare: ICompare =
        expected === undefined
          ? { key: k, target: 'Create', result: 'Equal', create_revision: 0 }
          : { key: k, target: 'Value', result: 'Equal', value: Buffer.from(expected) };
      const res = await this.#kv.txn({ compare: [compare], success: [{ request_put: { key: k, value: Buffer.from(value) } }] }, { deadline });
      return res.succeeded;
    });
  }

  batch(ops: readonly KvOp[]): Promise<void> {
    const what = ops.length === 0 ? 'batch of 0 operations' : `batch of ${ops.length} operations from ${ops[0]!.key}`;
    return this.#op(what, true, async (deadline) => {
      // The last operation on a key decides its state; etcd refuses a key twice in one txn.
      const last = new Map<string, IRequestOp>();
      for (const op of ops) {
        const key = this.#encode(op.key);
        const id = key.toString('latin1');
        last.delete(id);
        last.set(id, op.type === 'put' ? { request_put: { key, value: Buffer.from(op.value) } } : { request_delete_range: { key } });
      }
      if (last.size === 0) return;
      if (last.size > this.#maxTxnOps) {
        throw new TsdbError(
          StatusCode.InvalidArguments,
          `${what} in ${this.description}: it touches ${last.size} keys, over etcd's limit of ${this.#maxTxnOps} operations per transaction (--max-txn-ops); a batch must be one transaction to be atomic, so split it into batches that need not apply together`,
        );
      }
      await this.#kv.txn({ success: [...last.values()] }, { deadline });
    });
  }

  /** Waits for the operations under way, then closes the client. A second call is a no-op. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#running]);
      this.#client.close();
    })();
    return this.#closing;
  }

  #op<T>(action: string, repeatable: boolean, fn: (deadline: Date) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const p = this.#call(action, repeatable, this.#requestTimeoutMs, fn);
    this.#running.add(p);
    const forget = (): void => void this.#running.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Runs `fn` until it succeeds, fails for good, or `timeoutMs` is spent. */
  async #call<T>(action: string, repeatable: boolean, timeoutMs: number, fn: (deadline: Date) => Promise<T>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      try {
        return await fn(new Date(deadline));
      } catch (err) {
        if (err instanceof TsdbError) throw err;
        if (err instanceof ClientClosedError) throw this.#closedError();
        const unsent = neverSent(err);
        const retry = (unsent || (repeatable && recoverable(err) && !(err instanceof GRPCDeadlineExceededError))) && Date.now() + backoff < deadline;
        if (!retry) throw this.#failure(action, err, timeoutMs, unsent || repeatable);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  #failure(action: string, err: unknown, timeoutMs: number, safe: boolean): TsdbError {
    const where = `etcd at ${this.endpoints.join(', ')}`;
    if (err instanceof GRPCInvalidArgumentError) {
      return new TsdbError(StatusCode.InvalidArguments, `${action}: ${where} refused it: ${errorMessage(err)}`, { cause: err });
    }
    const transient = neverSent(err) || recoverable(err);
    const why = transient ? `${where} is unavailable (no answer within ${timeoutMs} ms)` : `${where} failed`;
    const unknown = safe || !transient ? '' : '; it may or may not have been applied';
    return new TsdbError(StatusCode.StorageUnavailable, `${action}: ${why}: ${errorMessage(err)}${unknown}`, { cause: err });
  }

  #closedError(): TsdbError {
    return new TsdbError(StatusCode.IllegalState, `the key-value store ${this.description} is closed`);
  }

  #encode(key: string): Buffer {
    if (LONE_SURROGATE.test(key)) {
      throw new TsdbError(StatusCode.InvalidArguments, `invalid key ${JSON.stringify(key)}: it has a lone surrogate, which UTF-8 cannot encode`);
    }
    return Buffer.concat([this.#ns, Buffer.from(key, 'utf8')]);
  }
}

/** True when the request provably never reached etcd: no connection, or an endpoint skipped by its circuit breaker. */
function neverSent(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (isBrokenCircuitError(err as Error)) return true;
  return /No connection established|ECONNREFUSED|circuit breaker is open/.test(errorMessage(err));
}

/** A failure etcd3 counts as transient (unavailable, deadline, aborted, …). */
function recoverable(err: unknown): boolean {
  return err instanceof Error && isRecoverableError(err);
}

function positive(name: string, v: number): number {
  if (!Number.isInteger(v) || v <= 0) throw new TsdbError(StatusCode.InvalidArguments, `etcd: ${name} must be a positive integer, got ${v}`);
  return v;
}


/** A plain Uint8Array with its own copy of the bytes. */
function copy(value: Uint8Array): Uint8Array {
  return new Uint8Array(value);
}
