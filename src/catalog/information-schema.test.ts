/**
 * information_schema rows from a catalog given as plain objects: two databases, three tables of
 * varied types, defaults, comments and options, and made-up region statistics.
 */
import type { ViewInfo } from './view-info.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostname } from 'node:os';
import { buildInfo } from '../common/build-info.js';
import type { Cell } from '../query/output.js';
import { INFORMATION_SCHEMA_TABLES, informationSchemaTable, informationSchemaTableDefs, type InformationSchemaSource, type RegionStatistics } from './information-schema.js';
import type { DatabaseInfo, TableInfo } from './table-info.js';

const CPU: TableInfo = {
  table_id: 1024,
  catalog: 'tsdb',
  database: 'public',
  name: 'cpu',
  columns: [
    { column_id: 0, name: 'host', data_type: 'String', semantic_type: 'tag', nullable: true },
    { column_id: 1, name: 'ts', data_type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 2, name: 'region', data_type: 'String', semantic_type: 'tag', nullable: true, default: { kind: 'value', value: 'eu' } },
    { column_id: 3, name: 'usage', data_type: 'Float64', semantic_type: 'field', nullable: true, default: { kind: 'value', value: 0.5 }, comment: 'percent' },
    { column_id: 4, name: 'idle', data_type: 'Float32', semantic_type: 'field', nullable: false },
    { column_id: 5, name: 'n', data_type: 'Int64', semantic_type: 'field', nullable: true, default: { kind: 'value', value: null } },
  ],
  primary_key: ['region', 'host'],
  time_index: 'ts',
  engine: 'mito',
  options: { ttl: '7days', append_mode: 'true', comment: 'cpu usage' },
  region_numbers: [1, 0],
  next_column_id: 6,
  schema_version: 0,
  created_at: 1_700_000_000_000,
  comment: 'cpu usage',
};

const EVENTS: TableInfo = {
  table_id: 1025,
  catalog: 'tsdb',
  database: 'public',
  name: 'events',
  columns: [
    { column_id: 0, name: 'ts', data_type: 'TimestampNanosecond', semantic_type: 'timestamp', nullable: false, default: { kind: 'current_timestamp' } },
    { column_id: 1, name: 'n', data_type: 'UInt32', semantic_type: 'field', nullable: true, default: { kind: 'value', value: 7 } },
    { column_id: 2, name: 'ok', data_type: 'Boolean', semantic_type: 'field', nullable: true, default: { kind: 'value', value: true } },
    { column_id: 3, name: 'payload', data_type: 'Binary', semantic_type: 'field', nullable: true },
    { column_id: 4, name: 'day', data_type: 'Date', semantic_type: 'field', nullable: true },
    { column_id: 5, name: 'tiny', data_type: 'Int8', semantic_type: 'field', nullable: true },
  ],
  primary_key: [],
  time_index: 'ts',
  engine: 'mito',
  options: {},
  region_numbers: [0],
  next_column_id: 6,
  schema_version: 2,
  created_at: 1_700_000_001_000,
};

const M: TableInfo = {
  table_id: 1026,
  catalog: 'tsdb',
  database: 'metrics',
  name: 'm',
  columns: [
    { column_id: 0, name: 'ts', data_type: 'TimestampSecond', semantic_type: 'timestamp', nullable: false },
    { column_id: 1, name: 'v', data_type: 'Float64', semantic_type: 'field', nullable: true },
  ],
  primary_key: [],
  time_index: 'ts',
  engine: 'mito',
  options: { 'compaction.type': 'twcs', ttl: '1h', skip_wal: 'true', write_buffer_size: '1.0MiB' },
  region_numbers: [0],
  next_column_id: 2,
  schema_version: 0,
  created_at: 1_700_000_002_000,
};

const DATABASES: DatabaseInfo[] = [
  { name: 'public', options: {}, created_at: 5 },
  { name: 'metrics', options: { ttl: '1h', 'compaction.type': 'twcs' }, created_at: 6 },
  { name: 'information_schema', options: {}, created_at: 0 },
];

const STATS: Record<number, RegionStatistics[]> = {
  1024: [
    { region_number: 1, memtable_rows: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 },
    { region_number: 0, memtable_rows: 3, sst_rows: 10, sst_files: 2, sst_bytes: 2000, memtable_bytes: 300 },
  ],
  1025: [{ region_number: 0, memtable_rows: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0, memtable_bytes: 0 }],
  1026: [{ region_number: 0, memtable_rows: 5, sst_rows: 0, sst_files: 0, sst_bytes: 0, memtable_bytes: 512 }],
};

const VIEW: ViewInfo = {
  view_id: 1030,
  catalog: 'tsdb',
  database: 'public',
  name: 'hot',
  definition: 'CREATE VIEW hot AS SELECT * FROM cpu WHERE usage > 90',
  query: 'SELECT * FROM cpu WHERE usage > 90',
  query_database: 'public',
  columns: [],
  plan_columns: ['host', 'usage', 'ts'],
  created_at: 1_700_000_003_000,
};

