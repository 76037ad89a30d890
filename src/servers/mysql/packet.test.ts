import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  encodeLenEncInt,
  MAX_PACKET_PAYLOAD,
  MysqlProtocolError,
  PacketReader,
  PacketTooLargeError,
  packetCount,
  PayloadReader,
  PayloadWriter,
  writePacket,
} from './packet.js';
import { assertEverySplit, hex, readAll } from '../../../test/support/mysql-packets.js';

describe('mysql packet framing', () => {
  test('writePacket frames a payload with length and sequence id', () => {
    assert.deepEqual(writePacket(Buffer.from([0x0e]), 0), hex('01 00 00 00 0e'));
    assert.deepEqual(writePacket(Buffer.from('abc'), 255), hex('03 00 00 ff 61 62 63'));
    assert.deepEqual(writePacket(Buffer.alloc(0), 7), hex('00 00 00 07'));
  });

  test('PacketReader reads a COM_QUERY fixture split at every offset and byte by byte', () => {
    const fixture = hex('09 00 00 00  03 53 45 4c 45 43 54 20 31'); // COM_QUERY "SELECT 1"
    for (let i = 0; i <= fixture.length; i++) {
      const got = readAll([fixture.subarray(0, i), fixture.subarray(i)]);
      assert.deepEqual(got, [{ payload: hex('03 53 45 4c 45 43 54 20 31'), seq: 0 }]);
    }
    assert.equal(readAll([...fixture].map((b) => Buffer.from([b]))).length, 1);
  });

  test('PacketReader delivers several packets of one chunk in order with their sequence ids', () => {
    const stream = Buffer.concat([writePacket(Buffer.from('a'), 1), writePacket(Buffer.from('bc'), 2), writePacket(Buffer.alloc(0), 3)]);
    for (let i = 0; i <= stream.length; i++) {
      const got = readAll([stream.subarray(0, i), stream.subarray(i)]);
      assert.deepEqual(
        got.map((g) => [g.payload.toString(), g.seq]),
        [
          ['a', 1],
          ['bc', 2],
          ['', 3],
        ],
      );
    }
  });

  test('payloads of 0xffffff bytes continue in the next packet and are joined', () => {
    for (const size of [MAX_PACKET_PAYLOAD - 1, MAX_PACKET_PAYLOAD, MAX_PACKET_PAYLOAD + 5, 2 * MAX_PACKET_PAYLOAD]) {
      const payload = Buffer.alloc(size, 0x61);
      payload[0] = 1;
      payload[size - 1] = 2;
      const framed = writePacket(payload, 254);
      assert.equal(framed.length, size + 4 * packetCount(size));
      // Headers: full packets of 0xffffff, then a shorter (possibly empty) one; ids wrap at 256.
      if (size >= MAX_PACKET_PAYLOAD) {
        assert.deepEqual(framed.subarray(0, 4), hex('ff ff ff fe'));
        assert.equal(framed[MAX_PACKET_PAYLOAD + 4 + 3], 255);
      }
      const got = readAll([framed.subarray(0, 100), framed.subarray(100, MAX_PACKET_PAYLOAD + 6), framed.subarray(MAX_PACKET_PAYLOAD + 6)]);
      assert.equal(got.length, 1);
      assert.equal(got[0]!.payload.length, size);
      assert.ok(got[0]!.payload.equals(payload));
      assert.equal(got[0]!.seq, (254 + packetCount(size) - 1) & 0xff);
    }
  });

  test('a continuation with a wrong sequence id is a protocol error', () => {
    const first = Buffer.concat([hex('ff ff ff 00'), Buffer.alloc(MAX_PACKET_PAYLOAD)]);
    const reader = new PacketReader();
    reader.push(first, () => assert.fail('no payload yet'));
    assert.throws(() => reader.push(hex('00 00 00 05'), () => {}), MysqlProtocolError);
  });

  test('oversized payloads are rejected from their header, before the body arrives', () => {
    const reader = new PacketReader({ maxPayloadSize: 16 });
    reader.push(writePacket(Buffer.alloc(16), 0), (p) => assert.equal(p.length, 16));
    assert.throws(
      () => reader.push(hex('11 00 00 01'), () => {}),
      (e: unknown) => e instanceof MysqlProtocolError && /too large/.test(e.message),
    );
    // Joined continuations count too.
    const big = new PacketReader({ maxPayloadSize: MAX_PACKET_PAYLOAD + 1 });
    big.push(Buffer.concat([hex('ff ff ff 00'), Buffer.alloc(MAX_PACKET_PAYLOAD)]), () => {});
    assert.throws(() => big.push(hex('02 00 00 01'), () => {}), MysqlProtocolError);
  });

  test('setMaxPayloadSize raises the limit from the next header on (a login limit, then max_allowed_packet)', () => {
    const reader = new PacketReader({ maxPayloadSize: 16 });
    assert.throws(
      () => reader.push(hex('00 00 01 01'), () => {}),
      (e: unknown) => e instanceof PacketTooLargeError && e.seq === 1 && e.limit === 16,
    );
    const raised = new PacketReader({ maxPayloadSize: 16 });
    raised.push(writePacket(Buffer.alloc(16), 1), () => {});
    raised.setMaxPayloadSize(1024);
    let got = 0;
    raised.push(writePacket(Buffer.alloc(1000), 0), (p) => (got = p.length));
    assert.equal(got, 1000);
  });

  test('takeRest after an SSLRequest hands over the TLS bytes that followed it, split at every offset', () => {
    // SSLRequest (seq 1: CLIENT_SSL | CLIENT_PROTOCOL_41 …, max packet 16 MiB, utf8mb4), then the start of a TLS record.
    const sslRequest = hex('20 00 00 01  00 0a 00 00  00 00 00 01  2d' + ' 00'.repeat(23));
    const tls = hex('16 03 01 00 05  01 02 03 04 05');
    const stream = Buffer.concat([sslRequest, tls]);
    for (let i = 0; i <= stream.length; i++) {
      const reader = new PacketReader();
      const payloads: Buffer[] = [];
      let rest: Buffer[] | undefined;
      for (const piece of [stream.subarray(0, i), stream.subarray(i)]) {
        if (rest !== undefined) rest.push(piece); // the connection's TLS socket gets what comes next
        else reader.push(piece, (p) => (payloads.push(p), (rest = [reader.takeRest()])));
      }
      assert.deepEqual(payloads, [sslRequest.subarray(4)], `split at ${i}`);
      assert.deepEqual(Buffer.concat(rest ?? []), tls, `split at ${i}`);
      assert.equal(reader.buffered, 0);
    }
  });

  test('assertEverySplit helper round-trips a payload', () => {
    assertEverySplit(Buffer.from('hello'), 3);
  });
});

