import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesTerm } from './term-match.js';

test('a term matches whole: ASCII terms not touching ASCII letters or digits, case-sensitive', () => {
  for (const [text, term, want] of [
    ['cat!', 'cat', true],
    ['dog,cat', 'cat', true],
    ['category', 'cat', false],
    ['cat5', 'cat', false],
    ['dogcat', 'dog', false],
    ['rebooted', 'boot', false],
    ['Cat', 'Cat', true],
    ['cat', 'Cat', false],
    ['warning:hello world!', 'hello world', true],
    ['hello-world', 'hello world', false],
    ['hello world2023', 'hello world', false],
    ['critical_errors', 'critical error', false],
    ['trace_id=abc', 'trace_id', true],
    ['_ship', '_ship', true],
    ['ship_ship', 'ship', true], // '_' is no letter or digit
    ['category cat', 'cat', true],
  ] as const) {
    assert.equal(matchesTerm(text, term), want, `${text} / ${term}`);
  }
});

test('punctuation at a term\'s edge, other scripts, Han terms and empty ones', () => {
  for (const [text, term, want] of [
    ['dog/cat', '/cat', true],
    ['dog/cat', 'dog/', true],
    ['v1.0!', 'v1.0', true],
    ['café>', 'café', true],
    ['cafés', 'café', false],
    ['русский!', 'русский', true],
    ['русскийя', 'русский', false],
    ['登录手机号18888888888的动态key', '手机', true],
    ['登录手机号18888888888的动态key', '机号1888', true],
    ['错误error日志', 'error', true],
    ['', '', true],
    ['any', '', false],
    ['', 'any', false],
    ['😀cat', 'cat', true],
  ] as const) {
    assert.equal(matchesTerm(text, term), want, `${text} / ${term}`);
  }
});
