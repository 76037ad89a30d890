import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markedParameter, marksParameters, parameterMark, withoutParameterMarks } from './parameter-marks.js';

test('a mark names its parameter when it ends the text before a value', () => {
  assert.equal(markedParameter(`SELECT ${parameterMark(12)}`), 12);
  assert.equal(markedParameter(`SELECT ${parameterMark(1)}5 + `), undefined);
  assert.equal(markedParameter('SELECT /*tsdb_param_000000000000:1*/'), undefined);
  assert.equal(markedParameter('SELECT '), undefined);
});

test('only queries are marked: SELECT, WITH, VALUES after comments and parentheses', () => {
  for (const sql of ['SELECT ?', ' (( select 1', 'WITH x AS (SELECT 1) SELECT ?', 'values (?)', '-- c\n/* d */ SELECT ?', '# c\nSELECT ?']) assert.equal(marksParameters(sql), true, sql);
  for (const sql of ['INSERT INTO t VALUES (?)', 'DELETE FROM t WHERE a = ?', 'selected', '/* open', 'EXPLAIN SELECT ?', '']) assert.equal(marksParameters(sql), false, sql);
});

test('the text shown of a bound query has no marks', () => {
  assert.equal(withoutParameterMarks(`SELECT ${parameterMark(1)}5 + ${parameterMark(2)}'x' /* c */`), "SELECT 5 + 'x' /* c */");
});
