import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { MAX_COLUMNS_PER_TABLE } from '../catalog/limits.js';
import { RegionEngine } from '../engine/region-engine.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import type { IngestColumn, IngestTable } from './ingest-request.js';
import { FrontendInstance } from './instance.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { newSession } from './session.js';

async function frontend(t: TestContext): Promise<FrontendInstance> {
  const engine = await RegionEngine.open(testEngineOptions(tempDir(t), { compactAfterFlush: false }));
  t.after(() => engine.close());
  const fe = new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), new LocalRegionServer(engine), engine.duckdb);
  t.after(() => fe.close());
  return fe;
}

const tag = (name: string, values: Array<string | null>): IngestColumn => ({ name, semantic: 'tag', type: 'String', vector: { type: 'string', data: values } });
const float = (name: string, values: Array<number | null>): IngestColumn => ({
  name,
  semantic: 'field',
  type: 'Float64',
  vector: { type: 'float64', data: Float64Array.from(values, (v) => v ?? 0), ...(values.includes(null) && { valid: Uint8Array.from(values, (v) => (v === null ? 0 : 1)) }) },
});
const int = (name: string, values: bigint[]): IngestColumn => ({ name, semantic: 'field', type: 'Int64', vector: { type: 'int64', data: BigInt64Array.from(values) } });
const nanos = (values: bigint[], name = 'tsdb_timestamp'): IngestColumn => ({ name, semantic: 'timestamp', type: 'TimestampNanosecond', vector: { type: 'int64', data: BigInt64Array.from(values) } });
const table = (name: string, ...columns: IngestColumn[]): IngestTable => ({ name, rowCount: columns[0]!.vector.data.length, columns });

async function rows(fe: FrontendInstance, sql: string): Promise<unknown[][]> {
  const [out] = await fe.executeSql(sql, newSession());
  assert.equal(out!.kind, 'records');
  return (out as unknown as { rows: unknown[][] }).rows;
}

test('ingest creates a table per name: tags as the primary key, then fields, then the time index', async (t) => {
  const fe = await frontend(t);
  const n = await fe.ingest([table('cpu', float('usage', [1.5, 2.5]), tag('host', ['a', 'b']), nanos([1_000_000_000n, 2_000_000_001n]))], newSession(), { mergeMode: 'last_non_null' });
  assert.equal(n, 2);
  assert.deepEqual(await rows(fe, 'SELECT * FROM cpu ORDER BY host'), [['a', 1.5, 1_000_000_000], ['b', 2.5, 2_000_000_001]]);
  const [create] = await fe.executeSql('SHOW CREATE TABLE cpu', newSession());
  const text = String((create as unknown as { rows: unknown[][] }).rows[0]![1]);
  assert.match(text, /"host" STRING NULL,\s+"usage" DOUBLE NULL,\s+"tsdb_timestamp" TIMESTAMP\(9\) NOT NULL,\s+TIME INDEX \("tsdb_timestamp"\),\s+PRIMARY KEY \("host"\)/);
  assert.match(text, /merge_mode = 'last_non_null'/);
  assert.match(text, /comment = 'Created on insertion'/);
  // last_non_null: a later row with a NULL field keeps the earlier value.
  await fe.ingest([table('cpu', tag('host', ['a']), float('usage', [null]), int('count', [7n]), nanos([1_000_000_000n]))], newSession());
  assert.deepEqual(await rows(fe, "SELECT usage, count FROM cpu WHERE host = 'a'"), [[1.5, 7]]);
});

