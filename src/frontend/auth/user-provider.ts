/**
 * User providers (reference api.md §3, GreptimeDB `src/auth/src/user_provider*.rs`): the users of
 * `static_user_provider:cmd:u1=p1,u2=p2`, `static_user_provider:file:<path>` (read once) and
 * `watch_file_user_provider:<path>` (re-read when the file changes; a bad reload keeps the previous
 * users), each with a permission and a password verifier — a plain password or a salted hash.
 *
 * Passwords and verifiers never appear in errors or logs: a skipped line is reported by number.
 * Comparisons run in constant time on equal-length digests.
 */
import crypto from 'node:crypto';
import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';

export type Permission = 'read_write' | 'read_only' | 'write_only';

export interface UserInfo {
  readonly username: string;
  readonly permission: Permission;
}

/** The user of every request when no provider is configured (upstream `greptime`). */
export const DEFAULT_USER: UserInfo = Object.freeze({ username: 'tsdb', permission: 'read_write' });

/** How a user's password is checked: what the user file holds after the `=`. */
export type Verifier =
  | { readonly kind: 'plain'; readonly password: string }
  | { readonly kind: 'pbkdf2_sha256'; readonly iterations: number; readonly salt: Buffer; readonly hash: Buffer }
  /** `hashStage2` = SHA1(SHA1(password)), what MySQL keeps for `mysql_native_password`. */
  | { readonly kind: 'mysql_native_password'; readonly hashStage2: Buffer }
  | {
      readonly kind: 'pg_scram_sha256';
      readonly iterations: number;
      readonly salt: Buffer;
      readonly storedKey: Buffer;
      readonly serverKey: Buffer;
    };

export type VerifierKind = Verifier['kind'];

/** One user as configured; for the MySQL and PostgreSQL handshakes, which need the verifier itself. */
export interface UserEntry {
  readonly username: string;
  readonly permission: Permission;
  readonly verifier: Verifier;
}

export interface UserProvider {
  /**
   * Checks a cleartext password. Throws TsdbError: 1004 `Illegal param: blank username|password`,
   * 7000 `User not found, username: <u>`, 7002 `Username and password does not match, username: <u>`.
   */
  authenticate(username: string, password: string): Promise<UserInfo>;
  /** The user's entry (a copy), or undefined for an unknown user. */
  userEntry(username: string): UserEntry | undefined;
  /** The verifier kinds in use (PostgreSQL offers SCRAM only if all are `plain`/`pg_scram_sha256`). */
  verifierKinds(): ReadonlySet<VerifierKind>;
  /** Stops watching the user file, if any. */
  close(): void;
}

const CMD_PREFIX = 'static_user_provider:cmd:';
const FILE_PREFIX = 'static_user_provider:file:';
const WATCH_PREFIX = 'watch_file_user_provider:';

/** Upper bound on PBKDF2 iterations (upstream's): a verifier must not make a login take minutes. */
export const MAX_ITERATIONS = 1_000_000;

const pbkdf2 = promisify(crypto.pbkdf2);

// ---------------------------------------------------------------------------------------------
// Parsing

const PERMISSIONS: Readonly<Record<string, Permission>> = {
  rw: 'read_write',
  readwrite: 'read_write',
  read_write: 'read_write',
  ro: 'read_only',
  readonly: 'read_only',
  read_only: 'read_only',
  wo: 'write_only',
  writeonly: 'write_only',
  write_only: 'write_only',
};

function hexBytes(text: string | undefined): Buffer | undefined {
  if (text === undefined || !/^(?:[0-9a-fA-F]{2})+$/.test(text)) return undefined;
  return Buffer.from(text, 'hex');
}

