import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matches } from './matches.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { StatusCode } from '../common/error/status-code.js';

const FOX = 'The quick brown fox jumps over the lazy dog';
const NO_OVER = 'The quick brown fox jumps      the lazy dog';
const NO_FOX = 'The quick brown     jumps over the lazy dog';

test('terms, phrases, AND binding tighter than OR and juxtaposition', () => {
  for (const [pattern, text, want] of [
    ['fox', FOX, true],
    ['Fox', FOX, false],
    ['"fox jumps"', FOX, true],
    ['"fox jumps"', NO_FOX, false],
    ['fox AND lazy', NO_FOX, false],
    ['fox OR lazy', NO_FOX, true],
    ['cat dog', FOX, true],
    ['fox OR brown AND cat', FOX, true],
    ['(fox OR brown) AND cat', FOX, false],
    ['brown AND (cat OR fox)', NO_FOX, false],
    ['fox and lazy', FOX, true],
  ] as const) {
    assert.equal(matches(text, pattern), want, pattern);
  }
});

test('+ requires, - excludes, and a required term makes the optional ones not matter', () => {
  for (const [pattern, text, want] of [
    ['fox +jumps -over', FOX, false],
    ['fox +jumps -over', NO_OVER, true],
    ['cat +jumps', NO_FOX, true], // "cat" is optional once +jumps is required
    ['-over -lazy', FOX, false],
    ['-over -lazy', 'The quick brown fox jumps', true],
    ['over -(fox jumps)', NO_FOX, false],
    ['over -(fox AND jumps)', NO_FOX, true],
    ['over AND -(-(fox OR jumps))', FOX, true],
    ['狐狸 AND 跳过 -石头', '狐狸跳过了小溪', true],
    ['狐狸 AND 跳过 -石头', '狐狸跳过了石头', false],
    ['"a\\"b"', 'xa"by', true],
  ] as const) {
    assert.equal(matches(text, pattern), want, pattern);
  }
});

test('a malformed pattern is GreptimeDB\'s error, 3001', () => {
  for (const [pattern, message] of [
    ['(fox', 'Unmatched parentheses'],
    ['fox)', 'Unmatched close parentheses'],
    ['"fox', `Unclosed quotes ('"')`],
    ['"fox"jumps', `Expect a space after quotes ('"')`],
    ['+ fox', 'Unexpected space after Must'],
    ['+-fox', 'Invalid pattern, unary operators should not be adjacent'],
    ['', 'Empty pattern'],
    ['fox\\', "Unexpected end of pattern, expected a character after escape ('\\')"],
    [Array.from({ length: 1001 }, () => 'a').join(' AND '), 'Invalid pattern, more than 2000 terms and operators'],
  ] as const) {
    assert.throws(
      () => matches(FOX, pattern),
      (e: unknown) => e instanceof TsdbError && e.code === StatusCode.EngineExecuteQuery && e.message === `Invalid function args: ${message}`,
      pattern,
    );
  }
});
