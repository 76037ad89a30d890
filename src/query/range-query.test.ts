/**
 * Tests of parseRangeQuery on broken input: a range query cut short or with a piece missing is an
 * InvalidSyntax error that says what was expected, never a TypeError from running off the tokens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { tokenize } from '../sql/lexer.js';
import { parseRangeQuery } from './range-query.js';

function syntaxError(message: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.InvalidSyntax);
    assert.equal(err.message, `Invalid SQL syntax: sql parser error: ${message}`);
    return true;
  };
}

test('a BY list cut short is "Expected: ) closing BY (, found: EOF"', () => {
  for (const sql of ["SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h", "SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h, (d)", "SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY ("]) {
    assert.throws(() => parseRangeQuery(sql), syntaxError('Expected: ) closing BY (, found: EOF'), sql);
  }
  assert.deepEqual(parseRangeQuery("SELECT ts, avg(v) RANGE '5m' FROM t ALIGN '1m' BY (h, lower(d)) ORDER BY h")?.by, ['h', 'lower(d)']);
});

test('an empty select item is "Expected: an expression" at the comma or FROM', () => {
  assert.throws(() => parseRangeQuery("SELECT , h, min(v) RANGE '5s' FROM t ALIGN '5s'"), syntaxError('Expected: an expression, found: , at Line: 1, Column: 8'));
  assert.throws(() => parseRangeQuery("SELECT h, min(v) RANGE '5s', FROM t ALIGN '5s'"), syntaxError('Expected: an expression, found: FROM at Line: 1, Column: 30'));
  assert.throws(() => parseRangeQuery("SELECT h,, min(v) RANGE '5s' FROM t ALIGN '5s'"), syntaxError('Expected: an expression, found: , at Line: 1, Column: 10'));
});

test('every prefix and every one-token deletion of range queries is a query, not one, or an InvalidSyntax error', () => {
  const queries = [
    "SELECT ts, host, min(val) RANGE '10s' FILL PREV AS lo, max(val) RANGE (INTERVAL '1' minute) FROM public.host WHERE host = 'a' ALIGN '5s' TO '2024-01-01T00:00:00Z' BY (host, lower(host)) FILL LINEAR ORDER BY host, ts LIMIT 10",
    "SELECT ts, avg(v) RANGE '5m' FILL -1.5 FROM t ALIGN '1m' TO NOW BY () FILL NULL",
  ];
  let errors = 0;
  for (const full of queries) {
    const variants: string[] = [];
    for (let i = 0; i <= full.length; i++) variants.push(full.slice(0, i));
    const tokens = tokenize(full).slice(0, -1);
    for (const t of tokens) variants.push(full.slice(0, t.start) + full.slice(t.end));
    for (const sql of variants) {
      try {
        parseRangeQuery(sql);
      } catch (err) {
        errors++;
        assert.ok(err instanceof TsdbError, `TsdbError for ${JSON.stringify(sql)}: ${String(err)}`);
        assert.equal(err.code, StatusCode.InvalidSyntax, `${JSON.stringify(sql)}: ${err.message}`);
      }
    }
  }
  assert.ok(errors > 0);
});