function iterationsOf(text: string | undefined): number | undefined {
  if (text === undefined || !/^[0-9]{1,7}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= MAX_ITERATIONS ? n : undefined;
}

/**
 * The verifier a user file holds after `=`, or a reason (without the secret) it is invalid.
 * Text without a known `<kind>:` prefix is a plain password; `plain:` allows any text.
 */
export function parseVerifier(text: string): Verifier | string {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const rest = text.slice(colon + 1);
  switch (kind) {
    case 'plain':
      return rest === '' ? 'empty password' : { kind: 'plain', password: rest };
    case 'pbkdf2_sha256': {
      const parts = rest.split(':');
      const iterations = iterationsOf(parts[0]);
      const salt = hexBytes(parts[1]);
      const hash = hexBytes(parts[2]);
      if (parts.length !== 3 || iterations === undefined || salt === undefined || hash === undefined) {
        return `invalid pbkdf2_sha256 verifier; expected pbkdf2_sha256:<iterations 1..${MAX_ITERATIONS}>:<hex salt>:<hex hash>`;
      }
      return { kind, iterations, salt, hash };
    }
    case 'mysql_native_password': {
      // MySQL's own `authentication_string` form starts with `*`.
      const hashStage2 = hexBytes(rest.startsWith('*') ? rest.slice(1) : rest);
      if (hashStage2?.length !== 20) {
        return 'invalid mysql_native_password verifier; expected mysql_native_password:<40 hex digits of SHA1(SHA1(password))>';
      }
      return { kind, hashStage2 };
    }
    case 'pg_scram_sha256': {
      const parts = rest.split(':');
      const iterations = iterationsOf(parts[0]);
      const salt = hexBytes(parts[1]);
      const storedKey = hexBytes(parts[2]);
      const serverKey = hexBytes(parts[3]);
      if (
        parts.length !== 4 || iterations === undefined || salt === undefined ||
        storedKey?.length !== 32 || serverKey?.length !== 32
      ) {
        return `invalid pg_scram_sha256 verifier; expected pg_scram_sha256:<iterations 1..${MAX_ITERATIONS}>:<hex salt>:<64 hex StoredKey>:<64 hex ServerKey>`;
      }
      return { kind, iterations, salt, storedKey, serverKey };
    }
    default:
      return text === '' ? 'empty password' : { kind: 'plain', password: text };
  }
}

/**
 * One credential: `user=verifier` or `user:<perm>=verifier` with exactly one `=`. Returns the entry
 * or a reason it is invalid (never quoting the line: it may hold a password).
 */
export function parseUserLine(line: string): UserEntry | string {
  const parts = line.split('=');
  if (parts.length !== 2) return 'expected exactly one "=" (user=password or user:<permission>=password)';
  const [userPart, verifierText] = parts as [string, string];
  const colon = userPart.indexOf(':');
  const username = colon < 0 ? userPart : userPart.slice(0, colon);
  let permission: Permission = 'read_write';
  if (colon >= 0) {
    const p = PERMISSIONS[userPart.slice(colon + 1).toLowerCase()];
    if (p === undefined) return 'unknown permission; expected rw|readwrite|read_write, ro|readonly|read_only or wo|writeonly|write_only';
    permission = p;
  }
  if (username === '') return 'empty user name';
  const verifier = parseVerifier(verifierText);
  if (typeof verifier === 'string') return verifier;
  return { username, permission, verifier };
}

type Users = ReadonlyMap<string, UserEntry>;

interface LineProblem {
  readonly line: number;
  readonly reason: string;
}

/** The users of a user file's text: comments (`#`) and blank lines ignored, invalid lines collected. */
export function parseUserFile(text: string): { users: Users; problems: LineProblem[] } {
  const users = new Map<string, UserEntry>();
  const problems: LineProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const entry = parseUserLine(line);
    if (typeof entry === 'string') problems.push({ line: i + 1, reason: entry });
    else users.set(entry.username, entry);
  });
  return { users, problems };
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** Reads and parses a user file; throws InvalidArguments when unreadable or without a valid user. */
function loadUserFile(path: string, logger: Logger | undefined): Users {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalid(`Cannot read user file "${path}": ${errorMessage(err)}`);
  }
  const { users, problems } = parseUserFile(text);
  for (const p of problems) logger?.warn({ file: path, line: p.line, reason: p.reason }, 'skipped an invalid line of the user file');
  if (users.size === 0) throw invalid(`User file "${path}" must contain at least one valid user`);
  return users;
}

