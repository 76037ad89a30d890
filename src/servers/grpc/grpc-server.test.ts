/**
 * The gRPC server and GreptimeDatabase service with fake handlers, through a @grpc/grpc-js client:
 * what reaches the handlers (tables, context, options, SQL), responses, error statuses and
 * trailers, undecodable and oversized messages, streams, deadlines and cancellation, reflection.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { silentLogger } from '../../common/logging.js';
import type { UserInfo } from '../../frontend/auth/user-provider.js';
import type { IngestOptions, IngestTable } from '../../frontend/ingest-request.js';
import { affected, records, type Output } from '../../query/output.js';
import type { AuthHandler, IngestHandler, SqlContext, SqlHandler } from '../handlers.js';
import { greptimeDatabaseService, healthCheckService, withDirectRowDecoding, withLenientDecoding, type GrpcHandlers } from './database-service.js';
import { GrpcServer } from './grpc-server.js';
import { greptimeClients, greptimePackageDefinition, greptimeServiceDefinition } from './protos.js';

interface Calls {
  ingests: Array<{ tables: readonly IngestTable[]; ctx: SqlContext; opts: IngestOptions | undefined }>;
  deletes: Array<{ tables: readonly IngestTable[]; ctx: SqlContext }>;
  sql: Array<{ sql: string; ctx: SqlContext }>;
}

interface Fakes {
  sql?: (sql: string, ctx: SqlContext) => Promise<Output[]>;
  ingest?: (tables: readonly IngestTable[], ctx: SqlContext) => Promise<number>;
  auth?: AuthHandler;
  maxReceiveMessageSize?: number;
}

const USERS: Record<string, { password: string; info: UserInfo }> = {
  alice: { password: 'secret', info: { username: 'alice', permission: 'read_write' } },
};

export const fakeAuth: AuthHandler = {
  authenticate: async (username, password) => {
    const u = USERS[username];
    if (u === undefined) throw new TsdbError(StatusCode.UserNotFound, `User not found, username: ${username}`);
    if (u.password !== password) throw new TsdbError(StatusCode.UserPasswordMismatch, `Username and password does not match, username: ${username}`);
    return u.info;
  },
  userEntry: () => undefined,
  verifierKinds: () => new Set(),
};

async function serve(t: TestContext, fakes: Fakes = {}) {
  const calls: Calls = { ingests: [], deletes: [], sql: [] };
  const sql: SqlHandler = {
    executeSql: async (text, ctx) => {
      calls.sql.push({ sql: text, ctx });
      return fakes.sql !== undefined ? fakes.sql(text, ctx) : [affected(0)];
    },
    databaseExists: async (db) => db !== 'nodb',
    tables: async () => [],
  };
  const ingest: IngestHandler = {
    ingest: async (tables, ctx, opts) => {
      calls.ingests.push({ tables, ctx, opts });
      return fakes.ingest !== undefined ? fakes.ingest(tables, ctx) : tables.reduce((n, x) => n + x.rowCount, 0);
    },
    deleteRows: async (tables, ctx) => {
      calls.deletes.push({ tables, ctx });
      return tables.reduce((n, x) => n + x.rowCount, 0);
    },
  };
  const handlers: GrpcHandlers = { sql, ingest, ...(fakes.auth !== undefined && { auth: fakes.auth }) };
  const server = new GrpcServer({ logger: silentLogger(), shutdownTimeout: 500, ...(fakes.maxReceiveMessageSize !== undefined && { maxReceiveMessageSize: fakes.maxReceiveMessageSize }) });
  const pkg = greptimePackageDefinition();
  server.addService(withLenientDecoding(withDirectRowDecoding(greptimeServiceDefinition('greptime.v1.GreptimeDatabase'))), greptimeDatabaseService(handlers, silentLogger()), pkg);
  server.addService(greptimeServiceDefinition('greptime.v1.HealthCheck'), healthCheckService(), pkg);
  await server.start('127.0.0.1:0');
  const addr = `127.0.0.1:${server.boundAddress()!.port}`;
  const { GreptimeDatabase, HealthCheck } = greptimeClients();
  const db = new GreptimeDatabase(addr, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, Function>;
  const health = new HealthCheck(addr, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, Function>;
  t.after(async () => {
    db.close();
    health.close();
    await server.shutdown();
  });
  return { server, addr, db, health, calls };
}

type Result = { ok: true; value: any } | { ok: false; code: number; details: string; trailers: Record<string, unknown> };

function unary(client: Record<string, Function>, method: string, req: unknown, md = new grpc.Metadata(), opts: grpc.CallOptions = {}): Promise<Result> {
  return new Promise((resolve) => {
    client[method]!(req, md, opts, (err: grpc.ServiceError | null, value: unknown) => {
      if (err) resolve({ ok: false, code: err.code, details: err.details, trailers: err.metadata?.getMap() ?? {} });
      else resolve({ ok: true, value });
    });
  });
}

function failed(r: Result): { code: number; details: string; trailers: Record<string, unknown> } {
  if (r.ok) assert.fail(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r;
}

const S = { STRING: 12, INT32: 3, INT64: 4, UINT64: 8, FLOAT64: 10, TS_MS: 16, TS_NS: 18, BOOLEAN: 0, TIME_SECOND: 19 };

function rowInsert(table = 'cpu') {
  return {
    header: { dbname: 'public' },
    row_inserts: {
      inserts: [{
        table_name: table,
        rows: {
          schema: [
            { column_name: 'host', datatype: S.STRING, semantic_type: 0 },
            { column_name: 'ts', datatype: S.TS_MS, semantic_type: 2 },
            { column_name: 'usage', datatype: S.FLOAT64, semantic_type: 1 },
            { column_name: 'big', datatype: S.UINT64, semantic_type: 1 },
          ],
          rows: [
            { values: [{ string_value: 'a' }, { timestamp_millisecond_value: '1700000000000' }, { f64_value: 0.5 }, { u64_value: '18446744073709551615' }] },
            { values: [{ string_value: 'b' }, { timestamp_millisecond_value: '1700000001000' }, {}, {}] },
          ],
        },
      }],
    },
  };
}

test('HealthCheck answers an empty message', async (t) => {
  const { health } = await serve(t);
  const r = await unary(health, 'HealthCheck', {});
  assert.deepEqual(r, { ok: true, value: {} });
});

test('Handle row_inserts: the rows reach the ingest handler as typed columns; affected rows and a success header come back', async (t) => {
  const { db, calls } = await serve(t);
  const r = await unary(db, 'Handle', rowInsert());
  assert.ok(r.ok);
  assert.equal(r.value.affected_rows.value, 2);
  assert.equal(r.value.header.status.status_code, 0);
  const [call] = calls.ingests;
  assert.equal(call!.ctx.database, 'public');
  assert.equal(call!.ctx.timezone, 'UTC');
  const table = call!.tables[0]!;
  assert.equal(table.name, 'cpu');
  assert.equal(table.rowCount, 2);
  const byName = Object.fromEntries(table.columns.map((c) => [c.name, c]));
  assert.deepEqual(byName['host']!.vector, { type: 'string', data: ['a', 'b'] });
  assert.equal(byName['ts']!.type, 'TimestampMillisecond');
  assert.deepEqual([...(byName['ts']!.vector.data as BigInt64Array)], [1700000000000n, 1700000001000n]);
  assert.equal(byName['usage']!.semantic, 'field');
  assert.deepEqual([...(byName['usage']!.vector as { valid: Uint8Array }).valid], [1, 0]);
  assert.equal((byName['big']!.vector.data as BigUint64Array)[0], 18446744073709551615n);
});

test('Handle inserts (columns with a null mask) decode like row inserts', async (t) => {
  const { db, calls } = await serve(t);
  const r = await unary(db, 'Handle', {
    inserts: {
      inserts: [{
        table_name: 'm',
        row_count: 3,
        columns: [
          { column_name: 'ts', semantic_type: 2, datatype: S.TS_NS, values: { timestamp_nanosecond_values: ['1', '2', '3'] } },
          { column_name: 'v', semantic_type: 1, datatype: S.INT32, values: { i32_values: [10, 30] }, null_mask: Buffer.from([0b010]) },
        ],
      }],
    },
  });
  assert.ok(r.ok);
  assert.equal(r.value.affected_rows.value, 3);
  const v = calls.ingests[0]!.tables[0]!.columns.find((c) => c.name === 'v')!;
  assert.deepEqual([...(v.vector.data as Float64Array)], [10, 0, 30]);
  assert.deepEqual([...(v.vector as { valid: Uint8Array }).valid], [1, 0, 1]);
});

test('Handle row_deletes and deletes go to deleteRows', async (t) => {
  const { db, calls } = await serve(t);
  const rows = { schema: [{ column_name: 'host', datatype: S.STRING, semantic_type: 0 }, { column_name: 'ts', datatype: S.TS_MS, semantic_type: 2 }], rows: [{ values: [{ string_value: 'a' }, { timestamp_millisecond_value: '5' }] }] };
  const r1 = await unary(db, 'Handle', { row_deletes: { deletes: [{ table_name: 'cpu', rows }] } });
  assert.ok(r1.ok);
  assert.equal(r1.value.affected_rows.value, 1);
  const r2 = await unary(db, 'Handle', { deletes: { deletes: [{ table_name: 'cpu', row_count: 1, key_columns: [{ column_name: 'ts', semantic_type: 2, datatype: S.TS_MS, values: { timestamp_millisecond_values: ['5'] } }] }] } });
  assert.ok(r2.ok);
  assert.equal(calls.deletes.length, 2);
  assert.equal(calls.ingests.length, 0);
});

test('Handle ddl runs SQL with quoted names; create_table, alter (add/drop/rename/options), drop, truncate, databases', async (t) => {
  const { db, calls } = await serve(t, { sql: async () => [affected(0)] });
  const header = { dbname: 'public' };
  const cases: Array<[unknown, string]> = [
    [{ create_database: { schema_name: 'my"db', create_if_not_exists: true, options: { ttl: '7d' } } }, `CREATE DATABASE IF NOT EXISTS "my""db" WITH ('ttl' = '7d')`],
    [
      {
        create_table: {
          table_name: 'Cpu', schema_name: '', catalog_name: '', desc: "it's", time_index: 'ts', primary_keys: ['host'], create_if_not_exists: false, engine: 'mito', table_options: { ttl: '1h' },
          column_defs: [
            { name: 'host', data_type: S.STRING, is_nullable: true, semantic_type: 0 },
            { name: 'ts', data_type: S.TS_MS, is_nullable: false, semantic_type: 2, default_constraint: Buffer.from('{"Function":"current_timestamp()"}') },
            { name: 'v', data_type: S.FLOAT64, is_nullable: false, semantic_type: 1, comment: 'value', default_constraint: Buffer.from('{"Value":{"Float64":1.5}}') },
          ],
        },
      },
      `CREATE TABLE "public"."Cpu" ("host" STRING NULL, "ts" TIMESTAMP(3) DEFAULT current_timestamp(), "v" DOUBLE NOT NULL DEFAULT 1.5 COMMENT 'value', TIME INDEX ("ts"), PRIMARY KEY ("host")) ENGINE = mito WITH ('ttl' = '1h', 'comment' = 'it''s')`,
    ],
    [
      { alter_table: { table_name: 'cpu', add_columns: { add_columns: [{ column_def: { name: 'dc', data_type: S.STRING, is_nullable: true, semantic_type: 0 }, add_if_not_exists: true }, { column_def: { name: 'n', data_type: S.INT64, is_nullable: true, semantic_type: 1 }, location: { location_type: 1, after_column_name: 'host' } }] } } },
      `ALTER TABLE "public"."cpu" ADD COLUMN IF NOT EXISTS "dc" STRING NULL PRIMARY KEY, ADD COLUMN "n" BIGINT NULL AFTER "host"`,
    ],
    [{ alter_table: { table_name: 'cpu', drop_columns: { drop_columns: [{ name: 'a' }, { name: 'b' }] } } }, `ALTER TABLE "public"."cpu" DROP COLUMN "a";\nALTER TABLE "public"."cpu" DROP COLUMN "b"`],
    [{ alter_table: { table_name: 'cpu', rename_table: { new_table_name: 'cpu2' } } }, `ALTER TABLE "public"."cpu" RENAME "cpu2"`],
    [{ alter_table: { table_name: 'cpu', set_table_options: { table_options: [{ key: 'ttl', value: '2h' }] } } }, `ALTER TABLE "public"."cpu" SET 'ttl' = '2h'`],
    [{ alter_table: { table_name: 'cpu', unset_table_options: { keys: ['ttl'] } } }, `ALTER TABLE "public"."cpu" UNSET 'ttl'`],
    [{ drop_table: { schema_name: 'other', table_name: 'cpu', drop_if_exists: true } }, `DROP TABLE IF EXISTS "other"."cpu"`],
    [{ truncate_table: { table_name: 'cpu' } }, `TRUNCATE TABLE "public"."cpu"`],
    // GreptimeDB's SDKs name the catalog `greptime`: the same catalog.
    [{ truncate_table: { catalog_name: 'greptime', schema_name: 'public', table_name: 'cpu' } }, `TRUNCATE TABLE "public"."cpu"`],
    [{ alter_database: { schema_name: 'd', set_database_options: { set_database_options: [{ key: 'ttl', value: '1d' }] } } }, `ALTER DATABASE "d" SET 'ttl' = '1d'`],
  ];
  for (const [ddl, expected] of cases) {
    const r = await unary(db, 'Handle', { header, ddl });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(calls.sql.at(-1)!.sql, expected);
  }
  const unsupported = failed(await unary(db, 'Handle', { header, ddl: { truncate_table: { table_name: 'cpu', time_ranges: { time_unit: 0, time_ranges: [{ start: '0', end: '1' }] } } } }));
  assert.equal(unsupported.code, grpc.status.UNIMPLEMENTED);
  assert.equal(unsupported.trailers['x-greptime-err-code'], '1001');
  const noExpr = failed(await unary(db, 'Handle', { header, ddl: {} }));
  assert.equal(noExpr.code, grpc.status.UNIMPLEMENTED);
});

test('Handle query.sql: affected rows come back; rows are UNIMPLEMENTED (Flight serves them); an unknown database is NOT_FOUND', async (t) => {
  const { db, calls } = await serve(t, { sql: async (sql) => (sql.includes('SELECT') ? [records([{ name: 'x', data_type: 'Int64' }], [[1n]])] : [affected(3)]) });
  const r = await unary(db, 'Handle', { header: { timezone: 'Asia/Shanghai' }, query: { sql: 'INSERT INTO t VALUES (1)' } });
  assert.ok(r.ok);
  assert.equal(r.value.affected_rows.value, 3);
  assert.equal(calls.sql[0]!.ctx.timezone, 'Asia/Shanghai');
  const before = calls.sql.length;
  for (const text of ['SELECT 1', ' -- c\n/* d */ (select 1)', 'show tables', 'WITH x AS (SELECT 1) SELECT * FROM x']) {
    const q = failed(await unary(db, 'Handle', { query: { sql: text } }));
    assert.equal(q.code, grpc.status.UNIMPLEMENTED);
    assert.equal(q.trailers['x-tsdb-err-code'], '1001');
  }
  assert.equal(calls.sql.length, before, 'queries are refused before they run');
  // Rows from a later statement are refused once they come.
  const later = failed(await unary(db, 'Handle', { query: { sql: 'INSERT INTO t VALUES (1); SELECT 1' } }));
  assert.equal(later.code, grpc.status.UNIMPLEMENTED);
  const nodb = failed(await unary(db, 'Handle', { header: { dbname: 'nodb' }, query: { sql: 'INSERT INTO t VALUES (1)' } }));
  assert.equal(nodb.code, grpc.status.NOT_FOUND);
  assert.equal(nodb.trailers['x-greptime-err-code'], '4004');
  const none = failed(await unary(db, 'Handle', { header: {} }));
  assert.equal(none.code, grpc.status.INVALID_ARGUMENT);
});

