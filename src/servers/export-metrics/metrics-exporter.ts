/**
 * `[export_metrics]` (spec §2.10, internals.md §8): every `write_interval` (the first right after
 * start skipped) the process's metrics registry is gathered and written to a Prometheus
 * remote-write receiver (`remote_write.url`, any component) or into a database of this server
 * (`self_import.db`, frontend and standalone) through the path remote write takes.
 *
 * The export never holds the server up: it runs on a timer, off every request path, one export at
 * a time (a tick that finds the previous one still running is skipped); a remote write has a time
 * limit shorter than the interval; failures are logged (without header values or the URL's
 * credentials and query) and the next tick simply tries again; stopping clears the timer, aborts a
 * request in flight and waits for it a short, bounded time.
 */
import type { Registry } from 'prom-client';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { metricsRegistry } from '../../common/metrics/registry.js';
import { buildInfo } from '../../common/build-info.js';
import { DEFAULT_USER } from '../../frontend/auth/user-provider.js';
import type { IngestHandler, SqlHandler } from '../handlers.js';
import type { ReadSeries } from '../prometheus/remote-read.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { decodeRemoteWrite, encodeWriteRequestMessage } from '../prometheus/remote-write.js';
import { snappyCompress } from '../prometheus/snappy-block.js';
import { ingestRemoteWrite } from '../prometheus/remote-write-ingest.js';
import { gatherSeries } from './gather-series.js';

/** The `[export_metrics]` section as the configuration holds it (`self_import` on frontend and standalone only). */
export interface ExportMetricsConfig {
  readonly enable: boolean;
  /** Milliseconds. */
  readonly write_interval: number;
  readonly self_import?: { readonly db: string };
  readonly remote_write: { readonly url: string; readonly headers: Readonly<Record<string, string>> };
}

/**
 * The database `self_import` writes into when `self_import.db` is left at the spec's default,
 * `information_schema`: that schema is read-only in tsdb, so the metrics go to this ordinary
 * database instead, created at start if missing, where SQL and PromQL read them like any other.
 */
export const SELF_IMPORT_DATABASE = 'tsdb_metrics';
const READ_ONLY_DEFAULT = 'information_schema';

/** Series per slice of the encoding: thousands of series take tens of ms, so the event loop gets a turn between slices. */
const ENCODE_SLICE = 256;

/** The snappy-compressed WriteRequest of `series`, encoded a slice at a time. */
export async function encodeWriteRequestSliced(series: readonly ReadSeries[]): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < series.length; i += ENCODE_SLICE) {
    if (i > 0) await nextTurn();
    parts.push(encodeWriteRequestMessage(series.slice(i, i + ENCODE_SLICE)));
  }
  return snappyCompress(Buffer.concat(parts));
}

/** Where gathered series go. */
export interface MetricsSink {
  /** The destination for logs: no credentials, no query string. */
  readonly target: string;
  write(series: readonly ReadSeries[], signal: AbortSignal): Promise<void>;
}

/** The time limit of one remote write: shorter than the interval (4/5 of it), at most 30 s. */
export function remoteWriteTimeout(intervalMs: number): number {
  return Math.max(1, Math.min(Math.floor(intervalMs * 0.8), 30_000));
}

/** `url` without user info, query or fragment: what logs may show of it. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** Protocol headers (Prometheus remote write 1.0); configured headers cannot replace them. */
const PROTOCOL_HEADERS: Readonly<Record<string, string>> = {
  'content-encoding': 'snappy',
  'content-type': 'application/x-protobuf',
  'x-prometheus-remote-write-version': '0.1.0',
};

