import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Expr, LabelMatcher } from './ast.js';
import { PromqlError } from './errors.js';
import { MAX_DEPTH, parseDurationMs, parsePromql, typeOf } from './parser.js';
import { formatExpr } from './printer.js';

/** The tree without source positions. */
function strip(e: unknown): unknown {
  if (Array.isArray(e)) return e.map(strip);
  if (e === null || typeof e !== 'object') return e;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (k !== 'pos') out[k] = strip(v);
  return out;
}

const parse = (q: string): unknown => strip(parsePromql(q));

function vs(name: string | undefined, matchers: LabelMatcher[] = [], extra: Record<string, unknown> = {}): Expr {
  const ms = name === undefined ? matchers : [...matchers, { name: '__name__', type: '=' as const, value: name }];
  return { kind: 'vector', ...(name === undefined ? {} : { name }), matchers: ms, offsetMs: 0, ...extra } as Expr;
}
const num = (value: number): Expr => ({ kind: 'number', value });
const str = (value: string): Expr => ({ kind: 'string', value });
const m = (name: string, type: LabelMatcher['type'], value: string): LabelMatcher => ({ name, type, value });
const bin = (op: string, lhs: Expr, rhs: Expr, extra: Record<string, unknown> = {}): Expr =>
  ({ kind: 'binary', op, returnBool: false, ...extra, lhs, rhs }) as Expr;
const vm = (card: string, on = false, labels: string[] = [], include: string[] = []): Record<string, unknown> => ({ matching: { card, on, labels, include } });
const call = (func: string, ...args: Expr[]): Expr => ({ kind: 'call', func, args });
const matrix = (selector: Expr, rangeMs: number): Expr => ({ kind: 'matrix', selector, rangeMs }) as Expr;
const agg = (op: string, expr: Expr, extra: Record<string, unknown> = {}): Expr => ({ kind: 'aggregate', op, expr, grouping: [], without: false, ...extra }) as Expr;

const VALID: [string, Expr][] = [
  ['1', num(1)],
  ['-1.5', num(-1.5)],
  ['+5', num(5)],
  ['.5', num(0.5)],
  ['5.', num(5)],
  ['1e3', num(1000)],
  ['1E-3', num(0.001)],
  ['0x1F', num(31)],
  ['017', num(15)],
  ['08', num(8)],
  ['Inf', num(Infinity)],
  ['-inf', num(-Infinity)],
  ['NaN', num(NaN)],
  ['"a\\n\\"b"', str('a\n"b')],
  ["'it\\'s \"x\"'", str('it\'s "x"')],
  ['`raw\\n`', str('raw\\n')],
  ['"\\x41\\101\\u00e9\\U0001F600"', str('AAé😀')],
  ['"\\xc3\\xa9"', str('é')],
  ['foo', vs('foo')],
  ['foo:bar', vs('foo:bar')],
  ['sum', vs('sum')],
  ['foo{a="b"}', vs('foo', [m('a', '=', 'b')])],
  ['{a="b", c!="d", e=~"f.*", g!~"h",}', vs(undefined, [m('a', '=', 'b'), m('c', '!=', 'd'), m('e', '=~', 'f.*'), m('g', '!~', 'h')])],
  ['{__name__="foo"}', vs(undefined, [m('__name__', '=', 'foo')])],
  ['foo{by="x", offset="y"}', vs('foo', [m('by', '=', 'x'), m('offset', '=', 'y')])],
  ['foo offset 5m', vs('foo', [], { offsetMs: 300_000 })],
  ['foo offset -1h30m', vs('foo', [], { offsetMs: -5_400_000 })],
  ['foo @ 100', vs('foo', [], { at: { kind: 'time', ms: 100_000 } })],
  ['foo @ -1.5', vs('foo', [], { at: { kind: 'time', ms: -1500 } })],
  ['foo @ start()', vs('foo', [], { at: { kind: 'start' } })],
  ['foo @ end() offset 1m', vs('foo', [], { at: { kind: 'end' }, offsetMs: 60_000 })],
  ['foo[5m]', matrix(vs('foo'), 300_000)],
  ['foo[1y2w3d4h5m6s7ms]', matrix(vs('foo'), 365 * 86_400_000 + 14 * 86_400_000 + 3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6000 + 7)],
  ['foo[5m] offset 1m @ 10', matrix(vs('foo', [], { offsetMs: 60_000, at: { kind: 'time', ms: 10_000 } }), 300_000)],
  ['foo @ start() [5m]', matrix(vs('foo', [], { at: { kind: 'start' } }), 300_000)],
  ['foo[5m:]', { kind: 'subquery', expr: vs('foo'), rangeMs: 300_000, stepMs: 0, offsetMs: 0 }],
  ['foo[5m x]', { kind: 'subquery', expr: vs('foo'), rangeMs: 300_000, stepMs: 0, offsetMs: 0 }],
  [
    'rate(foo[5m])[30m:1m] offset 1m @ end()',
    { kind: 'subquery', expr: call('rate', matrix(vs('foo'), 300_000)), rangeMs: 1_800_000, stepMs: 60_000, offsetMs: 60_000, at: { kind: 'end' } },
  ],
  ['rate(foo[5m])', call('rate', matrix(vs('foo'), 300_000))],
  ['time()', call('time')],
  ['round(foo)', call('round', vs('foo'))],
  ['label_join(foo, "a", ",", "b", "c")', call('label_join', vs('foo'), str('a'), str(','), str('b'), str('c'))],
  ['holt_winters(foo[5m], 0.5, 0.5)', call('holt_winters', matrix(vs('foo'), 300_000), num(0.5), num(0.5))],
  ['sum(foo)', agg('sum', vs('foo'))],
  ['SUM(foo)', agg('sum', vs('foo'))],
  ['sum by (a, b) (foo)', agg('sum', vs('foo'), { grouping: ['a', 'b'] })],
  ['sum(foo) without (a,)', agg('sum', vs('foo'), { grouping: ['a'], without: true })],
  ['sum by (offset, bool, on, start) (foo)', agg('sum', vs('foo'), { grouping: ['offset', 'bool', 'on', 'start'] })],
  ['topk(5, foo)', agg('topk', vs('foo'), { param: num(5) })],
  ['count_values("v", foo)', agg('count_values', vs('foo'), { param: str('v') })],
  ['quantile by (a) (0.9, foo)', agg('quantile', vs('foo'), { param: num(0.9), grouping: ['a'] })],
  ['1 + 2', bin('+', num(1), num(2))],
  ['foo + 1', bin('+', vs('foo'), num(1))],
  ['foo * bar', bin('*', vs('foo'), vs('bar'), vm('one-to-one'))],
  ['foo > bool bar', bin('>', vs('foo'), vs('bar'), { returnBool: true, ...vm('one-to-one') })],
  ['1 == bool 2', bin('==', num(1), num(2), { returnBool: true })],
  ['foo / on(a, b) bar', bin('/', vs('foo'), vs('bar'), vm('one-to-one', true, ['a', 'b']))],
  ['foo / ignoring(a) group_left(c) bar', bin('/', vs('foo'), vs('bar'), vm('many-to-one', false, ['a'], ['c']))],
  ['foo / on() group_right bar', bin('/', vs('foo'), vs('bar'), vm('one-to-many', true))],
  ['foo and bar', bin('and', vs('foo'), vs('bar'), vm('many-to-many'))],
  ['foo or on(a) bar', bin('or', vs('foo'), vs('bar'), vm('many-to-many', true, ['a']))],
  ['foo unless ignoring(a) bar', bin('unless', vs('foo'), vs('bar'), vm('many-to-many', false, ['a']))],
  ['foo atan2 bar', bin('atan2', vs('foo'), vs('bar'), vm('one-to-one'))],
  ['-foo', { kind: 'unary', op: '-', expr: vs('foo') }],
  ['+foo', { kind: 'unary', op: '+', expr: vs('foo') }],
  ['-(1)', { kind: 'unary', op: '-', expr: { kind: 'paren', expr: num(1) } }],
  ['(foo)', { kind: 'paren', expr: vs('foo') }],
  ['foo # a comment\n + 1', bin('+', vs('foo'), num(1))],
];