test('ingest adds the tags and fields a table lacks; older rows read NULL there', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('m', tag('host', ['a']), float('v', [1]), nanos([1n]))], newSession());
  await fe.ingest([table('m', tag('host', ['a']), tag('dc', ['x']), float('v', [2]), float('w', [3]), nanos([2n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT host, dc, v, w FROM m ORDER BY tsdb_timestamp'), [['a', null, 1, null], ['a', 'x', 2, 3]]);
  const [desc] = await fe.executeSql('DESC TABLE m', newSession());
  const cols = (desc as unknown as { rows: unknown[][] }).rows.map((r) => [r[0], r[1], r[2], r[5]]);
  assert.deepEqual(cols, [
    ['host', 'String', 'PRI', 'TAG'],
    ['v', 'Float64', '', 'FIELD'],
    ['tsdb_timestamp', 'TimestampNanosecond', 'PRI', 'TIMESTAMP'],
    ['dc', 'String', 'PRI', 'TAG'],
    ['w', 'Float64', '', 'FIELD'],
  ]);
});

test('a type or kind that differs from the table refuses the whole request; nothing of it is written', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('m', tag('host', ['a']), float('v', [1]), nanos([1n]))], newSession());
  await assert.rejects(
    fe.ingest([table('other', tag('host', ['a']), float('v', [1]), nanos([1n])), table('m', tag('host', ['b']), int('v', [2n]), nanos([2n]))], newSession()),
    (err: Error & { code?: number }) => err.code === 1004 && /column v expect type Float64, given: Int64/.test(err.message),
  );
  await assert.rejects(fe.ingest([table('m', tag('v', ['x']), nanos([3n]))], newSession()), /column v is a field of the table, but a tag of the request/);
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM m'), [[1]]);
  await assert.rejects(fe.executeSql('SELECT * FROM other', newSession()), /Table not found/);
});

