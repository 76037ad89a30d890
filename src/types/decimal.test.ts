import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decimalText } from './decimal.js';
import { decimalOf, decimalType, isColumnType } from './region-metadata.js';
import { vectorTypeOf } from './write-batch.js';

test('numeric literals become canonical text at the scale, rounded half away from zero', () => {
  assert.equal(decimalText('1.5', 10, 2), '1.50');
  assert.equal(decimalText('123456.987654431', 20, 0), '123457');
  assert.equal(decimalText('-0.005', 10, 2), '-0.01');
  assert.equal(decimalText('-0.004', 10, 2), '0.00');
  assert.equal(decimalText('1e3', 10, 2), '1000.00');
  assert.equal(decimalText('.5', 3, 1), '0.5');
  assert.equal(decimalText(' -12.345 ', 10, 3), '-12.345');
  assert.equal(decimalText('0.999', 3, 3), '0.999');
});

test('digits beyond the precision overflow; text that is not a number is refused', () => {
  assert.equal(decimalText('99.999', 4, 2), 'overflow');
  assert.equal(decimalText('1', 3, 3), 'overflow');
  assert.equal(decimalText('0.9995', 3, 3), 'overflow');
  assert.equal(decimalText('1e1000000', 38, 0), 'overflow');
  assert.equal(decimalText('abc', 4, 2), undefined);
  assert.equal(decimalText('', 4, 2), undefined);
  assert.equal(decimalText('.', 4, 2), undefined);
});

test('DECIMAL column types: spelled as clients see them, carried as strings', () => {
  assert.equal(decimalType(10, 2), 'Decimal(10, 2)');
  assert.deepEqual(decimalOf('Decimal(38, 10)'), { precision: 38, scale: 10 });
  assert.equal(decimalOf('Date'), undefined);
  assert.equal(decimalOf('Float64'), undefined);
  assert.ok(isColumnType('Decimal(10, 2)') && isColumnType('Int64'));
  for (const bad of ['Decimal(39, 2)', 'Decimal(5, 6)', 'Decimal(0, 0)', 'Decimal(05, 1)', 'Decimal(10,2)', 'Decimal']) assert.ok(!isColumnType(bad), bad);
  assert.equal(vectorTypeOf('Decimal(10, 2)'), 'string');
  assert.equal(vectorTypeOf('Date'), 'float64');
});
