import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { runKvBackendSuite } from './kv-backend.suite.js';
import { MemoryKvBackend } from './memory-kv-backend.js';
import { WatchedKvBackend } from './watched-kv-backend.js';

runKvBackendSuite('watched memory', async (t) => {
  const kv = new WatchedKvBackend(new MemoryKvBackend(), { onDown: () => {}, onUp: () => {} });
  t.after(() => kv.close());
  return kv;
});

/** A memory store that can be made unreachable, counting the calls that reach it. */
function flakyStore(): { kv: MemoryKvBackend; down: { on: boolean }; calls: { n: number } } {
  const kv = new MemoryKvBackend();
  const down = { on: false };
  const calls = { n: 0 };
  for (const m of ['get', 'put', 'delete', 'range', 'compareAndPut', 'batch'] as const) {
    const real = (kv[m] as (...a: unknown[]) => Promise<unknown>).bind(kv);
    (kv as unknown as Record<string, unknown>)[m] = (...args: unknown[]) => {
      calls.n++;
      return down.on ? Promise.reject(new TsdbError(StatusCode.StorageUnavailable, 'etcd at 10.0.0.1:2379 is unavailable (no answer within 5000 ms)')) : real(...args);
    };
  }
  return { kv, down, calls };
}

test('an unreachable store is reported once, then refused at once with why, until a probe finds it back', async (t) => {
  const { kv: inner, down, calls } = flakyStore();
  const events: string[] = [];
  const kv = new WatchedKvBackend(inner, { onDown: (err) => events.push(`down: ${err.message}`), onUp: () => events.push('up'), probeIntervalMs: 20 });
  t.after(() => kv.close());
  await kv.put('a', Buffer.from('1'));

  down.on = true;
  await assert.rejects(kv.get('a'), /no answer within 5000 ms/);
  assert.deepEqual(events, ['down: etcd at 10.0.0.1:2379 is unavailable (no answer within 5000 ms)']);
  assert.ok(kv.isDown);
  const before = calls.n;
  await assert.rejects(kv.batch([{ type: 'put', key: 'b', value: Buffer.from('2') }]), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.StorageUnavailable && /^the metadata store memory is unreachable \(for [\dms]+; retried every 20ms\): etcd at 10\.0\.0\.1:2379/.test(e.message));
  assert.ok(calls.n - before <= 1, 'refused without waiting for the store (at most a probe reached it)');
  await sleep(70);
  assert.equal(events.length, 1, 'reported once, however long it lasts');

  down.on = false;
  for (let i = 0; i < 50 && kv.isDown; i++) await sleep(10);
  assert.deepEqual(events.slice(1), ['up']);
  assert.deepEqual(Buffer.from((await kv.get('a'))!).toString(), '1');
  assert.equal(await kv.get('b'), undefined, 'the refused batch never reached the store');
});

test('a failure other than unreachability passes through and marks nothing', async (t) => {
  const inner = new MemoryKvBackend();
  inner.get = () => Promise.reject(new TsdbError(StatusCode.InvalidArguments, 'bad key'));
  let downs = 0;
  const kv = new WatchedKvBackend(inner, { onDown: () => downs++, onUp: () => {} });
  t.after(() => kv.close());
  await assert.rejects(kv.get('x'), /bad key/);
  assert.equal(downs, 0);
  assert.equal(kv.isDown, false);
});
