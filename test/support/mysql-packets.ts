/** Helpers for the codec tests: hex fixtures and a stream fed at every split. */
import assert from 'node:assert/strict';
import { PacketReader, writePacket } from '../../src/servers/mysql/packet.js';

/** Bytes of a hex fixture written with spaces, newlines and `#` comments. */
export function hex(text: string): Buffer {
  const clean = text
    .split('\n')
    .map((l) => l.replace(/#.*$/, ''))
    .join('')
    .replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(clean)) throw new Error(`bad hex fixture: ${clean}`);
  return Buffer.from(clean, 'hex');
}

export interface Received {
  readonly payload: Buffer;
  readonly seq: number;
}

/** Payloads a fresh reader delivers for `pieces`. */
export function readAll(pieces: readonly Buffer[], maxPayloadSize?: number): Received[] {
  const reader = new PacketReader(maxPayloadSize === undefined ? {} : { maxPayloadSize });
  const out: Received[] = [];
  for (const p of pieces) reader.push(p, (payload, seq) => out.push({ payload, seq }));
  assert.equal(reader.buffered, 0, 'bytes left over');
  return out;
}

/**
 * Frames `payload` at `seq`, feeds it whole, split at every offset, and byte by byte; each way
 * must deliver exactly `payload` once. Returns the payload as delivered.
 */
export function assertEverySplit(payload: Buffer, seq = 0): Buffer {
  const framed = writePacket(payload, seq);
  const whole = readAll([framed]);
  assert.equal(whole.length, 1);
  assert.deepEqual(whole[0]!.payload, payload);
  for (let i = 0; i <= framed.length; i++) {
    const got = readAll([framed.subarray(0, i), framed.subarray(i)]);
    assert.equal(got.length, 1, `split at ${i}`);
    assert.deepEqual(got[0]!.payload, payload, `split at ${i}`);
  }
  const bytes = readAll([...framed].map((b) => Buffer.from([b])));
  assert.equal(bytes.length, 1);
  assert.deepEqual(bytes[0]!.payload, payload);
  return whole[0]!.payload;
}
