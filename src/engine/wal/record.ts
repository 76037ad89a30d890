/**
 * WAL record codec (docs/format/wal.md): pure functions over bytes, no I/O.
 */
import { crc32c } from '@node-rs/crc32';
import type { RegionId } from '../../types/region-id.js';

export const RECORD_HEADER_SIZE = 29;
/** Larger lengths can only be damage. */
export const MAX_PAYLOAD = 1 << 30;

export interface WalEntry {
  readonly regionId: RegionId;
  /** Sequence of the batch's first row. */
  readonly sequence: number;
  /** Number of sequences (rows) the batch uses. */
  readonly count: number;
  /** Record type, defined by the engine. */
  readonly type: number;
  readonly payload: Uint8Array;
}

/** A decoded record and where it is. */
export interface WalRecord extends WalEntry {
  /** Byte offset of the record in its segment file. */
  readonly offset: number;
}

export function encodedSize(entry: WalEntry): number {
  return RECORD_HEADER_SIZE + entry.payload.length;
}

/**
 * Encodes one record as two buffers to write one after the other: the header (with the checksum
 * of header and payload) and the payload itself, not copied — keep it unchanged until written.
 */
export function encodeRecordParts(entry: WalEntry): [Buffer, Buffer] {
  if (entry.payload.length > MAX_PAYLOAD) throw new RangeError(`WAL payload of ${entry.payload.length} bytes is larger than ${MAX_PAYLOAD}`);
  if (!Number.isSafeInteger(entry.sequence) || entry.sequence < 0) throw new RangeError(`bad sequence ${entry.sequence}`);
  if (!Number.isInteger(entry.count) || entry.count < 0 || entry.count > 0xffff_ffff) throw new RangeError(`bad count ${entry.count}`);
  const header = Buffer.allocUnsafe(RECORD_HEADER_SIZE);
  header.writeUInt32LE(entry.payload.length, 4);
  header.writeBigUInt64LE(entry.regionId, 8);
  header.writeBigUInt64LE(BigInt(entry.sequence), 16);
  header.writeUInt32LE(entry.count, 24);
  header.writeUInt8(entry.type, 28);
  const payload = Buffer.isBuffer(entry.payload) ? entry.payload : Buffer.from(entry.payload.buffer, entry.payload.byteOffset, entry.payload.byteLength);
  header.writeUInt32LE(crc32c(payload, crc32c(header.subarray(4))), 0);
  return [header, payload];
}

/** Encodes one record into one buffer (header then payload). */
export function encodeRecord(entry: WalEntry): Buffer {
  return Buffer.concat(encodeRecordParts(entry));
}

export type DecodeResult =
  | { readonly kind: 'record'; readonly record: WalRecord; readonly size: number }
  /** Not enough bytes yet for a whole record (or the file ends here: a torn tail). */
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'bad'; readonly reason: string };

/**
 * Decodes the record at `pos` of `buf` (whose first byte is at file offset `base`). The payload is
 * a view of `buf`; copy it if `buf` is reused.
 */
export function decodeRecord(buf: Uint8Array, pos: number, base: number): DecodeResult {
  if (buf.length - pos < RECORD_HEADER_SIZE) return { kind: 'incomplete' };
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const length = view.readUInt32LE(pos + 4);
  if (length > MAX_PAYLOAD) return { kind: 'bad', reason: `impossible record length ${length}` };
  const size = RECORD_HEADER_SIZE + length;
  if (buf.length - pos < size) return { kind: 'incomplete' };
  const stored = view.readUInt32LE(pos);
  const actual = crc32c(view.subarray(pos + 4, pos + size));
  if (stored !== actual) return { kind: 'bad', reason: `checksum mismatch (stored ${hex(stored)}, computed ${hex(actual)})` };
  const sequence = view.readBigUInt64LE(pos + 16);
  if (sequence > BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'bad', reason: `sequence ${sequence} out of range` };
  return {
    kind: 'record',
    size,
    record: {
      offset: base + pos,
      regionId: view.readBigUInt64LE(pos + 8),
      sequence: Number(sequence),
      count: view.readUInt32LE(pos + 24),
      type: view.readUInt8(pos + 28),
      payload: view.subarray(pos + RECORD_HEADER_SIZE, pos + size),
    },
  };
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
