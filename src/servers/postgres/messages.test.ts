import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MessageReader,
  authenticationCleartextPassword,
  authenticationOk,
  authenticationSASL,
  authenticationSASLContinue,
  authenticationSASLFinal,
  backendKeyData,
  bindComplete,
  closeComplete,
  commandComplete,
  dataRow,
  emptyQueryResponse,
  errorResponse,
  negotiateProtocolVersion,
  noData,
  noticeResponse,
  parameterDescription,
  parameterStatus,
  parseComplete,
  portalSuspended,
  readyForQuery,
  rowDescription,
  sslResponse,
  type AuthResponseKind,
  type FrontendMessage,
} from './messages.js';
import { PgWireError } from './pg-error.js';

// Byte builders written from the protocol documentation, independent of the code under test.
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const i16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const cstr = (s: string): Buffer => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
/** Typed message: type byte, Int32 length (itself + body), body. */
const typed = (type: string, ...body: Buffer[]): Buffer => {
  const b = Buffer.concat(body);
  return Buffer.concat([Buffer.from(type, 'latin1'), i32(b.length + 4), b]);
};
/** Untyped startup packet: Int32 length (itself + body), body. */
const untyped = (...body: Buffer[]): Buffer => {
  const b = Buffer.concat(body);
  return Buffer.concat([i32(b.length + 4), b]);
};

const psqlStartup = untyped(
  i32(196608),
  cstr('user'),
  cstr('alice'),
  cstr('database'),
  cstr('public'),
  cstr('application_name'),
  cstr('psql'),
  cstr('client_encoding'),
  cstr('UTF8'),
  Buffer.from([0]),
);

const psqlStartupMessage: FrontendMessage = {
  type: 'StartupMessage',
  majorVersion: 3,
  minorVersion: 0,
  parameters: new Map([
    ['user', 'alice'],
    ['database', 'public'],
    ['application_name', 'psql'],
    ['client_encoding', 'UTF8'],
  ]),
};

/** libpq's PQexecParams("SELECT $1::int4, $2", binary int4 42, NULL; binary results). */
const extendedQuery = Buffer.concat([
  typed('P', cstr(''), cstr('SELECT $1::int4, $2'), i16(2), i32(23), i32(0)),
  typed('B', cstr(''), cstr(''), i16(2), i16(1), i16(0), i16(2), i32(4), i32(42), i32(-1), i16(1), i16(1)),
  typed('D', Buffer.from('P'), cstr('')),
  typed('E', cstr(''), i32(0)),
  typed('S'),
]);

const extendedQueryMessages: FrontendMessage[] = [
  { type: 'Parse', name: '', query: 'SELECT $1::int4, $2', paramTypes: [23, 0] },
  {
    type: 'Bind',
    portal: '',
    statement: '',
    paramFormats: [1, 0],
    params: [i32(42), null],
    resultFormats: [1],
  },
  { type: 'Describe', kind: 'P', name: '' },
  { type: 'Execute', portal: '', maxRows: 0 },
  { type: 'Sync' },
];

const otherTyped = Buffer.concat([
  typed('Q', cstr('SELECT 1; SELECT \'é\'')),
  typed('P', cstr('s1'), cstr('INSERT INTO t VALUES ($1)'), i16(0)),
  typed('B', cstr('p1'), cstr('s1'), i16(0), i16(1), i32(3), Buffer.from('abc'), i16(0)),
  typed('D', Buffer.from('S'), cstr('s1')),
  typed('E', cstr('p1'), i32(100)),
  typed('H'),
  typed('C', Buffer.from('S'), cstr('s1')),
  typed('C', Buffer.from('P'), cstr('p1')),
  typed('d', Buffer.from([1, 2, 3])),
  typed('c'),
  typed('f', cstr('aborted')),
  typed('F', i32(1598), i16(1), i16(1), i16(1), i32(2), i16(7), i16(1)),
  typed('X'),
]);

