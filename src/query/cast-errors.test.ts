import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { duckdbError } from './duckdb-error.js';

const failed = (duckdb: string) => {
  const e = duckdbError(new Error(duckdb));
  return [e.code, e.message];
};

test("failed casts are 3001 with Arrow's texts, as GreptimeDB reports them", () => {
  const cases: Array<[string, string]> = [
    ["Conversion Error: Could not convert string 'abc' to INT32", "Cast error: Cannot cast string 'abc' to value of Int32 type"],
    ["Conversion Error: Could not convert string 'a' to INT32 when casting from source column host", "Cast error: Cannot cast string 'a' to value of Int32 type"],
    ['Conversion Error: Could not convert string "x" to DECIMAL(10,2)', "Cast error: Cannot cast string 'x' to value of Decimal128(10, 2) type"],
    ["Conversion Error: Type INT32 with value 200 can't be cast because the value is out of range for the destination type INT8", "Cast error: Can't cast value 200 to type Int8"],
    ["Conversion Error: Type DOUBLE with value -inf can't be cast because the value is out of range for the destination type INT32", "Cast error: Can't cast value -inf to type Int32"],
    ["Conversion Error: Type FLOAT with value nan can't be cast because the value is out of range for the destination type INT32", "Cast error: Can't cast value NaN to type Int32"],
    ['Conversion Error: Failed to cast decimal value 128 to type INT8', 'Cast error: value of 128 is out of range Int8'],
    ['Conversion Error: Could not cast value 100 to DECIMAL(3,1)', 'Invalid argument error: 100.0 is too large to store in a Decimal128 of precision 3. Max is 99.9'],
    ['Conversion Error: Could not cast value 1 to DECIMAL(3,3)', 'Invalid argument error: 1.000 is too large to store in a Decimal128 of precision 3. Max is 0.999'],
    ['Conversion Error: Could not cast value 100.000000 to DECIMAL(38,37)', 'Cast error: Cannot cast to Decimal128(38, 37). Overflowing on 100.0'],
    ['Conversion Error: Could not cast value nan to DECIMAL(4,1)', 'Cast error: Cannot cast to Decimal128(4, 1). Overflowing on NaN'],
    // An integer scaled beyond 128 bits; a float within them (scaled and rounded as a double).
    ['Conversion Error: Could not cast value 100 to DECIMAL(38,37)', 'Arithmetic overflow: Overflow happened on: 100 * 10000000000000000000000000000000000000'],
    ['Conversion Error: Could not cast value 10000000.0 to DECIMAL(3,1)', 'Invalid argument error: 10000000.0 is too large to store in a Decimal128 of precision 3. Max is 99.9'],
    ['Conversion Error: Could not cast value 1.7014118346046924e+37 to DECIMAL(4,0)', 'Invalid argument error: 17014118346046924117642026945517453312 is too large to store in a Decimal128 of precision 4. Max is 9999'],
    ['Conversion Error: date field value out of range: "2024-13-01"', "Cast error: Cannot cast string '2024-13-01' to value of Date32 type"],
    ['Conversion Error: time field value out of range: "abc", expected format is ([YYYY-MM-DD ]HH:MM:SS[.MS])', "Cast error: Cannot cast string 'abc' to value of Time64(ns) type"],
    // A streamed result's failure comes without its kind.
    ["Could not convert string 'two' to INT32 when casting from source column s", "Cast error: Cannot cast string 'two' to value of Int32 type"],
  ];
  for (const [duckdb, greptime] of cases) assert.deepEqual(failed(duckdb), [StatusCode.EngineExecuteQuery, greptime], duckdb);
});

test('other conversion failures keep their text, as 3001', () => {
  assert.deepEqual(failed('Conversion Error: something new'), [StatusCode.EngineExecuteQuery, 'something new']);
  assert.deepEqual(failed('Out of Range Error: Overflow in multiplication'), [StatusCode.InvalidArguments, 'Overflow in multiplication']);
});
