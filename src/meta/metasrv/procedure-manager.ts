/**
 * Runs the metasrv's procedures (procedure.ts): each is persisted when submitted and at every
 * step, takes its locks, then one of `maxRunning` slots (128), and its record is removed once it
 * finished (done, or failed with everything undone). A restarted metasrv resumes every record it
 * finds (`recover`), queued for their locks before any new task.
 *
 * Calls to datanodes are retried while unreachable (StorageUnavailable), with a backoff doubling
 * from `retryDelayMs` (500 ms) over `maxRetries` tries (12), as GreptimeDB's metasrv does.
 *
 * `stop()` makes every procedure give up at its next wait (`guard`), leaving its record for the
 * next start, as a crash would; it waits a bounded time for them and always returns.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import type { Peer } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import type { RegionId } from '../../types/region-id.js';
import type { RegionServer } from '../../types/region-server.js';
import type { KvBackend } from '../kv/kv-backend.js';
import type { DdlResult, MetaEvent } from '../meta-service.js';
import { LockManager } from './lock-manager.js';
import { PROCEDURE_PREFIX, procedureKey, type Procedure, type ProcedureContext, type ProcedureRecord, type RegionCallOptions } from './procedure.js';

/** Node errors that say a peer could not be reached (a client that does not map them to StorageUnavailable). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);

/** Whether a failed region call may succeed when made again: the datanode was unreachable. */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof TsdbError) return err.code === StatusCode.StorageUnavailable;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

export interface ProcedureManagerOptions {
  readonly kv: KvBackend;
  readonly catalog: CatalogManager;
  readonly logger: Logger;
  /** A datanode's region server. */
  readonly connect: (peer: Peer) => RegionServer;
  readonly select: (count: number, exclude?: ReadonlySet<number>) => Peer[];
  readonly emit: (event: MetaEvent) => void;
  /** The procedure of a persisted record (for `recover`). */
  readonly restore: (record: ProcedureRecord) => Procedure;
  readonly now: () => number;
  /** Default 128. */
  readonly maxRunning?: number;
  /** Tries of a region call while its datanode is unreachable. Default 12. */
  readonly maxRetries?: number;
  /** The first backoff, doubled at each retry. Default 500. */
  readonly retryDelayMs?: number;
  /** How long `stop()` waits for procedures to give up. Default 5000. */
  readonly stopTimeoutMs?: number;
  /** Called (and waited for) once a procedure's new step is persisted, before it runs: a test's way to stop it there. */
  readonly beforeStep?: (p: { readonly id: string; readonly kind: string; readonly step: string }) => Promise<void> | void;
}

