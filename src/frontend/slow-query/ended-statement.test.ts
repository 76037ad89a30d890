import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parameterMark } from '../../sql/parameter-marks.js';
import { newSession } from '../session.js';
import { endedSql } from './ended-statement.js';

test("a slow bound prepared query is recorded without its values' parameter marks", () => {
  const text = `SELECT ${parameterMark(1)}'a' AS x`;
  const ended = endedSql({ kind: 'query', sql: text, text }, newSession(), undefined);
  assert.equal(ended.query, "SELECT 'a' AS x");
});
