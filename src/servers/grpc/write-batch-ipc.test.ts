import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeVector, RecordBatchReader, RecordBatchStreamWriter, Table, Type, Utf8, vectorFromArray } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Vector } from '../../types/write-batch.js';
import { IpcStreamSplitter, ipcStreamOf, type IpcMessage } from './arrow-ipc.js';
import { decodeWriteBatchColumns, encodeWriteBatchColumns } from './write-batch-ipc.js';

function columns(entries: Array<[number, Vector]>): Map<number, Vector> {
  return new Map(entries);
}

function roundTrip(rowCount: number, cols: Map<number, Vector>): void {
  const back = decodeWriteBatchColumns(encodeWriteBatchColumns(rowCount, cols));
  assert.deepStrictEqual(back, { rowCount, columns: cols });
}

function isInvalid(err: unknown): boolean {
  return err instanceof TsdbError && err.code === StatusCode.InvalidArguments;
}

const SAMPLE = columns([
  [3, { type: 'string', data: ['a', null, '', 'ü', 'a', 'a'] }],
  [1, { type: 'int64', data: new BigInt64Array([1n, -(2n ** 63n), 2n ** 63n - 1n, 0n, 5n, 6n]), valid: new Uint8Array([1, 0, 1, 1, 1, 1]) }],
  [2, { type: 'float64', data: new Float64Array([NaN, -0, 1e308, 5e-324, 0, 1]) }],
  [4, { type: 'bool', data: new Uint8Array([0, 1, 1, 0, 1, 0]), valid: new Uint8Array([1, 1, 1, 1, 1, 1]) }],
  [5, { type: 'uint64', data: new BigUint64Array([0n, 2n ** 64n - 1n, 1n, 2n, 3n, 4n]) }],
  [6, { type: 'binary', data: [new Uint8Array([1, 2]), null, new Uint8Array(0), new Uint8Array([255]), null, new Uint8Array([0])] }],
]);

test('write batch IPC: every vector type round-trips, column order and ids kept', () => {
  roundTrip(6, SAMPLE);
  roundTrip(0, columns([]));
  roundTrip(9, columns([]));
  roundTrip(0, columns([[0, { type: 'float64', data: new Float64Array(0), valid: new Uint8Array(0) }]]));
  // Row counts off a multiple of 8 (bitmaps with a partial last byte).
  for (const n of [2, 7, 8, 9, 63, 64, 65, 1000]) {
    roundTrip(
      n,
      columns([
        [0, { type: 'bool', data: Uint8Array.from({ length: n }, (_, i) => ((i * 7) % 3 === 0 ? 1 : 0)), valid: Uint8Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0 : 1)) }],
        [1, { type: 'string', data: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? null : `v${i % 3}`)) }],
      ]),
    );
  }
});

test('write batch IPC: repeated strings travel as a dictionary, distinct ones plain, both exact', () => {
  const n = 500;
  const tags = Array.from({ length: n }, (_, i) => (i % 10 === 0 ? null : i % 7 === 0 ? '' : `host-${i % 20}-✓`));
  const messages = Array.from({ length: n }, (_, i) => `line ${i} ünïque`);
  const cols = columns([
    [0, { type: 'string', data: tags }],
    [1, { type: 'string', data: messages }],
  ]);
  const bytes = encodeWriteBatchColumns(n, cols);
  const reader = RecordBatchReader.from(bytes);
  reader.open();
  assert.deepEqual(reader.schema.fields.map((f) => f.type.typeId), [Type.Dictionary, Type.Utf8]);
  assert.deepStrictEqual(decodeWriteBatchColumns(bytes), { rowCount: n, columns: cols });
  // The decoded tags share one string per distinct value.
  const back = decodeWriteBatchColumns(bytes).columns.get(0)!.data as string[];
  assert.equal(back[1], 'host-1-✓');
  assert.equal(back[1], back[41]);
});