export class ProcedureManager {
  readonly locks = new LockManager();
  private readonly maxRunning: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;
  private runningCount = 0;
  private readonly slotQueue: Array<() => void> = [];
  /** Every procedure under way (waiting or running), by id. */
  private readonly active = new Map<string, { readonly proc: Procedure; readonly done: Promise<unknown> }>();
  /** The regions each procedure is operating on. */
  private readonly operatingBy = new Map<string, readonly RegionId[]>();
  private readonly stopController = new AbortController();
  private readonly stopped: Promise<never>;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: ProcedureManagerOptions) {
    this.maxRunning = opts.maxRunning ?? 128;
    this.maxRetries = opts.maxRetries ?? 12;
    this.retryDelayMs = opts.retryDelayMs ?? 500;
    this.stopped = new Promise<never>((_, reject) => {
      this.stopController.signal.addEventListener('abort', () => reject(stoppingError()), { once: true });
    });
    this.stopped.catch(() => {});
  }

  get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  /** Persists a new procedure and runs it; resolves with its result. */
  async submit(proc: Procedure): Promise<DdlResult> {
    if (this.stopping) throw stoppingError();
    const id = randomUUID();
    const submitted = this.opts.now();
    await this.persist(id, proc, submitted);
    return this.track(id, proc, this.run(id, proc, submitted, false, undefined));
  }

  /**
   * Resumes every persisted procedure, in the order they were submitted: each queued for its locks
   * before this returns (so no task submitted later overtakes it), then run in the background.
   * Returns how many.
   */
  async recover(): Promise<number> {
    const records = (await this.opts.kv.range(PROCEDURE_PREFIX)).map((e) => JSON.parse(Buffer.from(e.value).toString('utf8')) as ProcedureRecord);
    records.sort((a, b) => a.submitted_ms - b.submitted_ms);
    const resumed: Array<{ record: ProcedureRecord; proc: Procedure; locking: Promise<() => void> }> = [];
    for (const record of records) {
      let proc: Procedure;
      try {
        proc = this.opts.restore(record);
      } catch (err) {
        this.opts.logger.error({ err, procedure: record.id, kind: record.kind }, 'a persisted procedure cannot be read: left in place');
        continue;
      }
      // Queued now, in the order they were submitted: ahead of any task submitted later.
      resumed.push({ record, proc, locking: this.locks.acquire(proc.locks()) });
    }
    for (const { record, proc, locking } of resumed) {
      this.opts.logger.info({ procedure: record.id, kind: record.kind, step: record.step }, `resuming ${proc.describe()}`);
      const done = this.track(record.id, proc, this.run(record.id, proc, record.submitted_ms, true, locking));
      done.then(
        () => this.opts.logger.info({ procedure: record.id }, `resumed ${proc.describe()}: finished`),
        (err: unknown) => this.opts.logger.warn({ err, procedure: record.id }, `resumed ${proc.describe()}: failed`),
      );
    }
    return resumed.length;
  }

  /** The regions some procedure is creating, dropping or moving now. */
  operatingRegions(): Set<RegionId> {
    const out = new Set<RegionId>();
    for (const ids of this.operatingBy.values()) for (const id of ids) out.add(id);
    return out;
  }

  /** How many procedures are under way (waiting for locks or a slot, or running). */
  get activeCount(): number {
    return this.active.size;
  }

  /** Resolves once no procedure is under way. */
  whenIdle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Makes every procedure give up at its next wait; waits for them up to `stopTimeoutMs`. Always returns. */
  async stop(): Promise<void> {
    this.stopController.abort();
    for (const wake of this.slotQueue.splice(0)) wake();
    const all = Promise.allSettled([...this.active.values()].map((a) => a.done));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.opts.stopTimeoutMs ?? 5000)));
    await Promise.race([all, timeout]);
    clearTimeout(timer);
  }

  private track(id: string, proc: Procedure, done: Promise<DdlResult>): Promise<DdlResult> {
    const settled = done.then(
      () => {},
      () => {},
    );
    this.active.set(id, { proc, done: settled });
    void settled.then(() => {
      this.active.delete(id);
      if (this.active.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    return done;
  }

  private async persist(id: string, proc: Procedure, submitted: number): Promise<void> {
    const record: ProcedureRecord = { id, kind: proc.kind, step: proc.step, data: proc.data, submitted_ms: submitted };
    await this.opts.kv.put(procedureKey(id), Buffer.from(JSON.stringify(record)));
  }

  private async takeSlot(): Promise<void> {
    while (this.runningCount >= this.maxRunning) {
      if (this.stopping) throw stoppingError();
      await new Promise<void>((resolve) => this.slotQueue.push(resolve));
    }
    if (this.stopping) throw stoppingError();
    this.runningCount++;
  }

  private giveSlot(): void {
    this.runningCount--;
    this.slotQueue.shift()?.();
  }

  private async run(id: string, proc: Procedure, submitted: number, resumed: boolean, queued: Promise<() => void> | undefined): Promise<DdlResult> {
    let release: (() => void) | undefined;
    let slot = false;
    // At once: a resumed procedure's regions are kept from heartbeats before any can arrive.
    this.operatingBy.set(id, proc.operating());
    try {
      const acquiring = queued ?? this.locks.acquire(proc.locks());
      try {
        release = await this.guard(acquiring);
      } catch (err) {
        void acquiring.then((r) => r());
        throw err;
      }
      await this.takeSlot();
      slot = true;
      const ctx = this.context(id, proc, submitted, resumed);
      try {
        const result = await proc.execute(ctx);
        proc.finished = true;
        return result;
      } catch (err) {
        // A new procedure that failed in its first step (checks, choices; nothing done yet) is over.
        if (!resumed && !ctx.advanced) proc.finished = true;
        throw err;
      }
    } finally {
      this.operatingBy.delete(id);
      if (slot) this.giveSlot();
      release?.();
      await this.settle(id, proc);
    }
  }

  /** Removes the record of a finished procedure; logs one left unfinished. */
  private async settle(id: string, proc: Procedure): Promise<void> {
    if (this.stopping) return;
    if (!proc.finished) {
      this.opts.logger.error({ procedure: id, kind: proc.kind, step: proc.step }, `${proc.describe()} stopped unfinished at step ${proc.step}: it is resumed when the metasrv restarts`);
      return;
    }
    try {
      await this.opts.kv.delete(procedureKey(id));
    } catch (err) {
      // A record left behind is resumed by the next start, which finds its work done.
      this.opts.logger.warn({ err, procedure: id }, 'the record of a finished procedure could not be removed');
    }
  }

  private guard<T>(p: Promise<T>): Promise<T> {
    if (this.stopping) {
      p.catch(() => {});
      return Promise.reject(stoppingError());
    }
    return Promise.race([p, this.stopped]);
  }

  private context(id: string, proc: Procedure, submitted: number, resumed: boolean): ProcedureContext & { advanced: boolean } {
    const o = this.opts;
    const ctx = {
      advanced: false,
      id,
      resumed,
      catalog: o.catalog,
      logger: o.logger.child({ procedure: id, kind: proc.kind }),
      advance: async (step: string) => {
        if (this.stopping) throw stoppingError();
        ctx.advanced = true;
        proc.step = step;
        this.operatingBy.set(id, proc.operating());
        await this.guard(this.persist(id, proc, submitted));
        if (o.beforeStep !== undefined) await this.guard(Promise.resolve(o.beforeStep({ id, kind: proc.kind, step })));
      },
      guard: <T>(p: Promise<T>) => this.guard(p),
      regionCall: <T>(peer: Peer, what: string, call: (regions: RegionServer) => Promise<T>, callOpts?: RegionCallOptions) => this.regionCall(peer, what, call, resumed, callOpts),
      selectDatanodes: (count: number, exclude?: ReadonlySet<number>) => o.select(count, exclude),
      emit: (event: MetaEvent) => o.emit(event),
    };
    return ctx;
  }

  private async regionCall<T>(peer: Peer, what: string, call: (regions: RegionServer) => Promise<T>, resumed: boolean, opts: RegionCallOptions = {}): Promise<T | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.guard(Promise.resolve().then(() => call(this.opts.connect(peer))));
      } catch (err) {
        if (this.stopping) throw stoppingError();
        if (err instanceof TsdbError) {
          if (opts.ok?.includes(err.code)) return undefined;
          if ((attempt > 1 || resumed) && opts.okWhenRepeated?.includes(err.code)) return undefined;
        }
        if (!isUnreachable(err) || attempt >= this.maxRetries) {
          const code = err instanceof TsdbError ? err.code : StatusCode.StorageUnavailable;
          const tries = attempt > 1 ? ` (after ${attempt} tries)` : '';
          throw new TsdbError(code, `${what} on datanode ${peer.id} (${peer.addr}) failed${tries}: ${errorMessage(err)}`, { cause: err });
        }
        const delay = this.retryDelayMs * 2 ** (attempt - 1);
        this.opts.logger.warn({ err, datanode: peer.id, attempt, retry_in_ms: delay }, `${what}: datanode ${peer.id} unreachable, retrying`);
        await sleep(delay, undefined, { signal: this.stopController.signal }).catch(() => {});
      }
    }
  }
}

function stoppingError(): TsdbError {
  return new TsdbError(StatusCode.Cancelled, 'the metasrv is stopping: the procedure is resumed when it starts again');
}
