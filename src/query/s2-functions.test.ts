import assert from 'node:assert/strict';
import { test } from 'node:test';
import { s2CellLevel, s2CellParent, s2CellToToken, s2LatLngToCell } from './s2-functions.js';

test('S2 cells of GreptimeDB (its sqlness values)', () => {
  const cell = s2LatLngToCell(37.76938, -122.3889);
  assert.equal(cell, 9263763445276221387n);
  assert.equal(s2CellToToken(cell), '808f7fc59ef01fcb');
  assert.equal(s2CellLevel(cell), 30);
  assert.equal(s2CellParent(cell, 3n), 9277415232383221760n);
  assert.equal(s2CellLevel(9277415232383221760n), 3);
  assert.equal(s2CellToToken(9277415232383221760n), '80c');
  assert.throws(() => s2CellParent(cell, 31n), /Execution error: argument out of valid range/);
  assert.throws(() => s2LatLngToCell(91, 0), /The input coordinates are invalid/);
});
