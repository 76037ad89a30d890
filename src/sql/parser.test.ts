/**
 * Tests of the statement parser: every statement form's AST, identifier folding and quoting,
 * statement splitting, error codes and messages, and robustness on truncated input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { ColumnDef, SqlType, Statement } from './ast.js';
import { parseSql } from './parser.js';

function one(sql: string): Statement {
  const stmts = parseSql(sql);
  assert.equal(stmts.length, 1, `one statement in ${sql}`);
  return stmts[0] as Statement;
}

function fails(sql: string, code: StatusCode, message: string): void {
  assert.throws(
    () => parseSql(sql),
    (err: unknown) => {
      assert.ok(err instanceof TsdbError, `TsdbError for ${sql}`);
      assert.equal(err.message, message, sql);
      assert.equal(err.code, code, sql);
      return true;
    },
  );
}

const syntax = (detail: string): string => `Invalid SQL syntax: sql parser error: ${detail}`;

function type(name: string, args: number[] = [], unsigned = false): SqlType {
  return { name, args, unsigned };
}

function col(name: string, t: SqlType, extra: Partial<ColumnDef> = {}): ColumnDef {
  return { name, type: t, primaryKey: false, timeIndex: false, indexes: [], ...extra };
}

const TS = col('ts', type('TIMESTAMP'), { timeIndex: true });

// ---- databases ----

test('CREATE DATABASE / SCHEMA with IF NOT EXISTS and options', () => {
  assert.deepEqual(one('CREATE DATABASE MyDb'), { kind: 'create_database', name: 'mydb', ifNotExists: false, options: {}, text: 'CREATE DATABASE MyDb' });
  assert.deepEqual(one(`create schema if not exists "MyDb" with (ttl = '1h', 'memtable.type' = 'partition_tree', append_mode = true, "x" = 10)`), {
    kind: 'create_database',
    name: 'MyDb',
    ifNotExists: true,
    options: { ttl: '1h', 'memtable.type': 'partition_tree', append_mode: 'true', x: '10' },
    text: `create schema if not exists "MyDb" with (ttl = '1h', 'memtable.type' = 'partition_tree', append_mode = true, "x" = 10)`,
  });
});

test('ALTER DATABASE SET / UNSET', () => {
  assert.deepEqual(one(`ALTER DATABASE db SET 'ttl' = '1d', 'compaction.twcs.time_window' = '2h'`), {
    kind: 'alter_database',
    name: 'db',
    set: { ttl: '1d', 'compaction.twcs.time_window': '2h' },
    unset: [],
    text: `ALTER DATABASE db SET 'ttl' = '1d', 'compaction.twcs.time_window' = '2h'`,
  });
  assert.deepEqual(one(`alter database DB unset 'ttl', 'append_mode'`), {
    kind: 'alter_database',
    name: 'db',
    set: {},
    unset: ['ttl', 'append_mode'],
    text: `alter database DB unset 'ttl', 'append_mode'`,
  });
  fails('ALTER DATABASE db', StatusCode.InvalidSyntax, syntax('Expected: SET or UNSET, found: EOF'));
});

test('DROP DATABASE, USE, SHOW DATABASES, SHOW CREATE DATABASE', () => {
  assert.deepEqual(one('DROP DATABASE IF EXISTS Db'), { kind: 'drop_database', name: 'db', ifExists: true, text: 'DROP DATABASE IF EXISTS Db' });
  assert.deepEqual(one('drop schema `Db`'), { kind: 'drop_database', name: 'Db', ifExists: false, text: 'drop schema `Db`' });
  assert.deepEqual(one('USE Public'), { kind: 'use', database: 'public', text: 'USE Public' });
  assert.deepEqual(one('SHOW DATABASES'), { kind: 'show_databases', full: false, text: 'SHOW DATABASES' });
  assert.deepEqual(one("SHOW FULL DATABASES LIKE 'my%'"), { kind: 'show_databases', full: true, filter: { kind: 'like', pattern: 'my%' }, text: "SHOW FULL DATABASES LIKE 'my%'" });
  assert.deepEqual(one("show databases where Database = 'x'"), {
    kind: 'show_databases',
    full: false,
    filter: { kind: 'where', sql: "Database = 'x'" },
    text: "show databases where Database = 'x'",
  });
  assert.deepEqual(one('SHOW CREATE DATABASE MyDb'), { kind: 'show_create_database', name: 'mydb', text: 'SHOW CREATE DATABASE MyDb' });
});

test('SHOW [FULL] PROCESSLIST and KILL [QUERY | CONNECTION] id', () => {
  assert.deepEqual(one('SHOW PROCESSLIST'), { kind: 'show_processlist', full: false, text: 'SHOW PROCESSLIST' });
  assert.deepEqual(one('show full processlist;'), { kind: 'show_processlist', full: true, text: 'show full processlist' });
  assert.deepEqual(one('KILL 42'), { kind: 'kill', target: 'process', id: 42, text: 'KILL 42' });
  assert.deepEqual(one("KILL '42'"), { kind: 'kill', target: 'process', id: 42, text: "KILL '42'" });
  assert.deepEqual(one("KILL '127.0.0.1:4001/42'"), { kind: 'kill', target: 'process', id: 42, server: '127.0.0.1:4001', text: "KILL '127.0.0.1:4001/42'" });
  assert.deepEqual(one('kill query 7'), { kind: 'kill', target: 'connection', id: 7, text: 'kill query 7' });
  assert.deepEqual(one('KILL CONNECTION 7'), { kind: 'kill', target: 'connection', id: 7, text: 'KILL CONNECTION 7' });
  for (const bad of ['KILL', "KILL 'x'", "KILL 'host:1/x'", 'KILL 1.5', "KILL QUERY '7'", 'KILL 7 8', 'SHOW PROCESSLIST x']) {
    assert.throws(() => parseSql(bad), (e: TsdbError) => e.code === StatusCode.InvalidSyntax, bad);
  }
});

// ---- CREATE TABLE ----

test('CREATE TABLE: columns, inline options, constraints, partition, engine, options', () => {
  const sql = `CREATE TABLE IF NOT EXISTS db.Monitor (
    Host STRING,
    "Idc" STRING NULL COMMENT 'data center' INVERTED INDEX,
    ts TIMESTAMP(3) NOT NULL DEFAULT current_timestamp(),
    cpu DOUBLE DEFAULT 0,
    mem DOUBLE UNSIGNED DEFAULT -1.5 NULL,
    price DECIMAL(10, 2) DEFAULT '1.5'::DECIMAL(10, 2),
    msg TEXT FULLTEXT INDEX WITH (analyzer = 'English', case_sensitive = 'false') SKIPPING INDEX WITH (granularity = 8192, type = 'BLOOM'),
    v VECTOR(3) VECTOR INDEX WITH (metric = 'l2sq'),
    ok BOOLEAN DEFAULT TRUE,
    TIME INDEX (ts),
    PRIMARY KEY (host, "Idc"),
  )
  PARTITION ON COLUMNS (host) (host < 'm', host >= 'm')
  ENGINE = mito
  WITH (ttl = '7d', 'compaction.type' = 'twcs', compaction.twcs.time_window = 1h, append_mode = true, write_buffer_size = 1024, "Quoted" = "x")`;
  assert.deepEqual(one(sql), {
    kind: 'create_table',
    name: { parts: ['db', 'monitor'] },
    ifNotExists: true,
    columns: [
      col('host', type('STRING')),
      col('Idc', type('STRING'), { nullable: true, comment: 'data center', indexes: [{ kind: 'inverted', options: {} }] }),
      col('ts', type('TIMESTAMP', [3]), { nullable: false, default: { kind: 'sql', text: 'current_timestamp()' } }),
      col('cpu', type('DOUBLE'), { default: { kind: 'number', text: '0' } }),
      col('mem', type('DOUBLE', [], true), { default: { kind: 'number', text: '-1.5' }, nullable: true }),
      col('price', type('DECIMAL', [10, 2]), { default: { kind: 'sql', text: "'1.5'::DECIMAL(10, 2)" } }),
      col('msg', type('TEXT'), {
        indexes: [
          { kind: 'fulltext', options: { analyzer: 'English', case_sensitive: 'false' } },
          { kind: 'skipping', options: { granularity: '8192', type: 'BLOOM' } },
        ],
      }),
      col('v', type('VECTOR', [3]), { indexes: [{ kind: 'vector', options: { metric: 'l2sq' } }] }),
      col('ok', type('BOOLEAN'), { default: { kind: 'boolean', value: true } }),
    ],
    timeIndex: 'ts',
    primaryKey: ['host', 'Idc'],
    engine: 'mito',
    options: { ttl: '7d', 'compaction.type': 'twcs', 'compaction.twcs.time_window': '1h', append_mode: 'true', write_buffer_size: '1024', Quoted: 'x' },
    partition: { columns: ['host'], exprs: ["host < 'm'", "host >= 'm'"] },
    text: sql,
  });
});

test('CREATE TABLE: inline TIME INDEX and PRIMARY KEY, options in any order, ENGINE without =', () => {
  assert.deepEqual(one('create table t (ts timestamp time index, a int primary key, b string primary key) with (ttl=forever) engine metric'), {
    kind: 'create_table',
    name: { parts: ['t'] },
    ifNotExists: false,
    columns: [TS, col('a', type('INT'), { primaryKey: true }), col('b', type('STRING'), { primaryKey: true })],
    engine: 'metric',
    options: { ttl: 'forever' },
    text: 'create table t (ts timestamp time index, a int primary key, b string primary key) with (ttl=forever) engine metric',
  });
  // DEFAULT stops at the next column option; options may come in any order.
  const s = one("CREATE TABLE t (ts TIMESTAMP DEFAULT '2024-01-01 00:00:00' TIME INDEX NOT NULL, n INT DEFAULT 1 + 2 COMMENT 'c' NULL, d INT DEFAULT NULL)");
  assert.ok(s.kind === 'create_table');
  assert.deepEqual(s.columns, [
    col('ts', type('TIMESTAMP'), { default: { kind: 'string', value: '2024-01-01 00:00:00' }, timeIndex: true, nullable: false }),
    col('n', type('INT'), { default: { kind: 'sql', text: '1 + 2' }, comment: 'c', nullable: true }),
    col('d', type('INT'), { default: { kind: 'null' } }),
  ]);
});

test('CREATE TABLE: identifier folding and quoting', () => {
  const s = one('CREATE TABLE AbC(CoLA STRING, "CoLB" INT, `CoLC` INT, Ts TIMESTAMP TIME INDEX, PRIMARY KEY(CoLA, "CoLB"))');
  assert.ok(s.kind === 'create_table');
  assert.deepEqual(s.name, { parts: ['abc'] });
  assert.deepEqual(
    s.columns.map((c) => c.name),
    ['cola', 'CoLB', 'CoLC', 'ts'],
  );
  assert.deepEqual(s.primaryKey, ['cola', 'CoLB']);
  const q = one('CREATE TABLE "AbC"."De""F" (ts TIMESTAMP TIME INDEX)');
  assert.ok(q.kind === 'create_table');
  assert.deepEqual(q.name, { parts: ['AbC', 'De"F'] });
});

test('CREATE TABLE LIKE', () => {
  assert.deepEqual(one('CREATE TABLE IF NOT EXISTS t2 LIKE Db.T1'), {
    kind: 'create_table',
    name: { parts: ['t2'] },
    ifNotExists: true,
    columns: [],
    options: {},
    like: { parts: ['db', 't1'] },
    text: 'CREATE TABLE IF NOT EXISTS t2 LIKE Db.T1',
  });
});

test('CREATE TABLE: time index and primary key errors', () => {
  fails('CREATE TABLE t (a INT)', StatusCode.InvalidSyntax, 'Missing time index constraint');
  fails('CREATE TABLE t (a INT PRIMARY KEY, ts TIMESTAMP)', StatusCode.InvalidSyntax, 'Missing time index constraint');
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX, ts2 TIMESTAMP TIME INDEX)', StatusCode.InvalidSyntax, 'Invalid time index: expected only one time index constraint but actual 2');
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX, TIME INDEX (ts))', StatusCode.InvalidSyntax, 'Invalid time index: expected only one time index constraint but actual 2');
  fails('CREATE TABLE t (a TIMESTAMP, b TIMESTAMP, TIME INDEX (a, b))', StatusCode.InvalidSyntax, 'Invalid time index: it should contain only one column in time index');
  fails(
    'CREATE TABLE t (a STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, PRIMARY KEY (a))',
    StatusCode.InvalidArguments,
    'Illegal primary keys definition: found definitions of primary keys in multiple places',
  );
  fails(
    'CREATE TABLE t (a STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (a), PRIMARY KEY (a))',
    StatusCode.InvalidArguments,
    'Illegal primary keys definition: found definitions of primary keys in multiple places',
  );
});

test('CREATE TABLE: syntax errors', () => {
  fails('CREATE TABLE IF EXISTS t (ts TIMESTAMP TIME INDEX)', StatusCode.Unsupported, 'SQL statement is not supported, keyword: EXISTS');
  fails(
    'CREATE TABLE IF NOT EXIST t (ts TIMESTAMP TIME INDEX)',
    StatusCode.InvalidSyntax,
    "Unexpected token while parsing SQL statement, expected: 'EXISTS', found: EXIST: sql parser error: Expected: EXISTS, found: EXIST at Line: 1, Column: 21",
  );
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX foo)', StatusCode.InvalidSyntax, syntax("Expected: ',' or ')' after column definition, found: foo at Line: 1, Column: 41"));
  fails('CREATE TABLE t (ts, a INT)', StatusCode.InvalidSyntax, syntax('Expected: a data type name, found: , at Line: 1, Column: 19'));
  fails('CREATE TABLE t (ts TIMESTAMP(x))', StatusCode.InvalidSyntax, syntax('Expected: literal int, found: x at Line: 1, Column: 30'));
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX', StatusCode.InvalidSyntax, syntax("Expected: ',' or ')' after column definition, found: EOF"));
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH (ttl)', StatusCode.InvalidSyntax, syntax('Expected: =, found: ) at Line: 1, Column: 51'));
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX) ENGINE = mito ENGINE = mito', StatusCode.InvalidSyntax, syntax('Expected: end of statement, found: ENGINE at Line: 1, Column: 56'));
  fails('CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH (ttl = (1))', StatusCode.InvalidSyntax, syntax('Expected: literal string, number or boolean, found: ( at Line: 1, Column: 54'));
  fails('CREATE FLOW f SINK TO t AS SELECT 1', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FLOW');
});

// ---- other DDL ----

test('DROP TABLE, TRUNCATE', () => {
  assert.deepEqual(one('DROP TABLE IF EXISTS a, Db.B, "C"'), {
    kind: 'drop_table',
    names: [{ parts: ['a'] }, { parts: ['db', 'b'] }, { parts: ['C'] }],
    ifExists: true,
    text: 'DROP TABLE IF EXISTS a, Db.B, "C"',
  });
  assert.deepEqual(one('drop table t'), { kind: 'drop_table', names: [{ parts: ['t'] }], ifExists: false, text: 'drop table t' });
  assert.deepEqual(one('TRUNCATE TABLE T'), { kind: 'truncate_table', name: { parts: ['t'] }, text: 'TRUNCATE TABLE T' });
  assert.deepEqual(one('truncate t'), { kind: 'truncate_table', name: { parts: ['t'] }, text: 'truncate t' });
  fails('DROP TABLE a DROP TABLE b', StatusCode.InvalidSyntax, syntax('Expected: end of statement, found: DROP at Line: 1, Column: 14'));
  fails('DROP FLOW f', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FLOW');
  fails('DROP TABLE', StatusCode.InvalidSyntax, syntax('Expected: identifier, found: EOF'));
});

test('ALTER TABLE ADD COLUMN (list, IF NOT EXISTS, FIRST / AFTER)', () => {
  assert.deepEqual(one('ALTER TABLE t ADD COLUMN IF NOT EXISTS Tag STRING PRIMARY KEY FIRST, ADD v DOUBLE DEFAULT 1 AFTER Tag, ADD COLUMN w INT'), {
    kind: 'alter_table',
    name: { parts: ['t'] },
    action: {
      kind: 'add_columns',
      columns: [
        { column: col('tag', type('STRING'), { primaryKey: true }), ifNotExists: true, location: { first: true } },
        { column: col('v', type('DOUBLE'), { default: { kind: 'number', text: '1' } }), ifNotExists: false, location: { after: 'tag' } },
        { column: col('w', type('INT')), ifNotExists: false },
      ],
    },
    text: 'ALTER TABLE t ADD COLUMN IF NOT EXISTS Tag STRING PRIMARY KEY FIRST, ADD v DOUBLE DEFAULT 1 AFTER Tag, ADD COLUMN w INT',
  });
});

test('ALTER TABLE DROP / MODIFY / SET / UNSET / RENAME', () => {
  const action = (sql: string): unknown => {
    const s = one(sql);
    assert.ok(s.kind === 'alter_table');
    return s.action;
  };
  assert.deepEqual(action('ALTER TABLE t DROP COLUMN C'), { kind: 'drop_column', name: 'c' });
  assert.deepEqual(action('ALTER TABLE t DROP "C"'), { kind: 'drop_column', name: 'C' });
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c STRING'), { kind: 'modify_column_type', name: 'c', type: type('STRING') });
  assert.deepEqual(action('ALTER TABLE t MODIFY c INT UNSIGNED'), { kind: 'modify_column_type', name: 'c', type: type('INT', [], true) });
  assert.deepEqual(action("ALTER TABLE t MODIFY COLUMN c SET DEFAULT 'x'"), { kind: 'set_default', name: 'c', default: { kind: 'string', value: 'x' } });
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c SET DEFAULT now() - INTERVAL 1 DAY'), {
    kind: 'set_default',
    name: 'c',
    default: { kind: 'sql', text: 'now() - INTERVAL 1 DAY' },
  });
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c DROP DEFAULT'), { kind: 'drop_default', name: 'c' });
  assert.deepEqual(action("ALTER TABLE t SET 'ttl' = '1d', 'compaction.twcs.max_output_file_size' = '1GB', 'append_mode' = NULL"), {
    kind: 'set_options',
    options: { ttl: '1d', 'compaction.twcs.max_output_file_size': '1GB', append_mode: '' },
  });
  assert.deepEqual(action("ALTER TABLE t UNSET 'ttl', 'compaction.twcs.time_window'"), { kind: 'unset_options', keys: ['ttl', 'compaction.twcs.time_window'] });
  assert.deepEqual(action('ALTER TABLE t RENAME NewName'), { kind: 'rename', newName: 'newname' });
  assert.deepEqual(action('ALTER TABLE t RENAME TO "NewName"'), { kind: 'rename', newName: 'NewName' });
  assert.deepEqual(one('alter table Db.T rename t2').text, 'alter table Db.T rename t2');
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c SET INVERTED INDEX'), { kind: 'set_index', name: 'c', index: 'inverted', options: {} });
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c UNSET INVERTED INDEX'), { kind: 'unset_index', name: 'c', index: 'inverted' });
  // Parsed; the statement refuses the kinds tsdb does not build (Unsupported when it runs).
  assert.deepEqual(action("ALTER TABLE t MODIFY COLUMN c SET SKIPPING INDEX WITH (granularity = '1024')"), { kind: 'set_index', name: 'c', index: 'skipping', options: { granularity: '1024' } });
  assert.deepEqual(action('ALTER TABLE t MODIFY COLUMN c SET FULLTEXT INDEX'), { kind: 'set_index', name: 'c', index: 'fulltext', options: {} });
  fails('ALTER TABLE t MODIFY COLUMN c SET FROB', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FROB');
  fails('ALTER TABLE t MODIFY COLUMN c UNSET FROB', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FROB');
  fails('ALTER TABLE t FROB c', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FROB');
  fails('ALTER TABLE t DROP COLUMN a, b', StatusCode.InvalidSyntax, syntax('Expected: end of statement, found: , at Line: 1, Column: 28'));
});

// ---- SHOW / DESCRIBE ----

test('SHOW TABLES / COLUMNS / INDEX / CREATE TABLE, DESCRIBE', () => {
  assert.deepEqual(one('SHOW TABLES'), { kind: 'show_tables', full: false, text: 'SHOW TABLES' });
  assert.deepEqual(one("SHOW FULL TABLES FROM Db LIKE 'a%'"), {
    kind: 'show_tables',
    full: true,
    database: 'db',
    filter: { kind: 'like', pattern: 'a%' },
    text: "SHOW FULL TABLES FROM Db LIKE 'a%'",
  });
  assert.deepEqual(one("show tables in db where Tables_in_db = 'x'"), {
    kind: 'show_tables',
    full: false,
    database: 'db',
    filter: { kind: 'where', sql: "Tables_in_db = 'x'" },
    text: "show tables in db where Tables_in_db = 'x'",
  });
  assert.deepEqual(one('SHOW COLUMNS FROM T'), { kind: 'show_columns', full: false, name: { parts: ['t'] }, text: 'SHOW COLUMNS FROM T' });
  assert.deepEqual(one("SHOW FULL COLUMNS IN t FROM db LIKE 'h%'"), {
    kind: 'show_columns',
    full: true,
    name: { parts: ['t'] },
    database: 'db',
    filter: { kind: 'like', pattern: 'h%' },
    text: "SHOW FULL COLUMNS IN t FROM db LIKE 'h%'",
  });
  assert.deepEqual(one("SHOW INDEX FROM t IN db WHERE Key_name = 'PRIMARY'"), {
    kind: 'show_index',
    name: { parts: ['t'] },
    database: 'db',
    filter: { kind: 'where', sql: "Key_name = 'PRIMARY'" },
    text: "SHOW INDEX FROM t IN db WHERE Key_name = 'PRIMARY'",
  });
  assert.deepEqual(one('SHOW INDEXES IN db.t'), { kind: 'show_index', name: { parts: ['db', 't'] }, text: 'SHOW INDEXES IN db.t' });
  assert.deepEqual(one('SHOW KEYS FROM t'), { kind: 'show_index', name: { parts: ['t'] }, text: 'SHOW KEYS FROM t' });
  assert.deepEqual(one('SHOW CREATE TABLE Db."T"'), { kind: 'show_create_table', name: { parts: ['db', 'T'] }, text: 'SHOW CREATE TABLE Db."T"' });
  assert.deepEqual(one('DESC t'), { kind: 'describe_table', name: { parts: ['t'] }, text: 'DESC t' });
  assert.deepEqual(one('DESCRIBE TABLE Db.T'), { kind: 'describe_table', name: { parts: ['db', 't'] }, text: 'DESCRIBE TABLE Db.T' });
  assert.deepEqual(one('desc table'), { kind: 'describe_table', name: { parts: ['table'] }, text: 'desc table' });
});

test('SHOW errors', () => {
  fails('SHOW COLUMNS;', StatusCode.InvalidSyntax, "Unexpected token while parsing SQL statement, expected: '{FROM | IN} table', found: ;");
  fails('SHOW COLUMNS', StatusCode.InvalidSyntax, "Unexpected token while parsing SQL statement, expected: '{FROM | IN} table', found: EOF");
  fails('SHOW INDEX t', StatusCode.InvalidSyntax, "Unexpected token while parsing SQL statement, expected: '{FROM | IN} table', found: t");
  fails('SHOW TABLES LIKE x', StatusCode.InvalidSyntax, syntax('Expected: literal string, found: x at Line: 1, Column: 18'));
  fails('SHOW TABLES WHERE', StatusCode.InvalidSyntax, syntax('Expected: an expression, found: EOF'));
  fails('SHOW FLOWS', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FLOWS');
  fails('SHOW CREATE FLOW f', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FLOW');
  // PostgreSQL's `SHOW <variable>`: one name, nothing after it (GreptimeDB's error names the next word).
  assert.deepEqual(one('SHOW TIMEZONE'), { kind: 'show_variables', name: 'timezone', text: 'SHOW TIMEZONE' });
  fails('SHOW TIME ZONE', StatusCode.Unsupported, 'SQL statement is not supported, keyword: ZONE');
});

test('SHOW TABLE STATUS and COMMENT ON', () => {
  assert.deepEqual(one('SHOW TABLE STATUS'), { kind: 'show_table_status', text: 'SHOW TABLE STATUS' });
  assert.deepEqual(one("SHOW TABLE STATUS FROM db LIKE 't%'"), { kind: 'show_table_status', database: 'db', filter: { kind: 'like', pattern: 't%' }, text: "SHOW TABLE STATUS FROM db LIKE 't%'" });
  assert.deepEqual(one("COMMENT ON TABLE Db.T IS 'it''s'"), { kind: 'comment_on', name: { parts: ['db', 't'] }, comment: "it's", text: "COMMENT ON TABLE Db.T IS 'it''s'" });
  assert.deepEqual(one('COMMENT ON COLUMN t.c IS NULL'), { kind: 'comment_on', name: { parts: ['t'] }, column: 'c', comment: null, text: 'COMMENT ON COLUMN t.c IS NULL' });
  fails('COMMENT ON COLUMN c IS NULL', StatusCode.InvalidSyntax, syntax('Expected: a column name qualified by its table (table.column), found: IS at Line: 1, Column: 21'));
  fails("COMMENT ON TABLE t IS 1", StatusCode.InvalidSyntax, syntax('Expected: literal string, found: 1 at Line: 1, Column: 23'));
});

// ---- INSERT / DELETE ----

test('INSERT VALUES: literals, DEFAULT, signs, expressions, "x" as a string, trailing commas', () => {
  const sql = `INSERT INTO TABLE Db.T (Host, "Ts", v,) VALUES ('a''b', 1700000000000, -1.5, NULL, DEFAULT, true, FALSE, "dq", now(), '2023-01-01'::TIMESTAMP, CAST(1 AS DOUBLE), 1 + 2, +3, concat("a", 'b'),), (1e3, .5, INTERVAL '1' DAY),`;
  assert.deepEqual(one(sql), {
    kind: 'insert',
    name: { parts: ['db', 't'] },
    columns: ['host', 'Ts', 'v'],
    replace: false,
    source: {
      kind: 'values',
      rows: [
        [
          { kind: 'string', value: "a'b" },
          { kind: 'number', text: '1700000000000' },
          { kind: 'number', text: '-1.5' },
          { kind: 'null' },
          { kind: 'default' },
          { kind: 'boolean', value: true },
          { kind: 'boolean', value: false },
          { kind: 'string', value: 'dq' },
          { kind: 'sql', text: 'now()' },
          { kind: 'sql', text: "'2023-01-01'::TIMESTAMP" },
          { kind: 'sql', text: 'CAST(1 AS DOUBLE)' },
          { kind: 'sql', text: '1 + 2' },
          { kind: 'number', text: '+3' },
          { kind: 'sql', text: "concat('a', 'b')" },
        ],
        [
          { kind: 'number', text: '1e3' },
          { kind: 'number', text: '.5' },
          { kind: 'sql', text: "INTERVAL '1' DAY" },
        ],
      ],
    },
    text: sql,
  });
  assert.deepEqual(one('insert into t values (1)'), {
    kind: 'insert',
    name: { parts: ['t'] },
    replace: false,
    source: { kind: 'values', rows: [[{ kind: 'number', text: '1' }]] },
    text: 'insert into t values (1)',
  });
});

test("INSERT VALUES: hex literals are bytes, inside expressions BLOB literals; bad digits are syntax errors", () => {
  const sql = "INSERT INTO t VALUES (X'00ff', 0x0a, x'', X'01' || 0x02)";
  assert.deepEqual(one(sql), {
    kind: 'insert',
    name: { parts: ['t'] },
    replace: false,
    source: {
      kind: 'values',
      rows: [[{ kind: 'hex', digits: '00ff' }, { kind: 'hex', digits: '0a' }, { kind: 'hex', digits: '' }, { kind: 'sql', text: "'\\x01'::BLOB || '\\x02'::BLOB" }]],
    },
    text: sql,
  });
  assert.throws(() => one("INSERT INTO t VALUES (X'0')"), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidSyntax);
});

test('REPLACE INTO and INSERT … SELECT / WITH / (query)', () => {
  assert.deepEqual(one("REPLACE INTO t (a) VALUES ('x')"), {
    kind: 'insert',
    name: { parts: ['t'] },
    columns: ['a'],
    replace: true,
    source: { kind: 'values', rows: [[{ kind: 'string', value: 'x' }]] },
    text: "REPLACE INTO t (a) VALUES ('x')",
  });
  assert.deepEqual(one('INSERT INTO t2 SELECT * FROM t1 WHERE a = "x"'), {
    kind: 'insert',
    name: { parts: ['t2'] },
    replace: false,
    source: { kind: 'query', sql: 'SELECT * FROM t1 WHERE a = "x"' },
    text: 'INSERT INTO t2 SELECT * FROM t1 WHERE a = "x"',
  });
  assert.deepEqual(one('INSERT INTO t2 (a, ts) WITH c AS (SELECT 1) SELECT * FROM c'), {
    kind: 'insert',
    name: { parts: ['t2'] },
    columns: ['a', 'ts'],
    replace: false,
    source: { kind: 'query', sql: 'WITH c AS (SELECT 1) SELECT * FROM c' },
    text: 'INSERT INTO t2 (a, ts) WITH c AS (SELECT 1) SELECT * FROM c',
  });
  assert.deepEqual(one('INSERT INTO t2 (SELECT 1)'), {
    kind: 'insert',
    name: { parts: ['t2'] },
    replace: false,
    source: { kind: 'query', sql: '(SELECT 1)' },
    text: 'INSERT INTO t2 (SELECT 1)',
  });
});

test('INSERT errors', () => {
  fails('INSERT INTO t VALUES', StatusCode.InvalidSyntax, syntax('Expected: (, found: EOF'));
  fails('INSERT INTO t VALUES (1,,2)', StatusCode.InvalidSyntax, syntax('Expected: an expression, found: , at Line: 1, Column: 25'));
  fails('INSERT INTO t VALUES (1, 2', StatusCode.InvalidSyntax, syntax('Expected: ), found: EOF'));
  fails('INSERT INTO t VALUES (1) (2)', StatusCode.InvalidSyntax, syntax('Expected: end of statement, found: ( at Line: 1, Column: 26'));
  fails('INSERT t VALUES (1)', StatusCode.InvalidSyntax, syntax('Expected: INTO, found: t at Line: 1, Column: 8'));
  fails('INSERT INTO t DEFAULT VALUES', StatusCode.InvalidSyntax, syntax('Expected: SELECT, VALUES, or a subquery in the query body, found: DEFAULT at Line: 1, Column: 15'));
});

test('DELETE', () => {
  assert.deepEqual(one("DELETE FROM Db.T WHERE host = 'a' AND ts < now()"), {
    kind: 'delete',
    name: { parts: ['db', 't'] },
    where: "host = 'a' AND ts < now()",
    text: "DELETE FROM Db.T WHERE host = 'a' AND ts < now()",
  });
  assert.deepEqual(one('delete from t'), { kind: 'delete', name: { parts: ['t'] }, text: 'delete from t' });
  fails('DELETE t', StatusCode.InvalidSyntax, syntax('Expected: FROM, found: t at Line: 1, Column: 8'));
});

// ---- queries, EXPLAIN, ADMIN, SET ----

test('queries stay SQL text', () => {
  for (const sql of ['SELECT 1', 'select * from t where a = "X"', 'WITH c AS (SELECT 1) SELECT * FROM c', 'VALUES (1), (2)', 'FROM t', '(SELECT 1) UNION ALL (SELECT 2)', 'TABLE t', 'SELECT 1 SELECT 2']) {
    assert.deepEqual(one(sql), { kind: 'query', sql, text: sql });
  }
  assert.deepEqual(one("  \n SELECT 'a;b' -- trailing\n  "), { kind: 'query', sql: "SELECT 'a;b'", text: "SELECT 'a;b'" });
});

test('EXPLAIN [ANALYZE] [VERBOSE]', () => {
  assert.deepEqual(one('EXPLAIN SELECT * FROM t'), { kind: 'explain', analyze: false, verbose: false, statement: 'SELECT * FROM t', text: 'EXPLAIN SELECT * FROM t' });
  assert.deepEqual(one('explain analyze verbose select 1'), { kind: 'explain', analyze: true, verbose: true, statement: 'select 1', text: 'explain analyze verbose select 1' });
  assert.deepEqual(one('EXPLAIN VERBOSE INSERT INTO t VALUES (1)'), {
    kind: 'explain',
    analyze: false,
    verbose: true,
    statement: 'INSERT INTO t VALUES (1)',
    text: 'EXPLAIN VERBOSE INSERT INTO t VALUES (1)',
  });
  fails('EXPLAIN', StatusCode.InvalidSyntax, syntax('Expected: an SQL statement, found: EOF'));
  fails('EXPLAIN SELEC 1', StatusCode.Unsupported, 'SQL statement is not supported, keyword: SELEC');
  fails('EXPLAIN FORMAT JSON SELECT 1', StatusCode.Unsupported, 'SQL statement is not supported, keyword: FORMAT');
});

test('ADMIN', () => {
  assert.deepEqual(one("ADMIN FLUSH_TABLE('t')"), { kind: 'admin', func: 'flush_table', args: [{ kind: 'string', value: 't' }], text: "ADMIN FLUSH_TABLE('t')" });
  assert.deepEqual(one("admin compact_table('t', 'regular', 1, now())"), {
    kind: 'admin',
    func: 'compact_table',
    args: [
      { kind: 'string', value: 't' },
      { kind: 'string', value: 'regular' },
      { kind: 'number', text: '1' },
      { kind: 'sql', text: 'now()' },
    ],
    text: "admin compact_table('t', 'regular', 1, now())",
  });
  assert.deepEqual(one('ADMIN procedure_state()'), { kind: 'admin', func: 'procedure_state', args: [], text: 'ADMIN procedure_state()' });
  fails("ADMIN flush_table 't'", StatusCode.InvalidSyntax, syntax("Expected: (, found: 't' at Line: 1, Column: 19"));
});

test('SET and SHOW VARIABLES', () => {
  const set = (sql: string): unknown => {
    const s = one(sql);
    assert.ok(s.kind === 'set');
    return [s.variable, s.value];
  };
  assert.deepEqual(one("SET time_zone = 'UTC'"), { kind: 'set', variable: 'time_zone', value: { kind: 'string', value: 'UTC' }, text: "SET time_zone = 'UTC'" });
  assert.deepEqual(set("SET TIME_ZONE TO '+08:00'"), ['time_zone', { kind: 'string', value: '+08:00' }]);
  assert.deepEqual(set("SET SESSION time_zone = 'Asia/Shanghai'"), ['time_zone', { kind: 'string', value: 'Asia/Shanghai' }]);
  assert.deepEqual(set("SET LOCAL TIME_ZONE = 'UTC'"), ['time_zone', { kind: 'string', value: 'UTC' }]);
  assert.deepEqual(set("SET @@time_zone = 'UTC'"), ['time_zone', { kind: 'string', value: 'UTC' }]);
  assert.deepEqual(set("SET @@session.time_zone = 'UTC'"), ['time_zone', { kind: 'string', value: 'UTC' }]);
  assert.deepEqual(set("SET TIME ZONE 'UTC'"), ['time_zone', { kind: 'string', value: 'UTC' }]);
  assert.deepEqual(set('SET max_execution_time = 1000'), ['max_execution_time', { kind: 'number', text: '1000' }]);
  assert.deepEqual(set('SET search_path TO public'), ['search_path', { kind: 'sql', text: 'public' }]);
  assert.deepEqual(set('SET x = DEFAULT'), ['x', { kind: 'default' }]);
  assert.deepEqual(one('SHOW VARIABLES Time_Zone'), { kind: 'show_variables', name: 'time_zone', text: 'SHOW VARIABLES Time_Zone' });
  assert.deepEqual(one('SHOW VARIABLES @@session.time_zone'), { kind: 'show_variables', name: 'time_zone', text: 'SHOW VARIABLES @@session.time_zone' });
  fails('SET time_zone', StatusCode.InvalidSyntax, syntax('Expected: equals sign or TO, found: EOF'));
  fails('SET time_zone =', StatusCode.InvalidSyntax, syntax('Expected: variable value, found: EOF'));
  fails('SET GLOBAL time_zone = 1', StatusCode.Unsupported, 'SQL statement is not supported, keyword: GLOBAL');
});

// ---- splitting and general errors ----

test('splits on top-level ; only, skipping empty statements', () => {
  const stmts = parseSql(`
    SELECT ';' AS "a;b"; ; -- comment ; here
    /* block ; comment */ SELECT (1;2);
    INSERT INTO t VALUES ('x;y', "q;r");;
    USE db
    ;`);
  assert.deepEqual(
    stmts.map((s) => [s.kind, s.text]),
    [
      ['query', `SELECT ';' AS "a;b"`],
      ['query', 'SELECT (1;2)'],
      ['insert', `INSERT INTO t VALUES ('x;y', "q;r")`],
      ['use', 'USE db'],
    ],
  );
  assert.deepEqual(parseSql(''), []);
  assert.deepEqual(parseSql(' ;; -- nothing\n /* at all */ ;'), []);
});

test('unknown statements are Unsupported with the first word as written', () => {
  fails('SELEC 42', StatusCode.Unsupported, 'SQL statement is not supported, keyword: SELEC');
  fails('prepare_x (0, 10) up', StatusCode.Unsupported, 'SQL statement is not supported, keyword: prepare_x');
  // The first failing statement decides, even after good ones.
  fails('SELECT 1; Frob x; SELEC 2', StatusCode.Unsupported, 'SQL statement is not supported, keyword: Frob');
  fails("'abc'", StatusCode.InvalidSyntax, syntax("Expected: an SQL statement, found: 'abc' at Line: 1, Column: 1"));
});

test("statements that would reach outside the database are refused with a permission error, for every user", () => {
  const denied = (what: string) => `Permission denied: ${what} is not allowed: tsdb SQL does not reach the server's files, network, extensions or engine settings`;
  for (const [sql, what] of [
    ["ATTACH '/tmp/x.db' AS x", 'ATTACH'],
    ['DETACH x', 'DETACH'],
    ['INSTALL httpfs', 'INSTALL'],
    ['FORCE INSTALL httpfs', 'FORCE INSTALL'],
    ['LOAD httpfs', 'LOAD'],
    ["EXPORT DATABASE '/tmp/x'", 'EXPORT'],
    ["IMPORT DATABASE '/tmp/x'", 'IMPORT'],
    ['PRAGMA database_list', 'PRAGMA'],
    ['CALL pragma_version()', 'CALL'],
    ['CHECKPOINT', 'CHECKPOINT'],
    ['VACUUM', 'VACUUM'],
    ['RESET lock_configuration', 'RESET'],
    ["CREATE SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')", 'CREATE SECRET'],
    ["CREATE OR REPLACE PERSISTENT SECRET s (TYPE s3)", 'CREATE SECRET'],
    ['SET enable_external_access = true', 'SET enable_external_access'],
    ["SET allowed_directories = ['/']", 'SET allowed_directories'],
    ['SET SESSION threads TO 8', 'SET threads'],
    ['SET GLOBAL lock_configuration = false', 'SET GLOBAL lock_configuration'],
    ['SET @@global.memory_limit = 1', 'SET GLOBAL memory_limit'],
    ["SET VARIABLE x = (SELECT 1)", 'SET VARIABLE'],
  ] as const) {
    fails(sql, StatusCode.PermissionDenied, denied(what));
  }
  // COPY is tsdb's own statement (frontend/statement/copy.ts): its paths are checked when it runs.
  assert.equal(one("copy (SELECT 1) TO '/tmp/x.csv'").kind, 'copy');
  // Session variables tsdb keeps itself are not the engine's, though DuckDB has settings of those names.
  assert.equal(one("SET TimeZone = 'UTC'").kind, 'set');
  assert.equal(one('SET search_path TO public').kind, 'set');
  fails('SET GLOBAL time_zone = 1', StatusCode.Unsupported, 'SQL statement is not supported, keyword: GLOBAL');
});

