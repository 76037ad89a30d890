import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRecord, encodeRecord, RECORD_HEADER_SIZE, type WalEntry } from './record.js';

const ENTRY: WalEntry = { regionId: (1024n << 32n) | 1n, sequence: 1000, count: 3, type: 1, payload: Buffer.from('abc') };

test('a record encodes to the documented bytes', () => {
  const buf = encodeRecord(ENTRY);
  assert.equal(buf.length, RECORD_HEADER_SIZE + 3);
  assert.equal(buf.toString('hex', 4),
    '03000000' + // length
    '0100000000040000' + // region id: table 1024, region 1
    'e803000000000000' + // sequence 1000
    '03000000' + // count
    '01' + // type
    '616263'); // payload
  // CRC-32C of everything after the checksum field.
  assert.equal(buf.readUInt32LE(0), 0xf5dc1f76); // computed independently (bitwise CRC-32C, poly 0x82F63B78)
});

test('decoding round-trips and reports where the record is', () => {
  const two = Buffer.concat([encodeRecord(ENTRY), encodeRecord({ ...ENTRY, sequence: 1003, payload: Buffer.alloc(0) })]);
  const first = decodeRecord(two, 0, 100);
  assert.equal(first.kind, 'record');
  if (first.kind !== 'record') return;
  assert.deepEqual({ ...first.record, payload: Buffer.from(first.record.payload) }, { ...ENTRY, offset: 100, payload: Buffer.from('abc') });
  const second = decodeRecord(two, first.size, 100);
  assert.equal(second.kind, 'record');
  if (second.kind === 'record') assert.deepEqual([second.record.sequence, second.record.offset, second.record.payload.length], [1003, 100 + first.size, 0]);
});

test('a record cut at any offset is incomplete, never wrong', () => {
  const buf = encodeRecord(ENTRY);
  for (let cut = 0; cut < buf.length; cut++) {
    assert.equal(decodeRecord(buf.subarray(0, cut), 0, 0).kind, 'incomplete', `cut at ${cut}`);
  }
  assert.equal(decodeRecord(buf, 0, 0).kind, 'record');
});

test('a flipped bit anywhere is detected', () => {
  const buf = encodeRecord(ENTRY);
  for (let i = 0; i < buf.length; i++) {
    for (const bit of [0x01, 0x80]) {
      const damaged = Buffer.from(buf);
      damaged[i]! ^= bit;
      const result = decodeRecord(damaged, 0, 0);
      // A flip in the length field may make the record look longer than the bytes at hand.
      assert.ok(result.kind === 'bad' || (result.kind === 'incomplete' && i >= 4 && i < 8), `flip ${bit} at byte ${i}: ${result.kind}`);
    }
  }
});

test('impossible lengths and values are refused when encoding', () => {
  assert.throws(() => encodeRecord({ ...ENTRY, sequence: -1 }), /bad sequence/);
  assert.throws(() => encodeRecord({ ...ENTRY, count: 2 ** 32 }), /bad count/);
});
