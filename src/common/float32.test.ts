import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortestFloat32 } from './float32.js';

test('a float32 reads as its shortest decimal, and that decimal is the same float32', () => {
  assert.equal(shortestFloat32(Math.fround(0.04)), 0.04);
  assert.equal(shortestFloat32(Math.fround(0.1)), 0.1);
  assert.equal(shortestFloat32(Math.fround(3.14159)), 3.14159);
  assert.equal(shortestFloat32(16777217), 16777216);
  assert.equal(shortestFloat32(Math.fround(1e-45)), 1e-45);
  assert.equal(shortestFloat32(3.4028234663852886e38), 3.4028235e38);
  for (const v of [Math.fround(123.456), Math.fround(-7.25e-20), Math.fround(9.999999e30)]) assert.equal(Math.fround(shortestFloat32(v)), v);
  assert.ok(Number.isNaN(shortestFloat32(Number.NaN)));
  assert.equal(shortestFloat32(Infinity), Infinity);
  assert.ok(Object.is(shortestFloat32(-0), -0));
});
