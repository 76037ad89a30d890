import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_MULTI_RESULTS,
  CLIENT_MULTI_STATEMENTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_PS_MULTI_RESULTS,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
  decodeAuthSwitchRequest,
  decodeHandshakeResponse41,
  decodeHandshakeV10,
  decodeSslRequest,
  encodeHandshakeResponse41,
  encodeHandshakeV10,
  encodeSslRequest,
  generateScramble,
  isSslRequest,
  MYSQL_NATIVE_PASSWORD,
  nativePasswordAuthSwitch,
  nativePasswordHashStage2,
  nativePasswordToken,
  needsAuthSwitch,
  negotiateCapabilities,
  serverCapabilities,
  serverVersion,
  verifyNativePassword,
  type HandshakeResponse41,
} from './handshake.js';
import { MysqlProtocolError } from './packet.js';
import { assertEverySplit, hex } from '../../../test/support/mysql-packets.js';

const SCRAMBLE = hex('01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14');

const HANDSHAKE_V10 = hex(`
  0a                                               # protocol version 10
  38 2e 34 2e 32 2d 74 73 64 62 2d 30 2e 31 2e 30 00 # "8.4.2-tsdb-0.1.0"
  07 00 00 00                                      # connection id 7
  01 02 03 04 05 06 07 08 00                       # scramble[0..8], filler
  1f f7                                            # capabilities, lower 16 bits
  2d                                               # utf8mb4_general_ci
  02 00                                            # SERVER_STATUS_AUTOCOMMIT
  3f 01                                            # capabilities, upper 16 bits
  15                                               # auth data length 21
  00 00 00 00 00 00 00 00 00 00                    # reserved
  09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 00           # scramble[8..20], NUL
  6d 79 73 71 6c 5f 6e 61 74 69 76 65 5f 70 61 73 73 77 6f 72 64 00 # mysql_native_password
`);

/** What `mysql -u root -pp@ss metrics` (libmariadb) sends for password `p@ss` and SCRAMBLE. */
const CLI_RESPONSE = hex(`
  8d a6 3f 01              # capabilities 0x013fa68d
  00 00 00 01              # max packet 16 MiB
  2d                       # utf8mb4_general_ci
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  72 6f 6f 74 00           # "root"
  14 04 c0 31 69 e7 35 38 64 71 d6 30 32 22 c6 5f b5 ec 29 7c f9 # auth response (lenenc)
  6d 65 74 72 69 63 73 00  # database "metrics"
  6d 79 73 71 6c 5f 6e 61 74 69 76 65 5f 70 61 73 73 77 6f 72 64 00
  35                       # attributes, 53 bytes
  0c 5f 63 6c 69 65 6e 74 5f 6e 61 6d 65 0a 6c 69 62 6d 61 72 69 61 64 62 # _client_name libmariadb
  03 5f 6f 73 05 4c 69 6e 75 78                                             # _os Linux
  0c 70 72 6f 67 72 61 6d 5f 6e 61 6d 65 05 6d 79 73 71 6c                # program_name mysql
`);

const SSL_REQUEST = hex(`
  8d ae 3f 01 00 00 00 01 2d
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
`);

