import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSize, GIB, KIB, MIB, parseSize } from './size.js';

test('parses sizes; every unit spelling is binary', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['1024', 1024],
    ['100B', 100],
    ['64MB', 64 * MIB],
    ['64MiB', 64 * MIB],
    ['64M', 64 * MIB],
    ['64mb', 64 * MIB],
    ['64 MB', 64 * MIB],
    ['256MiB', 256 * MIB],
    ['1GiB', GIB],
    ['1GB', GIB],
    ['4GB', 4 * GIB],
    ['512KB', 512 * KIB],
    ['1.5GiB', 1.5 * GIB],
    ['2TB', 2 * 1024 * GIB],
  ];
  for (const [text, bytes] of cases) assert.equal(parseSize(text), bytes, text);
});

test('rejects malformed sizes with a message naming the value', () => {
  for (const bad of ['', 'MB', '64XB', '-1MB', '64 M B', 'lots']) {
    assert.throws(() => parseSize(bad), (err: Error) => err.message.includes(`"${bad}"`), bad);
  }
});

test('formats sizes with the largest exact binary unit and round-trips', () => {
  const cases: Array<[number, string]> = [
    [0, '0B'],
    [100, '100B'],
    [KIB, '1KiB'],
    [64 * MIB, '64MiB'],
    [GIB, '1GiB'],
    [1536 * MIB, '1536MiB'],
    [MIB + 1, '1048577B'],
  ];
  for (const [bytes, text] of cases) {
    assert.equal(formatSize(bytes), text);
    assert.equal(parseSize(text), bytes);
  }
});
