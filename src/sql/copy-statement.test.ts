/**
 * The parse of COPY (`parser.ts`): table and database forms, WITH / CONNECTION options (keys
 * case-insensitive), LIMIT on COPY … FROM only, COPY of a query (TO only).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { parseSql } from './parser.js';

const one = (sql: string) => parseSql(sql)[0]!;

test('COPY of a table: name, direction, location, options, connection, LIMIT', () => {
  assert.deepEqual(one("COPY public.demo TO 'x/demo.parquet' WITH (FORMAT = 'parquet', start_time = '2022-06-15 07:02:37')"), {
    kind: 'copy',
    target: { kind: 'table', name: { parts: ['public', 'demo'] } },
    direction: 'to',
    location: 'x/demo.parquet',
    options: { format: 'parquet', start_time: '2022-06-15 07:02:37' },
    connection: {},
    text: "COPY public.demo TO 'x/demo.parquet' WITH (FORMAT = 'parquet', start_time = '2022-06-15 07:02:37')",
  });
  const from = one("copy Demo FROM 's3://b/dir/' WITH (pattern = 'demo.*', format = 'csv') CONNECTION (ACCESS_KEY_ID = 'k', Secret_Access_Key = 's') LIMIT 3");
  assert.equal(from.kind, 'copy');
  if (from.kind !== 'copy') return;
  assert.deepEqual(from.target, { kind: 'table', name: { parts: ['demo'] } });
  assert.equal(from.direction, 'from');
  assert.deepEqual(from.options, { pattern: 'demo.*', format: 'csv' });
  assert.deepEqual(from.connection, { access_key_id: 'k', secret_access_key: 's' });
  assert.equal(from.limit, 3);
});

test('COPY DATABASE: the database is the last part of the name (GreptimeDB\'s export writes "catalog"."db")', () => {
  const s = one(`COPY DATABASE "tsdb"."my_db" TO '/d/' WITH (format = "parquet")`);
  assert.ok(s.kind === 'copy');
  assert.deepEqual(s.target, { kind: 'database', name: 'my_db' });
  assert.deepEqual(s.options, { format: 'parquet' });
  // A table named `database` is still a table.
  const t = one("COPY database TO 'x.csv'");
  assert.ok(t.kind === 'copy');
  assert.deepEqual(t.target, { kind: 'table', name: { parts: ['database'] } });
});

test('COPY of a query: its text, TO only', () => {
  const s = one("COPY (SELECT host, (cpu) FROM demo WHERE host = 'a') TO 'q.csv' WITH (format = 'csv')");
  assert.ok(s.kind === 'copy');
  assert.deepEqual(s.target, { kind: 'query', sql: "SELECT host, (cpu) FROM demo WHERE host = 'a'" });
  assert.equal(s.direction, 'to');
  assert.deepEqual(s.options, { format: 'csv' });
});

test('COPY errors: LIMIT only FROM a table, a number; TO or FROM; a query only TO', () => {
  const fails = (sql: string, code: StatusCode, message: string | RegExp) =>
    assert.throws(() => parseSql(sql), (e: unknown) => e instanceof TsdbError && e.code === code && (typeof message === 'string' ? e.message === message : message.test(e.message)));
  fails("COPY t TO 'x.parquet' LIMIT 1", StatusCode.InvalidSyntax, 'Invalid SQL, error: limit is not supported');
  fails("COPY DATABASE d FROM 'x/' LIMIT 2", StatusCode.InvalidSyntax, 'Invalid SQL, error: limit is not supported');
  fails("COPY t FROM 'x.parquet' LIMIT hello", StatusCode.InvalidSyntax, /expected: 'the number of maximum rows', found: hello: sql parser error: Expected: literal int/);
  fails("COPY t INTO 'x'", StatusCode.InvalidSyntax, /Expected: TO or FROM, found: INTO/);
  fails('COPY t TO x', StatusCode.InvalidSyntax, /Expected: literal string, found: x/);
  fails("COPY t TO 'x' WITH (format = 'csv') garbage", StatusCode.InvalidSyntax, /Expected: end of statement, found: garbage/);
  fails("COPY (SELECT 1) FROM 'x.csv'", StatusCode.InvalidSyntax, /Expected: TO, found: FROM/);
  fails("COPY (INSERT INTO t VALUES (1)) TO 'x.csv'", StatusCode.InvalidSyntax, /Expected: a query, found: INSERT/);
  fails("COPY (SELECT 1 TO 'x.csv'", StatusCode.InvalidSyntax, /Expected: \)/);
  fails("COPY (SELECT 1) TO 'x.csv' LIMIT 1", StatusCode.InvalidSyntax, 'Invalid SQL, error: limit is not supported');
});
