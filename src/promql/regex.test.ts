import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../common/sql-quote.js';
import { PromqlError } from './errors.js';
import { LinearRegExp, LiteralSetRegExp } from './linear-regexp.js';
import { compileMatcherNfa, compileMatcherRegex, MAX_PATTERN_LENGTH } from './regex.js';

const VALUES = [
  '', 'a', 'A', 'ab', 'aB', 'AB', 'abc', 'aaa', 'b', 'foo', 'FOO', 'foobar', 'barfoo', 'foo.bar', 'fooXbar', 'a\nb', 'a\n', '\n', 'x\ny', 'é', 'É', 'Ω', 'ω',
  '😀', 'a😀b', '123', '12a', ' ', '\t', '\v', '\f', '\u00a0', '_', 'a_b', 'a-b', 'a b', '{', '}', '[', ']', 'x{2}', 'xx', 'a.b', 'a\\b', '$', '^',
  'api-v1-prod', 'host:9100', 'k', 'K', '\u212a', 'ſ', 's', 'S',
];

/** Patterns whose full matches must agree with RE2's (DuckDB's regexp_full_match). */
const PATTERNS = [
  'a', 'a|b', 'ab|a', '(a|b)*', '(foo|bar)+', 'foo.*', '.*foo.*', '.*foo.*bar.*', '.+', '.*', '.', 'a.b', '(?s)a.b', '(?s).*', '[a-c]+', '[^a-c]+',
  '[]a]', '[^]a]+', '[a-]', '[-a]', '\\d+', '\\D', '\\w+', '\\W', '\\s', '\\S', '[\\s]', '[^\\s]', '[\\S]', '[^\\S]', '[\\d\\s]+', '[^\\d]', '[\\D]+',
  '[[:alpha:]]+', '[[:^alpha:]]', '[[:alnum:]_]+', '[[:space:]]', '[[:punct:]]', '[[:upper:][:digit:]]+', '\\pL', '\\PL', '\\p{L}+', '\\p{Lu}', '\\p{Greek}',
  '\\p{^Greek}', '\\pN+', '[\\p{Lu}\\d]+', '(?i)ab', '(?i)foo|bar', '(?i)é', '(?i)[a-c]+', '(?i)[^a]', 'a(?i)b', '(?i:a)b', '(?i)a(?-i)b', '(?i)k',
  '(?i)s', '(?i)\\pL', '(?m)^a$', '(?m)a$', '(?m)^b', '(?m)a\\n^b', '^a', 'a$', '\\Aa\\z', 'a\\z', '\\Qa.b\\E', 'x{2}', 'x\\{2\\}', 'x{2,}',
  'x{1,2}', 'x{,2}', 'x{', 'a{2}b?', '\\x41', '\\x{1F600}', '\\101', '\\012', '\\.', '\\$', '\\^', '\\{', '\\\\', 'a\\b', '\\bfoo\\b', '\\Bo', 'o\\B',
  '(?P<name>a)(b)', '(?U)a+', 'foo|bar|a.b|x|', 'a0|a1|a2|a3|a4|a5|a6|a7|a8|a9|b0|b1|b2|b3|b4|b5|b6|b7|b8|b9|a|ab|abc|aB|', '(?i)a0|a1|a2|a3|a4|a5|a6|a7|a8|a9|b0|b1|b2|b3|b4|b5|b6|b7|b8|b9|a|ab|abc|é', 'a+?', 'a*?b', '(a|ab)(c|bcd)', '(a+)+', '(.*)*', '(a|a)*', '(a?){5}a{5}', '.*a.*a.*a', '[a-z]+[a-z]+[a-z]+', '(?:)',
  '()', '(|a)', 'a||b', 'é+', '😀', 'a😀b', '[😀]', '.{3}', '^$', '$^', 'api-.*-prod', '[a-z]+:\\d+', '\\x{212a}', '[ſ]',
];

test('matches agree with RE2 (DuckDB’s regexp_full_match) on every pattern and value', async (t) => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  t.after(() => {
    conn.closeSync();
    db.closeSync();
  });
  const list = VALUES.map(quoteLiteral).join(', ');
  for (const p of PATTERNS) {
    const re = compileMatcherRegex(p);
    const rows = (await conn.runAndReadAll(`SELECT v FROM unnest([${list}]) AS t(v) WHERE regexp_full_match(v, ${quoteLiteral(p)})`)).getRows().map((r) => r[0] as string);
    const mine = VALUES.filter((v) => re.test(v));
    assert.deepEqual(mine.sort(), rows.sort(), `${p} (JavaScript ${re.source} /${re.flags})`);
    const nfa = compileMatcherNfa(p);
    assert.deepEqual(VALUES.filter((v) => nfa.test(v)).sort(), rows.sort(), `${p} on the NFA`);
  }
});