test('valid queries give the expected trees', () => {
  for (const [q, want] of VALID) assert.deepEqual(parse(q), strip(want), q);
});

/** The tree fully parenthesized, to read precedence and associativity off. */
function shape(e: Expr): string {
  switch (e.kind) {
    case 'binary':
      return `(${shape(e.lhs)} ${e.op} ${shape(e.rhs)})`;
    case 'unary':
      return `(${e.op}${shape(e.expr)})`;
    case 'paren':
      return `[${shape(e.expr)}]`;
    case 'number':
      return String(e.value);
    case 'vector':
      return `${e.name}${e.offsetMs ? `~${e.offsetMs}` : ''}`;
    case 'matrix':
      return `${shape(e.selector)}[${e.rangeMs}]`;
    case 'call':
      return `${e.func}(${e.args.map(shape).join(',')})`;
    default:
      return e.kind;
  }
}

test('precedence and associativity are Prometheus’s', () => {
  const cases: [string, string][] = [
    ['1 + 2 * 3', '(1 + (2 * 3))'],
    ['1 * 2 + 3', '((1 * 2) + 3)'],
    ['a - b - c', '((a - b) - c)'],
    ['a / b * c % d', '(((a / b) * c) % d)'],
    ['2 ^ 3 ^ 2', '(2 ^ (3 ^ 2))'],
    ['-2 ^ 2', '(-(2 ^ 2))'],
    ['-a * b', '((-a) * b)'],
    ['-a + b', '((-a) + b)'],
    ['a ^ -b ^ c', '(a ^ (-(b ^ c)))'],
    ['a + -b * c', '(a + ((-b) * c))'],
    ['-1 + 2', '(-1 + 2)'],
    ['a atan2 b * c', '((a atan2 b) * c)'],
    ['a * b atan2 c', '((a * b) atan2 c)'],
    ['a == b + c', '(a == (b + c))'],
    ['a > b == c', '((a > b) == c)'],
    ['a and b > c', '(a and (b > c))'],
    ['a or b and c', '(a or (b and c))'],
    ['a and b or c unless d', '((a and b) or (c unless d))'],
    ['a unless b and c', '((a unless b) and c)'],
    ['a + b offset 5m', '(a + b~300000)'],
    ['-a offset 5m', '(-a~300000)'],
    ['(a + b) * c', '([(a + b)] * c)'],
    ['--a', '(-(-a))'],
    ['1 - -1', '(1 - -1)'],
  ];
  for (const [q, want] of cases) assert.equal(shape(parsePromql(q)), want, q);
});

/**
 * Queries and what Prometheus 2.42 (Debian's 2.42.0+ds) answered at /api/v1/query, recorded:
 * null when it parsed the query, else its message (the "invalid parameter \"query\": " prefix of
 * the API left out).
 */
