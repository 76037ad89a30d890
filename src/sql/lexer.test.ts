/**
 * Tests of the SQL lexer: token kinds, values, positions, comments and unterminated input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { hexBytes, tokenize } from './lexer.js';
import type { Token } from './lexer.js';

/** [kind, value] of every token but the final eof. */
function kv(sql: string): Array<[string, string]> {
  const toks = tokenize(sql);
  assert.equal(toks.at(-1)?.kind, 'eof');
  return toks.slice(0, -1).map((t) => [t.kind, t.value]);
}

function syntaxError(message: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.InvalidSyntax);
    assert.equal(err.message, message);
    return true;
  };
}

test('identifiers: unquoted as written, double-quoted and backticked with doubled-quote escapes', () => {
  assert.deepEqual(kv('SeLeCt abc_1 "Mixed ""Q""" `b``t` @@session $1 日本'), [
    ['ident', 'SeLeCt'],
    ['ident', 'abc_1'],
    ['quoted_ident', 'Mixed "Q"'],
    ['quoted_ident', 'b`t'],
    ['ident', '@@session'],
    ['ident', '$1'],
    ['ident', '日本'],
  ]);
  const [dq, bt] = tokenize('"a" `b`');
  assert.equal(dq?.quote, '"');
  assert.equal(dq?.text, '"a"');
  assert.equal(bt?.quote, '`');
});

test('string literals resolve doubled quotes and may span lines', () => {
  assert.deepEqual(kv("'it''s' '' 'a\nb' 'x\"y'"), [
    ['string', "it's"],
    ['string', ''],
    ['string', 'a\nb'],
    ['string', 'x"y'],
  ]);
  assert.equal(tokenize("'it''s'")[0]?.text, "'it''s'");
});

test('numbers: integers, decimals, exponents, leading dot', () => {
  assert.deepEqual(kv('1 42 1.5 .5 1. 1e3 2.5E-3 7e+2 9223372036854775807'), [
    ['number', '1'],
    ['number', '42'],
    ['number', '1.5'],
    ['number', '.5'],
    ['number', '1.'],
    ['number', '1e3'],
    ['number', '2.5E-3'],
    ['number', '7e+2'],
    ['number', '9223372036854775807'],
  ]);
  // `1e` is a number followed by an identifier; `-1` is an operator and a number.
  assert.deepEqual(kv('1e -1'), [
    ['number', '1'],
    ['ident', 'e'],
    ['op', '-'],
    ['number', '1'],
  ]);
});

test('operators and punctuation, longest match first', () => {
  assert.deepEqual(
    kv('( ) , ; . = <> != < <= > >= + - * / % :: || a.b x::TIMESTAMP').map(([, v]) => v),
    ['(', ')', ',', ';', '.', '=', '<>', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '::', '||', 'a', '.', 'b', 'x', '::', 'TIMESTAMP'],
  );
  assert.ok(kv('<= >= <> :: ||').every(([k]) => k === 'op'));
  // Characters without a meaning still lex (DuckDB judges query text).
  assert.deepEqual(kv('a[1] ? #'), [
    ['ident', 'a'],
    ['op', '['],
    ['number', '1'],
    ['op', ']'],
    ['op', '?'],
    ['op', '#'],
  ]);
});

test('comments and whitespace are skipped; block comments nest', () => {
  assert.deepEqual(kv('a -- line comment ; here\n b /* block ; */ c /* outer /* inner */ still */ d\t\r\n-- last'), [
    ['ident', 'a'],
    ['ident', 'b'],
    ['ident', 'c'],
    ['ident', 'd'],
  ]);
  assert.deepEqual(kv('1--2'), [['number', '1']]);
  assert.deepEqual(kv('4/2'), [
    ['number', '4'],
    ['op', '/'],
    ['number', '2'],
  ]);
  assert.deepEqual(kv(''), []);
  assert.deepEqual(kv('  -- only a comment'), []);
});

test('tokens carry offsets, 1-based lines and columns', () => {
  const toks = tokenize("SELECT a,\n  'x'\n\t/* c\n */ b");
  const pos = (t: Token | undefined): [string, number, number, number, number] => [t?.text ?? '?', t?.start ?? -1, t?.end ?? -1, t?.line ?? -1, t?.column ?? -1];
  assert.deepEqual(toks.map(pos), [
    ['SELECT', 0, 6, 1, 1],
    ['a', 7, 8, 1, 8],
    [',', 8, 9, 1, 9],
    ["'x'", 12, 15, 2, 3],
    ['b', 26, 27, 4, 5],
    ['', 27, 27, 4, 6],
  ]);
});

