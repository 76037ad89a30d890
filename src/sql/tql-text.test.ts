/**
 * Tests of TQL parsing (reference api.md §4.6, GreptimeDB's tql_parser.rs cases): every form of
 * `TQL EVAL|EXPLAIN|ANALYZE`, parameters, the PromQL as one raw token (strings with `;`, escapes,
 * comments), aliases, TQL CTEs with their spans, and the errors with GreptimeDB's codes and words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Statement, TqlQuery } from './ast.js';
import { parseSql } from './parser.js';
import { promqlEnd, splitAlias } from './tql-text.js';

function tql(sql: string): TqlQuery & { text: string } {
  const stmts = parseSql(sql);
  assert.equal(stmts.length, 1, sql);
  const s = stmts[0]!;
  assert.equal(s.kind, 'tql', sql);
  return s as Extract<Statement, { kind: 'tql' }>;
}

function fails(sql: string, code: StatusCode, message: string): void {
  assert.throws(
    () => parseSql(sql),
    (err: unknown) => {
      assert.ok(err instanceof TsdbError, `TsdbError for ${sql}`);
      assert.equal(err.message, message, sql);
      assert.equal(err.code, code, sql);
      return true;
    },
  );
}

const SELECTOR = "http_requests_total{environment=~'staging|testing|development',method!='GET'} @ 1609746000 offset 5m";

test('TQL EVAL with numbers, strings and SQL expressions as parameters', () => {
  const a = tql(`TQL EVAL (1676887657, 1676887659, '1m') ${SELECTOR}`);
  assert.deepEqual(a.params, { start: { kind: 'number', text: '1676887657' }, end: { kind: 'number', text: '1676887659' }, step: { kind: 'string', value: '1m' } });
  assert.equal(a.query, SELECTOR);
  assert.equal(a.mode, 'eval');
  const b = tql(`tql evaluate (1676887657.1, 1676887659.5, 30.3) ${SELECTOR};`);
  assert.deepEqual(b.params?.step, { kind: 'number', text: '30.3' });
  assert.equal(b.query, SELECTOR);
  const c = tql(`TQL EVAL ('2015-07-01T20:10:30.781Z', now() - interval '5' minute, '30s', '7m') up`);
  assert.deepEqual(c.params, { start: { kind: 'string', value: '2015-07-01T20:10:30.781Z' }, end: { kind: 'sql', text: "now() - interval '5' minute" }, step: { kind: 'string', value: '30s' }, lookback: { kind: 'string', value: '7m' } });
  const d = tql("TQL EVAL (-1, +2, 1) up");
  assert.deepEqual([d.params?.start, d.params?.end], [{ kind: 'number', text: '-1' }, { kind: 'number', text: '+2' }]);
});

test('TQL without parameters; commas before the query; queries starting with a quote, a number, a bracket, a brace', () => {
  assert.equal(tql('TQL EVAL up').params, undefined);
  assert.equal(tql("TQL EVAL (0, 30, '10s')           ,       data + (1 < bool 2);").query, 'data + (1 < bool 2)');
  assert.equal(tql("TQL EVAL (0, 10, '5s') '1+1';").query, "'1+1'");
  assert.equal(tql("TQL EVAL (300, 300, '1s') 10 atan2 20;").query, '10 atan2 20');
  assert.equal(tql("TQL EVAL (0, 30, '10s') (sum by(host) (irate(x{mode!='idle'}[1m0s]))) * 100;").query, "(sum by(host) (irate(x{mode!='idle'}[1m0s]))) * 100");
  assert.equal(tql('TQL EVAL (0, 10, \'5s\') {__name__="test"}').query, '{__name__="test"}');
});

test('the PromQL is not read as SQL: `;` in strings, backslash escapes, raw strings, # comments', () => {
  const stmts = parseSql("TQL EVAL (0, 10, '5s') x{a=\"x;y\\\"z\", b='it\\'s', c=`a\\`} # a comment; with 'quotes\n + 1; SELECT 1");
  assert.equal(stmts.length, 2);
  assert.equal((stmts[0] as TqlQuery).query, "x{a=\"x;y\\\"z\", b='it\\'s', c=`a\\`} # a comment; with 'quotes\n + 1");
  assert.equal(stmts[1]!.kind, 'query');
  // An unterminated PromQL string runs to the end: the PromQL parser reports it, not the SQL lexer.
  assert.equal(tql("TQL EVAL (0, 10, '5s') x{a=\"unterminated; SELECT 1").query, 'x{a="unterminated; SELECT 1');
  assert.equal(promqlEnd('a) b', 0, true), 1);
  assert.equal(promqlEnd('f(a) )', 0, true), 4);
  assert.equal(promqlEnd('f(a) ) ; x', 0, false), 6);
});

test('TQL EXPLAIN and ANALYZE with VERBOSE and FORMAT', () => {
  const e = tql(`TQL EXPLAIN (20, 100, 10, '3m') ${SELECTOR}`);
  assert.deepEqual([e.mode, e.verbose, e.format, e.params?.lookback], ['explain', false, undefined, { kind: 'string', value: '3m' }]);
  const v = tql('TQL EXPLAIN VERBOSE FORMAT JSON (0, 50, \'5s\') disk_io_rate AS disk_metrics');
  assert.deepEqual([v.mode, v.verbose, v.format, v.query, v.alias], ['explain', true, 'json', 'disk_io_rate', 'disk_metrics']);
  assert.equal(tql('TQL EXPLAIN FORMAT GRAPHVIZ http_requests_total').format, 'graphviz');
  assert.equal(tql('TQL EXPLAIN FORMAT NOPE http_requests_total').format, undefined);
  const a = tql("TQL ANALYZE VERBOSE ('1970-01-01T00:05:00'::timestamp, '1970-01-01T00:10:00'::timestamp + '10 minutes'::interval, 10) up");
  assert.deepEqual([a.mode, a.verbose, a.params?.start], ['analyze', true, { kind: 'sql', text: "'1970-01-01T00:05:00'::timestamp" }]);
});

test('AS alias: the first top-level AS; bare or quoted; words inside brackets are not aliases', () => {
  assert.deepEqual(splitAlias('x AS y'), { query: 'x', alias: 'y' });
  assert.deepEqual(splitAlias('sum by (as) (x) as "My Col"'), { query: 'sum by (as) (x)', alias: 'My Col' });
  assert.deepEqual(splitAlias('x{a="b AS c"}'), { query: 'x{a="b AS c"}' });
  const t = tql("TQL EVAL (0, 100, '30s', '5m') cpu_usage_total AS cpu_metrics");
  assert.deepEqual([t.query, t.alias], ['cpu_usage_total', 'cpu_metrics']);
});

test('TQL syntax errors as GreptimeDB gives them', () => {
  const e = (m: string) => `Invalid TQL syntax: sql parser error: ${m}`;
  fails("TQL EVAL (1676887657, 1676887659, 1m) x", StatusCode.InvalidSyntax, e("Expected ')' after TQL parameters, but found: m"));
  fails("TQL EVAL (1676887657, '1m') x", StatusCode.InvalidSyntax, e('Expected 3 or 4 expressions in TQL parameters (start, end, step, [lookback]), but found 2'));
  fails("TQL EVAL (0, 10, '5s')", StatusCode.InvalidSyntax, e('empty TQL query'));
  fails("TQL EVAL (0, 10, '5s') test AS", StatusCode.InvalidSyntax, e('Expected: identifier, found: EOF'));
  fails("TQL EVAL (0, 10, '5s') test AS alias extra_token", StatusCode.InvalidSyntax, e('Unexpected token after alias: extra_token'));
  fails("TQL EVAL (0, 10, '5s') AS alias", StatusCode.InvalidSyntax, e('Empty promql query'));
  fails("TQL EVAL ((1; 2), 0, '5s') x", StatusCode.InvalidSyntax, e('Expected: an expression, found: ; at Line: 1, Column: 13'));
  fails("TQL EVAL (NULL, 0, '5s') x", StatusCode.InvalidSyntax, e('Expected number, string or word, but have NULL'));
  fails('TQL FOO x', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FOO');
  fails("EXPLAIN TQL EVAL (0, 0, '1s') x", StatusCode.Unsupported, 'SQL statement is not supported, keyword: TQL (use TQL EXPLAIN or TQL ANALYZE)');
});

test('TQL CTEs: spans of the TQL bodies, column aliases, several CTEs mixing SQL and TQL, EXPLAIN of one', () => {
  const sql = "WITH x (ts, v) AS (TQL EVAL (0, 40, '10s') rate(metric[20s])), y AS (SELECT * FROM x WHERE v > 0), z AS MATERIALIZED (\n  TQL EVAL (0, 40, '10s') up{a=\")\"} AS val\n) SELECT * FROM y, z";
  const [s] = parseSql(`${sql};`);
  assert.equal(s!.kind, 'tql_query');
  const q = s as Extract<Statement, { kind: 'tql_query' }>;
  assert.equal(q.sql, sql);
  assert.deepEqual(q.ctes.map((c) => [c.name, q.sql.slice(c.start, c.end), c.tql.query, c.tql.alias]), [
    ['x', "TQL EVAL (0, 40, '10s') rate(metric[20s])", 'rate(metric[20s])', undefined],
    ['z', "TQL EVAL (0, 40, '10s') up{a=\")\"} AS val", 'up{a=")"}', 'val'],
  ]);
  const [ex] = parseSql("EXPLAIN WITH t AS (TQL EVAL (0, 40, '10s') metric) SELECT * FROM t");
  assert.equal(ex!.kind, 'explain');
  assert.equal((ex as Extract<Statement, { kind: 'explain' }>).tql?.ctes[0]?.tql.query, 'metric');
  // A WITH without TQL stays a query for DuckDB.
  assert.equal(parseSql('WITH t AS (SELECT 1) SELECT * FROM t')[0]!.kind, 'query');
  fails("WITH t AS (TQL ANALYZE (0, 40, '10s') metric) SELECT * FROM t", StatusCode.InvalidSyntax, 'Invalid SQL, error: Only TQL EVAL is supported in CTEs');
  fails("WITH t AS (TQL EXPLAIN (0, 40, '10s') metric) SELECT * FROM t", StatusCode.InvalidSyntax, 'Invalid SQL, error: Only TQL EVAL is supported in CTEs');
  fails("WITH t AS (WITH u AS (TQL EVAL (0, 40, '10s') metric) SELECT * FROM u) SELECT * FROM t", StatusCode.InvalidSyntax, 'Invalid SQL, error: TQL is supported only as the whole body of a CTE of the outermost WITH');
});
