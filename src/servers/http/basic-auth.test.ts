/** Tests of credentialsFromHeaders: every header form, with the reference's codes and messages. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HTTP_STATUS, StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { credentialsFromHeaders } from './basic-auth.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function fails(headers: Record<string, string | string[] | undefined>, code: StatusCode, message: string): void {
  assert.throws(() => credentialsFromHeaders(headers), (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

test('Basic credentials from Authorization, scheme in any case', () => {
  for (const scheme of ['Basic', 'basic', 'BASIC', 'bAsIc']) {
    assert.deepEqual(credentialsFromHeaders({ authorization: `${scheme} ${b64('alice:secret')}` }), { username: 'alice', password: 'secret' });
  }
  assert.deepEqual(credentialsFromHeaders({ Authorization: `Basic ${b64('alice:secret')}` }), { username: 'alice', password: 'secret' });
});

test('the password is everything after the first colon and may be empty', () => {
  assert.deepEqual(credentialsFromHeaders({ authorization: `Basic ${b64('bob:a:b c')}` }), { username: 'bob', password: 'a:b c' });
  assert.deepEqual(credentialsFromHeaders({ authorization: `Basic ${b64('bob:')}` }), { username: 'bob', password: '' });
  assert.deepEqual(credentialsFromHeaders({ authorization: `Basic ${b64(':pw')}` }), { username: '', password: 'pw' });
  assert.deepEqual(credentialsFromHeaders({ authorization: `Basic ${b64('jürgen:pässwörd')}` }), { username: 'jürgen', password: 'pässwörd' });
});

test('x-tsdb-auth carries the same value and wins over Authorization', () => {
  assert.deepEqual(credentialsFromHeaders({ 'x-tsdb-auth': `Basic ${b64('carol:pw')}` }), { username: 'carol', password: 'pw' });
  assert.deepEqual(
    credentialsFromHeaders({ authorization: `Basic ${b64('alice:x')}`, 'x-tsdb-auth': `basic ${b64('carol:pw')}` }),
    { username: 'carol', password: 'pw' },
  );
  assert.deepEqual(credentialsFromHeaders({ 'x-tsdb-auth': [`Basic ${b64('dave:1')}`, `Basic ${b64('eve:2')}`] }), { username: 'dave', password: '1' });
});

test('missing header: 7003', () => {
  fails({}, StatusCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
  fails({ authorization: undefined, 'x-other': 'Basic x' }, StatusCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
});

test('Bearer: 7002 unsupported authentication method', () => {
  fails({ authorization: 'Bearer abc.def.ghi' }, StatusCode.UserPasswordMismatch, 'Unsupported authentication method: bearer token');
  fails({ 'x-tsdb-auth': 'bearer token' }, StatusCode.UserPasswordMismatch, 'Unsupported authentication method: bearer token');
});

test('another scheme: 7004 naming it', () => {
  fails({ authorization: `Digest ${b64('a:b')}` }, StatusCode.InvalidAuthHeader, 'Unsupported http auth scheme, name: digest');
  fails({ authorization: 'Token alice:pw' }, StatusCode.InvalidAuthHeader, 'Unsupported http auth scheme, name: token');
});

test('malformed header: 7004 Invalid http authorization header', () => {
  const m = 'Invalid http authorization header';
  fails({ authorization: 'Basic' }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: '' }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: b64('alice:pw') }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: `Basic ${b64('alice')} ${b64(':pw')}` }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: `Basic  ${b64('alice:pw')}` }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: `Basic ${b64('no-colon')}` }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: 'Basic ' }, StatusCode.InvalidAuthHeader, m);
});

test('bad base64: 7004 Invalid base64 value', () => {
  const m = 'Invalid base64 value';
  fails({ authorization: 'Basic !!!!' }, StatusCode.InvalidAuthHeader, m);
  fails({ authorization: 'Basic YWxpY2U6cHc' }, StatusCode.InvalidAuthHeader, m); // padding missing
  fails({ authorization: 'Basic YWxpY2U6cHd=' }, StatusCode.InvalidAuthHeader, m); // non-zero trailing bits
  fails({ authorization: 'Basic YWxp-2U6cHc=' }, StatusCode.InvalidAuthHeader, m); // URL-safe alphabet
  fails({ authorization: 'Basic YQ==YQ==' }, StatusCode.InvalidAuthHeader, m);
});

test('bytes that are not UTF-8, or a header with invisible characters: 7004', () => {
  fails({ authorization: `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}` }, StatusCode.InvalidAuthHeader, 'Invalid utf-8 value');
  fails({ authorization: `Basic ${b64('a:b')}\u00e9` }, StatusCode.InvalidAuthHeader, 'Invalid visibility ASCII chars');
});

test('auth codes map to 401, permission codes to 403', () => {
  for (const code of [StatusCode.UserNotFound, StatusCode.UnsupportedPasswordType, StatusCode.UserPasswordMismatch, StatusCode.AuthHeaderNotFound, StatusCode.InvalidAuthHeader]) {
    assert.equal(HTTP_STATUS[code], 401, String(code));
  }
  assert.equal(HTTP_STATUS[StatusCode.AccessDenied], 403);
  assert.equal(HTTP_STATUS[StatusCode.PermissionDenied], 403);
});
