import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bridgeQueryText } from './query-text.js';

test('backtick identifiers become double-quoted; strings and comments are left alone', () => {
  assert.equal(bridgeQueryText('SELECT `host`, `we"ird` FROM `cpu`'), 'SELECT "host", "we""ird" FROM "cpu"');
  assert.equal(bridgeQueryText("SELECT '`x`' -- `y`\nFROM t"), "SELECT '`x`' -- `y`\nFROM t");
});

test('LIMIT offset, count becomes LIMIT count OFFSET offset', () => {
  assert.equal(bridgeQueryText('SELECT * FROM t ORDER BY a LIMIT 10, 5'), 'SELECT * FROM t ORDER BY a LIMIT 5 OFFSET 10');
  assert.equal(bridgeQueryText('SELECT * FROM t LIMIT 5'), 'SELECT * FROM t LIMIT 5');
  assert.equal(bridgeQueryText("SELECT 'LIMIT 1, 2'"), "SELECT 'LIMIT 1, 2'");
});

test('text that does not tokenize goes to DuckDB unchanged', () => {
  assert.equal(bridgeQueryText("SELECT 'open"), "SELECT 'open");
});
