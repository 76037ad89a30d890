/**
 * What tracing costs per request, measured without a second server: the main bench
 * (`main.ts`) compares two servers' CPU, whose run-to-run spread on a shared 2-core machine
 * (±10 % and more) is larger than the cost of a few spans per request. Here one process makes the
 * spans of a SQL request exactly as the server does (the HTTP server span, `sql`, `sql.parse`,
 * `sql.execute`, `sql.plan`, through `common/tracing/tracing.ts`) and of a line-protocol write
 * (`POST …/write`, `ingest`), `--requests` times with tracing on (ratio 1.0, OTLP/gRPC to a receiver
 * in a child process, so its decoding is not counted) and the same with tracing off; the
 * difference of CPU (user + system of this process: span objects, the batch processor and the
 * exporter's protobuf serialization and gRPC calls) over the requests is the cost of one request.
 * It also counts the promises made per request with tracing on and off, since the AsyncLocalStorage
 * context manager's cost grows with them.
 *
 *   node dist/bench/observability/span-cost.js [--requests 5000]
 */
import { fork } from 'node:child_process';
import { createHook } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { pino } from 'pino';
import { startTracing } from '../../src/common/tracing/tracing-setup.js';
import { runInContext, startPhase, startServerSpan, tracingEnabled, withSpan, withSpanSync } from '../../src/common/tracing/tracing.js';

const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '5000' }, child: { type: 'boolean', default: false } } });

const N = Number(opts.requests);

/** The spans of one `POST /v1/sql` with one SELECT, as the server makes them (with attributes like its). */
async function sqlRequest(i: number): Promise<void> {
  const server = startServerSpan('POST /v1/sql', ROOT_CONTEXT, 'http', { 'http.request.method': 'POST', 'http.route': '/v1/sql', 'url.path': '/v1/sql' });
  const run = async (): Promise<void> => {
    await withSpan('sql', tracingEnabled() ? { 'db.system.name': 'tsdb', 'db.namespace': 'public', 'tsdb.protocol': 'http', 'enduser.id': 'tsdb' } : undefined, async () => {
      withSpanSync('sql.parse', undefined, (span) => span?.setAttribute('tsdb.statements', 1));
      await withSpan('sql.execute', tracingEnabled() ? { 'db.operation.name': 'SELECT', 'tsdb.statement.kind': 'query' } : undefined, async (span) => {
        const plan = startPhase('sql.plan');
        await Promise.resolve(i);
        plan.end();
        span?.setAttribute('db.response.returned_rows', 10);
      });
    });
  };
  if (server === undefined) return run();
  await runInContext(server.context, run);
  server.span.setAttribute('http.response.status_code', 200);
  server.span.end();
}

/** The spans of one line-protocol write. */
async function writeRequest(i: number): Promise<void> {
  const server = startServerSpan('POST /v1/influxdb/write', ROOT_CONTEXT, 'influxdb', { 'http.request.method': 'POST', 'http.route': '/v1/influxdb/write' });
  const run = () => withSpan('ingest', tracingEnabled() ? { 'db.namespace': 'public', 'tsdb.tables': 1, 'tsdb.rows': 5000 } : undefined, async () => void (await Promise.resolve(i)));
  if (server === undefined) return run();
  await runInContext(server.context, run);
  server.span.end();
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * A pause of a millisecond after each request (at most ~1,000 requests a second): the exporter's
 * gRPC calls get their turns, and the batch processor's queue (2,048 spans) is not outrun — a
 * server at a higher rate at ratio 1.0 drops spans rather than slowing down.
 */
const turn = (): Promise<void> => new Promise((ok) => setTimeout(ok, 1));

async function warmUp(fn: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) {
    await fn(i);
    await turn();
  }
}

async function run(fn: (i: number) => Promise<void>): Promise<number> {
  const c0 = cpuMs();
  for (let i = 0; i < N; i++) {
    await fn(i);
    await turn();
  }
  return cpuMs() - c0;
}

/** Promises made per request (counted apart: the hook has a cost of its own). */
async function promisesPer(fn: (i: number) => Promise<void>): Promise<number> {
  let promises = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) });
  hook.enable();
  for (let i = 0; i < 1000; i++) await fn(i);
  hook.disable();
  return promises / 1000;
}

const WARM_UP = 1000;

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N <= 0) throw new Error(`--requests: a positive integer, not ${opts.requests}`);
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const address = await new Promise<string>((ok) => child.once('message', (m: { address: string }) => ok(m.address)));
  const count = (): Promise<number> => new Promise((ok) => {
    child.once('message', (m: { spans: number }) => ok(m.spans));
    child.send({ count: true });
  });
  const until = async (spans: number): Promise<void> => {
    for (const t0 = Date.now(); (await count()) < spans; ) {
      if (Date.now() - t0 > 60_000) throw new Error(`the receiver got ${await count()} spans, not ${spans}, in 60 s`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  };
  const logger = pino({ level: 'warn' });
  try {
    const rows: string[] = [];
    for (const [name, fn, spansPer] of [['SQL request (5 spans)', sqlRequest, 5], ['line-protocol write (2 spans)', writeRequest, 2]] as const) {
      await warmUp(fn);
      const off = await run(fn);
      const offPromises = await promisesPer(fn);
      const handle = startTracing({ endpoint: address, ratio: 1, serviceName: 'bench', logger });
      const before = await count();
      await warmUp(fn);
      // Spans of the warm-up exported first, so that what follows counts only the measured requests.
      await until(before + WARM_UP * spansPer);
      const c0 = cpuMs();
      const on = await run(fn);
      await until(before + (WARM_UP + N) * spansPer);
      const withExport = cpuMs() - c0;
      const onPromises = await promisesPer(fn);
      await handle.shutdown();
      const perUs = (ms: number) => ((ms * 1000) / N).toFixed(1);
      rows.push(`| ${name} | ${perUs(off)} | ${perUs(on)} | ${perUs(withExport)} | ${perUs(withExport - off)} | ${offPromises.toFixed(0)} → ${onPromises.toFixed(0)} |`);
      process.stderr.write(`${name}: off ${off.toFixed(0)} ms, on ${on.toFixed(0)} ms, with export ${withExport.toFixed(0)} ms CPU for ${N} requests\n`);
    }
    console.log(`Requests: ${N} each; CPU of this process (user + system), µs per request.\n`);
    console.log('| request | tracing off | on, spans made | on, spans made and exported | cost per request | promises per request (off → on) |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) console.log(r);
  } finally {
    child.kill();
  }
}

if (opts.child) {
  const { OtlpReceiver } = await import('../../test/support/otlp-receiver.js');
  const rx = await OtlpReceiver.start();
  process.send?.({ address: rx.address });
  process.on('message', (m: { count?: boolean }) => {
    if (m.count === true) process.send?.({ spans: rx.spans.length });
  });
} else {
  await main();
}