test('syntax errors carry the position of the offending token over the whole input', () => {
  fails('SELECT 1;\n  DROP TABLE a b;', StatusCode.InvalidSyntax, syntax('Expected: end of statement, found: b at Line: 2, Column: 16'));
  fails('USE a;\nUSE\n', StatusCode.InvalidSyntax, syntax('Expected: identifier, found: EOF'));
  fails('USE;', StatusCode.InvalidSyntax, syntax('Expected: identifier, found: ; at Line: 1, Column: 4'));
  fails("SELECT 1;\nSELECT 'x", StatusCode.InvalidSyntax, syntax('Unterminated string literal at Line: 2, Column: 8'));
});

test('a NUL character is refused before the fast INSERT path too; "" names nothing but is a string in VALUES', () => {
  const nul = (c: number) => syntax(`a NUL character (U+0000) is not allowed in SQL text (binary data can be written as a hex literal, X'00') at Line: 1, Column: ${c}`);
  fails("INSERT INTO t VALUES ('a\u0000', 1)", StatusCode.InvalidSyntax, nul(25));
  fails("INSERT INTO t VALUES ('a', 1)\u0000", StatusCode.InvalidSyntax, nul(30));
  fails('CREATE TABLE "t\u0000" (ts TIMESTAMP TIME INDEX)', StatusCode.InvalidSyntax, nul(16));
  fails('CREATE TABLE "" (ts TIMESTAMP TIME INDEX)', StatusCode.InvalidSyntax, syntax('zero-length delimited identifier "" at Line: 1, Column: 14'));
  fails('CREATE TABLE t (`` INT, ts TIMESTAMP TIME INDEX)', StatusCode.InvalidSyntax, syntax('zero-length delimited identifier `` at Line: 1, Column: 17'));
  fails('CREATE DATABASE ""', StatusCode.InvalidSyntax, syntax('zero-length delimited identifier "" at Line: 1, Column: 17'));
  fails('ALTER TABLE t RENAME ""', StatusCode.InvalidSyntax, syntax('zero-length delimited identifier "" at Line: 1, Column: 22'));
  const insert = one('INSERT INTO t VALUES ("", 1)');
  assert.ok(insert.kind === 'insert' && insert.source.kind === 'values');
  assert.deepEqual(insert.source.rows, [[{ kind: 'string', value: '' }, { kind: 'number', text: '1' }]]);
});

