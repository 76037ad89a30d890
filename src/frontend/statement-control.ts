/**
 * The life of one request's statements in the process list: an AbortController that the client's
 * signal (disconnect, HTTP deadline, PostgreSQL CancelRequest), the statement's own time limit
 * (MySQL `max_execution_time`, PostgreSQL `statement_timeout`) and `KILL` abort. Its signal is put
 * on the session (`Session.signal`): queries interrupt their DuckDB connection on it, and anything
 * that waits (the admission queue, a write about to be applied) checks it.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatDuration, timerDelay } from '../common/time/duration.js';
import { cancelledError, type ProcessList } from './process-list.js';
import type { Session } from './session.js';
import { redactSql } from './slow-query/redact-query.js';
import { withoutParameterMarks } from '../sql/parameter-marks.js';

/** How a client bounds and identifies its statements (all optional: in-process callers give none). */
export interface StatementControl {
  /** Aborted by the client (disconnect, its own deadline); a TsdbError reason is kept, anything else is a cancel. */
  readonly signal?: AbortSignal;
  /** Time limit of the statements of this call, in milliseconds; 0 or absent: none. */
  readonly timeoutMs?: number;
  /** The client's address, for the process list. */
  readonly address?: string;
  /** The MySQL connection id or PostgreSQL backend pid, for `KILL QUERY <id>`. */
  readonly connectionId?: number;
  /**
   * Statements tsdb runs for something else (a PromQL query's scans, the slow query table's DDL):
   * not recorded as slow queries of their own.
   */
  readonly internal?: boolean;
}

export function deadlineError(timeoutMs: number): TsdbError {
  return new TsdbError(StatusCode.DeadlineExceeded, `Query execution exceeded its time limit of ${formatDuration(timeoutMs)}`);
}

/** The error a statement aborted by `signal` fails with: its reason when a TsdbError, else a cancel. */
export function abortError(signal: AbortSignal): TsdbError {
  const r: unknown = signal.reason;
  return r instanceof TsdbError ? r : cancelledError('the client went away');
}

export interface RunningStatements {
  readonly signal: AbortSignal;
  /** Throws the abort's error when aborted. */
  check(): void;
  /** `err` as the caller should see it: the abort's error once aborted (DuckDB's "Interrupted!" and the like are its effects). */
  error(err: unknown): unknown;
  /** Leaves the process list and releases the timer and listener. */
  end(): void;
}

/** Registers the statements of one call (`query`: its text) and arms its deadline. */
export function startStatements(processes: ProcessList, session: Session, query: string, control: StatementControl = {}): RunningStatements {
  const controller = new AbortController();
  const { signal: outer, timeoutMs } = control;
  const onOuter = () => controller.abort(outer?.reason instanceof TsdbError ? outer.reason : cancelledError('the client went away'));
  if (outer !== undefined) {
    if (outer.aborted) onOuter();
    else outer.addEventListener('abort', onOuter, { once: true });
  }
  const timer = timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => controller.abort(deadlineError(timeoutMs)), timerDelay(timeoutMs)) : undefined;
  timer?.unref();
  const entry = processes.begin(
    {
      catalog: session.catalog,
      database: session.database,
      user: session.user,
      protocol: session.protocol ?? 'http',
      address: control.address ?? '',
      ...(control.connectionId !== undefined && { connectionId: control.connectionId }),
      // COPY's CONNECTION keys (object storage credentials) are not shown to whoever lists the statements.
      query: /\bCONNECTION\b/i.test(query) && /^\s*COPY\b/i.test(query) ? redactSql(query, query.length) : withoutParameterMarks(query),
    },
    controller,
  );
  const signal = controller.signal;
  return {
    signal,
    check: () => {
      if (signal.aborted) throw abortError(signal);
    },
    error: (err) => (signal.aborted ? abortError(signal) : err),
    end: () => {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
      entry.end();
    },
  };
}
