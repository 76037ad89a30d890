import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatOf, render, toJson } from './sql-format.js';

test('toJson writes 64-bit integers exactly, and what JSON.stringify writes otherwise', () => {
  assert.equal(toJson([1, 'a"b', null, true, { k: 2.5 }]), JSON.stringify([1, 'a"b', null, true, { k: 2.5 }]));
  assert.equal(toJson([9007199254740993n, -1n, [2n, 'x'], { big: 18446744073709551615n, skip: undefined }]), '[9007199254740993,-1,[2,"x"],{"big":18446744073709551615}]');
  assert.equal(toJson([Number.NaN, Number.POSITIVE_INFINITY, -0]), '[null,null,0]');
  assert.equal(toJson(undefined), 'null');
});

test('formats: case-insensitive, absent or empty means greptimedb_v1, an unknown name is refused listing the valid ones', () => {
  assert.equal(formatOf('CSVWithNames'), 'csvwithnames');
  assert.equal(formatOf(undefined), 'greptimedb_v1');
  assert.equal(formatOf(''), 'greptimedb_v1');
  assert.throws(() => formatOf('nope'), (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.InvalidArguments);
    assert.equal(err.message, 'Invalid format: nope; valid formats: greptimedb_v1, json, csv, csvWithNames, csvWithNamesAndTypes, table, influxdb_v1, null');
    return true;
  });
  assert.throws(() => formatOf('Arrow'), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.Unsupported && /^Unsupported format: Arrow is not implemented; valid formats: /.test(err.message));
});

test('records and affected rows render per format', () => {
  const records = { kind: 'records' as const, columns: [{ name: 'n', data_type: 'UInt64' }], rows: [[18446744073709551615n]] };
  assert.equal(render('greptimedb_v1', [records, { kind: 'affected', rows: 3 }], 7).body, '{"code":0,"output":[{"records":{"schema":{"column_schemas":[{"name":"n","data_type":"UInt64"}]},"rows":[[18446744073709551615]],"total_rows":1}},{"affectedrows":3}],"execution_time_ms":7}');
  assert.equal(render('json', [records], 1).body, '{"data":[{"n":18446744073709551615}],"execution_time_ms":1}');
  assert.equal(render('csv', [{ kind: 'affected', rows: 2 }], 1).body, '2\n');
});

test('NaN and the infinities: null in the JSON formats (serde_json), NaN/inf/-inf in csv and table (Rust Display)', () => {
  const records = { kind: 'records' as const, columns: [{ name: 'v', data_type: 'Float64' }], rows: [[Number.NaN], [Number.POSITIVE_INFINITY], [Number.NEGATIVE_INFINITY], [1.5], [9007199254740993n]] };
  assert.equal(render('greptimedb_v1', [records], 1).body, '{"code":0,"output":[{"records":{"schema":{"column_schemas":[{"name":"v","data_type":"Float64"}]},"rows":[[null],[null],[null],[1.5],[9007199254740993]],"total_rows":5}}],"execution_time_ms":1}');
  assert.equal(render('json', [records], 1).body, '{"data":[{"v":null},{"v":null},{"v":null},{"v":1.5},{"v":9007199254740993}],"execution_time_ms":1}');
  assert.equal(render('influxdb_v1', [records], 1).body, '{"results":[{"statement_id":0,"series":[{"name":"","columns":["v"],"values":[[null],[null],[null],[1.5],[9007199254740993]]}]}],"execution_time_ms":1}');
  assert.equal(render('csv', [records], 1).body, 'NaN\r\ninf\r\n-inf\r\n1.5\r\n9007199254740993\r\n');
  assert.match(render('table', [records], 1).body, /│ NaN +│\n│ inf +│\n│ -inf +│\n/);
});
