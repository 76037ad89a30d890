import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { checkColumnCount, checkColumnName, checkDatabaseName, checkTableName } from './limit-checks.js';
import { MAX_COLUMNS_PER_TABLE, MAX_DATABASE_NAME_LENGTH, MAX_NAME_LENGTH } from './limits.js';

function invalid(message: string | RegExp): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.InvalidArguments);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

const RULE = 'a name starts with a letter, _, : or - and goes on with letters, digits, _, :, -, ., @ or #';

test("table and database names follow GreptimeDB's NAME_PATTERN", () => {
  for (const ok of ['cpu', 'Cpu_1', '_x', ':m', '-m', 'sys.cpu.nice', 'a@b#c', 'a-b:c', 'x'.repeat(MAX_NAME_LENGTH)]) {
    checkTableName(ok);
    if (ok.length <= MAX_DATABASE_NAME_LENGTH) checkDatabaseName(ok);
  }
  for (const [bad, shown] of [
    ['', '""'],
    ['1abc', '1abc'],
    ['a b', 'a b'],
    ['a/b', 'a/b'],
    ['..', '..'],
    ['@x', '@x'],
    ['#x', '#x'],
    ['.x', '.x'],
    ['é', 'é'],
    ['🈲', '🈲'],
    ['a\u0001', '"a\\u0001"'],
    [' a', '" a"'],
  ] as const) {
    assert.throws(() => checkTableName(bad), invalid(`Invalid table name: ${shown}: ${RULE}`), bad);
    assert.throws(() => checkDatabaseName(bad), invalid(`Invalid database name: ${shown}: ${RULE}`), bad);
  }
  // Long names are cut in messages.
  assert.throws(() => checkTableName(`${'a'.repeat(100)} b`), invalid(/^Invalid table name: a{32}…a{14} b \(102 characters\): /));
});

test('a database name is a directory name: at most 255 characters', () => {
  checkDatabaseName('d'.repeat(MAX_DATABASE_NAME_LENGTH));
  assert.throws(() => checkDatabaseName('d'.repeat(MAX_DATABASE_NAME_LENGTH + 1)), invalid(/^Invalid database name: d{32}…d{16} \(256 characters\): at most 255 characters$/));
});

test('a table has at most MAX_COLUMNS_PER_TABLE columns', () => {
  checkColumnCount('t', MAX_COLUMNS_PER_TABLE);
  assert.throws(() => checkColumnCount('t', MAX_COLUMNS_PER_TABLE + 1), invalid(`Too many columns: table t would have ${MAX_COLUMNS_PER_TABLE + 1} columns, at most ${MAX_COLUMNS_PER_TABLE}`));
});

test('table and column names have at most MAX_NAME_LENGTH characters (a 1 MB name is refused, its message cut)', () => {
  checkTableName('t'.repeat(MAX_NAME_LENGTH));
  checkColumnName('t', 'c'.repeat(MAX_NAME_LENGTH));
  assert.throws(() => checkTableName('t'.repeat(1 << 20)), invalid(/^Invalid table name: t{32}…t{16} \(1048576 characters\): at most 255 characters$/));
  assert.throws(() => checkColumnName('cpu', 'c'.repeat(MAX_NAME_LENGTH + 1)), invalid(/^Invalid column name: c{32}…c{16} \(256 characters\) of table cpu: at most 255 characters$/));
});
