/**
 * TLS of the MySQL and PostgreSQL servers (`[mysql.tls]`, `[postgres.tls]`): the certificate, key
 * and CA loaded into a `SecureContext` when the server starts (a missing, unreadable or invalid
 * file is a start-up error naming it), reloaded when the files change (`watch`), and the upgrade
 * of a plaintext socket once the client asked for TLS (both protocols start in plaintext).
 *
 * ```
 * mode         offers TLS  plaintext  client certificate
 * disable      no          accepted   -
 * prefer       yes         accepted   -
 * require      yes         refused    -
 * verify-ca    yes         refused    required, signed by ca_cert_path
 * verify-full  yes         refused    as verify-ca, and its CN must equal the user name
 * ```
 * A client without a valid certificate completes the TLS handshake and is then refused in its
 * protocol (a MySQL ERR, a PostgreSQL FATAL), so it reads why.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { errorMessage } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import type { TlsOptions } from '../config/options.js';

/** A TLS file that cannot be used: the message names the option and the file. */
export class TlsConfigError extends Error {
  override readonly name = 'TlsConfigError';
}

export interface TlsFiles {
  readonly cert_path: string;
  readonly key_path: string;
  /** Empty: client certificates are not verified. */
  readonly ca_cert_path: string;
}

/**
 * The context of `files`; throws a TlsConfigError naming the file (as `<option>.<key> "<path>"`)
 * that is missing, unreadable, not PEM, or a key that does not belong to the certificate.
 */
export function loadSecureContext(files: TlsFiles, option = 'tls'): SecureContext {
  const name = (key: keyof TlsFiles) => `${option}.${key} "${files[key]}"`;
  const read = (key: keyof TlsFiles): Buffer => {
    try {
      return readFileSync(files[key]);
    } catch (err) {
      throw new TlsConfigError(`${name(key)} cannot be read: ${errorMessage(err)}`, { cause: err });
    }
  };
  const cert = read('cert_path');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new TlsConfigError(`${name('cert_path')} is not a PEM certificate: ${errorMessage(err)}`, { cause: err });
  }
  const key = read('key_path');
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new TlsConfigError(`${name('key_path')} is not a PEM private key: ${errorMessage(err)}`, { cause: err });
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new TlsConfigError(`${name('key_path')} is not the private key of the certificate ${name('cert_path')}`);
  }
  let ca: Buffer | undefined;
  if (files.ca_cert_path !== '') {
    ca = read('ca_cert_path');
    try {
      new X509Certificate(ca);
    } catch (err) {
      throw new TlsConfigError(`${name('ca_cert_path')} is not a PEM certificate: ${errorMessage(err)}`, { cause: err });
    }
  }
  try {
    return createSecureContext({ cert, key, ...(ca !== undefined && { ca }), minVersion: 'TLSv1.2' });
  } catch (err) {
    throw new TlsConfigError(`${name('cert_path')} with ${name('key_path')}: ${errorMessage(err)}`, { cause: err });
  }
}

export interface ServerTlsOptions {
  /** The option prefix in messages, e.g. `mysql.tls`. */
  readonly option: string;
  readonly logger: Logger;
  /** How often watched files are checked, in ms (default 1000). */
  readonly watchIntervalMs?: number;
}

