import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, parseDuration } from './duration.js';

test('parses durations with units, compounds and spaces', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['0s', 0],
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['500ms', 500],
    ['100us', 0.1],
    ['1d', 86_400_000],
    ['2w', 1_209_600_000],
    ['1.5h', 5_400_000],
    ['3 seconds', 3000],
    ['2 minutes', 120_000],
    [' 5S ', 5000],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test('rejects malformed durations with a message naming the value', () => {
  for (const bad of ['', '30', 's', '10x', '1h-5m', 'abc', '-5s', '1..5s']) {
    assert.throws(() => parseDuration(bad), (err: Error) => err.message.includes(`"${bad}"`) || bad === '', bad);
  }
});

test('formats durations the way they are written and round-trips', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [30_000, '30s'],
    [600_000, '10m'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [1500, '1s500ms'],
    [0.25, '250us'],
    [86_400_000 + 1000, '1d1s'],
  ];
  for (const [ms, text] of cases) {
    assert.equal(formatDuration(ms), text);
    assert.equal(parseDuration(text), ms);
  }
});

test('timerDelay keeps a delay within what setTimeout holds', async () => {
  const { timerDelay, MAX_TIMER_DELAY } = await import('./duration.js');
  assert.equal(timerDelay(1500), 1500);
  assert.equal(timerDelay(30 * 86_400_000), MAX_TIMER_DELAY);
  assert.equal(MAX_TIMER_DELAY, 2 ** 31 - 1);
});
