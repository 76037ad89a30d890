/**
 * The deadline of an HTTP request: `http.timeout`, or the request's `x-tsdb-timeout` header (reference
 * api.md §0, GreptimeDB's `x-greptime-timeout`: a duration such as `5s` or `500ms`, or a number of
 * seconds; `0` turns it off for the request). It runs from the request's arrival; at expiry the
 * request's `deadline` signal aborts with DeadlineExceeded — the statement it runs stops — and the
 * error is answered (408; 504 for remote write) unless an answer has begun, in which case the
 * connection is closed. A client that goes away before its answer is complete aborts the signal too
 * (Cancelled), so its statement stops.
 *
 * Not fastify's `handlerTimeout`: fastify clears that timer on the request's `close` event, which
 * Node emits once the body has been read, so it never fired for a request with a body (`POST
 * /v1/sql`): the query ran on, unbounded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatDuration, parseDuration, timerDelay, type Millis } from '../../common/time/duration.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Aborted at the request's deadline (reason: a DeadlineExceeded TsdbError) or when its client goes away (Cancelled). */
    deadline: AbortSignal;
  }
}

/** The per-request timeout header. */
export const TIMEOUT_HEADER = 'x-tsdb-timeout';

/** The header's value in milliseconds; undefined when absent; throws InvalidArguments when malformed. */
export function timeoutOf(value: string | string[] | undefined): Millis | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value[0]! : value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  try {
    return parseDuration(text);
  } catch (err) {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid ${TIMEOUT_HEADER} header: ${(err as Error).message}`);
  }
}

export function requestTimedOut(timeoutMs: Millis): TsdbError {
  return new TsdbError(StatusCode.DeadlineExceeded, `Request timed out after ${formatDuration(timeoutMs)}`);
}

/**
 * Installs the deadline on every request. `expire` answers the timeout (the reply not yet begun);
 * `refuse` answers a malformed header.
 */
export function installRequestDeadline(
  app: FastifyInstance,
  defaultTimeout: Millis,
  expire: (req: FastifyRequest, reply: FastifyReply, err: TsdbError) => void,
  refuse: (req: FastifyRequest, reply: FastifyReply, err: TsdbError) => void,
): void {
  app.decorateRequest('deadline', undefined as unknown as AbortSignal);
  app.addHook('onRequest', (req, reply, done) => {
    const controller = new AbortController();
    req.deadline = controller.signal;
    let timeout: Millis;
    try {
      timeout = timeoutOf(req.headers[TIMEOUT_HEADER]) ?? defaultTimeout;
    } catch (err) {
      refuse(req, reply, err as TsdbError);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    if (timeout > 0) {
      timer = setTimeout(() => {
        const err = requestTimedOut(timeout);
        controller.abort(err);
        if (reply.sent) return;
        // An answer already streaming cannot become an error: the connection is closed instead.
        if (reply.raw.headersSent) reply.raw.destroy(err);
        else expire(req, reply, err);
      }, timerDelay(timeout));
    }
    reply.raw.once('close', () => {
      if (timer !== undefined) clearTimeout(timer);
      if (!reply.raw.writableFinished && !controller.signal.aborted) {
        controller.abort(new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled: the HTTP client disconnected'));
      }
    });
    reply.raw.once('finish', () => {
      if (timer !== undefined) clearTimeout(timer);
    });
    done();
  });
}
