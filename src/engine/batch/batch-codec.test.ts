import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBatch, encodeBatch } from './batch-codec.js';
import { NULL_CODE, vectorFromDictionary } from '../../types/string-dictionary.js';
import { OP_DELETE, OP_PUT, vectorLength, type WriteBatch } from '../../types/write-batch.js';

const BATCH: WriteBatch = {
  op: OP_PUT,
  rowCount: 3,
  columns: new Map([
    [0, { type: 'string', data: ['host1', null, 'hôst-ß'] }],
    [1, { type: 'int64', data: BigInt64Array.from([1700000000000000000n, -1n, 0n]) }],
    [2, { type: 'float64', data: Float64Array.from([1.5, NaN, -0]), valid: Uint8Array.from([1, 0, 1]) }],
    [3, { type: 'uint64', data: BigUint64Array.from([2n ** 64n - 1n, 0n, 7n]) }],
    [4, { type: 'bool', data: Uint8Array.from([1, 0, 1]) }],
    [7, { type: 'binary', data: [Uint8Array.from([0, 255]), null, new Uint8Array(0)] }],
  ]),
};

test('a write batch round-trips through its encoding', () => {
  const decoded = decodeBatch(encodeBatch(BATCH));
  assert.deepEqual(decoded, BATCH);
});

test('an empty delete batch round-trips', () => {
  const empty: WriteBatch = { op: OP_DELETE, rowCount: 0, columns: new Map([[1, { type: 'int64', data: new BigInt64Array(0) }]]) };
  assert.deepEqual(decodeBatch(encodeBatch(empty)), empty);
});

test('a truncated payload is refused at every cut, never misread', () => {
  const bytes = encodeBatch(BATCH);
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.throws(() => decodeBatch(bytes.subarray(0, cut)), RangeError, `cut at ${cut}`);
  }
});

test('a column whose length disagrees with the row count is refused', () => {
  assert.throws(
    () => encodeBatch({ op: OP_PUT, rowCount: 2, columns: new Map([[1, { type: 'float64', data: new Float64Array(3) }]]) }),
    /column 1 has 3 values for 2 rows/,
  );
});

test('repeated strings (tags) are written as a dictionary and read back the same', () => {
  const hosts = Array.from({ length: 1000 }, (_, i) => (i % 50 === 7 ? null : `host_${i % 10}`));
  const batch: WriteBatch = { op: OP_PUT, rowCount: 1000, columns: new Map([[0, { type: 'string', data: hosts }]]) };
  const bytes = encodeBatch(batch);
  assert.ok(bytes.length < 1000 * 5, `dictionary encoding is compact (${bytes.length} bytes)`);
  const decoded = decodeBatch(bytes);
  assert.deepEqual(decoded, batch);
  for (let cut = 0; cut < bytes.length; cut += 7) assert.throws(() => decodeBatch(bytes.subarray(0, cut)), RangeError);
  // Distinct values are written plainly.
  const unique: WriteBatch = { op: OP_PUT, rowCount: 3, columns: new Map([[0, { type: 'string', data: ['a', 'b', 'c'] }]]) };
  assert.deepEqual(decodeBatch(encodeBatch(unique)), unique);
});

test('numeric columns and tag codes of an aligned payload are decoded as views; a misaligned one is copied', () => {
  const hosts = Array.from({ length: 64 }, (_, i) => `host_${i % 4}`);
  const batch: WriteBatch = {
    op: OP_PUT,
    rowCount: 64,
    columns: new Map([
      [0, { type: 'string', data: hosts }],
      [1, { type: 'int64', data: BigInt64Array.from({ length: 64 }, (_, i) => BigInt(i)) }],
      [2, { type: 'float64', data: Float64Array.from({ length: 64 }, (_, i) => i / 2) }],
    ]),
  };
  const encoded = encodeBatch(batch);
  const aligned = new Uint8Array(encoded.length);
  aligned.set(encoded);
  const fromAligned = decodeBatch(aligned);
  assert.deepEqual(fromAligned, batch);
  assert.equal((fromAligned.columns.get(2)!.data as Float64Array).buffer, aligned.buffer, 'a view, not a copy');
  const shifted = new Uint8Array(encoded.length + 3);
  shifted.set(encoded, 3);
  const fromShifted = decodeBatch(shifted.subarray(3));
  assert.deepEqual(fromShifted, batch);
  assert.notEqual((fromShifted.columns.get(2)!.data as Float64Array).buffer, shifted.buffer, 'copied to align');
});

test('payloads of version 1 (no alignment padding) are still read', () => {
  // version 1, put, 2 rows, 2 columns: dictionary strings ["a"] codes [0, 0]; float64 [1.5, 2.5]
  const parts = [
    Buffer.from([1, OP_PUT]), u32(2), Buffer.from([2, 0]),
    u32(0), Buffer.from([7, 0]), u32(1), u32(1), Buffer.from('a'), u32(0), u32(0),
    u32(5), Buffer.from([1, 0]), Buffer.from(Float64Array.from([1.5, 2.5]).buffer),
  ];
  const decoded = decodeBatch(Buffer.concat(parts));
  assert.deepEqual(decoded, {
    op: OP_PUT,
    rowCount: 2,
    columns: new Map([
      [0, { type: 'string', data: ['a', 'a'] }],
      [5, { type: 'float64', data: Float64Array.from([1.5, 2.5]) }],
    ]),
  });
});

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
}

test('a column made from a dictionary is written from its codes, even with every value distinct, without making its rows', () => {
  const values = ['a', 'hôst', 'c', 'x'.repeat(1000)];
  const codes = Uint32Array.from([3, 0, NULL_CODE, 1, 2]);
  const v = vectorFromDictionary(values, codes);
  const expected = ['x'.repeat(1000), 'a', null, 'hôst', 'c'];
  // Reading the rows would fail the test: the encoder and the row count must use the codes.
  Object.defineProperty(v, 'data', { get: () => assert.fail('the rows were made') });
  assert.equal(vectorLength(v), 5);
  const batch: WriteBatch = { op: OP_PUT, rowCount: 5, columns: new Map([[0, v]]) };
  const decoded = decodeBatch(encodeBatch(batch));
  assert.deepEqual(decoded.columns.get(0)!.data, expected);
  assert.throws(() => encodeBatch({ ...batch, rowCount: 4 }), /column 0 has 5 values for 4 rows/);
});
