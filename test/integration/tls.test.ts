/**
 * TLS of the MySQL and PostgreSQL servers of a real standalone tsdb, with certificates made by
 * `openssl` and real clients: Debian's `mysql` (mariadb-client) and `psql`, and the `pg` and
 * `mysql2` drivers. `require` refuses plaintext, `prefer` takes both, the verify modes check client
 * certificates, and a missing or invalid certificate file stops the start naming the file.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import mysql2 from 'mysql2/promise';
import pg from 'pg';
import { runClient, type ClientResult } from '../support/run-client.js';
import { tempDir } from '../support/temp.js';
import { makeCerts, type TestCerts } from '../support/tls-certs.js';
import { runTsdb, startTsdb } from '../support/tsdb-process.js';

const MYSQL = ['/usr/bin/mysql', '/usr/bin/mariadb'].find((p) => existsSync(p));
const PSQL = '/usr/bin/psql';

const hostPort = (addr: string) => ({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)) });

/** Runs `mysql --batch` against `addr`; `tls` are its SSL options (`--ssl`, `--skip-ssl`, `--ssl-ca=…`). */
function mysql(addr: string, tls: string[], args: string[], user = 'root'): Promise<ClientResult> {
  if (MYSQL === undefined) throw new Error('mysql is missing: install the Debian package mariadb-client (.ci/run does)');
  const { host, port } = hostPort(addr);
  const conn = ['--no-defaults', '--protocol=TCP', '--connect-timeout=10', '-h', host, '-P', String(port), '-u', user, ...tls, '--batch'];
  return runClient(MYSQL, [...conn, ...args], { PATH: process.env['PATH'] });
}

/** Runs psql with a libpq connection string of `addr` plus `conninfo` (sslmode=…, sslrootcert=…). */
function psql(addr: string, conninfo: string, args: string[], user = 'tsdb'): Promise<ClientResult> {
  if (!existsSync(PSQL)) throw new Error(`${PSQL} is missing: install the Debian package postgresql-client (.ci/run does)`);
  const { host, port } = hostPort(addr);
  return runClient(PSQL, ['-X', '-v', 'ON_ERROR_STOP=1', `host=${host} port=${port} user=${user} dbname=public ${conninfo}`, ...args], {
    PATH: process.env['PATH'],
    PGCONNECT_TIMEOUT: '10',
  });
}

async function start(t: TestContext, args: string[]): Promise<{ mysql: string; postgres: string }> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t), ...args]);
  assert.ok(s.mysql !== undefined && s.postgres !== undefined, 'the start log names the MySQL and PostgreSQL addresses');
  return { mysql: s.mysql, postgres: s.postgres };
}

function tlsFlags(certs: TestCerts, mode: string): string[] {
  return ['--tls-mode', mode, '--tls-cert-path', certs.serverCert, '--tls-key-path', certs.serverKey];
}

