import assert from 'node:assert/strict';
import { test } from 'node:test';
import { astJson } from './ast-json.js';
import { parsePromql } from './parser.js';
import { formatDuration, formatExpr, formatGoFloat, formatGoFloatF, prettyExpr } from './printer.js';

/**
 * Queries and what Prometheus 2.42 answered at /api/v1/format_query (its `Pretty(0)`, which is
 * `String()` under 100 bytes), recorded.
 */
const FORMAT_QUERY_2_42: [string, string][] = [
  ["sum by(job)(rate(foo{b=\"c\",a=\"d\"}[300s] offset 90m)) > bool 1e6", "sum by (job) (rate(foo{a=\"d\",b=\"c\"}[5m] offset 1h30m)) > bool 1e+06"],
  ["foo > on(x) group_left(y) bar", "foo > on (x) group_left (y) bar"],
  ["1e6", "1e+06"],
  ["1e5", "100000"],
  ["123456", "123456"],
  ["1234567", "1.234567e+06"],
  ["0.0001", "0.0001"],
  ["0.00001", "1e-05"],
  ["1.5e-7", "1.5e-07"],
  ["1e21", "1e+21"],
  ["1e22", "1e+22"],
  ["-0.5", "-0.5"],
  [".5", "0.5"],
  ["NaN", "NaN"],
  ["-Inf", "-Inf"],
  ["+Inf", "+Inf"],
  ["Inf", "+Inf"],
  ["0x1f", "31"],
  ["017", "15"],
  ["foo[1w]", "foo[1w]"],
  ["foo[7d]", "foo[1w]"],
  ["foo[8d]", "foo[8d]"],
  ["foo[365d]", "foo[1y]"],
  ["foo[366d]", "foo[366d]"],
  ["foo[90d]", "foo[90d]"],
  ["foo[1y]", "foo[1y]"],
  ["foo[1y1d]", "foo[366d]"],
  ["foo[1500ms]", "foo[1s500ms]"],
  ["foo[60s]", "foo[1m]"],
  ["foo[3600s]", "foo[1h]"],
  ["foo[1h30m]", "foo[1h30m]"],
  ["foo[5m:]", "foo[5m:]"],
  ["foo[5m:30s] offset 1m @ 100", "foo[5m:30s] @ 100.000 offset 1m"],
  ["foo offset -1h", "foo offset -1h"],
  ["foo @ 1.5", "foo @ 1.500"],
  ["foo @ -1.5", "foo @ -1.500"],
  ["foo @ 0.0005", "foo @ 0.001"],
  ["foo @ start() offset 5m", "foo @ start() offset 5m"],
  ["foo offset 5m @ end()", "foo @ end() offset 5m"],
  ["{__name__=\"foo\"}", "{__name__=\"foo\"}"],
  ["{__name__=\"foo\",a=\"b\"}", "{__name__=\"foo\",a=\"b\"}"],
  ["foo{z=\"1\",a=\"2\",m=~\"x.*\",b!=\"y\",c!~\"q\"}", "foo{a=\"2\",b!=\"y\",c!~\"q\",m=~\"x.*\",z=\"1\"}"],
  ["\"str\"", "\"str\""],
  ["'single \"q\"'", "\"single \\\"q\\\"\""],
  ["`raw\\n`", "\"raw\\\\n\""],
  ["\"esc\\n\\t\\\"x\\\\\"", "\"esc\\n\\t\\\"x\\\\\""],
  ["\"é☃\"", "\"é☃\""],
  ["sum without(a,b)(foo)", "sum without (a, b) (foo)"],
  ["sum by()(foo)", "sum(foo)"],
  ["sum without()(foo)", "sum without () (foo)"],
  ["topk(5, foo)", "topk(5, foo)"],
  ["quantile(0.9, foo)", "quantile(0.9, foo)"],
  ["count_values(\"v\", foo)", "count_values(\"v\", foo)"],
  ["count(foo) by (a)", "count by (a) (foo)"],
  ["a - on() c", "a - on () c"],
  ["a - ignoring(b) c", "a - ignoring (b) c"],
  ["a - ignoring() c", "a - c"],
  ["a and on(x) b", "a and on (x) b"],
  ["a or b", "a or b"],
  ["a unless ignoring(x) b", "a unless ignoring (x) b"],
  ["-foo", "-foo"],
  ["-(foo + bar)", "-(foo + bar)"],
  ["--foo", "--foo"],
  ["+foo", "+foo"],
  ["-1", "-1"],
  ["- 1", "-1"],
  ["-(1)", "-(1)"],
  ["2 ^ 3 ^ 2", "2 ^ 3 ^ 2"],
  ["(2 ^ 3) ^ 2", "(2 ^ 3) ^ 2"],
  ["a * b + c / d - e % f", "a * b + c / d - e % f"],
  ["a atan2 b", "a atan2 b"],
  ["a == bool b", "a == bool b"],
  ["a + b * c", "a + b * c"],
  ["(a + b) * c", "(a + b) * c"],
  ["-a ^ b", "-a ^ b"],
  ["a ^ -b", "a ^ -b"],
  ["rate(foo[5m])[30m:1m]", "rate(foo[5m])[30m:1m]"],
  ["max_over_time(rate(foo[5m])[30m:1m])", "max_over_time(rate(foo[5m])[30m:1m])"],
  ["histogram_quantile(0.9, sum by (le) (rate(http_request_duration_seconds_bucket{job=\"api-server\",handler=~\"/api/v1/.*\"}[5m])))", "histogram_quantile(\n  0.9,\n  sum by (le) (rate(http_request_duration_seconds_bucket{handler=~\"/api/v1/.*\",job=\"api-server\"}[5m]))\n)"],
  ["label_replace(up{job=\"api-server\",service=\"a:c\"}, \"foo\", \"$1\", \"service\", \"(.*):.*\")", "label_replace(up{job=\"api-server\",service=\"a:c\"}, \"foo\", \"$1\", \"service\", \"(.*):.*\")"],
  ["sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{namespace=\"default\",container!=\"\",image!=\"\"}[5m])) / on (namespace, pod) group_left () sum by (namespace, pod) (kube_pod_container_resource_requests{resource=\"cpu\"})", "  sum by (namespace, pod) (\n    rate(container_cpu_usage_seconds_total{container!=\"\",image!=\"\",namespace=\"default\"}[5m])\n  )\n/ on (namespace, pod) group_left ()\n  sum by (namespace, pod) (kube_pod_container_resource_requests{resource=\"cpu\"})"],
  ["sum(rate(a[1m])) + sum(rate(bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb[1m]))", "  sum(rate(a[1m]))\n+\n  sum(\n    rate(\n      bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb[1m]\n    )\n  )"],
  ["-sum(rate(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m]))", "-sum(\n  rate(\n    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m]\n  )\n)"],
  ["(sum(rate(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m])))", "(\n  sum(\n    rate(\n      aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m]\n    )\n  )\n)"],
  ["max_over_time(sum(rate(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m]))[5m:])", "max_over_time(\n  sum(\n    rate(\n      aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m]\n    )\n  )[5m:]\n)"],
  ["topk(5, sum by (aaaaaaaaaaaaaaaaaaaaaaaaaaa) (rate(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m])))", "topk(\n  5,\n  sum by (aaaaaaaaaaaaaaaaaaaaaaaaaaa) (\n    rate(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1m])\n  )\n)"],
  ["SUM(foo)", "sum(foo)"],
  ["sum", "sum"],
  ["by", "by"],
  ["offset", "offset"],
  ["foo offset 5m", "foo offset 5m"],
  ["avg(foo) without (a)", "avg without (a) (foo)"],
  ["time()", "time()"],
  ["pi()", "pi()"],
  ["vector(1)", "vector(1)"],
  ["scalar(foo)", "scalar(foo)"],
  ["absent(foo{a=\"b\"})", "absent(foo{a=\"b\"})"],
  ["sort_desc(foo)", "sort_desc(foo)"],
  ["foo{a=\"\\u00e9\"}", "foo{a=\"é\"}"],
  ["foo{a=\"\\x41\"}", "foo{a=\"A\"}"],
  ["foo{a=\"\\101\"}", "foo{a=\"A\"}"],
  ["foo{a='it\\'s'}", "foo{a=\"it's\"}"],
  ["1 + 2 * 3", "1 + 2 * 3"],
  ["1 == bool 2", "1 == bool 2"],
  ["a:b:c", "a:b:c"],
  [":foo", ":foo"],
  ["foo:bar{a=\"b\"}", "foo:bar{a=\"b\"}"],
];

