import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parameterMark } from '../../sql/parameter-marks.js';
import { bindParameters, literalOf, parameterCount } from './bind.js';

test('$n outside strings, quoted names and comments become literals of the bound values', () => {
  const sql = `SELECT $1, '$2', "$3", $2 -- $9\n/* $9 */ FROM t WHERE a = $10`;
  assert.equal(parameterCount(sql), 10);
  const values = ['o\'k', 2n, null, null, null, null, null, null, null, true];
  const [m1, m2, m10] = [parameterMark(1), parameterMark(2), parameterMark(10)];
  // In a query, each value is marked as its parameter's (the result columns made of it are named so).
  assert.equal(bindParameters(sql, values), `SELECT ${m1}'o''k', '$2', "$3", ${m2}2 -- $9\n/* $9 */ FROM t WHERE a = ${m10}TRUE`);
  assert.equal(bindParameters(`DELETE FROM t WHERE a = $1`, values), `DELETE FROM t WHERE a = 'o''k'`);
  assert.throws(() => bindParameters('SELECT $3', [1, 2]), /supplies 2 parameters, but the statement uses \$3/);
  assert.deepEqual([null, false, 1.5, -0, -3n, Buffer.from([0x78, 0x00, 0xff])].map(literalOf), ['NULL', 'FALSE', '1.5', '-0.0', '-3', "from_hex('7800ff')"]);
  assert.equal(literalOf(Number.NaN), "'NaN'::DOUBLE");
});
