/**
 * The direct row-request reader against the general path (proto-loader's deserializer, then
 * tablesOfRows): random `row_inserts`/`row_deletes` messages encoded by protobufjs — every
 * ColumnDataType tsdb stores, NULLs, extremes, unicode, empty rows, parts of one table, mistakes,
 * unknown fields of every wire type injected at each level — must give deep-equal tables or the same
 * error code and message; truncated and corrupted bytes the same as the general path (1004 when
 * undecodable), never a crash or a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { StatusCode } from '../../common/error/status-code.js';
import { GREPTIME_PROTO_FILES, PROTO_ROOT, greptimeServiceDefinition } from './protos.js';
import { tablesOfRows } from './row-decoder.js';
import { decodedTables, decodeRowRequest, withDirectRowDecoding } from './row-wire-decoder.js';
import { undecodable, withLenientDecoding } from './lenient-decoding.js';
import { RequestRunner, type GrpcHandlers } from './database-service.js';
import type { IngestTable } from '../../frontend/ingest-request.js';

const def = greptimeServiceDefinition('greptime.v1.GreptimeDatabase');
const general = withLenientDecoding(def)['Handle']!.requestDeserialize;
const direct = withLenientDecoding(withDirectRowDecoding(def))['Handle']!.requestDeserialize;

/** The protos with extra fields (numbers the server does not know) to encode unknown fields. */
function writerRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith(PROTO_ROOT) ? target : PROTO_ROOT + target);
  root.loadSync([...GREPTIME_PROTO_FILES], { keepCase: true });
  const extras: Array<[string, number]> = [
    ['GreptimeRequest', 90], ['RowInsertRequests', 9], ['RowInsertRequest', 9], ['RowDeleteRequests', 9], ['RowDeleteRequest', 9],
    ['Rows', 9], ['ColumnSchema', 19], ['Row', 9], ['Value', 60],
  ];
  for (const [name, at] of extras) {
    const t = root.lookupType(`greptime.v1.${name}`);
    t.add(new protobuf.Field('x_varint', at, 'int64'));
    t.add(new protobuf.Field('x_fixed64', at + 1, 'fixed64'));
    t.add(new protobuf.Field('x_bytes', at + 2, 'string'));
    t.add(new protobuf.Field('x_fixed32', at + 3, 'fixed32'));
    t.add(new protobuf.Field('x_packed', at + 4, 'sint32', 'repeated'));
  }
  root.resolveAll();
  return root;
}
const root = writerRoot();
const RequestType = root.lookupType('greptime.v1.GreptimeRequest');

/** A small seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Value members by ColumnDataType, with extremes. */
const MEMBERS: Record<number, string> = {
  0: 'bool_value', 1: 'i8_value', 2: 'i16_value', 3: 'i32_value', 4: 'i64_value', 5: 'u8_value', 6: 'u16_value', 7: 'u32_value',
  8: 'u64_value', 9: 'f32_value', 10: 'f64_value', 11: 'binary_value', 12: 'string_value', 13: 'date_value', 14: 'datetime_value',
  15: 'timestamp_second_value', 16: 'timestamp_millisecond_value', 17: 'timestamp_microsecond_value', 18: 'timestamp_nanosecond_value',
  19: 'time_second_value', 23: 'interval_year_month_value',
};
const I64 = ['0', '1', '-1', '9223372036854775807', '-9223372036854775808', '9007199254740993', '-9007199254740993', '4294967296', '-4294967297', '1700000000000'];
const STRINGS = ['', 'a', 'host_1', 'ünïcödé ✓', '日本語', '😀 emoji', 'x'.repeat(300), '\u0000nul'];

