/**
 * tsdb's parser (Prometheus 2.42's grammar, hand-written for its error messages) against
 * Prometheus's own grammar package, `@prometheus-io/lezer-promql` (the one every Prometheus UI
 * uses): on queries valid in both 2.42 and the package's grammar both must accept, and on
 * syntax errors both must refuse. The package follows Prometheus 3 (no `holt_winters`, quoted
 * metric names), so only the common language is compared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parser as lezer } from '@prometheus-io/lezer-promql';
import { parsePromql } from './parser.js';

const VALID = [
  'up',
  'up{job="api"}',
  '{__name__=~"up|down", job!="x"}',
  'http_requests_total{job=~"a.*", code!~"5.."}',
  'rate(http_requests_total[5m])',
  'rate(http_requests_total[5m] offset 1h)',
  'rate(http_requests_total[5m] offset -30s)',
  'http_requests_total @ 1609746000',
  'http_requests_total @ start()',
  'rate(http_requests_total[5m] @ end() offset 10m)',
  'sum by (job) (rate(x[1m]))',
  'sum(rate(x[1m])) by (job)',
  'sum without (instance) (x)',
  'topk(3, sum by (path) (x))',
  'bottomk by (a) (2, x)',
  'quantile(0.9, x)',
  'count_values("value", x)',
  'group by (a) (x)',
  'stddev(x) + stdvar(x)',
  'x + on (a) group_left (b) y',
  'x * ignoring (c) group_right y',
  'x and on () y',
  'x or y unless z',
  'x > bool 3',
  'x == bool on (a) y',
  '-x ^ 2 ^ 3',
  '(x + y) / 2 % 7',
  'x atan2 y',
  'max_over_time(x[1h:5m])',
  'max_over_time(rate(x[5m])[1h:])',
  'min_over_time((x > 0)[30m:1m] offset 5m)',
  'histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))',
  'label_replace(x, "dst", "$1", "src", "(.*)")',
  'label_join(x, "dst", ",", "a", "b", "c")',
  'absent(nonexistent{job="x"})',
  'absent_over_time(x[5m])',
  'predict_linear(x[1h], 3600)',
  'quantile_over_time(0.5, x[10m])',
  'clamp(x, 0, 100)',
  'round(x, 0.5)',
  'day_of_week()',
  'hour(timestamp(x))',
  'time() - x',
  'vector(1) + scalar(sum(x))',
  'sort_desc(sum by (a) (x))',
  '1 + 2 * 3',
  '0x1F + 1e3 - .5',
  'Inf > bool NaN',
  '"a string"',
  "'single'",
  '`raw\\string`',
  'x[1m:30s]',
  'x offset 1w1d',
  'sum(x) by (a,)',
  'rate(x{a="b",}[5m])',
  'count(count by (a) (x))',
  'changes(x[1h]) + resets(x[1h])',
  'deriv(x[10m]) * idelta(x[10m])',
  'irate(x[1m]) > 0 and increase(x[1m]) < 100',
];

const SYNTAX_ERRORS = [
  'sum(',
  'rate(x[5m]',
  'x{',
  'x{a=}',
  'x{a="b"',
  'x[5m',
  'x +',
  '* x',
  'x offset',
  'sum by x',
  '(x',
  'x)',
  'x[5m:1m:1m]',
  'x @',
  '{a="b" c="d"}',
  '1 +* 2',
  'x{a~"b"}',
  'topk(,x)',
];

function lezerAccepts(q: string): boolean {
  let ok = true;
  lezer.parse(q).iterate({
    enter(n) {
      if (n.type.isError) ok = false;
    },
  });
  return ok;
}

function tsdbAccepts(q: string): boolean {
  try {
    parsePromql(q);
    return true;
  } catch {
    return false;
  }
}

test('queries Prometheus\'s grammar package accepts, tsdb accepts', () => {
  for (const q of VALID) {
    assert.equal(lezerAccepts(q), true, `lezer-promql refuses ${q}`);
    assert.equal(tsdbAccepts(q), true, `tsdb refuses ${q}`);
  }
});

test('syntax errors are refused by both', () => {
  for (const q of SYNTAX_ERRORS) {
    assert.equal(lezerAccepts(q), false, `lezer-promql accepts ${q}`);
    assert.equal(tsdbAccepts(q), false, `tsdb accepts ${q}`);
  }
});
