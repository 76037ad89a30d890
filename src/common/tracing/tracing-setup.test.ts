/**
 * The tracing setup in this process, against the test OTLP receiver: endpoint forms, helpers that
 * do nothing with tracing off, parents that follow awaits and queued jobs, spans flushed at
 * shutdown, and a shutdown bounded when the collector never answers.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OtlpReceiver } from '../../../test/support/otlp-receiver.js';
import { silentLogger } from '../logging.js';
import { otlpUrl, SHUTDOWN_TIMEOUT_MS, startTracing } from './tracing-setup.js';
import { bindToActiveContext, extractParent, outgoingTraceHeaders, runInContext, startPhase, startServerSpan, tracingEnabled, withSpan, withSpanSync } from './tracing.js';

test('otlp_endpoint: host:port and http://host:port; anything else is refused', () => {
  assert.equal(otlpUrl('localhost:4317'), 'http://localhost:4317');
  assert.equal(otlpUrl('http://127.0.0.1:4317'), 'http://127.0.0.1:4317');
  assert.equal(otlpUrl(' http://[::1]:4317/ '), 'http://[::1]:4317');
  for (const bad of ['https://collector:4317', 'localhost', 'http://u:p@host:4317', 'http://host:4317/v1/traces', '']) {
    assert.throws(() => otlpUrl(bad), /logging\.otlp_endpoint must be host:port or http:\/\/host:port/, bad);
  }
});

test('with tracing off the helpers only run what they wrap', async () => {
  assert.equal(tracingEnabled(), false);
  assert.equal(await withSpan('x', { a: 1 }, async (span) => (span === undefined ? 'ran' : 'span')), 'ran');
  assert.equal(withSpanSync('x', undefined, (span) => span), undefined);
  startPhase('p').end();
  assert.equal(startServerSpan('s', extractParent({}), 'http', {}), undefined);
  assert.deepEqual(outgoingTraceHeaders(), {});
  const f = () => 1;
  assert.equal(bindToActiveContext(f), f);
});

test('spans are exported with their parents across awaits and queued jobs; shutdown flushes them', async (t) => {
  const rx = await OtlpReceiver.start();
  t.after(() => rx.stop());
  const tracing = startTracing({ endpoint: rx.address, ratio: 1, serviceName: 'frontend', instanceId: '7', logger: silentLogger() });
  let queued: (() => Promise<void>) | undefined;
  const incoming = extractParent({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
  const server = startServerSpan('GET /x', incoming, 'http', { 'http.route': '/x' })!;
  let headers: Record<string, string> = {};
  await runInContext(server.context, () =>
    withSpan('outer', { k: 'v' }, async () => {
      await sleep(5);
      await withSpan('inner', undefined, async () => {
        headers = outgoingTraceHeaders();
      });
      // A job made here and run later from elsewhere keeps this parent.
      queued = bindToActiveContext(() => withSpan('job', undefined, async () => {}));
      await withSpan('fails', undefined, async () => {
        throw new Error('boom');
      }).catch(() => {});
    }),
  );
  server.span.end();
  await queued!();
  await tracing.shutdown();
  assert.equal(tracingEnabled(), false);
  const byName = new Map(rx.spans.map((s) => [s.name, s]));
  assert.deepEqual([...byName.keys()].sort(), ['GET /x', 'fails', 'inner', 'job', 'outer']);
  const root = byName.get('GET /x')!;
  assert.equal(root.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(root.parentSpanId, 'b7ad6b7169203331');
  assert.equal(root.kind, 'SPAN_KIND_SERVER');
  assert.equal(byName.get('outer')!.parentSpanId, root.spanId);
  assert.equal(byName.get('inner')!.parentSpanId, byName.get('outer')!.spanId);
  assert.equal(byName.get('job')!.parentSpanId, byName.get('outer')!.spanId);
  assert.equal(byName.get('fails')!.status, 'STATUS_CODE_ERROR');
  assert.equal(byName.get('fails')!.statusMessage, 'boom');
  assert.equal(byName.get('outer')!.attributes['k'], 'v');
  assert.equal(root.resource['service.name'], 'frontend');
  assert.equal(root.resource['service.instance.id'], '7');
  assert.match(headers['traceparent'] ?? '', new RegExp(`^00-0af7651916cd43dd8448eb211c80319c-${byName.get('inner')!.spanId}-01$`));
});

test('a collector that never answers: spans end at once, shutdown gives up after its bound', async (t) => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const tracing = startTracing({ endpoint: `127.0.0.1:${(silent.address() as { port: number }).port}`, ratio: 1, serviceName: 'standalone', logger: silentLogger() });
  const started = performance.now();
  // Far more spans than the queue holds: the extra ones are dropped, nothing waits.
  for (let i = 0; i < 10_000; i++) await withSpan('s', undefined, async () => {});
  const spent = performance.now() - started;
  assert.ok(spent < 2000, `10000 spans took ${Math.round(spent)} ms`);
  const stopping = performance.now();
  await tracing.shutdown();
  const stopMs = performance.now() - stopping;
  assert.ok(stopMs < SHUTDOWN_TIMEOUT_MS + 1000, `shutdown took ${Math.round(stopMs)} ms`);
});
