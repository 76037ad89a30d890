import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { UserInfo } from './auth/user-provider.js';
import { MAX_QUERY_TEXT, ProcessList } from './process-list.js';
import { newSession } from './session.js';
import { abortError, startStatements } from './statement-control.js';
import { parameterMark } from '../sql/parameter-marks.js';

const alice: UserInfo = { username: 'alice', permission: 'read_write' };
const bob: UserInfo = { username: 'bob', permission: 'read_write' };
const info = (user: UserInfo = alice, extra = {}) => ({ catalog: 'tsdb', database: 'public', user, protocol: 'mysql', address: '127.0.0.1:1', query: 'SELECT 1', ...extra });

test('statements get increasing ids, leave the list when they end, and KILL aborts one with Cancelled', () => {
  const list = new ProcessList();
  const a = new AbortController();
  const b = new AbortController();
  const ea = list.begin(info(), a);
  const eb = list.begin(info(bob, { query: 'x'.repeat(MAX_QUERY_TEXT + 10) }), b);
  assert.ok(eb.id > ea.id);
  assert.deepEqual(list.list().map((e) => e.id), [ea.id, eb.id]);
  assert.equal(list.list()[1]!.query.length, MAX_QUERY_TEXT + 3);
  // Without authentication (ownerOnly false) anyone sees and kills anything.
  list.kill(eb.id, alice);
  assert.ok(b.signal.aborted);
  assert.equal((b.signal.reason as TsdbError).code, StatusCode.Cancelled);
  eb.end();
  eb.end();
  assert.deepEqual(list.list().map((e) => e.id), [ea.id]);
  assert.throws(() => list.kill(eb.id), (e: TsdbError) => e.code === StatusCode.InvalidArguments && /Unknown process id/.test(e.message));
  ea.end();
  assert.equal(list.size, 0);
});

test('with authentication a user sees and kills only their own statements; KILL QUERY by connection id', () => {
  const list = new ProcessList(true);
  const a = new AbortController();
  const b = new AbortController();
  const ea = list.begin(info(alice, { connectionId: 7 }), a);
  list.begin(info(bob, { connectionId: 8 }), b);
  assert.deepEqual(list.list(alice).map((e) => e.user.username), ['alice']);
  assert.equal(list.list().length, 2);
  assert.throws(() => list.kill(ea.id, bob), (e: TsdbError) => e.code === StatusCode.InvalidArguments);
  assert.equal(a.signal.aborted, false);
  assert.equal(list.killConnection('mysql', 7, 'test', bob), 0);
  assert.equal(list.killConnection('postgres', 7, 'test', alice), 0);
  assert.equal(list.killConnection('mysql', 7, 'test', alice), 1);
  assert.ok(a.signal.aborted);
  assert.equal(list.killAll('shutdown'), 2);
  assert.ok(b.signal.aborted);
});

test("startStatements: the client's signal, the time limit and KILL abort; end() unregisters and disarms", async () => {
  const list = new ProcessList();
  const session = newSession('public', 'UTC', alice, 'postgres');
  const client = new AbortController();
  const r = startStatements(list, session, 'SELECT 1', { signal: client.signal, address: '127.0.0.1:9', connectionId: 3 });
  assert.deepEqual(list.list().map((e) => [e.protocol, e.address, e.connectionId, e.query]), [['postgres', '127.0.0.1:9', 3, 'SELECT 1']]);
  client.abort(new TsdbError(StatusCode.DeadlineExceeded, 'Request timed out after 1s'));
  assert.throws(() => r.check(), (e: TsdbError) => e.code === StatusCode.DeadlineExceeded && e.message === 'Request timed out after 1s');
  assert.equal((r.error(new Error('INTERRUPT Error: Interrupted!')) as TsdbError).code, StatusCode.DeadlineExceeded);
  r.end();
  assert.equal(list.size, 0);

  // A plain abort (no TsdbError reason) is a cancel.
  const plain = new AbortController();
  plain.abort();
  assert.equal(abortError(plain.signal).code, StatusCode.Cancelled);

  const timed = startStatements(list, session, 'SELECT 2', { timeoutMs: 30 });
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.throws(() => timed.check(), (e: TsdbError) => e.code === StatusCode.DeadlineExceeded && /30ms/.test(e.message));
  timed.end();

  const ended = startStatements(list, session, 'SELECT 3', { timeoutMs: 30 });
  ended.end();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(ended.signal.aborted, false, 'the timer is disarmed at the end');
  const other = new Error('not aborted');
  assert.equal(ended.error(other), other);
});

test("a bound prepared query is listed without its values' parameter marks", () => {
  const list = new ProcessList();
  const r = startStatements(list, newSession('public', 'UTC', alice, 'mysql'), `SELECT ${parameterMark(1)}5 + 1`);
  assert.deepEqual(list.list().map((e) => e.query), ['SELECT 5 + 1']);
  r.end();
});