test('database, time zone and hints come from the header or the metadata; the header wins', async (t) => {
  const { db, calls } = await serve(t);
  const md = new grpc.Metadata();
  md.set('x-greptime-db-name', 'tsdb-metrics');
  md.set('x-greptime-timezone', '+08:00');
  md.set('x-greptime-hints', 'auto_create_table=false, ttl=7d, other=ignored');
  md.set('x-tsdb-hint-append_mode', 'true');
  const req = rowInsert();
  const r = await unary(db, 'Handle', { ...req, header: {} }, md);
  assert.ok(r.ok, JSON.stringify(r));
  const c = calls.ingests[0]!;
  assert.equal(c.ctx.database, 'metrics');
  assert.equal(c.ctx.timezone, '+08:00');
  assert.deepEqual(c.opts, { autoCreateTable: false, ttl: '7d', appendMode: true });
  await unary(db, 'Handle', { ...req, header: { dbname: 'tsdb-other', timezone: 'UTC' } }, md);
  assert.equal(calls.ingests[1]!.ctx.database, 'other');
  assert.equal(calls.ingests[1]!.ctx.timezone, 'UTC');
  await unary(db, 'Handle', { ...req, header: { catalog: 'TSDB', schema: 'Upper' } });
  assert.equal(calls.ingests[2]!.ctx.database, 'upper');
  const md2 = new grpc.Metadata();
  md2.set('x-greptime-hint-merge_mode', 'last_non_null');
  await unary(db, 'Handle', req, md2);
  assert.deepEqual(calls.ingests[3]!.opts, { mergeMode: 'last_non_null' });
  // GreptimeDB's SDKs name their catalog `greptime`: accepted as tsdb's.
  await unary(db, 'Handle', { ...req, header: { catalog: 'greptime', schema: 'public' } });
  assert.equal(calls.ingests[4]!.ctx.database, 'public');
  await unary(db, 'Handle', { ...req, header: { dbname: 'greptime-metrics' } });
  assert.equal(calls.ingests[5]!.ctx.database, 'metrics');
  const bad: Array<[grpc.Metadata | undefined, unknown, number]> = [
    [(() => { const m = new grpc.Metadata(); m.set('x-greptime-hint-auto_create_table', 'maybe'); return m; })(), req.header, 1004],
    [(() => { const m = new grpc.Metadata(); m.set('x-greptime-hints', 'merge_mode=first'); return m; })(), req.header, 1004],
    [undefined, { timezone: 'Mars/Olympus' }, 1004],
    [undefined, { dbname: 'other-public' }, 4004],
    [undefined, { catalog: 'other', schema: 'public' }, 4004],
  ];
  for (const [m, header, code] of bad) {
    const f = failed(await unary(db, 'Handle', { ...req, header }, m ?? new grpc.Metadata()));
    assert.equal(f.trailers['x-greptime-err-code'], String(code), f.details);
  }
});