test('prettyExpr answers what Prometheus 2.42’s format_query answers', () => {
  for (const [q, want] of FORMAT_QUERY_2_42) assert.equal(prettyExpr(parsePromql(q)), want, q);
});

test('formatExpr is Prometheus’s String(): one line, canonical', () => {
  const cases: [string, string][] = [
    ['sum by(job)(rate(http_requests_total{job="a"}[5m] offset 1m))', 'sum by (job) (rate(http_requests_total{job="a"}[5m] offset 1m))'],
    ['sum by() (task:errors:rate10s{job="s"})', 'sum(task:errors:rate10s{job="s"})'],
    ['sum without() (x)', 'sum without () (x)'],
    ['a - on(b) group_left c', 'a - on (b) group_left () c'],
    ['a - ignoring() c', 'a - c'],
    ['up > bool 0', 'up > bool 0'],
    ['a offset -7m', 'a offset -7m'],
    ['a[12m] offset -3m', 'a[12m] offset -3m'],
    ['a[1h:5m] offset 1m', 'a[1h:5m] offset 1m'],
    ['a @ 10', 'a @ 10.000'],
    ['a[1m] @ end()', 'a[1m] @ end()'],
    ['{b="2", a="1", __name__="x"}', '{__name__="x",a="1",b="2"}'],
    ['"\\x00\\u2028é"', '"\\x00\\u2028é"'],
  ];
  for (const [q, want] of cases) assert.equal(formatExpr(parsePromql(q)), want, q);
  // A long query splits in pretty form only.
  const long = `sum(rate(${'a'.repeat(120)}[1m])) + 1`;
  assert.equal(formatExpr(parsePromql(long)), long);
  assert.equal(prettyExpr(parsePromql(long)), `  sum(\n    rate(\n      ${'a'.repeat(120)}[1m]\n    )\n  )\n+\n  1`);
});