describe('mysql payload data types', () => {
  const cases: Array<[number | bigint, string]> = [
    [0, '00'],
    [250, 'fa'],
    [251, 'fc fb 00'],
    [0xffff, 'fc ff ff'],
    [0x10000, 'fd 00 00 01'],
    [0xffffff, 'fd ff ff ff'],
    [0x1000000, 'fe 00 00 00 01 00 00 00 00'],
    [2n ** 64n - 1n, 'fe ff ff ff ff ff ff ff ff'],
  ];
  for (const [value, bytes] of cases) {
    test(`length-encoded integer ${value} <-> ${bytes}`, () => {
      assert.deepEqual(encodeLenEncInt(value), hex(bytes));
      const got = new PayloadReader(hex(bytes)).lenEncInt();
      assert.equal(BigInt(got!), BigInt(value));
    });
  }

  test('length-encoded integer 0xfb reads as NULL and 0xff is malformed', () => {
    assert.equal(new PayloadReader(hex('fb')).lenEncInt(), null);
    assert.throws(() => new PayloadReader(hex('ff')).lenEncInt(), MysqlProtocolError);
    assert.throws(() => new PayloadReader(hex('fc 01')).lenEncInt(), MysqlProtocolError);
    assert.throws(() => encodeLenEncInt(-1), RangeError);
  });

  test('length-encoded and NUL-terminated strings round trip', () => {
    const long = 'x'.repeat(300);
    const b = new PayloadWriter().lenEncString('héllo').nulString('root').lenEncString(long).lenEncString('').eofString('rest').finish();
    assert.deepEqual(b.subarray(0, 7), hex('06 68 c3 a9 6c 6c 6f'));
    const r = new PayloadReader(b);
    assert.equal(r.lenEncString(), 'héllo');
    assert.equal(r.nulString(), 'root');
    assert.equal(r.lenEncString(), long);
    assert.equal(r.lenEncString(), '');
    assert.equal(r.rest().toString(), 'rest');
    assert.equal(r.remaining, 0);
  });

  test('reading past the end or an unterminated string is a protocol error', () => {
    assert.throws(() => new PayloadReader(hex('05 61 62')).lenEncString(), MysqlProtocolError);
    assert.throws(() => new PayloadReader(hex('61 62')).nulString(), MysqlProtocolError);
    assert.throws(() => new PayloadReader(hex('01 02 03')).u32(), MysqlProtocolError);
    assert.throws(() => new PayloadWriter().nulString('a\0b'), RangeError);
  });
});
