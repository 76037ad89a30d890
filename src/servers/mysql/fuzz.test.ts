/** Random and mutated input: decoders throw MysqlProtocolError, nothing else (no crash, no hang). */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  decodeHandshakeResponse41,
  encodeHandshakeResponse41,
} from './handshake.js';
import { decodeCommand, encodeStmtExecute, MysqlType, type BoundParam } from './messages.js';
import { MAX_PACKET_PAYLOAD, MysqlProtocolError, PacketReader, writePacket } from './packet.js';

function onlyProtocolErrors(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof MysqlProtocolError, `unexpected ${String(e)}`);
  }
}

/** A deterministic byte source (xorshift), so failures reproduce. */
function rng(seed: number): (n: number) => Buffer {
  let x = seed >>> 0 || 1;
  return (n) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      b[i] = x & 0xff;
    }
    return b;
  };
}

describe('mysql codec robustness', () => {
  test('random command payloads decode or throw MysqlProtocolError', () => {
    const bytes = rng(42);
    for (let i = 0; i < 5000; i++) {
      const p = bytes(1 + (i % 64));
      p[0] = [0x01, 0x02, 0x03, 0x04, 0x0e, 0x16, 0x17, 0x18, 0x19, 0x1a][i % 10]!;
      onlyProtocolErrors(() => decodeCommand(p, () => ({ paramCount: 1 + (i % 5) })));
    }
  });

  test('every byte flip of a COM_STMT_EXECUTE decodes or throws MysqlProtocolError', () => {
    const params: BoundParam[] = [
      { type: { type: MysqlType.LONGLONG, unsigned: false }, value: 5n },
      { type: { type: MysqlType.VAR_STRING, unsigned: false }, value: 'abc' },
      {
        type: { type: MysqlType.DATETIME, unsigned: false },
        value: { kind: 'datetime', year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, microsecond: 6 },
      },
    ];
    const good = encodeStmtExecute(1, params);
    for (let i = 0; i < good.length; i++) {
      for (const v of [0x00, 0xfb, 0xfc, 0xfe, 0xff]) {
        const bad = Buffer.from(good);
        bad[i] = v;
        onlyProtocolErrors(() => decodeCommand(bad, () => ({ paramCount: 3 })));
      }
    }
  });

  test('random and truncated handshake responses decode or throw MysqlProtocolError', () => {
    const caps =
      CLIENT_PROTOCOL_41 |
      CLIENT_SECURE_CONNECTION |
      CLIENT_PLUGIN_AUTH |
      CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
      CLIENT_CONNECT_ATTRS |
      CLIENT_CONNECT_WITH_DB;
    const good = encodeHandshakeResponse41({
      capabilities: caps,
      maxPacketSize: 1 << 24,
      charset: 45,
      user: 'root',
      authResponse: crypto.randomBytes(20),
      database: 'db',
      authPluginName: 'mysql_native_password',
      connectAttributes: new Map([['_os', 'Linux']]),
    });
    for (let cut = 0; cut <= good.length; cut++) onlyProtocolErrors(() => decodeHandshakeResponse41(good.subarray(0, cut)));
    const bytes = rng(7);
    for (let i = 0; i < 2000; i++) {
      const p = bytes(32 + (i % 80));
      p.writeUInt32LE((p.readUInt32LE(0) | CLIENT_PROTOCOL_41) >>> 0, 0);
      onlyProtocolErrors(() => decodeHandshakeResponse41(p));
    }
  });

  test('a large payload arriving in 64 KiB pieces is joined in linear time', () => {
    const payload = crypto.randomBytes(2 * MAX_PACKET_PAYLOAD + 10);
    const framed = writePacket(payload, 0);
    const reader = new PacketReader({ maxPayloadSize: 64 * 1024 * 1024 });
    const got: Buffer[] = [];
    const started = Date.now();
    for (let i = 0; i < framed.length; i += 65536) reader.push(framed.subarray(i, i + 65536), (p) => got.push(p));
    assert.equal(got.length, 1);
    assert.ok(got[0]!.equals(payload));
    assert.ok(Date.now() - started < 5000, 'too slow');
  });
});
