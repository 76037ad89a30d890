import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ColumnSchema, TableInfo } from '../catalog/table-info.js';
import { NULL_CODE, vectorFromDictionary } from '../types/string-dictionary.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../types/write-batch.js';
import { checkLogical, logicalRelation, physicalBatch, physicalTableInfo, withTags } from './metric-engine.js';

const col = (column_id: number, name: string, semantic_type: ColumnSchema['semantic_type'], data_type: ColumnSchema['data_type']): ColumnSchema => ({ column_id, name, semantic_type, data_type, nullable: semantic_type !== 'timestamp' });

function table(name: string, columns: ColumnSchema[], options: Record<string, string>, id = 1024): TableInfo {
  return {
    table_id: id,
    catalog: 'tsdb',
    database: 'public',
    name,
    columns,
    primary_key: columns.filter((c) => c.semantic_type === 'tag').map((c) => c.name),
    time_index: columns.find((c) => c.semantic_type === 'timestamp')!.name,
    engine: 'metric',
    options,
    region_numbers: [0],
    next_column_id: columns.length,
    schema_version: 0,
    created_at: 0,
  };
}

const PHYSICAL = withTags(physicalTableInfo(table('phy', [col(0, 'ts', 'timestamp', 'TimestampMillisecond'), col(1, 'val', 'field', 'Float64')], { physical_metric_table: '' })), [
  col(0, 'host', 'tag', 'String'),
  col(0, 'job', 'tag', 'String'),
]);

test('a physical table leads its key with __table_id and __tsid; logical tables are checked against it', () => {
  assert.deepEqual(PHYSICAL.columns.map((c) => [c.name, c.data_type, c.semantic_type]), [
    ['ts', 'TimestampMillisecond', 'timestamp'],
    ['val', 'Float64', 'field'],
    ['__table_id', 'UInt32', 'tag'],
    ['__tsid', 'UInt64', 'tag'],
    ['host', 'String', 'tag'],
    ['job', 'String', 'tag'],
  ]);
  assert.deepEqual(PHYSICAL.primary_key, ['__table_id', '__tsid', 'host', 'job']);
  const logical = table('m', [col(0, 'ts', 'timestamp', 'TimestampMillisecond'), col(1, 'val', 'field', 'Float64'), col(2, 'host', 'tag', 'String'), col(3, 'dc', 'tag', 'String')], { on_physical_table: 'phy' }, 2000);
  assert.deepEqual(checkLogical(logical, PHYSICAL).map((c) => c.name), ['dc']);
  assert.throws(() => checkLogical({ ...logical, columns: [...logical.columns, col(4, 'other', 'field', 'Float64')] }, PHYSICAL), /Field other of logical table m is not a field of physical table phy/);
  assert.throws(() => physicalTableInfo(table('p', [col(0, 'ts', 'timestamp', 'TimestampMillisecond')], { physical_metric_table: '' })), /needs a field column/);
  assert.match(logicalRelation(logical, 'SELECT 1'), /^SELECT "ts", "val", "host", "dc" FROM \(SELECT 1\) WHERE "__table_id" = 2000$/);
});

