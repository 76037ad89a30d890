/**
 * The HTTP server (fastify): request timeout (`http.timeout`, or `x-tsdb-timeout` per request),
 * body limit (`http.body_limit`, checked before the body is read), one JSON error shape for every
 * failure, and a bounded graceful shutdown. Routes are added by the route modules beside it.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { HTTP_STATUS, shouldLogError, StatusCode, statusCodeName } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../../common/net/address.js';
import { formatSize, type Bytes } from '../../common/size/size.js';
import { formatDuration, type Millis } from '../../common/time/duration.js';
import type { HttpHandlers } from '../handlers.js';
import { listenError, type Server } from '../server.js';
import { configRoutes } from './config-routes.js';
import { sqlRoutes } from './sql-routes.js';
import { influxdbRoutes } from './influxdb-routes.js';
import { opentsdbRoutes } from './opentsdb-routes.js';
import { prometheusRoutes } from './prometheus-routes.js';
import { PROM_API_PREFIX, promApiRoutes } from './prom-api-routes.js';
import { promqlRoutes } from './promql-routes.js';
import { setDecompressedLimit } from './write-routes.js';
import { healthRoutes } from './health-routes.js';
import { adminRoutes } from './admin-routes.js';
import { installRequestDeadline } from './request-deadline.js';
import { installHttpTracing } from './http-tracing.js';
import { statusRoutes } from './status-routes.js';
import { dashboardRoutes } from './dashboard-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import { httpRequestsElapsed, httpRequestsTotal } from '../../common/metrics/server-metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** `process.hrtime.bigint()` when the request arrived. */
    startedAt: bigint;
  }
}

export interface HttpServerOptions {
  /** Request timeout; 0 disables it. */
  readonly timeout: Millis;
  /** Maximum body size; 0 disables the limit. */
  readonly bodyLimit: Bytes;
  readonly logger: Logger;
  /** How long shutdown waits for in-flight requests before closing their connections. */
  readonly shutdownTimeout?: Millis;
  /** Time zone of a session that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
  /** Serve the dashboard at `/dashboard/` (frontend and standalone unless `http.disable_dashboard`). */
  readonly dashboard?: boolean;
}

const DEFAULT_SHUTDOWN_TIMEOUT: Millis = 30_000;

export function elapsedMs(req: FastifyRequest): number {
  return Number((process.hrtime.bigint() - req.startedAt) / 1_000_000n);
}

/**
 * Longest `x-tsdb-err-msg` value. Clients limit the size of response headers (Node's fetch and
 * http: 16 KiB for all of them; Python's http.client: 64 KiB per line) and drop the whole response
 * past it; a message quoting a long statement or identifier would reach that. The body keeps the
 * whole message.
 */
export const MAX_ERROR_HEADER_LENGTH = 1024;

/** Header values must be visible ASCII (anything else is escaped), at most MAX_ERROR_HEADER_LENGTH characters (cut with `...`). */
export function headerSafe(text: string): string {
  const escaped = text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped.length <= MAX_ERROR_HEADER_LENGTH) return escaped;
  // Not in the middle of an escape (`\u00e9`).
  return `${escaped.slice(0, MAX_ERROR_HEADER_LENGTH - 3).replace(/\\(u[0-9a-f]{0,3})?$/, '')}...`;
}

/** Sends the error shape every tsdb HTTP endpoint uses: `{"code":…,"error":…,"execution_time_ms":…}`. */
export function sendError(
  req: FastifyRequest,
  reply: FastifyReply,
  code: StatusCode,
  message: string,
  httpStatus: number = HTTP_STATUS[code],
): FastifyReply {
  const executionTimeMs = elapsedMs(req);
  return reply
    .code(httpStatus)
    .header('x-tsdb-err-code', String(code))
    .header('x-tsdb-err-msg', headerSafe(message))
    .type('application/json')
    .send({ code, error: message, execution_time_ms: executionTimeMs });
}

export class HttpServer implements Server {
  readonly name = 'HTTP';
  /** The fastify instance: route modules (and tests) add routes to it before start. */
  readonly app: FastifyInstance;
  private readonly log: Logger;
  private readonly shutdownTimeout: Millis;
  private bound: Address | undefined;
  /** Set by shutdown(): responses tell their clients to close the connection. */
  private stopping = false;