/** Remote write 1.0 to a receiver: a snappy-compressed WriteRequest POSTed with the configured headers. */
export class RemoteWriteSink implements MetricsSink {
  readonly target: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly url: string,
    headers: Readonly<Record<string, string>>,
    private readonly timeoutMs: number,
  ) {
    this.target = redactUrl(url);
    this.headers = { 'user-agent': `tsdb/${buildInfo().version}` };
    for (const [k, v] of Object.entries(headers)) {
      if (PROTOCOL_HEADERS[k.toLowerCase()] === undefined) this.headers[k] = v;
    }
    Object.assign(this.headers, PROTOCOL_HEADERS);
    this.secrets = Object.values(headers).flatMap((v) => [v, ...v.split(/\s+/)]).filter((s) => s.length >= 4);
  }

  /** Header values (and their words: the credential of `Basic <credential>`), cut out of anything logged. */
  private readonly secrets: string[];

  async write(series: readonly ReadSeries[], signal: AbortSignal): Promise<void> {
    const body = await encodeWriteRequestSliced(series);
    let res: Response;
    // A timer of our own rather than AbortSignal.timeout: AbortSignal.any holds its sources weakly, and
    // a timeout signal nothing else holds can be collected before it fires (seen in Node 20 under a
    // busy heap: the write then waited for undici's own 300 s header timeout).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError')), this.timeoutMs);
    try {
      res = await fetch(this.url, { method: 'POST', headers: this.headers, body, signal: AbortSignal.any([signal, timeout.signal]) });
    } catch (err) {
      const e = err as Error & { cause?: { message?: string; code?: string } };
      const why = e.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : `${e.message}${e.cause?.message !== undefined ? `: ${e.cause.message}` : ''}`;
      clearTimeout(timer);
      throw new Error(this.redact(why));
    }
    // The answer's body within the same time limit.
    const text = await res.text().catch(() => '');
    clearTimeout(timer);
    if (!res.ok) {
      const detail = text.trim().slice(0, 200);
      throw new Error(this.redact(`the receiver answered ${res.status}${res.statusText !== '' ? ` ${res.statusText}` : ''}${detail !== '' ? `: ${detail}` : ''}`));
    }
  }

  private redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out;
  }
}

/** Into a database of this server: the series go the way a remote write to `/v1/prometheus/write?db=<db>` goes. */
export class SelfImportSink implements MetricsSink {
  readonly target: string;

  constructor(
    private readonly ingest: IngestHandler,
    private readonly database: string,
    private readonly withMetricEngine: boolean,
  ) {
    this.target = `database ${database}`;
  }

  async write(series: readonly ReadSeries[]): Promise<void> {
    // Encoded and decoded like a request, so that the tables are exactly those remote write makes.
    const { groups } = decodeRemoteWrite(await encodeWriteRequestSliced(series));
    await ingestRemoteWrite(this.ingest, groups, { database: this.database, user: DEFAULT_USER, withMetricEngine: this.withMetricEngine });
  }
}

/**
 * The database `self_import.db` names, checked at start: `information_schema` (the default, read-only
 * here) means `tsdb_metrics`, created if missing; any other database must exist.
 */
export async function selfImportDatabase(sql: SqlHandler, configured: string, log: Logger): Promise<string> {
  if (configured.toLowerCase() === READ_ONLY_DEFAULT) {
    const ctx = { database: 'public', timezone: 'UTC', user: DEFAULT_USER };
    if (!(await sql.databaseExists(SELF_IMPORT_DATABASE))) {
      await sql.executeSql(`CREATE DATABASE IF NOT EXISTS ${SELF_IMPORT_DATABASE}`, ctx);
      log.info({ database: SELF_IMPORT_DATABASE }, `export_metrics: created database ${SELF_IMPORT_DATABASE} for the exported metrics`);
    }
    return SELF_IMPORT_DATABASE;
  }
  if (!(await sql.databaseExists(configured))) {
    throw new TsdbError(
      StatusCode.DatabaseNotFound,
      `export_metrics.self_import.db: database ${JSON.stringify(configured)} does not exist; create it first (CREATE DATABASE ${configured}), or leave self_import.db at its default (information_schema, which exports into ${SELF_IMPORT_DATABASE}, created if missing)`,
    );
  }
  return configured;
}

export interface MetricsExporterOptions {
  readonly intervalMs: number;
  readonly sink: MetricsSink;
  /** Labels added to every series: which server they come from (`job`, `instance`). */
  readonly identity: Readonly<Record<string, string>>;
  readonly logger: Logger;
  readonly registry?: Registry;
}

/** A failure repeated with the same message is logged again at most this often. */
const REPEAT_LOG_MS = 60_000;

export class MetricsExporter {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<boolean> | undefined;
  private readonly stopping = new AbortController();
  private failures = 0;
  private lastLogged: { message: string; at: number } | undefined;
  /** Exports done, failed and skipped (the previous one still running), for tests and logs. */
  readonly counts = { exported: 0, failed: 0, skipped: 0 };