test('the time index maps to the table\'s, whatever its name and unit', async (t) => {
  const fe = await frontend(t);
  await fe.executeSql('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP(3) TIME INDEX, v DOUBLE)', newSession());
  await fe.ingest([table('m', tag('host', ['a', 'a']), float('v', [1, 2]), nanos([1_500_000n, -1n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT ts, v FROM m ORDER BY ts'), [[-1, 2], [1, 1]]);
});

test('concurrent writers adding different columns keep every column', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('m', tag('host', ['a']), float('v', [0]), nanos([0n]))], newSession());
  await Promise.all(Array.from({ length: 8 }, (_, i) => fe.ingest([table('m', tag('host', ['a']), float(`f${i}`, [i]), nanos([BigInt(i + 1)]))], newSession())));
  const names = (await rows(fe, "SELECT column_name FROM information_schema.columns WHERE table_name = 'm' ORDER BY column_name")).map((r) => r[0]);
  assert.deepEqual(names, ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'host', 'tsdb_timestamp', 'v']);
  assert.deepEqual(await rows(fe, 'SELECT count(*), sum(f7) FROM m'), [[9, 7]]);
});

test('ingest needs write permission, an existing database and well-formed tables', async (t) => {
  const fe = await frontend(t);
  const m = table('m', tag('host', ['a']), float('v', [1]), nanos([1n]));
  await assert.rejects(fe.ingest([m], newSession('public', 'UTC', { username: 'r', permission: 'read_only' })), (err: Error & { code?: number }) => err.code === 7006);
  await assert.rejects(fe.ingest([m], newSession('nope')), (err: Error & { code?: number }) => err.code === 4004 && /Database not found: nope/.test(err.message));
  await assert.rejects(fe.ingest([table('m', tag('host', ['a']), float('v', [1]))], newSession()), /no time index column/);
  await assert.rejects(fe.ingest([m, m], newSession()), /given twice/);
  await assert.rejects(fe.ingest([{ ...m, rowCount: 2 }], newSession()), /has 1 values for 2 rows/);
});

const millis = (values: bigint[], name = 'tsdb_timestamp'): IngestColumn => ({ name, semantic: 'timestamp', type: 'TimestampMillisecond', vector: { type: 'int64', data: BigInt64Array.from(values) } });
const seconds = (values: bigint[], name = 'tsdb_timestamp'): IngestColumn => ({ name, semantic: 'timestamp', type: 'TimestampSecond', vector: { type: 'int64', data: BigInt64Array.from(values) } });

/** Asserts a refusal with InvalidArguments and exactly `message`. */
async function refused(p: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(p, (err: Error & { code?: number }) => {
    assert.equal(err.code, 1004);
    assert.equal(err.message, message);
    return true;
  });
}

const NS_RANGE = 'TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';
const MS_RANGE = 'TimestampMillisecond): it must be between -290308-12-22T00:00:00Z and +294247-01-10T04:00:54.775Z';

test('into a table of a finer unit, times are converted exactly and checked: out of range refuses the whole request, never wraps', async (t) => {
  const fe = await frontend(t);
  await fe.executeSql('CREATE TABLE n (host STRING PRIMARY KEY, ts TIMESTAMP(9) TIME INDEX, v DOUBLE)', newSession());
  // Milliseconds just inside the nanosecond range, both ends.
  await fe.ingest([table('n', tag('host', ['a', 'b']), float('v', [1, 2]), millis([9223372036854n, -9223286400000n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT host, CAST(epoch_ns(ts) AS VARCHAR) FROM n ORDER BY host'), [['a', '9223372036854000000'], ['b', '-9223286400000000000']]);
  // Just outside: 9223372036855 ms would wrap to -9223372036854551616 ns in an int64.
  await refused(
    fe.ingest([table('other', tag('host', ['x']), float('v', [0]), millis([1n])), table('n', tag('host', ['c', 'd']), float('v', [3, 4]), millis([1n, 9223372036855n]))], newSession()),
    `Invalid request to table tsdb.public.n, reason: Timestamp 9223372036855000000 (2262-04-11T23:47:16.855000000Z) is out of range for column ts (${NS_RANGE}`,
  );
  await refused(
    fe.ingest([table('n', tag('host', ['c']), float('v', [3]), seconds([-9223286401n]))], newSession()),
    `Invalid request to table tsdb.public.n, reason: Timestamp -9223286401000000000 (1677-09-21T23:59:59Z) is out of range for column ts (${NS_RANGE}`,
  );
  // Nothing of the refused requests landed, not even the other table.
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM n'), [[2]]);
  await assert.rejects(fe.executeSql('SELECT * FROM other', newSession()), /Table not found/);
  // Seconds into milliseconds: the edges of the millisecond range.
  await fe.executeSql('CREATE TABLE ms (host STRING PRIMARY KEY, ts TIMESTAMP(3) TIME INDEX, v DOUBLE)', newSession());
  await fe.ingest([table('ms', tag('host', ['a', 'b']), float('v', [1, 2]), seconds([9223372036854n, -9223372022400n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT host, CAST(epoch_ms(ts) AS VARCHAR) FROM ms ORDER BY host'), [['a', '9223372036854000'], ['b', '-9223372022400000']]);
  await refused(fe.ingest([table('ms', tag('host', ['c']), float('v', [3]), seconds([9223372036855n]))], newSession()), `Invalid request to table tsdb.public.ms, reason: Timestamp 9223372036855000 (+294247-01-10T04:00:55Z) is out of range for column ts (${MS_RANGE}`);
  // Into a coarser unit, floored.
  await fe.ingest([table('ms', tag('host', ['c']), float('v', [3]), nanos([-1n]))], newSession());
  assert.deepEqual(await rows(fe, "SELECT CAST(epoch_ms(ts) AS VARCHAR) FROM ms WHERE host = 'c'"), [['-1']]);
});

test('in the same unit, values outside the unit\'s range are refused too (new tables and existing ones)', async (t) => {
  const fe = await frontend(t);
  // int64 holds them, DuckDB cannot read them back.
  await refused(fe.ingest([table('fresh', tag('host', ['a']), float('v', [1]), nanos([9223372036854775807n]))], newSession()), `Invalid request to table tsdb.public.fresh, reason: Timestamp 9223372036854775807 (2262-04-11T23:47:16.854775807Z) is out of range for column tsdb_timestamp (${NS_RANGE}`);
  await refused(fe.ingest([table('fresh', tag('host', ['a']), float('v', [1]), millis([-9223372022400001n]))], newSession()), `Invalid request to table tsdb.public.fresh, reason: Timestamp -9223372022400001 (-290308-12-21T23:59:59.999Z) is out of range for column tsdb_timestamp (${MS_RANGE}`);
  await assert.rejects(fe.executeSql('SELECT * FROM fresh', newSession()), /Table not found/);
  await fe.ingest([table('fresh', tag('host', ['a', 'b']), float('v', [1, 2]), nanos([9223372036854775806n, -9223286400000000000n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT host, CAST(epoch_ns(tsdb_timestamp) AS VARCHAR) FROM fresh ORDER BY host'), [['a', '9223372036854775806'], ['b', '-9223286400000000000']]);
  await refused(fe.ingest([table('fresh', tag('host', ['c']), float('v', [1]), nanos([-9223286400000000001n]))], newSession()), `Invalid request to table tsdb.public.fresh, reason: Timestamp -9223286400000000001 (1677-09-21T23:59:59.999999999Z) is out of range for column tsdb_timestamp (${NS_RANGE}`);
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM fresh'), [[2]]);
});

test(`a table has at most ${MAX_COLUMNS_PER_TABLE} columns: ingestion that would create or grow one beyond is refused whole`, async (t) => {
  const fe = await frontend(t);
  const tags = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => tag(`${prefix}${i}`, ['v']));
  // Tags, a field and the time index: exactly the limit.
  await fe.ingest([table('wide', ...tags(MAX_COLUMNS_PER_TABLE - 2), float('v', [1]), nanos([1n]))], newSession());
  assert.deepEqual(await rows(fe, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'wide'"), [[MAX_COLUMNS_PER_TABLE]]);
  await refused(
    fe.ingest([table('wide', tag('host', ['a']), float('v', [2]), nanos([2n]))], newSession()),
    `Invalid request to table tsdb.public.wide, reason: it would have ${MAX_COLUMNS_PER_TABLE + 1} columns, more than the ${MAX_COLUMNS_PER_TABLE} a table may have`,
  );
  await refused(
    fe.ingest([table('ok', float('v', [1]), nanos([1n])), table('wider', ...tags(MAX_COLUMNS_PER_TABLE), nanos([1n]))], newSession()),
    `Invalid request to table tsdb.public.wider, reason: it would have ${MAX_COLUMNS_PER_TABLE + 1} columns, more than the ${MAX_COLUMNS_PER_TABLE} a table may have`,
  );
  await assert.rejects(fe.executeSql('SELECT * FROM ok', newSession()), /Table not found/);
  // Rows that add no column still go in.
  await fe.ingest([table('wide', tag('t0', ['w']), float('v', [3]), nanos([3n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM wide'), [[2]]);
});

test('onTableError: a table that cannot be written fails alone; out-of-range times still refuse the whole request', async (t) => {
  const fe = await frontend(t);
  await fe.executeSql('CREATE TABLE typed (host STRING PRIMARY KEY, ts TIMESTAMP(9) TIME INDEX, v BIGINT)', newSession());
  const failures: Array<[number, string]> = [];
  const onTableError = (i: number, err: unknown) => failures.push([i, (err as Error).message]);
  const n = await fe.ingest([table('a', float('v', [1]), millis([1n])), table('typed', tag('host', ['h']), float('v', [1]), millis([1n])), table('b', float('v', [2, 3]), millis([1n, 2n]))], newSession(), { onTableError });
  assert.equal(n, 3);
  assert.deepEqual(failures, [[1, 'Invalid request to table tsdb.public.typed, reason: column v expect type Int64, given: Float64']]);
  assert.deepEqual(await rows(fe, 'SELECT (SELECT count(*) FROM a) AS a, (SELECT count(*) FROM b) AS b, (SELECT count(*) FROM typed) AS typed'), [[1, 2, 0]]);
  failures.length = 0;
  await refused(
    fe.ingest([table('c', float('v', [1]), millis([1n])), table('typed', tag('host', ['h']), float('v', [1]), millis([9999999999999n]))], newSession(), { onTableError }),
    `Invalid request to table tsdb.public.typed, reason: Timestamp 9999999999999000000 (2286-11-20T17:46:39.999000000Z) is out of range for column ts (${NS_RANGE}`,
  );
  assert.deepEqual(failures, []);
  await assert.rejects(fe.executeSql('SELECT * FROM c', newSession()), /Table not found/);
});

test('checkOnly: the checks run, nothing is created or written', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('m', tag('host', ['a']), float('v', [1]), nanos([1n]))], newSession());
  assert.equal(await fe.ingest([table('m', tag('host', ['b']), tag('dc', ['x']), float('v', [2]), nanos([2n])), table('new', float('v', [1]), nanos([1n]))], newSession(), { checkOnly: true }), 0);
  assert.deepEqual(await rows(fe, 'SELECT * FROM m'), [['a', 1, 1]]);
  await assert.rejects(fe.executeSql('SELECT * FROM new', newSession()), /Table not found/);
  await assert.rejects(fe.ingest([table('m', tag('host', ['b']), int('v', [2n]), nanos([2n]))], newSession(), { checkOnly: true }), /column v expect type Float64, given: Int64/);
  await refused(fe.ingest([table('m', tag('host', ['b']), float('v', [2]), nanos([9223372036854775807n]))], newSession(), { checkOnly: true }), `Invalid request to table tsdb.public.m, reason: Timestamp 9223372036854775807 (2262-04-11T23:47:16.854775807Z) is out of range for column tsdb_timestamp (${NS_RANGE}`);
});

test('deleteRows deletes by primary key and time index; fields are checked, then ignored; checked whole before writing', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('d', tag('host', ['a', 'a', 'b']), float('v', [1, 2, 3]), nanos([1n, 2n, 1n]))], newSession());
  assert.equal(await fe.deleteRows([table('d', tag('host', ['a']), nanos([1n]))], newSession()), 1);
  assert.deepEqual(await rows(fe, 'SELECT host, v FROM d ORDER BY host, tsdb_timestamp'), [['a', 2], ['b', 3]]);
  // A delete naming an unknown table or column, a wrong type, or without a tag refuses the whole request.
  const refused: Array<[IngestTable[], RegExp]> = [
    [[table('d', tag('host', ['b']), nanos([1n])), table('nope', nanos([1n]))], /Table not found: tsdb\.public\.nope/],
    [[table('d', tag('host', ['b']), tag('zone', ['b']), nanos([1n]))], /Column zone not exists in table d/],
    [[table('d', { name: 'host', semantic: 'tag', type: 'Int64', vector: { type: 'int64', data: BigInt64Array.from([1n]) } }, nanos([1n]))], /column host expect type String, given: Int64/],
    [[table('d', tag('host', ['b']), int('v', [3n]), nanos([1n]))], /column v expect type Float64, given: Int64/],
    [[table('d', tag('host', ['b']), nanos([1n])), table('d2', nanos([1n]))], /Table not found/],
    [[table('d', nanos([1n]))], /delete requests need column host/],
  ];
  for (const [tables, message] of refused) await assert.rejects(fe.deleteRows(tables, newSession()), message);
  assert.deepEqual(await rows(fe, 'SELECT host, v FROM d ORDER BY host, tsdb_timestamp'), [['a', 2], ['b', 3]]);
  // A field given with the key is ignored.
  assert.equal(await fe.deleteRows([table('d', tag('host', ['b']), float('v', [99]), nanos([1n]))], newSession()), 1);
  assert.deepEqual(await rows(fe, 'SELECT host, v FROM d'), [['a', 2]]);
  // A read-only user may not delete.
  await assert.rejects(fe.deleteRows([table('d', tag('host', ['a']), nanos([2n]))], newSession('public', 'UTC', { username: 'r', permission: 'read_only' })), /not authorized/);
});

test('ingest options: autoCreateTable=false refuses a missing table before anything is written; ttl sets the created table\'s; non-string tags', async (t) => {
  const fe = await frontend(t);
  await fe.ingest([table('have', tag('host', ['a']), float('v', [1]), nanos([1n]))], newSession());
  await assert.rejects(
    fe.ingest([table('have', tag('host', ['b']), float('v', [2]), nanos([2n])), table('missing', float('v', [1]), nanos([1n]))], newSession(), { autoCreateTable: false }),
    (err: Error & { code?: number }) => err.code === 4001 && /Table not found: tsdb\.public\.missing/.test(err.message),
  );
  assert.deepEqual(await rows(fe, 'SELECT count(*) FROM have'), [[1]]);
  assert.equal(await fe.ingest([table('have', tag('host', ['b']), float('v', [2]), nanos([2n]))], newSession(), { autoCreateTable: false }), 1);
  await fe.ingest([table('ttl_t', float('v', [1]), nanos([1n]))], newSession(), { ttl: '7d' });
  const [create] = await fe.executeSql('SHOW CREATE TABLE ttl_t', newSession());
  assert.match(String((create as unknown as { rows: unknown[][] }).rows[0]![1]), /ttl = '7days'/);
  await assert.rejects(fe.ingest([table('ttl_bad', float('v', [1]), nanos([1n]))], newSession(), { ttl: 'soon' }), /Invalid ttl: soon/);
  await fe.ingest([table('int_tag', { name: 'id', semantic: 'tag', type: 'Int64', vector: { type: 'int64', data: BigInt64Array.from([7n]) } }, float('v', [1]), nanos([1n]))], newSession());
  assert.deepEqual(await rows(fe, 'SELECT id, v FROM int_tag'), [[7, 1]]);
});
