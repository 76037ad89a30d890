/**
 * What a MySQL GUI client (DBeaver, Workbench, DataGrip…) reads to draw its schema tree, over the
 * MySQL protocol with the `mysql2` driver and the `mysql` command-line client: information_schema in
 * upper case (SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE, ROUTINES…), SHOW FULL TABLES,
 * SHOW TABLE STATUS, SHOW INDEX, SHOW CREATE TABLE, and comments set by COMMENT ON.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { runClient } from '../support/run-client.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

type Row = Record<string, unknown>;

test('a MySQL GUI client reads the schema tree from information_schema and SHOW', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.mysql!;
  const host = addr.slice(0, addr.lastIndexOf(':'));
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
  const conn = await mysql.createConnection({ host, port, user: 'root', database: 'public', supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  t.after(() => conn.end());
  // Unquoted names are folded to lower case, result columns too (GreptimeDB's, DataFusion's way).
  const rows = async (sql: string): Promise<Row[]> => (await conn.query<mysql.RowDataPacket[]>(sql))[0] as Row[];

  await conn.query("CREATE TABLE cpu (host STRING, dc STRING INVERTED INDEX, ts TIMESTAMP TIME INDEX, usage DOUBLE COMMENT 'percent', PRIMARY KEY (host, dc)) WITH (ttl = '7d')");
  await conn.query("INSERT INTO cpu VALUES ('a', 'x', 1000, 0.5), ('b', 'y', 2000, 0.25)");
  await conn.query("COMMENT ON TABLE cpu IS 'cpu usage'");

  assert.deepEqual(
    await rows("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('public', 'information_schema') ORDER BY SCHEMA_NAME"),
    [
      { schema_name: 'information_schema', default_character_set_name: 'utf8', default_collation_name: 'utf8_bin' },
      { schema_name: 'public', default_character_set_name: 'utf8', default_collation_name: 'utf8_bin' },
    ],
  );
  assert.deepEqual(await rows("SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, CREATE_OPTIONS, TABLE_COMMENT FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'public' ORDER BY TABLE_NAME"), [
    { table_name: 'cpu', table_type: 'BASE TABLE', engine: 'mito', table_rows: '2', create_options: 'ttl=7days', table_comment: 'cpu usage' },
    { table_name: 'numbers', table_type: 'LOCAL TEMPORARY', engine: 'test_engine', table_rows: '0', create_options: '', table_comment: null },
  ]);
  assert.deepEqual(
    await rows("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, COLUMN_COMMENT FROM Information_Schema.Columns WHERE TABLE_SCHEMA = 'public' AND TABLE_NAME = 'cpu' ORDER BY ORDINAL_POSITION"),
    [
      { column_name: 'host', data_type: 'string', column_type: 'string', is_nullable: 'Yes', column_key: 'PRI', column_comment: null },
      { column_name: 'dc', data_type: 'string', column_type: 'string', is_nullable: 'Yes', column_key: 'PRI', column_comment: null },
      { column_name: 'ts', data_type: 'timestamp(3)', column_type: 'timestamp(3)', is_nullable: 'No', column_key: 'TIME INDEX', column_comment: null },
      { column_name: 'usage', data_type: 'double', column_type: 'double', is_nullable: 'Yes', column_key: '', column_comment: 'percent' },
    ],
  );
  assert.deepEqual(
    await rows("SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE FROM INFORMATION_SCHEMA.STATISTICS WHERE TABLE_SCHEMA = 'public' AND TABLE_NAME = 'cpu' ORDER BY INDEX_NAME, SEQ_IN_INDEX"),
    [
      { index_name: 'INVERTED_INDEX_dc', non_unique: '1', seq_in_index: '1', column_name: 'dc', index_type: 'INVERTED' },
      { index_name: 'PRIMARY', non_unique: '0', seq_in_index: '1', column_name: 'host', index_type: 'PRIMARY' },
      { index_name: 'PRIMARY', non_unique: '0', seq_in_index: '2', column_name: 'dc', index_type: 'PRIMARY' },
      { index_name: 'TIME INDEX', non_unique: '1', seq_in_index: '1', column_name: 'ts', index_type: 'TIME' },
    ],
  );
  assert.deepEqual(await rows("SELECT CONSTRAINT_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'public' AND TABLE_NAME = 'cpu' ORDER BY CONSTRAINT_NAME, COLUMN_NAME"), [
    { constraint_name: 'PRIMARY', column_name: 'dc' },
    { constraint_name: 'PRIMARY', column_name: 'host' },
    { constraint_name: 'TIME INDEX', column_name: 'ts' },
  ]);
  // What GUI clients ask for and GreptimeDB has none of: empty, not an error.
  assert.deepEqual(await rows("SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'public'"), []);
  await assert.rejects(rows('SELECT * FROM information_schema.NOT_THERE'), /Table not found: tsdb\.information_schema\.NOT_THERE/);
  assert.deepEqual(await rows('SELECT CHARACTER_SET_NAME, MAXLEN FROM information_schema.CHARACTER_SETS'), [{ character_set_name: 'utf8', maxlen: '4' }]);

  assert.deepEqual(await rows('SHOW FULL TABLES FROM public'), [
    { Tables_in_public: 'cpu', Table_type: 'BASE TABLE' },
    { Tables_in_public: 'numbers', Table_type: 'LOCAL TEMPORARY' },
  ]);
  const status = await rows("SHOW TABLE STATUS LIKE 'cpu'");
  assert.equal(status.length, 1);
  assert.deepEqual({ ...status[0], Create_time: undefined, Update_time: undefined }, {
    Name: 'cpu', Engine: 'mito', Version: '11', Row_format: 'Fixed', Rows: '2', Avg_row_length: status[0]!['Avg_row_length'], Data_length: '0', Max_data_length: '0',
    Index_length: '0', Data_free: '0', Auto_increment: '0', Create_time: undefined, Update_time: undefined, Check_time: null, Collation: 'utf8_bin', Checksum: '0',
    Create_options: 'ttl=7days', Comment: 'cpu usage',
  });
  assert.match(String(status[0]!['Create_time']), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.deepEqual((await rows('SHOW INDEX FROM cpu')).map((r) => [r['Key_name'], r['Non_unique'], r['Column_name'], r['Index_type']]), [
    ['INVERTED_INDEX_dc', '1', 'dc', 'INVERTED'],
    ['PRIMARY', '0', 'host', 'PRIMARY'],
    ['PRIMARY', '0', 'dc', 'PRIMARY'],
    ['TIME INDEX', '1', 'ts', 'TIME'],
  ]);
  const [create] = await rows('SHOW CREATE TABLE cpu');
  assert.match(String(create!['Create Table']), /WITH\(\n {2}comment = 'cpu usage',\n {2}ttl = '7days'\n\)$/);

  // The mysql command-line client, as a user at a prompt would.
  const cli = await runClient('mysql', ['-h', host, '-P', String(port), '-u', 'root', '--batch', '-e', "SELECT table_name, table_type FROM INFORMATION_SCHEMA.TABLES WHERE table_schema = 'public' ORDER BY table_name; SHOW CREATE DATABASE public"], process.env);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout, 'table_name\ttable_type\ncpu\tBASE TABLE\nnumbers\tLOCAL TEMPORARY\nDatabase\tCreate Database\npublic\tCREATE DATABASE IF NOT EXISTS public\n');
});
