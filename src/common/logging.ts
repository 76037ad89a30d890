/**
 * Logging with pino: JSON lines to standard output (`append_stdout`) and to daily rotated files in
 * `logging.dir` — `tsdb.<date>.<n>.log` with every line at the configured level and
 * `tsdb-err.<date>.<n>.log` with errors only — keeping `max_log_files` of each.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type DestinationStream, type Level, type Logger, type StreamEntry } from 'pino';
import pinoRoll from 'pino-roll';

export type { Logger };

export interface LoggingSetup {
  readonly level: 'info' | 'debug' | 'warn' | 'error';
  /** Directory of the log files; undefined writes no files. */
  readonly dir?: string;
  readonly appendStdout: boolean;
  readonly maxFiles: number;
  /** Bound into every line, e.g. `{ component: 'standalone' }`. */
  readonly base?: Record<string, unknown>;
}

export interface LoggerHandle {
  readonly logger: Logger;
  /** Writes out what is buffered and closes the files. */
  close(): Promise<void>;
  /** Writes out what is buffered, synchronously (on a fatal exit). */
  flushSync(): void;
}

interface RollStream extends DestinationStream {
  flushSync(): void;
  end(): void;
  once(event: string, cb: () => void): void;
}

async function rollingFile(dir: string, name: string, maxFiles: number): Promise<RollStream> {
  return (await pinoRoll({
    file: join(dir, name),
    frequency: 'daily',
    dateFormat: 'yyyy-MM-dd',
    extension: '.log',
    mkdir: true,
    limit: { count: maxFiles },
  })) as unknown as RollStream;
}

/** Creates the logger; throws (with the directory named) when the log directory is unusable. */
export async function createLogger(setup: LoggingSetup): Promise<LoggerHandle> {
  const streams: StreamEntry[] = [];
  const files: RollStream[] = [];
  if (setup.dir !== undefined) {
    try {
      mkdirSync(setup.dir, { recursive: true });
      files.push(await rollingFile(setup.dir, 'tsdb', setup.maxFiles));
      files.push(await rollingFile(setup.dir, 'tsdb-err', setup.maxFiles));
    } catch (err) {
      throw new Error(`cannot write logs to logging.dir "${setup.dir}": ${(err as Error).message}`, { cause: err });
    }
    streams.push({ level: setup.level as Level, stream: files[0]! });
    streams.push({ level: 'error', stream: files[1]! });
  }
  const stdout = setup.appendStdout ? pino.destination({ fd: 1, sync: true }) : undefined;
  if (stdout !== undefined) {
    // A closed stdout (the reader went away) must not bring the server down; the files still log.
    stdout.on('error', () => {});
    streams.push({ level: setup.level as Level, stream: stdout });
  }

  const logger = pino(
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
      try {
        f.flushSync();
      } catch {
        // Nothing buffered, or the file is already closed.
      }
    }
  };
  return {
    logger,
    flushSync,
    close: async () => {
      flushSync();
      await Promise.all(
        files.map(
          (f) =>
            new Promise<void>((resolve) => {
              f.once('close', resolve);
              f.end();
            }),
        ),
      );
    },
  };
}

/** A logger that writes nothing, for unit tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
