import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { newSession } from '../session.js';
import { parameterMark } from '../../sql/parameter-marks.js';
import { bindParameters, boundSql, deallocate, prepare } from './prepared.js';

test('placeholders are bound as literals, never inside strings, quoted names or comments', () => {
  assert.equal(
    bindParameters("DELETE FROM t WHERE b = ? AND '?' = \"?\" AND a = ? -- ?\n", [{ kind: 'string', value: "it's" }, { kind: 'number', text: '-1.5' }]),
    "DELETE FROM t WHERE b = 'it''s' AND '?' = \"?\" AND a = -1.5 -- ?\n",
  );
  assert.equal(bindParameters('INSERT INTO t VALUES ($2, $1, $2)', [{ kind: 'null' }, { kind: 'boolean', value: true }]), 'INSERT INTO t VALUES (TRUE, NULL, TRUE)');
});

test("a query's values are marked as their parameters' (`?` by position), an expression is not", () => {
  const [m1, m2] = [parameterMark(1), parameterMark(2)];
  assert.equal(bindParameters("SELECT ?, '?' FROM t WHERE a = ?", [{ kind: 'string', value: "it's" }, { kind: 'number', text: '-1.5' }]), `SELECT ${m1}'it''s', '?' FROM t WHERE a = ${m2}-1.5`);
  assert.equal(bindParameters('SELECT $2, $1, $2', [{ kind: 'null' }, { kind: 'boolean', value: true }], ['INT']), `SELECT ${m2}TRUE, ${m1}CAST(NULL AS INT), ${m2}TRUE`);
  assert.equal(bindParameters('SELECT $1', [{ kind: 'sql', text: 'now() - 1' }], ['TIMESTAMP']), 'SELECT CAST((now() - 1) AS TIMESTAMP)');
  assert.throws(() => bindParameters('SELECT ?', []), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && /has 1 parameter, EXECUTE gave 0/.test(e.message));
});

test('prepared statements live on the session until deallocated; PREPARE checks what it keeps', async () => {
  const s = newSession();
  const planned: string[] = [];
  const plan = async (q: string) => void planned.push(q);
  await prepare({ kind: 'prepare', name: 'p', sql: 'SELECT ? AS x, $2', types: ['INT'], text: '' }, s, plan);
  // The query is planned with every parameter NULL.
  assert.deepEqual(planned, [`SELECT ${parameterMark(1)}CAST(NULL AS INT) AS x, ${parameterMark(2)}NULL`]);
  await prepare({ kind: 'prepare', name: 'p', sql: 'SELECT ? AS x', types: [], text: '' }, s, plan);
  assert.equal(boundSql({ kind: 'execute', name: 'p', args: [{ kind: 'number', text: '1' }], text: '' }, s), `SELECT ${parameterMark(1)}1 AS x`);
  await assert.rejects(prepare({ kind: 'prepare', name: 'q', sql: 'SELECT 1; SELECT 2', types: [], text: '' }, s, plan), /only support single statement/);
  await assert.rejects(prepare({ kind: 'prepare', name: 'q', sql: 'EXECUTE p USING 1', types: [], text: '' }, s, plan), /cannot be EXECUTE/);
  await assert.rejects(prepare({ kind: 'prepare', name: 'q', sql: 'SELECT 1', types: [], text: '' }, s, () => Promise.reject(new Error('refused'))), /refused/);
  assert.equal(s.prepared?.has('q'), false);
  deallocate({ kind: 'deallocate', name: 'p', text: '' }, s);
  assert.throws(() => boundSql({ kind: 'execute', name: 'p', args: [], text: '' }, s), /Prepare statement not found: p/);
});