  constructor(
    private readonly opts: HttpServerOptions,
    handlers: HttpHandlers,
  ) {
    this.log = opts.logger.child({ server: 'http' });
    this.shutdownTimeout =
      opts.shutdownTimeout ?? (opts.timeout > 0 ? opts.timeout + 1000 : DEFAULT_SHUTDOWN_TIMEOUT);
    this.app = Fastify({
      logger: false,
      bodyLimit: opts.bodyLimit > 0 ? opts.bodyLimit : Number.MAX_SAFE_INTEGER,
      forceCloseConnections: 'idle',
      return503OnClosing: true,
    });
    this.installHooks();
    // The deadline (`http.timeout`, `x-tsdb-timeout`) covers routing, body reading and the handler;
    // handlers pass `request.deadline` to what they run, so that a statement stops with it.
    installRequestDeadline(
      this.app,
      opts.timeout,
      (req, reply, err) => {
        // The client may still be sending: close the connection rather than read the rest.
        reply.header('connection', 'close');
        // The Prometheus API answers in Prometheus's envelope: a query timeout (503).
        if (req.url.startsWith(PROM_API_PREFIX)) {
          reply.code(503).type('application/json').send({ status: 'error', errorType: 'timeout', error: `query timed out in expression evaluation: ${err.message}` });
          return;
        }
        // Remote write answers 504 (reference api.md §0), so that Prometheus retries the batch.
        const status = req.url.startsWith('/v1/prometheus/write') ? 504 : 408;
        sendError(req, reply, err.code, err.message, status);
      },
      (req, reply, err) => sendError(req, reply, err.code, err.message),
    );
    // Bodies of any type are read as bytes (within the limit); endpoints decode what they accept.
    this.app.removeAllContentTypeParsers();
    this.app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    this.app.setErrorHandler((err: unknown, req, reply) => this.onError(err, req, reply));
    this.app.setNotFoundHandler((req, reply) => {
      sendError(req, reply, StatusCode.Unsupported, `Not found: ${req.method} ${req.url.split('?')[0]}`, 404);
    });
    healthRoutes(this.app);
    metricsRoutes(this.app);
    statusRoutes(this.app, handlers.status);
    configRoutes(this.app, handlers.config);
    if (handlers.admin !== undefined) adminRoutes(this.app, handlers.admin);
    if (handlers.sql !== undefined) sqlRoutes(this.app, handlers.sql, handlers.auth, opts.defaultTimezone);
    if (handlers.promql !== undefined) {
      promApiRoutes(this.app, handlers.promql, handlers.auth, this.log);
      promqlRoutes(this.app, handlers.promql, handlers.auth);
    }
    if (opts.dashboard === true && handlers.sql !== undefined) dashboardRoutes(this.app);
    setDecompressedLimit(opts.bodyLimit);
    const ingest = handlers.ingest;
    if (ingest !== undefined) {
      // A protocol switched off is not routed: its paths answer 404.
      if (ingest.protocols.influxdb) influxdbRoutes(this.app, ingest.handler, handlers.auth, this.log);
      if (ingest.protocols.opentsdb) opentsdbRoutes(this.app, ingest.handler, handlers.auth, this.log);
      if (ingest.protocols.promStore && handlers.sql !== undefined) {
        prometheusRoutes(this.app, ingest.handler, handlers.sql, handlers.auth, { withMetricEngine: ingest.protocols.promWithMetricEngine }, this.log);
      }
    }
  }

  private installHooks(): void {
    this.app.decorateRequest('startedAt', 0n);
    this.app.addHook('onRequest', (req, _reply, done) => {
      req.startedAt = process.hrtime.bigint();
      done();
    });
    installHttpTracing(this.app);
    // During a shutdown a client must not reuse its connection: it is closed after the response.
    this.app.addHook('onSend', (_req, reply, payload, done) => {
      if (this.stopping) reply.header('connection', 'close');
      done(null, payload);
    });
    this.app.addHook('onResponse', (req, reply, done) => {
      // The route pattern, not the URL: bounded label values whatever clients send.
      const labels = { method: req.method, path: req.routeOptions.url ?? 'unmatched', code: String(reply.statusCode) };
      httpRequestsTotal.inc(labels);
      httpRequestsElapsed.observe(labels, Number(process.hrtime.bigint() - req.startedAt) / 1e9);
      this.log.debug(
        { method: req.method, url: req.url, status: reply.statusCode, elapsed_ms: elapsedMs(req) },
        'request',
      );
      done();
    });
  }

  private onError(error: unknown, req: FastifyRequest, reply: FastifyReply): void {
    if (reply.sent) return;
    if (error instanceof TsdbError) {
      const err = error;
      if (shouldLogError(err.code)) this.log.error({ err, url: req.url }, `${statusCodeName(err.code)}: ${err.message}`);
      sendError(req, reply, err.code, err.message);
      return;
    }
    const err = error as FastifyError;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      reply.header('connection', 'close');
      sendError(req, reply, StatusCode.InvalidArguments, `Request body is larger than http.body_limit (${formatSize(this.opts.bodyLimit)})`, 413);
      return;
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      sendError(req, reply, StatusCode.InvalidArguments, err.message, status);
      return;
    }
    this.log.error({ err, url: req.url }, 'internal error');
    sendError(req, reply, StatusCode.Internal, `Internal error: ${StatusCode.Internal}`, 500);
  }

  async start(addr: string): Promise<void> {
    const { host, port } = parseAddress(addr, { bind: true });
    try {
      await this.app.listen({ host, port });
    } catch (err) {
      throw listenError(this.name, addr, err);
    }
    const a = this.app.server.address();
    if (a !== null && typeof a === 'object') this.bound = { host: a.address, port: a.port };
    this.log.info({ addr: this.bound ? formatAddress(this.bound) : addr }, `${this.name} server listening on ${this.bound ? formatAddress(this.bound) : addr}`);
  }

  async shutdown(): Promise<void> {
    if (this.bound === undefined) {
      await this.app.close();
      return;
    }
    const force = setTimeout(() => {
      this.log.warn({ after: formatDuration(this.shutdownTimeout) }, 'closing connections of requests still in flight');
      this.app.server.closeAllConnections();
    }, this.shutdownTimeout);
    this.stopping = true;
    // A keep-alive connection whose request ends during the shutdown would otherwise stay open
    // (closing closes the idle ones once, at its start) and hold the shutdown until the timeout.
    const sweep = setInterval(() => this.app.server.closeIdleConnections(), 100);
    try {
      await this.app.close();
    } finally {
      clearTimeout(force);
      clearInterval(sweep);
    }
    this.log.info(`${this.name} server stopped`);
    this.bound = undefined;
  }

  boundAddress(): Address | undefined {
    return this.bound;
  }
}
