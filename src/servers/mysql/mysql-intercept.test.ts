import assert from 'node:assert/strict';
import { test } from 'node:test';
import { executionTimeOf } from './mysql-connection.js';
import { intercept } from './mysql-intercept.js';

const session = { timezone: 'UTC', serverVersion: '8.4.2-tsdb-0.1.0', maxExecutionTime: 700 };

test('max_execution_time: SET takes milliseconds, @@ and SHOW VARIABLES read the session value', () => {
  assert.deepEqual(intercept('SET max_execution_time = 1000', session), { kind: 'set-max-execution-time', ms: 1000 });
  assert.deepEqual(intercept('set session max_execution_time=0', session), { kind: 'set-max-execution-time', ms: 0 });
  assert.deepEqual(intercept('SET @@session.max_execution_time = DEFAULT', session), { kind: 'set-max-execution-time', ms: 0 });
  assert.equal(intercept("SET max_execution_time = 'soon'", session)?.kind, 'error');
  assert.equal(intercept('SET max_execution_time = -5', session)?.kind, 'error');
  assert.deepEqual(intercept('SELECT @@max_execution_time', session), { kind: 'rows', columns: [{ name: '@@max_execution_time', data_type: 'String' }], rows: [['700']] });
  assert.deepEqual(intercept("SHOW VARIABLES LIKE 'max_execution_time'", session), {
    kind: 'rows',
    columns: [{ name: 'Variable_name', data_type: 'String' }, { name: 'Value', data_type: 'String' }],
    rows: [['max_execution_time', '700']],
  });
});

test("a statement's time limit: a SELECT's hint, else the session's; MySQL limits only SELECTs", () => {
  assert.equal(executionTimeOf('SELECT 1', 700), 700);
  assert.equal(executionTimeOf('  with x AS (SELECT 1) SELECT * FROM x', 700), 700);
  assert.equal(executionTimeOf('SELECT /*+ MAX_EXECUTION_TIME(50) */ 1', 700), 50);
  assert.equal(executionTimeOf('select /*+ BKA(t) max_execution_time( 9 ) */ 1', 0), 9);
  assert.equal(executionTimeOf('INSERT INTO t SELECT 1', 700), 0);
  assert.equal(executionTimeOf('KILL 3', 700), 0);
});
