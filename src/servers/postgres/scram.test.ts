import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { PgWireError } from './pg-error.js';
import { ScramServerSession, deriveScramVerifier, saslPrep, type ScramVerifier } from './scram.js';

// An independent SCRAM-SHA-256 client (RFC 5802 §3), with node:crypto only.
const H = (b: Buffer): Buffer => crypto.createHash('sha256').update(b).digest();
const HMAC = (k: Buffer, s: string): Buffer => crypto.createHmac('sha256', k).update(s).digest();
const xor = (a: Buffer, b: Buffer): Buffer => Buffer.from(a.map((x, i) => x ^ b[i]!));

function clientFinal(password: string, clientFirstBare: string, serverFirst: string, gs2 = 'n,,'): { message: string; serverSignature: string } {
  const attrs = Object.fromEntries(serverFirst.split(',').map((p) => [p[0], p.slice(2)]));
  const salted = crypto.pbkdf2Sync(password, Buffer.from(attrs['s']!, 'base64'), Number(attrs['i']), 32, 'sha256');
  const clientKey = HMAC(salted, 'Client Key');
  const withoutProof = `c=${Buffer.from(gs2).toString('base64')},r=${attrs['r']}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const proof = xor(clientKey, HMAC(H(clientKey), authMessage));
  return {
    message: `${withoutProof},p=${proof.toString('base64')}`,
    serverSignature: HMAC(HMAC(salted, 'Server Key'), authMessage).toString('base64'),
  };
}

const RFC_SALT = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
const RFC_SERVER_NONCE = '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';

function isError(sqlstate: string, re?: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof PgWireError, String(e));
    assert.equal(e.sqlstate, sqlstate);
    assert.equal(e.fatal, true);
    if (re) assert.match(e.message, re);
    return true;
  };
}

describe('SCRAM-SHA-256', () => {
  test('RFC 7677 example: server-first and server-final', async () => {
    const verifier = await deriveScramVerifier('pencil', { salt: RFC_SALT, iterations: 4096 });
    const s = new ScramServerSession(verifier, { serverNonce: RFC_SERVER_NONCE });
    const serverFirst = s.clientFirst(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    assert.equal(serverFirst, 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
    const final = clientFinal('pencil', 'n=user,r=rOprNGfwEbeRWgbNEkqO', serverFirst);
    assert.equal(final.message, 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    const serverFinal = s.clientFinal(Buffer.from(final.message));
    assert.equal(serverFinal, 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    assert.equal(serverFinal, `v=${final.serverSignature}`);
    assert.ok(s.succeeded);
  });

  test('derived verifier matches the independent computation and a random salt', async () => {
    const v = await deriveScramVerifier('secret');
    assert.equal(v.salt.length, 16);
    assert.equal(v.iterations, 4096);
    const salted = crypto.pbkdf2Sync('secret', v.salt, 4096, 32, 'sha256');
    assert.deepEqual(v.storedKey, H(HMAC(salted, 'Client Key')));
    assert.deepEqual(v.serverKey, HMAC(salted, 'Server Key'));
    const w = await deriveScramVerifier('secret');
    assert.notDeepEqual(v.salt, w.salt);
  });

  test('a full exchange with a random server nonce, y,, header and empty user name (as libpq)', async () => {
    const v = await deriveScramVerifier('pw', { iterations: 1000 });
    const s = new ScramServerSession(v);
    const serverFirst = s.clientFirst('y,,n=,r=abcDEF123');
    assert.match(serverFirst, /^r=abcDEF123[!-+\--~]+,s=[A-Za-z0-9+/=]+,i=1000$/);
    const f = clientFinal('pw', 'n=,r=abcDEF123', serverFirst, 'y,,');
    assert.equal(s.clientFinal(f.message), `v=${f.serverSignature}`);
  });

  test('wrong password fails with 28P01', async () => {
    const v = await deriveScramVerifier('right', { iterations: 1000 });
    const s = new ScramServerSession(v);
    const serverFirst = s.clientFirst('n,,n=,r=nonce');
    const f = clientFinal('wrong', 'n=,r=nonce', serverFirst);
    assert.throws(() => s.clientFinal(f.message), isError('28P01', /password authentication failed/));
    assert.equal(s.succeeded, false);
  });

  test('unknown user (no verifier): the exchange runs and fails at the end', () => {
    const s = new ScramServerSession(undefined);
    const serverFirst = s.clientFirst('n,,n=,r=nonce');
    assert.match(serverFirst, /,i=4096$/);
    const f = clientFinal('anything', 'n=,r=nonce', serverFirst);
    assert.throws(() => s.clientFinal(f.message), isError('28P01'));
  });

  test('saslPrep keeps ASCII, maps non-ASCII spaces and soft hyphens', () => {
    assert.equal(saslPrep('pencil'), 'pencil');
    assert.equal(saslPrep('a\u00a0b\u00adc'), 'a bc');
    assert.equal(saslPrep('\u2168'), 'IX');
    assert.equal(saslPrep('a\u0007b'), 'a\u0007b');
  });

  const badFirst: Array<[string, string, string, RegExp]> = [
    ['channel binding requested', 'p=tls-server-end-point,,n=,r=x', '08P01', /channel binding is not supported/],
    ['no GS2 header', 'n=,r=x', '08P01', /unexpected channel-binding flag|missing GS2 header/],
    ['empty message', '', '08P01', /missing GS2 header/],
    ['bad flag', 'q,,n=,r=x', '08P01', /unexpected channel-binding flag/],
    ['authzid', 'n,a=admin,n=,r=x', '0A000', /authorization identity/],
    ['mandatory extension', 'n,,m=ext,n=,r=x', '08P01', /mandatory extensions/],
    ['missing user name', 'n,,r=x', '08P01', /user name/],
    ['missing nonce', 'n,,n=', '08P01', /nonce attribute/],
    ['empty nonce', 'n,,n=,r=', '08P01', /invalid client nonce/],
    ['nonce with a space', 'n,,n=,r=a b', '08P01', /invalid client nonce/],
    ['bad escape in user name', 'n,,n=a=b,r=x', '08P01', /escape/],
    ['garbage attribute', 'n,,n=,r=x,garbage', '08P01', /expected attribute/],
  ];
  for (const [name, msg, sqlstate, re] of badFirst) {
    test(`malformed client-first: ${name}`, () => {
      const s = new ScramServerSession({ iterations: 1, salt: Buffer.alloc(16), storedKey: Buffer.alloc(32), serverKey: Buffer.alloc(32) });
      assert.throws(() => s.clientFirst(msg), isError(sqlstate, re));
      // The session is over after an error.
      assert.throws(() => s.clientFirst('n,,n=,r=x'), isError('08P01', /unexpected message/));
    });
  }

  describe('malformed client-final', () => {
    let verifier: ScramVerifier;
    const start = async (): Promise<{ s: ScramServerSession; serverFirst: string; good: string }> => {
      verifier ??= await deriveScramVerifier('pw', { iterations: 1000 });
      const s = new ScramServerSession(verifier, { serverNonce: 'SERVER' });
      const serverFirst = s.clientFirst('n,,n=,r=CLIENT');
      return { s, serverFirst, good: clientFinal('pw', 'n=,r=CLIENT', serverFirst).message };
    };
    const proof = (good: string): string => good.slice(good.indexOf(',p=') + 3);
    const cases: Array<[string, (good: string) => string, RegExp]> = [
      ['missing proof', () => 'c=biws,r=CLIENTSERVER', /missing proof/],
      ['channel binding of another header', (g) => `c=eSws,r=CLIENTSERVER,p=${proof(g)}`, /channel-binding/],
      ['channel binding not base64', (g) => `c=b!ws,r=CLIENTSERVER,p=${proof(g)}`, /not valid base64/],
      ['wrong nonce', (g) => `c=biws,r=CLIENTOTHER,p=${proof(g)}`, /nonce does not match/],
      ['nonce first', (g) => `r=CLIENTSERVER,c=biws,p=${proof(g)}`, /channel binding attribute/],
      ['proof not base64', () => 'c=biws,r=CLIENTSERVER,p=***', /proof is not valid base64/],
      ['proof too short', () => 'c=biws,r=CLIENTSERVER,p=AAAA', /invalid proof length/],
    ];
    for (const [name, make, re] of cases) {
      test(name, async () => {
        const { s, good } = await start();
        assert.throws(() => s.clientFinal(make(good)), isError('08P01', re));
        assert.throws(() => s.clientFinal(good), isError('08P01', /unexpected message/));
      });
    }

    test('client-final before client-first', () => {
      const s = new ScramServerSession(undefined);
      assert.throws(() => s.clientFinal('c=biws,r=x,p=AAAA'), isError('08P01', /unexpected message/));
    });

    test('a second client-final after success', async () => {
      const { s, good } = await start();
      s.clientFinal(good);
      assert.throws(() => s.clientFinal(good), isError('08P01', /unexpected message/));
    });
  });
});
