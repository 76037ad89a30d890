import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bridgeQueryText } from './query-text.js';

test("cast types GreptimeDB reads and DuckDB lacks or reads otherwise are spelled for DuckDB", () => {
  assert.equal(bridgeQueryText("SELECT '2023-01-01'::TimestampSecond"), "SELECT '2023-01-01'::TIMESTAMP_S");
  assert.equal(bridgeQueryText('SELECT CAST(x AS float64), TRY_CAST(y AS TIMESTAMP_SEC) FROM t'), 'SELECT CAST(x AS DOUBLE), TRY_CAST(y AS TIMESTAMP_S) FROM t');
  assert.equal(bridgeQueryText("SELECT '1'::DECIMAL, '1'::numeric(5, 1)"), "SELECT '1'::DECIMAL(38, 10), '1'::numeric(5, 1)");
  assert.equal(bridgeQueryText("SELECT 'x'::timestamp, 'x'::TIMESTAMP(9), 'x'::TIMESTAMP WITH TIME ZONE"), "SELECT 'x'::TIMESTAMP_MS, 'x'::TIMESTAMP(9), 'x'::TIMESTAMP WITH TIME ZONE");
  assert.equal(bridgeQueryText("SELECT '12:00'::TIME, CAST(300 AS TINYINT UNSIGNED)"), "SELECT '12:00'::TIME_NS, CAST(300 AS UTINYINT)");
});

test('names outside type positions stay as written', () => {
  for (const sql of ['SELECT 1 AS float64, ts AS timestamp FROM t', "SELECT TIMESTAMP '2024-01-01 00:00:00'", 'SELECT decimal, "TIMESTAMP_SEC" FROM t', "SELECT CAST(f(x AS y) AS INT), 'a::float64'"]) {
    assert.equal(bridgeQueryText(sql), sql);
  }
  assert.equal(bridgeQueryText('SELECT CAST(CAST(x AS float32) AS float64) AS float64'), 'SELECT CAST(CAST(x AS FLOAT) AS DOUBLE) AS float64');
});