test('require: mysql --ssl and psql sslmode=verify-full are encrypted, plaintext is refused; pg and mysql2 connect over TLS', async (t) => {
  const certs = makeCerts(tempDir(t));
  const s = await start(t, tlsFlags(certs, 'require'));

  const my = await mysql(s.mysql, ['--ssl', `--ssl-ca=${certs.caCert}`, '--ssl-verify-server-cert'], ['-e', 'status\nSELECT 1 AS one']);
  assert.equal(my.code, 0, my.stderr);
  assert.match(my.stdout, /SSL:\s+Cipher in use is TLS_/);
  assert.match(my.stdout, /^one\n1\n/m);
  const myPlain = await mysql(s.mysql, ['--skip-ssl'], ['-e', 'SELECT 1']);
  assert.equal(myPlain.code, 1);
  assert.match(myPlain.stderr, /ERROR 3159 \(HY000\).*Connections using insecure transport are prohibited while --require_secure_transport=ON\./);

  const ps = await psql(s.postgres, `sslmode=verify-full sslrootcert=${certs.caCert}`, ['-c', '\\conninfo', '-A', '-t', '-c', 'SELECT 1']);
  assert.equal(ps.code, 0, ps.stderr);
  assert.match(ps.stdout, /SSL connection \(protocol: TLSv1\.[23], cipher: /);
  assert.match(ps.stdout, /\n1\n$/);
  const psRequire = await psql(s.postgres, 'sslmode=require', ['-A', '-t', '-c', 'SELECT 2']);
  assert.equal(psRequire.code, 0, psRequire.stderr);
  assert.equal(psRequire.stdout, '2\n');
  const psPlain = await psql(s.postgres, 'sslmode=disable', ['-c', 'SELECT 1']);
  assert.equal(psPlain.code, 2);
  assert.match(psPlain.stderr, /FATAL: {2}No encryption/);

  // The drivers: under require, a session that works is encrypted.
  const ca = readFileSync(certs.caCert);
  const client = new pg.Client({ ...hostPort(s.postgres), user: 'tsdb', database: 'public', ssl: { ca, servername: 'localhost' } });
  await client.connect();
  try {
    assert.deepEqual((await client.query("SELECT 'a' AS x")).rows, [{ x: 'a' }]);
    assert.deepEqual((await client.query('SELECT $1::BIGINT + 1 AS y', [41])).rows, [{ y: '42' }]);
  } finally {
    await client.end();
  }
  const plain = new pg.Client({ ...hostPort(s.postgres), user: 'tsdb', database: 'public', ssl: false });
  await assert.rejects(plain.connect(), (err: Error & { code?: string }) => err.code === '28000' && err.message === 'No encryption');

  const conn = await mysql2.createConnection({ ...hostPort(s.mysql), user: 'root', database: 'public', ssl: { ca } });
  try {
    const [rows] = await conn.query('SELECT 1 AS x');
    assert.deepEqual(rows, [{ x: 1 }]);
  } finally {
    await conn.end();
  }
  await assert.rejects(
    mysql2.createConnection({ ...hostPort(s.mysql), user: 'root', database: 'public' }),
    (err: Error & { errno?: number }) => err.errno === 3159,
  );
});

test('prefer: TLS and plaintext are both accepted', async (t) => {
  const certs = makeCerts(tempDir(t));
  const s = await start(t, tlsFlags(certs, 'prefer'));
  const myTls = await mysql(s.mysql, ['--ssl', `--ssl-ca=${certs.caCert}`], ['-e', 'status']);
  assert.equal(myTls.code, 0, myTls.stderr);
  assert.match(myTls.stdout, /SSL:\s+Cipher in use is TLS_/);
  const myPlain = await mysql(s.mysql, ['--skip-ssl'], ['-e', 'status']);
  assert.equal(myPlain.code, 0, myPlain.stderr);
  assert.match(myPlain.stdout, /SSL:\s+Not in use/);

  const psTls = await psql(s.postgres, 'sslmode=require', ['-c', '\\conninfo']);
  assert.equal(psTls.code, 0, psTls.stderr);
  assert.match(psTls.stdout, /SSL connection/);
  const psPlain = await psql(s.postgres, 'sslmode=disable', ['-c', '\\conninfo']);
  assert.equal(psPlain.code, 0, psPlain.stderr);
  assert.doesNotMatch(psPlain.stdout, /SSL connection/);
});

test('verify-ca (PostgreSQL) and verify-full (MySQL) from a config file: a client certificate signed by the CA is required', async (t) => {
  const dir = tempDir(t);
  const certs = makeCerts(dir);
  const config = join(dir, 'tsdb.toml');
  const section = (mode: string) =>
    `mode = "${mode}"\ncert_path = "${certs.serverCert}"\nkey_path = "${certs.serverKey}"\nca_cert_path = "${certs.caCert}"\n`;
  writeFileSync(config, `[mysql.tls]\n${section('verify-full')}\n[postgres.tls]\n${section('verify-ca')}`);
  const s = await start(t, ['-c', config]);

  const withCert = `sslmode=verify-full sslrootcert=${certs.caCert} sslcert=${certs.clientCert} sslkey=${certs.clientKey}`;
  const ok = await psql(s.postgres, withCert, ['-A', '-t', '-c', 'SELECT 1'], 'someone');
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '1\n');
  const noCert = await psql(s.postgres, `sslmode=verify-full sslrootcert=${certs.caCert}`, ['-c', 'SELECT 1']);
  assert.equal(noCert.code, 2);
  assert.match(noCert.stderr, /FATAL: {2}certificate authentication failed for user "tsdb": a client certificate is required/);
  const rogue = await psql(s.postgres, `sslmode=require sslcert=${certs.rogueCert} sslkey=${certs.rogueKey}`, ['-c', 'SELECT 1']);
  assert.equal(rogue.code, 2);
  assert.match(rogue.stderr, /FATAL: {2}certificate authentication failed for user "tsdb": the client certificate is not valid/);

  const myTls = ['--ssl', `--ssl-ca=${certs.caCert}`, `--ssl-cert=${certs.clientCert}`, `--ssl-key=${certs.clientKey}`];
  const myOk = await mysql(s.mysql, myTls, ['-N', '-e', 'SELECT 1'], 'tsdb');
  assert.equal(myOk.code, 0, myOk.stderr);
  assert.equal(myOk.stdout, '1\n');
  const otherUser = await mysql(s.mysql, myTls, ['-e', 'SELECT 1'], 'root');
  assert.equal(otherUser.code, 1);
  assert.match(otherUser.stderr, /ERROR 1045 \(28000\).*the client certificate's CN "tsdb" is not the user name "root"/);
  const myNoCert = await mysql(s.mysql, ['--ssl', `--ssl-ca=${certs.caCert}`], ['-e', 'SELECT 1'], 'tsdb');
  assert.equal(myNoCert.code, 1);
  assert.match(myNoCert.stderr, /ERROR 1045 \(28000\).*a client certificate is required/);
  // The certificate's user cannot switch to another one with COM_CHANGE_USER.
  const ssl = { ca: readFileSync(certs.caCert), cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) };
  const conn = await mysql2.createConnection({ ...hostPort(s.mysql), user: 'tsdb', ssl });
  conn.on('error', () => {});
  try {
    await assert.rejects(conn.changeUser({ user: 'root' }), /the client certificate's CN "tsdb" is not the user name "root"/);
  } finally {
    conn.destroy();
  }
});

test('a missing or invalid certificate file stops the start, naming the file; exit non-zero', async (t) => {
  const dir = tempDir(t);
  const certs = makeCerts(dir);
  const missing = join(dir, 'nosuch.pem');
  const base = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', join(dir, 'data')];
  const r1 = await runTsdb([...base, '--tls-mode', 'require', '--tls-cert-path', missing, '--tls-key-path', certs.serverKey]);
  assert.notEqual(r1.code, 0);
  assert.ok(r1.stderr.includes(missing), r1.stderr);
  assert.match(r1.stderr, /mysql\.tls\.cert_path/);

  const garbage = join(dir, 'garbage.pem');
  writeFileSync(garbage, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
  const r2 = await runTsdb([...base, '--tls-mode', 'require', '--tls-cert-path', garbage, '--tls-key-path', certs.serverKey]);
  assert.notEqual(r2.code, 0);
  assert.match(r2.stderr, /MySQL server cannot start TLS: mysql\.tls\.cert_path ".*garbage\.pem" is not a PEM certificate/);

  const r3 = await runTsdb([...base, '--tls-mode', 'prefer', '--tls-cert-path', certs.serverCert, '--tls-key-path', certs.clientKey]);
  assert.notEqual(r3.code, 0);
  assert.match(r3.stderr, /mysql\.tls\.key_path ".*client\.key" is not the private key of the certificate/);
});