/** The TLS side of one server, from its start to its shutdown. */
export class ServerTls {
  private context: SecureContext;
  private watched: string[] = [];
  private reloadTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly config: TlsOptions,
    private readonly opts: ServerTlsOptions,
  ) {
    this.context = loadSecureContext(config, opts.option);
  }

  /** Undefined for `disable`; else the loaded files, watched when `watch` is set. Throws TlsConfigError. */
  static start(config: TlsOptions, opts: ServerTlsOptions): ServerTls | undefined {
    if (config.mode === 'disable') return undefined;
    const tls = new ServerTls(config, opts);
    if (config.watch) tls.watch();
    return tls;
  }

  /** Whether plaintext sessions are refused (every mode but `prefer`). */
  get required(): boolean {
    return this.config.mode !== 'prefer';
  }

  /** Whether a client certificate signed by the CA is required (`verify-ca`, `verify-full`). */
  get verifiesClients(): boolean {
    return this.config.mode === 'verify-ca' || this.config.mode === 'verify-full';
  }

  /** The context new connections get (the latest that loaded). */
  get secureContext(): SecureContext {
    return this.context;
  }

  /**
   * Starts TLS as the server on `socket`. `head` holds the bytes of the client's handshake that
   * were read as plaintext already (MySQL clients do not wait for an answer to their SSLRequest);
   * bytes still buffered in `socket` are taken too, so the caller must have removed its `data`
   * listener. Reads and writes of the session go through the returned socket; destroying it
   * closes `socket`.
   */
  upgrade(socket: Socket, head: Buffer = Buffer.alloc(0)): TLSSocket {
    const buffered: Buffer | null = socket.readableLength > 0 ? socket.read() : null;
    const early = buffered === null ? head : Buffer.concat([head, buffered]);
    const options = {
      isServer: true,
      secureContext: this.context,
      requestCert: this.verifiesClients,
      // Checked after the handshake, so the refusal is an error of the protocol, with its reason.
      rejectUnauthorized: false,
    };
    const tls = early.length === 0 ? new TLSSocket(socket, options) : new TLSSocket(withHead(socket, early), options);
    socket.resume();
    return tls;
  }

  /**
   * Why `user` may not go on with the certificate `socket` presented (undefined: it may): in the
   * verify modes the certificate must be signed by the CA, and with `verify-full` its CN must be
   * the user name (PostgreSQL's `clientcert=verify-full`).
   */
  clientCertificateError(socket: Socket, user: string): string | undefined {
    if (!this.verifiesClients) return undefined;
    const peer = socket instanceof TLSSocket ? socket.getPeerX509Certificate() : undefined;
    if (peer === undefined) return 'a client certificate is required';
    const invalid = peerVerifyError(socket as TLSSocket);
    if (invalid !== undefined) return `the client certificate is not valid: ${invalid}`;
    if (this.config.mode === 'verify-full') {
      const cn = (socket as TLSSocket).getPeerCertificate().subject?.CN;
      const names = Array.isArray(cn) ? cn : cn === undefined ? [] : [cn];
      if (!names.includes(user)) return `the client certificate's CN "${names.join(', ')}" is not the user name "${user}"`;
    }
    return undefined;
  }

  /** Stops watching the files. */
  close(): void {
    for (const path of this.watched) unwatchFile(path, this.onChange);
    this.watched = [];
    clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
  }

  private watch(): void {
    const paths = [this.config.cert_path, this.config.key_path, this.config.ca_cert_path].filter((p) => p !== '');
    for (const path of new Set(paths)) {
      watchFile(path, { interval: this.opts.watchIntervalMs ?? 1000, persistent: false }, this.onChange);
      this.watched.push(path);
    }
  }

  /** A change of one file: reload a little later, so that a certificate and key written together load as a pair. */
  private readonly onChange = (curr: Stats, prev: Stats): void => {
    if (curr.mtimeMs === prev.mtimeMs && curr.size === prev.size && curr.ino === prev.ino) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.reload(), 100);
    this.reloadTimer.unref();
  };

  private reload(): void {
    this.reloadTimer = undefined;
    try {
      this.context = loadSecureContext(this.config, this.opts.option);
      this.opts.logger.info({ cert_path: this.config.cert_path }, `${this.opts.option}: reloaded the TLS certificate`);
    } catch (err) {
      this.opts.logger.error({ err }, `${this.opts.option}: keeping the previous TLS certificate: ${errorMessage(err)}`);
    }
  }
}

/**
 * OpenSSL's verdict on the peer's certificate chain (against the context's CA), e.g.
 * `UNABLE_TO_VERIFY_LEAF_SIGNATURE`; undefined when it verified. Node sets `authorized` only on
 * sockets a `tls.Server` accepted, not on a socket upgraded with `new TLSSocket`, so the verdict is
 * read where Node reads it; should that method be missing, no certificate passes.
 */
function peerVerifyError(socket: TLSSocket): string | undefined {
  const handle = (socket as unknown as { ssl?: { verifyError?: () => (Error & { code?: string }) | null } }).ssl;
  if (typeof handle?.verifyError !== 'function') return 'this Node.js does not report the verification of client certificates';
  const err = handle.verifyError();
  return err === null ? undefined : (err.code ?? err.message);
}

/**
 * `socket` as a stream that yields `head` first, for a TLS session whose first bytes were already
 * read from the socket (a TLSSocket over the socket itself would only see what comes next).
 */
function withHead(socket: Socket, head: Buffer): Duplex {
  const stream = new Duplex({
    read: () => socket.resume(),
    write: (chunk: Buffer, _encoding, cb) => socket.write(chunk, (err) => cb(err ?? null)),
    final: (cb) => socket.end(() => cb()),
    destroy: (err, cb) => {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  stream.push(head);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('error', (err) => stream.destroy(err));
  socket.on('close', () => stream.destroy());
  return stream;
}
