import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundJobs } from './background-jobs.js';

test('no more than the limit run at once; all run', async () => {
  const jobs = new BackgroundJobs(2);
  let now = 0;
  let peak = 0;
  const done: number[] = [];
  await Promise.all(
    Array.from({ length: 7 }, (_, i) =>
      jobs.run(async () => {
        now++;
        peak = Math.max(peak, now);
        await sleep(5);
        now--;
        done.push(i);
      }),
    ),
  );
  assert.equal(peak, 2);
  assert.deepEqual(done.sort(), [0, 1, 2, 3, 4, 5, 6]);
  await jobs.idle();
});

test('a keyed job queued twice runs once; a failing job frees its slot', async () => {
  const jobs = new BackgroundJobs(1);
  let runs = 0;
  const blocker = jobs.run(() => sleep(10));
  const a = jobs.run(async () => ++runs, 'flush-1');
  const b = jobs.run(async () => ++runs, 'flush-1');
  assert.equal(a, b);
  await blocker;
  assert.equal(await a, 1);
  await assert.rejects(jobs.run(async () => { throw new Error('boom'); }), /boom/);
  assert.equal(await jobs.run(async () => 'next'), 'next');
});
