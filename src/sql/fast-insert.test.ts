import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fastInsert } from './fast-insert.js';
import { parseSql } from './parser.js';

/** The general parser's answer: a trailing comment keeps the fast path out. */
function general(sql: string) {
  const [stmt] = parseSql(`${sql} /* general */`);
  return stmt;
}

const LITERAL_INSERTS = [
  "INSERT INTO t VALUES ('a', 1, 2.5)",
  "insert into db.t (host, \"Ts\", `v`) values ('it''s', -1, +2.5e3), ('b', .5, NULL);",
  'REPLACE INTO t VALUES ("double", DEFAULT, TRUE, false, 1,)',
  "INSERT INTO t VALUES ('x', 9223372036854775807, -9223372036854775808)",
  "INSERT INTO t(a) VALUES ('values (1)'), ('select')",
  "  INSERT INTO \"my table\" VALUES\n  ('a', 1),\n  ('b', 2)  ;  ",
];

test('the fast path gives exactly what the general parser gives', () => {
  for (const sql of LITERAL_INSERTS) {
    const fast = fastInsert(sql, (head) => general(head)!);
    assert.ok(fast !== undefined, `fast path taken: ${sql}`);
    const slow = general(sql)!;
    assert.deepEqual({ ...fast, text: '' }, { ...slow, text: '' }, sql);
    assert.equal(fast.text, sql.trim().replace(/;\s*$/, '').trim(), sql);
  }
});

test('anything but literal rows goes to the general parser', () => {
  for (const sql of [
    'INSERT INTO t VALUES (now(), 1)',
    'INSERT INTO t VALUES (1 + 1)',
    "INSERT INTO t VALUES ('2024-01-01'::TIMESTAMP)",
    'INSERT INTO t VALUES (1) -- comment',
    'INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)',
    'INSERT INTO t SELECT * FROM s',
    'INSERT INTO t VALUES (1',
    "INSERT INTO t VALUES ('open",
    'SELECT 1',
  ]) {
    assert.equal(fastInsert(sql, (head) => general(head)!), undefined, sql);
  }
  // And the general parser still reads them (or reports them) as before.
  assert.equal(parseSql('INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)').length, 2);
});
