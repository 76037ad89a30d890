/**
 * The server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL uses it in SASL
 * authentication (PostgreSQL docs "SASL Authentication"), without channel binding:
 *
 * ```
 * client-first  n,,n=<user>,r=<client nonce>           (gs2 header `n,,` or `y,,`; `p=…` refused)
 * server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
 * client-final  c=biws,r=<nonce>,p=<base64 ClientProof>  (c = base64 of the gs2 header)
 * server-final  v=<base64 ServerSignature>
 * ```
 * SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, i); ClientKey = HMAC(SaltedPassword,
 * "Client Key"); StoredKey = H(ClientKey); ServerKey = HMAC(SaltedPassword, "Server Key");
 * AuthMessage = client-first-bare "," server-first "," client-final-without-proof;
 * ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage); ServerSignature = HMAC(ServerKey, AuthMessage).
 *
 * PostgreSQL ignores the user name of client-first (the startup packet's `user` counts) and so does this.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { PgWireError, SQLSTATE } from './pg-error.js';

export const SCRAM_SHA_256 = 'SCRAM-SHA-256';
/** PostgreSQL's default iteration count (`scram_iterations`). */
export const SCRAM_DEFAULT_ITERATIONS = 4096;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

const pbkdf2 = promisify(crypto.pbkdf2);

/** What the server keeps of a password: structurally the `pg_scram_sha256` verifier of the user provider. */
export interface ScramVerifier {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

function hmac(key: Buffer, data: string | Buffer): Buffer {
  return crypto.createHmac('sha256', key).update(data).digest();
}

function sha256(data: Buffer): Buffer {
  return crypto.createHash('sha256').update(data).digest();
}

/**
 * SASLprep (RFC 4013) as PostgreSQL applies it to passwords, simplified: non-ASCII spaces become
 * spaces, characters mapped to nothing are dropped, NFKC; a result with prohibited characters
 * falls back to the raw password (as PostgreSQL does). ASCII passwords are unchanged.
 */
export function saslPrep(password: string): string {
  if (/^[\x20-\x7e]*$/.test(password)) return password;
  const mapped = password
    .replace(/[\u00a0\u1680\u2000-\u200b\u202f\u205f\u3000]/g, ' ')
    .replace(/[\u00ad\u034f\u1806\u180b-\u180d\u200c\u200d\u2060\ufe00-\ufe0f\ufeff]/g, '')
    .normalize('NFKC');
  // Prohibited: control characters, private use, non-characters, surrogates (RFC 3454 C.2–C.9).
  if (/[\u0000-\u001f\u007f-\u009f\ue000-\uf8ff\ufff9-\ufffd\ud800-\udfff]/.test(mapped)) return password;
  return mapped;
}

/** A SCRAM-SHA-256 verifier of a plaintext password (random 16-byte salt unless given). */
export async function deriveScramVerifier(
  password: string,
  opts: { salt?: Buffer; iterations?: number } = {},
): Promise<ScramVerifier> {
  const salt = opts.salt ?? crypto.randomBytes(SALT_BYTES);
  const iterations = opts.iterations ?? SCRAM_DEFAULT_ITERATIONS;
  const salted = await pbkdf2(Buffer.from(saslPrep(password), 'utf8'), salt, iterations, KEY_BYTES, 'sha256');
  return {
    iterations,
    salt: Buffer.from(salt),
    storedKey: sha256(hmac(salted, 'Client Key')),
    serverKey: hmac(salted, 'Server Key'),
  };
}

/** A malformed SCRAM message: a protocol violation (FATAL 08P01, as PostgreSQL's "malformed SCRAM message"). */
function malformed(detail: string): PgWireError {
  return new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `malformed SCRAM message: ${detail}`, true);
}

/** Wrong password (or unknown user): FATAL 28P01 (reference api.md §3). */
export function scramAuthFailed(): PgWireError {
  return new PgWireError(SQLSTATE.INVALID_PASSWORD, 'password authentication failed', true);
}

/** Printable ASCII except ',' (RFC 5802 `printable`). */
const NONCE_RE = /^[\x21-\x2b\x2d-\x7e]+$/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Splits `k=v,k=v` attributes, each a single letter and '='. */
function attributes(msg: string, what: string): Array<[string, string]> {
  return msg.split(',').map((part) => {
    if (!/^[A-Za-z]=/.test(part)) throw malformed(`${what}: expected attribute "x=value", got "${part.slice(0, 20)}"`);
    return [part[0]!, part.slice(2)];
  });
}

function decodeBase64(s: string, what: string): Buffer {
  if (!BASE64_RE.test(s)) throw malformed(`${what} is not valid base64`);
  return Buffer.from(s, 'base64');
}

/** A saslname: `=2C` and `=3D` escapes only. */
function saslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw malformed('invalid escape in user name');
  return s.replaceAll('=2C', ',').replaceAll('=3D', '=');
}

type ScramState = 'client-first' | 'client-final' | 'done' | 'failed';

/**
 * One SCRAM-SHA-256 exchange on the server. Without a verifier (unknown user) the exchange runs
 * with a random one and fails at the end, so clients cannot tell unknown users from wrong passwords.
 */