function valueOf(dt: number, rand: () => number, pick: <T>(xs: readonly T[]) => T): unknown {
  const member = MEMBERS[dt]!;
  const r = rand();
  switch (dt) {
    case 0: return { [member]: r < 0.5 };
    case 1: return { [member]: pick([-128, 127, 0, -1, 5, r < 0.03 ? 128 : 1]) };
    case 2: return { [member]: pick([-32768, 32767, 0, -7, r < 0.03 ? -32769 : 1]) };
    case 3: case 13: return { [member]: pick([-2147483648, 2147483647, 0, -1, 19000]) };
    case 5: return { [member]: pick([0, 255, 17, r < 0.03 ? 256 : 2]) };
    case 6: return { [member]: pick([0, 65535, 1000, r < 0.03 ? 65536 : 3]) };
    case 7: return { [member]: pick([0, 4294967295, 12345]) };
    case 8: return { [member]: pick(['0', '18446744073709551615', '9223372036854775808', '4294967296', '42']) };
    case 9: return { [member]: pick([0, -0, 1.5, NaN, Infinity, -Infinity, 3.4028234663852886e38, 1e-45]) };
    case 10: return { [member]: pick([0, -0, 0.1, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, -1e300]) };
    case 11: return { [member]: Buffer.from(pick(['', 'ab', '\u00ff\u0000', 'bytes!']), 'latin1') };
    case 12: return { [member]: pick(STRINGS) };
    default: return { [member]: pick(I64) };
  }
}

const STORED = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];

/** A random `GreptimeRequest` object (row_inserts or row_deletes), mostly valid. */
function randomRequest(rand: () => number): Record<string, unknown> {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;
  const unknown = () => (chance(0.15) ? { x_varint: pick(['-1', '5', '9223372036854775807']), x_fixed64: '7', x_bytes: pick(['', 'zz']), x_fixed32: 9, x_packed: [1, -2, 300] } : {});
  // Per table, a type per column name (rarely a conflicting one in a later part).
  const tableNames = ['cpu', 'mem', 'ünï'];
  const types = new Map<string, number>();
  const typeOf = (table: string, col: string) => {
    const key = `${table}.${col}`;
    if (!types.has(key) || chance(0.02)) types.set(key, chance(0.02) ? pick([19, 20, 23, 31, 99]) : pick(STORED));
    return types.get(key)!;
  };
  const parts = [];
  const nParts = Math.floor(rand() * 5);
  for (let p = 0; p < nParts; p++) {
    const table = chance(0.01) ? '' : pick(tableNames);
    const tsType = pick([15, 16, 17, 18]);
    const tsName = `ts_${table}`;
    if (!types.has(`${table}.${tsName}`)) types.set(`${table}.${tsName}`, tsType);
    const schema: object[] = [];
    const names = ['a', 'b', 'c', 'd', 'e', 'f'].filter(() => chance(0.5));
    if (chance(0.03)) names.push(names[0] ?? 'a'); // a duplicate column
    const cols: Array<{ name: string; dt: number; sem: number }> = [];
    for (const n of names) cols.push({ name: n, dt: typeOf(table, n), sem: chance(0.01) ? 7 : n < 'c' ? 0 : 1 });
    if (!chance(0.02)) cols.splice(Math.floor(rand() * (cols.length + 1)), 0, { name: tsName, dt: types.get(`${table}.${tsName}`)!, sem: 2 });
    for (const c of cols) schema.push({ column_name: c.name, datatype: c.dt, semantic_type: c.sem, ...unknown() });
    const rows = [];
    const nRows = pick([0, 1, 2, 5, 20]);
    for (let r = 0; r < nRows; r++) {
      const values = cols.map((c) => {
        if (chance(c.sem === 2 ? 0.005 : 0.15)) return { ...unknown() }; // NULL
        if (chance(0.005)) return valueOf(pick(STORED.filter((d) => d !== c.dt)), rand, pick); // another kind
        if (MEMBERS[c.dt] === undefined) return {};
        return { ...(valueOf(c.dt, rand, pick) as object), ...unknown() };
      });
      if (chance(0.005)) values.pop(); // too few values
      rows.push({ values, ...unknown() });
    }
    parts.push({ table_name: table, ...(chance(0.05) ? {} : { rows: { schema, rows, ...unknown() } }), ...unknown() });
  }
  const header = chance(0.5) ? { header: { dbname: pick(['public', 'x-y']), timezone: 'UTC', authorization: { basic: { username: 'u', password: 'p' } } } } : {};
  const body = chance(0.7) ? { row_inserts: { inserts: parts, ...unknown() } } : { row_deletes: { deletes: parts, ...unknown() } };
  return { ...header, ...body, ...unknown() };
}

