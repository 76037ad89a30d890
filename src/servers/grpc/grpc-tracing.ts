/**
 * A server span per gRPC call (`greptime.v1.GreptimeDatabase/Handle`), continuing the caller's
 * trace from its `traceparent` metadata (a frontend's region calls send it: region-client.ts).
 * Each method's implementation is wrapped so that it runs with the span active; the span ends
 * with the call (the callback of a unary or client-streaming call, the end of a stream) and
 * carries the gRPC status. Health checks are not traced (a metasrv probes every node each second).
 * With tracing off the wrapper calls the implementation directly.
 */
import type * as grpc from '@grpc/grpc-js';
import { extractParent, outgoingTraceHeaders, runInContext, SpanStatusCode, startServerSpan, tracingEnabled, type Span } from '../../common/tracing/tracing.js';

const UNTRACED = ['/grpc.health.v1.Health/'];

type AnyHandler = (...args: unknown[]) => unknown;

function endWith(span: Span, err: unknown): void {
  if (err !== null && err !== undefined) {
    const code = (err as { code?: unknown }).code;
    span.setAttribute('rpc.grpc.status_code', typeof code === 'number' ? code : 2);
    const message = (err as { details?: unknown; message?: unknown }).details ?? (err as { message?: unknown }).message;
    span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof message === 'string' && { message: message.slice(0, 512) }) });
  } else {
    span.setAttribute('rpc.grpc.status_code', 0);
  }
  span.end();
}

function wrap(path: string, def: grpc.MethodDefinition<unknown, unknown>, handler: AnyHandler): AnyHandler {
  const name = path.replace(/^\//, '');
  const [service = '', method = ''] = name.split('/');
  const unaryResponse = !def.responseStream;
  return function traced(this: unknown, call: unknown, callback?: unknown) {
    if (!tracingEnabled()) return handler.call(this, call, callback);
    const metadata = (call as { metadata?: grpc.Metadata }).metadata;
    const started = startServerSpan(name, extractParent(metadata?.getMap() ?? {}), 'grpc', {
      'rpc.system': 'grpc',
      'rpc.service': service,
      'rpc.method': method,
      'tsdb.protocol': 'grpc',
    });
    if (started === undefined) return handler.call(this, call, callback);
    const { span } = started;
    let open = true;
    const end = (err: unknown) => {
      if (!open) return;
      open = false;
      endWith(span, err);
    };
    if (unaryResponse && typeof callback === 'function') {
      const cb = callback as (...a: unknown[]) => void;
      const wrapped = (err: unknown, ...rest: unknown[]) => {
        end(err);
        cb(err, ...rest);
      };
      (call as NodeJS.EventEmitter).once?.('cancelled', () => end({ code: 1, details: 'cancelled by the client' }));
      return runInContext(started.context, () => handler.call(this, call, wrapped));
    }
    const stream = call as NodeJS.EventEmitter;
    stream.once('finish', () => end(undefined));
    stream.once('error', (err: unknown) => end(err));
    stream.once('cancelled', () => end({ code: 1, details: 'cancelled by the client' }));
    stream.once('close', () => end(undefined));
    return runInContext(started.context, () => handler.call(this, call, callback));
  };
}

/** The implementation with each traced method wrapped (the definition's and the implementation's own names both found). */
export function tracedImplementation(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = { ...implementation };
  for (const [key, def] of Object.entries(definition)) {
    if (UNTRACED.some((p) => def.path.startsWith(p))) continue;
    const name = key in out ? key : def.originalName !== undefined && def.originalName in out ? def.originalName : undefined;
    if (name === undefined) continue;
    const handler = out[name] as unknown as AnyHandler;
    if (typeof handler !== 'function') continue;
    out[name] = wrap(def.path, def as grpc.MethodDefinition<unknown, unknown>, handler) as unknown as grpc.UntypedHandleCall;
  }
  return out;
}

/** Metadata of an outgoing call: the active span's `traceparent`, so that the callee's span continues this trace. */
export function tracedMetadata(metadata: grpc.Metadata): grpc.Metadata {
  for (const [key, value] of Object.entries(outgoingTraceHeaders())) metadata.set(key, value);
  return metadata;
}
