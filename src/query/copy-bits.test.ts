import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyBits } from './copy-bits.js';

const bit = (a: Uint8Array, i: number) => (i >> 3 < a.length ? (a[i >> 3]! >> (i & 7)) & 1 : 0);

test('copyBits equals a bit-by-bit copy for every source and target offset, length and end of source', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  const src = Uint8Array.from({ length: 40 }, random);
  for (let srcBit = 0; srcBit < 24; srcBit++) {
    for (let dstBit = 0; dstBit < 24; dstBit++) {
      for (const n of [0, 1, 5, 8, 9, 31, 64, 100, 300]) {
        const before = Uint8Array.from({ length: 60 }, random);
        const dst = before.slice();
        copyBits(src, srcBit, dst, dstBit, n);
        for (let i = 0; i < dst.length * 8; i++) {
          const expected = i >= dstBit && i < dstBit + n ? bit(src, srcBit + i - dstBit) : bit(before, i);
          assert.equal(bit(dst, i), expected, `srcBit ${srcBit} dstBit ${dstBit} n ${n} bit ${i}`);
        }
      }
    }
  }
});
