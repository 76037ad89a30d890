/**
 * Copies a run of bits between two LSB-first bitmaps, the layout Arrow's validity (and Bool) buffers
 * and DuckDB's validity masks share (bit `i` of a mask is bit `i & 7` of byte `i >> 3`; DuckDB's
 * 64-bit words are little-endian, so the same bytes). The Arrow bridge (`arrow-scan-function.ts`,
 * `arrow-result.ts`) moves NULLs this way, a byte at a time rather than a bit per row: chunks and
 * batches rarely start on the same bit.
 */

/**
 * Writes bits `[srcBit, srcBit + n)` of `src` over bits `[dstBit, dstBit + n)` of `dst`, leaving the
 * other bits of `dst` as they are. Bits past the end of `src` read as 0.
 */
export function copyBits(src: Uint8Array, srcBit: number, dst: Uint8Array, dstBit: number, n: number): void {
  let s = srcBit;
  let d = dstBit;
  let left = n;
  // Bit by bit until `d` is on a byte boundary.
  while (left > 0 && (d & 7) !== 0) {
    setBit(dst, d, (src[s >> 3]! >> (s & 7)) & 1);
    s++;
    d++;
    left--;
  }
  const bytes = left >> 3;
  if (bytes > 0) {
    const shift = s & 7;
    let sb = s >> 3;
    let db = d >> 3;
    if (shift === 0) {
      dst.set(src.subarray(sb, sb + bytes), db);
      // subarray stops at the end of src: what it did not give reads as 0.
      const given = Math.max(0, Math.min(bytes, src.length - sb));
      if (given < bytes) dst.fill(0, db + given, db + bytes);
    } else {
      const back = 8 - shift;
      for (let k = 0; k < bytes; k++, sb++, db++) dst[db] = ((src[sb]! >> shift) | (src[sb + 1]! << back)) & 0xff;
    }
    s += bytes << 3;
    d += bytes << 3;
    left -= bytes << 3;
  }
  while (left > 0) {
    setBit(dst, d, (src[s >> 3]! >> (s & 7)) & 1);
    s++;
    d++;
    left--;
  }
}

function setBit(dst: Uint8Array, i: number, bit: number): void {
  if (bit !== 0) dst[i >> 3]! |= 1 << (i & 7);
  else dst[i >> 3]! &= ~(1 << (i & 7));
}