describe('mysql handshake', () => {
  test('server version follows the reference: MySQL version, then tsdb version', () => {
    assert.equal(serverVersion('0.1.0'), '8.4.2-tsdb-0.1.0');
    assert.equal(serverVersion('0.1.0', '8.0.36'), '8.0.36-tsdb-0.1.0');
  });

  test('server capabilities include the required flags; CLIENT_SSL only when asked', () => {
    const caps = serverCapabilities();
    for (const f of [
      CLIENT_PROTOCOL_41,
      CLIENT_SECURE_CONNECTION,
      CLIENT_PLUGIN_AUTH,
      CLIENT_CONNECT_WITH_DB,
      CLIENT_DEPRECATE_EOF,
      CLIENT_MULTI_STATEMENTS,
      CLIENT_MULTI_RESULTS,
      CLIENT_PS_MULTI_RESULTS,
    ]) {
      assert.ok(caps & f, `flag 0x${f.toString(16)}`);
    }
    assert.equal(caps & CLIENT_SSL, 0);
    assert.ok(serverCapabilities({ ssl: true }) & CLIENT_SSL);
  });

  test('HandshakeV10 encodes to the fixture and decodes back', () => {
    const h = {
      serverVersion: '8.4.2-tsdb-0.1.0',
      connectionId: 7,
      scramble: SCRAMBLE,
      capabilities: serverCapabilities(),
      charset: 45,
      statusFlags: 2,
      authPluginName: MYSQL_NATIVE_PASSWORD,
    };
    assert.deepEqual(encodeHandshakeV10(h), HANDSHAKE_V10);
    assert.deepEqual(decodeHandshakeV10(assertEverySplit(HANDSHAKE_V10)), h);
    const ssl = encodeHandshakeV10({ ...h, capabilities: serverCapabilities({ ssl: true }) });
    assert.deepEqual(ssl.subarray(31, 33), hex('1f ff'));
  });

  test('generated scrambles are 20 bytes without NUL or $', () => {
    for (let i = 0; i < 50; i++) {
      const s = generateScramble();
      assert.equal(s.length, 20);
      assert.ok(!s.includes(0) && !s.includes(0x24) && s.every((b) => b < 0x80));
    }
    assert.notDeepEqual(generateScramble(), generateScramble());
  });

  test('the mysql CLI handshake response decodes (split at every offset)', () => {
    const r = decodeHandshakeResponse41(assertEverySplit(CLI_RESPONSE, 1));
    assert.equal(r.capabilities, 0x013fa68d);
    assert.equal(r.maxPacketSize, 16 * 1024 * 1024);
    assert.equal(r.charset, 45);
    assert.equal(r.user, 'root');
    assert.deepEqual(r.authResponse, hex('04c03169e735386471d6303222c65fb5ec297cf9'));
    assert.equal(r.database, 'metrics');
    assert.equal(r.authPluginName, MYSQL_NATIVE_PASSWORD);
    assert.deepEqual(
      [...r.connectAttributes],
      [
        ['_client_name', 'libmariadb'],
        ['_os', 'Linux'],
        ['program_name', 'mysql'],
      ],
    );
    assert.ok(verifyNativePassword(SCRAMBLE, r.authResponse, { kind: 'plain', password: 'p@ss' }));
    assert.deepEqual(encodeHandshakeResponse41(r), CLI_RESPONSE);
  });

  test('handshake responses round trip with each auth-response encoding', () => {
    const base: HandshakeResponse41 = {
      capabilities: CLIENT_PROTOCOL_41,
      maxPacketSize: 0,
      charset: 33,
      user: 'u',
      authResponse: Buffer.from('secret'),
      database: undefined,
      authPluginName: undefined,
      connectAttributes: new Map(),
    };
    for (const caps of [
      CLIENT_PROTOCOL_41,
      CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION,
      CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CLIENT_CONNECT_WITH_DB,
      CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_ATTRS | CLIENT_CONNECT_WITH_DB,
    ]) {
      const res: HandshakeResponse41 = {
        ...base,
        capabilities: caps,
        database: caps & CLIENT_CONNECT_WITH_DB ? 'db' : undefined,
        authPluginName: caps & CLIENT_PLUGIN_AUTH ? 'mysql_native_password' : undefined,
        connectAttributes: caps & CLIENT_CONNECT_ATTRS ? new Map([['k', 'v'.repeat(300)]]) : new Map(),
      };
      const bytes = encodeHandshakeResponse41(res);
      assert.deepEqual(decodeHandshakeResponse41(assertEverySplit(bytes)), res);
    }
  });

  test('a response without CLIENT_PROTOCOL_41 or truncated is a protocol error', () => {
    const old = Buffer.from(CLI_RESPONSE);
    old[1] = old[1]! & ~0x02;
    assert.throws(() => decodeHandshakeResponse41(old), MysqlProtocolError);
    for (const cut of [3, 10, 35, 40, 60]) {
      assert.throws(() => decodeHandshakeResponse41(CLI_RESPONSE.subarray(0, cut)), MysqlProtocolError, `cut at ${cut}`);
    }
  });

  test('SSLRequest is detected and round trips; a full response is not one', () => {
    assert.ok(isSslRequest(assertEverySplit(SSL_REQUEST, 1)));
    assert.ok(!isSslRequest(CLI_RESPONSE));
    const req = decodeSslRequest(SSL_REQUEST);
    assert.deepEqual(req, { capabilities: 0x013fae8d, maxPacketSize: 16 * 1024 * 1024, charset: 45 });
    assert.deepEqual(encodeSslRequest(req), SSL_REQUEST);
  });

  test('AuthSwitchRequest for mysql_native_password', () => {
    const bytes = nativePasswordAuthSwitch(SCRAMBLE);
    assert.deepEqual(
      bytes,
      hex(`fe 6d 79 73 71 6c 5f 6e 61 74 69 76 65 5f 70 61 73 73 77 6f 72 64 00
           01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 00`),
    );
    assert.deepEqual(decodeAuthSwitchRequest(assertEverySplit(bytes, 2)), {
      pluginName: MYSQL_NATIVE_PASSWORD,
      pluginData: Buffer.concat([SCRAMBLE, Buffer.from([0])]),
    });
  });
});

