/**
 * Tests of the memtable's key index against a plain model (a map from each row's key values to ids
 * in order of first appearance): string tags as arrays and as dictionaries, 32- and 64-bit number
 * keys with runs, NULLs and NaN, columns a batch lacks, many keys, and batches of shrinking size
 * (the index reuses its scratch between batches).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ColumnMetadata } from '../../types/region-metadata.js';
import { vectorFromDictionary } from '../../types/string-dictionary.js';
import { OP_PUT, type Vector, type WriteBatch } from '../../types/write-batch.js';
import { KeyIndex } from './key-index.js';
import type { PkValue } from './memtable.js';

const TAGS: ColumnMetadata[] = [
  { column_id: 10, name: '__table_id', type: 'UInt32', semantic_type: 'tag', nullable: false },
  { column_id: 11, name: '__tsid', type: 'UInt64', semantic_type: 'tag', nullable: false },
  { column_id: 12, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
  { column_id: 13, name: 'n', type: 'Int64', semantic_type: 'tag', nullable: true },
  { column_id: 14, name: 'x', type: 'Float64', semantic_type: 'tag', nullable: true },
  { column_id: 15, name: 'dc', type: 'String', semantic_type: 'tag', nullable: true, default: 'dc0' },
];

/** A key as the model sees it: Map key equality (NaN equals NaN, -0 equals 0). */
function modelKey(values: readonly PkValue[]): string {
  return values.map((v) => (v === null ? 'N' : typeof v === 'bigint' ? `b${v}` : typeof v === 'number' ? `n${Object.is(v, -0) ? 0 : v}` : `${typeof v}:${String(v)}`)).join('\u0000');
}

/** Seeded pseudo-random numbers (xorshift). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

interface Rows {
  batch: WriteBatch;
  keys: PkValue[][];
}

/** A batch of `n` rows in runs (a series' rows together) drawn from `distinct` series; some columns as dictionaries. */
function batchOf(n: number, distinct: number, random: () => number, asDictionary: boolean, withDc: boolean): Rows {
  const table = new Float64Array(n);
  const tsid = new BigUint64Array(n);
  const host: (string | null)[] = [];
  const num = new BigInt64Array(n);
  const numValid = new Uint8Array(n);
  const x = new Float64Array(n);
  const dc: (string | null)[] = [];
  const keys: PkValue[][] = [];
  let row = 0;
  while (row < n) {
    const s = Math.floor(random() * distinct);
    const run = 1 + Math.floor(random() * 4);
    for (let k = 0; k < run && row < n; k++, row++) {
      table[row] = 1024 + (s % 3);
      // Series that differ only in the high word of __tsid.
      tsid[row] = (BigInt(s % 5) << 32n) | 7n;
      host[row] = s % 7 === 0 ? null : `host_${s % 11}`;
      num[row] = BigInt(s % 4) - 2n;
      numValid[row] = s % 13 === 0 ? 0 : 1;
      x[row] = s % 17 === 0 ? Number.NaN : s % 19 === 0 ? -0 : (s % 6) / 4;
      dc[row] = s % 2 === 0 ? `dc${s % 3}` : null;
      keys.push([table[row]!, tsid[row]!, host[row]!, numValid[row] === 0 ? null : num[row]!, x[row]!, withDc ? dc[row]! : 'dc0']);
    }
  }
  const strings = (data: (string | null)[]): Vector => {
    if (!asDictionary) return { type: 'string', data };
    const values: string[] = [];
    const codes = new Uint32Array(data.length);
    data.forEach((v, i) => {
      if (v === null) codes[i] = 0xffffffff;
      else {
        let c = values.indexOf(v);
        if (c < 0) c = values.push(v) - 1;
        codes[i] = c;
      }
    });
    return vectorFromDictionary(values, codes);
  };
  const columns = new Map<number, Vector>([
    [10, { type: 'float64', data: table }],
    [11, { type: 'uint64', data: tsid }],
    [12, strings(host)],
    [13, { type: 'int64', data: num, valid: numValid }],
    [14, { type: 'float64', data: x }],
  ]);
  if (withDc) columns.set(15, strings(dc));
  return { batch: { op: OP_PUT, rowCount: n, columns }, keys };
}

test('key ids are those of a plain map of key values, over batches of every size and shape', () => {
  const random = rng(17);
  const index = new KeyIndex(TAGS);
  const model = new Map<string, number>();
  // Large batches first, then small ones: stale scratch from a larger batch must not leak in.
  const sizes = [5000, 3000, 1, 0, 700, 2, 64, 1, 4096, 3, 17];
  for (const [b, n] of sizes.entries()) {
    const { batch, keys } = batchOf(n, 1 + Math.floor(random() * 300), random, b % 2 === 0, b % 3 !== 0);
    const ids = index.idsOf(batch);
    assert.equal(ids.length, n);
    keys.forEach((k, row) => {
      const key = modelKey(k);
      let id = model.get(key);
      if (id === undefined) {
        id = model.size;
        model.set(key, id);
      }
      assert.equal(ids[row], id, `batch ${b} row ${row}`);
    });
  }
  assert.equal(index.size, model.size);
  // The values of each key, as stored.
  for (const [key, id] of model) assert.equal(modelKey(index.keys[id]!), key);
});

test('many keys (the table grows and rehashes) keep their ids', () => {
  const index = new KeyIndex(TAGS.slice(0, 3));
  const n = 50_000;
  const tsid = new BigUint64Array(n);
  for (let i = 0; i < n; i++) tsid[i] = BigInt(i) * 0x1_0000_0001n;
  const batch = (from: number, to: number): WriteBatch => ({
    op: OP_PUT,
    rowCount: to - from,
    columns: new Map<number, Vector>([
      [10, { type: 'float64', data: new Float64Array(to - from).fill(1) }],
      [11, { type: 'uint64', data: tsid.slice(from, to) }],
      [12, { type: 'string', data: new Array<string>(to - from).fill('h') }],
    ]),
  });
  assert.deepEqual([...index.idsOf(batch(0, n))], Array.from({ length: n }, (_, i) => i));
  assert.deepEqual([...index.idsOf(batch(n - 10, n))], Array.from({ length: 10 }, (_, i) => n - 10 + i));
  assert.equal(index.size, n);
});

test('a run of one value in a number column is one key only when every column agrees', () => {
  const index = new KeyIndex(TAGS.slice(0, 2));
  // __tsid words: same low word, different high word; then the same value again.
  const tsid = BigUint64Array.from([5n, 5n | (1n << 32n), 5n | (1n << 32n), 5n]);
  const ids = index.idsOf({ op: OP_PUT, rowCount: 4, columns: new Map<number, Vector>([[10, { type: 'float64', data: Float64Array.from([1, 1, 2, 2]) }], [11, { type: 'uint64', data: tsid }]]) });
  assert.deepEqual([...ids], [0, 1, 2, 3]);
});
