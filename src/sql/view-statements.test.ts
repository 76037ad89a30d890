import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { parseSql } from './parser.js';
import { tokenize } from './lexer.js';
import { printTokens } from './sql-print.js';

const one = (sql: string) => parseSql(sql)[0]!;

test('CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(cols)] AS query: parts and the definition GreptimeDB prints', () => {
  assert.deepEqual(one('create or replace view s.v (a, "B") as select n,n+1 from t -- c'), {
    kind: 'create_view',
    name: { parts: ['s', 'v'] },
    orReplace: true,
    ifNotExists: false,
    columns: ['a', 'B'],
    query: 'select n,n+1 from t',
    tql: false,
    definition: 'CREATE OR REPLACE VIEW s.v (a, "B") AS SELECT n, n + 1 FROM t',
    text: 'create or replace view s.v (a, "B") as select n,n+1 from t',
  });
  const v = one("CREATE VIEW IF NOT EXISTS v AS WITH x AS (SELECT 1) SELECT * FROM x");
  assert.ok(v.kind === 'create_view' && v.ifNotExists && !v.orReplace && v.query === 'WITH x AS (SELECT 1) SELECT * FROM x');
  // OR REPLACE of something else is not a view.
  assert.throws(() => one('CREATE OR REPLACE TABLE t (ts TIMESTAMP TIME INDEX)'), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.Unsupported);
});

test('CREATE VIEW errors as GreptimeDB gives them', () => {
  assert.throws(() => parseSql('CREATE VIEW test_view;'), /Expected: AS, found: ; at Line: 1, Column: 22/);
  assert.throws(() => one('CREATE VIEW v AS DELETE FROM public.numbers'), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.Unsupported && e.message === 'Failed to plan SQL: This feature is not implemented: Query DELETE FROM public.numbers not implemented yet');
});

test('DROP VIEW, SHOW VIEWS, SHOW CREATE VIEW', () => {
  assert.deepEqual(one('DROP VIEW IF EXISTS db.v'), { kind: 'drop_view', name: { parts: ['db', 'v'] }, ifExists: true, text: 'DROP VIEW IF EXISTS db.v' });
  assert.deepEqual(one("SHOW VIEWS FROM db LIKE 'a%'"), { kind: 'show_views', database: 'db', filter: { kind: 'like', pattern: 'a%' }, text: "SHOW VIEWS FROM db LIKE 'a%'" });
  assert.deepEqual(one('SHOW VIEWS'), { kind: 'show_views', text: 'SHOW VIEWS' });
  assert.deepEqual(one('SHOW CREATE VIEW v'), { kind: 'show_create_view', name: { parts: ['v'] }, text: 'SHOW CREATE VIEW v' });
});

test('printed SQL: keywords upper case, identifiers and literals as written, sqlparser spacing', () => {
  const print = (sql: string) => printTokens(tokenize(sql).filter((t) => t.kind !== 'eof'));
  assert.equal(print("select count(*),max(x.a) from t inner join u on t.a=u.a where t.b like 'h%' or a in (1,-2)"), "SELECT count(*), max(x.a) FROM t INNER JOIN u ON t.a = u.a WHERE t.b LIKE 'h%' OR a IN (1, -2)");
  assert.equal(print('select a-1, -a, cast(a as BIGINT), a::double from "T" order by a desc limit 5'), 'SELECT a - 1, -a, CAST(a AS BIGINT), a::double FROM "T" ORDER BY a DESC LIMIT 5');
});

test('printed SQL: keyword-named functions stay calls as written; VALUES and IN lists keep their space', () => {
  const print = (sql: string) => printTokens(tokenize(sql).filter((t) => t.kind !== 'eof'));
  assert.equal(print("select replace(a,'x','y'), left(b, 2) from t where c in (select 1) union all values (1)"), "SELECT replace(a, 'x', 'y'), left(b, 2) FROM t WHERE c IN (SELECT 1) UNION ALL VALUES (1)");
});
