/** Tests of the user providers: spec forms, the user file format, every verifier kind, reloading. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import {
  DEFAULT_USER,
  MAX_ITERATIONS,
  createUserProvider,
  mysqlHashStage2,
  parseUserFile,
  parseVerifier,
  type UserProvider,
} from './user-provider.js';

const dir = mkdtempSync(join(tmpdir(), 'tsdb-auth-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;

function userFile(text: string): string {
  const path = join(dir, `users-${++fileNo}`);
  writeFileSync(path, text);
  return path;
}

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function capture(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
}

/** Asserts the promise rejects with a TsdbError of this code and exact message. */
async function rejectsWith(p: Promise<unknown>, code: StatusCode, message: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `expected a TsdbError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

function throwsWith(fn: () => unknown, code: StatusCode, pattern: RegExp): TsdbError {
  let caught: unknown;
  assert.throws(fn, (err: unknown) => {
    caught = err;
    return err instanceof TsdbError && err.code === code && pattern.test(err.message);
  });
  return caught as TsdbError;
}

const hex = (b: Buffer): string => b.toString('hex');
const sha1 = (d: Buffer | string): Buffer => crypto.createHash('sha1').update(d).digest();

function pbkdf2Verifier(password: string, iterations = 1000, salt = Buffer.from('NaCl-salt')): string {
  return `pbkdf2_sha256:${iterations}:${hex(salt)}:${hex(crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256'))}`;
}

function scramVerifier(password: string, iterations = 4096, salt = crypto.randomBytes(16)): string {
  const salted = crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = crypto.createHash('sha256').update(clientKey).digest();
  const serverKey = crypto.createHmac('sha256', salted).update('Server Key').digest();
  return `pg_scram_sha256:${iterations}:${hex(salt)}:${hex(storedKey)}:${hex(serverKey)}`;
}

/** The user authenticates with `good`; a wrong password of the same length and of another length fail. */
async function checkPasswords(provider: UserProvider, user: string, good: string): Promise<void> {
  assert.deepEqual(await provider.authenticate(user, good), { username: user, permission: 'read_write' });
  const sameLength = good.slice(0, -1) + (good.endsWith('x') ? 'y' : 'x');
  const mismatch = `Username and password does not match, username: ${user}`;
  await rejectsWith(provider.authenticate(user, sameLength), StatusCode.UserPasswordMismatch, mismatch);
  await rejectsWith(provider.authenticate(user, good + 'extra'), StatusCode.UserPasswordMismatch, mismatch);
  await rejectsWith(provider.authenticate(user, good.length > 1 ? good.slice(0, 1) : good + good), StatusCode.UserPasswordMismatch, mismatch);
}

describe('static_user_provider:cmd', () => {
  test('authenticates each user and reports the reference errors', async () => {
    const p = createUserProvider('static_user_provider:cmd:alice=secret1,bob=pw2');
    assert.deepEqual(await p.authenticate('alice', 'secret1'), { username: 'alice', permission: 'read_write' });
    assert.deepEqual(await p.authenticate('bob', 'pw2'), { username: 'bob', permission: 'read_write' });
    await rejectsWith(p.authenticate('bob', 'secret1'), StatusCode.UserPasswordMismatch, 'Username and password does not match, username: bob');
    await rejectsWith(p.authenticate('carol', 'x'), StatusCode.UserNotFound, 'User not found, username: carol');
    await rejectsWith(p.authenticate('alice', ''), StatusCode.InvalidArguments, 'Illegal param: blank password');
    await rejectsWith(p.authenticate('', 'x'), StatusCode.InvalidArguments, 'Illegal param: blank username');
    p.close();
  });

  test('takes permissions and verifiers; blank entries are ignored', async () => {
    const p = createUserProvider(`static_user_provider:cmd:r:ro=a1,,w:wo=b2,h=${pbkdf2Verifier('c3')}`);
    assert.deepEqual(await p.authenticate('r', 'a1'), { username: 'r', permission: 'read_only' });
    assert.deepEqual(await p.authenticate('w', 'b2'), { username: 'w', permission: 'write_only' });
    assert.deepEqual(await p.authenticate('h', 'c3'), { username: 'h', permission: 'read_write' });
  });

  test('rejects bad entries without quoting the password', () => {
    for (const spec of [
      'static_user_provider:cmd:alice',
      'static_user_provider:cmd:alice=topsecret=x',
      'static_user_provider:cmd:alice:admin=topsecret',
      'static_user_provider:cmd:=topsecret',
      'static_user_provider:cmd:alice=mysql_native_password:abcd',
    ]) {
      const err = throwsWith(() => createUserProvider(spec), StatusCode.InvalidArguments, /^Invalid user provider static_user_provider:cmd:…: entry 1: /);
      assert.doesNotMatch(err.message, /topsecret/);
    }
    throwsWith(() => createUserProvider('static_user_provider:cmd:'), StatusCode.InvalidArguments, /expected "static_user_provider:cmd:<user>=<password>/);
    throwsWith(() => createUserProvider('static_user_provider:cmd: , '), StatusCode.InvalidArguments, /expected "static_user_provider:cmd:/);
  });
});

describe('provider spec', () => {
  test('unknown forms are InvalidArguments naming the problem', () => {
    throwsWith(() => createUserProvider('ldap:foo'), StatusCode.InvalidArguments, /^Invalid user provider: unknown user provider "ldap"; expected static_user_provider:cmd:/);
    throwsWith(() => createUserProvider('static_user_provider:env:X'), StatusCode.InvalidArguments, /unknown user provider "static_user_provider"/);
    const err = throwsWith(() => createUserProvider('alice=hunter2'), StatusCode.InvalidArguments, /^Invalid user provider: unknown user provider; expected/);
    assert.doesNotMatch(err.message, /hunter2/);
    throwsWith(() => createUserProvider('static_user_provider:file:'), StatusCode.InvalidArguments, /expected "static_user_provider:file:<path>"/);
    throwsWith(() => createUserProvider('watch_file_user_provider:'), StatusCode.InvalidArguments, /expected "watch_file_user_provider:<path>"/);
    throwsWith(() => createUserProvider(`static_user_provider:file:${join(dir, 'missing')}`), StatusCode.InvalidArguments, /^Cannot read user file ".*missing": /);
    throwsWith(() => createUserProvider(`watch_file_user_provider:${join(dir, 'missing')}`), StatusCode.InvalidArguments, /^Cannot read user file /);
    throwsWith(() => createUserProvider(`static_user_provider:file:${dir}`), StatusCode.InvalidArguments, /^Cannot read user file /);
  });

  test('no provider means the default user', () => {
    assert.deepEqual(DEFAULT_USER, { username: 'tsdb', permission: 'read_write' });
  });
});

describe('verifiers', () => {
  test('plain password, with and without the plain: prefix', async () => {
    const p = createUserProvider(`static_user_provider:file:${userFile('a=abcdef\nb=plain:pbkdf2_sha256:1:00:00\nc=plain:x:y\nd=not:a:kind\n')}`);
    await checkPasswords(p, 'a', 'abcdef');
    await checkPasswords(p, 'b', 'pbkdf2_sha256:1:00:00');
    await checkPasswords(p, 'c', 'x:y');
    await checkPasswords(p, 'd', 'not:a:kind');
    assert.deepEqual(p.userEntry('b')?.verifier, { kind: 'plain', password: 'pbkdf2_sha256:1:00:00' });
  });

  test('pbkdf2_sha256', async () => {
    const p = createUserProvider(`static_user_provider:file:${userFile(`u=${pbkdf2Verifier('correct horse')}\nv=${pbkdf2Verifier('p', 1, Buffer.from([1]))}\n`)}`);
    await checkPasswords(p, 'u', 'correct horse');
    await checkPasswords(p, 'v', 'p');
    const e = p.userEntry('u');
    assert.equal(e?.verifier.kind, 'pbkdf2_sha256');
    assert.ok(e?.verifier.kind === 'pbkdf2_sha256' && e.verifier.iterations === 1000 && e.verifier.hash.length === 32);
  });

  test('mysql_native_password (either hex case, optional *)', async () => {
    const stage2 = sha1(sha1('mysqlpw'));
    const file = userFile(`m=mysql_native_password:${hex(stage2)}\nM=mysql_native_password:*${hex(stage2).toUpperCase()}\n`);
    const p = createUserProvider(`static_user_provider:file:${file}`);
    await checkPasswords(p, 'm', 'mysqlpw');
    await checkPasswords(p, 'M', 'mysqlpw');
    const e = p.userEntry('m');
    assert.deepEqual(e?.verifier, { kind: 'mysql_native_password', hashStage2: stage2 });
    assert.deepEqual(mysqlHashStage2(e!.verifier), stage2);
    // A plain password gives the same stage-2 hash for the MySQL handshake; a salted one cannot.
    assert.deepEqual(mysqlHashStage2({ kind: 'plain', password: 'mysqlpw' }), stage2);
    assert.equal(mysqlHashStage2({ kind: 'pbkdf2_sha256', iterations: 1, salt: Buffer.alloc(1), hash: Buffer.alloc(32) }), undefined);
  });

  test('pg_scram_sha256 checks a cleartext password against the StoredKey', async () => {
    const p = createUserProvider(`static_user_provider:file:${userFile(`pg=${scramVerifier('pencil')}\n`)}`);
    await checkPasswords(p, 'pg', 'pencil');
    const e = p.userEntry('pg');
    assert.ok(e?.verifier.kind === 'pg_scram_sha256' && e.verifier.iterations === 4096 && e.verifier.serverKey.length === 32);
  });

  test('RFC 7677 example keys verify', async () => {
    // SCRAM-SHA-256 test vector: user "user", password "pencil", salt base64 W22ZaJ0SNY7soEsUEjb6gQ==, i=4096.
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const verifier = scramVerifier('pencil', 4096, salt);
    const p = createUserProvider(`static_user_provider:cmd:user=${verifier}`);
    await checkPasswords(p, 'user', 'pencil');
    // ServerKey of the RFC's exchange: ServerSignature 6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4= = HMAC(ServerKey, AuthMessage).
    const authMessage = 'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const e = p.userEntry('user');
    assert.ok(e?.verifier.kind === 'pg_scram_sha256');
    const sig = crypto.createHmac('sha256', e.verifier.serverKey).update(authMessage).digest('base64');
    assert.equal(sig, '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    // The client's proof p=… recovers a ClientKey whose SHA-256 is the StoredKey.
    const proof = Buffer.from('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=', 'base64');
    const clientSig = crypto.createHmac('sha256', e.verifier.storedKey).update(authMessage).digest();
    const clientKey = Buffer.from(proof.map((b, i) => b ^ clientSig[i]!));
    assert.deepEqual(crypto.createHash('sha256').update(clientKey).digest(), e.verifier.storedKey);
  });

  test('malformed verifiers are reasons, not users', () => {
    const bad = [
      'pbkdf2_sha256:1000:zz:00',
      'pbkdf2_sha256:0:00:00',
      `pbkdf2_sha256:${MAX_ITERATIONS + 1}:00:00`,
      'pbkdf2_sha256:1000:00',
      'pbkdf2_sha256:1000:00:00:00',
      'pbkdf2_sha256:1000::00',
      'pbkdf2_sha256:1000:0:00',
      'mysql_native_password:abcd',
      `mysql_native_password:${'g'.repeat(40)}`,
      `pg_scram_sha256:4096:00:${'a'.repeat(64)}`,
      `pg_scram_sha256:4096:00:${'a'.repeat(62)}:${'a'.repeat(64)}`,
      `pg_scram_sha256:x:00:${'a'.repeat(64)}:${'a'.repeat(64)}`,
      'plain:',
      '',
    ];
    for (const text of bad) assert.equal(typeof parseVerifier(text), 'string', text);
    assert.deepEqual(parseVerifier(`pg_scram_sha256:4096:00:${'a'.repeat(64)}:${'b'.repeat(64)}`), {
      kind: 'pg_scram_sha256', iterations: 4096, salt: Buffer.from([0]), storedKey: Buffer.alloc(32, 0xaa), serverKey: Buffer.alloc(32, 0xbb),
    });
  });

  test('comparisons go through crypto.timingSafeEqual on equal lengths', async (t) => {
    const calls: number[][] = [];
    const real = crypto.timingSafeEqual;
    t.mock.method(crypto, 'timingSafeEqual', (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.push([a.byteLength, b.byteLength]);
      return real(a, b);
    });
    const stage2 = hex(sha1(sha1('pw3')));
    const p = createUserProvider(
      `static_user_provider:cmd:a=pw1,b=${pbkdf2Verifier('pw2')},c=mysql_native_password:${stage2},d=${scramVerifier('pw4')}`,
    );
    for (const [user, pwd] of [['a', 'pw1'], ['b', 'pw2'], ['c', 'pw3'], ['d', 'pw4']] as const) {
      calls.length = 0;
      await p.authenticate(user, pwd);
      await assert.rejects(p.authenticate(user, 'px' + pwd.slice(2)));
      await assert.rejects(p.authenticate(user, 'a much longer wrong password'));
      assert.equal(calls.length, 3, `user ${user}`);
      for (const [x, y] of calls) assert.equal(x, y);
    }
  });
});

describe('user file format', () => {
  test('comments, blank lines, CRLF, permissions; invalid lines skipped and logged without secrets', async () => {
    const text = [
      '# users of the test',
      '',
      '   ',
      'plainuser=pw0',
      'rw1:rw=pw1',
      'rw2:readwrite=pw2',
      'rw3:read_write=pw3\r',
      'ro1:ro=pw4',
      'ro2:readonly=pw5',
      'ro3:READ_ONLY=pw6',
      'wo1:wo=pw7',
      'wo2:writeonly=pw8',
      'wo3:write_only=pw9',
      '  # indented comment=with=equals',
      'nosign',
      'two=equal=signs-secret1',
      'bad:admin=secret2',
      '=secret3',
      'badhash=pbkdf2_sha256:10:zz:secret4',
      '  spaced=pw10  ',
    ].join('\n');
    const { logger, lines } = capture();
    const p = createUserProvider(`static_user_provider:file:${userFile(text)}`, { logger });
    const expect: Array<[string, string, string]> = [
      ['plainuser', 'pw0', 'read_write'],
      ['rw1', 'pw1', 'read_write'], ['rw2', 'pw2', 'read_write'], ['rw3', 'pw3', 'read_write'],
      ['ro1', 'pw4', 'read_only'], ['ro2', 'pw5', 'read_only'], ['ro3', 'pw6', 'read_only'],
      ['wo1', 'pw7', 'write_only'], ['wo2', 'pw8', 'write_only'], ['wo3', 'pw9', 'write_only'],
      ['spaced', 'pw10', 'read_write'],
    ];
    for (const [u, pw, perm] of expect) assert.deepEqual(await p.authenticate(u, pw), { username: u, permission: perm });
    for (const u of ['nosign', 'two', 'bad', 'badhash', '# users of the test']) {
      await rejectsWith(p.authenticate(u, 'x'), StatusCode.UserNotFound, `User not found, username: ${u}`);
    }
    const skipped = lines.filter((l) => l.msg === 'skipped an invalid line of the user file');
    assert.deepEqual(skipped.map((l) => l['line']), [15, 16, 17, 18, 19]);
    assert.ok(skipped.every((l) => l.level === 40));
    assert.doesNotMatch(JSON.stringify(lines), /secret|pw\d/);
  });

  test('the last line of a user wins', () => {
    const { users } = parseUserFile('a=one\na:ro=two\n');
    assert.deepEqual(users.get('a'), { username: 'a', permission: 'read_only', verifier: { kind: 'plain', password: 'two' } });
  });

  test('a file without a valid user is an error', () => {
    for (const text of ['', '# only a comment\n\n', 'nosign\nx=y=z\n']) {
      throwsWith(() => createUserProvider(`static_user_provider:file:${userFile(text)}`), StatusCode.InvalidArguments, /^User file ".*" must contain at least one valid user$/);
    }
  });

  test('static_user_provider:file reads the file once', async () => {
    const path = userFile('a=one\n');
    const p = createUserProvider(`static_user_provider:file:${path}`);
    writeFileSync(path, 'b=two\n');
    assert.deepEqual(await p.authenticate('a', 'one'), { username: 'a', permission: 'read_write' });
    await rejectsWith(p.authenticate('b', 'two'), StatusCode.UserNotFound, 'User not found, username: b');
  });

  test('userEntry returns a copy; verifierKinds lists the kinds in use', () => {
    const p = createUserProvider(`static_user_provider:cmd:a=pw,b=mysql_native_password:${hex(sha1(sha1('x')))}`);
    assert.equal(p.userEntry('nobody'), undefined);
    const e = p.userEntry('b');
    assert.ok(e?.verifier.kind === 'mysql_native_password');
    e.verifier.hashStage2.fill(0);
    const again = p.userEntry('b');
    assert.ok(again?.verifier.kind === 'mysql_native_password');
    assert.deepEqual(again.verifier.hashStage2, sha1(sha1('x')));
    assert.deepEqual([...p.verifierKinds()].sort(), ['mysql_native_password', 'plain']);
  });
});

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('watch_file_user_provider', () => {
  test('sees a rewrite on use and keeps the old users on a bad reload', async () => {
    const path = userFile('a=Pw1x\n');
    const { logger, lines } = capture();
    const p = createUserProvider(`watch_file_user_provider:${path}`, { logger });
    try {
      assert.deepEqual(await p.authenticate('a', 'Pw1x'), { username: 'a', permission: 'read_write' });
      writeFileSync(path, 'a:ro=Pw1y\nb=Pw2x\n');
      assert.deepEqual(await p.authenticate('a', 'Pw1y'), { username: 'a', permission: 'read_only' });
      assert.deepEqual(await p.authenticate('b', 'Pw2x'), { username: 'b', permission: 'read_write' });

      writeFileSync(path, '# nobody\nbroken line\n');
      assert.deepEqual(await p.authenticate('b', 'Pw2x'), { username: 'b', permission: 'read_write' });
      assert.ok(lines.some((l) => l.msg === 'bad user file; keeping the previous users' && l.level === 40));

      rmSync(path);
      assert.deepEqual(await p.authenticate('b', 'Pw2x'), { username: 'b', permission: 'read_write' });
      assert.ok(lines.some((l) => l.msg === 'user file is gone; keeping the previous users'));

      writeFileSync(path, 'c=Pw3x\n');
      assert.deepEqual(await p.authenticate('c', 'Pw3x'), { username: 'c', permission: 'read_write' });
      await rejectsWith(p.authenticate('b', 'Pw2x'), StatusCode.UserNotFound, 'User not found, username: b');
      assert.doesNotMatch(JSON.stringify(lines), /Pw\d/);
    } finally {
      p.close();
    }
  });

  test('reloads on a file-system event, including a rename over the file', async () => {
    const path = userFile('a=one\n');
    const { logger, lines } = capture();
    const p = createUserProvider(`watch_file_user_provider:${path}`, { logger });
    const reloads = (): number => lines.filter((l) => l.msg === 'reloaded the user file').length;
    try {
      writeFileSync(path, 'b=two\n');
      await until(() => reloads() === 1, 'the watcher to reload after a write');
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, 'c=three\n');
      renameSync(tmp, path);
      await until(() => reloads() === 2, 'the watcher to reload after a rename');
      assert.deepEqual(await p.authenticate('c', 'three'), { username: 'c', permission: 'read_write' });

      writeFileSync(path, 'not a user\n');
      await until(() => lines.some((l) => l.msg === 'bad user file; keeping the previous users'), 'the watcher to see a bad file');
      assert.deepEqual(await p.authenticate('c', 'three'), { username: 'c', permission: 'read_write' });
    } finally {
      p.close();
    }
  });
});