  constructor(private readonly opts: MetricsExporterOptions) {}

  /** Starts the timer: the first export is one interval after this (the first tick is skipped). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.opts.intervalMs);
    // The process ends when its servers do, whatever the timer.
    this.timer.unref();
    this.opts.logger.info({ target: this.opts.sink.target, interval_ms: this.opts.intervalMs, labels: this.opts.identity }, `export_metrics: exporting every ${this.opts.intervalMs} ms to ${this.opts.sink.target}`);
  }

  private tick(): void {
    if (this.inFlight !== undefined) {
      this.counts.skipped++;
      this.opts.logger.warn({ target: this.opts.sink.target }, 'export_metrics: the previous export is still running; skipping this one');
      return;
    }
    const run = this.exportOnce();
    this.inFlight = run;
    void run.finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
  }

  /** Gathers and writes once; never throws (a failure is logged). Returns whether it was written. */
  async exportOnce(): Promise<boolean> {
    const log = this.opts.logger;
    try {
      const series = await gatherSeries(this.opts.registry ?? metricsRegistry, this.opts.identity, Date.now());
      if (this.stopping.signal.aborted) return false;
      await this.opts.sink.write(series, this.stopping.signal);
      this.counts.exported++;
      if (this.failures > 0) log.info({ target: this.opts.sink.target, failures: this.failures }, `export_metrics: exporting to ${this.opts.sink.target} works again after ${this.failures} failed attempt(s)`);
      this.failures = 0;
      this.lastLogged = undefined;
      return true;
    } catch (err) {
      if (this.stopping.signal.aborted) return false;
      this.counts.failed++;
      this.failures++;
      const message = err instanceof Error ? err.message : String(err);
      const now = Date.now();
      if (this.lastLogged === undefined || this.lastLogged.message !== message || now - this.lastLogged.at >= REPEAT_LOG_MS) {
        this.lastLogged = { message, at: now };
        log.error({ target: this.opts.sink.target, failures: this.failures }, `export_metrics: exporting to ${this.opts.sink.target} failed (retried at the next tick): ${message}`);
      }
      return false;
    }
  }

  /** Stops the timer and aborts an export in flight, waiting for it at most `boundMs`. */
  async stop(boundMs = 1_000): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    const running = this.inFlight;
    if (running === undefined) return;
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise<void>((resolve) => (wait = setTimeout(resolve, boundMs)))]);
    clearTimeout(wait);
  }
}

/** What a component gives the export. */
export interface ExportMetricsContext {
  /** `job` label: `tsdb-<component>`. */
  readonly component: string;
  /** `instance` label: the server's HTTP address (`host:port`). */
  readonly instance: string;
  readonly logger: Logger;
  /** Frontend and standalone: the handlers `self_import` writes through. */
  readonly selfImport?: { readonly sql: SqlHandler; readonly ingest: IngestHandler; readonly withMetricEngine: boolean };
  readonly registry?: Registry;
}

/**
 * Starts the export `config` describes (undefined when it is off). Throws a TsdbError at start for
 * what cannot work: `self_import` into a database that does not exist, or on a component without it.
 */
export async function startMetricsExport(config: ExportMetricsConfig, ctx: ExportMetricsContext): Promise<MetricsExporter | undefined> {
  if (!config.enable) return undefined;
  let sink: MetricsSink;
  if (config.remote_write.url !== '') {
    sink = new RemoteWriteSink(config.remote_write.url, config.remote_write.headers, remoteWriteTimeout(config.write_interval));
  } else if (config.self_import !== undefined && ctx.selfImport !== undefined) {
    const db = await selfImportDatabase(ctx.selfImport.sql, config.self_import.db, ctx.logger);
    sink = new SelfImportSink(ctx.selfImport.ingest, db, ctx.selfImport.withMetricEngine);
  } else {
    throw new TsdbError(StatusCode.InvalidArguments, `export_metrics: a ${ctx.component} exports by remote write only; set export_metrics.remote_write.url`);
  }
  const exporter = new MetricsExporter({
    intervalMs: config.write_interval,
    sink,
    identity: { job: `tsdb-${ctx.component}`, instance: ctx.instance },
    logger: ctx.logger,
    ...(ctx.registry !== undefined && { registry: ctx.registry }),
  });
  exporter.start();
  return exporter;
}
