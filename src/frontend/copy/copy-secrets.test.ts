/**
 * A COPY to or from object storage carries credentials in its CONNECTION clause: the process list
 * (SHOW PROCESSLIST, information_schema.process_list) shows the statement with them masked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProcessList } from '../process-list.js';
import { newSession } from '../session.js';
import { startStatements } from '../statement-control.js';

test('the process list masks the secrets of a COPY CONNECTION, and only there', () => {
  const list = new ProcessList();
  const session = newSession();
  const copy = startStatements(list, session, "COPY DATABASE d TO 's3://b/p/' CONNECTION (ENDPOINT = 'http://s3', ACCESS_KEY_ID = 'AKIAEXAMPLE', SECRET_ACCESS_KEY = 'very-secret')");
  const plain = startStatements(list, session, "SELECT 'CONNECTION', 'very-secret'");
  const shown = list.list().map((e) => e.query);
  copy.end();
  plain.end();
  assert.equal(shown.length, 2);
  assert.ok(!shown[0]!.includes('very-secret') && !shown[0]!.includes('AKIAEXAMPLE'), shown[0]);
  assert.match(shown[0]!, /^COPY DATABASE d TO 's3:\/\/b\/p\/' CONNECTION \(ENDPOINT = 'http:\/\/s3', ACCESS_KEY_ID = '\*\*\*', SECRET_ACCESS_KEY = '\*\*\*'\)$/);
  assert.equal(shown[1], "SELECT 'CONNECTION', 'very-secret'");
});
