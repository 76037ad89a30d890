/**
 * Turns tracing on for the process (`logging.enable_otlp_tracing`): a NodeTracerProvider (its
 * AsyncLocalStorage context manager carries the active span across awaits), a ParentBased(ratio)
 * sampler (`logging.tracing_sample_ratio.default_ratio`; a caller's sampled `traceparent` is
 * followed), and a BatchSpanProcessor exporting over gRPC OTLP to `logging.otlp_endpoint`.
 *
 * A collector that is down or slow never slows the server: spans end into a bounded queue that the
 * processor drains in the background; when it is full, spans are dropped. Export failures are
 * logged at most once per EXPORT_ERROR_LOG_INTERVAL_MS, with the error's message only (the
 * endpoint carries no credentials). Shutdown flushes what is queued within SHUTDOWN_TIMEOUT_MS.
 */
import { hostname } from 'node:os';
import { diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { StatusCode } from '../error/status-code.js';
import { TsdbError } from '../error/tsdb-error.js';
import type { Logger } from '../logging.js';
import { setTracingActive } from './tracing.js';

/** Spans waiting for export; more are dropped. */
export const MAX_QUEUE_SIZE = 2048;
/** Spans per export call. */
const MAX_EXPORT_BATCH_SIZE = 512;
/** How often queued spans are exported. */
const EXPORT_INTERVAL_MS = 1000;
/** Bound of one export call (a collector that does not answer). */
const EXPORT_TIMEOUT_MS = 5000;
/** How long stopping waits for the last spans to be exported. */
export const SHUTDOWN_TIMEOUT_MS = 2000;
/** At most one export failure is logged per this interval. */
const EXPORT_ERROR_LOG_INTERVAL_MS = 60_000;

export interface TracingOptions {
  /** `logging.otlp_endpoint`: `host:port` or `http://host:port` (gRPC, no TLS). */
  readonly endpoint: string;
  /** `logging.tracing_sample_ratio.default_ratio`, 0 to 1. */
  readonly ratio: number;
  /** The component's role: `standalone`, `frontend`, `datanode`, `metasrv` (`service.name`). */
  readonly serviceName: string;
  /** `service.instance.id`: the node id when the component has one. */
  readonly instanceId?: string;
  readonly logger: Logger;
}

export interface TracingHandle {
  /** Exports what is queued (bounded by SHUTDOWN_TIMEOUT_MS) and turns tracing off. */
  shutdown(): Promise<void>;
}

/** The gRPC target URL of `endpoint` (`host:port`, `http://host:port`); refuses anything else. */
export function otlpUrl(endpoint: string): string {
  const text = endpoint.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TsdbError(StatusCode.InvalidArguments, `logging.otlp_endpoint must be host:port or http://host:port, got ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== 'http:' || url.hostname === '' || url.port === '' || url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '')) {
    throw new TsdbError(StatusCode.InvalidArguments, `logging.otlp_endpoint must be host:port or http://host:port (gRPC without TLS), got ${JSON.stringify(endpoint)}`);
  }
  return `http://${url.host}`;
}

/** Wraps an exporter so that its failures are logged rarely and never thrown. */
class QuietExporter implements SpanExporter {
  private lastLogged = 0;
  private failures = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Logger,
    private readonly target: string,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    try {
      this.inner.export(spans, (result) => {
        if (result.error !== undefined || result.code !== 0) this.failed(spans.length, result.error);
        done(result);
      });
    } catch (err) {
      this.failed(spans.length, err);
      done({ code: 1, error: err as Error });
    }
  }

  private failed(spans: number, err: unknown): void {
    this.failures += 1;
    const now = Date.now();
    if (now - this.lastLogged < EXPORT_ERROR_LOG_INTERVAL_MS) return;
    this.lastLogged = now;
    const message = err instanceof Error ? err.message : String(err ?? 'unknown error');
    this.log.warn({ endpoint: this.target, spans, failures: this.failures, error: message }, `OTLP trace export failed (spans dropped; logged at most once a minute): ${message}`);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Installs the process's tracer provider; spans start being recorded and exported. */
export function startTracing(opts: TracingOptions): TracingHandle {
  const url = otlpUrl(opts.endpoint);
  const log = opts.logger.child({ module: 'tracing' });
  // The SDK reports its own problems through `diag`: to the log, warnings and above.
  diag.setLogger(
    {
      error: (message) => log.debug({ otel: 'error' }, message),
      warn: (message) => log.debug({ otel: 'warn' }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const exporter = new QuietExporter(new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), log, url);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: opts.serviceName,
      'service.instance.id': opts.instanceId ?? `${hostname()}:${process.pid}`,
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(opts.ratio) }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: MAX_QUEUE_SIZE,
        maxExportBatchSize: MAX_EXPORT_BATCH_SIZE,
        scheduledDelayMillis: EXPORT_INTERVAL_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  provider.register();
  setTracingActive(true);
  log.info({ endpoint: url, ratio: opts.ratio, service: opts.serviceName }, `exporting traces over OTLP/gRPC to ${url}`);
  let stopped: Promise<void> | undefined;
  return {
    shutdown() {
      stopped ??= (async () => {
        setTracingActive(false);
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            log.warn({ timeout_ms: SHUTDOWN_TIMEOUT_MS }, 'spans not exported by the shutdown deadline are dropped');
            resolve();
          }, SHUTDOWN_TIMEOUT_MS);
        });
        await Promise.race([provider.shutdown().catch((err: unknown) => log.debug({ err }, 'tracing shutdown failed')), bound]);
        clearTimeout(timer);
        trace.disable();
        propagation.disable();
      })();
      return stopped;
    },
  };
}
