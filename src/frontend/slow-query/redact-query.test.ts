import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskConnectionSecrets, MAX_SLOW_QUERY_TEXT, redactPromql, redactSql } from './redact-query.js';

test('INSERT … VALUES is cut after VALUES; the head stays', () => {
  assert.equal(redactSql("INSERT INTO cpu (host, ts, v) VALUES ('a', 1, 0.5), ('b', 2, 'secret')"), 'INSERT INTO cpu (host, ts, v) VALUES …');
  assert.equal(redactSql("insert into cpu values ('a', 1, 0.5)"), 'insert into cpu values …');
  assert.equal(redactSql("REPLACE INTO t VALUE (1, 'x')"), 'REPLACE INTO t VALUE …');
  // A column named `values` in the column list is inside parentheses: not the VALUES keyword.
  assert.equal(redactSql('INSERT INTO t ("values", ts) VALUES (1, 2)'), 'INSERT INTO t ("values", ts) VALUES …');
  // A huge body is never copied: the result is the head only.
  const rows = Array.from({ length: 100_000 }, (_, i) => `('h${i}', ${i}, ${i}.5)`).join(', ');
  assert.equal(redactSql(`INSERT INTO big VALUES ${rows}`), 'INSERT INTO big VALUES …');
});

test('INSERT … SELECT keeps its query, with secrets masked', () => {
  assert.equal(redactSql("INSERT INTO t SELECT host, ts, v FROM src WHERE host = 'a'"), "INSERT INTO t SELECT host, ts, v FROM src WHERE host = 'a'");
  assert.equal(redactSql("INSERT INTO t SELECT * FROM users WHERE password = 'hunter2'"), "INSERT INTO t SELECT * FROM users WHERE password = '***'");
});

test('literals given to secret keys are masked, others kept', () => {
  assert.equal(redactSql("SELECT * FROM t WHERE host = 'a' AND api_key = 'abc123'"), "SELECT * FROM t WHERE host = 'a' AND api_key = '***'");
  assert.equal(
    redactSql("CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH (storage = 'S3', 'secret_access_key' = 'AKIAxyz', access_key_id = 'id')"),
    "CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH (storage = 'S3', 'secret_access_key' = '***', access_key_id = '***')",
  );
  assert.equal(redactSql("COPY t TO 's3://b/x' WITH (password='p''w', TOKEN 'tok')"), "COPY t TO 's3://b/x' WITH (password='***', TOKEN '***')");
  assert.equal(redactSql('SELECT * FROM t WHERE pin_token = 12345'), 'SELECT * FROM t WHERE pin_token = ***');
  assert.equal(redactSql("GRANT ALL ON x TO bob IDENTIFIED BY 'pw'"), "GRANT ALL ON x TO bob IDENTIFIED BY '***'");
  // Names that only look alike are not secrets.
  assert.equal(redactSql("SELECT * FROM t WHERE author = 'bob' AND passenger = 'x'"), "SELECT * FROM t WHERE author = 'bob' AND passenger = 'x'");
});

test('every literal of user statements is masked', () => {
  assert.equal(redactSql("CREATE USER alice WITH PASSWORD 'pw1'"), "CREATE USER alice WITH PASSWORD '***'");
  assert.equal(redactSql("create user 'bob'@'%' identified by 'pw2'"), "create user '***'@'***' identified by '***'");
  assert.equal(redactSql("ALTER USER alice VALID UNTIL '2030-01-01'"), "ALTER USER alice VALID UNTIL '***'");
  assert.equal(redactSql("SET PASSWORD FOR bob = 'x'"), "SET PASSWORD FOR bob = '***'");
});

test('connection strings keep everything but their password', () => {
  assert.equal(redactSql("SELECT * FROM read_csv('postgres://admin:s3cr3t@db.example:5432/app')"), "SELECT * FROM read_csv('postgres://admin:***@db.example:5432/app')");
  assert.equal(redactSql("SELECT 'host=db user=u password=pw dbname=x'"), "SELECT 'host=db user=u password=*** dbname=x'");
  assert.equal(maskConnectionSecrets('{"user": "u", "password": "p w"}'), '{"user": "u", "password": "***"}');
  assert.equal(maskConnectionSecrets('aws_secret_access_key=abc;region=x'), 'aws_secret_access_key=***;region=x');
  assert.equal(maskConnectionSecrets('http://host:4000/v1/sql'), 'http://host:4000/v1/sql');
});

test('comments, quoted names and odd text survive; nothing throws', () => {
  assert.equal(redactSql('  SELECT /* dashboard 1 */ "password" FROM t -- note\n'), 'SELECT /* dashboard 1 */ "password" FROM t -- note');
  assert.equal(redactSql("SELECT 'it''s'"), "SELECT 'it''s'");
  // Unterminated literal (a cut text, a statement that failed to parse): still masked.
  assert.equal(redactSql("SELECT * FROM t WHERE password = 'abc"), "SELECT * FROM t WHERE password = '***'");
  assert.equal(redactSql(''), '');
  assert.equal(redactSql("E'\\x' X'00ff' N'x'"), "E'\\x' X'00ff' N'x'");
});

test('long texts are cut to MAX_SLOW_QUERY_TEXT', () => {
  const long = `SELECT ${'x, '.repeat(MAX_SLOW_QUERY_TEXT)}1`;
  const out = redactSql(long);
  assert.equal(out.length, MAX_SLOW_QUERY_TEXT + 1);
  assert.ok(out.endsWith('…'));
  assert.equal(redactSql('SELECT 1234567890', 10), 'SELECT 123…');
  assert.equal(redactPromql(' rate(x[5m]) '), 'rate(x[5m])');
  assert.equal(redactPromql('abcdef', 3), 'abc…');
});