test('translations for JavaScript', () => {
  const cases: [string, string, string][] = [
    ['foo|bar', '^(?:foo|bar)$', 'u'],
    ['(?i)foo', '^(?:foo)$', 'iu'],
    ['a(?i)b', '^(?:a[bB])$', 'u'],
    ['a.b', '^(?:a[^\\n]b)$', 'u'],
    ['(?s)a.b', '^(?:a[^]b)$', 'u'],
    ['\\d\\s\\w', '^(?:[0-9][\\t\\n\\f\\r ][0-9A-Za-z_])$', 'u'],
    ['[[:alpha:]]', '^(?:[A-Za-z])$', 'u'],
    ['\\pL\\p{Greek}', '^(?:[\\p{L}][\\p{Script=Greek}])$', 'u'],
    ['(?P<n>a)(b)(?:c)', '^(?:(?<n>a)(b)(?:c))$', 'u'],
    ['a\\z', '^(?:a$)$', 'u'],
    ['\\Qa.b\\E', '^(?:a\\.b)$', 'u'],
  ];
  for (const [p, source, flags] of cases) {
    const re = compileMatcherRegex(p);
    assert.equal(re.source, source, p);
    assert.equal(re.flags, flags, p);
  }
  // Capturing groups keep RE2's numbers (label_replace's $1).
  assert.equal('api-v1'.replace(compileMatcherRegex('(\\w+)-(?:v)(\\d)'), '$2:$1'), '1:api');
  assert.equal('ab'.replace(compileMatcherRegex('(?P<x>a)(b)'), '$2$1'), 'ba');
});

test('what RE2 refuses is refused with Go’s message', () => {
  const cases: [string, string][] = [
    ['(abc', 'missing closing ): `^(?:(abc)$`'],
    ['abc)', 'unexpected ): `^(?:abc))$`'],
    ['[a', 'missing closing ]: `[a)$`'],
    ['\\q', 'invalid escape sequence: `\\q`'],
    ['a**', 'invalid nested repetition operator: `**`'],
    ['a+*', 'invalid nested repetition operator: `+*`'],
    ['*a', 'missing argument to repetition operator: `*`'],
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?!a)', 'invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=a)', 'invalid or unsupported Perl syntax: `(?<`'],
    ['(?<n>a)', 'invalid or unsupported Perl syntax: `(?<`'],
    ['\\1', 'invalid escape sequence: `\\1`'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['x{1001}', 'invalid repeat count: `{1001}`'],
    ['(a{2}){501}', 'invalid repeat count: `{501}`'],
    ['[z-a]', 'invalid character class range: `z-a`'],
    ['[[:foo:]]', 'invalid character class range: `[:foo:]`'],
    ['\\p{Foo}', 'invalid character class range: `\\p{Foo}`'],
    ['[a-\\d]', 'invalid escape sequence: `\\d`'],
    ['\\x{zz}', 'invalid escape sequence: `\\x{z`'],
  ];
  for (const [p, msg] of cases) {
    assert.throws(
      () => compileMatcherRegex(p),
      (e: unknown) => e instanceof PromqlError && e.errorType === 'bad_data' && e.message === `error parsing regexp: ${msg}`,
      p,
    );
  }
  assert.throws(() => compileMatcherRegex('a'.repeat(MAX_PATTERN_LENGTH + 1)), /error parsing regexp: pattern longer than/);
  assert.throws(() => compileMatcherRegex('(?:(?:(?:a{0,999}){0,1}b{1000})|c){1}x{999}y{999}z{999}q{999}w{999}e{999}r{999}t{999}u{999}i{999}o{999}p{999}s{999}d{999}f{999}g{999}h{999}j{999}k{999}l{999}m{999}n{999}v{999}a{999}b{999}c{999}d{999}e{999}f{999}g{999}h{999}i{999}j{999}k{999}l{999}m{999}n{999}o{999}p{999}q{999}r{999}s{999}t{999}u{999}v{999}w{999}x{999}y{999}z{999}a{999}b{999}c{999}d{999}e{999}f{999}g{999}h{999}i{999}j{999}k{999}l{999}m{999}n{999}o{999}p{999}q{999}r{999}s{999}t{999}u{999}v{999}w{999}x{999}y{999}z{999}a{999}b{999}c{999}d{999}e{999}f{999}g{999}h{999}i{999}j{999}k{999}l{999}m{999}n{999}o{999}p{999}q{999}r{999}s{999}t{999}u{999}v{999}w{999}x{999}y{999}z{999}(a+)+'), /expression too large/);
});