function parseCmd(content: string): Users {
  const users = new Map<string, UserEntry>();
  content.split(',').forEach((item, i) => {
    if (item.trim() === '') return;
    const entry = parseUserLine(item);
    if (typeof entry === 'string') throw invalid(`Invalid user provider ${CMD_PREFIX}…: entry ${i + 1}: ${entry}`);
    users.set(entry.username, entry);
  });
  if (users.size === 0) throw invalid(`Invalid user provider: expected "${CMD_PREFIX}<user>=<password>[,<user>=<password>…]"`);
  return users;
}

// ---------------------------------------------------------------------------------------------
// Verification

function sha1(data: Buffer | string): Buffer {
  return crypto.createHash('sha1').update(data).digest();
}

function sha256(data: Buffer | string): Buffer {
  return crypto.createHash('sha256').update(data).digest();
}

/**
 * Constant-time equality of two digests. Callers pass digests of one length by construction; a
 * length mismatch (a malformed verifier) is unequal without looking at the bytes.
 */
function digestsEqual(a: Buffer, b: Buffer): boolean {
  // Through the module object so tests can observe the call.
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** SHA1(SHA1(password)), the `mysql_native_password` hash of a plain password. */
export function mysqlNativeHash(password: string): Buffer {
  return sha1(sha1(Buffer.from(password, 'utf8')));
}

/** The SHA1(SHA1(password)) a MySQL challenge-response needs, if the verifier can give it. */
export function mysqlHashStage2(verifier: Verifier): Buffer | undefined {
  if (verifier.kind === 'plain') return mysqlNativeHash(verifier.password);
  if (verifier.kind === 'mysql_native_password') return Buffer.from(verifier.hashStage2);
  return undefined;
}

/** Whether a cleartext password matches a verifier (constant-time on the digests). */
export async function verifyPassword(verifier: Verifier, password: string): Promise<boolean> {
  const pwd = Buffer.from(password, 'utf8');
  switch (verifier.kind) {
    case 'plain':
      return digestsEqual(sha256(pwd), sha256(Buffer.from(verifier.password, 'utf8')));
    case 'pbkdf2_sha256': {
      const derived = await pbkdf2(pwd, verifier.salt, verifier.iterations, verifier.hash.length, 'sha256');
      return digestsEqual(derived, verifier.hash);
    }
    case 'mysql_native_password':
      return digestsEqual(mysqlNativeHash(password), verifier.hashStage2);
    case 'pg_scram_sha256': {
      // RFC 5802 / 7677: SaltedPassword, ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey = H(ClientKey).
      const salted = await pbkdf2(pwd, verifier.salt, verifier.iterations, 32, 'sha256');
      const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
      return digestsEqual(sha256(clientKey), verifier.storedKey);
    }
  }
}

function copyVerifier(v: Verifier): Verifier {
  switch (v.kind) {
    case 'plain':
      return { ...v };
    case 'pbkdf2_sha256':
      return { ...v, salt: Buffer.from(v.salt), hash: Buffer.from(v.hash) };
    case 'mysql_native_password':
      return { ...v, hashStage2: Buffer.from(v.hashStage2) };
    case 'pg_scram_sha256':
      return { ...v, salt: Buffer.from(v.salt), storedKey: Buffer.from(v.storedKey), serverKey: Buffer.from(v.serverKey) };
  }
}

// ---------------------------------------------------------------------------------------------
// Providers

class StaticUserProvider implements UserProvider {
  constructor(protected users: Users) {}

  /** The users to check against; the watching provider re-reads its file here when it changed. */
  protected current(): Users {
    return this.users;
  }

  async authenticate(username: string, password: string): Promise<UserInfo> {
    if (username === '') throw new TsdbError(StatusCode.InvalidArguments, 'Illegal param: blank username');
    const entry = this.current().get(username);
    if (entry === undefined) throw new TsdbError(StatusCode.UserNotFound, `User not found, username: ${username}`);
    if (password === '') throw new TsdbError(StatusCode.InvalidArguments, 'Illegal param: blank password');
    if (!(await verifyPassword(entry.verifier, password))) {
      throw new TsdbError(StatusCode.UserPasswordMismatch, `Username and password does not match, username: ${username}`);
    }
    return { username: entry.username, permission: entry.permission };
  }

  userEntry(username: string): UserEntry | undefined {
    const entry = this.current().get(username);
    return entry === undefined ? undefined : { ...entry, verifier: copyVerifier(entry.verifier) };
  }

  verifierKinds(): ReadonlySet<VerifierKind> {
    return new Set([...this.current().values()].map((e) => e.verifier.kind));
  }

  close(): void {}
}

/** What identifies a version of the file: a change of any part means it was written or replaced. */
function fileSignature(path: string): string | undefined {
  try {
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    return st === undefined ? undefined : `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}

const RELOAD_DELAY_MS = 20;

/**
 * Re-reads the file on a change seen by fs.watch (on its directory, so an editor's rename-over-it
 * counts) and, in case an event is missed or late, whenever the file's stat differs on use.
 */
class WatchFileUserProvider extends StaticUserProvider {
  private seen: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly logger: Logger | undefined,
  ) {
    const seen = fileSignature(path);
    super(loadUserFile(path, logger));
    this.seen = seen;
    try {
      const name = basename(path);
      this.watcher = watch(dirname(path), { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) this.schedule();
      });
      this.watcher.on('error', (err) => logger?.warn({ file: path, err: errorMessage(err) }, 'stopped watching the user file; changes are seen on use'));
    } catch (err) {
      logger?.warn({ file: path, err: errorMessage(err) }, 'cannot watch the user file; changes are seen on use');
    }
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reloadIfChanged();
    }, RELOAD_DELAY_MS);
    this.timer.unref();
  }

  private reloadIfChanged(): void {
    const sig = fileSignature(this.path);
    if (sig === this.seen) return;
    this.seen = sig;
    if (sig === undefined) {
      this.logger?.warn({ file: this.path }, 'user file is gone; keeping the previous users');
      return;
    }
    try {
      this.users = loadUserFile(this.path, this.logger);
      this.logger?.info({ file: this.path, users: this.users.size }, 'reloaded the user file');
    } catch (err) {
      this.logger?.warn({ file: this.path, err: errorMessage(err) }, 'bad user file; keeping the previous users');
    }
  }

  protected override current(): Users {
    this.reloadIfChanged();
    return this.users;
  }

  override close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * The provider of a `user_provider` option value. Throws TsdbError InvalidArguments on an unknown
 * form, an invalid `cmd` entry, or a file that cannot be read or holds no valid user.
 */
export function createUserProvider(spec: string, opts: { logger?: Logger } = {}): UserProvider {
  if (spec.startsWith(CMD_PREFIX)) return new StaticUserProvider(parseCmd(spec.slice(CMD_PREFIX.length)));
  for (const prefix of [FILE_PREFIX, WATCH_PREFIX]) {
    if (!spec.startsWith(prefix)) continue;
    const path = spec.slice(prefix.length);
    if (path === '') throw invalid(`Invalid user provider: expected "${prefix}<path>"`);
    return prefix === FILE_PREFIX ? new StaticUserProvider(loadUserFile(path, opts.logger)) : new WatchFileUserProvider(path, opts.logger);
  }
  // The name only when it looks like one: a mistyped value may hold a password.
  const name = spec.split(':')[0] ?? '';
  throw invalid(
    `Invalid user provider: unknown user provider${/^\w+$/.test(name) ? ` "${name}"` : ''}; expected ${CMD_PREFIX}<user>=<password>,…, ${FILE_PREFIX}<path> or ${WATCH_PREFIX}<path>`,
  );
}
