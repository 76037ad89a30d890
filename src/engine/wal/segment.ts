/**
 * WAL segment files (docs/format/wal.md): names, the header, and a sequential scan that checks
 * every record.
 */
import { open } from 'node:fs/promises';
import { decodeRecord, RECORD_HEADER_SIZE, type WalRecord } from './record.js';

export const SEGMENT_HEADER_SIZE = 24;
const MAGIC = Buffer.from('TSDBWAL\0', 'latin1');
const FORMAT_VERSION = 1;
const SEGMENT_NAME = /^(\d{20})\.wal$/;

export function segmentFileName(index: number): string {
  return `${String(index).padStart(20, '0')}.wal`;
}

export function parseSegmentFileName(name: string): number | undefined {
  const m = SEGMENT_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

export function encodeSegmentHeader(index: number): Buffer {
  const buf = Buffer.alloc(SEGMENT_HEADER_SIZE);
  MAGIC.copy(buf, 0);
  buf.writeUInt32LE(FORMAT_VERSION, 8);
  buf.writeBigUInt64LE(BigInt(index), 16);
  return buf;
}

/** Why a header is not the header of segment `index`, or undefined when it is. */
export function checkSegmentHeader(buf: Uint8Array, index: number): string | undefined {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < SEGMENT_HEADER_SIZE) return 'segment header is incomplete';
  if (!b.subarray(0, 8).equals(MAGIC)) return 'not a WAL segment (bad magic)';
  const version = b.readUInt32LE(8);
  if (version !== FORMAT_VERSION) return `unsupported WAL format version ${version}`;
  const stored = b.readBigUInt64LE(16);
  if (stored !== BigInt(index)) return `segment header says index ${stored}, the file name says ${index}`;
  return undefined;
}

export interface ScanProblem {
  readonly offset: number;
  /** `incomplete`: the file ends inside a record or the header; `bad`: checksum, length or header damage. */
  readonly kind: 'incomplete' | 'bad';
  readonly reason: string;
}

export interface ScanOutcome {
  /** Offset just after the last good record (where a torn tail would be cut). */
  readonly goodEnd: number;
  readonly fileSize: number;
  readonly problem?: ScanProblem;
}

const CHUNK = 8 * 1024 * 1024;

/**
 * Reads a segment from start to end, calling `onRecord` for each good record. Its payload is a view
 * of a read buffer that is never written again (each refill takes a new one): keeping the payload
 * keeps that buffer (up to 8 MiB) alive. Stops at the first problem.
 */
export async function scanSegment(
  path: string,
  index: number,
  onRecord: (record: WalRecord) => void | Promise<void>,
): Promise<ScanOutcome> {
  const fh = await open(path, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const header = Buffer.alloc(SEGMENT_HEADER_SIZE);
    const { bytesRead } = await fh.read(header, 0, SEGMENT_HEADER_SIZE, 0);
    if (bytesRead < SEGMENT_HEADER_SIZE) {
      return { goodEnd: 0, fileSize, problem: { offset: 0, kind: 'incomplete', reason: 'segment header is incomplete' } };
    }
    const headerProblem = checkSegmentHeader(header, index);
    if (headerProblem) return { goodEnd: 0, fileSize, problem: { offset: 0, kind: 'bad', reason: headerProblem } };

    let buf = Buffer.alloc(0);
    let base = SEGMENT_HEADER_SIZE; // file offset of buf[0]
    let pos = 0;
    let readAt = SEGMENT_HEADER_SIZE;
    for (;;) {
      const result = decodeRecord(buf, pos, base);
      if (result.kind === 'record') {
        await onRecord(result.record);
        pos += result.size;
        continue;
      }
      if (result.kind === 'bad') {
        return { goodEnd: base + pos, fileSize, problem: { offset: base + pos, kind: 'bad', reason: result.reason } };
      }
      // Incomplete: read more, keeping the unread part; grow the buffer for a large record.
      if (readAt >= fileSize) {
        if (pos === buf.length) return { goodEnd: base + pos, fileSize };
        const missing = buf.length - pos < RECORD_HEADER_SIZE ? 'record header' : 'record payload';
        return { goodEnd: base + pos, fileSize, problem: { offset: base + pos, kind: 'incomplete', reason: `file ends inside a ${missing}` } };
      }
      const rest = buf.subarray(pos);
      const need = rest.length >= RECORD_HEADER_SIZE ? RECORD_HEADER_SIZE + rest.readUInt32LE(4) : RECORD_HEADER_SIZE;
      const next = Buffer.allocUnsafe(Math.max(CHUNK, need));
      rest.copy(next, 0);
      const { bytesRead: n } = await fh.read(next, rest.length, Math.min(next.length - rest.length, fileSize - readAt), readAt);
      readAt += n;
      base += pos;
      buf = next.subarray(0, rest.length + n);
      pos = 0;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Whether a valid record starts anywhere in `[from, end of file)`: after a bad record, tells a torn
 * tail (nothing valid follows) from corruption in the middle (valid records follow).
 */
export async function validRecordAfter(path: string, from: number): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    if (from >= size) return false;
    const rest = Buffer.allocUnsafe(size - from);
    await fh.read(rest, 0, rest.length, from);
    for (let p = 0; p + RECORD_HEADER_SIZE <= rest.length; p++) {
      const length = rest.readUInt32LE(p + 4);
      if (p + RECORD_HEADER_SIZE + length > rest.length) continue;
      if (decodeRecord(rest, p, from).kind === 'record') return true;
    }
    return false;
  } finally {
    await fh.close();
  }
}
