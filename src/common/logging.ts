/**
 * Logging with pino: JSON lines to standard output (`append_stdout`) and to daily rotated files in
 * `logging.dir` — `tsdb.<date>.<n>.log` with every line at the configured level and
 * `tsdb-err.<date>.<n>.log` with errors only — keeping `max_log_files` of each.
 *
 * A log file that cannot be written (a full disk, an I/O error) never blocks nor stops the server:
 * files are written synchronously, a failed write is kept in memory (up to LOG_RETAIN_BYTES) and
 * written with the next line once it succeeds; lines beyond that are dropped and counted, and the
 * condition shows in `/health` (common/health/) until a write succeeds again.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type DestinationStream, type Level, type Logger, type StreamEntry } from 'pino';
import pinoRoll from 'pino-roll';
import { processHealth, type HealthBoard } from './health/health-board.js';

export type { Logger };

export interface LoggingSetup {
  readonly level: 'info' | 'debug' | 'warn' | 'error';
  /** Directory of the log files; undefined writes no files. */
  readonly dir?: string;
  readonly appendStdout: boolean;
  readonly maxFiles: number;
  /** Bound into every line, e.g. `{ component: 'standalone' }`. */
  readonly base?: Record<string, unknown>;
  /** Where failed log writes and dropped lines are reported; default the process's. */
  readonly health?: HealthBoard;
}

/** Bytes of log lines kept in memory per file while it cannot be written; later lines are dropped. */
export const LOG_RETAIN_BYTES = 1024 * 1024;
/** How long `close()` waits for a log file to be written out before giving it up. */
const CLOSE_TIMEOUT_MS = 2000;
/** How often a log file that failed is tried again while no line comes. */
const RETRY_INTERVAL_MS = 1000;

export interface LoggerHandle {
  readonly logger: Logger;
  /** Writes out what is buffered and closes the files. */
  close(): Promise<void>;
  /** Writes out what is buffered, synchronously (on a fatal exit). */
  flushSync(): void;
}

interface RollStream extends DestinationStream {
  readonly file: string;
  flushSync(): void;
  end(): void;
  destroy(): void;
  once(event: string, cb: () => void): void;
  on(event: string, cb: (arg: unknown) => void): void;
}

async function rollingFile(dir: string, name: string, maxFiles: number): Promise<RollStream> {
  return (await pinoRoll({
    file: join(dir, name),
    frequency: 'daily',
    dateFormat: 'yyyy-MM-dd',
    extension: '.log',
    mkdir: true,
    limit: { count: maxFiles },
    // Synchronous writes fail at once (ENOSPC, EIO) instead of retrying forever in flushSync();
    // what could not be written waits in memory up to maxLength, then lines are dropped ('drop').
    sync: true,
    maxLength: LOG_RETAIN_BYTES,
  })) as unknown as RollStream;
}

/** A log file's failures, drops and recovery, reported to the health board. */
class GuardedFile {
  failing = false;
  private closed = false;
  private droppedWhileFailing = 0;
  private retry: NodeJS.Timeout | undefined;
  /**
   * What pino writes to: the stream, never after it is closed or destroyed (SonicBoom throws
   * "SonicBoom destroyed" then, from whatever logs last — a timer, a shutdown path).
   */
  readonly sink = {
    write: (chunk: string): void => {
      if (this.closed) return;
      try {
        this.stream.write(chunk);
      } catch {
        // Destroyed under us: the line is lost, the server goes on.
      }
    },
  };

  constructor(
    readonly stream: RollStream,
    private readonly key: string,
    private readonly health: HealthBoard,
    private readonly onRecovered: (dropped: number, file: string) => void,
  ) {
    stream.on('error', (err) => {
      const message = `cannot write the log file ${stream.file}: ${(err as Error).message}; lines are kept in memory up to ${LOG_RETAIN_BYTES} bytes, then dropped`;
      if (!this.failing || !health.has(key)) health.set(key, 'logging', message);
      this.failing = true;
      // Retried without waiting for the next line (an error log may see none for long).
      if (this.closed) return;
      this.retry ??= setInterval(() => {
        if (this.failing) this.sink.write('');
      }, RETRY_INTERVAL_MS).unref();
    });
    stream.on('drop', () => {
      this.droppedWhileFailing++;
      health.countDroppedLogLines();
    });
    stream.on('write', () => {
      if (!this.failing) return;
      this.failing = false;
      clearInterval(this.retry);
      this.retry = undefined;
      health.clear(key);
      const dropped = this.droppedWhileFailing;
      this.droppedWhileFailing = 0;
      // Logged outside the stream's write callback.
      setImmediate(() => onRecovered(dropped, stream.file));
    });
  }

