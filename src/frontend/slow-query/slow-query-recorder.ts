/**
 * The slow query recorder (GreptimeDB `frontend::slow_query_recorder`): told of every statement
 * when it ends — SQL and TQL from `FrontendInstance.executeSql`, PromQL from the PromQL front ends
 * — it keeps those that ran at least the threshold (a share `sample_ratio` of them) and hands them
 * to a sink: rows of `tsdb_private.slow_queries` or lines of the slow query log.
 *
 * It never slows nor fails a statement: `ended()` only compares a number and, for a slow one,
 * pushes onto a bounded queue (beyond QUEUE_CAPACITY records are dropped and counted); the text is
 * cut (`redact-query.ts`) and written later, off the statement's path, in batches. A failed write is
 * logged (at most once a minute, with the count since) and its records are dropped.
 */
import type { Logger } from '../../common/logging.js';
import { redactPromql, redactSql } from './redact-query.js';

/** Records waiting to be written; more are dropped (a burst of slow statements must not grow memory). */
export const QUEUE_CAPACITY = 1024;
/** Records written at once. */
const BATCH = 256;
/** How long `close()` waits for queued records to be written. */
const CLOSE_TIMEOUT_MS = 5000;
/** A failed write is logged at most once in this long. */
const ERROR_LOG_INTERVAL_MS = 60_000;

/** What a statement's caller tells of it when it ends. */
export interface EndedStatement {
  /** `sql` (SQL or TQL text) or `promql` (a PromQL query of the Prometheus API or gRPC gateway). */
  readonly language: 'sql' | 'promql';
  /** The text as the client sent it (cut when recorded). */
  readonly query: string;
  readonly catalog: string;
  readonly database: string;
  readonly user: string;
  /** `http`, `mysql`, `postgres`, `grpc`. */
  readonly protocol: string;
  /** A TQL statement (SQL text, a PromQL evaluation: recorded as PromQL). */
  readonly tql?: boolean;
  /** A PromQL evaluation's (or TQL's) range in ms since the epoch, and step in ms (0 for an instant query). */
  readonly promql?: { readonly startMs: number; readonly endMs: number; readonly stepMs: number };
}

/** One recorded slow query: the columns of `tsdb_private.slow_queries`. */
export interface SlowQueryRecord {
  /** How long it ran, ms. */
  readonly cost: number;
  /** The threshold it reached, ms. */
  readonly threshold: number;
  /** Its text, cut. */
  readonly query: string;
  /** Whether it is PromQL (a PromQL query, or a TQL statement). */
  readonly is_promql: boolean;
  /** When it ended, ns since the epoch. */
  readonly timestamp: bigint;
  /** PromQL: end − start and step (ms), start and end (ms since the epoch); 0 otherwise. */
  readonly promql_range: number;
  readonly promql_step: number;
  readonly promql_start: number;
  readonly promql_end: number;
  readonly catalog_name: string;
  readonly schema_name: string;
  readonly username: string;
  readonly protocol: string;
}

/** Where records go. */
export interface SlowQuerySink {
  write(records: readonly SlowQueryRecord[]): Promise<void>;
  close(): Promise<void>;
}

export interface SlowQueryRecorderOptions {
  /** Statements that run at least this long (ms) are slow. */
  readonly thresholdMs: number;
  /** Share of slow statements recorded, 0 to 1. */
  readonly sampleRatio: number;
  readonly sink: SlowQuerySink;
  readonly logger: Logger;
  /** A number in [0, 1) (tests fix it). */
  readonly random?: () => number;
}

interface Pending {
  readonly statement: EndedStatement;
  readonly costMs: number;
  readonly endedNs: bigint;
}

export class SlowQueryRecorder {
  private readonly queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private closed = false;
  private droppedCount = 0;
  private failedCount = 0;
  private lastErrorLog = -Infinity;
  /** Nanoseconds of the last record: records of the same millisecond stay in order. */
  private lastNs = 0n;

  constructor(private readonly opts: SlowQueryRecorderOptions) {}

  get thresholdMs(): number {
    return this.opts.thresholdMs;
  }

  /** Records dropped because the queue was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Tells the recorder that a statement ran `costMs`; records it when slow (and sampled). Never throws. */
  ended(statement: EndedStatement, costMs: number): void {
    if (this.closed || !(costMs >= this.opts.thresholdMs)) return;
    const ratio = this.opts.sampleRatio;
    if (ratio < 1 && !((this.opts.random ?? Math.random)() < ratio)) return;
    if (this.queue.length >= QUEUE_CAPACITY) {
      this.droppedCount++;
      return;
    }
    let ns = BigInt(Date.now()) * 1_000_000n;
    if (ns <= this.lastNs) ns = this.lastNs + 1n;
    this.lastNs = ns;
    this.queue.push({ statement, costMs, endedNs: ns });
    this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
  }

  /** Waits until what is queued now is written (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /** Writes what is queued, then closes the sink; later statements are not recorded. */
  async close(): Promise<void> {
    this.closed = true;
    // Bounded: a sink that hangs (an unreachable datanode) must not hold the shutdown.
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
    await Promise.race([this.flush(), gaveUp]);
    clearTimeout(timer);
    await this.opts.sink.close().catch((err: unknown) => this.opts.logger.error({ err }, 'cannot close the slow query sink'));
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH).map((p) => this.record(p));
        try {
          await this.opts.sink.write(batch);
        } catch (err) {
          this.failedCount += batch.length;
          const now = Date.now();
          if (now - this.lastErrorLog >= ERROR_LOG_INTERVAL_MS) {
            this.lastErrorLog = now;
            this.opts.logger.error({ err, dropped_records: this.failedCount, dropped_queue_full: this.droppedCount }, `cannot record slow queries: ${(err as Error).message}`);
            this.failedCount = 0;
          }
        }
      }
    } finally {
      this.draining = undefined;
    }
  }

  private record(p: Pending): SlowQueryRecord {
    const s = p.statement;
    const pq = s.promql;
    const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? Math.trunc(n) : 0);
    return {
      cost: Math.round(p.costMs),
      threshold: this.opts.thresholdMs,
      query: s.language === 'promql' ? redactPromql(s.query) : redactSql(s.query),
      is_promql: s.language === 'promql' || s.tql === true,
      timestamp: p.endedNs,
      promql_range: pq === undefined ? 0 : Math.max(0, finite(pq.endMs - pq.startMs)),
      promql_step: finite(pq?.stepMs),
      promql_start: finite(pq?.startMs),
      promql_end: finite(pq?.endMs),
      catalog_name: s.catalog,
      schema_name: s.database,
      username: s.user,
      protocol: s.protocol,
    };
  }
}
