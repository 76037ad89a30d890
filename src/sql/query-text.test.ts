import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { blobLiteral, bridgeQueryText } from './query-text.js';

test('backtick identifiers become double-quoted; strings and comments are left alone', () => {
  assert.equal(bridgeQueryText('SELECT `host`, `we"ird` FROM `cpu`'), 'SELECT "host", "we""ird" FROM "cpu"');
  assert.equal(bridgeQueryText("SELECT '`x`' -- `y`\nFROM t"), "SELECT '`x`' -- `y`\nFROM t");
});

test('LIMIT offset, count becomes LIMIT count OFFSET offset', () => {
  assert.equal(bridgeQueryText('SELECT * FROM t ORDER BY a LIMIT 10, 5'), 'SELECT * FROM t ORDER BY a LIMIT 5 OFFSET 10');
  assert.equal(bridgeQueryText('SELECT * FROM t LIMIT 5'), 'SELECT * FROM t LIMIT 5');
  assert.equal(bridgeQueryText("SELECT 'LIMIT 1, 2'"), "SELECT 'LIMIT 1, 2'");
});

test('text that does not tokenize goes to DuckDB unchanged', () => {
  assert.equal(bridgeQueryText("SELECT 'open"), "SELECT 'open");
});

test("hex literals become DuckDB BLOB literals (DuckDB reads X'00ff' as the text 'x00ff' and 0x00ff as 0 AS x00ff)", () => {
  assert.equal(blobLiteral('00fF'), "'\\x00\\xFF'::BLOB");
  assert.equal(blobLiteral(''), "''::BLOB");
  assert.equal(bridgeQueryText("SELECT * FROM t WHERE b = X'00ff' OR b IN (x'', 0x41) AND s = 'X''00'''"), "SELECT * FROM t WHERE b = '\\x00\\xFF'::BLOB OR b IN (''::BLOB, '\\x41'::BLOB) AND s = 'X''00'''");
  assert.throws(() => bridgeQueryText("SELECT X'0g'"), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidSyntax);
});

test("MySQL's signed INTERVAL count (INTERVAL -3 HOUR) is parenthesized for DuckDB", () => {
  assert.equal(bridgeQueryText('SELECT now() + INTERVAL -3 HOUR, date_add(ts, interval +1 day), INTERVAL 5 MINUTE'), 'SELECT now() + INTERVAL (-3) HOUR, date_add(ts, interval (+1) day), INTERVAL 5 MINUTE');
  assert.equal(bridgeQueryText("SELECT 'INTERVAL -3 HOUR', INTERVAL '-3 hours'"), "SELECT 'INTERVAL -3 HOUR', INTERVAL '-3 hours'");
});

test("a number beyond DOUBLE's range is InvalidArguments at its position (DuckDB would make it an Infinity it cannot serialize)", () => {
  const outOfRange = (text: string, l: number, c: number) => (e: unknown) => {
    assert.ok(e instanceof TsdbError);
    assert.equal(e.code, StatusCode.InvalidArguments);
    assert.equal(e.message, `Number out of range: ${text} is beyond DOUBLE's range (±1.7976931348623157e308) at Line: ${l}, Column: ${c}`);
    return true;
  };
  assert.throws(() => bridgeQueryText('SELECT 1e309'), outOfRange('1e309', 1, 8));
  assert.throws(() => bridgeQueryText('SELECT a\nFROM t WHERE v > -1.5e400'), outOfRange('1.5e400', 2, 19));
  assert.throws(() => bridgeQueryText(`SELECT ${'9'.repeat(400)}`), outOfRange(`${'9'.repeat(20)}…(400 characters)`, 1, 8));
  // In range, tiny, or in a string: unchanged.
  for (const sql of ['SELECT 1.7976931348623157e308, 1e-400, 99999999999999999999999999999999999999', "SELECT '1e309'", 'SELECT "1e309" FROM t']) assert.equal(bridgeQueryText(sql), sql);
});

test("MySQL's integer DIV becomes DuckDB's //; a column named div stays a column", () => {
  assert.equal(bridgeQueryText('SELECT UNIX_TIMESTAMP(ts) DIV 60 * 60, a div b, (x) DIV (y) FROM t'), 'SELECT UNIX_TIMESTAMP(ts) // 60 * 60, a // b, (x) // (y) FROM t');
  assert.equal(bridgeQueryText('SELECT div FROM t WHERE div > 1 GROUP BY div'), 'SELECT div FROM t WHERE div > 1 GROUP BY div');
  assert.equal(bridgeQueryText("SELECT 'a DIV b', t.div AS div FROM t"), "SELECT 'a DIV b', t.div AS div FROM t");
});

test('isnull(…) is quoted to be the function (ISNULL is a postfix keyword in DuckDB)', () => {
  assert.equal(bridgeQueryText('SELECT ISNULL(a), a ISNULL FROM t'), 'SELECT "isnull"(a), a ISNULL FROM t');
});

test('system variables become a call the session answers; the @@ operator between operands stays', () => {
  assert.equal(bridgeQueryText('SELECT @@version, @@SESSION.time_zone AS tz'), "SELECT __tsdb_variable('@@version'), __tsdb_variable('@@SESSION.time_zone') AS tz");
  assert.equal(bridgeQueryText("SELECT 'cat!' @@ 'cat', a @@ b FROM t"), "SELECT 'cat!' @@ 'cat', a @@ b FROM t");
});

test('approx_percentile_cont(p) WITHIN GROUP (ORDER BY x) becomes the call form; DESC reads 1 - p', () => {
  assert.equal(bridgeQueryText('SELECT approx_percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FROM t'), 'SELECT __tsdb_approx_percentile_cont_within_group(i, 0.5) FROM t');
  assert.equal(bridgeQueryText('SELECT g, APPROX_PERCENTILE_CONT(0.25) within group (order by (a + b) DESC NULLS FIRST) AS q FROM t GROUP BY g'), 'SELECT g, __tsdb_approx_percentile_cont_within_group_desc((a + b), 0.25) AS q FROM t GROUP BY g');
  assert.equal(bridgeQueryText('SELECT approx_percentile_cont(x, 0.5) FROM t'), 'SELECT approx_percentile_cont(x, 0.5) FROM t');
});

test('approx_percentile_cont_with_weight(w, p) WITHIN GROUP (ORDER BY x) becomes (x, w, p)', () => {
  assert.equal(bridgeQueryText('SELECT approx_percentile_cont_with_weight(weight, 0.5) WITHIN GROUP (ORDER BY "value") FROM t'), 'SELECT __tsdb_approx_percentile_cont_with_weight_within_group("value", weight, 0.5) FROM t');
  assert.equal(bridgeQueryText('SELECT approx_percentile_cont_with_weight(f(a, b), 0.1) WITHIN GROUP (ORDER BY v DESC) FROM t'), 'SELECT __tsdb_approx_percentile_cont_with_weight_within_group_desc(v, f(a, b), 0.1) FROM t');
});
