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

test("tools' probes GreptimeDB answers with nothing: mysqldump/mydumper replication and backup locks, DBeaver's plugins and engines", () => {
  for (const q of ['SHOW MASTER STATUS', 'show all slaves status', 'LOCK BINLOG FOR BACKUP', 'UNLOCK BINLOG', 'SELECT $$', "SELECT LOGFILE_GROUP_NAME, FILE_NAME, TOTAL_EXTENTS, INITIAL_SIZE, ENGINE, EXTRA FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'UNDO LOG'"]) {
    assert.deepEqual(intercept(q, session), { kind: 'ok' }, q);
  }
  assert.deepEqual(intercept('/* ApplicationName=DBeaver 24.1.0 - Main */ SHOW PLUGINS', session), { kind: 'ok' });
  assert.deepEqual(intercept('/* ApplicationName=DBeaver 24.1.0 - Main */ SHOW ENGINES', session), { kind: 'ok' });
  // With the prefix, what tsdb answers itself is answered the same; the rest runs as SQL.
  assert.deepEqual(intercept('/* ApplicationName=DBeaver 24.1.0 - Metadata */ SELECT @@max_execution_time', session), { kind: 'rows', columns: [{ name: '@@max_execution_time', data_type: 'String' }], rows: [['700']] });
  assert.equal(intercept('/* ApplicationName=DBeaver 24.1.0 - Main */ SELECT * FROM t', session), undefined);
  assert.deepEqual(intercept('SELECT TIMEDIFF(NOW(), UTC_TIMESTAMP())', session), { kind: 'rows', columns: [{ name: 'TIMEDIFF(NOW(), UTC_TIMESTAMP())', data_type: 'String' }], rows: [['00:00:00']] });
  assert.equal(intercept('SHOW MASTER STATUS FOR x', session), undefined);
});
