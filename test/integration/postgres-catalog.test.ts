/**
 * pg_catalog over the PostgreSQL server, queried the way GUI tools and drivers introspect a
 * database (DBeaver, pgAdmin, Grafana, porsager `postgres` type fetching), with the `pg` driver
 * over the simple and extended protocols; and pg_catalog staying out of HTTP sessions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import postgres from 'postgres';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

function hostPort(addr: string): { host: string; port: number } {
  return { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) };
}

test('pg: GUI-style introspection through pg_catalog joins, catalog functions and information_schema', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const client = new pg.Client({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    await client.query("CREATE TABLE cpu (ts TIMESTAMP TIME INDEX, host STRING PRIMARY KEY, usage DOUBLE DEFAULT 0 COMMENT 'percent', n INT)");
    const q = async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as Array<Record<string, unknown>>;

    // Session functions.
    assert.deepEqual(await q('SELECT current_schema(), current_user, current_database(), current_setting(\'server_version_num\') AS v'), [{ current_schema: 'public', current_user: 'tsdb', current_database: 'public', v: '160003' }]);
    assert.match(String((await q('SELECT version()'))[0]!['version']), /^PostgreSQL 16\.3 /);

    // DBeaver: schemas with their descriptions, then the tables of one schema (a parameter: extended protocol).
    const schemas = await q("SELECT n.oid, n.nspname, d.description FROM pg_catalog.pg_namespace n LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.objsubid = 0 AND d.classoid = 'pg_namespace'::regclass ORDER BY nspname");
    assert.deepEqual(schemas.map((r) => r['nspname']), ['information_schema', 'pg_catalog', 'public']);
    const publicOid = schemas.find((r) => r['nspname'] === 'public')!['oid'];
    const tables = await q("SELECT c.oid, c.relname, c.relkind, d.description FROM pg_catalog.pg_class c LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid = c.oid AND d.objsubid = 0 AND d.classoid = 'pg_class'::regclass WHERE c.relnamespace = $1 AND c.relkind NOT IN ('i', 'I', 'c') ORDER BY 2", [publicOid]);
    assert.deepEqual(tables.map((r) => [r['relname'], r['relkind']]), [['cpu', 'r']]);
    const cpuOid = tables[0]!['oid'];
    assert.equal(typeof cpuOid, 'number');

    // DBeaver: the columns of a table, with defaults and comments.
    const columns = await q(
      'SELECT a.attname, a.attnum, a.atttypid, a.attnotnull, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) AS def_value, dsc.description ' +
        'FROM pg_catalog.pg_attribute a INNER JOIN pg_catalog.pg_class c ON (a.attrelid = c.oid) ' +
        'LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid = ad.adrelid AND a.attnum = ad.adnum) ' +
        'LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid = dsc.objoid AND a.attnum = dsc.objsubid) ' +
        "WHERE NOT a.attisdropped AND c.relkind NOT IN ('i', 'I', 'c') AND c.oid = $1 AND a.attnum > 0 ORDER BY a.attnum",
      [cpuOid],
    );
    assert.deepEqual(columns, [
      { attname: 'ts', attnum: 1, atttypid: 1114, attnotnull: true, type: 'timestamp(3) without time zone', def_value: null, description: null },
      { attname: 'host', attnum: 2, atttypid: 1043, attnotnull: false, type: 'character varying', def_value: null, description: null },
      { attname: 'usage', attnum: 3, atttypid: 701, attnotnull: false, type: 'double precision', def_value: '0', description: 'percent' },
      { attname: 'n', attnum: 4, atttypid: 23, attnotnull: false, type: 'integer', def_value: null, description: null },
    ]);
    // The column types are the ones the server sends for the table's rows.
    const rows = await client.query('SELECT * FROM cpu');
    assert.deepEqual(rows.fields.map((f) => f.dataTypeID), columns.map((c) => c['atttypid']));

    // pgAdmin: the primary key through pg_index, pg_constraint and the definition functions.
    const keys = await q("SELECT i.indisprimary, pg_get_indexdef(i.indexrelid) AS def, array_to_string(array(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) ORDER BY a.attnum), ',') AS cols FROM pg_index i WHERE i.indrelid = 'public.cpu'::regclass");
    assert.deepEqual(keys, [{ indisprimary: true, def: 'CREATE UNIQUE INDEX cpu_pkey ON public.cpu USING btree (host, ts)', cols: 'ts,host' }]);
    assert.deepEqual(await q("SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'cpu'::regclass AND contype = 'p'"), [{ conname: 'cpu_pkey', def: 'PRIMARY KEY (host, ts)' }]);
    assert.deepEqual(await q("SELECT obj_description('cpu'::regclass, 'pg_class') AS t, col_description('cpu'::regclass, 3) AS c, pg_size_pretty(pg_total_relation_size('cpu'::regclass)) AS size"), [{ t: null, c: 'percent', size: '0 bytes' }]);
    assert.deepEqual(await q("SELECT nspname, has_schema_privilege(oid, 'CREATE') AS can_create FROM pg_namespace WHERE nspname = 'public'"), [{ nspname: 'public', can_create: true }]);
    assert.deepEqual(await q('SELECT rolname, rolsuper FROM pg_roles WHERE rolname = current_user'), [{ rolname: 'tsdb', rolsuper: true }]);
    assert.deepEqual(await q("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"), [{ tablename: 'cpu' }]);
    assert.deepEqual(await q("SELECT datname, pg_encoding_to_char(encoding) AS enc FROM pg_database WHERE datname = current_database()"), [{ datname: 'public', enc: 'UTF8' }]);
    assert.deepEqual(await q("SELECT relname FROM pg_class WHERE relname ~ '^cp' AND pg_table_is_visible(oid) ORDER BY 1"), [{ relname: 'cpu' }, { relname: 'cpu_pkey' }]);
    assert.deepEqual(await q('SELECT count(*)::int AS n FROM pg_proc'), [{ n: 0 }]);

    // Grafana / Metabase: information_schema.
    // With GreptimeDB's test table `numbers`, which information_schema lists in public.
    assert.deepEqual(await q("SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"), [{ t: 'cpu' }, { t: 'numbers' }]);
    assert.deepEqual(
      (await q("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position", ['cpu'])).map((r) => r['column_name']),
      ['ts', 'host', 'usage', 'n'],
    );

    await assert.rejects(client.query("SELECT 'nosuch'::regclass"), (err: Error & { code?: string }) => err.code === '42P01' && /relation "nosuch" does not exist/.test(err.message));
  } finally {
    await client.end();
  }
});

test('postgres (porsager): the array types are fetched from pg_type at connect', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const sql = postgres({ ...hostPort(s.postgres!), user: 'tsdb', database: 'public', max: 1, onnotice: () => {} });
  try {
    const types = await sql`select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem where a.typcategory = 'A' group by b.oid, b.typarray order by b.oid`;
    assert.ok(types.some((r) => r['oid'] === 23 && r['typarray'] === 1007));
    assert.ok(types.some((r) => r['oid'] === 1043 && r['typarray'] === 1015));
    // Int64 (int8) as GreptimeDB types integer literals: postgres.js reads int8 as a string.
    assert.deepEqual([...(await sql`select 1 + 1 as x`)], [{ x: '2' }]);
  } finally {
    await sql.end();
  }
});

test('pg_catalog is only seen over PostgreSQL', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const res = await fetch(`${s.baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ sql: 'SELECT relname FROM pg_catalog.pg_class' }) });
  const body = (await res.json()) as { error?: string };
  assert.match(String(body.error), /Table not found: tsdb\.pg_catalog\.pg_class/);
});
