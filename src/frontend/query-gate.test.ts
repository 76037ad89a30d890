import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { QueryGate, untilDoneOrAborted } from './query-gate.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('at most `limit` queries run; the others are admitted in arrival order as slots free', async () => {
  const gate = new QueryGate(2, 0);
  const order: number[] = [];
  const releases = await Promise.all([gate.acquire(), gate.acquire()]);
  const waiting = [3, 4, 5].map((n) => gate.acquire().then((release) => (order.push(n), release)));
  await tick();
  assert.deepEqual(gate.stats(), { running: 2, queued: 3 });
  releases[0]!();
  releases[0]!(); // a second call frees nothing more
  await tick();
  assert.deepEqual(order, [3]);
  assert.deepEqual(gate.stats(), { running: 2, queued: 2 });
  releases[1]!();
  await tick();
  assert.deepEqual(order, [3, 4]);
  for (const r of await Promise.all(waiting.slice(0, 2))) r();
  await tick();
  assert.deepEqual(order, [3, 4, 5]);
  (await waiting[2]!)();
  assert.deepEqual(gate.stats(), { running: 0, queued: 0 });
});

test('a newcomer does not overtake the queue when a slot frees', async () => {
  const gate = new QueryGate(1, 0);
  const first = await gate.acquire();
  const queued = gate.acquire();
  first();
  // The slot went to the queued query: a newcomer waits.
  const late = gate.acquire();
  await tick();
  assert.deepEqual(gate.stats(), { running: 1, queued: 1 });
  (await queued)();
  (await late)();
});

test('a wait past the timeout fails with RateLimited naming both options, and leaves the queue', async () => {
  const gate = new QueryGate(1, 50);
  const held = await gate.acquire();
  const started = Date.now();
  await assert.rejects(gate.acquire(), (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.RateLimited);
    assert.match(err.message, /max_concurrent_queries/);
    assert.match(err.message, /concurrent_query_limiter_timeout/);
    return true;
  });
  assert.ok(Date.now() - started >= 45);
  assert.deepEqual(gate.stats(), { running: 1, queued: 0 });
  held();
  (await gate.acquire())();
});

test("an aborted signal ends the wait with the signal's reason; an aborted one is refused at once", async () => {
  const gate = new QueryGate(1, 0);
  const held = await gate.acquire();
  const ac = new AbortController();
  const waiting = gate.acquire(ac.signal);
  await tick();
  const reason = new TsdbError(StatusCode.DeadlineExceeded, 'deadline');
  ac.abort(reason);
  await assert.rejects(waiting, (err) => err === reason);
  assert.deepEqual(gate.stats(), { running: 1, queued: 0 });
  await assert.rejects(gate.acquire(AbortSignal.abort(reason)), (err) => err === reason);
  held();
  assert.deepEqual(gate.stats(), { running: 0, queued: 0 });
});

test('limit 0 admits every query', async () => {
  const gate = new QueryGate(0, 10);
  const releases = await Promise.all(Array.from({ length: 100 }, () => gate.acquire()));
  assert.equal(gate.stats().running, 100);
  for (const r of releases) r();
  assert.equal(gate.stats().running, 0);
});

test('older: the end of the queries admitted before one, never of younger ones; undefined when none is older', async () => {
  const gate = new QueryGate(0, 0);
  const first = await gate.acquire();
  const second = await gate.acquire();
  const third = await gate.acquire();
  assert.equal(gate.older(first), undefined);
  let ended = false;
  const older = gate.older(third)!;
  void older.then(() => (ended = true));
  first();
  await tick();
  assert.equal(ended, false, 'the second is still running');
  second();
  await older;
  assert.equal(ended, true);
  // A wait ends early with the abort's reason.
  const fourth = await gate.acquire();
  const abort = new AbortController();
  const pending = untilDoneOrAborted(gate.older(fourth)!, abort.signal);
  abort.abort(new Error('gone'));
  await assert.rejects(pending, /gone/);
  third();
  fourth();
});