test('write batch IPC: a bool column NULL in every row comes back false (Arrow writes no values for it)', () => {
  const sent = columns([[0, { type: 'bool', data: new Uint8Array([1, 0, 1]), valid: new Uint8Array([0, 0, 0]) }]]);
  assert.deepStrictEqual(decodeWriteBatchColumns(encodeWriteBatchColumns(3, sent)).columns.get(0), { type: 'bool', data: new Uint8Array([0, 0, 0]), valid: new Uint8Array([0, 0, 0]) });
});

test('write batch IPC: vectors of the wrong length are refused when encoding', () => {
  assert.throws(() => encodeWriteBatchColumns(3, columns([[0, { type: 'float64', data: new Float64Array(2) }]])), RangeError);
  assert.throws(() => encodeWriteBatchColumns(2, columns([[0, { type: 'int64', data: new BigInt64Array(2), valid: new Uint8Array(3) }]])), RangeError);
});

/** The schema message of a stream, then its end. */
function schemaOnly(bytes: Uint8Array): Uint8Array {
  const messages: IpcMessage[] = [];
  new IpcStreamSplitter().push(bytes, (m) => messages.push(m));
  return ipcStreamOf(messages.slice(0, 1));
}

test('write batch IPC: Arrow streams not of the codec are InvalidArguments', () => {
  const write = (t: Table) => RecordBatchStreamWriter.writeAll(t).toUint8Array(true);
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['empty', new Uint8Array(0), /not an Arrow IPC stream/],
    ['text', Buffer.from('hello, not arrow'), /ends inside a message/],
    ['text with a short length', Buffer.from('\x10\x00\x00\x00not arrow at all'), /undecodable message header/],
    ['a field that is no column id', write(new Table({ host: vectorFromArray(['a'], new Utf8()) })), /field name "host" is not a column id/],
    ['a column id past u32', write(new Table({ '4294967296': vectorFromArray(['a'], new Utf8()) })), /not a column id/],
    ['an Int32 column', write(new Table({ '1': makeVector(new Int32Array([1, 2])) })), /Arrow type Int32/],
    ['two batches', write(new Table([new Table({ '1': makeVector(new Float64Array([1])) }).batches[0]!, new Table({ '1': makeVector(new Float64Array([2])) }).batches[0]!])), /expected one record batch, got 2/],
  ];
  for (const [name, bytes, message] of cases) {
    assert.throws(() => decodeWriteBatchColumns(bytes), (err: unknown) => isInvalid(err) && message.test((err as Error).message), name);
  }
  // A schema without a batch (apache-arrow reads an empty one): no rows.
  const noBatch = schemaOnly(encodeWriteBatchColumns(1, columns([[1, { type: 'float64', data: new Float64Array(1) }]])));
  assert.deepStrictEqual(decodeWriteBatchColumns(noBatch), { rowCount: 0, columns: columns([[1, { type: 'float64', data: new Float64Array(0) }]]) });
});

test('write batch IPC: every truncation decodes whole or is InvalidArguments', () => {
  const bytes = encodeWriteBatchColumns(6, SAMPLE);
  for (let cut = 0; cut < bytes.length; cut++) {
    let back;
    try {
      back = decodeWriteBatchColumns(bytes.subarray(0, cut));
    } catch (err) {
      assert.ok(isInvalid(err), `cut at ${cut}: ${String(err)}`);
      continue;
    }
    // Only the end-of-stream marker may be missing.
    assert.ok(cut >= bytes.length - 8, `cut at ${cut} decoded`);
    assert.deepStrictEqual(back, { rowCount: 6, columns: SAMPLE });
  }
});

test('write batch IPC: damaged bytes never fail otherwise than InvalidArguments', () => {
  const bytes = encodeWriteBatchColumns(6, SAMPLE);
  // A fixed-seed generator: the same damages each run.
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  let refused = 0;
  for (let k = 0; k < 3000; k++) {
    const damaged = Uint8Array.from(bytes);
    const flips = 1 + Math.floor(random() * 4);
    for (let f = 0; f < flips; f++) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
    try {
      const back = decodeWriteBatchColumns(damaged);
      for (const v of back.columns.values()) assert.equal(v.data.length, back.rowCount);
    } catch (err) {
      assert.ok(isInvalid(err), `damage ${k}: ${String(err)}`);
      refused++;
    }
  }
  assert.ok(refused > 0);
});
