import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatValue, isStaleNaN, staleNaN } from './values.js';

test('formatValue writes numbers as the Prometheus HTTP API does', () => {
  assert.equal(formatValue(Number.NaN), 'NaN');
  assert.equal(formatValue(Number.POSITIVE_INFINITY), '+Inf');
  assert.equal(formatValue(Number.NEGATIVE_INFINITY), '-Inf');
  assert.equal(formatValue(-0), '-0');
  assert.equal(formatValue(0), '0');
  assert.equal(formatValue(1.5), '1.5');
  assert.equal(formatValue(1e21), '1e+21');
  assert.equal(formatValue(1e-7), '1e-07');
  assert.equal(formatValue(123456789012), '123456789012');
});

test('the stale marker is one NaN, not every NaN', () => {
  assert.equal(isStaleNaN(staleNaN()), true);
  assert.equal(isStaleNaN(Number.NaN), false);
  assert.equal(isStaleNaN(0), false);
  // Kept through a typed array (a plain JS array of doubles may canonicalize the NaN: keep stale
  // markers in Float64Arrays from the source on).
  const held = new Float64Array(1);
  held[0] = staleNaN();
  assert.equal(isStaleNaN(held[0]!), true);
});
