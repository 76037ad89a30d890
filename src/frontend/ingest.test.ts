import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { RegionEngine } from '../engine/region-engine.js';
import { MemoryKvBackend } from '../meta/kv/memory-kv-backend.js';
import type { IngestColumn, IngestTable } from './ingest-request.js';
import { FrontendInstance } from './instance.js';
import { LocalRegionAccess } from './region-access.js';
import { newSession } from './session.js';

async function frontend(t: TestContext): Promise<FrontendInstance> {
  const engine = await RegionEngine.open(testEngineOptions(tempDir(t), { compactAfterFlush: false }));
  t.after(() => engine.close());
  const fe = new FrontendInstance(await CatalogManager.open(new MemoryKvBackend()), new LocalRegionAccess(engine));
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
