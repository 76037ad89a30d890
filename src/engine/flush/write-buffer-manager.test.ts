import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteBufferManager } from './write-buffer-manager.js';

test('flush at half the buffer in mutable memtables; reject at the reject size; recover after flushes', () => {
  const m = new WriteBufferManager({ bufferSize: 1000, rejectSize: 2000 });
  m.setMutable(1n, 300);
  m.setMutable(2n, 100);
  assert.equal(m.shouldFlush(), false);
  m.setMutable(3n, 150);
  assert.equal(m.shouldFlush(), true, '550 ≥ 500 mutable');
  assert.deepEqual(m.regionsToFlush(), [1n], 'the largest region alone brings mutable memory under half');

  m.freeze(1n);
  assert.equal(m.mutableBytes(), 250);
  assert.equal(m.totalBytes(), 550);
  assert.equal(m.shouldFlush(), false);

  m.setMutable(2n, 1200);
  m.setMutable(3n, 300);
  assert.equal(m.totalBytes(), 1800);
  assert.equal(m.shouldReject(), false);
  m.setMutable(3n, 500);
  assert.equal(m.shouldReject(), true, '2000 ≥ reject size');

  m.release(1n, 300);
  assert.equal(m.shouldReject(), false, 'a finished flush frees memory');
  assert.deepEqual(m.regionsToFlush(), [2n, 3n]);
  m.remove(2n);
  m.remove(3n);
  assert.equal(m.totalBytes(), 0);
});

test('all memtables at the buffer size trigger a flush even when little is mutable', () => {
  const m = new WriteBufferManager({ bufferSize: 1000, rejectSize: 2000 });
  m.setMutable(1n, 900);
  m.freeze(1n);
  m.setMutable(2n, 150);
  assert.equal(m.shouldFlush(), true);
  assert.deepEqual(m.regionsToFlush(), [2n]);
});
