/**
 * Range functions by hand where promtool 2.42 cannot answer: mad_over_time and
 * double_exponential_smoothing (later Prometheus versions), empty windows, the name rule.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labelsFrom } from '../labels.js';
import { RANGE_FUNCTIONS } from './range-functions.js';
import type { RangeFunction, SeriesWindow } from './types.js';

function fn(name: string): RangeFunction {
  const f = RANGE_FUNCTIONS.get(name);
  assert.ok(f !== undefined);
  return f;
}

function win(values: number[], from = 0, to = values.length): SeriesWindow {
  return { labels: labelsFrom({ __name__: 'x' }), t: values.map((_, i) => i * 1000), v: values, from, to, rangeStartMs: 0, rangeEndMs: values.length * 1000 };
}

test('mad_over_time: median of absolute deviations from the median; NaN if a sample is NaN', () => {
  // median 3; deviations 2 1 0 1 6 → median 1.
  assert.equal(fn('mad_over_time').apply(win([1, 2, 3, 4, 9]), [], 0), 1);
  // even count: median 2.5; deviations 1.5 0.5 0.5 1.5 → 1.
  assert.equal(fn('mad_over_time').apply(win([1, 2, 3, 4]), [], 0), 1);
  assert.equal(fn('mad_over_time').apply(win([7]), [], 0), 0);
  assert.ok(Number.isNaN(fn('mad_over_time').apply(win([1, Number.NaN, 3]), [], 0)!));
});

test('double_exponential_smoothing is holt_winters under its 3.x name (same values, same parameter errors)', () => {
  const w = win([1, 3, 2, 5, 8, 7]);
  const hw = fn('holt_winters').apply(w, [0.4, 0.6], 0);
  assert.equal(fn('double_exponential_smoothing').apply(w, [0.4, 0.6], 0), hw);
  assert.throws(() => fn('double_exponential_smoothing').apply(w, [1, 0.5], 0), { message: 'invalid smoothing factor. Expected: 0 < sf < 1, got: 1.000000' });
  assert.throws(() => fn('double_exponential_smoothing').apply(w, [0.5, -0], 0), { message: 'invalid trend factor. Expected: 0 < tf < 1, got: -0.000000' });
});

test('an empty window gives no sample; fewer than two samples give none for rate-like functions', () => {
  for (const [name, f] of RANGE_FUNCTIONS) assert.equal(f.apply(win([1, 2], 1, 1), [0.5, 0.5], 0), undefined, name);
  for (const name of ['rate', 'increase', 'delta', 'irate', 'idelta', 'deriv', 'predict_linear', 'holt_winters']) {
    assert.equal(fn(name).apply(win([5]), [0.5, 0.5], 0), undefined, name);
  }
  assert.equal(fn('count_over_time').apply(win([5]), [], 0), 1);
});

test('only last_over_time keeps the metric name; quantile_over_time takes the range as its second argument', () => {
  for (const [name, f] of RANGE_FUNCTIONS) assert.equal(f.dropsName, name !== 'last_over_time', name);
  assert.equal(fn('quantile_over_time').rangeArg, 1);
  assert.equal(fn('rate').rangeArg, 0);
});
