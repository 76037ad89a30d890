/**
 * A server span per HTTP request (`GET /v1/sql`: method and route, status code), continuing the
 * caller's trace when it sends a W3C `traceparent`. The span becomes the active context where the
 * route's handler runs (the last preHandler hook calls it), after the body is read: what the
 * handler starts (statements, ingestion) hangs under it. With tracing off no hook does anything.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { extractParent, runInContext, SpanStatusCode, startServerSpan, tracingEnabled, type Context, type Span } from '../../common/tracing/tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span and its context, while tracing is on. */
    traceSpan: { span: Span; context: Context } | undefined;
  }
}

/** The protocol of a route, as ingestion and statement spans name it. */
function protocolOf(route: string): string {
  if (route.startsWith('/v1/influxdb') || route.startsWith('/influxdb')) return 'influxdb';
  if (route.startsWith('/v1/opentsdb')) return 'opentsdb';
  if (route.startsWith('/v1/prometheus/write')) return 'prometheus_remote_write';
  if (route.startsWith('/v1/prometheus') || route.startsWith('/v1/promql')) return 'promql';
  return 'http';
}

function routeOf(req: FastifyRequest): string | undefined {
  return req.routeOptions?.url;
}

export function installHttpTracing(app: FastifyInstance): void {
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRequest', (req, _reply, done) => {
    if (!tracingEnabled()) return done();
    const route = routeOf(req);
    const method = req.method;
    const started = startServerSpan(`${method} ${route ?? 'unmatched'}`, extractParent(req.headers), protocolOf(route ?? ''), {
      'http.request.method': method,
      ...(route !== undefined && { 'http.route': route }),
      'url.path': req.url.split('?', 1)[0]!,
      'tsdb.protocol': protocolOf(route ?? ''),
    });
    req.traceSpan = started;
    if (started === undefined) return done();
    runInContext(started.context, done);
  });
  app.addHook('preHandler', (req, _reply, done) => {
    const t = req.traceSpan;
    if (t === undefined) return done();
    runInContext(t.context, done);
  });
  app.addHook('onResponse', (req, reply, done) => {
    const t = req.traceSpan;
    if (t !== undefined) {
      req.traceSpan = undefined;
      t.span.setAttribute('http.response.status_code', reply.statusCode);
      const code = reply.getHeader('x-tsdb-err-code');
      if (code !== undefined) t.span.setAttribute('tsdb.error.code', String(code));
      // A server's own failure (5xx) marks its span failed; a refused request (4xx) is the caller's.
      if (reply.statusCode >= 500) {
        const message = reply.getHeader('x-tsdb-err-msg');
        t.span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof message === 'string' && { message }) });
      }
      t.span.end();
    }
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    const t = req.traceSpan;
    if (t !== undefined) {
      req.traceSpan = undefined;
      t.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client closed the request' });
      t.span.end();
    }
    done();
  });
}
