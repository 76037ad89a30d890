/**
 * What a GreptimeDatabase request says about who asks, where and how (reference api.md §6, §7):
 * - credentials: `RequestHeader.authorization` (basic username/password; a token is refused by the
 *   static user providers), else metadata `authorization` / `x-greptime-auth` / `x-tsdb-auth`
 *   holding `Basic <base64(user:password)>` (or the bare base64);
 * - database: `dbname` (`<catalog>-<schema>` or `<schema>`) wins, else `catalog`/`schema`
 *   (lower-cased; empty: tsdb/public), else metadata `x-greptime-db-name` / `x-tsdb-db-name`; the
 *   catalog is `tsdb`, or `greptime` as GreptimeDB's SDKs send it by default;
 * - time zone: the header's `timezone`, else metadata `x-greptime-timezone` / `x-tsdb-timezone`,
 *   else UTC; an invalid zone is refused (InvalidArguments), as over HTTP;
 * - hints: metadata `x-greptime-hints: k=v,k2=v2` or `x-greptime-hint-<k>: v` (and the `x-tsdb-`
 *   forms). Used: auto_create_table, ttl, append_mode, merge_mode. Accepted and ignored: every other
 *   hint (physical_table, skip_wal, read_preference, …).
 */
import type * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { isValidTimeZone } from '../../common/time/timestamp.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { IngestOptions } from '../../frontend/ingest-request.js';
import type { AuthHandler } from '../handlers.js';
import { credentialsFromHeaders, type Credentials } from '../http/basic-auth.js';

/** The catalog every database is in. */
const CATALOG = 'tsdb';
/** GreptimeDB's name of it, which its SDKs send by default (`greptime`): accepted as the same catalog. */
const SDK_CATALOG = 'greptime';

/** Whether `name` is the one catalog: `tsdb`, or `greptime` as GreptimeDB's SDKs name it. */
export function isCatalog(name: string): boolean {
  return name === CATALOG || name === SDK_CATALOG;
}

/** `greptime.v1.RequestHeader` as the proto loader decodes it. */
export interface RequestHeader {
  readonly catalog?: string;
  readonly schema?: string;
  readonly dbname?: string;
  readonly timezone?: string;
  readonly authorization?: {
    readonly auth_scheme?: 'basic' | 'token';
    readonly basic?: { readonly username: string; readonly password: string } | null;
    readonly token?: { readonly token: string } | null;
  } | null;
}

/** First value of a metadata key (any of `keys`) as text. */
export function metadataValue(md: grpc.Metadata, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = md.get(k)[0];
    if (v !== undefined) return typeof v === 'string' ? v : v.toString('utf8');
  }
  return undefined;
}

/** The credentials of a request: its header's, else its metadata's; 7003 when neither has any. */
export function credentialsOf(header: RequestHeader | null | undefined, md: grpc.Metadata): Credentials {
  const auth = header?.authorization;
  if (auth?.auth_scheme === 'basic' && auth.basic != null) return { username: auth.basic.username, password: auth.basic.password };
  // As an HTTP Bearer token: the static user providers check usernames and passwords only (reference api.md §7).
  if (auth?.auth_scheme === 'token') throw new TsdbError(StatusCode.UserPasswordMismatch, 'Unsupported authentication method: bearer token');
  const value = metadataValue(md, 'x-greptime-auth', 'x-tsdb-auth', 'authorization');
  if (value === undefined) throw new TsdbError(StatusCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
  const text = value.trim();
  // The bare base64 of `user:password`, as Flight clients send it (reference api.md §3).
  if (!text.includes(' ')) return credentialsFromHeaders({ authorization: `Basic ${text}` });
  return credentialsFromHeaders({ authorization: text });
}

/** Who asks: the default user without a user provider, else the authenticated user. */
export async function userOf(header: RequestHeader | null | undefined, md: grpc.Metadata, auth: AuthHandler | undefined): Promise<UserInfo> {
  if (auth === undefined) return DEFAULT_USER;
  const { username, password } = credentialsOf(header, md);
  return auth.authenticate(username, password);
}

/** The database a request names (reference api.md §0 "DB string"). */
export function databaseOf(header: RequestHeader | null | undefined, md: grpc.Metadata): string {
  const fromDbname = (db: string): string => {
    const dash = db.indexOf('-');
    if (dash < 0) return db;
    const catalog = db.slice(0, dash);
    if (!isCatalog(catalog)) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${db}`);
    return db.slice(dash + 1);
  };
  if (header?.dbname) return fromDbname(header.dbname);
  if (header?.catalog || header?.schema) {
    const catalog = (header.catalog || CATALOG).toLowerCase();
    const schema = (header.schema || 'public').toLowerCase();
    if (!isCatalog(catalog)) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${catalog}-${schema}`);
    return schema;
  }
  const fromMetadata = metadataValue(md, 'x-greptime-db-name', 'x-tsdb-db-name');
  return fromMetadata !== undefined && fromMetadata.trim() !== '' ? fromDbname(fromMetadata.trim()) : 'public';
}

