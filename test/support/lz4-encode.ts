/**
 * A minimal LZ4 frame encoder for tests: one block holding the data as literals only (a valid
 * compressed block that compresses nothing), or stored. apache-arrow's writers need an encoder to
 * write LZ4_FRAME-compressed IPC, which tsdb itself only reads (src/servers/grpc/lz4-frame.ts).
 */
import { compressionRegistry, CompressionType } from 'apache-arrow';
import { decodeWithinBudget } from '../../src/servers/grpc/lz4-frame.js';

/** A frame of one block holding `data` as literals only (a valid compressed block), or stored. */
export function lz4FrameOf(data: Uint8Array, stored = false): Uint8Array {
  const parts: number[] = [0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x00];
  const block: number[] = [];
  if (stored) block.push(...data);
  else {
    let n = data.length;
    block.push(Math.min(n, 15) << 4);
    if (n >= 15) {
      n -= 15;
      while (n >= 255) {
        block.push(255);
        n -= 255;
      }
      block.push(n);
    }
    block.push(...data);
  }
  const size = block.length | (stored ? 0x80000000 : 0);
  parts.push(size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24, ...block, 0, 0, 0, 0);
  return Uint8Array.from(parts);
}


/** Registers the test encoder (with tsdb's decoder, budget included) so that writers can use CompressionType.LZ4_FRAME. */
export function registerTestLz4Encoder(): void {
  compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: (d) => lz4FrameOf(d), decode: decodeWithinBudget });
}