  /** Writes out and closes the file; gives up (dropping what is kept) when it cannot be written. */
  close(): Promise<void> {
    this.closed = true;
    this.health.clear(this.key);
    clearInterval(this.retry);
    this.retry = undefined;
    if (this.failing) {
      this.stream.destroy();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.stream.destroy();
        resolve();
      }, CLOSE_TIMEOUT_MS);
      timer.unref();
      this.stream.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.stream.once('error', () => {
        clearTimeout(timer);
        this.stream.destroy();
        resolve();
      });
      this.stream.end();
    });
  }
}

/** Creates the logger; throws (with the directory named) when the log directory is unusable. */
export async function createLogger(setup: LoggingSetup): Promise<LoggerHandle> {
  const streams: StreamEntry[] = [];
  const files: GuardedFile[] = [];
  const health = setup.health ?? processHealth;
  let logger: Logger | undefined;
  const recovered = (dropped: number, file: string): void => {
    logger?.warn({ file, dropped_lines: dropped }, `the log file can be written again${dropped > 0 ? `; ${dropped} lines were dropped meanwhile` : ''}`);
  };
  if (setup.dir !== undefined) {
    try {
      mkdirSync(setup.dir, { recursive: true });
      for (const name of ['tsdb', 'tsdb-err']) {
        files.push(new GuardedFile(await rollingFile(setup.dir, name, setup.maxFiles), `logging:${join(setup.dir, name)}`, health, recovered));
      }
    } catch (err) {
      throw new Error(`cannot write logs to logging.dir "${setup.dir}": ${(err as Error).message}`, { cause: err });
    }
    streams.push({ level: setup.level as Level, stream: files[0]!.sink });
    streams.push({ level: 'error', stream: files[1]!.sink });
  }
  const stdout = setup.appendStdout ? pino.destination({ fd: 1, sync: true }) : undefined;
  if (stdout !== undefined) {
    // A closed stdout (the reader went away) must not bring the server down; the files still log.
    stdout.on('error', () => {});
    streams.push({ level: setup.level as Level, stream: stdout });
  }

  logger = pino(
    {
      level: setup.level,
      base: { pid: process.pid, ...setup.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    streams.length > 0 ? pino.multistream(streams) : pino.destination('/dev/null'),
  );

  const flushSync = (): void => {
    for (const f of files) {
      // A failing file would be retried forever by flushSync(): what it keeps is given up instead.
      if (f.failing) continue;
      try {
        f.stream.flushSync();
      } catch {
        // Nothing buffered, or the file is already closed.
      }
    }
  };
  return {
    logger,
    flushSync,
    close: async () => {
      // A recovery warning is logged from setImmediate (outside the stream's write callback): one
      // turn first, so that it is written, not dropped by the close.
      await new Promise<void>((resolve) => setImmediate(resolve));
      flushSync();
      await Promise.all(files.map((f) => f.close()));
    },
  };
}

/** A logger that writes nothing, for unit tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * A logger of its own file in `dir` (`<name>.<date>.<n>.log`, rotated daily, `maxFiles` kept), with
 * the same guard as the main log files: a file that cannot be written never blocks the caller. For
 * records that are kept apart from the server's log (the slow queries, `tsdb-slow-queries`).
 */
export async function createLogFile(dir: string, name: string, maxFiles: number, health: HealthBoard = processHealth): Promise<LoggerHandle> {
  let file: GuardedFile;
  try {
    mkdirSync(dir, { recursive: true });
    file = new GuardedFile(await rollingFile(dir, name, maxFiles), `logging:${join(dir, name)}`, health, () => {});
  } catch (err) {
    throw new Error(`cannot write logs to logging.dir "${dir}": ${(err as Error).message}`, { cause: err });
  }
  const logger = pino({ level: 'info', base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, file.sink);
  const flushSync = (): void => {
    if (file.failing) return;
    try {
      file.stream.flushSync();
    } catch {
      // Nothing buffered, or the file is already closed.
    }
  };
  return {
    logger,
    flushSync,
    close: async () => {
      flushSync();
      await file.close();
    },
  };
}