test('authentication: basic in the header, Basic or bare base64 in metadata; failures are UNAUTHENTICATED/NOT_FOUND with GreptimeDB codes', async (t) => {
  const { db, calls } = await serve(t, { auth: fakeAuth });
  const ok1 = await unary(db, 'Handle', { ...rowInsert(), header: { dbname: 'public', authorization: { basic: { username: 'alice', password: 'secret' } } } });
  assert.ok(ok1.ok);
  assert.equal(calls.ingests[0]!.ctx.user.username, 'alice');
  for (const value of [`Basic ${Buffer.from('alice:secret').toString('base64')}`, Buffer.from('alice:secret').toString('base64')]) {
    const md = new grpc.Metadata();
    md.set('authorization', value);
    assert.ok((await unary(db, 'Handle', rowInsert(), md)).ok);
  }
  const cases: Array<[unknown, grpc.Metadata | undefined, number, string]> = [
    [{}, undefined, grpc.status.UNAUTHENTICATED, '7003'],
    [{ authorization: { basic: { username: 'alice', password: 'wrong' } } }, undefined, grpc.status.UNAUTHENTICATED, '7002'],
    [{ authorization: { basic: { username: 'bob', password: 'x' } } }, undefined, grpc.status.NOT_FOUND, '7000'],
    [{ authorization: { token: { token: 't' } } }, undefined, grpc.status.UNAUTHENTICATED, '7002'],
    [{}, (() => { const m = new grpc.Metadata(); m.set('authorization', 'Basic !!!'); return m; })(), grpc.status.UNAUTHENTICATED, '7004'],
  ];
  for (const [header, md, status, code] of cases) {
    const f = failed(await unary(db, 'Handle', { ...rowInsert(), header }, md ?? new grpc.Metadata()));
    assert.equal(f.code, status, f.details);
    assert.equal(f.trailers['x-greptime-err-code'], code);
  }
  assert.equal(calls.ingests.length, 3);
});

