/**
 * The gRPC API on a real standalone server (reference api.md §6): GreptimeDatabase row inserts
 * creating tables that SQL over HTTP then reads, column inserts, deletes, DDL, query.sql with the
 * request's time zone, hints, authentication with a static user provider, bad input, 64
 * concurrent HandleRequests streams, a client killed mid-stream and a stream cut inside a message,
 * health check. test/integration/grpc-python.test.ts drives the same server from Python.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:http2';
import { test, type TestContext } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { greptimeServiceDefinition } from '../../src/servers/grpc/protos.js';
import { cpuRows, DT, greptimeGrpc, metadata, ROWS_PER_MESSAGE, SEM, type GrpcResult } from '../support/greptime-grpc.js';
import { sqlRows } from '../support/sql-rows.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

async function start(t: TestContext, args: string[] = []) {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  assert.ok(s.grpc !== undefined, 'the gRPC address is in the started line');
  return { ...s, grpc: s.grpc!, client: greptimeGrpc(t, s.grpc!) };
}

function ok(r: GrpcResult): number {
  if (!r.ok) assert.fail(`gRPC call failed: ${r.code} ${r.details}`);
  assert.equal(r.value.header.status.status_code, 0);
  return r.value.affected_rows.value;
}

function failure(r: GrpcResult): { code: number; details: string; trailers: Record<string, unknown> } {
  if (r.ok) assert.fail(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r;
}

test('row inserts create the table and its columns; SQL over HTTP reads the rows; column inserts, deletes and health too', async (t) => {
  const { baseUrl, client } = await start(t);
  assert.deepEqual(await client.healthCheck(), { ok: true, value: {} });
  assert.equal(ok(await client.handle(cpuRows('cpu', [['a', 1000, 1.5], ['b', 2000, null]], { dbname: 'public' }))), 2);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, v, ts FROM cpu ORDER BY host'), [['a', 1.5, 1000], ['b', null, 2000]]);
  const [, create] = (await sqlRows(baseUrl, 'SHOW CREATE TABLE cpu'))[0]!;
  assert.match(String(create), /"host" STRING NULL,\s+"v" DOUBLE NULL,\s+"ts" TIMESTAMP\(3\) NOT NULL,\s+TIME INDEX \("ts"\),\s+PRIMARY KEY \("host"\)/);

  // Every type tsdb stores, one new column each; an int tag.
  const types: Array<[string, number, Record<string, unknown>, unknown]> = [
    ['b', DT.BOOLEAN, { bool_value: true }, true],
    ['i8', DT.INT8, { i8_value: -5 }, -5],
    ['i32', DT.INT32, { i32_value: 123456 }, 123456],
    ['i64', DT.INT64, { i64_value: '-9007199254740993' }, '-9007199254740993'],
    ['u64', DT.UINT64, { u64_value: '18446744073709551615' }, '18446744073709551615'],
    ['s', DT.STRING, { string_value: 'héllo' }, 'héllo'],
    ['bin', DT.BINARY, { binary_value: Buffer.from([0xde, 0xad]) }, 'dead'],
    ['d', DT.DATE, { date_value: 19000 }, '2022-01-08'],
  ];
  const r = await client.handle({
    row_inserts: {
      inserts: [{
        table_name: 'typed',
        rows: {
          schema: [{ column_name: 'id', datatype: DT.INT32, semantic_type: SEM.TAG }, { column_name: 'ts', datatype: DT.TS_NS, semantic_type: SEM.TIMESTAMP }, ...types.map(([name, dt]) => ({ column_name: name, datatype: dt, semantic_type: SEM.FIELD }))],
          rows: [{ values: [{ i32_value: 7 }, { timestamp_nanosecond_value: '1700000000123456789' }, ...types.map(([, , v]) => v)] }],
        },
      }],
    },
  });
  assert.equal(ok(r), 1);
  const [row] = await sqlRows(baseUrl, `SELECT id, CAST(epoch_ns(ts) AS VARCHAR), b, i8, i32, CAST(i64 AS VARCHAR), CAST(u64 AS VARCHAR), s, hex(bin), CAST(d AS VARCHAR) FROM typed`);
  assert.deepEqual(row, [7, '1700000000123456789', true, -5, 123456, '-9007199254740993', '18446744073709551615', 'héllo', 'DEAD', '2022-01-08']);

  // Column-oriented inserts with a null mask into the same table as rows.
  const cols = await client.handle({
    inserts: {
      inserts: [{
        table_name: 'cpu',
        row_count: 3,
        columns: [
          { column_name: 'host', semantic_type: SEM.TAG, datatype: DT.STRING, values: { string_values: ['c', 'c', 'c'] } },
          { column_name: 'ts', semantic_type: SEM.TIMESTAMP, datatype: DT.TS_MS, values: { timestamp_millisecond_values: ['1000', '2000', '3000'] } },
          { column_name: 'v', semantic_type: SEM.FIELD, datatype: DT.FLOAT64, values: { f64_values: [1, 3] }, null_mask: Buffer.from([0b010]) },
        ],
      }],
    },
  });
  assert.equal(ok(cols), 3);
  assert.deepEqual(await sqlRows(baseUrl, "SELECT ts, v FROM cpu WHERE host = 'c' ORDER BY ts"), [[1000, 1], [2000, null], [3000, 3]]);

  // Deletes by key: rows and columns.
  const keySchema = [{ column_name: 'host', datatype: DT.STRING, semantic_type: SEM.TAG }, { column_name: 'ts', datatype: DT.TS_MS, semantic_type: SEM.TIMESTAMP }];
  assert.equal(ok(await client.handle({ row_deletes: { deletes: [{ table_name: 'cpu', rows: { schema: keySchema, rows: [{ values: [{ string_value: 'c' }, { timestamp_millisecond_value: '2000' }] }, { values: [{ string_value: 'a' }, { timestamp_millisecond_value: '1000' }] }] } }] } })), 2);
  assert.equal(ok(await client.handle({ deletes: { deletes: [{ table_name: 'cpu', row_count: 1, key_columns: [{ column_name: 'host', semantic_type: SEM.TAG, datatype: DT.STRING, values: { string_values: ['c'] } }, { column_name: 'ts', semantic_type: SEM.TIMESTAMP, datatype: DT.TS_MS, values: { timestamp_millisecond_values: ['3000'] } }] }] } })), 1);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, ts FROM cpu ORDER BY host, ts'), [['b', 2000], ['c', 1000]]);
  const unknown = failure(await client.handle({ row_deletes: { deletes: [{ table_name: 'nope', rows: { schema: keySchema, rows: [] } }] } }));
  assert.equal(unknown.code, grpc.status.NOT_FOUND);
  assert.equal(unknown.trailers['x-greptime-err-code'], '4001');
});

test('DDL: create/alter database, create/alter/rename/truncate/drop table; query.sql statements; time zone of the request', async (t) => {
  const { baseUrl, client } = await start(t);
  assert.equal(ok(await client.handle({ ddl: { create_database: { schema_name: 'Metrics', create_if_not_exists: false, options: { ttl: '7d' } } } })), 1);
  assert.deepEqual(await sqlRows(baseUrl, "SHOW DATABASES LIKE 'Metrics'"), [['Metrics']]);
  const already = failure(await client.handle({ ddl: { create_database: { schema_name: 'Metrics', create_if_not_exists: false } } }));
  assert.equal(already.trailers['x-greptime-err-code'], '1004');
  assert.equal(already.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(ok(await client.handle({ ddl: { alter_database: { schema_name: 'Metrics', set_database_options: { set_database_options: [{ key: 'ttl', value: '1d' }] } } } })), 0);

  const createTable = {
    header: { dbname: 'Metrics' },
    ddl: {
      create_table: {
        table_name: 'Mem', time_index: 'ts', primary_keys: ['host'], create_if_not_exists: false, engine: 'mito', table_options: { append_mode: 'true' }, desc: 'memory',
        column_defs: [
          { name: 'host', data_type: DT.STRING, is_nullable: true, semantic_type: SEM.TAG },
          { name: 'ts', data_type: DT.TS_MS, is_nullable: false, semantic_type: SEM.TIMESTAMP },
          { name: 'used', data_type: DT.FLOAT64, is_nullable: true, semantic_type: SEM.FIELD, comment: "bytes 'used'", default_constraint: Buffer.from('{"Value":{"Float64":0.0}}') },
        ],
      },
    },
  };
  assert.equal(ok(await client.handle(createTable)), 0);
  const dup = failure(await client.handle(createTable));
  assert.equal(dup.code, grpc.status.ALREADY_EXISTS);
  assert.equal(dup.trailers['x-greptime-err-code'], '4000');
  const [, text] = (await sqlRows(baseUrl, 'SHOW CREATE TABLE "Mem"', { db: 'Metrics' }))[0]!;
  assert.match(String(text), /"used" DOUBLE NULL DEFAULT 0 COMMENT 'bytes ''used'''/);
  assert.match(String(text), /append_mode = 'true'/);
  assert.match(String(text), /comment = 'memory'/);
  assert.match(String(text), /ttl = '1day'/);

  const alter = (kind: Record<string, unknown>) => client.handle({ header: { dbname: 'Metrics' }, ddl: { alter_table: { table_name: 'Mem', ...kind } } });
  assert.equal(ok(await alter({ add_columns: { add_columns: [{ column_def: { name: 'dc', data_type: DT.STRING, is_nullable: true, semantic_type: SEM.TAG } }, { column_def: { name: 'free', data_type: DT.INT64, is_nullable: true, semantic_type: SEM.FIELD }, location: { location_type: 1, after_column_name: 'host' } }] } })), 0);
  assert.deepEqual((await sqlRows(baseUrl, 'DESC TABLE "Mem"', { db: 'Metrics' })).map((r) => [r[0], r[5]]), [['host', 'TAG'], ['free', 'FIELD'], ['ts', 'TIMESTAMP'], ['used', 'FIELD'], ['dc', 'TAG']]);
  assert.equal(ok(await alter({ drop_columns: { drop_columns: [{ name: 'free' }] } })), 0);
  assert.equal(ok(await alter({ set_table_options: { table_options: [{ key: 'ttl', value: '2h' }] } })), 0);
  assert.match(String((await sqlRows(baseUrl, 'SHOW CREATE TABLE "Mem"', { db: 'Metrics' }))[0]![1]), /ttl = '2h'/);
  // Rows of 2024 below would be past any TTL.
  assert.equal(ok(await alter({ set_table_options: { table_options: [{ key: 'ttl', value: 'forever' }] } })), 0);
  const missing = failure(await alter({ drop_columns: { drop_columns: [{ name: 'nope' }] } }));
  assert.equal(missing.code, grpc.status.NOT_FOUND);
  assert.equal(missing.trailers['x-greptime-err-code'], '4002');

  // query.sql: an INSERT with a naive time in the request's time zone; SELECT is for Flight.
  assert.equal(ok(await client.handle({ header: { dbname: 'Metrics', timezone: '+08:00' }, query: { sql: `INSERT INTO "Mem" (host, ts, used) VALUES ('a', '2024-01-01 08:00:00', 1), ('b', '2024-01-01 08:00:01', 2)` } })), 2);
  assert.equal(ok(await client.handle({ header: { dbname: 'Metrics' }, query: { sql: `INSERT INTO "Mem" (host, ts, used) VALUES ('c', '2024-01-01 00:00:02', 3)` } }, metadata({ 'x-greptime-timezone': 'Asia/Shanghai' }))), 1);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, ts FROM "Mem" ORDER BY host', { db: 'Metrics' }), [['a', 1704067200000], ['b', 1704067201000], ['c', 1704038402000]]);
  const select = failure(await client.handle({ header: { dbname: 'Metrics' }, query: { sql: 'SELECT * FROM "Mem"' } }));
  assert.equal(select.code, grpc.status.UNIMPLEMENTED);
  const syntax = failure(await client.handle({ query: { sql: 'SELEC 1' } }));
  assert.equal(syntax.trailers['x-greptime-err-code'], '1001');
  const plan = failure(await client.handle({ header: { dbname: 'Metrics' }, query: { sql: 'INSERT INTO "Mem" (host, ts, nope) VALUES (1, 1, 1)' } }));
  assert.notEqual(plan.code, grpc.status.INTERNAL, plan.details);

  assert.equal(ok(await client.handle({ header: { dbname: 'Metrics' }, ddl: { truncate_table: { table_name: 'Mem' } } })), 0);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM "Mem"', { db: 'Metrics' }), [[0]]);
  assert.equal(ok(await alter({ rename_table: { new_table_name: 'memory' } })), 0);
  assert.equal(ok(await client.handle({ header: { dbname: 'Metrics' }, ddl: { drop_table: { table_name: 'memory', drop_if_exists: false } } })), 0);
  assert.equal(ok(await client.handle({ header: { dbname: 'Metrics' }, ddl: { drop_table: { table_name: 'memory', drop_if_exists: true } } })), 0);
  assert.equal(ok(await client.handle({ query: { sql: 'DROP DATABASE "Metrics"' } })), 0);
  assert.deepEqual(await sqlRows(baseUrl, "SHOW DATABASES LIKE 'Metrics'"), []);
});

test('hints from metadata: auto_create_table=false, ttl, append_mode, merge_mode; dbname forms', async (t) => {
  const { baseUrl, client } = await start(t);
  const none = failure(await client.handle(cpuRows('absent', [['a', 1, 1]]), metadata({ 'x-greptime-hints': 'auto_create_table=false' })));
  assert.equal(none.code, grpc.status.NOT_FOUND);
  assert.equal(none.trailers['x-greptime-err-code'], '4001');
  assert.deepEqual(await sqlRows(baseUrl, "SHOW TABLES LIKE 'absent'"), []);

  ok(await client.handle(cpuRows('hinted', [['a', 1, 1]]), metadata({ 'x-greptime-hints': 'ttl=7d, append_mode=true', 'x-greptime-hint-physical_table': 'ignored' })));
  let [, text] = (await sqlRows(baseUrl, 'SHOW CREATE TABLE hinted'))[0]!;
  assert.match(String(text), /append_mode = 'true'/);
  assert.match(String(text), /ttl = '7days'/);
  ok(await client.handle(cpuRows('merged', [['a', 1, 1]]), metadata({ 'x-tsdb-hint-merge_mode': 'last_non_null' })));
  [, text] = (await sqlRows(baseUrl, 'SHOW CREATE TABLE merged'))[0]!;
  assert.match(String(text), /merge_mode = 'last_non_null'/);
  // With the table there, auto_create_table=false writes.
  assert.equal(ok(await client.handle(cpuRows('merged', [['a', 1, null]]), metadata({ 'x-tsdb-hints': 'auto_create_table=false' }))), 1);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT v FROM merged'), [[1]]);

  ok(await client.handle({ query: { sql: 'CREATE DATABASE other' } }));
  ok(await client.handle(cpuRows('x', [['a', 1, 1]], { dbname: 'tsdb-other' })));
  ok(await client.handle(cpuRows('y', [['a', 1, 1]]), metadata({ 'x-greptime-db-name': 'other' })));
  ok(await client.handle(cpuRows('z', [['a', 1, 1]], { catalog: 'tsdb', schema: 'OTHER' })));
  assert.deepEqual(await sqlRows(baseUrl, 'SHOW TABLES', { db: 'other' }), [['x'], ['y'], ['z']]);
  const nodb = failure(await client.handle(cpuRows('x', [['a', 1, 1]], { dbname: 'nodb' })));
  assert.equal(nodb.code, grpc.status.NOT_FOUND);
  assert.equal(nodb.trailers['x-greptime-err-code'], '4004');
});

test('authentication with a static user provider: header or metadata credentials, permissions as over HTTP', async (t) => {
  const { baseUrl, client } = await start(t, ['--user-provider', 'static_user_provider:cmd:rw=pw,r:ro=rpw,w:wo=wpw']);
  const basic = (username: string, password: string) => ({ dbname: 'public', authorization: { basic: { username, password } } });
  assert.equal(ok(await client.handle(cpuRows('auth', [['a', 1, 1]], basic('rw', 'pw')))), 1);
  assert.equal(ok(await client.handle(cpuRows('auth', [['b', 1, 1]]), metadata({ authorization: `Basic ${Buffer.from('w:wpw').toString('base64')}` }))), 1);
  const cases: Array<[GrpcResult, number, string]> = [
    [await client.handle(cpuRows('auth', [['c', 1, 1]])), grpc.status.UNAUTHENTICATED, '7003'],
    [await client.handle(cpuRows('auth', [['c', 1, 1]], basic('rw', 'bad'))), grpc.status.UNAUTHENTICATED, '7002'],
    [await client.handle(cpuRows('auth', [['c', 1, 1]], basic('who', 'x'))), grpc.status.NOT_FOUND, '7000'],
    [await client.handle(cpuRows('auth', [['c', 1, 1]], basic('r', 'rpw'))), grpc.status.PERMISSION_DENIED, '7006'],
    [await client.handle({ header: basic('r', 'rpw'), ddl: { drop_table: { table_name: 'auth', drop_if_exists: false } } }), grpc.status.PERMISSION_DENIED, '7006'],
  ];
  for (const [r, status, code] of cases) {
    const f = failure(r);
    assert.equal(f.code, status, f.details);
    assert.equal(f.trailers['x-greptime-err-code'], code);
  }
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host FROM auth ORDER BY host', { auth: 'rw:pw' }), [['a'], ['b']]);
});

test('bad input: undecodable message, wrong column type, unsupported type; nothing partial written, the server keeps serving', async (t) => {
  const { baseUrl, client, grpc: addr } = await start(t);
  ok(await client.handle(cpuRows('bad', [['a', 1, 1]])));
  // Two tables, the second wrong: neither is written.
  const wrong = {
    row_inserts: {
      inserts: [
        (cpuRows('fresh', [['a', 1, 1]]) as any).row_inserts.inserts[0],
        { table_name: 'bad', rows: { schema: [{ column_name: 'ts', datatype: DT.TS_MS, semantic_type: SEM.TIMESTAMP }, { column_name: 'v', datatype: DT.STRING, semantic_type: SEM.FIELD }], rows: [{ values: [{ timestamp_millisecond_value: '2' }, { string_value: 'x' }] }] } },
      ],
    },
  };
  const f = failure(await client.handle(wrong));
  assert.equal(f.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(f.trailers['x-greptime-err-code'], '1004');
  assert.match(f.details, /column v expect type Float64, given: String/);
  assert.deepEqual(await sqlRows(baseUrl, "SHOW TABLES LIKE 'fresh'"), []);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*) FROM bad'), [[1]]);

  const unsupported = failure(await client.handle({ row_inserts: { inserts: [{ table_name: 'bad', rows: { schema: [{ column_name: 'ts', datatype: DT.TS_MS, semantic_type: SEM.TIMESTAMP }, { column_name: 't', datatype: 19, semantic_type: SEM.FIELD }], rows: [] } }] } }));
  assert.equal(unsupported.code, grpc.status.UNIMPLEMENTED);
  assert.equal(unsupported.trailers['x-greptime-err-code'], '1001');

  const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
  t.after(() => raw.close());
  const err = await new Promise<grpc.ServiceError | null>((resolve) => raw.makeUnaryRequest('/greptime.v1.GreptimeDatabase/Handle', (b: Buffer) => b, (b: Buffer) => b, Buffer.from('not protobuf at all \xff'), (e) => resolve(e)));
  assert.equal(err?.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(err?.metadata.get('x-greptime-err-code')[0], '1004');
  assert.deepEqual(await client.healthCheck(), { ok: true, value: {} });
});

test('64 concurrent HandleRequests streams into one table (created by the first) and 8 others: every row lands once', async (t) => {
  const { baseUrl, client } = await start(t);
  const STREAMS = 64;
  const MESSAGES = 5;
  const ROWS = 20;
  const results = await Promise.all(Array.from({ length: STREAMS }, async (_, s) => {
    const { call, done } = client.stream();
    for (let m = 0; m < MESSAGES; m++) {
      const rows = Array.from({ length: ROWS }, (_, i) => [`s${s}`, m * ROWS + i, s] as const);
      call.write(cpuRows(s % 8 === 0 ? `side${s / 8}` : 'conc', rows));
    }
    call.end();
    return done;
  }));
  for (const r of results) assert.equal(ok(r), MESSAGES * ROWS);
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT count(*), count(DISTINCT host) FROM conc'), [[56 * MESSAGES * ROWS, 56]]);
  for (let k = 0; k < 8; k++) assert.deepEqual(await sqlRows(baseUrl, `SELECT count(*) FROM side${k}`), [[MESSAGES * ROWS]]);
});

test('a client killed mid-stream, and a stream cut inside a message: whole messages only, the server keeps serving', async (t) => {
  const { baseUrl, client, grpc: addr } = await start(t);
  const child = spawn(process.execPath, [new URL('../support/grpc-stream-child.js', import.meta.url).pathname, addr, 'killed'], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const count = async (table: string) => {
    const tables = await sqlRows(baseUrl, `SHOW TABLES LIKE '${table}'`);
    return tables.length === 0 ? 0 : Number((await sqlRows(baseUrl, `SELECT count(*) FROM ${table}`))[0]![0]);
  };
  const deadline = Date.now() + 20_000;
  while ((await count('killed')) < ROWS_PER_MESSAGE * 3) {
    assert.ok(Date.now() < deadline, 'the child wrote rows');
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await new Promise((r) => setTimeout(r, 300));
  const after = await count('killed');
  assert.equal(after % ROWS_PER_MESSAGE, 0, `${after} rows: whole messages only`);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await count('killed'), after, 'nothing more lands after the kill');

  // HTTP/2 by hand: one whole message, then the prefix of a second claiming more bytes than sent.
  const def = greptimeServiceDefinition('greptime.v1.GreptimeDatabase');
  const frame = (msg: unknown) => {
    const body = def.HandleRequests!.requestSerialize(msg);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(body.length, 1);
    return Buffer.concat([head, body]);
  };
  const session = connect(`http://${addr}`);
  session.on('error', () => {});
  const stream = session.request({ ':method': 'POST', ':path': '/greptime.v1.GreptimeDatabase/HandleRequests', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => {});
  stream.write(frame(cpuRows('cut', [['a', 1, 1], ['a', 2, 2]])));
  while ((await count('cut')) < 2) await new Promise((r) => setTimeout(r, 50));
  const second = frame(cpuRows('cut', [['b', 1, 1], ['b', 2, 2]]));
  stream.write(second.subarray(0, second.length - 3));
  await new Promise((r) => setTimeout(r, 200));
  session.destroy();
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT host, ts FROM cut ORDER BY host, ts'), [['a', 1], ['a', 2]]);
  assert.deepEqual(await client.healthCheck(), { ok: true, value: {} });
  assert.equal(ok(await client.handle(cpuRows('cut', [['c', 1, 1]]))), 1);
});

test('SIGTERM with a HandleRequests stream left open: the stream is cut at the gRPC shutdown deadline, the server exits cleanly', async (t) => {
  const { proc, client, baseUrl } = await start(t);
  const { call, done } = client.stream();
  call.write(cpuRows('open', [['a', 1, 1]]));
  while ((await sqlRows(baseUrl, "SHOW TABLES LIKE 'open'")).length === 0) await new Promise((r) => setTimeout(r, 50));
  const started = Date.now();
  const exit = await proc.stop('SIGTERM', 30_000);
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(Date.now() - started < 15_000, `stopped in ${Date.now() - started} ms`);
  const r = failure(await done);
  assert.ok([grpc.status.CANCELLED, grpc.status.UNAVAILABLE].includes(r.code), `${r.code} ${r.details}`);
  assert.ok(proc.lines.some((l) => l.msg === 'gRPC server stopped'));
});

test('DECIMAL128 columns (precision and scale from datatype_extension) by row and column inserts: exact values back over SQL', async (t) => {
  const { baseUrl, client } = await start(t);
  const dec = (hi: string, lo: string) => ({ decimal128_value: { hi, lo } });
  const schema = [
    { column_name: 'ts', datatype: DT.TS_MS, semantic_type: SEM.TIMESTAMP },
    { column_name: 'price', datatype: 30, semantic_type: SEM.FIELD, datatype_extension: { decimal_type: { precision: 10, scale: 2 } } },
    { column_name: 'wide', datatype: 30, semantic_type: SEM.FIELD },
  ];
  ok(
    await client.handle({
      row_inserts: {
        inserts: [
          {
            table_name: 'prices',
            rows: {
              schema,
              rows: [
                // 12345 at scale 2; -1 (all ones in both halves); 2^64 + 5 at GreptimeDB's default (38, 10).
                { values: [{ timestamp_millisecond_value: '1' }, dec('0', '12345'), dec('1', '5')] },
                { values: [{ timestamp_millisecond_value: '2' }, dec('-1', '-1'), {}] },
              ],
            },
          },
        ],
      },
    }),
  );
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT ts, price, wide FROM prices ORDER BY ts'), [
    [1, '123.45', '1844674407.3709551621'],
    [2, '-0.01', null],
  ]);
  assert.deepEqual(await sqlRows(baseUrl, "SELECT data_type FROM information_schema.columns WHERE table_name = 'prices' AND column_name IN ('price', 'wide') ORDER BY column_name"), [['decimal(10,2)'], ['decimal(38,10)']]);
  // Column inserts of the same columns; a value beyond the precision is refused.
  ok(await client.handle({ inserts: { inserts: [{ table_name: 'prices', row_count: 1, columns: [{ column_name: 'ts', semantic_type: SEM.TIMESTAMP, datatype: DT.TS_MS, values: { timestamp_millisecond_values: ['3'] } }, { column_name: 'price', semantic_type: SEM.FIELD, datatype: 30, datatype_extension: { decimal_type: { precision: 10, scale: 2 } }, values: { decimal128_values: [{ hi: '0', lo: '99999' }] } }] }] } }));
  assert.deepEqual(await sqlRows(baseUrl, 'SELECT price FROM prices WHERE ts = 3'), [['999.99']]);
  const over = failure(await client.handle({ row_inserts: { inserts: [{ table_name: 'prices', rows: { schema: schema.slice(0, 2), rows: [{ values: [{ timestamp_millisecond_value: '4' }, dec('0', '100000000000')] }] } }] } }));
  assert.equal(over.trailers['x-greptime-err-code'], '1004');
  assert.match(over.details, /does not fit DECIMAL\(10, 2\)/);
});
