import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, floatText, JsonPath, JsonPathError, jsonText, JsonSyntaxError, parseJson } from './jsonb.js';

const syntaxError = (message: string) => (e: unknown) => e instanceof JsonSyntaxError && e.message === message;

test('parseJson: jsonb error messages and byte positions', () => {
  const cases: Array<[string, string]> = [
    ['{"a":1, "b":2, "c":3', 'EOF while parsing a value, pos 20'],
    ['Morning my friends', 'expected value, pos 1'],
    ['[1 2]', 'expected `,` or `]`, pos 3'],
    ['{"a":1 "b":2}', 'expected `,` or `}`, pos 7'],
    ['{"a" 1}', 'expected `:`, pos 5'],
    ['{1: 1}', 'key must be a string, pos 2'],
    ['[01]', 'invalid number, pos 3'],
    ['[-]', 'invalid number, pos 3'],
    ['[1.]', 'invalid number, pos 4'],
    ['[1e]', 'invalid number, pos 4'],
    ['nul', 'EOF while parsing a value, pos 3'],
    ['nulx', 'expected ident, pos 4'],
    ['1 2', 'trailing characters, pos 3'],
    ['', 'EOF while parsing a value, pos 0'],
    // Positions count bytes of the UTF-8 text, as jsonb's do.
    ['["é" x]', 'expected `,` or `]`, pos 6'],
  ];
  for (const [text, message] of cases) assert.throws(() => parseJson(text), syntaxError(message), text);
});

test('canonical text: keys sorted by bytes, the last of a repeated key, no spaces, escaped whitespace between tokens', () => {
  assert.equal(canonicalJson('{"b": 1, "a": {"d": [1, 2], "c": null}, "b": 2}'), '{"a":{"c":null,"d":[1,2]},"b":2}');
  // Code point order: U+FF5E sorts before U+1F600 (UTF-16 order would put the emoji first).
  assert.equal(canonicalJson('{"😀": 1, "～": 2, "z": 3}'), '{"z":3,"～":2,"😀":1}');
  assert.equal(canonicalJson('\\n [1,\\t2]\\r'), '[1,2]');
  assert.equal(canonicalJson('  true '), 'true');
});

test('numbers: integers of 64 bits kept, others floats written as ryu writes them', () => {
  const cases: Array<[string, string]> = [
    ['0', '0'],
    ['-0', '0'],
    ['18446744073709551615', '18446744073709551615'],
    ['18446744073709551616', '1.8446744073709552e19'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['-9223372036854775809', '-9.223372036854776e18'],
    ['1.0', '1.0'],
    ['-0.0', '-0.0'],
    ['1e100', '1e100'],
    ['-3e123', '-3e123'],
    ['1.5e300', '1.5e300'],
    ['3.1415926535897932384626', '3.141592653589793'],
    ['123456.0', '123456.0'],
    ['1e15', '1000000000000000.0'],
    ['1e16', '1e16'],
    ['12345678901234567e1', '1.2345678901234566e17'],
    ['0.1', '0.1'],
    ['0.00001', '0.00001'],
    ['0.000001', '1e-6'],
    ['1.25e-7', '1.25e-7'],
    ['2E+2', '200.0'],
  ];
  for (const [text, canonical] of cases) assert.equal(canonicalJson(text), canonical, text);
  assert.equal(floatText(NaN), 'NaN');
  assert.equal(floatText(-Infinity), '-inf');
});

test('strings: escaped as Rust debug-prints them, keys written as they are', () => {
  assert.equal(canonicalJson('"a\\"b\\\\c\\/d\\n\\t\\r"'), '"a\\"b\\\\c/d\\n\\t\\r"');
  assert.equal(canonicalJson('"abc\\u2028tom"'), '"abc\\u2028tom"');
  assert.equal(canonicalJson('"\\u0001\\b\\f\\u007f\\u00ad x"'), '"\\u0001\\u0008\\u000C\\u007F\\u00AD x"');
  assert.equal(canonicalJson('"\\u0000"'), '"\\0"');
  assert.equal(canonicalJson('"\\ud83d\\ude00 é ～"'), '"😀 é ～"');
  // jsonb's braced escape holds exactly 4 hex digits.
  assert.equal(canonicalJson('"\\u{03a3}"'), '"Σ"');
  assert.throws(() => canonicalJson('"\\u{1f600}"'), JsonSyntaxError);
  assert.equal(canonicalJson('"\u3000"'), '"\\u3000"');
  assert.equal(canonicalJson('{"a\\"b": 1}'), '{"a"b":1}');
});

test('JsonPath: jsonb path forms select as jsonb does', () => {
  const doc = parseJson('{"a": {"b": {"c": 1}}, "arr": [10, 20, 30, {"x": 5}], "k y": true}');
  const get = (path: string) => {
    const v = JsonPath.parse(path).get(doc);
    return v === undefined ? undefined : jsonText(v);
  };
  assert.equal(get('a.b.c'), '1');
  assert.equal(get('a:b.c'), '1');
  assert.equal(get('a.b["c"]'), '1');
  assert.equal(get('$.a.b'), '{"c":1}');
  assert.equal(get('$'), jsonText(doc));
  assert.equal(get('$["k y"]'), 'true');
  assert.equal(get('arr[0]'), '10');
  assert.equal(get('arr[last]'), '{"x":5}');
  assert.equal(get('arr[last - 1]'), '30');
  assert.equal(get('arr[1 to 2]'), '[20,30]');
  assert.equal(get('arr[0, 2]'), '[10,30]');
  assert.equal(get('arr[9]'), undefined);
  assert.equal(get('a.x'), undefined);
  assert.equal(get('$.a.*'), '{"c":1}');
  assert.equal(get('$.arr[*] ? (@ > 15)'), '[20,30]');
  assert.equal(get('$.arr[*] ? (exists(@.x))'), '{"x":5}');
  assert.equal(get('null'), undefined);
});

test('JsonPath: predicates, and paths that do not parse', () => {
  const doc = parseJson('{"a": 1, "b": [1, 2, 3], "s": "x"}');
  const match = (path: string) => {
    const p = JsonPath.parse(path);
    assert.ok(p.predicate !== undefined, path);
    return p.select(doc).length > 0;
  };
  assert.equal(match('$.a == 1'), true);
  assert.equal(match('$.b[0] > 1'), false);
  assert.equal(match('$.b[1 to last] >= 2'), true);
  assert.equal(match('$.s == "x" && $.a != 2'), true);
  assert.equal(match('$.a == 2 || $.a < 0'), false);
  assert.equal(match('$.a <> 1'), false);
  assert.equal(JsonPath.parse('$.a').predicate, undefined);
  for (const bad of ['$.a ==', 'a[', '$.a[x]', '$["a"', '$.a == 1 extra']) assert.throws(() => JsonPath.parse(bad), JsonPathError, bad);
});

test('nesting deeper than 128 arrays or objects is refused with a syntax error, never a stack overflow', () => {
  assert.equal(jsonText(parseJson(`${'['.repeat(128)}${']'.repeat(128)}`)), `${'['.repeat(128)}${']'.repeat(128)}`);
  for (const text of ['['.repeat(129) + ']'.repeat(129), '['.repeat(100_000), '{"a":'.repeat(200) + '1' + '}'.repeat(200)]) {
    assert.throws(() => parseJson(text), (e: unknown) => e instanceof JsonSyntaxError && /^recursion limit exceeded, pos \d+$/.test(e.message));
  }
});