test('patterns that would backtrack long match in linear time, and agree with backtracking', () => {
  const exponential = ['(a+)+b', '(.*)*x', '(a|aa)*b', '(a|a)*', '(x+x+)+y', '(a?){20}a{20}', '(\\w+\\s?)*$', '((ab)*|a)*c'];
  for (const p of exponential) {
    const re = compileMatcherRegex(p);
    assert.ok(re instanceof LinearRegExp, p);
    const t0 = performance.now();
    for (const s of ['a'.repeat(100_000), 'x'.repeat(100_000), 'ab'.repeat(50_000), 'word '.repeat(20_000) + '!']) re.test(s);
    assert.ok(performance.now() - t0 < 2000, `${p}: ${performance.now() - t0} ms`);
  }
  const polynomial = ['.*a.*a.*a', '[a-z]+[a-z]+[a-z]+', '.*foo.*bar.*baz.*'];
  for (const p of polynomial) {
    const re = compileMatcherRegex(p);
    assert.ok(re instanceof LinearRegExp, p);
    const t0 = performance.now();
    re.test('a'.repeat(100_000) + 'b');
    re.test('foo'.repeat(30_000));
    assert.ok(performance.now() - t0 < 2000, `${p}: ${performance.now() - t0} ms`);
  }
  // The NFA answers as the backtracking engine does, where that one finishes.
  let seed = 7;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return (seed >>> 8) % n;
  };
  for (const p of [...exponential, ...polynomial, '(?m)^a(b|c)*$', '\\bab*\\b', '(?i)(a|b)*c+', 'é(ü|😀)+.', '(a|ab)*(c|bcd)*d']) {
    const re = compileMatcherRegex(p);
    for (let i = 0; i < 300; i++) {
      let s = '';
      const len = rand(16);
      for (let j = 0; j < len; j++) s += 'abcdxy \néü😀A'.split('')[rand(13)] ?? 'a';
      const backtracking = RegExp.prototype.exec.call(new RegExp(re.source, re.flags), s) !== null;
      assert.equal(re.test(s), backtracking, `${p} on ${JSON.stringify(s)}`);
    }
  }
});

test('ordinary patterns are plain RegExps; lists of literals are sets', () => {
  for (const p of ['foo', '.*foo', 'foo.*', 'api-.*', '(foo|bar)+', '[a-z]+', '\\d{1,3}', 'x?y?z?', '(?i)a|b', 'a.b|c']) assert.equal(compileMatcherRegex(p).constructor, RegExp, p);
  for (const p of ['foo|bar', '(a|b)', 'a\\.b|c', 'x|']) assert.ok(compileMatcherRegex(p) instanceof LiteralSetRegExp, p);
  const set = compileMatcherRegex('(foo|bar\\.baz)');
  assert.deepEqual(['foo', 'bar.baz', 'barxbaz', 'fo', 'foox', ''].filter((v) => set.test(v)), ['foo', 'bar.baz']);
  assert.equal('foo'.replace(set, '[$1]'), '[foo]');
});

test('a long list of alternatives matches fast', () => {
  const hosts = Array.from({ length: 10_000 }, (_, i) => `host-${i}.example.com`);
  // Unescaped dots: not literal; the common prefixes are factored out.
  const re = compileMatcherRegex(hosts.join('|'));
  const escaped = compileMatcherRegex(hosts.map((h) => h.replaceAll('.', '\\.')).join('|'));
  assert.ok(escaped instanceof LiteralSetRegExp);
  const t0 = performance.now();
  let n = 0;
  for (let i = 0; i < 3000; i++) if (re.test(`host-${i * 17}.example.com`)) n++;
  for (let i = 0; i < 3000; i++) if (escaped.test(`host-${i * 17}.example.com`)) n++;
  assert.equal(n, 2 * Math.ceil(10_000 / 17));
  assert.ok(re.test('host-1xexample.com') && !escaped.test('host-1xexample.com'));
  assert.ok(performance.now() - t0 < 5000, `${performance.now() - t0} ms`);
});
