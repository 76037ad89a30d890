import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tablesOfColumns, tablesOfRows } from './row-decoder.js';

const ts = { column_name: 'ts', datatype: 16, semantic_type: 2 };

test('row requests for one table are merged: columns a part lacks are NULL in its rows', () => {
  const [t, ...rest] = tablesOfRows([
    { table_name: 'm', rows: { schema: [ts, { column_name: 'a', datatype: 10, semantic_type: 1 }], rows: [{ values: [{ value_data: 'timestamp_millisecond_value', timestamp_millisecond_value: '1' }, { value_data: 'f64_value', f64_value: 1.5 }] }] } },
    { table_name: 'other', rows: { schema: [ts], rows: [] } },
    { table_name: 'm', rows: { schema: [{ column_name: 'b', datatype: 12, semantic_type: 0 }, ts], rows: [{ values: [{ value_data: 'string_value', string_value: 'x' }, { value_data: 'timestamp_millisecond_value', timestamp_millisecond_value: '2' }] }] } },
  ]);
  assert.equal(rest.length, 1);
  assert.equal(t!.rowCount, 2);
  const byName = Object.fromEntries(t!.columns.map((c) => [c.name, c]));
  assert.deepEqual([...(byName['ts']!.vector.data as BigInt64Array)], [1n, 2n]);
  assert.deepEqual([...(byName['a']!.vector.data as Float64Array)], [1.5, 0]);
  assert.deepEqual([...(byName['a']!.vector as { valid: Uint8Array }).valid], [1, 0]);
  assert.deepEqual(byName['b']!.vector.data, [null, 'x']);
  assert.equal(byName['b']!.semantic, 'tag');
});

test('a column given with two types or kinds, a duplicate column, an out-of-range u8 and a bad semantic are refused', () => {
  const v = (member: string, value: unknown) => ({ value_data: member, [member]: value });
  const cases: Array<[() => unknown, RegExp]> = [
    [() => tablesOfRows([
      { table_name: 'm', rows: { schema: [ts, { column_name: 'a', datatype: 10, semantic_type: 1 }], rows: [] } },
      { table_name: 'm', rows: { schema: [ts, { column_name: 'a', datatype: 4, semantic_type: 1 }], rows: [] } },
    ]), /column a is given as FLOAT64 field and as INT64 field/],
    [() => tablesOfRows([{ table_name: 'm', rows: { schema: [ts, ts], rows: [] } }]), /column ts is given twice/],
    [() => tablesOfRows([{ table_name: 'm', rows: { schema: [ts, { column_name: 'u', datatype: 5, semantic_type: 1 }], rows: [{ values: [v('timestamp_millisecond_value', '1'), v('u8_value', 256)] }] } }]), /256 is out of range \[0, 255\]/],
    [() => tablesOfRows([{ table_name: 'm', rows: { schema: [{ ...ts, semantic_type: 7 }], rows: [] } }]), /unknown semantic type 7/],
    [() => tablesOfColumns([{ table_name: 'm', row_count: 1, columns: [{ column_name: 'ts', semantic_type: 2, datatype: 16, values: { timestamp_millisecond_values: ['1'], string_values: ['x'] } }] }]), /given: string_values/],
  ];
  for (const [run, message] of cases) assert.throws(run, message);
});

test('column requests: NULLs from the mask, bits least significant first across bytes', () => {
  const rows = 10;
  const mask = Buffer.from([0b1000_0001, 0b10]); // rows 0, 7 and 9 are NULL
  const [t] = tablesOfColumns([{
    table_name: 'c',
    row_count: rows,
    columns: [
      { column_name: 'ts', semantic_type: 2, datatype: 15, values: { timestamp_second_values: Array.from({ length: rows }, (_, i) => String(i)) } },
      { column_name: 's', semantic_type: 1, datatype: 12, values: { string_values: ['1', '2', '3', '4', '5', '6', '8'] }, null_mask: mask },
    ],
  }]);
  assert.deepEqual(t!.columns[1]!.vector.data, [null, '1', '2', '3', '4', '5', '6', null, '8', null]);
});