test('ignoring () group_left keeps its meaning through the printer (a deviation from Prometheus, whose text drops it)', () => {
  const q = 'a * ignoring() group_left(x) b';
  assert.equal(formatExpr(parsePromql(q)), 'a * ignoring () group_left (x) b');
  const again = parsePromql(formatExpr(parsePromql(q)));
  assert.equal(again.kind === 'binary' && again.matching?.card, 'many-to-one');
});

test('numbers print as Go’s %v and as FormatFloat(f, -1)', () => {
  const g: [number, string][] = [
    [0, '0'],
    [-0, '-0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [100000, '100000'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e21, '1e+21'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [5e-324, '5e-324'],
    [0.1 + 0.2, '0.30000000000000004'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ];
  for (const [x, want] of g) assert.equal(formatGoFloat(x), want, String(x));
  const f: [number, string][] = [
    [1e6, '1000000'],
    [1e21, '1000000000000000000000'],
    [1.5e-7, '0.00000015'],
    [123.456, '123.456'],
    [-2, '-2'],
    [Infinity, '+Inf'],
    [NaN, 'NaN'],
  ];
  for (const [x, want] of f) assert.equal(formatGoFloatF(x), want, String(x));
});

test('durations print as Prometheus prints them', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [1, '1ms'],
    [1500, '1s500ms'],
    [60_000, '1m'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
    [7 * 86_400_000, '1w'],
    [8 * 86_400_000, '8d'],
    [90 * 86_400_000, '90d'],
    [365 * 86_400_000, '1y'],
    [366 * 86_400_000, '366d'],
    [2 * 365 * 86_400_000, '2y'],
  ];
  for (const [ms, want] of cases) assert.equal(formatDuration(ms), want, String(ms));
});

test('astJson has the shape of Prometheus’s parse_query', () => {
  assert.deepEqual(astJson(parsePromql('sum by (job) (rate(foo{a="b"}[5m] offset 1m @ 10)) > bool -1')), {
    type: 'binaryExpr',
    op: '>',
    lhs: {
      type: 'aggregation',
      op: 'sum',
      expr: {
        type: 'call',
        func: { name: 'rate', argTypes: ['matrix'], variadic: 0, returnType: 'vector' },
        args: [
          {
            type: 'matrixSelector',
            name: 'foo',
            range: 300000,
            offset: 60000,
            matchers: [
              { name: 'a', value: 'b', type: '=' },
              { name: '__name__', value: 'foo', type: '=' },
            ],
            timestamp: 10000,
            startOrEnd: null,
          },
        ],
      },
      param: null,
      grouping: ['job'],
      without: false,
    },
    rhs: { type: 'numberLiteral', val: '-1' },
    matching: null,
    bool: true,
  });
  assert.deepEqual(astJson(parsePromql('foo and bar')).matching, { card: 'many-to-many', labels: [], on: false, include: [] });
  assert.deepEqual(astJson(parsePromql('foo / on(a) group_left(b) bar')).matching, { card: 'many-to-one', labels: ['a'], on: true, include: ['b'] });
  assert.deepEqual(astJson(parsePromql('(-foo)[5m:1m] @ start()')), {
    type: 'subquery',
    expr: { type: 'parenExpr', expr: { type: 'unaryExpr', op: '-', expr: { type: 'vectorSelector', name: 'foo', offset: 0, matchers: [{ name: '__name__', value: 'foo', type: '=' }], timestamp: null, startOrEnd: null } } },
    range: 300000,
    offset: 0,
    step: 60000,
    timestamp: null,
    startOrEnd: 'start',
  });
  assert.deepEqual(astJson(parsePromql('topk(3, {a="b"})')).param, { type: 'numberLiteral', val: '3' });
  assert.deepEqual(astJson(parsePromql('label_join(a, "d", ",", "s")')).func, { name: 'label_join', argTypes: ['vector', 'string', 'string', 'string'], variadic: -1, returnType: 'vector' });
  assert.deepEqual(astJson(parsePromql('"s"')), { type: 'stringLiteral', val: 's' });
  assert.deepEqual(astJson(parsePromql('1e21')), { type: 'numberLiteral', val: '1000000000000000000000' });
});