export class ScramServerSession {
  private state: ScramState = 'client-first';
  private readonly verifier: ScramVerifier;
  private readonly mock: boolean;
  private readonly serverNonce: string;
  private gs2Header = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';

  constructor(verifier: ScramVerifier | undefined, opts: { serverNonce?: string } = {}) {
    this.mock = verifier === undefined;
    this.verifier = verifier ?? {
      iterations: SCRAM_DEFAULT_ITERATIONS,
      salt: crypto.randomBytes(SALT_BYTES),
      storedKey: crypto.randomBytes(KEY_BYTES),
      serverKey: crypto.randomBytes(KEY_BYTES),
    };
    this.serverNonce = opts.serverNonce ?? crypto.randomBytes(18).toString('base64');
    if (!NONCE_RE.test(this.serverNonce)) throw new Error('server nonce must be printable ASCII without commas');
  }

  /** Whether the exchange has succeeded. */
  get succeeded(): boolean {
    return this.state === 'done';
  }

  /** Reads client-first-message (the data of SASLInitialResponse) and returns server-first-message. */
  clientFirst(data: Buffer | string): string {
    this.step('client-first');
    try {
      const msg = text(data);
      // gs2-header: gs2-cbind-flag "," [authzid] ","
      const c1 = msg.indexOf(',');
      const c2 = c1 < 0 ? -1 : msg.indexOf(',', c1 + 1);
      if (c2 < 0) throw malformed('missing GS2 header');
      const flag = msg.slice(0, c1);
      const authzid = msg.slice(c1 + 1, c2);
      if (flag.startsWith('p=')) {
        throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, 'channel binding is not supported: the client selected SCRAM-SHA-256 with channel binding', true);
      }
      if (flag !== 'n' && flag !== 'y') throw malformed(`unexpected channel-binding flag "${flag.slice(0, 10)}"`);
      if (authzid !== '' && !authzid.startsWith('a=')) throw malformed('invalid authorization identity');
      if (authzid !== '') throw new PgWireError(SQLSTATE.FEATURE_NOT_SUPPORTED, 'client uses authorization identity, but it is not supported', true);
      this.gs2Header = msg.slice(0, c2 + 1);
      this.clientFirstBare = msg.slice(c2 + 1);
      const attrs = attributes(this.clientFirstBare, 'client-first-message');
      const [n, r] = attrs;
      if (n?.[0] === 'm') throw malformed('mandatory extensions are not supported');
      if (!n || n[0] !== 'n') throw malformed('expected user name attribute "n"');
      saslName(n[1]);
      if (!r || r[0] !== 'r') throw malformed('expected nonce attribute "r"');
      if (!NONCE_RE.test(r[1])) throw malformed('invalid client nonce');
      this.nonce = r[1] + this.serverNonce;
      this.serverFirst = `r=${this.nonce},s=${this.verifier.salt.toString('base64')},i=${this.verifier.iterations}`;
      this.state = 'client-final';
      return this.serverFirst;
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  /**
   * Reads client-final-message (the data of SASLResponse), checks the proof and returns
   * server-final-message. Throws 28P01 for a wrong proof, 08P01 for a malformed message.
   */
  clientFinal(data: Buffer | string): string {
    this.step('client-final');
    try {
      const msg = text(data);
      const pIdx = msg.lastIndexOf(',p=');
      if (pIdx < 0) throw malformed('missing proof');
      const withoutProof = msg.slice(0, pIdx);
      const attrs = attributes(withoutProof, 'client-final-message');
      const [c, r] = attrs;
      if (!c || c[0] !== 'c') throw malformed('expected channel binding attribute "c"');
      if (!r || r[0] !== 'r') throw malformed('expected nonce attribute "r"');
      const cbind = decodeBase64(c[1], 'channel binding');
      if (!cbind.equals(Buffer.from(this.gs2Header, 'utf8'))) throw malformed('unexpected SCRAM channel-binding attribute in client-final-message');
      if (r[1] !== this.nonce) throw malformed('nonce does not match');
      const proof = decodeBase64(msg.slice(pIdx + 3), 'proof');
      if (proof.length !== KEY_BYTES) throw malformed('invalid proof length');
      const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
      const clientSignature = hmac(this.verifier.storedKey, authMessage);
      const clientKey = Buffer.alloc(KEY_BYTES);
      for (let i = 0; i < KEY_BYTES; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
      const ok = crypto.timingSafeEqual(sha256(clientKey), this.verifier.storedKey);
      if (!ok || this.mock) throw scramAuthFailed();
      this.state = 'done';
      return `v=${hmac(this.verifier.serverKey, authMessage).toString('base64')}`;
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  private step(expected: ScramState): void {
    if (this.state !== expected) throw malformed(`unexpected message: the exchange is at ${this.state}`);
  }
}

function text(data: Buffer | string): string {
  const s = typeof data === 'string' ? data : data.toString('utf8');
  if (s.includes('\0')) throw malformed('NUL byte in message');
  return s;
}