const otherTypedMessages: FrontendMessage[] = [
  { type: 'Query', query: "SELECT 1; SELECT 'é'" },
  { type: 'Parse', name: 's1', query: 'INSERT INTO t VALUES ($1)', paramTypes: [] },
  { type: 'Bind', portal: 'p1', statement: 's1', paramFormats: [], params: [Buffer.from('abc')], resultFormats: [] },
  { type: 'Describe', kind: 'S', name: 's1' },
  { type: 'Execute', portal: 'p1', maxRows: 100 },
  { type: 'Flush' },
  { type: 'Close', kind: 'S', name: 's1' },
  { type: 'Close', kind: 'P', name: 'p1' },
  { type: 'CopyData', data: Buffer.from([1, 2, 3]) },
  { type: 'CopyDone' },
  { type: 'CopyFail', message: 'aborted' },
  { type: 'FunctionCall', functionOid: 1598, argFormats: [1], args: [Buffer.from([0, 7])], resultFormat: 1 },
  { type: 'Terminate' },
];

/** Reads `stream` fed in the given pieces, from the typed phase if `typedPhase`. */
function readPieces(pieces: Buffer[], typedPhase: boolean, auth?: AuthResponseKind): FrontendMessage[] {
  const r = new MessageReader();
  if (typedPhase) r.read(psqlStartup);
  r.expectAuthResponse(auth);
  const out: FrontendMessage[] = [];
  for (const p of pieces) r.feed(p, (m) => out.push(m));
  assert.equal(r.pendingBytes, 0);
  return out;
}

/** Checks the stream read whole, split at every offset (and at two offsets), and byte by byte. */
function checkAllSplits(stream: Buffer, expected: FrontendMessage[], typedPhase: boolean, auth?: AuthResponseKind): void {
  assert.deepEqual(readPieces([stream], typedPhase, auth), expected);
  for (let i = 0; i <= stream.length; i++) {
    assert.deepEqual(readPieces([stream.subarray(0, i), stream.subarray(i)], typedPhase, auth), expected, `split at ${i}`);
  }
  for (let i = 0; i < stream.length; i += 3) {
    const j = Math.min(stream.length, i + 7);
    assert.deepEqual(readPieces([stream.subarray(0, i), stream.subarray(i, j), stream.subarray(j)], typedPhase, auth), expected);
  }
  const bytes = [...stream].map((b) => Buffer.from([b]));
  assert.deepEqual(readPieces(bytes, typedPhase, auth), expected, 'byte by byte');
}

function assertProtocolError(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PgWireError, String(err));
    assert.equal(err.sqlstate, '08P01');
    assert.equal(err.fatal, true);
    assert.match(err.message, re);
    return true;
  });
}

