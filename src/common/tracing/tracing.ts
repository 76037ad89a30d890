/**
 * Spans of tsdb's work (HTTP and gRPC calls, SQL statements, ingestion, flushes, compactions) on
 * the OpenTelemetry API. Until `startTracing` (tracing-setup.ts) installs a provider, every helper
 * here returns at its first line: with `logging.enable_otlp_tracing` off the cost is one boolean
 * test per call, no span object, no context switch.
 *
 * The parent of a span is the span active in the async context (AsyncLocalStorage), so a statement
 * span started deep in the frontend hangs under the HTTP or gRPC call that caused it; a remote
 * parent comes in as W3C `traceparent` (`extractParent`) and goes out the same way (`traceparent`).
 */
import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

export type { Attributes, Context, Span };
export { SpanKind, SpanStatusCode };

/** The instrumentation scope of tsdb's spans. */
export const TRACER_NAME = 'tsdb';

let tracer: Tracer | undefined;

/** Context value: the protocol a request came over (`http`, `grpc`, `influxdb`, …), for spans below it. */
const PROTOCOL_KEY = createContextKey('tsdb.protocol');

/** Called by tracing-setup.ts once its provider is registered (and with false when it shuts down). */
export function setTracingActive(active: boolean): void {
  tracer = active ? trace.getTracer(TRACER_NAME) : undefined;
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** Marks the span failed with the error's message (a TsdbError's message is the user's answer, never a secret). */
export function recordError(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.length > 512 ? `${message.slice(0, 509)}...` : message });
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number' || typeof code === 'string') span.setAttribute('tsdb.error.code', code);
}

/**
 * Runs `fn` inside a new span, child of the active one; the span ends when `fn` settles and is
 * marked failed when it throws. `fn` gets the span (undefined when tracing is off) to add attributes.
 */
export async function withSpan<T>(name: string, attributes: Attributes | undefined, fn: (span: Span | undefined) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const t = tracer;
  if (t === undefined) return fn(undefined);
  return t.startActiveSpan(name, { kind, ...(attributes !== undefined && { attributes }) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** `withSpan` for synchronous work (parsing). */
export function withSpanSync<T>(name: string, attributes: Attributes | undefined, fn: (span: Span | undefined) => T): T {
  const t = tracer;
  if (t === undefined) return fn(undefined);
  return t.startActiveSpan(name, attributes !== undefined ? { attributes } : {}, (span) => {
    try {
      return fn(span);
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A span over a phase of a function with several exits (a query's planning): `end()` may be called
 * more than once (the first counts), so that a `finally` can end it whatever path was taken.
 */
export interface PhaseSpan {
  end(err?: unknown): void;
}

const NO_PHASE: PhaseSpan = { end() {} };

export function startPhase(name: string, attributes?: Attributes): PhaseSpan {
  const t = tracer;
  if (t === undefined) return NO_PHASE;
  const span = t.startSpan(name, attributes !== undefined ? { attributes } : {});
  let open = true;
  return {
    end(err?: unknown) {
      if (!open) return;
      open = false;
      if (err !== undefined) recordError(span, err);
      span.end();
    },
  };
}

/** Header reader for `propagation.extract` over a plain header or metadata map. */
const getter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string): string | undefined => {
    const v = carrier[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
    return Buffer.isBuffer(v) ? v.toString('latin1') : undefined;
  },
};

/** The remote parent named by a `traceparent` (and `tracestate`) in `headers` (lower-case keys), or the root context. */
export function extractParent(headers: Record<string, unknown>): Context {
  if (headers['traceparent'] === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, getter);
}

/**
 * A server span for a request: `parent` is what `extractParent` found; `protocol` is remembered in
 * the returned context for the spans below it. Undefined when tracing is off.
 */
export function startServerSpan(name: string, parent: Context, protocol: string, attributes: Attributes): { span: Span; context: Context } | undefined {
  const t = tracer;
  if (t === undefined) return undefined;
  const span = t.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span).setValue(PROTOCOL_KEY, protocol) };
}

/** Runs `fn` with `ctx` active (so that spans started in it, and in what it awaits, are its children). */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** `fn`, to run later (a queued job) with the context active now; `fn` itself with tracing off. */
export function bindToActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  if (tracer === undefined) return fn;
  return context.bind(context.active(), fn);
}

/** The protocol of the request being served (set by its server span), if any. */
export function currentProtocol(): string | undefined {
  if (tracer === undefined) return undefined;
  return context.active().getValue(PROTOCOL_KEY) as string | undefined;
}

/** W3C `traceparent` (and `tracestate`) of the active span, to send with an outgoing call; empty when none. */
export function outgoingTraceHeaders(): Record<string, string> {
  if (tracer === undefined) return {};
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}
