/**
 * LZ4 frame decompression (the LZ4 Frame Format, lz4_Frame_format.md, and the LZ4 block format),
 * so that Arrow IPC buffers compressed with LZ4_FRAME — what GreptimeDB's ingesters send over Flight
 * DoPut by default — can be read: `registerArrowLz4()` gives apache-arrow the decoder.
 *
 * Frame: magic 0x184D2204 | FLG | BD | [content size u64] | [dict id u32] | header checksum |
 * blocks (u32 size, high bit = stored uncompressed; 0 ends the frame; [u32 checksum]) |
 * [content checksum u32]. Skippable frames (magic 0x184D2A50–5F) are skipped; several frames are
 * concatenated. Checksums are not verified (gRPC and TCP already guard the bytes); every length
 * and offset is checked, so damaged input fails with an error and never reads out of bounds.
 */
import { compressionRegistry, CompressionType } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

const MAGIC = 0x184d2204;
const BLOCK_MAX_SIZES: Partial<Record<number, number>> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

function bad(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `invalid LZ4 frame: ${message}`);
}

/** A growable output buffer (matches may refer back into earlier blocks). */
class Output {
  buf: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.buf = new Uint8Array(Math.max(64, capacity));
  }
  reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

/** Decodes one LZ4 block (`src[from, to)`) onto the end of `out`. */
function decodeBlock(src: Uint8Array, from: number, to: number, out: Output, maxBlock: number): void {
  let ip = from;
  const start = out.length;
  out.reserve(maxBlock);
  while (ip < to) {
    const token = src[ip++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let b: number;
      do {
        if (ip >= to) throw bad('truncated literal length');
        b = src[ip++]!;
        literals += b;
      } while (b === 255);
    }
    if (ip + literals > to) throw bad('literals run past the block');
    if (out.length - start + literals > maxBlock) throw bad('a block decodes past its maximum size');
    out.buf.set(src.subarray(ip, ip + literals), out.length);
    out.length += literals;
    ip += literals;
    // The last sequence has literals only.
    if (ip === to) break;
    if (ip + 2 > to) throw bad('truncated match offset');
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || offset > out.length) throw bad(`match offset ${offset} out of range`);
    let match = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (ip >= to) throw bad('truncated match length');
        b = src[ip++]!;
        match += b;
      } while (b === 255);
    }
    if (out.length - start + match > maxBlock) throw bad('a block decodes past its maximum size');
    const buf = out.buf;
    let op = out.length;
    let ref = op - offset;
    if (offset >= match) {
      buf.copyWithin(op, ref, ref + match);
      op += match;
    } else {
      // Overlapping: the match repeats what it is writing.
      for (let k = 0; k < match; k++) buf[op++] = buf[ref++]!;
    }
    out.length = op;
  }
}

function u32(src: Uint8Array, at: number): number {
  if (at + 4 > src.length) throw bad('truncated');
  return (src[at]! | (src[at + 1]! << 8) | (src[at + 2]! << 16) | (src[at + 3]! << 24)) >>> 0;
}

/**
 * Most bytes one compressed buffer may decode to. LZ4 expands up to ~255×, so without a bound a
 * 512 MiB message (the gRPC limit) could ask for a hundred gigabytes: a buffer past this is refused.
 */
export const MAX_DECODED_BYTES = 256 * 1024 * 1024;

/** The bytes an LZ4 frame (or several, concatenated) holds; at most `limit` of them. */
export function decodeLz4Frame(src: Uint8Array, limit = MAX_DECODED_BYTES): Uint8Array {
  const out = new Output(Math.min(src.length * 4, limit));
  let at = 0;
  if (src.length === 0) throw bad('no frame');
  while (at < src.length) {
    const magic = u32(src, at);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      at += 8 + u32(src, at + 4);
      if (at > src.length) throw bad('truncated skippable frame');
      continue;
    }
    if (magic !== MAGIC) throw bad(`bad magic number 0x${magic.toString(16)}`);
    at += 4;
    if (at + 3 > src.length) throw bad('truncated frame header');
    const flg = src[at]!;
    const bd = src[at + 1]!;
    if (flg >> 6 !== 1) throw bad(`unsupported frame version ${flg >> 6}`);
    if (flg & 0x01) throw bad('dictionaries are not supported');
    const blockChecksum = (flg & 0x10) !== 0;
    const contentSize = (flg & 0x08) !== 0;
    const contentChecksum = (flg & 0x04) !== 0;
    const maxBlock = BLOCK_MAX_SIZES[(bd >> 4) & 7];
    if (maxBlock === undefined) throw bad(`bad block maximum size ${(bd >> 4) & 7}`);
    at += 2 + (contentSize ? 8 : 0) + 1;
    for (;;) {
      const word = u32(src, at);
      at += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      if (size > maxBlock || at + size > src.length) throw bad(`block of ${size} bytes out of range`);
      if (word & 0x80000000) {
        out.reserve(size);
        out.buf.set(src.subarray(at, at + size), out.length);
        out.length += size;
      } else {
        decodeBlock(src, at, at + size, out, maxBlock);
      }
      at += size + (blockChecksum ? 4 : 0);
      if (out.length > limit) throw bad(`it decodes to more than ${limit} bytes`);
    }
    if (contentChecksum) at += 4;
    if (at > src.length) throw bad('truncated');
  }
  return out.buf.subarray(0, out.length);
}

/** What the buffers decoded inside `withDecodeBudget` may still add up to (undefined outside one). */
let budget: number | undefined;

/**
 * Runs `fn` (a synchronous read of one message's buffers) with LZ4 decoding bounded by `bytes` in
 * all, so that many compressed columns of one batch cannot together ask for more.
 */
export function withDecodeBudget<T>(bytes: number, fn: () => T): T {
  const outer = budget;
  budget = bytes;
  try {
    return fn();
  } finally {
    budget = outer;
  }
}

/** The decoder apache-arrow is given: within the current budget, if any. */
export function decodeWithinBudget(src: Uint8Array): Uint8Array {
  const out = decodeLz4Frame(src, Math.min(MAX_DECODED_BYTES, budget ?? MAX_DECODED_BYTES));
  if (budget !== undefined) budget -= out.length;
  return out;
}

let registered = false;

/** Lets apache-arrow read buffers compressed with LZ4_FRAME (decoding only: tsdb writes uncompressed). */
export function registerArrowLz4(): void {
  if (registered) return;
  registered = true;
  compressionRegistry.set(CompressionType.LZ4_FRAME, { decode: decodeWithinBudget });
}
