import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compressionRegistry, CompressionType, Float64, Int64, RecordBatchStreamWriter, Table, tableFromIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { decodeLz4Frame, decodeWithinBudget, registerArrowLz4, withDecodeBudget } from './lz4-frame.js';
import { lz4FrameOf } from '../../../test/support/lz4-encode.js';

const FIXTURES = new URL('../../../../test/fixtures/lz4/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));

/** The 150,000 test bytes of test/fixtures/lz4/README.md. */
function testBytes(): Uint8Array {
  const b = new Uint8Array(150_000);
  let x = 1;
  for (let i = 0; i < b.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = i % 5000 < 4900 ? i % 251 : x >>> 24;
  }
  return b;
}

const invalid = (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && /LZ4/.test(e.message);

test('lz4: frames made by the lz4 command decode to their input (dependent blocks, block checksums, content size)', () => {
  assert.equal(Buffer.from(decodeLz4Frame(fixture('small.lz4'))).toString(), 'hello hello hello hello hello!');
  const want = testBytes();
  assert.deepEqual(decodeLz4Frame(fixture('dependent-blocks.lz4')), want);
  assert.deepEqual(decodeLz4Frame(fixture('block-checksums-content-size.lz4')), want);
});

test('lz4: stored blocks, literal-only blocks, skippable and concatenated frames', () => {
  const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
  assert.deepEqual(decodeLz4Frame(lz4FrameOf(data)), data);
  assert.deepEqual(decodeLz4Frame(lz4FrameOf(data, true)), data);
  const skippable = Uint8Array.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
  const two = Buffer.concat([skippable, fixture('small.lz4'), lz4FrameOf(data)]);
  assert.deepEqual(Buffer.from(decodeLz4Frame(two)), Buffer.concat([Buffer.from('hello hello hello hello hello!'), data]));
});

test('lz4: every truncation and damaged offsets or magic fail as InvalidArguments, never out of bounds', () => {
  for (const name of ['small.lz4', 'dependent-blocks.lz4']) {
    const whole = fixture(name);
    for (let cut = 0; cut < whole.length; cut += name === 'small.lz4' ? 1 : 37) assert.throws(() => decodeLz4Frame(whole.subarray(0, cut)), invalid, `${name} cut at ${cut}`);
  }
  const small = fixture('small.lz4');
  const badMagic = Uint8Array.from(small);
  badMagic[0] = 0;
  assert.throws(() => decodeLz4Frame(badMagic), invalid);
  // The first match of small.lz4 is 6 bytes back; 0 and 200 are out of range.
  const block = Buffer.from(small);
  const offsetAt = block.indexOf(Buffer.from([0x06, 0x00]), 7);
  for (const off of [[0, 0], [200, 0]]) {
    const damaged = Uint8Array.from(block);
    damaged[offsetAt] = off[0]!;
    damaged[offsetAt + 1] = off[1]!;
    assert.throws(() => decodeLz4Frame(damaged), invalid);
  }
  // Flipping each byte either decodes (to something) or fails as InvalidArguments.
  const big = fixture('dependent-blocks.lz4');
  for (let i = 0; i < big.length; i += 11) {
    const damaged = Uint8Array.from(big);
    damaged[i] = damaged[i]! ^ 0x5a;
    try {
      decodeLz4Frame(damaged);
    } catch (e) {
      assert.ok(invalid(e), `byte ${i}: ${String(e)}`);
    }
  }
});

test('lz4: apache-arrow reads IPC streams with LZ4_FRAME buffers once registered', () => {
  registerArrowLz4();
  const t = new Table({
    i: vectorFromArray(Array.from({ length: 5000 }, (_, k) => BigInt(k) * 3n), new Int64()),
    f: vectorFromArray(Array.from({ length: 5000 }, (_, k) => (k % 9 === 0 ? null : k / 8)), new Float64()),
    s: vectorFromArray(Array.from({ length: 5000 }, (_, k) => `s${k % 13}`), new Utf8()),
  });
  // A writer needs an encoder: literal-only blocks are valid LZ4 frames.
  compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: (d) => lz4FrameOf(d), decode: decodeLz4Frame });
  try {
    const w = new RecordBatchStreamWriter({ compressionType: CompressionType.LZ4_FRAME });
    w.writeAll(t);
    const back = tableFromIPC(w.toUint8Array(true));
    assert.deepEqual(back.getChild('s')!.toArray(), t.getChild('s')!.toArray());
    assert.deepEqual(Array.from(back.getChild('i')!.toArray() as BigInt64Array), Array.from(t.getChild('i')!.toArray() as BigInt64Array));
    assert.equal(back.getChild('f')!.get(9), null);
    assert.equal(back.getChild('f')!.get(10), 10 / 8);
  } finally {
    compressionRegistry.set(CompressionType.LZ4_FRAME, { decode: decodeLz4Frame });
  }
});

test('lz4: a frame that would decode past the limit is refused, not allocated (a decompression bomb)', () => {
  // One stored 64 KiB block, repeated: each adds 64 KiB of output for 64 KiB of input; the limit
  // is checked after every block.
  const block = new Uint8Array(64 << 10).fill(7);
  const header = [0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82];
  const parts: number[] = [...header];
  for (let i = 0; i < 5; i++) {
    const size = (block.length | 0x80000000) >>> 0;
    parts.push(size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24, ...block);
  }
  parts.push(0, 0, 0, 0);
  const frame = Uint8Array.from(parts);
  assert.equal(decodeLz4Frame(frame).length, 5 * block.length);
  assert.throws(
    () => decodeLz4Frame(frame, 3 * block.length),
    (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /decodes to more than/.test(err.message),
  );
});

test('lz4: inside a decode budget, the buffers of one read together stay within it', () => {
  const frame = lz4FrameOf(new Uint8Array(100_000).fill(3));
  // decodeWithinBudget is what registerArrowLz4 gives apache-arrow.
  assert.equal(withDecodeBudget(250_000, () => [decodeWithinBudget(frame), decodeWithinBudget(frame)].length), 2);
  assert.throws(
    () => withDecodeBudget(250_000, () => [decodeWithinBudget(frame), decodeWithinBudget(frame), decodeWithinBudget(frame)]),
    (err: unknown) => err instanceof TsdbError && /decodes to more than/.test(err.message),
  );
  assert.equal(decodeWithinBudget(frame).length, 100_000, 'outside a budget, only the per-buffer limit applies');
});