test('bad rows: wrong value kind, unsupported type, value count, out of range, NULL time index — INVALID_ARGUMENT or UNIMPLEMENTED, nothing ingested', async (t) => {
  const { db, calls } = await serve(t);
  const table = (schema: unknown[], rows: unknown[]) => ({ row_inserts: { inserts: [{ table_name: 't', rows: { schema, rows } }] } });
  const ts = { column_name: 'ts', datatype: S.TS_MS, semantic_type: 2 };
  const cases: Array<[unknown, number, string, RegExp]> = [
    [table([ts, { column_name: 'v', datatype: S.FLOAT64, semantic_type: 1 }], [{ values: [{ timestamp_millisecond_value: '1' }, { string_value: 'x' }] }]), grpc.status.INVALID_ARGUMENT, '1004', /column v expect type FLOAT64/],
    [table([ts, { column_name: 'v', datatype: S.TIME_SECOND, semantic_type: 1 }], []), grpc.status.UNIMPLEMENTED, '1001', /Unsupported data type TIME_SECOND of column v/],
    [table([ts], [{ values: [{ timestamp_millisecond_value: '1' }, { f64_value: 1 }] }]), grpc.status.INVALID_ARGUMENT, '1004', /row 0 has 2 values for 1 columns/],
    [table([ts, { column_name: 'b', datatype: 1, semantic_type: 1 }], [{ values: [{ timestamp_millisecond_value: '1' }, { i8_value: 300 }] }]), grpc.status.INVALID_ARGUMENT, '1004', /300 is out of range/],
    [table([ts], [{ values: [{}] }]), grpc.status.INVALID_ARGUMENT, '1004', /time index ts is NULL in row 0/],
    [{ row_inserts: { inserts: [{ table_name: '', rows: { schema: [ts], rows: [] } }] } }, grpc.status.INVALID_ARGUMENT, '1004', /table name is empty/],
    [{ inserts: { inserts: [{ table_name: 't', row_count: 2, columns: [{ column_name: 'ts', semantic_type: 2, datatype: S.TS_MS, values: { timestamp_millisecond_values: ['1'] } }] }] } }, grpc.status.INVALID_ARGUMENT, '1004', /has 1 values and 0 NULLs for 2 rows/],
    [{ inserts: { inserts: [{ table_name: 't', row_count: 1, columns: [{ column_name: 'ts', semantic_type: 2, datatype: S.TS_MS, values: { i64_values: ['1'] } }] }] } }, grpc.status.INVALID_ARGUMENT, '1004', /expect type TIMESTAMP_MILLISECOND/],
  ];
  for (const [req, status, code, message] of cases) {
    const f = failed(await unary(db, 'Handle', req));
    assert.equal(f.code, status, f.details);
    assert.equal(f.trailers['x-greptime-err-code'], code);
    assert.equal(f.trailers['x-tsdb-err-code'], code);
    assert.match(f.details, message);
    assert.match(String(f.trailers['x-greptime-err-msg']), message);
  }
  assert.equal(calls.ingests.length, 0);
});