const PROMETHEUS_2_42: [string, string | null][] = [
  ["sum(foo bar)", "1:9: parse error: unexpected identifier \"bar\" in aggregation"],
  ["foo offset 5m offset 1m", "1:1: parse error: offset may not be set multiple times"],
  ["sum 5", "1:5: parse error: unexpected number \"5\""],
  ["sum by (a:b) (x)", "1:9: parse error: unexpected metric identifier \"a:b\" in grouping opts, expected label"],
  ["foo)", "1:5: parse error: unexpected right parenthesis ')'"],
  ["foo[5m x]", null],
  ["{a=~\"(abc\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:(abc)$`"],
  ["{a=~\"abc)\"}", "1:2: parse error: error parsing regexp: unexpected ): `^(?:abc))$`"],
  ["{a=~\"[a\"}", "1:2: parse error: error parsing regexp: missing closing ]: `[a)$`"],
  ["{a=~\"\\\\q\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\q`"],
  ["{a=~\"a**\"}", "1:2: parse error: error parsing regexp: invalid nested repetition operator: `**`"],
  ["foo offset 5", "1:12: parse error: unexpected number \"5\" in offset, expected duration"],
  ["rate(foo,)", "1:9: parse error: trailing commas not allowed in function call args"],
  ["foo @ start() [5m]", null],
  ["1 + 2 offset 5m", "1:5: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
  ["a + on() group_left foo", null],
  ["-foo[5m]", "1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got \"range vector\""],
  ["{a=~\"(?P<x>a)(?P<x>b)\"}", null],
  ["{a=~\"(?=a)\"}", "1:2: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
  ["{a=~\"\\\\1\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\1`"],
  ["{a=~\"(?<n>a)\"}", "1:2: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?<`"],
  ["{a=~\"x{1001}\"}", "1:2: parse error: error parsing regexp: invalid repeat count: `{1001}`"],
  ["{a=~\"*a\"}", "1:2: parse error: error parsing regexp: missing argument to repetition operator: `*`"],
  ["{a=~\"a\\\\\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:a\\)$`"],
  ["{a=~\"[z-a]\"}", "1:2: parse error: error parsing regexp: invalid character class range: `z-a`"],
  ["{a=~\"[[:foo:]]\"}", "1:2: parse error: error parsing regexp: invalid character class range: `[:foo:]`"],
  ["{a=~\"\\\\p{Foo}\"}", "1:2: parse error: error parsing regexp: invalid character class range: `\\p{Foo}`"],
  ["{a=~\".*\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"(?i)\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"a+*\"}", "1:2: parse error: error parsing regexp: invalid nested repetition operator: `+*`"],
  ["{a=~\"a{2}{3}\"}", "1:2: parse error: error parsing regexp: invalid nested repetition operator: `{2}{3}`"],
  ["{a=~\"(?i\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:(?i)$`"],
  ["{a=~\"(?z)\"}", "1:2: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?z`"],
  ["{a=~\"(?P<>a)\"}", "1:2: parse error: error parsing regexp: invalid named capture: `(?P<>`"],
  ["{a=~\"(?P<a-b>a)\"}", "1:2: parse error: error parsing regexp: invalid named capture: `(?P<a-b>`"],
  ["{a=~\"\\\\x{zz}\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\x{z`"],
  ["{a=~\"\\\\xz\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\xz)`"],
  ["{a=~\"[\\\\d-z]\"}", null],
  ["{a=~\"x{2,1}\"}", "1:2: parse error: error parsing regexp: invalid repeat count: `{2,1}`"],
  ["{a=~\"(?i)*\"}", "1:2: parse error: error parsing regexp: missing argument to repetition operator: `*`"],
  ["{a=~\"\\\\8\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\8`"],
  ["{a=~\"\\\\C\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\C`"],
  ["{}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=\"\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["foo{__name__=\"bar\"}", "1:1: parse error: metric name must not be set twice: \"foo\" or \"bar\""],
  ["rate(foo)", "1:6: parse error: expected type range vector in call to function \"rate\", got instant vector"],
  ["rate(foo[5m], 1)", "1:1: parse error: expected 1 argument(s) in call to \"rate\", got 2"],
  ["abs(foo, bar)", "1:1: parse error: expected 1 argument(s) in call to \"abs\", got 2"],
  ["foo(bar)", "1:1: parse error: unknown function with name \"foo\""],
  ["round()", "1:1: parse error: expected at least 1 argument(s) in call to \"round\", got 0"],
  ["round(a, 1, 2)", "1:1: parse error: expected at most 2 argument(s) in call to \"round\", got 3"],
  ["label_join(a)", "1:1: parse error: expected at least 3 argument(s) in call to \"label_join\", got 1"],
  ["holt_winters(a[5m], 0.5, 0.5)", null],
  ["sum()", "1:1: parse error: no arguments for aggregate expression provided"],
  ["topk(foo)", "1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1"],
  ["topk(1, foo, bar)", "1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 3"],
  ["count_values(1, foo)", "1:14: parse error: expected type string in aggregation parameter, got scalar"],
  ["topk(\"a\", foo)", "1:6: parse error: expected type scalar in aggregation parameter, got string"],
  ["quantile(foo, bar)", "1:10: parse error: expected type scalar in aggregation parameter, got instant vector"],
  ["sum(foo[5m])", "1:5: parse error: expected type instant vector in aggregation expression, got range vector"],
  ["foo and 1", "1:1: parse error: set operator \"and\" not allowed in binary scalar expression"],
  ["1 and foo", "1:1: parse error: set operator \"and\" not allowed in binary scalar expression"],
  ["foo and on(a) group_left bar", "1:1: parse error: no grouping allowed for \"and\" operation"],
  ["foo + bool bar", "1:5: parse error: bool modifier can only be used on comparison operators"],
  ["1 == 1", "1:3: parse error: comparisons between scalars must use BOOL modifier"],
  ["1 == bool 1", null],
  ["foo + on(a) group_left(a) bar", "1:5: parse error: label \"a\" must not occur in ON and GROUP clause at once"],
  ["\"a\" + 1", "1:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["foo[5m] + 1", "1:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["1 + on(a) foo", "1:1: parse error: vector matching only allowed between instant vectors"],
  ["rate(foo[5m])[5m]", "1:14: parse error: ranges only allowed for vector selectors"],
  ["foo offset 5m [5m]", "1:15: parse error: no offset modifiers allowed before range"],
  ["foo @ 5 [5m]", "1:9: parse error: no @ modifiers allowed before range"],
  ["(foo)[5m]", "1:6: parse error: ranges only allowed for vector selectors"],
  ["foo[0s]", "1:5: parse error: duration must be greater than 0"],
  ["foo[5m:0s]", "1:8: parse error: duration must be greater than 0"],
  ["foo offset 0s", "1:12: parse error: duration must be greater than 0"],
  ["foo[1.5h]", "1:5: parse error: not a valid duration string: \"1.5h\""],
  ["foo[5]", "1:5: parse error: missing unit character in duration"],
  ["foo[]", "1:5: parse error: missing unit character in duration"],
  ["foo[5m", "1:7: parse error: unclosed left bracket"],
  ["foo[5ms3s]", "1:5: parse error: not a valid duration string: \"5ms3s\""],
  ["foo[1y2w3d4h5m6s7ms]", null],
  ["foo @ inf", "1:1: parse error: timestamp out of bounds for @ modifier: +Inf"],
  ["foo @ NaN", "1:1: parse error: timestamp out of bounds for @ modifier: NaN"],
  ["sum(x) @ 5", "1:1: parse error: @ modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
  ["foo @ 5 @ 6", "1:1: parse error: @ <timestamp> may not be set multiple times"],
  ["foo @ start() @ 5", "1:1: parse error: @ <timestamp> may not be set multiple times"],
  ["foo @ bar", "1:7: parse error: unexpected identifier \"bar\" in @, expected timestamp"],
  ["foo @ start(", "1:13: parse error: unclosed left parenthesis"],
  ["foo offset -5m", null],
  ["foo offset - 5m", null],
  ["\"abc\\q\"", "1:1: parse error: unknown escape sequence U+0071 'q'"],
  ["\"abc", "1:1: parse error: unterminated quoted string"],
  ["'abc'", null],
  ["`abc", "1:1: parse error: unterminated raw string"],
  ["1e", "1:1: parse error: error parsing number: strconv.ParseFloat: parsing \"1e\": invalid syntax"],
  ["1e999", "1:1: parse error: error parsing number: strconv.ParseFloat: parsing \"1e999\": value out of range"],
  ["0x", "1:1: parse error: error parsing number: strconv.ParseFloat: parsing \"0x\": invalid syntax"],
  ["08", null],
  ["1.5.3", "1:4: parse error: unexpected number \".3\""],
  [".5", null],
  ["5.", null],
  ["foo bar", "1:5: parse error: unexpected identifier \"bar\""],
  ["foo +", "1:6: parse error: unexpected end of input"],
  ["+", "1:2: parse error: unexpected end of input"],
  ["(", "1:2: parse error: unclosed left parenthesis"],
  [")", "1:2: parse error: unexpected right parenthesis ')'"],
  ["[5m]", "1:1: parse error: unexpected \"[\""],
  ["foo{a=\"b\" c=\"d\"}", "1:11: parse error: unexpected identifier \"c\" in label matching, expected \",\" or \"}\""],
  ["foo{a}", "1:6: parse error: unexpected \"}\" in label matching, expected label matching operator"],
  ["foo{a=b}", "1:7: parse error: unexpected identifier \"b\" in label matching, expected string"],
  ["foo{=\"a\"}", "1:5: parse error: unexpected \"=\" in label matching, expected identifier or \"}\""],
  ["foo{a=\"b\",,}", "1:11: parse error: unexpected \",\" in label matching, expected identifier or \"}\""],
  ["foo{a=\"b\",}", null],
  ["foo{a==\"b\"}", "1:7: parse error: unexpected \"=\" in label matching, expected string"],
  ["foo{1=\"b\"}", "1:5: parse error: unexpected character inside braces: '1'"],
  ["foo{a!\"b\"}", "1:6: parse error: unexpected character after '!' inside braces: '\"'"],
  ["foo{{", "1:5: parse error: unexpected left brace '{'"],
  ["foo{a=\"b\"", "1:10: parse error: unexpected end of input inside braces"],
  ["sum by foo (x)", "1:8: parse error: unexpected identifier \"foo\" in grouping opts, expected \"(\""],
  ["sum by (foo (x)", "1:13: parse error: unexpected \"(\" in grouping opts, expected \",\" or \")\""],
  ["sum by (foo,) (x)", null],
  ["sum by () (x)", null],
  ["sum(x) by (a) by (b)", "1:15: parse error: unexpected <by>"],
  ["sum(x) by (a)", null],
  ["sum by (a) foo", "1:12: parse error: unexpected identifier \"foo\" in aggregation"],
  ["sum by (a)", "1:11: parse error: unexpected end of input in aggregation"],
  ["a:b(x)", "1:4: parse error: unexpected \"(\""],
  ["foo ! bar", "1:5: parse error: unexpected character after '!': ' '"],
  ["foo =~ bar", "1:5: parse error: unexpected character after '=': '~'"],
  ["foo == == bar", "1:8: parse error: unexpected <op:==>"],
  ["@", "1:1: parse error: unexpected \"<Item 57385>\" <op:@>"],
  ["5m", "1:1: parse error: unexpected duration \"5m\""],
  ["foo offset", "1:11: parse error: unexpected end of input in offset, expected duration"],
  ["foo[5m:1m:2m]", "1:10: parse error: unexpected colon ':'"],
  ["foo[5m][5m]", "1:8: parse error: ranges only allowed for vector selectors"],
  ["foo[5m:5m][5m:]", "1:1: parse error: subquery is only allowed on instant vector, got matrix instead"],
  ["rate(foo[5m:])", null],
  ["subquery[5m:] offset 5m", null],
  ["-\"a\"", "1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got \"string\""],
  ["-(foo[5m])", "1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got \"range vector\""],
  ["# comment only", "1:1: parse error: no expression found in input"],
  ["foo # comment", null],
  ["foo{a=\"b\" # c", "1:14: parse error: unexpected end of input inside braces"],
  ["}", "1:1: parse error: unexpected character: '}'"],
  ["count_values(\"a\", foo)", null],
  ["sum without (a) (foo)", null],
  ["absent(nonexistent{job=\"myjob\"})", null],
  ["time()", null],
  ["time(1)", "1:1: parse error: expected 0 argument(s) in call to \"time\", got 1"],
  ["vector(1)", null],
  ["scalar(foo)", null],
  ["vector(foo)", "1:8: parse error: expected type scalar in call to function \"vector\", got instant vector"],
  ["label_replace(foo, \"a\", \"b\", \"c\", \"d\")", null],
  ["label_replace(foo, \"a\", \"b\", \"c\")", "1:1: parse error: expected 5 argument(s) in call to \"label_replace\", got 4"],
  ["sort_desc(foo)", null],
  ["day_of_month()", null],
  ["day_of_month(foo, bar)", "1:1: parse error: expected at most 1 argument(s) in call to \"day_of_month\", got 2"],
  ["foo and bool bar", "1:5: parse error: bool modifier can only be used on comparison operators"],
  ["foo unless on(a) bar", null],
  ["foo atan2 bar", null],
  ["foo atan2 bool bar", "1:5: parse error: bool modifier can only be used on comparison operators"],
  ["foo offset 1y", null],
  ["foo offset 300y", "1:12: parse error: duration out of range"],
  ["foo offset 292y", null],
  ["foo[99999999999999999999d]", "1:5: parse error: duration out of range"],
  ["foo @ 1e19", "1:1: parse error: timestamp out of bounds for @ modifier: 10000000000000000000.000000"],
  ["foo @ -5", null],
  ["foo @ +5", null],
  ["foo @ 1.5e3", null],
  ["nan", null],
  ["Inf", null],
  ["-Inf", null],
  ["+Inf", null],
  ["017", null],
  ["0xFF", null],
  ["1_000", "1:1: parse error: bad number or duration syntax: \"1\""],
  ["1e+5", null],
  ["foo == bool on(a) group_right(b) bar", null],
  ["sum(rate(foo bar))", "1:14: parse error: unexpected identifier \"bar\" in aggregation"],
  ["rate(sum(x) bar)", "1:13: parse error: unexpected identifier \"bar\""],
  ["sum(foo offset bar)", "1:16: parse error: unexpected identifier \"bar\" in offset, expected duration"],
  ["sum(foo[5m bar])", "1:13: parse error: unexpected colon 'a'"],
  ["sum({a=\"b\" c})", "1:12: parse error: unexpected identifier \"c\" in label matching, expected \",\" or \"}\""],
  ["sum(foo)", null],
  ["foo{a=\"é\"} + bar{b=\"ü\"} +", "1:28: parse error: unexpected end of input"],
  ["foo{a=\"é\"} + on(x) group_left(x) bar", "1:13: parse error: label \"x\" must not occur in ON and GROUP clause at once"],
  ["rate(foo[5m]) + \"x\"", "1:17: parse error: binary expression must contain only scalar and instant vector types"],
  ["foo{a=\"b\"}[5m] offset 1m @ 10 offset 2m", "1:1: parse error: offset may not be set multiple times"],
  ["foo[5m] @ 10 @ 20", "1:1: parse error: @ <timestamp> may not be set multiple times"],
  ["foo[5m:1m] offset 1m offset 2m", "1:1: parse error: offset may not be set multiple times"],
  ["foo[5m:1m] @ 1 @ 2", "1:1: parse error: @ <timestamp> may not be set multiple times"],
  ["sum(foo) by (a) without (b)", "1:17: parse error: unexpected <without>"],
  ["sum without (a) (foo) by (b)", "1:23: parse error: unexpected <by>"],
  ["foo and on(a) group_right(b) bar", "1:1: parse error: no grouping allowed for \"and\" operation"],
  ["foo or ignoring(a) group_left bar", "1:1: parse error: no grouping allowed for \"or\" operation"],
  ["foo unless 1", "1:1: parse error: set operator \"unless\" not allowed in binary scalar expression"],
  ["\"a\" and foo", "1:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["foo == foo == foo", null],
  ["foo{a!~\".*\"}", null],
  ["{a!=\"\"}", null],
  ["{a=~\".+\"}", null],
  ["{__name__=~\"foo.*\"}", null],
  ["{__name__=\"foo\"}[5m]", null],
  ["foo{__name__=\"foo\"}", "1:1: parse error: metric name must not be set twice: \"foo\" or \"foo\""],
  ["histogram_quantile(0.9, rate(foo[5m]))", null],
  ["histogram_quantile(foo, 0.9)", "1:20: parse error: expected type scalar in call to function \"histogram_quantile\", got instant vector"],
  ["label_join(foo, \"a\", \",\", \"b\", \"c\", \"d\")", null],
  ["label_join(foo, \"a\", \",\", 1)", "1:27: parse error: expected type string in call to function \"label_join\", got scalar"],
  ["label_join(foo, \"a\")", "1:1: parse error: expected at least 3 argument(s) in call to \"label_join\", got 2"],
  ["round(foo, \"x\")", "1:12: parse error: expected type scalar in call to function \"round\", got string"],
  ["clamp(foo, 1)", "1:1: parse error: expected 3 argument(s) in call to \"clamp\", got 2"],
  ["quantile_over_time(0.5, foo)", "1:25: parse error: expected type range vector in call to function \"quantile_over_time\", got instant vector"],
  ["absent_over_time(foo)", "1:18: parse error: expected type range vector in call to function \"absent_over_time\", got instant vector"],
  ["timestamp(foo[5m])", "1:11: parse error: expected type instant vector in call to function \"timestamp\", got range vector"],
  ["time() + foo", null],
  ["scalar(foo) > bool 1", null],
  ["scalar(foo) > 1", "1:13: parse error: comparisons between scalars must use BOOL modifier"],
  ["sum(foo) offset 5m", "1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
  ["rate(foo[5m]) offset 5m", "1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
  ["(foo) offset 5m", "1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery"],
  ["foo offset 5m offset -5m", "1:1: parse error: offset may not be set multiple times"],
  ["foo @ 5 offset 5m", null],
  ["-foo offset 5m", null],
  ["foo[5m] + bar[5m]", "1:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["foo[5m] > 1", "1:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["1 > foo[5m]", "1:5: parse error: binary expression must contain only scalar and instant vector types"],
  ["topk(1, foo) by (a)", null],
  ["count_values by (a) (\"x\", foo)", null],
  ["stddev(foo[5m])", "1:8: parse error: expected type instant vector in aggregation expression, got range vector"],
  ["sum(1)", "1:5: parse error: expected type instant vector in aggregation expression, got scalar"],
  ["sum(\"a\")", "1:5: parse error: expected type instant vector in aggregation expression, got string"],
  ["-\"a\" + 1", "1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got \"string\""],
  ["1 % 0", null],
  ["foo !~ bar", "1:5: parse error: unexpected character after '!': '~'"],
  ["foo{a=~\"x\", b=~\"y\"}", null],
  ["foo{a=~\"(a|b)+\"}", null],
  ["foo{a=\"\\xff\"}", null],
  ["foo{a=\"\\400\"}", "1:7: parse error: escape sequence is an invalid Unicode code point"],
  ["foo{a=\"\\u12\"}", "1:7: parse error: illegal character U+0022 '\"' in escape sequence"],
  ["foo{a=\"\\uD800\"}", "1:7: parse error: escape sequence is an invalid Unicode code point"],
  ["foo{a=\"\\U00110000\"}", "1:7: parse error: escape sequence is an invalid Unicode code point"],
  ["foo{a=`raw\\q`}", null],
  ["foo{a='x'}", null],
  ["\"a", "1:1: parse error: unterminated quoted string"],
  ["b\"", "1:2: parse error: unterminated quoted string"],
  ["foo[5m]]", "1:8: parse error: unexpected right bracket ']'"],
  ["foo]", "1:4: parse error: unexpected right bracket ']'"],
  ["foo[[5m]]", "1:5: parse error: missing unit character in duration"],
  ["foo[5m:[1m]]", "1:8: parse error: unexpected left bracket '['"],
  ["((((foo))))", null],
  ["sum by (nan) (x)", "1:9: parse error: unexpected number \"nan\" in grouping opts, expected label"],
  ["sum by (inf) (x)", "1:9: parse error: unexpected number \"inf\" in grouping opts, expected label"],
  ["sum by (offset, by, bool, on) (x)", null],
  ["sum by (Sum) (x)", null],
  ["sum by (\"a\") (x)", "1:9: parse error: unexpected string \"\\\"a\\\"\" in grouping opts, expected label"],
  ["a + on(a,) b", null],
  ["a + on(a b) b", "1:10: parse error: unexpected identifier \"b\" in grouping opts, expected \",\" or \")\""],
  ["a + on a b", "1:8: parse error: unexpected identifier \"a\" in grouping opts, expected \"(\""],
  ["a + group_left b", "1:5: parse error: unexpected <group_left>"],
  ["a + on(a) group_left(b,) c", null],
  ["a + bool", "1:9: parse error: unexpected end of input"],
  ["foo bool bar", "1:5: parse error: unexpected <bool>"],
  ["1 + 2 + bool 3", "1:7: parse error: bool modifier can only be used on comparison operators"],
  ["1 < bool 2 and 3", "1:1: parse error: set operator \"and\" not allowed in binary scalar expression"],
  ["foo{a=\"b\"} @ start()", null],
  ["foo @ end() offset 1m", null],
  ["foo @ start()[5m]", null],
  ["foo @ start(1)", "1:13: parse error: unexpected number \"1\" in @, expected timestamp"],
  ["foo @ end", "1:10: parse error: unexpected end of input in @, expected timestamp"],
  ["foo offset 1m1m", "1:12: parse error: not a valid duration string: \"1m1m\""],
  ["foo offset 1m1s", null],
  ["foo offset 1s1m", "1:12: parse error: not a valid duration string: \"1s1m\""],
  ["foo offset 1h1h", "1:12: parse error: not a valid duration string: \"1h1h\""],
  ["foo[1ms]", null],
  ["foo[0ms]", "1:5: parse error: duration must be greater than 0"],
  ["foo[01m]", null],
  ["foo[1M]", "1:5: parse error: bad duration syntax: \"1\""],
  ["foo[1mm]", "1:5: parse error: bad duration syntax: \"1mm\""],
  ["foo[1 m]", "1:5: parse error: missing unit character in duration"],
  ["foo[ 5m ]", null],
  ["foo[5m : 1m]", null],
  ["foo[5m:1]", "1:8: parse error: unexpected number \"1\" in subquery selector, expected duration or \"]\""],
  ["foo [5m]", null],
  ["foo offset5m", "1:5: parse error: unexpected identifier \"offset5m\""],
  ["1.e3", null],
  ["1e-3", null],
  [".e3", "1:1: parse error: unexpected character: '.'"],
  ["0x1p3", "1:1: parse error: bad number or duration syntax: \"0x1\""],
  ["0X1F", null],
  ["00", null],
  ["0.0", null],
  ["-0", null],
  ["1/0", null],
  ["{a=~\"(a{1000}){1000}\"}", "1:2: parse error: error parsing regexp: invalid repeat count: `{1000}`"],
  ["{a=~\"((a|b){100}c){100}\"}", "1:2: parse error: error parsing regexp: invalid repeat count: `{100}`"],
  ["{a=~\"(a{2}){501}\"}", "1:2: parse error: error parsing regexp: invalid repeat count: `{501}`"],
  ["{a=~\"a{1000}\"}", null],
  ["{a=~\"(?i)abc(?-i)def\"}", null],
  ["{a=~\"[[:^alpha:]]\"}", null],
  ["{a=~\"\\\\pN\"}", null],
  ["{a=~\"\\\\p{^Greek}\"}", null],
  ["{a=~\"\\\\PL\"}", null],
  ["{a=~\"[\\\\p{Lu}\\\\d]\"}", null],
  ["{a=~\"\\\\Qa.b\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:\\Qa.b)$`"],
  ["{a=~\"x{,3}\"}", null],
  ["{a=~\"x{2\"}", null],
  ["{a=~\"a|*\"}", "1:2: parse error: error parsing regexp: missing argument to repetition operator: `*`"],
  ["{a=~\"(|a)\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"()\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"(?i)(?P<x>\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:(?i)(?P<x>)$`"],
  ["{a=~\"[a-\\\\d]\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\d`"],
  ["{a=~\"[]a]\"}", null],
  ["{a=~\"[^]a]\"}", null],
  ["{a=~\"\\\\z\\\\A\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"(?m)^a$\"}", null],
  ["{a=~\"(?s).*\"}", "1:1: parse error: vector selector must contain at least one non-empty matcher"],
  ["{a=~\"(?U)a+\"}", null],
  ["{a=~\"(?x)a\"}", "1:2: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?x`"],
  ["{a=~\"\\\\08\"}", null],
  ["{a=~\"\\\\18\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\1`"],
  ["{a=~\"\\\\12\"}", null],
  ["{a=~\"\\\\x{110000}\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\x{110000`"],
  ["{a=~\"\\\\x{}\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\x{}`"],
  ["{a=~\"\\\\ca\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\c`"],
  ["{a=~\"\\\\e\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\e`"],
  ["{a=~\"é+\"}", null],
  ["{a=~\"\\\\é\"}", "1:2: parse error: error parsing regexp: invalid escape sequence: `\\é`"],
  ["{a=~\"\\\\_\"}", null],
  ["foo +\n  bar baz", "2:7: parse error: unexpected identifier \"baz\""],
  ["sum(\n  rate(x[5m]\n  ) offset", "3:11: parse error: unclosed left parenthesis"],
  ["foo{a=\"é\"}\n + é", "2:4: parse error: unexpected character: 'é'"],
  ["foo\n\n{a=\"b\"} +\n\"x\"", "4:1: parse error: binary expression must contain only scalar and instant vector types"],
  ["a\r\n+ b c", "2:5: parse error: unexpected identifier \"c\""],
  ["é + ü", "1:1: parse error: unexpected character: 'é'"],
];

test('every query parses or fails exactly as in Prometheus 2.42', () => {
  for (const [q, want] of PROMETHEUS_2_42) {
    if (want === null) {
      assert.doesNotThrow(() => parsePromql(q), q);
      continue;
    }
    assert.throws(
      () => parsePromql(q),
      (e: unknown) => {
        assert.ok(e instanceof PromqlError, q);
        assert.equal(e.errorType, 'bad_data', q);
        assert.equal(e.message, want, q);
        return true;
      },
      q,
    );
  }
});

test('valid queries parse back from their canonical text to the same tree', () => {
  const queries = [...VALID.map(([q]) => q), ...PROMETHEUS_2_42.filter(([, e]) => e === null).map(([q]) => q)];
  for (const q of queries) {
    const first = parsePromql(q);
    const text = formatExpr(first);
    const again = parsePromql(text);
    assert.deepEqual(strip(again), strip(first), `${q} → ${text}`);
    assert.equal(formatExpr(again), text, q);
  }
});

test('typeOf follows Prometheus', () => {
  const cases: [string, string][] = [
    ['1', 'scalar'],
    ['"a"', 'string'],
    ['foo', 'vector'],
    ['foo[5m]', 'matrix'],
    ['foo[5m:]', 'matrix'],
    ['rate(foo[5m])', 'vector'],
    ['time()', 'scalar'],
    ['scalar(foo)', 'scalar'],
    ['1 + time()', 'scalar'],
    ['1 + foo', 'vector'],
    ['-(time())', 'scalar'],
    ['sum(foo)', 'vector'],
  ];
  for (const [q, want] of cases) assert.equal(typeOf(parsePromql(q)), want, q);
});

test('durations are parsed as Prometheus parses them', () => {
  assert.equal(parseDurationMs('1y'), 365 * 86_400_000);
  assert.equal(parseDurationMs('1h30m'), 5_400_000);
  assert.equal(parseDurationMs('1500ms'), 1500);
  assert.equal(parseDurationMs('0'), 0);
  assert.equal(parseDurationMs('1m1h'), 'not a valid duration string: "1m1h"');
  assert.equal(parseDurationMs(''), 'empty duration string');
  assert.equal(parseDurationMs('300y'), 'duration out of range');
  assert.equal(parseDurationMs('292y'), 292 * 365 * 86_400_000);
});

test('deep nesting fails with an error, not a stack overflow', () => {
  const deep = `${'('.repeat(10_000)}1${')'.repeat(10_000)}`;
  assert.throws(() => parsePromql(deep), { message: new RegExp(`expression nests too deeply \\(more than ${MAX_DEPTH} levels\\)`) });
  const unary = `${'-'.repeat(10_000)}foo`;
  assert.throws(() => parsePromql(unary), /nests too deeply/);
  const calls = `${'abs('.repeat(5000)}foo${')'.repeat(5000)}`;
  assert.throws(() => parsePromql(calls), /nests too deeply/);
  const chain = Array.from({ length: 5000 }, () => 'a').join(' + ');
  assert.throws(() => parsePromql(chain), /nests too deeply/);
  // Within the limit: fine.
  const ok = `${'('.repeat(200)}1${')'.repeat(200)}`;
  assert.equal(typeOf(parsePromql(ok)), 'scalar');
  const longOr = Array.from({ length: 500 }, (_, i) => `m${i}`).join(' or ');
  assert.equal(typeOf(parsePromql(longOr)), 'vector');
});

test('huge inputs finish fast', () => {
  const t0 = performance.now();
  // A selector with a regex alternative list over the 1 MiB cap.
  const values = Array.from({ length: 120_000 }, (_, i) => `host${i}`).join('|');
  assert.throws(() => parsePromql(`up{instance=~"${values}"}`), /error parsing regexp: pattern longer than/);
  const big = `up{${Array.from({ length: 40_000 }, (_, i) => `l${i}="v${i}"`).join(',')}}`;
  assert.ok(big.length > 500_000);
  assert.equal(typeOf(parsePromql(big)), 'vector');
  const longString = `"${'x'.repeat(1_000_000)}"`;
  assert.equal(typeOf(parsePromql(longString)), 'string');
  assert.throws(() => parsePromql(`${'x'.repeat(1_000_000)} $`), /1:1000002: parse error: unexpected character: '\$'/);
  assert.throws(() => parsePromql('foo{'.repeat(100_000)), /unexpected left brace/);
  assert.throws(() => parsePromql('['.repeat(1_000_000)), PromqlError);
  assert.ok(performance.now() - t0 < 5000, `took ${performance.now() - t0} ms`);
});

test('only PromqlError escapes, for any input', () => {
  const pieces = ['foo', '(', ')', '[5m]', '[', ']', '{', '}', 'a="b"', ',', ' ', '+', '-', 'offset', '5m', '@', '1', 'sum', 'by', 'on', 'bool', '"', "'", '`', ':', '\\', 'é', '#', '\n', 'rate(', 'group_left', 'start()', 'x=~"(a+)+"', '!', '='];
  let seed = 42;
  const rand = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    let q = '';
    const len = 1 + rand(12);
    for (let j = 0; j < len; j++) q += pieces[rand(pieces.length)];
    try {
      const e = parsePromql(q);
      assert.deepEqual(strip(parsePromql(formatExpr(e))), strip(e), q);
    } catch (e) {
      if (!(e instanceof PromqlError) || e.errorType !== 'bad_data') throw new Error(`${JSON.stringify(q)}: ${String(e)}`);
    }
  }
});

test('positions of nodes cover their text', () => {
  const q = 'sum by (a) (rate(foo{x="y"}[5m] offset 1m)) + on(b) 2 * -bar';
  const e = parsePromql(q);
  assert.equal(e.kind, 'binary');
  if (e.kind !== 'binary') return;
  assert.deepEqual(e.pos, { start: 0, end: q.length });
  assert.equal(q.slice(e.lhs.pos!.start, e.lhs.pos!.end), 'sum by (a) (rate(foo{x="y"}[5m] offset 1m))');
  assert.equal(q.slice(e.rhs.pos!.start, e.rhs.pos!.end), '2 * -bar');
});
