import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecondCache } from './second-cache.js';

test('SecondCache: every value is make(second), whatever the pattern of seconds', () => {
  let made = 0;
  const cache = new SecondCache((s) => {
    made++;
    return `v${s}`;
  });
  const patterns: number[][] = [
    Array.from({ length: 5000 }, (_, i) => 1451606400 + (i % 450) * 96),
    Array.from({ length: 5000 }, (_, i) => -1 - (i % 300) * 1024),
    Array.from({ length: 3000 }, (_, i) => 2 ** 31 + (i % 200) * 4096),
    Array.from({ length: 3000 }, (_, i) => 2 ** 40 + (i % 100) - 2 ** 32 * (i % 3)),
    [0, -0, 1, -1, 2 ** 53 - 1, -(2 ** 53) + 1],
  ];
  for (const seconds of patterns) for (const s of seconds) assert.equal(cache.get(s), `v${s}`);
  assert.equal(cache.get(0), 'v0');
  // Repeats at a fixed step are hits once the table has grown: far fewer makes than gets.
  made = 0;
  const steps = Array.from({ length: 20_000 }, (_, i) => 1451606400 + (i % 450) * 96);
  for (const s of steps) cache.get(s);
  assert.ok(made < 2000, `${made} makes for 20,000 gets of 450 seconds`);
});