test('physicalBatch: columns by name, __table_id set, __tsid a stable hash of the tags (NULLs left out), the same for every row of a series', () => {
  const logical = table('m', [col(0, 'ts', 'timestamp', 'TimestampMillisecond'), col(1, 'val', 'field', 'Float64'), col(2, 'job', 'tag', 'String'), col(3, 'host', 'tag', 'String')], { on_physical_table: 'phy' }, 2000);
  const strings = (data: Array<string | null>): Vector => ({ type: 'string', data });
  const batch: WriteBatch = {
    op: OP_PUT,
    rowCount: 4,
    columns: new Map<number, Vector>([
      [0, { type: 'int64', data: BigInt64Array.from([1n, 2n, 3n, 4n]) }],
      [1, { type: 'float64', data: Float64Array.from([1, 2, 3, 4]) }],
      [2, strings(['api', 'api', 'db', null])],
      [3, strings(['a', 'a', 'a', 'a'])],
    ]),
  };
  const out = physicalBatch(logical, PHYSICAL, batch);
  const byName = (name: string) => out.columns.get(PHYSICAL.columns.find((c) => c.name === name)!.column_id)!;
  assert.deepEqual([...(byName('__table_id').data as Float64Array)], [2000, 2000, 2000, 2000]);
  const tsid = [...(byName('__tsid').data as BigUint64Array)];
  assert.equal(tsid[0], tsid[1], 'rows of one series');
  assert.notEqual(tsid[0], tsid[2]);
  assert.notEqual(tsid[2], tsid[3]);
  const again = physicalBatch({ ...logical, columns: [logical.columns[0]!, logical.columns[1]!, logical.columns[3]!, logical.columns[2]!] }, PHYSICAL, batch);
  assert.deepEqual([...(again.columns.get(PHYSICAL.columns.find((c) => c.name === '__tsid')!.column_id)!.data as BigUint64Array)], tsid, 'column order does not matter');
  // The hash is stored in files: it must not change (these are its values for these tags).
  assert.deepEqual(tsid.map(String), ['937269631478343789', '937269631478343789', '3017432940428459249', '17933456419597681223']);
  // A delete names every key column of the physical table.
  const del = physicalBatch(logical, PHYSICAL, { ...batch, op: OP_DELETE });
  for (const k of PHYSICAL.primary_key) assert.ok(del.columns.has(PHYSICAL.columns.find((c) => c.name === k)!.column_id), k);
});

test('physicalBatch: tags given as dictionaries hash to the same __tsid as plain ones; series interleaved row by row', () => {
  const logical = table('m', [col(0, 'ts', 'timestamp', 'TimestampMillisecond'), col(1, 'val', 'field', 'Float64'), col(2, 'job', 'tag', 'String'), col(3, 'host', 'tag', 'String')], { on_physical_table: 'phy' }, 2000);
  const job: Array<string | null> = ['api', 'db', 'api', null, null, 'db', 'api'];
  const host: Array<string | null> = ['a', 'a', 'a', 'a', 'b', 'b', 'b'];
  const dictionary = (data: Array<string | null>): Vector => {
    const values = [...new Set(data.filter((v): v is string => v !== null))];
    return vectorFromDictionary(values, Uint32Array.from(data, (v) => (v === null ? NULL_CODE : values.indexOf(v))));
  };
  const batchWith = (j: Vector, h: Vector): WriteBatch => ({
    op: OP_PUT,
    rowCount: 7,
    columns: new Map<number, Vector>([
      [0, { type: 'int64', data: BigInt64Array.from([1n, 2n, 3n, 4n, 5n, 6n, 7n]) }],
      [1, { type: 'float64', data: Float64Array.from([1, 2, 3, 4, 5, 6, 7]) }],
      [2, j],
      [3, h],
    ]),
  });
  const tsidOf = (b: WriteBatch) => [...(physicalBatch(logical, PHYSICAL, b).columns.get(PHYSICAL.columns.find((c) => c.name === '__tsid')!.column_id)!.data as BigUint64Array)];
  const plain = tsidOf(batchWith({ type: 'string', data: job }, { type: 'string', data: host }));
  assert.deepEqual(tsidOf(batchWith(dictionary(job), dictionary(host))), plain);
  // Each row's own hash: the same as the row alone in a batch.
  const alone = job.map((j, r) => tsidOf({ op: OP_PUT, rowCount: 1, columns: new Map<number, Vector>([[0, { type: 'int64', data: BigInt64Array.from([1n]) }], [1, { type: 'float64', data: Float64Array.from([1]) }], [2, { type: 'string', data: [j] }], [3, { type: 'string', data: [host[r]!] }]]) })[0]);
  assert.deepEqual(plain, alone);
  assert.equal(plain[0], plain[2]);
  assert.notEqual(plain[0], plain[1]);
  assert.equal(plain[1] === plain[5], false, 'db on another host');
});
