/**
 * Line-protocol parsing off the main thread: a small pool of worker threads parses request bodies
 * while the main thread writes the rows of earlier requests. Parsing is about half of a line-protocol
 * write's CPU time, so on two cores this is what lets a write use both. Small bodies are parsed
 * inline (a round trip to a worker costs more than they do).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import { LineProtocolError, parseLineProtocol, type Precision } from './line-protocol.js';
import { decodeBody, unpackStrings, type ParseAnswer, type ParseTask } from './parse-protocol.js';

/** Bodies below this many bytes are parsed on the main thread. */
export const INLINE_PARSE_BYTES = 64 * 1024;

interface Pending {
  resolve(tables: IngestTable[]): void;
  reject(err: Error): void;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

export class ParsePool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;
  private next = 0;
  private closed = false;

  /** `size` workers (default: one per core but one, at least one), started on first use. */
  constructor(private readonly size = Math.max(1, availableParallelism() - 1)) {}

  /** Parses a body (decoded as UTF-8) into tables; line errors reject as LineProtocolError. */
  async parse(body: Uint8Array, precision: Precision, now: bigint): Promise<IngestTable[]> {
    if (body.byteLength < INLINE_PARSE_BYTES || this.closed) return parseLineProtocol(decodeBody(body), { precision, now });
    const w = this.pick();
    const id = this.nextId++;
    const task: ParseTask = { id, body, precision, now: String(now) };
    return new Promise<IngestTable[]>((resolve, reject) => {
      w.pending.set(id, { resolve, reject });
      w.worker.postMessage(task);
    });
  }

  /** Stops the workers; parses still waiting are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.workers.splice(0);
    for (const w of all) this.fail(w, new TsdbError(StatusCode.Cancelled, 'the server is shutting down'));
    await Promise.all(all.map((w) => w.worker.terminate()));
  }

  /** The worker with the fewest parses waiting (started when the pool is not full yet). */
  private pick(): PoolWorker {
    const idle = this.workers.find((w) => w.pending.size === 0);
    if (idle !== undefined) return idle;
    if (this.workers.length < this.size) return this.spawn();
    this.next = (this.next + 1) % this.workers.length;
    return this.workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best), this.workers[this.next]!);
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./line-protocol-worker.js', import.meta.url));
    // Idle workers do not keep the process alive.
    worker.unref();
    const w: PoolWorker = { worker, pending: new Map() };
    worker.on('message', (answer: ParseAnswer) => {
      const p = w.pending.get(answer.id);
      if (p === undefined) return;
      w.pending.delete(answer.id);
      if ('tables' in answer) {
        unpackStrings(answer.tables, answer.packed);
        p.resolve(answer.tables);
      }
      else if ('lineError' in answer) p.reject(new LineProtocolError(answer.lineError.line, answer.lineError.problem));
      else p.reject(new TsdbError(answer.failure.code as StatusCode, answer.failure.message));
    });
    // A worker that dies fails its parses; the next parse starts another.
    const gone = (err: Error) => {
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      this.fail(w, new TsdbError(StatusCode.Internal, `a line-protocol parse worker stopped: ${err.message}`, { cause: err }));
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`exit code ${code}`)));
    this.workers.push(w);
    return w;
  }

  private fail(w: PoolWorker, err: Error): void {
    for (const p of w.pending.values()) p.reject(err);
    w.pending.clear();
  }
}
