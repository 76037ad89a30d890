/**
 * The PostgreSQL dialect: the text bridge on its own, and the parse-tree rewrite on DuckDB's real
 * parse trees (parsed, rewritten, written back as SQL and run against small tables).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { bridgePgQueryText, rewritePgTree, type PgSession } from './pg-dialect.js';
import { tableRefs } from './table-refs.js';

test('OPERATOR(pg_catalog.x) becomes the bare operator', () => {
  assert.equal(bridgePgQueryText("SELECT 1 WHERE c.relname OPERATOR(pg_catalog.~) '^(m)$'"), "SELECT 1 WHERE c.relname ~ '^(m)$'");
  assert.equal(bridgePgQueryText("WHERE a OPERATOR(pg_catalog.!~) 'x' AND b operator( pg_catalog . ~* ) 'y'"), "WHERE a !~ 'x' AND b ~* 'y'");
});

test('COLLATE clauses are dropped', () => {
  assert.equal(bridgePgQueryText("WHERE c.relname ~ '^(m)$' COLLATE pg_catalog.default AND x = 'a' COLLATE \"C\""), "WHERE c.relname ~ '^(m)$'  AND x = 'a' ");
});

test('pg_catalog-qualified type names in casts lose the schema', () => {
  assert.equal(bridgePgQueryText('SELECT c.oid::pg_catalog.regclass::pg_catalog.text, CAST(x AS pg_catalog.int4)'), 'SELECT c.oid::regclass::text, CAST(x AS int4)');
  // A qualified table after FROM is not a type.
  assert.equal(bridgePgQueryText('SELECT 1 FROM pg_catalog.pg_class AS c'), 'SELECT 1 FROM pg_catalog.pg_class AS c');
});

test('strings and comments are never touched', () => {
  const sql = "SELECT 'OPERATOR(pg_catalog.~)', 'COLLATE x' -- COLLATE y\n";
  assert.equal(bridgePgQueryText(sql), sql);
});

let db: DuckDBInstance;
let conn: DuckDBConnection;

before(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  // Stand-ins for the pg_catalog relations the templates read (the executor puts the real ones in).
  await conn.run('CREATE SCHEMA IF NOT EXISTS s');
  await conn.run("CREATE TABLE s.pg_class AS SELECT * FROM (VALUES (16400, 'cpu', 2200), (16401, 'mem', 99)) t(oid, relname, relnamespace)");
  await conn.run("CREATE TABLE s.pg_description AS SELECT * FROM (VALUES (16400, 1259, 0, 'cpu table'), (16400, 1259, 2, 'the host')) t(objoid, classoid, objsubid, description)");
});

after(() => {
  conn.closeSync();
  db.closeSync();
});

async function serialize(sql: string): Promise<{ statements: Array<{ node: { select_list: unknown[] } }> }> {
  const text = (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string;
  return JSON.parse(text.replace(/"query_location":\d{16,}/g, '"query_location":0')) as { statements: Array<{ node: { select_list: unknown[] } }> };
}

const session: PgSession = {
  user: 'alice',
  database: 'public',
  version: 'PostgreSQL 16.3 on tsdb',
  relationOid: async (name) => ({ cpu: 16400, 'public.cpu': 16400, pg_class: 1259 })[name],
  parseExpression: async (expr) => (await serialize(`SELECT ${expr}`)).statements[0]!.node.select_list[0] as never,
};

/** The query rewritten, with pg_catalog's tables pointed at the stand-ins, as SQL. */
async function rewrite(sql: string): Promise<string> {
  const text = bridgePgQueryText(sql);
  const tree = await serialize(text);
  await rewritePgTree(tree, text, session);
  for (const ref of tableRefs(tree)) if (ref.schema_name === 'pg_catalog') ref.schema_name = 's';
  return (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(tree))})`)).getRows()[0]![0] as string;
}

async function rows(sql: string): Promise<unknown[][]> {
  return (await conn.runAndReadAll(await rewrite(sql))).getRowsJson() as unknown[][];
}

test('unqualified pg_ tables are pg_catalog tables; CTEs of the same name are not', async () => {
  assert.match(await rewrite('SELECT relname FROM pg_class'), /FROM s\.pg_class/);
  assert.match(await rewrite('WITH pg_class AS (SELECT 1 AS relname) SELECT relname FROM pg_class'), /FROM pg_class/);
});

test('~ matches anywhere, as in PostgreSQL; SIMILAR TO still matches all of the string', async () => {
  assert.deepEqual(await rows("SELECT 'abc' ~ '^a', 'abc' !~ 'c$', 'ABC' ~* 'b', 'ABC' !~* 'b', 'abc' SIMILAR TO 'b'"), [[true, false, true, false, false]]);
  assert.deepEqual(await rows("SELECT relname FROM pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(cpu)$' COLLATE pg_catalog.default"), [['cpu']]);
});

test('catalog functions become their SQL; a select item keeps the function name', async () => {
  const [r] = await rows("SELECT current_schema(), pg_catalog.pg_get_userbyid(10), pg_get_userbyid(7), version(), current_user, pg_catalog.format_type(1114, 3), format_type(1043, -1), format_type(1015, NULL), pg_encoding_to_char(6)");
  assert.deepEqual(r, ['public', 'alice', 'unknown (OID=7)', 'PostgreSQL 16.3 on tsdb', 'alice', 'timestamp(3) without time zone', 'character varying', 'character varying[]', 'UTF8']);
  const named = await rewrite('SELECT current_schema(), format_type(23, NULL) AS t');
  assert.match(named, /AS current_schema/);
  assert.match(named, /AS t\b/);
});

test('pg_table_is_visible: the tables of the session database', async () => {
  assert.deepEqual(await rows('SELECT relname FROM pg_catalog.pg_class c WHERE pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1'), [['cpu']]);
});

test('lookups bind their arguments to the caller, even a bare column named like the lookup table\'s', async () => {
  assert.deepEqual(await rows("SELECT relname, obj_description(oid, 'pg_class'), col_description(oid, 2) FROM pg_class ORDER BY 1"), [['cpu', 'cpu table', 'the host'], ['mem', null, null]]);
});

test('regclass and regtype of strings are OIDs; of other values, integers and type names', async () => {
  assert.deepEqual(await rows("SELECT 'cpu'::regclass, 'public.cpu'::pg_catalog.regclass, 'pg_class'::regclass, 'int4'::regtype, 'character varying'::regtype"), [[16400, 16400, 1259, 23, 1043]]);
  assert.deepEqual(await rows('SELECT oid::regclass FROM pg_class ORDER BY 1'), [['16400'], ['16401']]);
  assert.deepEqual(await rows('SELECT CAST(1114 AS regtype)'), [['timestamp without time zone']]);
  await assert.rejects(rewrite("SELECT 'nosuch'::regclass"), (e: unknown) => e instanceof TsdbError && /relation "nosuch" does not exist/.test(e.message));
});

test('x = ANY(list column) works when correlated; generate_series aliases name the column', async () => {
  assert.deepEqual(await rows('SELECT relname FROM pg_class c, (SELECT [16400, 3] AS l) x WHERE c.oid = ANY(x.l)'), [['cpu']]);
  assert.deepEqual(await rows('SELECT [10, 20][s] FROM pg_catalog.generate_series(1, 2) s'), [[10], [20]]);
});
