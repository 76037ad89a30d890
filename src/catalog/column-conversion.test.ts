import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canModifyColumnType } from './column-conversion.js';

test("MODIFY COLUMN follows Arrow's castable pairs that DuckDB casts too", () => {
  for (const [from, to] of [
    ['Int32', 'String'],
    ['String', 'Int32'],
    ['String', 'Date'],
    ['Float64', 'Int8'],
    ['Int64', 'Decimal(10, 2)'],
    ['Decimal(10, 2)', 'Float64'],
    ['Boolean', 'Int32'],
    ['Float32', 'Boolean'],
    ['TimestampMillisecond', 'Date'],
    ['Date', 'TimestampSecond'],
    ['Binary', 'Binary'],
  ] as const) {
    assert.ok(canModifyColumnType(from, to), `${from} → ${to}`);
  }
  for (const [from, to] of [
    ['Boolean', 'Date'],
    ['Binary', 'Int32'],
    ['Binary', 'String'],
    ['Decimal(10, 2)', 'Boolean'],
    ['Boolean', 'Decimal(10, 2)'],
    ['TimestampMillisecond', 'Int64'],
    ['Int64', 'TimestampMillisecond'],
  ] as const) {
    assert.ok(!canModifyColumnType(from, to), `${from} → ${to}`);
  }
});