describe('MessageReader: startup phase', () => {
  test('psql startup with user, database, application_name, client_encoding at every split', () => {
    checkAllSplits(psqlStartup, [psqlStartupMessage], false);
  });

  test('SSLRequest then StartupMessage (the client retries after N) at every split', () => {
    const stream = Buffer.concat([untyped(i32(80877103)), psqlStartup, typed('Q', cstr('SELECT 1'))]);
    checkAllSplits(stream, [{ type: 'SSLRequest' }, psqlStartupMessage, { type: 'Query', query: 'SELECT 1' }], false);
  });

  test('GSSENCRequest and CancelRequest', () => {
    const r = new MessageReader();
    assert.deepEqual(r.read(untyped(i32(80877104))), [{ type: 'GSSENCRequest' }]);
    assert.ok(r.inStartupPhase);
    assert.deepEqual(r.read(untyped(i32(80877102), i32(1234), i32(-5))), [{ type: 'CancelRequest', processId: 1234, secretKey: -5 }]);
    assert.ok(r.inStartupPhase);
  });

  test('startup options and TimeZone, and protocol 3.2 reported as such', () => {
    const r = new MessageReader();
    const [m] = r.read(untyped(i32((3 << 16) | 2), cstr('user'), cstr('u'), cstr('options'), cstr('-c search_path=x'), cstr('TimeZone'), cstr('Asia/Shanghai'), Buffer.from([0])));
    assert.deepEqual(m, {
      type: 'StartupMessage',
      majorVersion: 3,
      minorVersion: 2,
      parameters: new Map([
        ['user', 'u'],
        ['options', '-c search_path=x'],
        ['TimeZone', 'Asia/Shanghai'],
      ]),
    });
    assert.equal(r.inStartupPhase, false);
  });

  test('while an authentication response is expected, a message over 65,535 bytes is refused from its header', () => {
    const r = new MessageReader();
    r.read(psqlStartup);
    r.expectAuthResponse('sasl-initial');
    assertProtocolError(() => r.read(Buffer.concat([Buffer.from('p'), i32(16 * 1024 * 1024)])), /too large during authentication: 16777212 bytes \(maximum 65535\)/);
    // Once logged in, the ordinary limit applies again.
    const after = new MessageReader();
    after.read(psqlStartup);
    after.expectAuthResponse('password');
    after.expectAuthResponse(undefined);
    assert.deepEqual(after.read(typed('Q', cstr('x'.repeat(70_000)))), [{ type: 'Query', query: 'x'.repeat(70_000) }]);
  });

  const damaged: Array<[string, Buffer, RegExp]> = [
    ['length below 8', Buffer.concat([i32(7), i32(196608)]), /invalid length of startup packet/],
    ['negative length', i32(-1), /invalid length of startup packet/],
    ['longer than the startup maximum', i32(10_001), /invalid length of startup packet/],
    ['protocol 2.0', untyped(i32(2 << 16), Buffer.from([0])), /unsupported frontend protocol 2\.0/],
    ['SSLRequest with a body', untyped(i32(80877103), i32(0)), /unexpected bytes/],
    ['CancelRequest too short', untyped(i32(80877102), i32(1)), /insufficient data/],
    ['parameters without terminator', untyped(i32(196608), cstr('user'), cstr('u')), /invalid string/],
    ['value missing', untyped(i32(196608), cstr('user'), Buffer.from('u')), /invalid string/],
    ['bytes after the terminator', untyped(i32(196608), cstr('user'), cstr('u'), Buffer.from([0, 1])), /unexpected bytes/],
  ];
  for (const [name, bytes, re] of damaged) {
    test(`malformed startup packet: ${name}`, () => {
      const r = new MessageReader();
      assertProtocolError(() => r.read(bytes), re);
      // The reader stays failed.
      assertProtocolError(() => r.read(psqlStartup), re);
    });
  }
});

