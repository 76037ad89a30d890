import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyedMutex } from './keyed-mutex.js';

test('tasks of one key run one at a time in order; other keys run alongside; failures do not block', async () => {
  const m = new KeyedMutex();
  const log: string[] = [];
  let inside = 0;
  const task = (name: string, ms: number, fail = false) => async () => {
    inside++;
    assert.ok(inside <= 2, 'at most one task per key (two keys here)');
    log.push(`start ${name}`);
    await sleep(ms);
    log.push(`end ${name}`);
    inside--;
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([m.run('a', task('a1', 20, true)), m.run('a', task('a2', 5)), m.run('b', task('b1', 5))]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);
  assert.ok(log.indexOf('end a1') < log.indexOf('start a2'), 'a2 waits for a1');
  assert.ok(log.indexOf('start b1') < log.indexOf('end a1'), 'b1 does not wait for a1');
  assert.equal(await m.run('a', async () => 'again'), 'again');
  assert.equal((m as unknown as { tails: Map<string, unknown> }).tails.size, 0, 'nothing kept once idle');
});
