import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h3Cell, h3Cells, h3Resolution } from './h3-functions.js';

test('a cell is read from its number (decimal text, also a BIGINT above 2^63) or its hexadecimal string', () => {
  assert.equal(h3Cell('613196570438926335'), '88283082e7fffff');
  assert.equal(h3Cell('88283082E7FFFFF'), '88283082e7fffff');
  assert.equal(h3Cell(' 88283082e7fffff '), '88283082e7fffff');
  assert.throws(() => h3Cell('12345'), /3001|invalid cell index/);
  assert.throws(() => h3Cell('not a cell'), /Execution error: H3 error: invalid cell index/);
  assert.throws(() => h3Cell('-1'), /invalid cell index/);
});

test('a resolution is GreptimeDB UInt8 cast, then H3 range', () => {
  assert.equal(h3Resolution(15n), 15);
  assert.throws(() => h3Resolution(-1), /Cast error: Can't cast value -1 to type UInt8/);
  assert.throws(() => h3Resolution(256), /Cast error/);
  assert.throws(() => h3Resolution(16), /invalid resolution \(got Some\(16\)\): out of range/);
});

test('the cells of h3_cells_contains: a list as DuckDB writes it, or comma-separated strings', () => {
  assert.deepEqual(h3Cells('[604189641255419903, 604189643000250367]'), ['86283470fffffff', '862834777ffffff']);
  assert.deepEqual(h3Cells("['86283470fffffff', '862834777ffffff']"), ['86283470fffffff', '862834777ffffff']);
  assert.deepEqual(h3Cells('86283470fffffff,862834777ffffff'), ['86283470fffffff', '862834777ffffff']);
  assert.deepEqual(h3Cells('[]'), []);
});