test('unterminated strings, identifiers and comments are InvalidSyntax errors with line and column', () => {
  assert.throws(() => tokenize("SELECT 'abc"), syntaxError('Invalid SQL syntax: sql parser error: Unterminated string literal at Line: 1, Column: 8'));
  assert.throws(() => tokenize("SELECT 'it''"), syntaxError('Invalid SQL syntax: sql parser error: Unterminated string literal at Line: 1, Column: 8'));
  assert.throws(() => tokenize('SELECT\n  "abc'), syntaxError('Invalid SQL syntax: sql parser error: Unterminated quoted identifier at Line: 2, Column: 3'));
  assert.throws(() => tokenize('a `b'), syntaxError('Invalid SQL syntax: sql parser error: Unterminated quoted identifier at Line: 1, Column: 3'));
  assert.throws(() => tokenize('a\nb /* open /* nested */'), syntaxError('Invalid SQL syntax: sql parser error: Unterminated multi-line comment at Line: 2, Column: 3'));
});

test('a NUL character anywhere (code, string, identifier, comment) is an InvalidSyntax error at its line and column', () => {
  const nul = (l: number, c: number) =>
    syntaxError(`Invalid SQL syntax: sql parser error: a NUL character (U+0000) is not allowed in SQL text (binary data can be written as a hex literal, X'00') at Line: ${l}, Column: ${c}`);
  assert.throws(() => tokenize('SELECT 1\u0000'), nul(1, 9));
  assert.throws(() => tokenize("SELECT\n 'a\u0000b'"), nul(2, 4));
  assert.throws(() => tokenize('SELECT "x\u0000" FROM t'), nul(1, 10));
  assert.throws(() => tokenize('SELECT 1 -- \u0000\n'), nul(1, 13));
  assert.throws(() => tokenize("\n\n/* \u0000 */ 'unterminated"), nul(3, 4));
  assert.throws(() => tokenize('\u0000'), nul(1, 1));
  // Other control characters are left to the grammar (an op token, or part of a string).
  assert.deepEqual(kv("'a\u0001b'"), [['string', 'a\u0001b']]);
});

test("hex literals: X'..' / x'..' and 0x.. are one token of their digits; not identifiers or numbers", () => {
  assert.deepEqual(kv("X'00ff' x'AbCd' X'' 0x00ff 0XFF 0xabc"), [
    ['hex', '00ff'],
    ['hex', 'AbCd'],
    ['hex', ''],
    ['hex', '00ff'],
    ['hex', 'FF'],
    ['hex', '0abc'], // an odd count of 0x digits: a leading 0, as MySQL reads it
  ]);
  const [x, , zero] = tokenize("X'0a'=0x0b");
  assert.equal(x?.text, "X'0a'");
  assert.equal(zero?.text, '0x0b');
  assert.deepEqual([zero?.start, zero?.end], [6, 10]);
  // Not hex literals: X then a spaced string, identifiers ending in x, 0x without digits or with a non-hex letter.
  assert.deepEqual(kv("X '00' max'1' 0x 0x1g 10x1"), [
    ['ident', 'X'],
    ['string', '00'],
    ['ident', 'max'],
    ['string', '1'],
    ['number', '0'],
    ['ident', 'x'],
    ['number', '0'],
    ['ident', 'x1g'],
    ['number', '10'],
    ['ident', 'x1'],
  ]);
  assert.throws(() => tokenize("SELECT X'00"), syntaxError('Invalid SQL syntax: sql parser error: Unterminated string literal at Line: 1, Column: 8'));
});

test('hexBytes: the bytes of even hex digits; odd counts and non-hex digits are InvalidSyntax', () => {
  assert.deepEqual(hexBytes('00ffA0'), Buffer.from([0x00, 0xff, 0xa0]));
  assert.deepEqual(hexBytes(''), Buffer.alloc(0));
  assert.throws(() => hexBytes('0ff'), syntaxError("Invalid SQL syntax: sql parser error: invalid hex literal X'0ff': an even number of hex digits expected"));
  assert.throws(() => hexBytes('zz'), syntaxError("Invalid SQL syntax: sql parser error: invalid hex literal X'zz': an even number of hex digits expected"));
});
