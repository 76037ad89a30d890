import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statementKind } from './server-metrics.js';

test('statementKind: the first keyword of a fixed list, after blanks, comments and parentheses; else other', () => {
  assert.equal(statementKind('SELECT 1'), 'select');
  assert.equal(statementKind('  \n\tinsert into t values (1)'), 'insert');
  assert.equal(statementKind('-- a comment\n/* another */ (SELECT 1) UNION (SELECT 2)'), 'select');
  assert.equal(statementKind('SHOW TABLES'), 'show');
  assert.equal(statementKind('TQL EVAL (0, 10, 5) up'), 'tql');
  assert.equal(statementKind('Describe t'), 'describe');
  // Unbounded words are never labels.
  assert.equal(statementKind('frobnicate the table'), 'other');
  assert.equal(statementKind('select_me'), 'other');
  assert.equal(statementKind(''), 'other');
  assert.equal(statementKind('/* never closed'), 'other');
  assert.equal(statementKind('-- only a comment'), 'other');
  assert.equal(statementKind(`${' '.repeat(300)}SELECT 1`), 'other');
});
