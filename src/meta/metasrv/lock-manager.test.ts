import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LockManager } from './lock-manager.js';

const tick = () => new Promise((r) => setImmediate(r));

test('shared holds run together; an exclusive one waits for them and holds later ones back in order', async () => {
  const locks = new LockManager();
  const order: string[] = [];
  const r1 = await locks.acquire([{ key: 'db', exclusive: false }]);
  const r2 = await locks.acquire([{ key: 'db', exclusive: false }]);
  const x = locks.acquire([{ key: 'db', exclusive: true }]).then((r) => (order.push('x'), r));
  const r3 = locks.acquire([{ key: 'db', exclusive: false }]).then((r) => (order.push('r3'), r));
  await tick();
  assert.deepEqual(order, [], 'the exclusive hold waits for both readers; the later reader waits behind it');
  r1();
  await tick();
  assert.deepEqual(order, []);
  r2();
  (await x)();
  (await r3)();
  assert.deepEqual(order, ['x', 'r3']);
  assert.deepEqual(locks.busyKeys(), [], 'nothing is kept once released');
});

test('keys are taken in sorted order, so crossing requests do not deadlock; a key named twice is taken once', async () => {
  const locks = new LockManager();
  const results = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const keys = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      const release = await locks.acquire(keys.map((key) => ({ key, exclusive: true })));
      await tick();
      release();
      return i;
    }),
  );
  assert.equal(results.length, 20);
  const release = await locks.acquire([
    { key: 'a', exclusive: false },
    { key: 'a', exclusive: true },
  ]);
  let second = false;
  void locks.acquire([{ key: 'a', exclusive: false }]).then(() => (second = true));
  await tick();
  assert.equal(second, false, 'held exclusive');
  release();
  release(); // a second release changes nothing
  await tick();
  assert.equal(second, true);
});