/** The request's time zone; UTC when none is given. */
export function timezoneOf(header: RequestHeader | null | undefined, md: grpc.Metadata, fallback = 'UTC'): string {
  const given = header?.timezone?.trim() || metadataValue(md, 'x-greptime-timezone', 'x-tsdb-timezone')?.trim() || '';
  if (given === '') return fallback;
  if (!isValidTimeZone(given)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time zone: ${given}`);
  return given;
}

/** Every hint of the metadata, by lower-cased key; `x-…-hint-<k>` wins over the same key in `x-…-hints`. */
export function hintsOf(md: grpc.Metadata): Map<string, string> {
  const hints = new Map<string, string>();
  for (const key of ['x-greptime-hints', 'x-tsdb-hints']) {
    for (const v of md.get(key)) {
      for (const pair of String(v).split(',')) {
        const eq = pair.indexOf('=');
        if (eq < 0) {
          if (pair.trim() !== '') throw new TsdbError(StatusCode.InvalidArguments, `Invalid hint in ${key}: '${pair.trim()}' (expected key=value)`);
          continue;
        }
        hints.set(pair.slice(0, eq).trim().toLowerCase(), pair.slice(eq + 1).trim());
      }
    }
  }
  for (const [key, values] of Object.entries(md.getMap())) {
    const m = /^x-(?:greptime|tsdb)-hint-(.+)$/.exec(key);
    if (m !== null && values !== undefined) hints.set(m[1]!.toLowerCase(), String(values).trim());
  }
  return hints;
}

function booleanHint(name: string, value: string): boolean {
  const v = value.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new TsdbError(StatusCode.InvalidArguments, `Invalid hint ${name}: '${value}', expected true or false`);
}

/** The ingest options the hints give (auto_create_table, ttl, append_mode, merge_mode). */
export function ingestOptionsOf(hints: ReadonlyMap<string, string>): IngestOptions {
  const opts: { autoCreateTable?: boolean; ttl?: string; appendMode?: boolean; mergeMode?: 'last_row' | 'last_non_null' } = {};
  const auto = hints.get('auto_create_table');
  if (auto !== undefined) opts.autoCreateTable = booleanHint('auto_create_table', auto);
  const ttl = hints.get('ttl');
  if (ttl !== undefined && ttl !== '') opts.ttl = ttl;
  const append = hints.get('append_mode');
  if (append !== undefined) opts.appendMode = booleanHint('append_mode', append);
  const merge = hints.get('merge_mode');
  if (merge !== undefined) {
    const m = merge.toLowerCase();
    if (m !== 'last_row' && m !== 'last_non_null') throw new TsdbError(StatusCode.InvalidArguments, `Invalid hint merge_mode: '${merge}', expected last_row or last_non_null`);
    if (opts.appendMode === true) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid hints: merge_mode cannot be set with append_mode=true');
    opts.mergeMode = m;
  }
  return opts;
}
