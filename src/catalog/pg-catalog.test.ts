/**
 * pg_catalog rows from a catalog given as plain objects: databases as schemas and databases,
 * tables, columns typed as the PostgreSQL server sends them, the primary-key index.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLUMN_TYPES } from '../types/region-metadata.js';
import { pgTypeOf } from '../servers/postgres/types.js';
import type { InformationSchemaSource } from './information-schema.js';
import { indexOid, namespaceOid, PG_CATALOG_TABLES, PG_TYPES, pgCatalogTable, pgColumnType, relationOid, splitQualified, tableOid, typeOid } from './pg-catalog.js';
import type { TableInfo } from './table-info.js';

const table = (id: number, database: string, name: string, options: Record<string, string> = {}): TableInfo => ({
  table_id: id,
  catalog: 'tsdb',
  database,
  name,
  columns: [
    { column_id: 0, name: 'host', data_type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'ts', data_type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 2, name: 'usage', data_type: 'Float64', semantic_type: 'field', nullable: true, default: { kind: 'value', value: 0.5 }, comment: 'percent' },
  ],
  primary_key: ['host'],
  time_index: 'ts',
  engine: 'mito',
  options,
  region_numbers: [0],
  next_column_id: 3,
  schema_version: 0,
  created_at: 0,
  comment: 'cpu usage',
});

const CPU = table(1024, 'public', 'cpu');
const LOG = table(1025, 'other', 'log', { append_mode: 'true' });

const source: InformationSchemaSource = {
  databases: async () => [
    { name: 'public', options: {}, created_at: 0 },
    { name: 'other', options: {}, created_at: 0 },
  ],
  tables: async (db) => (db === 'public' ? [CPU] : db === 'other' ? [LOG] : []),
  regionStatistics: async () => [],
};

const session = { database: 'public', user: 'alice', serverVersion: '16.3-tsdb-0.1.0', timezone: 'UTC' };

async function rows(name: string): Promise<Record<string, unknown>[]> {
  const t = (await pgCatalogTable(name, source, session))!;
  return t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c.name, r[i]])));
}

test('every column type has the type OID the PostgreSQL server sends for it, and a pg_type row', () => {
  for (const t of COLUMN_TYPES) {
    assert.equal(pgColumnType(t).oid, pgTypeOf(t).oid, t);
    assert.ok(PG_TYPES.some((x) => x.oid === pgColumnType(t).oid), t);
  }
});

test('databases are schemas and databases; OIDs are stable', async () => {
  assert.deepEqual((await rows('pg_namespace')).map((r) => [r['nspname'], r['oid']]), [
    ['pg_catalog', 11],
    ['information_schema', 13000],
    ['other', namespaceOid('other')],
    ['public', 2200],
  ]);
  assert.deepEqual((await rows('pg_database')).map((r) => r['datname']), ['information_schema', 'other', 'public']);
  assert.equal(namespaceOid('other'), namespaceOid('other'));
  assert.ok(namespaceOid('other') >= 16384);
});

test('tables are pg_class rows of kind r; a deduplicating table has a unique primary-key index', async () => {
  const classes = await rows('pg_class');
  const user = classes.filter((r) => (r['oid'] as number) >= 16384).map((r) => [r['relname'], r['relkind'], r['relnamespace'], r['relhasindex'], r['relnatts']]);
  assert.deepEqual(user, [
    ['log', 'r', namespaceOid('other'), false, 3],
    ['cpu', 'r', 2200, true, 3],
    ['cpu_pkey', 'i', 2200, false, 2],
  ]);
  assert.ok(classes.some((r) => r['relname'] === 'pg_class' && r['oid'] === 1259 && r['relnamespace'] === 11));
  assert.ok(classes.some((r) => r['relname'] === 'tables' && r['relkind'] === 'v' && r['relnamespace'] === 13000));

  assert.deepEqual((await rows('pg_index')).map((r) => [r['indexrelid'], r['indrelid'], r['indisprimary'], r['indkey']]), [[indexOid(CPU), tableOid(CPU), true, [1, 2]]]);
  assert.deepEqual((await rows('pg_indexes')).map((r) => r['indexdef']), ['CREATE UNIQUE INDEX cpu_pkey ON public.cpu USING btree (host, ts)']);
  assert.deepEqual((await rows('pg_constraint')).map((r) => [r['conname'], r['contype'], r['conrelid'], r['conkey']]), [['cpu_pkey', 'p', tableOid(CPU), [1, 2]]]);
});

test('columns: types and typmods, nullability, defaults, comments', async () => {
  const attrs = (await rows('pg_attribute')).filter((r) => r['attrelid'] === tableOid(CPU));
  assert.deepEqual(attrs.map((r) => [r['attname'], r['attnum'], r['atttypid'], r['atttypmod'], r['attnotnull'], r['atthasdef']]), [
    ['host', 1, 1043, -1, false, false],
    ['ts', 2, 1114, 3, true, false],
    ['usage', 3, 701, -1, false, true],
  ]);
  assert.deepEqual((await rows('pg_attrdef')).filter((r) => r['adrelid'] === tableOid(CPU)).map((r) => [r['adnum'], r['adbin']]), [[3, '0.5']]);
  assert.deepEqual((await rows('pg_description')).map((r) => [r['objoid'], r['objsubid'], r['description']]).sort(), [
    [tableOid(CPU), 0, 'cpu usage'],
    [tableOid(CPU), 3, 'percent'],
    [tableOid(LOG), 0, 'cpu usage'],
    [tableOid(LOG), 3, 'percent'],
  ]);
});

test('the session shows as the one role and in the settings', async () => {
  assert.deepEqual((await rows('pg_roles')).map((r) => [r['rolname'], r['oid'], r['rolsuper']]), [['alice', 10, true]]);
  const settings = new Map((await rows('pg_settings')).map((r) => [r['name'], r['setting']]));
  assert.equal(settings.get('search_path'), 'public');
  assert.equal(settings.get('server_version_num'), '160003');
});

test('tables tsdb has nothing for are empty, with their columns', async () => {
  const proc = (await pgCatalogTable('pg_proc', source, session))!;
  assert.deepEqual(proc.rows, []);
  assert.ok(proc.columns.some((c) => c.name === 'proname'));
  assert.equal(await pgCatalogTable('pg_nosuch', source, session), undefined);
  assert.ok(PG_CATALOG_TABLES.includes('pg_type'));
});

test('regclass and regtype input', async () => {
  assert.deepEqual(splitQualified('public.cpu'), ['public', 'cpu']);
  assert.deepEqual(splitQualified('"My Table"'), ['My Table']);
  assert.deepEqual(splitQualified('CPU'), ['cpu']);
  assert.equal(splitQualified('a.b.c'), undefined);
  assert.equal(await relationOid('cpu', source, session), tableOid(CPU));
  assert.equal(await relationOid('public.cpu_pkey', source, session), indexOid(CPU));
  assert.equal(await relationOid('other.log', source, session), tableOid(LOG));
  assert.equal(await relationOid('log', source, session), undefined, 'not on the search path');
  assert.equal(await relationOid('pg_class', source, session), 1259);
  assert.equal(typeOid('integer'), 23);
  assert.equal(typeOid('pg_catalog.varchar'), 1043);
  assert.equal(typeOid('_int4'), 1007);
  assert.equal(typeOid('nosuch'), undefined);
});