describe('mysql_native_password', () => {
  const sha1 = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), crypto.createHash('sha1')).digest();
  /** The client side, computed independently: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))). */
  const clientToken = (password: string, scramble: Buffer) => {
    const s1 = sha1(Buffer.from(password));
    const t = sha1(scramble, sha1(s1));
    return Buffer.from(s1.map((b, i) => b ^ t[i]!));
  };

  test('known vector: password p@ss, scramble 01..14', () => {
    assert.deepEqual(clientToken('p@ss', SCRAMBLE), hex('04c03169e735386471d6303222c65fb5ec297cf9'));
    assert.deepEqual(nativePasswordToken('p@ss', SCRAMBLE), clientToken('p@ss', SCRAMBLE));
    assert.deepEqual(nativePasswordHashStage2('p@ss'), hex('59368cef8d8a24a74bd85e07af8596a896564a9e'));
  });

  test('accepts the right password against a plain or a SHA1(SHA1) verifier, rejects others', () => {
    for (const password of ['p@ss', 'päßwörd', 'x'.repeat(100)]) {
      const scramble = generateScramble();
      const token = clientToken(password, scramble);
      const stage2 = sha1(sha1(Buffer.from(password)));
      assert.ok(verifyNativePassword(scramble, token, { kind: 'plain', password }));
      assert.ok(verifyNativePassword(scramble, token, { kind: 'mysql_native_password', hashStage2: stage2 }));
      assert.ok(!verifyNativePassword(scramble, token, { kind: 'plain', password: password + '!' }));
      assert.ok(!verifyNativePassword(scramble, clientToken('wrong', scramble), { kind: 'mysql_native_password', hashStage2: stage2 }));
      assert.ok(!verifyNativePassword(generateScramble(), token, { kind: 'mysql_native_password', hashStage2: stage2 }));
      assert.ok(!verifyNativePassword(scramble, token.subarray(0, 19), { kind: 'plain', password }));
      assert.ok(!verifyNativePassword(scramble, Buffer.alloc(0), { kind: 'mysql_native_password', hashStage2: stage2 }));
    }
  });

  test('an empty response never matches a non-empty password', () => {
    assert.deepEqual(nativePasswordToken('', SCRAMBLE), Buffer.alloc(0));
    assert.ok(!verifyNativePassword(SCRAMBLE, Buffer.alloc(0), { kind: 'plain', password: 'p' }));
  });
});

describe('mysql auth negotiation', () => {
  const base: HandshakeResponse41 = {
    capabilities: CLIENT_PROTOCOL_41,
    maxPacketSize: 0,
    charset: 45,
    user: 'u',
    authResponse: Buffer.alloc(20),
    database: undefined,
    authPluginName: MYSQL_NATIVE_PASSWORD,
    connectAttributes: new Map(),
  };

  test('a client answering with caching_sha2_password is switched to mysql_native_password', () => {
    assert.ok(needsAuthSwitch({ ...base, authPluginName: 'caching_sha2_password', authResponse: Buffer.alloc(32) }));
    assert.ok(!needsAuthSwitch(base));
    assert.ok(!needsAuthSwitch({ ...base, authPluginName: undefined }));
    assert.ok(!needsAuthSwitch({ ...base, authResponse: Buffer.alloc(0) }));
    assert.ok(needsAuthSwitch({ ...base, authResponse: Buffer.alloc(8) }));
  });

  test('capabilities in force are the intersection', () => {
    assert.equal(negotiateCapabilities(serverCapabilities(), 0x013fa68d), 0x013fa60d);
  });
});