test('every prefix of long statements parses or throws a TsdbError 2000/1001', () => {
  const statements = [
    `CREATE TABLE IF NOT EXISTS "Db".t (host STRING NULL DEFAULT 'x' COMMENT 'h' INVERTED INDEX, v DOUBLE DEFAULT -1.5 FULLTEXT INDEX WITH (analyzer = 'English'),
      ts TIMESTAMP(3) NOT NULL DEFAULT now() - INTERVAL '1' DAY, d DECIMAL(10, 2) UNSIGNED SKIPPING INDEX WITH (granularity = 1), TIME INDEX (ts), PRIMARY KEY (host),)
      PARTITION ON COLUMNS (host) (host < 'a', host >= 'a') ENGINE = mito WITH (ttl = '7d', compaction.twcs.time_window = 1h, 'x' = -1)`,
    `INSERT INTO TABLE db.t (a, "B", c) VALUES (1, -2.5e3, 'it''s', "dq", now(), CAST(1 AS INT), (1 + (2)), NULL, DEFAULT, true),(1,2,3,), ; REPLACE INTO t SELECT * FROM t2`,
    `ALTER TABLE t ADD COLUMN IF NOT EXISTS a INT DEFAULT 1 PRIMARY KEY AFTER b, ADD c STRING FIRST; ALTER TABLE t MODIFY COLUMN c SET DEFAULT 'x'; ALTER TABLE t SET 'ttl' = '1d', 'a.b' = NULL; ALTER DATABASE d UNSET 'ttl'`,
    `SHOW FULL COLUMNS FROM t IN db LIKE 'a%'; SHOW INDEX FROM t WHERE x = 1; EXPLAIN ANALYZE VERBOSE DELETE FROM t WHERE a = 1; SET @@session.time_zone = '+08:00'; ADMIN compact_table('t', "x", 1); DESCRIBE TABLE a.b`,
    `/* c */ CREATE DATABASE IF NOT EXISTS d WITH (ttl = '1h'); SHOW CREATE DATABASE d; DROP TABLE IF EXISTS a, b -- end`,
  ];
  let parsed = 0;
  let failed = 0;
  for (const full of statements) {
    for (let i = 0; i <= full.length; i++) {
      const sql = full.slice(0, i);
      try {
        parseSql(sql);
        parsed++;
      } catch (err) {
        failed++;
        assert.ok(err instanceof TsdbError, `TsdbError for prefix ${JSON.stringify(sql)}: ${String(err)}`);
        assert.ok(err.code === StatusCode.InvalidSyntax || err.code === StatusCode.Unsupported, `code ${err.code} for prefix ${JSON.stringify(sql)}: ${err.message}`);
      }
    }
    // The whole text parses.
    assert.ok(parseSql(full).length > 0);
  }
  assert.ok(parsed > 0 && failed > 0);
});

test('SHOW CHARACTER SET | CHARSET | COLLATION', () => {
  assert.deepEqual(one('SHOW CHARACTER SET'), { kind: 'show_charset', text: 'SHOW CHARACTER SET' });
  assert.deepEqual(one("SHOW CHARSET LIKE 'utf8'"), { kind: 'show_charset', filter: { kind: 'like', pattern: 'utf8' }, text: "SHOW CHARSET LIKE 'utf8'" });
  assert.deepEqual(one("SHOW COLLATION WHERE Charset = 'utf8'"), { kind: 'show_collation', filter: { kind: 'where', sql: "Charset = 'utf8'" }, text: "SHOW COLLATION WHERE Charset = 'utf8'" });
});