const source: InformationSchemaSource = {
  databases: () => Promise.resolve(DATABASES.map((d) => ({ ...d }))),
  tables: (db) => {
    assert.notEqual(db, 'information_schema');
    return Promise.resolve(db === 'public' ? [EVENTS, CPU] : db === 'metrics' ? [M] : []);
  },
  regionStatistics: async (t) => STATS[t.table_id] ?? [],
  views: async (db) => (db === 'public' ? [VIEW] : []),
};

async function get(name: string): Promise<{ columns: Array<{ name: string; data_type: string }>; rows: Cell[][] }> {
  const out = await informationSchemaTable(name, source);
  assert.ok(out !== undefined, name);
  return out;
}

const s = (...names: string[]) => names.map((name) => ({ name, data_type: 'String' }));

// The information_schema tables' own columns: name, type, nullable.
const OWN: Record<string, Array<[string, string, boolean]>> = {
  build_info: ['git_branch', 'git_commit', 'git_commit_short', 'git_clean', 'pkg_version'].map((n) => [n, 'String', false]),
  cluster_info: [
    ['peer_id', 'Int64', false],
    ['peer_type', 'String', false],
    ['peer_addr', 'String', true],
    ['peer_hostname', 'String', true],
    ['total_cpu_millicores', 'Int64', false],
    ['total_memory_bytes', 'Int64', false],
    ['cpu_usage_millicores', 'Int64', false],
    ['memory_usage_bytes', 'Int64', false],
    ['version', 'String', false],
    ['git_commit', 'String', false],
    ['start_time', 'TimestampMillisecond', true],
    ['uptime', 'String', true],
    ['active_time', 'String', true],
    ['node_status', 'String', true],
  ],
  columns: [
    ['table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['column_name', 'String', false],
    ['ordinal_position', 'Int64', false],
    ['character_maximum_length', 'Int64', true],
    ['character_octet_length', 'Int64', true],
    ['numeric_precision', 'Int64', true],
    ['numeric_scale', 'Int64', true],
    ['datetime_precision', 'Int64', true],
    ['character_set_name', 'String', true],
    ['collation_name', 'String', true],
    ['column_key', 'String', false],
    ['extra', 'String', false],
    ['privileges', 'String', false],
    ['generation_expression', 'String', false],
    ['tsdb_data_type', 'String', false],
    ['data_type', 'String', false],
    ['semantic_type', 'String', false],
    ['column_default', 'String', true],
    ['is_nullable', 'String', false],
    ['column_type', 'String', false],
    ['column_comment', 'String', true],
    ['srs_id', 'Int64', true],
  ],
  engines: ['engine', 'support', 'comment', 'transactions', 'xa', 'savepoints'].map((n) => [n, 'String', false]),
  key_column_usage: [
    ['constraint_catalog', 'String', false],
    ['constraint_schema', 'String', false],
    ['constraint_name', 'String', false],
    ['table_catalog', 'String', false],
    ['real_table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['column_name', 'String', false],
    ['ordinal_position', 'UInt32', false],
    ['position_in_unique_constraint', 'UInt32', true],
    ['referenced_table_schema', 'String', true],
    ['referenced_table_name', 'String', true],
    ['referenced_column_name', 'String', true],
    ['tsdb_index_type', 'String', true],
  ],
  partitions: [
    ['table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['partition_name', 'String', false],
    ['subpartition_name', 'String', true],
    ['partition_ordinal_position', 'Int64', true],
    ['subpartition_ordinal_position', 'Int64', true],
    ['partition_method', 'String', true],
    ['subpartition_method', 'String', true],
    ['partition_expression', 'String', true],
    ['subpartition_expression', 'String', true],
    ['partition_description', 'String', true],
    ['table_rows', 'Int64', true],
    ['avg_row_length', 'Int64', true],
    ['data_length', 'Int64', true],
    ['max_data_length', 'Int64', true],
    ['index_length', 'Int64', true],
    ['data_free', 'Int64', true],
    ['create_time', 'TimestampSecond', true],
    ['update_time', 'TimestampSecond', true],
    ['check_time', 'TimestampSecond', true],
    ['checksum', 'Int64', true],
    ['partition_comment', 'String', true],
    ['nodegroup', 'String', true],
    ['tablespace_name', 'String', true],
    ['tsdb_partition_id', 'UInt64', true],
  ],
  process_list: [
    ['id', 'String', false],
    ['catalog', 'String', false],
    ['schemas', 'String', false],
    ['query', 'String', false],
    ['client', 'String', false],
    ['frontend', 'String', false],
    ['start_timestamp', 'TimestampMillisecond', false],
    ['elapsed_time', 'Int64', false],
  ],
  region_peers: [
    ['table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['region_id', 'UInt64', false],
    ['peer_id', 'UInt64', true],
    ['peer_addr', 'String', true],
    ['is_leader', 'String', true],
    ['status', 'String', true],
    ['down_seconds', 'Int64', true],
  ],
  region_statistics: [
    ['region_id', 'UInt64', false],
    ['table_id', 'UInt32', false],
    ['region_number', 'UInt32', false],
    ['region_rows', 'UInt64', true],
    ['written_bytes_since_open', 'UInt64', true],
    ['query_cpu_time_millis', 'UInt64', true],
    ['query_scanned_bytes', 'UInt64', true],
    ['disk_size', 'UInt64', true],
    ['memtable_size', 'UInt64', true],
    ['manifest_size', 'UInt64', true],
    ['sst_size', 'UInt64', true],
    ['sst_num', 'UInt64', true],
    ['index_size', 'UInt64', true],
    ['engine', 'String', true],
    ['region_role', 'String', true],
  ],
  schemata: [
    ['catalog_name', 'String', false],
    ['schema_name', 'String', false],
    ['default_character_set_name', 'String', false],
    ['default_collation_name', 'String', false],
    ['sql_path', 'String', true],
    ['options', 'String', true],
  ],
  tables: [
    ['table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['table_type', 'String', false],
    ['table_id', 'UInt32', true],
    ['data_length', 'UInt64', true],
    ['max_data_length', 'UInt64', true],
    ['index_length', 'UInt64', true],
    ['max_index_length', 'UInt64', true],
    ['avg_row_length', 'UInt64', true],
    ['engine', 'String', true],
    ['version', 'UInt64', true],
    ['row_format', 'String', true],
    ['table_rows', 'UInt64', true],
    ['data_free', 'UInt64', true],
    ['auto_increment', 'UInt64', true],
    ['create_time', 'TimestampSecond', true],
    ['update_time', 'TimestampSecond', true],
    ['check_time', 'TimestampSecond', true],
    ['table_collation', 'String', true],
    ['checksum', 'UInt64', true],
    ['create_options', 'String', true],
    ['table_comment', 'String', true],
    ['temporary', 'String', true],
  ],
  views: [
    ['table_catalog', 'String', false],
    ['table_schema', 'String', false],
    ['table_name', 'String', false],
    ['view_definition', 'String', false],
    ['check_option', 'String', true],
    ['is_updatable', 'String', true],
    ['definer', 'String', true],
    ['security_type', 'String', true],
    ['character_set_client', 'String', true],
    ['collation_connection', 'String', true],
  ],
};

// What `columns` says of each type: character_maximum_length, character_octet_length,
// numeric_precision, numeric_scale, datetime_precision, character_set_name, collation_name, data_type.
const TYPE_FACTS: Record<string, Cell[]> = {
  String: [2147483647, 2147483647, null, null, null, 'utf8', 'utf8_bin', 'string'],
  Int8: [null, null, 3, 0, null, null, null, 'tinyint'],
  Int64: [null, null, 19, 0, null, null, null, 'bigint'],
  UInt32: [null, null, 10, 0, null, null, null, 'int unsigned'],
  UInt64: [null, null, 20, 0, null, null, null, 'bigint unsigned'],
  Float32: [null, null, 12, null, null, null, null, 'float'],
  Float64: [null, null, 22, null, null, null, null, 'double'],
  Boolean: [null, null, null, null, null, null, null, 'boolean'],
  Binary: [null, null, null, null, null, null, null, 'varbinary'],
  Date: [null, null, null, null, null, null, null, 'date'],
  TimestampSecond: [null, null, null, null, 0, null, null, 'timestamp(0)'],
  TimestampMillisecond: [null, null, null, null, 3, null, null, 'timestamp(3)'],
  TimestampMicrosecond: [null, null, null, null, 6, null, null, 'timestamp(6)'],
  TimestampNanosecond: [null, null, null, null, 9, null, null, 'timestamp(9)'],
  UInt8: [null, null, 3, 0, null, null, null, 'tinyint unsigned'],
};

function columnRow(schema: string, table: string, name: string, pos: number, type: string, key: string, semantic: string, dflt: string | null, nullable: boolean, comment: string | null = null): Cell[] {
  const f = TYPE_FACTS[type]!;
  return ['tsdb', schema, table, name, pos, ...f.slice(0, 7), key, '', 'select,insert', '', type, f[7]!, semantic, dflt, nullable ? 'Yes' : 'No', f[7]!, comment, null];
}

// GreptimeDB's tables of information_schema, `flow_statistics`… included.
const ALL_TABLES = 'build_info character_sets check_constraints cluster_info collation_character_set_applicability collations column_privileges column_statistics columns engines events files flow_statistics flows global_status key_column_usage optimizer_trace parameters partitions procedure_info process_list profiling referential_constraints region_info region_peers region_statistics routines schema_privileges schemata session_status ssts_index_meta ssts_manifest ssts_storage statistics table_constraints table_privileges table_semantics tables views'.split(' ');

test('the tables of information_schema; an unknown name has none', async () => {
  assert.deepEqual(INFORMATION_SCHEMA_TABLES, ALL_TABLES);
  assert.equal(await informationSchemaTable('nope', source), undefined);
  assert.equal(await informationSchemaTable('toString', source), undefined);
  assert.deepEqual((await informationSchemaTable('TABLES', source))?.columns, (await get('tables')).columns);
  for (const name of Object.keys(OWN)) {
    assert.deepEqual((await get(name)).columns, OWN[name]!.map(([n, t]) => ({ name: n, data_type: t })), name);
  }
});

test('tables: information_schema as LOCAL TEMPORARY, public.numbers, user tables with sizes, options and comment', async () => {
  const ids = Object.fromEntries(informationSchemaTableDefs().map((d) => [d.name, d.id]));
  const own = (name: string): Cell[] => ['tsdb', 'information_schema', name, 'LOCAL TEMPORARY', ids[name]!, 0, 0, 0, 0, 0, '', 11, 'Fixed', 0, 0, 0, 0, 0, null, 'utf8_bin', 0, '', null, 'Y'];
  assert.deepEqual(await get('tables'), {
    columns: OWN['tables']!.map(([name, data_type]) => ({ name, data_type })),
    rows: [
      ...ALL_TABLES.map(own),
      ['tsdb', 'metrics', 'm', 'BASE TABLE', 1026, 0, 0, 0, 0, 102, 'mito', 11, 'Fixed', 5, 0, 0, 1_700_000_002, 1_700_000_002, null, 'utf8_bin', 0, 'write_buffer_size=1.0MiB ttl=1h skip_wal=true compaction.type=twcs', null, 'N'],
      // (2000 sst + 300 memtable bytes) / 13 rows
      ['tsdb', 'public', 'cpu', 'BASE TABLE', 1024, 2000, 0, 0, 0, 176, 'mito', 11, 'Fixed', 13, 0, 0, 1_700_000_000, 1_700_000_000, null, 'utf8_bin', 0, 'ttl=7days append_mode=true', 'cpu usage', 'N'],
      ['tsdb', 'public', 'events', 'BASE TABLE', 1025, 0, 0, 0, 0, 0, 'mito', 11, 'Fixed', 0, 0, 0, 1_700_000_001, 1_700_000_001, null, 'utf8_bin', 0, '', null, 'N'],
      // A view: no engine, sizes or options (GreptimeDB's row of a view).
      ['tsdb', 'public', 'hot', 'VIEW', 1030, 0, 0, 0, 0, 0, '', 11, 'Fixed', 0, 0, 0, 1_700_000_003, 1_700_000_003, null, 'utf8_bin', 0, '', null, 'N'],
      // GreptimeDB's test table, created with its database.
      ['tsdb', 'public', 'numbers', 'LOCAL TEMPORARY', 2, 0, 0, 0, 0, 0, 'test_engine', 11, 'Fixed', 0, 0, 0, 0, 0, null, 'utf8_bin', 0, '', null, 'Y'],
    ],
  });
});

test('views: one row per view, its definition as SHOW CREATE VIEW prints it', async () => {
  assert.deepEqual((await get('views')).rows, [['tsdb', 'public', 'hot', 'CREATE VIEW hot AS SELECT * FROM cpu WHERE usage > 90', null, 'NO', null, null, 'utf8', 'utf8_bin']]);
});

test('columns: every column of every table, information_schema included, with MySQL and tsdb types', async () => {
  const own: Cell[][] = [];
  for (const { name: table, columns } of informationSchemaTableDefs()) {
    columns.forEach(({ name, type, nullable }, i) => own.push(columnRow('information_schema', table, name, i + 1, type, '', 'FIELD', null, nullable)));
  }
  assert.deepEqual(await get('columns'), {
    columns: OWN['columns']!.map(([name, data_type]) => ({ name, data_type })),
    rows: [
      ...own,
      columnRow('metrics', 'm', 'ts', 1, 'TimestampSecond', 'TIME INDEX', 'TIMESTAMP', null, false),
      columnRow('metrics', 'm', 'v', 2, 'Float64', '', 'FIELD', null, true),
      columnRow('public', 'cpu', 'host', 1, 'String', 'PRI', 'TAG', null, true),
      columnRow('public', 'cpu', 'ts', 2, 'TimestampMillisecond', 'TIME INDEX', 'TIMESTAMP', null, false),
      columnRow('public', 'cpu', 'region', 3, 'String', 'PRI', 'TAG', 'eu', true),
      columnRow('public', 'cpu', 'usage', 4, 'Float64', '', 'FIELD', '0.5', true, 'percent'),
      columnRow('public', 'cpu', 'idle', 5, 'Float32', '', 'FIELD', null, false),
      columnRow('public', 'cpu', 'n', 6, 'Int64', '', 'FIELD', 'NULL', true),
      columnRow('public', 'events', 'ts', 1, 'TimestampNanosecond', 'TIME INDEX', 'TIMESTAMP', 'current_timestamp()', false),
      columnRow('public', 'events', 'n', 2, 'UInt32', '', 'FIELD', '7', true),
      columnRow('public', 'events', 'ok', 3, 'Boolean', '', 'FIELD', 'true', true),
      columnRow('public', 'events', 'payload', 4, 'Binary', '', 'FIELD', null, true),
      columnRow('public', 'events', 'day', 5, 'Date', '', 'FIELD', null, true),
      columnRow('public', 'events', 'tiny', 6, 'Int8', '', 'FIELD', null, true),
      columnRow('public', 'numbers', 'number', 1, 'UInt32', 'PRI', 'TAG', null, false),
    ],
  });
  // Spelled out once, independent of the helper: the time index of cpu.
  const cpuTs = (await get('columns')).rows.find((r) => r[2] === 'cpu' && r[3] === 'ts');
  assert.deepEqual(cpuTs, ['tsdb', 'public', 'cpu', 'ts', 2, null, null, null, null, 3, null, null, 'TIME INDEX', '', 'select,insert', '', 'TimestampMillisecond', 'timestamp(3)', 'TIMESTAMP', null, 'No', 'timestamp(3)', null, null]);
});

test('process_list: the running statements the source gives, none without a source of them', async () => {
  assert.deepEqual((await get('process_list')).rows, []);
  const rows = await informationSchemaTable('process_list', {
    ...source,
    processes: () => [{ id: '7', catalog: 'tsdb', database: 'public', query: 'SELECT 1', client: 'mysql[127.0.0.1:5000]', frontend: 'host', startMs: 1_700_000_000_000, elapsedMs: 12 }],
  });
  assert.deepEqual(rows?.rows, [['7', 'tsdb', 'public', 'SELECT 1', 'mysql[127.0.0.1:5000]', 'host', 1_700_000_000_000, 12]]);
});

test('schemata: information_schema and the user databases, with their options', async () => {
  assert.deepEqual(await get('schemata'), {
    columns: s('catalog_name', 'schema_name', 'default_character_set_name', 'default_collation_name', 'sql_path', 'options'),
    rows: [
      ['tsdb', 'information_schema', 'utf8', 'utf8_bin', null, ''],
      ['tsdb', 'metrics', 'utf8', 'utf8_bin', null, "'ttl'='1h'\n'compaction.type'='twcs'"],
      ['tsdb', 'public', 'utf8', 'utf8_bin', null, ''],
    ],
  });
});

test('key_column_usage: TIME INDEX and PRIMARY rows in column order', async () => {
  const row = (schema: string, constraint: string, table: string, column: string, pos: number, index: string): Cell[] => ['def', schema, constraint, 'def', 'tsdb', schema, table, column, pos, null, null, null, null, index];
  assert.deepEqual(await get('key_column_usage'), {
    columns: OWN['key_column_usage']!.map(([name, data_type]) => ({ name, data_type })),
    rows: [
      row('metrics', 'TIME INDEX', 'm', 'ts', 1, ''),
      row('public', 'PRIMARY', 'cpu', 'host', 1, 'dense'),
      row('public', 'TIME INDEX', 'cpu', 'ts', 1, ''),
      row('public', 'PRIMARY', 'cpu', 'region', 3, 'dense'),
      row('public', 'TIME INDEX', 'events', 'ts', 1, ''),
      row('public', 'PRIMARY', 'numbers', 'number', 1, 'dense'),
    ],
  });
});

test('region_statistics: one row per region, by region id', async () => {
  assert.deepEqual(await get('region_statistics'), {
    columns: OWN['region_statistics']!.map(([name, data_type]) => ({ name, data_type })),
    rows: [
      [4398046511104, 1024, 0, 13, 0, 0, 0, 2300, 300, 0, 2000, 2, 0, 'mito', 'Leader'],
      [4398046511105, 1024, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'mito', 'Leader'],
      [4402341478400, 1025, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'mito', 'Leader'],
      [4406636445696, 1026, 0, 5, 0, 0, 0, 512, 512, 0, 0, 0, 0, 'mito', 'Leader'],
    ],
  });
});

test('engines and build_info: one row each', async () => {
  assert.deepEqual(await get('engines'), {
    columns: s('engine', 'support', 'comment', 'transactions', 'xa', 'savepoints'),
    rows: [
      ['mito', 'DEFAULT', 'Storage engine for time-series data', 'NO', 'NO', 'NO'],
      [
        'metric',
        'YES',
        'Storage engine for observability scenarios, which is adept at handling a large number of small tables, making it particularly suitable for cloud-native monitoring',
        'NO',
        'NO',
        'NO',
      ],
    ],
  });
  const b = buildInfo();
  assert.deepEqual(await get('build_info'), {
    columns: s('git_branch', 'git_commit', 'git_commit_short', 'git_clean', 'pkg_version'),
    rows: [[b.branch, b.commit, b.commit_short, String(b.clean), b.version]],
  });
});

test('cluster_info: one STANDALONE row, or the nodes of the cluster with uptime, idle time and LOST ones', async () => {
  const b = buildInfo();
  const one = await get('cluster_info');
  assert.equal(one.rows.length, 1);
  const [id, type, addr, host, cpus, memory, , used, version, commit, start, uptime, active, status] = one.rows[0]!;
  assert.deepEqual([id, type, addr, host, version, commit, active, status], [0, 'STANDALONE', '', hostname(), b.version, b.commit, null, null]);
  assert.ok(Number(cpus) >= 1000 && Number(memory) > 0 && Number(used) > 0);
  assert.ok(Math.abs(Number(start) - (Date.now() - process.uptime() * 1000)) < 2000);
  assert.match(String(uptime), /^(\d+(ms|s|m|h|d)\s?)+$/);
  const now = Date.now();
  const nodes = await informationSchemaTable('cluster_info', {
    ...source,
    clusterNodes: async () => [
      { peer_id: 0, peer_type: 'METASRV', peer_addr: '10.0.0.1:3002', version: '1.2.3', git_commit: 'abc', start_time_ms: now - 60_000, alive: true },
      { peer_id: 3, peer_type: 'DATANODE', peer_addr: '10.0.0.3:3001', version: '1.2.3', git_commit: 'abc', start_time_ms: now - 5_000, idle_ms: 1_500, alive: true },
      { peer_id: 4, peer_type: 'DATANODE', peer_addr: '10.0.0.4:3001', version: '1.2.3', git_commit: 'abc', start_time_ms: now - 5_000, idle_ms: 30_000, alive: false },
    ],
  });
  assert.deepEqual(
    nodes!.rows.map((r) => [r[0], r[1], r[2], r[10], r[12], r[13]]),
    [
      [0, 'METASRV', '10.0.0.1:3002', now - 60_000, null, null],
      [3, 'DATANODE', '10.0.0.3:3001', now - 5_000, '1s 500ms', null],
      [4, 'DATANODE', '10.0.0.4:3001', now - 5_000, '30s', 'LOST'],
    ],
  );
});

/** A partitioned table, a physical metric table with a rule and a logical table on it. */
const PARTITIONED: TableInfo = {
  ...M,
  table_id: 2000,
  database: 'public',
  name: 'p',
  columns: [...M.columns, { column_id: 2, name: 'host', data_type: 'String', semantic_type: 'tag', nullable: true }],
  primary_key: ['host'],
  region_numbers: [0, 1, 2],
  partition: { columns: ['host', 'v'], exprs: ["host < 'm'", "host >= 'm' AND v < 10.5", "host >= 'm' AND v >= 10.5"] },
  created_at: 1_700_000_003_500,
};
const PHY: TableInfo = { ...PARTITIONED, table_id: 2001, name: 'phy', engine: 'metric', options: { physical_metric_table: '' }, region_numbers: [0, 1], partition: { columns: ['host'], exprs: ["host < 'm'", "host >= 'm'"] } };
const LOGICAL: TableInfo = { ...M, table_id: 2002, database: 'public', name: 'logical', engine: 'metric', options: { on_physical_table: 'phy' }, created_at: 1_700_000_004_000 };
const partitioned: InformationSchemaSource = {
  databases: () => Promise.resolve([{ name: 'public', options: {}, created_at: 0 }]),
  tables: () => Promise.resolve([PARTITIONED, EVENTS, PHY, LOGICAL]),
  regionStatistics: () => Promise.resolve([]),
};

test('partitions: one row per region, with the partition columns and each region’s rule; a logical table shows its physical table’s', async () => {
  const out = await informationSchemaTable('partitions', partitioned);
  assert.deepEqual(out?.columns, OWN['partitions']!.map(([name, data_type]) => ({ name, data_type })));
  const row = (table: string, i: number, expression: string | null, description: string | null, created: number, id: number): Cell[] =>
    ['tsdb', 'public', table, `p${i}`, null, i + 1, null, 'RANGE', null, expression, null, description, null, null, null, null, null, null, created, null, null, null, null, null, null, id];
  assert.deepEqual(out?.rows, [
    row('events', 0, null, null, 1_700_000_001, 4402341478400),
    row('logical', 0, 'host', "host < m", 1_700_000_004, 2001 * 2 ** 32),
    row('logical', 1, 'host', "host >= m", 1_700_000_004, 2001 * 2 ** 32 + 1),
    row('p', 0, 'host, v', 'host < m', 1_700_000_003, 2000 * 2 ** 32),
    row('p', 1, 'host, v', 'host >= m AND v < 10.5', 1_700_000_003, 2000 * 2 ** 32 + 1),
    row('p', 2, 'host, v', 'host >= m AND v >= 10.5', 1_700_000_003, 2000 * 2 ** 32 + 2),
    row('phy', 0, 'host', 'host < m', 1_700_000_003, 2001 * 2 ** 32),
    row('phy', 1, 'host', 'host >= m', 1_700_000_003, 2001 * 2 ** 32 + 1),
  ]);
});

test('region_peers: the standalone peer (id 0, no address) unless the source knows the routes', async () => {
  const standalone = await informationSchemaTable('region_peers', partitioned);
  assert.deepEqual(standalone?.columns, OWN['region_peers']!.map(([name, data_type]) => ({ name, data_type })));
  const peer = (table: string, id: number, peerId: number | null, addr: string | null, leader: string, status: string | null): Cell[] => ['tsdb', 'public', table, id, peerId, addr, leader, status, null];
  assert.deepEqual(standalone?.rows, [
    peer('events', 4402341478400, 0, '', 'Yes', 'ALIVE'),
    // A logical table's regions are its physical table's, under its own table id.
    peer('logical', 2002 * 2 ** 32, 0, '', 'Yes', 'ALIVE'),
    peer('logical', 2002 * 2 ** 32 + 1, 0, '', 'Yes', 'ALIVE'),
    peer('p', 2000 * 2 ** 32, 0, '', 'Yes', 'ALIVE'),
    peer('p', 2000 * 2 ** 32 + 1, 0, '', 'Yes', 'ALIVE'),
    peer('p', 2000 * 2 ** 32 + 2, 0, '', 'Yes', 'ALIVE'),
    peer('phy', 2001 * 2 ** 32, 0, '', 'Yes', 'ALIVE'),
    peer('phy', 2001 * 2 ** 32 + 1, 0, '', 'Yes', 'ALIVE'),
  ]);
  const asked: string[] = [];
  const routed = await informationSchemaTable('region_peers', {
    ...partitioned,
    tables: () => Promise.resolve([PARTITIONED, LOGICAL, PHY]),
    regionRoutes: (t) => {
      asked.push(t.name);
      if (t.name !== 'p') return Promise.resolve(undefined);
      return Promise.resolve([
        { region_number: 2, leader_peer: { id: 3, addr: '10.0.0.3:3001' }, follower_peers: [] },
        { region_number: 0, leader_peer: { id: 1, addr: '10.0.0.1:3001' }, follower_peers: [{ id: 2, addr: '10.0.0.2:3001' }] },
        { region_number: 1, follower_peers: [] },
      ]);
    },
  });
  assert.deepEqual(asked, ['phy', 'p', 'phy']);
  assert.deepEqual(routed?.rows.filter((r) => r[2] === 'p'), [
    peer('p', 2000 * 2 ** 32, 1, '10.0.0.1:3001', 'Yes', 'ALIVE'),
    peer('p', 2000 * 2 ** 32, 2, '10.0.0.2:3001', 'No', null),
    peer('p', 2000 * 2 ** 32 + 1, null, null, 'Yes', null),
    peer('p', 2000 * 2 ** 32 + 2, 3, '10.0.0.3:3001', 'Yes', 'ALIVE'),
  ]);
});

test('statistics and table_constraints: PRIMARY (key order), TIME INDEX and inverted indexes; numbers in public', async () => {
  const withIndex: InformationSchemaSource = {
    ...source,
    tables: async (db) => (db === 'public' ? [{ ...CPU, columns: CPU.columns.map((c) => (c.name === 'usage' ? { ...c, inverted_index: true } : c)) }] : db === 'metrics' ? [M] : []),
  };
  const stats = await informationSchemaTable('statistics', withIndex);
  assert.deepEqual(
    stats!.rows.map((r) => [r[1], r[2], r[3], r[5], r[6], r[7], r[12], r[13], r[18]]),
    [
      ['metrics', 'm', 1, 'TIME INDEX', 1, 'ts', '', 'TIME', ''],
      ['public', 'numbers', 0, 'PRIMARY', 1, 'number', '', 'PRIMARY', 'dense'],
      ['public', 'cpu', 0, 'PRIMARY', 1, 'region', 'YES', 'PRIMARY', 'dense'],
      ['public', 'cpu', 0, 'PRIMARY', 2, 'host', 'YES', 'PRIMARY', 'dense'],
      ['public', 'cpu', 1, 'TIME INDEX', 1, 'ts', '', 'TIME', ''],
      ['public', 'cpu', 1, 'INVERTED_INDEX_usage', 1, 'usage', 'YES', 'INVERTED', 'inverted'],
    ],
  );
  const constraints = await informationSchemaTable('table_constraints', withIndex);
  assert.deepEqual(constraints!.rows, [
    ['def', 'metrics', 'TIME INDEX', 'metrics', 'm', 'TIME INDEX', 'YES'],
    ['def', 'public', 'PRIMARY', 'public', 'numbers', 'PRIMARY KEY', 'YES'],
    ['def', 'public', 'TIME INDEX', 'public', 'cpu', 'TIME INDEX', 'YES'],
    ['def', 'public', 'PRIMARY', 'public', 'cpu', 'PRIMARY KEY', 'YES'],
  ]);
  // MySQL's compatibility tables: GreptimeDB's one row, or none.
  assert.deepEqual((await get('character_sets')).rows, [['utf8', 'utf8_bin', 'UTF-8 Unicode', 4]]);
  assert.deepEqual((await get('collations')).rows, [['utf8_bin', 'utf8', 1, 'Yes', 'Yes', 1]]);
  assert.deepEqual((await get('routines')).rows, []);
});

test('ssts_manifest and ssts_storage: the SST files of each region of each table with regions, from the region servers', async () => {
  const manifest = [
    { file_id: 'f1', level: 1, file_path: 'tsdb/public/1024/r0/f1.parquet', file_size: 2000, index_file_path: 'tsdb/public/1024/r0/f1.invidx', index_file_size: 40, num_rows: 13, num_row_groups: 1, min_ts: '1700000000000000000', max_ts: '9223372036854775807', sequence: 9 },
  ];
  const storage = [{ file_path: 'tsdb/public/1024/r0/f1.parquet', file_size: 2000 }, { file_path: 'tsdb/public/1024/r0/orphan.parquet', file_size: 7 }];
  const index_meta = [
    { file_id: 'f1', index_file_path: 'tsdb/public/1024/r0/f1.invidx', index_file_size: 40, index_type: 'inverted', column_id: 0, offset: 24, size: 12, value_kind: 'string', distinct_values: 2, segment_row_count: 1024, row_count: 13 },
  ];
  const asked: number[] = [];
  const withSsts: InformationSchemaSource = {
    ...source,
    regionSsts: async (t) => {
      asked.push(t.table_id);
      return t.table_id === 1024 ? [{ region_number: (1 << 24) | 5, node_id: 3, ssts: { manifest, storage, index_meta } }] : [];
    },
  };
  const m = await informationSchemaTable('ssts_manifest', withSsts);
  const id = (1024n << 32n) | BigInt((1 << 24) | 5);
  assert.deepEqual(m?.rows, [
    ['tsdb/public/1024/', Number(id), 1024, (1 << 24) | 5, 1, 5, 'f1', 0, 1, 'tsdb/public/1024/r0/f1.parquet', 2000, 'tsdb/public/1024/r0/f1.invidx', 40, 13, 1, null, 1_700_000_000_000_000_000n, 9_223_372_036_854_775_807n, 9, Number(id), 3, true, null, null],
  ]);
  assert.deepEqual((await informationSchemaTable('ssts_storage', withSsts))?.rows, [
    ['tsdb/public/1024/r0/f1.parquet', 2000, null, 3],
    ['tsdb/public/1024/r0/orphan.parquet', 7, null, 3],
  ]);
  assert.deepEqual((await informationSchemaTable('ssts_index_meta', withSsts))?.rows, [
    [
      'tsdb/public/1024/', 'tsdb/public/1024/r0/f1.invidx', Number(id), 1024, (1 << 24) | 5, 1, 5, 'f1', 40, 'inverted', 'column', '0', '{"column":0}', 12,
      '{"inverted":{"base_offset":24,"distinct_values":2,"segment_row_count":1024,"total_row_count":13,"value_kind":"string"}}', 3,
    ],
  ]);
  assert.ok(asked.includes(1024) && asked.includes(1025));
  assert.deepEqual((await get('ssts_manifest')).rows, [], 'no region servers to ask: no rows');
});

test('region_info: each region of each table with regions, as its region server says, sorted by region id', async () => {
  const info = { state: 'Leader(Writable)', role: 'Leader', writable: true, committed_sequence: 12, flushed_sequence: 0, manifest_version: 4, region_options: '{"append_mode":true}' };
  const withInfo: InformationSchemaSource = {
    ...source,
    regionInfo: async (t) =>
      t.table_id === 1024
        ? [
            { region_number: 1, node_id: 2, info: { ...info, flushed_sequence: 9, compaction_time_window: 5_400_000 } },
            { region_number: 0, node_id: 1, info },
          ]
        : [],
  };
  const rows = (await informationSchemaTable('region_info', withInfo))?.rows;
  const id = (n: number) => Number((1024n << 32n) | BigInt(n));
  assert.deepEqual(rows, [
    [id(0), 1024, 0, 0, 0, 'Leader(Writable)', 'Leader', true, 12, null, 4, null, '{"append_mode":true}', 'primary_key', 1],
    [id(1), 1024, 1, 0, 1, 'Leader(Writable)', 'Leader', true, 12, 9, 4, '1h 30m', '{"append_mode":true}', 'primary_key', 2],
  ]);
});