describe('MessageReader: typed messages', () => {
  test('extended query as libpq sends it (Parse/Bind/Describe/Execute/Sync) at every split', () => {
    checkAllSplits(extendedQuery, extendedQueryMessages, true);
  });

  test('Query, Close, Flush, Copy*, FunctionCall, Terminate at every split', () => {
    checkAllSplits(otherTyped, otherTypedMessages, true);
  });

  test('startup and typed messages in one stream at every split', () => {
    checkAllSplits(Buffer.concat([psqlStartup, extendedQuery]), [psqlStartupMessage, ...extendedQueryMessages], false);
  });

  test('PasswordMessage, SASLInitialResponse and SASLResponse as told', () => {
    checkAllSplits(typed('p', cstr('secret')), [{ type: 'PasswordMessage', password: 'secret' }], true, 'password');
    const first = Buffer.from('n,,n=,r=abc');
    checkAllSplits(
      typed('p', cstr('SCRAM-SHA-256'), i32(first.length), first),
      [{ type: 'SASLInitialResponse', mechanism: 'SCRAM-SHA-256', data: first }],
      true,
      'sasl-initial',
    );
    checkAllSplits(typed('p', cstr('SCRAM-SHA-256'), i32(-1)), [{ type: 'SASLInitialResponse', mechanism: 'SCRAM-SHA-256', data: null }], true, 'sasl-initial');
    checkAllSplits(typed('p', Buffer.from('c=biws,r=x,p=y')), [{ type: 'SASLResponse', data: Buffer.from('c=biws,r=x,p=y') }], true, 'sasl');
  });

  test('the callback switches the expected authentication response between messages of one chunk', () => {
    const first = Buffer.from('n,,n=,r=abc');
    const stream = Buffer.concat([typed('p', cstr('SCRAM-SHA-256'), i32(first.length), first), typed('p', Buffer.from('final'))]);
    const r = new MessageReader();
    r.read(psqlStartup);
    r.expectAuthResponse('sasl-initial');
    const seen: FrontendMessage[] = [];
    r.feed(stream, (m) => {
      seen.push(m);
      r.expectAuthResponse('sasl');
    });
    assert.deepEqual(
      seen.map((m) => m.type),
      ['SASLInitialResponse', 'SASLResponse'],
    );
  });

  test('a password message without authentication in progress is a protocol error', () => {
    const r = new MessageReader();
    r.read(psqlStartup);
    assertProtocolError(() => r.read(typed('p', cstr('x'))), /unexpected password message/);
  });

  test('maximum message size: at the limit accepted, beyond it a protocol error before the body arrives', () => {
    const r = new MessageReader({ maxMessageSize: 16 });
    r.read(psqlStartup);
    assert.deepEqual(r.read(typed('Q', cstr('x'.repeat(15)))), [{ type: 'Query', query: 'x'.repeat(15) }]);
    // Only the header of a 1 GiB message: rejected at once.
    assertProtocolError(() => r.read(Buffer.concat([Buffer.from('Q'), i32(1 << 30)])), /too large: 1073741820 bytes \(maximum 16\)/);
    const r2 = new MessageReader({ maxMessageSize: 16 });
    r2.read(psqlStartup);
    assertProtocolError(() => r2.read(typed('Q', cstr('x'.repeat(16)))), /too large/);
  });

  const damaged: Array<[string, Buffer, RegExp]> = [
    ['unknown type byte', typed('z'), /invalid frontend message type 122/],
    ['unknown type byte alone', Buffer.from('z'), /invalid frontend message type 122/],
    ['length below 4', Buffer.concat([Buffer.from('Q'), i32(3)]), /invalid message length 3/],
    ['negative length', Buffer.concat([Buffer.from('S'), i32(-8)]), /invalid message length -8/],
    ['Sync with a body', typed('S', Buffer.from([0])), /unexpected bytes/],
    ['Query without NUL', typed('Q', Buffer.from('SELECT 1')), /invalid string/],
    ['Query with bytes after NUL', typed('Q', cstr('SELECT 1'), Buffer.from('x')), /unexpected bytes/],
    ['Parse with negative parameter count', typed('P', cstr(''), cstr('q'), i16(-1)), /negative count/],
    ['Parse with missing type OIDs', typed('P', cstr(''), cstr('q'), i16(2), i32(23)), /insufficient data/],
    ['Bind with value length beyond the message', typed('B', cstr(''), cstr(''), i16(0), i16(1), i32(10), Buffer.from('ab'), i16(0)), /insufficient data/],
    ['Bind with value length -2', typed('B', cstr(''), cstr(''), i16(0), i16(1), i32(-2), i16(0)), /invalid value length -2/],
    ['Bind with format code 2', typed('B', cstr(''), cstr(''), i16(1), i16(2), i16(0), i16(0)), /unsupported format code: 2/],
    ['Bind with 2 formats for 3 parameters', typed('B', cstr(''), cstr(''), i16(2), i16(0), i16(0), i16(3), i32(-1), i32(-1), i32(-1), i16(0)), /2 parameter formats but 3/],
    ['Bind without result formats', typed('B', cstr(''), cstr(''), i16(0), i16(0)), /insufficient data/],
    ['Describe of kind X', typed('D', Buffer.from('X'), cstr('')), /invalid DESCRIBE message subtype 88/],
    ['Close of kind X', typed('C', Buffer.from('X'), cstr('')), /invalid CLOSE message subtype 88/],
    ['Execute without row count', typed('E', cstr('')), /insufficient data/],
  ];
  for (const [name, bytes, re] of damaged) {
    test(`malformed typed message: ${name}`, () => {
      const r = new MessageReader();
      r.read(psqlStartup);
      assertProtocolError(() => r.read(bytes), re);
    });
  }

  test('SASLInitialResponse with a length beyond the message, or below -1', () => {
    for (const [bytes, re] of [
      [typed('p', cstr('SCRAM-SHA-256'), i32(5), Buffer.from('ab')), /insufficient data/],
      [typed('p', cstr('SCRAM-SHA-256'), i32(-2)), /invalid SASL initial response length -2/],
    ] as const) {
      const r = new MessageReader();
      r.read(psqlStartup);
      r.expectAuthResponse('sasl-initial');
      assertProtocolError(() => r.read(bytes), re);
    }
  });

  test('the reader copies what it keeps: reusing the fed buffer does not change messages', () => {
    const r = new MessageReader();
    r.read(psqlStartup);
    const chunk = Buffer.from(extendedQuery.subarray(0, 40));
    const out = r.read(chunk);
    chunk.fill(0);
    out.push(...r.read(extendedQuery.subarray(40)));
    assert.deepEqual(out, extendedQueryMessages);
  });
});

