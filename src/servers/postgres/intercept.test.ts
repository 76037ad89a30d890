import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatStatementTimeout, intercept, parseStatementTimeout, splitStatements } from './intercept.js';

test('splitStatements splits on ; outside quotes and comments, dropping empty statements', () => {
  assert.deepEqual(splitStatements('SELECT 1; SELECT 2;'), ['SELECT 1', 'SELECT 2']);
  assert.deepEqual(splitStatements("SELECT 'a;b'; SELECT \"x;\"\"y\" FROM t"), ["SELECT 'a;b'", 'SELECT "x;""y" FROM t']);
  assert.deepEqual(splitStatements("SELECT 'it''s;'"), ["SELECT 'it''s;'"]);
  assert.deepEqual(splitStatements('SELECT 1 -- a; comment\n; /* x; y */ SELECT 2'), ['SELECT 1 -- a; comment', '/* x; y */ SELECT 2']);
  assert.deepEqual(splitStatements('SELECT $$a;b$$; SELECT $t$;$t$'), ['SELECT $$a;b$$', 'SELECT $t$;$t$']);
  assert.deepEqual(splitStatements(' ; ;; -- only a comment'), []);
  assert.deepEqual(splitStatements(''), []);
});

test('intercept answers transaction, SET and SHOW statements; the rest runs as SQL', () => {
  assert.deepEqual(intercept('BEGIN')?.kind, 'tag');
  assert.equal((intercept('start transaction read only') as { tag: string }).tag, 'BEGIN');
  assert.equal((intercept('COMMIT') as { tag: string }).tag, 'COMMIT');
  assert.equal((intercept('abort') as { tag: string }).tag, 'ROLLBACK');
  assert.equal((intercept('SET TRANSACTION ISOLATION LEVEL READ COMMITTED') as { tag: string }).tag, 'SET');
  assert.deepEqual(intercept("SET TimeZone = 'Asia/Shanghai'"), { kind: 'set-timezone', value: 'Asia/Shanghai' });
  assert.deepEqual(intercept("set time zone '+08:00'"), { kind: 'set-timezone', value: '+08:00' });
  assert.deepEqual(intercept('SET SESSION timezone TO UTC'), { kind: 'set-timezone', value: 'UTC' });
  assert.deepEqual(intercept('SET search_path TO mydb, public'), { kind: 'set-search-path', value: 'mydb' });
  assert.deepEqual(intercept('SHOW TimeZone'), { kind: 'show', name: 'timezone', column: 'TimeZone' });
  assert.deepEqual(intercept('show transaction  isolation level'), { kind: 'show', name: 'transaction isolation level', column: 'transaction_isolation' });
  assert.equal(intercept('SHOW TABLES'), undefined);
  assert.equal(intercept('SHOW DATABASES'), undefined);
  assert.equal(intercept('SELECT 1'), undefined);
  assert.equal(intercept("INSERT INTO t VALUES ('SET x')"), undefined);
});

test('statement_timeout: SET and SHOW, values in milliseconds or with a unit', () => {
  assert.deepEqual(intercept("SET statement_timeout = '5s'"), { kind: 'set-statement-timeout', value: '5s' });
  assert.deepEqual(intercept('set session statement_timeout to 1500'), { kind: 'set-statement-timeout', value: '1500' });
  assert.deepEqual(intercept('SHOW statement_timeout'), { kind: 'show', name: 'statement_timeout', column: 'statement_timeout' });
  const cases: Array<[string, number | undefined]> = [
    ['0', 0],
    ['DEFAULT', 0],
    ['1500', 1500],
    ['5s', 5000],
    ['2min', 120_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['1500us', 2],
    ['soon', undefined],
    ['-1', undefined],
    ['5 parsecs', undefined],
  ];
  for (const [text, ms] of cases) assert.equal(parseStatementTimeout(text), ms, text);
  assert.deepEqual([0, 1500, 5000, 120_000, 3_600_000, 86_400_000].map(formatStatementTimeout), ['0', '1500ms', '5s', '2min', '1h', '1d']);
});
