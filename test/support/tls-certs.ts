/**
 * Certificates for the TLS tests, made with the `openssl` command (Debian package openssl, installed by .ci/run): a CA, a server
 * certificate for localhost / 127.0.0.1 signed by it, client certificates signed by it, and a
 * client certificate of another CA.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** Signed by the CA, CN `tsdb`. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** Signed by another CA, CN `tsdb`. */
  readonly rogueCert: string;
  readonly rogueKey: string;
}

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('the openssl command is missing: install the Debian package openssl (apt-get install -y openssl)');
    throw err;
  }
}

/** A key and a certificate signing request of `cn` in `dir`. */
function request(dir: string, name: string, cn: string): void {
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
}

function sign(dir: string, name: string, ca: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`]);
}

function selfSigned(dir: string, name: string, cn: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${cn}`]);
}

/** Makes the certificates in `dir` (a few hundred ms of key generation). */
export function makeCerts(dir: string): TestCerts {
  selfSigned(dir, 'ca', 'tsdb test CA');
  request(dir, 'server', 'localhost');
  sign(dir, 'server', 'ca', 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n');
  makeClientCert(dir, 'client', 'tsdb');
  selfSigned(dir, 'rogue-ca', 'another CA');
  request(dir, 'rogue', 'tsdb');
  sign(dir, 'rogue', 'rogue-ca', 'basicConstraints=CA:FALSE\n');
  const p = (f: string) => join(dir, f);
  return {
    dir,
    caCert: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    rogueCert: p('rogue.pem'),
    rogueKey: p('rogue.key'),
  };
}

/** A client certificate `<name>.pem` / `<name>.key` with CN `cn`, signed by the CA of `makeCerts(dir)`. */
export function makeClientCert(dir: string, name: string, cn: string): { cert: string; key: string } {
  request(dir, name, cn);
  sign(dir, name, 'ca', 'basicConstraints=CA:FALSE\n');
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}