describe('backend encoders', () => {
  const cases: Array<[string, Buffer, Buffer]> = [
    ['AuthenticationOk', authenticationOk(), Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0])],
    ['AuthenticationCleartextPassword', authenticationCleartextPassword(), Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3])],
    ['AuthenticationSASL', authenticationSASL(['SCRAM-SHA-256']), typed('R', i32(10), cstr('SCRAM-SHA-256'), Buffer.from([0]))],
    ['AuthenticationSASL with two mechanisms', authenticationSASL(['SCRAM-SHA-256-PLUS', 'SCRAM-SHA-256']), typed('R', i32(10), cstr('SCRAM-SHA-256-PLUS'), cstr('SCRAM-SHA-256'), Buffer.from([0]))],
    ['AuthenticationSASLContinue', authenticationSASLContinue('r=abc,s=c2FsdA==,i=4096'), typed('R', i32(11), Buffer.from('r=abc,s=c2FsdA==,i=4096'))],
    ['AuthenticationSASLFinal', authenticationSASLFinal(Buffer.from('v=xyz')), typed('R', i32(12), Buffer.from('v=xyz'))],
    ['ParameterStatus', parameterStatus('server_version', '16.3-tsdb-0.1.0'), typed('S', cstr('server_version'), cstr('16.3-tsdb-0.1.0'))],
    ['BackendKeyData', backendKeyData(4242, -1), Buffer.from([0x4b, 0, 0, 0, 12, 0, 0, 0x10, 0x92, 0xff, 0xff, 0xff, 0xff])],
    ['ReadyForQuery I', readyForQuery('I'), Buffer.from([0x5a, 0, 0, 0, 5, 0x49])],
    ['ReadyForQuery T', readyForQuery('T'), Buffer.from('Z\0\0\0\x05T', 'latin1')],
    ['ReadyForQuery E', readyForQuery('E'), Buffer.from('Z\0\0\0\x05E', 'latin1')],
    [
      'RowDescription',
      rowDescription([
        { name: 'ts', typeOid: 1114, typeLen: 8 },
        { name: 'v', tableOid: 16384, columnAttr: 2, typeOid: 701, typeLen: 8, typeModifier: -1, format: 1 },
      ]),
      typed('T', i16(2), cstr('ts'), i32(0), i16(0), i32(1114), i16(8), i32(-1), i16(0), cstr('v'), i32(16384), i16(2), i32(701), i16(8), i32(-1), i16(1)),
    ],
    ['RowDescription without columns', rowDescription([]), typed('T', i16(0))],
    ['DataRow', dataRow([Buffer.from('1'), null, Buffer.alloc(0)]), typed('D', i16(3), i32(1), Buffer.from('1'), i32(-1), i32(0))],
    ['CommandComplete', commandComplete('SELECT 3'), typed('C', cstr('SELECT 3'))],
    ['EmptyQueryResponse', emptyQueryResponse(), Buffer.from([0x49, 0, 0, 0, 4])],
    [
      'ErrorResponse with every field',
      errorResponse({ severity: 'ERROR', code: '42P01', message: 'Table not found: t', detail: 'd', hint: 'h', position: 15 }),
      typed('E', Buffer.from('S'), cstr('ERROR'), Buffer.from('V'), cstr('ERROR'), Buffer.from('C'), cstr('42P01'), Buffer.from('M'), cstr('Table not found: t'), Buffer.from('D'), cstr('d'), Buffer.from('H'), cstr('h'), Buffer.from('P'), cstr('15'), Buffer.from([0])),
    ],
    [
      'ErrorResponse FATAL',
      errorResponse({ severity: 'FATAL', code: '28P01', message: 'password authentication failed' }),
      typed('E', Buffer.from('S'), cstr('FATAL'), Buffer.from('V'), cstr('FATAL'), Buffer.from('C'), cstr('28P01'), Buffer.from('M'), cstr('password authentication failed'), Buffer.from([0])),
    ],
    [
      'NoticeResponse',
      noticeResponse({ severity: 'WARNING', code: '25P01', message: 'transactions are not supported' }),
      typed('N', Buffer.from('S'), cstr('WARNING'), Buffer.from('V'), cstr('WARNING'), Buffer.from('C'), cstr('25P01'), Buffer.from('M'), cstr('transactions are not supported'), Buffer.from([0])),
    ],
    ['ParseComplete', parseComplete(), Buffer.from([0x31, 0, 0, 0, 4])],
    ['BindComplete', bindComplete(), Buffer.from([0x32, 0, 0, 0, 4])],
    ['CloseComplete', closeComplete(), Buffer.from([0x33, 0, 0, 0, 4])],
    ['ParameterDescription', parameterDescription([23, 1043, 0]), typed('t', i16(3), i32(23), i32(1043), i32(0))],
    ['NoData', noData(), Buffer.from([0x6e, 0, 0, 0, 4])],
    ['PortalSuspended', portalSuspended(), Buffer.from([0x73, 0, 0, 0, 4])],
    ['NegotiateProtocolVersion', negotiateProtocolVersion(0, ['_pq_.x']), typed('v', i32(0), i32(1), cstr('_pq_.x'))],
    ['SSL accepted', sslResponse(true), Buffer.from('S')],
    ['SSL refused', sslResponse(false), Buffer.from('N')],
  ];
  for (const [name, got, want] of cases) {
    test(name, () => assert.deepEqual(got, want));
  }

  test('a NUL byte in a message is dropped from error text and refused in names', () => {
    assert.deepEqual(
      errorResponse({ severity: 'ERROR', code: 'XX000', message: 'a\0b' }),
      typed('E', Buffer.from('S'), cstr('ERROR'), Buffer.from('V'), cstr('ERROR'), Buffer.from('C'), cstr('XX000'), Buffer.from('M'), cstr('ab'), Buffer.from([0])),
    );
    assert.throws(() => parameterStatus('a\0', 'b'), PgWireError);
  });

  test('DataRow of many large values', () => {
    const big = Buffer.alloc(100_000, 7);
    const row = dataRow([big, big]);
    assert.deepEqual(row, typed('D', i16(2), i32(100_000), big, i32(100_000), big));
  });
});
