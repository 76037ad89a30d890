import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeNumericBinary, encodeBinary, encodeText, pgTypeOf } from './types.js';
import { pgColumnType } from '../../catalog/pg-catalog.js';
import { textCell } from '../mysql/resultset.js';

test('DECIMAL cells: numeric over PostgreSQL (text, binary; typmod of precision and scale), text over MySQL', () => {
  assert.equal(pgTypeOf('Decimal(10, 2)').oid, 1700);
  assert.deepEqual(pgColumnType('Decimal(10, 2)'), { oid: 1700, typmod: (10 << 16) + 2 + 4 });
  assert.equal(encodeText('Decimal(10, 2)', '-1.50'), '-1.50');
  assert.equal(decodeNumericBinary(encodeBinary('Decimal(10, 2)', '-1.50')!), '-1.50');
  assert.equal(textCell('12345678.91', 'Decimal(10, 2)', 'UTC')!.toString(), '12345678.91');
});

test('interval cells (Arrow display text) as PostgreSQL intervals and MySQL ISO 8601', () => {
  const shown = '14 mons 3 days 4 hours 5 mins 6.500000000 secs';
  assert.equal(encodeText('IntervalMonthDayNano', shown), '1 year 2 mons 3 days 04:05:06.5');
  const b = encodeBinary('IntervalMonthDayNano', shown)!;
  assert.deepEqual([b.readBigInt64BE(0), b.readInt32BE(8), b.readInt32BE(12)], [14_706_500_000n, 3, 14]);
  assert.equal(encodeText('IntervalMonthDayNano', '-1 hours -5 mins'), '-01:05:00');
  assert.equal(textCell(shown, 'IntervalMonthDayNano', 'UTC')!.toString(), 'P1Y2M3DT4H5M6.5S');
  assert.equal(textCell('', 'IntervalMonthDayNano', 'UTC')!.toString(), 'PT0S');
});

test('TIME cells (integers of their unit) as times of day', () => {
  assert.equal(encodeText('TimeNanosecond', 45_296_789_000_000), '12:34:56.789');
  assert.equal(encodeBinary('TimeMicrosecond', 45_296_000_000)!.readBigInt64BE(0), 45_296_000_000n);
  assert.equal(textCell(45_296_789_000_000, 'TimeNanosecond', 'UTC')!.toString(), '12:34:56.789');
});