test('a message that is not protobuf is INVALID_ARGUMENT (1004), not INTERNAL; the server keeps serving', async (t) => {
  const { addr, db } = await serve(t);
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
  t.after(() => raw.close());
  const r = await new Promise<grpc.ServiceError | null>((resolve) => {
    raw.makeUnaryRequest('/greptime.v1.GreptimeDatabase/Handle', (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), (err) => resolve(err));
  });
  assert.equal(r?.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(r?.metadata.get('x-greptime-err-code')[0], '1004');
  assert.match(r!.details, /not valid protobuf/);
  assert.ok((await unary(db, 'Handle', rowInsert())).ok);
});

test('a message over the size limit is RESOURCE_EXHAUSTED, nothing ingested, the server keeps serving', async (t) => {
  const { db, calls } = await serve(t, { maxReceiveMessageSize: 4096 });
  const req = rowInsert();
  req.row_inserts.inserts[0]!.rows.rows[0]!.values[0] = { string_value: 'x'.repeat(10_000) };
  const f = failed(await unary(db, 'Handle', req));
  assert.equal(f.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(f.details, /larger than max \(10\d+ vs 4096\)/);
  assert.equal(calls.ingests.length, 0);
  assert.ok((await unary(db, 'Handle', rowInsert())).ok);
});

function stream(client: Record<string, Function>, md = new grpc.Metadata(), opts: grpc.CallOptions = {}) {
  let resolve!: (r: Result) => void;
  const done = new Promise<Result>((r) => (resolve = r));
  const call = client['HandleRequests']!(md, opts, (err: grpc.ServiceError | null, value: unknown) => {
    if (err) resolve({ ok: false, code: err.code, details: err.details, trailers: err.metadata?.getMap() ?? {} });
    else resolve({ ok: true, value });
  }) as grpc.ClientWritableStream<unknown>;
  return { call, done };
}

test('HandleRequests: the affected rows of every request are summed; a failing request ends the stream with its error', async (t) => {
  const { db, calls } = await serve(t);
  const { call, done } = stream(db);
  for (let i = 0; i < 5; i++) call.write(rowInsert(`t${i}`));
  call.end();
  const r = await done;
  assert.ok(r.ok);
  assert.equal(r.value.affected_rows.value, 10);
  assert.equal(calls.ingests.length, 5);

  const second = stream(db);
  second.call.write(rowInsert('ok'));
  second.call.write({ row_inserts: { inserts: [{ table_name: 'bad', rows: { schema: [], rows: [{ values: [{ f64_value: 1 }] }] } }] } });
  second.call.end();
  const f = failed(await second.done);
  assert.equal(f.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(calls.ingests.length, 6);
});

test('a deadline or a cancelled call aborts the running statement', async (t) => {
  let seen: AbortSignal | undefined;
  const { db } = await serve(t, {
    sql: (_sql, ctx) => new Promise((_resolve, reject) => {
      seen = ctx.signal;
      ctx.signal!.addEventListener('abort', () => reject(ctx.signal!.reason), { once: true });
    }),
  });
  const f = failed(await unary(db, 'Handle', { query: { sql: 'INSERT INTO slow SELECT * FROM big' } }, new grpc.Metadata(), { deadline: Date.now() + 300 }));
  assert.equal(f.code, grpc.status.DEADLINE_EXCEEDED);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen?.aborted, true);
  assert.equal((seen?.reason as TsdbError).code, StatusCode.DeadlineExceeded);

  seen = undefined;
  const { call, done } = stream(db);
  call.write({ query: { sql: 'INSERT INTO slow SELECT * FROM big' } });
  while (seen === undefined) await new Promise((r) => setTimeout(r, 10));
  call.cancel();
  assert.equal(failed(await done).code, grpc.status.CANCELLED);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((seen as AbortSignal).aborted, true);
  assert.ok((await unary(db, 'Handle', rowInsert())).ok);
});

test('a user mistake is never INTERNAL; a handler fault is INTERNAL with its message masked', async (t) => {
  const { db } = await serve(t, { ingest: async () => { throw new Error('disk on fire'); } });
  const f = failed(await unary(db, 'Handle', rowInsert()));
  assert.equal(f.code, grpc.status.INTERNAL);
  assert.equal(f.trailers['x-greptime-err-code'], '1003');
  assert.equal(f.details, 'Internal error: 1003');
});

test('server reflection lists the greptime.v1 services', async (t) => {
  const { addr } = await serve(t);
  const protoLoader = await import('@grpc/proto-loader');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const reflectionProto = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
  const def = protoLoader.loadSync(reflectionProto, { keepCase: true });
  const pkg = grpc.loadPackageDefinition(def) as any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(addr, grpc.credentials.createInsecure());
  t.after(() => client.close());
  const services = await new Promise<string[]>((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    call.on('data', (m: any) => {
      resolve(m.list_services_response.service.map((s: { name: string }) => s.name));
      call.end();
    });
    call.on('error', reject);
    call.write({ list_services: '*' });
  });
  assert.ok(services.includes('greptime.v1.GreptimeDatabase'), services.join());
  assert.ok(services.includes('greptime.v1.HealthCheck'));
});

test('shutdown ends a call still running at its deadline; start refuses a taken port clearly', async (t) => {
  const { server, addr, db } = await serve(t, { sql: () => new Promise(() => {}) });
  const pending = unary(db, 'Handle', { query: { sql: 'INSERT INTO hang VALUES (1)' } });
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  await server.shutdown();
  assert.ok(Date.now() - started < 3000);
  assert.equal(failed(await pending).code, grpc.status.CANCELLED);
  const other = new GrpcServer({ logger: silentLogger() });
  other.addService(greptimeServiceDefinition('greptime.v1.HealthCheck'), healthCheckService());
  const busy = new GrpcServer({ logger: silentLogger() });
  busy.addService(greptimeServiceDefinition('greptime.v1.HealthCheck'), healthCheckService());
  await busy.start('127.0.0.1:0');
  t.after(() => busy.shutdown());
  await assert.rejects(other.start(`127.0.0.1:${busy.boundAddress()!.port}`), /gRPC server cannot listen on 127\.0\.0\.1:\d+: address already in use/);
  void addr;
});