type Outcome = { undecodable: string } | { header: unknown; request: unknown; tables: unknown } | { code: number; message: string };

/** What a deserializer and the tables step make of `bytes`. */
function outcome(deserialize: (b: Buffer) => unknown, bytes: Buffer): { out: Outcome; direct: boolean } {
  const msg = deserialize(bytes) as Record<string, unknown> & { row_inserts?: { inserts: [] }; row_deletes?: { deletes: [] } };
  const reason = undecodable(msg);
  if (reason !== undefined) return { out: { undecodable: reason }, direct: false };
  const fast = decodedTables(msg);
  try {
    const tables = fast ?? (msg.request === 'row_inserts' ? tablesOfRows(msg.row_inserts!.inserts) : msg.request === 'row_deletes' ? tablesOfRows(msg.row_deletes!.deletes) : null);
    return { out: { header: msg.header, request: msg.request, tables }, direct: fast !== undefined };
  } catch (err) {
    assert.ok(err instanceof TsdbError, String(err));
    return { out: { code: err.code, message: err.message }, direct: false };
  }
}

test('row-wire-decoder: random row requests decode as proto-loader + tablesOfRows decode them', () => {
  const rand = rng(20261125);
  let valid = 0;
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const obj = randomRequest(rand);
    const bytes = Buffer.from(RequestType.encode(RequestType.fromObject(obj)).finish());
    const want = outcome(general, bytes);
    const got = outcome(direct, bytes);
    assert.deepStrictEqual(got.out, want.out, `request ${i}: ${JSON.stringify(obj, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    if ('tables' in want.out) {
      valid++;
      // Every valid message here (no groups, no message-typed members) is read directly.
      assert.ok(got.direct, `request ${i} was left to the general path`);
    } else if ('code' in want.out) refused++;
  }
  assert.ok(valid > 1500 && refused > 100, `valid ${valid}, refused ${refused}`);
});

test('row-wire-decoder: int64/uint64 extremes, NaN and infinities are exact', () => {
  const obj = {
    row_inserts: {
      inserts: [{
        table_name: 't',
        rows: {
          schema: [{ column_name: 'ts', datatype: 18, semantic_type: 2 }, { column_name: 'i', datatype: 4, semantic_type: 1 }, { column_name: 'u', datatype: 8, semantic_type: 1 }, { column_name: 'f', datatype: 9, semantic_type: 1 }],
          rows: [
            { values: [{ timestamp_nanosecond_value: '-9223372036854775808' }, { i64_value: '9223372036854775807' }, { u64_value: '18446744073709551615' }, { f32_value: NaN }] },
            { values: [{ timestamp_nanosecond_value: '9223372036854775807' }, { i64_value: '-9223372036854775808' }, {}, { f32_value: -Infinity }] },
          ],
        },
      }],
    },
  };
  const bytes = Buffer.from(RequestType.encode(RequestType.fromObject(obj)).finish());
  const msg = direct(bytes) as object;
  const [t] = decodedTables(msg)!;
  const col = (n: string) => t!.columns.find((c) => c.name === n)!.vector;
  assert.deepEqual([...(col('ts').data as BigInt64Array)], [-(2n ** 63n), 2n ** 63n - 1n]);
  assert.deepEqual([...(col('i').data as BigInt64Array)], [2n ** 63n - 1n, -(2n ** 63n)]);
  assert.deepEqual([...(col('u').data as BigUint64Array)], [2n ** 64n - 1n, 0n]);
  assert.deepEqual([...(col('u') as { valid: Uint8Array }).valid], [1, 0]);
  const f = col('f').data as Float64Array;
  assert.ok(Number.isNaN(f[0]) && f[1] === -Infinity);
});

test('row-wire-decoder: truncated and corrupted messages give what the general path gives (undecodable: 1004 at the handler)', () => {
  const rand = rng(7);
  let undecodableCount = 0;
  for (let i = 0; i < 1500; i++) {
    const good = Buffer.from(RequestType.encode(RequestType.fromObject(randomRequest(rand))).finish());
    let bytes: Buffer;
    const mode = i % 4;
    if (mode === 0) bytes = good.subarray(0, Math.floor(rand() * good.length));
    else if (mode === 1) {
      bytes = Buffer.from(good);
      for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) if (bytes.length > 0) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
    } else if (mode === 2) bytes = Buffer.from(Array.from({ length: Math.floor(rand() * 64) }, () => Math.floor(rand() * 256)));
    else bytes = Buffer.concat([Buffer.from([0x32, 0xff, 0xff, 0xff, 0xff, 0x0f]), good.subarray(0, 10)]);
    const want = outcome(general, bytes);
    const got = outcome(direct, bytes);
    assert.deepStrictEqual(got.out, want.out, `case ${i}: ${bytes.toString('hex')}`);
    if ('undecodable' in got.out) undecodableCount++;
  }
  assert.ok(undecodableCount > 300, `only ${undecodableCount} undecodable`);
});

test('row-wire-decoder: groups, message-typed members and other request kinds are left to the general path', () => {
  const withGroup = Buffer.concat([Buffer.from(RequestType.encode(RequestType.fromObject({ row_inserts: { inserts: [] } })).finish()), Buffer.from([0x5b, 0x08, 0x01, 0x5c])]);
  assert.equal(decodeRowRequest(withGroup, def['Handle']!.requestDeserialize as (b: Buffer) => unknown), undefined);
  const sql = Buffer.from(RequestType.encode(RequestType.fromObject({ query: { sql: 'select 1' } })).finish());
  assert.equal(decodeRowRequest(sql, def['Handle']!.requestDeserialize as (b: Buffer) => unknown), undefined);
  assert.equal((direct(sql) as { request: string }).request, 'query');
  const interval = { row_inserts: { inserts: [{ table_name: 't', rows: { schema: [{ column_name: 'ts', datatype: 16, semantic_type: 2 }], rows: [{ values: [{ interval_month_day_nano_value: { months: 1 } }] }] } }] } };
  const bytes = Buffer.from(RequestType.encode(RequestType.fromObject(interval)).finish());
  const got = outcome(direct, bytes).out;
  assert.deepStrictEqual(got, outcome(general, bytes).out);
  assert.ok('code' in got && got.code === StatusCode.InvalidArguments && /given: interval_month_day_nano_value/.test(got.message), JSON.stringify(got));
});

test('row-wire-decoder: only Handle and HandleRequests are wrapped', () => {
  const wrapped = withDirectRowDecoding(def);
  for (const name of Object.keys(def)) {
    const same = (wrapped[name] as grpc.MethodDefinition<unknown, unknown>).requestDeserialize === def[name]!.requestDeserialize;
    assert.equal(same, name !== 'Handle' && name !== 'HandleRequests', name);
  }
});

test('row-wire-decoder: through RequestRunner, decoded tables reach ingest / deleteRows and undecodable bytes are TsdbError 1004', async () => {
  const got: Array<[string, readonly IngestTable[]]> = [];
  const handlers = {
    sql: {} as GrpcHandlers['sql'],
    ingest: {
      ingest: async (tables: readonly IngestTable[]) => (got.push(['ingest', tables]), 1),
      deleteRows: async (tables: readonly IngestTable[]) => (got.push(['delete', tables]), 2),
    },
  } as GrpcHandlers;
  const runner = new RequestRunner(handlers, new grpc.Metadata(), new AbortController().signal, 'test');
  const rows = { table_name: 't', rows: { schema: [{ column_name: 'ts', datatype: 16, semantic_type: 2 }], rows: [{ values: [{ timestamp_millisecond_value: '5' }] }] } };
  const ins = Buffer.from(RequestType.encode(RequestType.fromObject({ row_inserts: { inserts: [rows] } })).finish());
  const del = Buffer.from(RequestType.encode(RequestType.fromObject({ row_deletes: { deletes: [rows] } })).finish());
  assert.equal(await runner.run(direct(ins)), 1);
  assert.equal(await runner.run(direct(del)), 2);
  assert.deepStrictEqual(got.map(([k]) => k), ['ingest', 'delete']);
  assert.deepStrictEqual(got[0]![1], tablesOfRows([{ table_name: 't', rows: { schema: [{ column_name: 'ts', datatype: 16, semantic_type: 2 }], rows: [{ values: [{ value_data: 'timestamp_millisecond_value', timestamp_millisecond_value: '5' }] }] } }]));
  assert.deepStrictEqual(got[1]![1], got[0]![1]);
  let refused = 0;
  for (let cut = 1; cut < ins.length; cut++) {
    const msg = direct(ins.subarray(0, cut));
    if (undecodable(msg) === undefined) continue;
    refused++;
    await assert.rejects(runner.run(msg), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /not valid protobuf/.test(err.message));
  }
  assert.ok(refused > ins.length / 2, `${refused} of ${ins.length - 1} cuts undecodable`);
});

test('row-wire-decoder: fields out of the usual order, given twice, or two Value members decode as the general path decodes them', () => {
  const enc = (type: string, obj: object) => Buffer.from(root.lookupType(`greptime.v1.${type}`).encode(root.lookupType(`greptime.v1.${type}`).fromObject(obj)).finish());
  const len = (field: number, body: Buffer) => Buffer.concat([Buffer.from(protobuf.Writer.create().uint32((field << 3) | 2).uint32(body.length).finish()), body]);
  const ts = { column_name: 'ts', datatype: 16, semantic_type: 2 };
  const a = { column_name: 'a', datatype: 4, semantic_type: 1 };
  const row = (t: string, v: object) => ({ values: [{ timestamp_millisecond_value: t }, v] });
  const rowsAB = enc('Rows', { schema: [ts, a], rows: [row('1', { i64_value: '-3' })] });
  const request = (insert: Buffer, kind = 6) => len(kind, len(1, insert));
  const cases: Array<[string, Buffer, boolean]> = [
    ['table_name after rows', request(Buffer.concat([len(2, rowsAB), enc('RowInsertRequest', { table_name: 't' })])), true],
    ['schema after a row', request(Buffer.concat([enc('RowInsertRequest', { table_name: 't' }), len(2, Buffer.concat([enc('Rows', { schema: [ts] }), enc('Rows', { rows: [{ values: [{ timestamp_millisecond_value: '1' }] }] }), enc('Rows', { schema: [a] })]))])), false],
    ['rows given twice', request(Buffer.concat([enc('RowInsertRequest', { table_name: 't' }), len(2, rowsAB), len(2, enc('Rows', { schema: [ts], rows: [{ values: [{ timestamp_millisecond_value: '9' }] }] }))])), false],
    ['two Value members', request(Buffer.concat([enc('RowInsertRequest', { table_name: 't' }), len(2, Buffer.concat([enc('Rows', { schema: [ts, a] }), len(2, Buffer.concat([len(1, enc('Value', { timestamp_millisecond_value: '1' })), len(1, Buffer.concat([enc('Value', { i64_value: '5' }), enc('Value', { i32_value: 7 })]))]))]))])), false],
    ['row_inserts given twice', Buffer.concat([request(enc('RowInsertRequest', { table_name: 't', rows: { schema: [ts, a], rows: [] } })), request(Buffer.concat([enc('RowInsertRequest', { table_name: 'u' }), len(2, rowsAB)]))]), false],
    ['row_inserts and row_deletes', Buffer.concat([request(Buffer.concat([enc('RowInsertRequest', { table_name: 't' }), len(2, rowsAB)])), request(enc('RowInsertRequest', { table_name: 'u' }), 7)]), false],
  ];
  for (const [name, bytes, read] of cases) {
    const want = outcome(general, bytes);
    const got = outcome(direct, bytes);
    assert.deepStrictEqual(got.out, want.out, name);
    assert.equal(got.direct, read, `${name}: read directly`);
    assert.ok(!('undecodable' in want.out), name);
  }
});
