/**
 * Who asks and where, for a Flight call (reference api.md §6): the database, time zone and user
 * from the ticket's RequestHeader (DoGet) or from the call's metadata (DoPut, and DoGet when the
 * header leaves them out).
 *
 * - Database: the header's `dbname` (`<catalog>-<schema>` or `<schema>`) wins over its `catalog` and
 *   `schema` (lower-cased); then metadata `x-greptime-db-name` / `x-tsdb-db-name`; else `public`.
 *   The catalog is `tsdb` (GreptimeDB's `greptime` is accepted as the same, for its SDKs' defaults).
 * - Time zone: the header's `timezone`, else metadata `x-greptime-timezone` / `x-tsdb-timezone`, else UTC.
 * - User: with a user provider, the header's `authorization.basic`, else metadata `authorization`
 *   (or `x-greptime-auth` / `x-tsdb-auth`) holding `Basic <base64(user:password)>` (a bare
 *   base64 value is taken as Basic, as GreptimeDB does); a token is refused (InvalidAuthHeader) like
 *   HTTP's bearer tokens. Without a provider, the default user.
 */
import type * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { isValidTimeZone } from '../../common/time/timestamp.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { credentialsFromHeaders } from '../http/basic-auth.js';
import type { RequestHeaderMessage } from './greptime-messages.js';

export const DB_NAME_METADATA = ['x-greptime-db-name', 'x-tsdb-db-name'] as const;
export const TIMEZONE_METADATA = ['x-greptime-timezone', 'x-tsdb-timezone'] as const;
export const AUTH_METADATA = ['authorization', 'x-greptime-auth', 'x-tsdb-auth'] as const;

const CATALOGS = new Set(['tsdb', 'greptime']);

export interface FlightCallContext {
  readonly database: string;
  readonly timezone: string;
  readonly user: UserInfo;
}

/** The first text value of the first of `names` present in the metadata. */
export function metadataText(md: grpc.Metadata, names: readonly string[]): string | undefined {
  for (const name of names) {
    for (const v of md.get(name)) {
      if (typeof v === 'string') return v;
    }
  }
  return undefined;
}

/** `<catalog>-<schema>` or `<schema>` (GreptimeDB `parse_catalog_and_schema_from_db_string`). */
function splitDbName(db: string): { catalog: string; schema: string } {
  const dash = db.indexOf('-');
  return dash < 0 ? { catalog: 'tsdb', schema: db } : { catalog: db.slice(0, dash), schema: db.slice(dash + 1) };
}

function databaseOf(header: RequestHeaderMessage | null | undefined, md: grpc.Metadata): { catalog: string; schema: string; text: string } {
  if (header && header.dbname !== '') return { ...splitDbName(header.dbname), text: header.dbname };
  if (header && (header.catalog !== '' || header.schema !== '')) {
    const catalog = header.catalog === '' ? 'tsdb' : header.catalog.toLowerCase();
    const schema = header.schema === '' ? 'public' : header.schema.toLowerCase();
    return { catalog, schema, text: `${catalog}-${schema}` };
  }
  const fromMd = metadataText(md, DB_NAME_METADATA);
  if (fromMd !== undefined && fromMd.trim() !== '') return { ...splitDbName(fromMd.trim()), text: fromMd.trim() };
  return { catalog: 'tsdb', schema: 'public', text: 'public' };
}

async function userOf(header: RequestHeaderMessage | null | undefined, md: grpc.Metadata, auth: AuthHandler | undefined): Promise<UserInfo> {
  if (auth === undefined) return DEFAULT_USER;
  const scheme = header?.authorization?.auth_scheme;
  if (scheme === 'basic' && header?.authorization?.basic) {
    const { username, password } = header.authorization.basic;
    return auth.authenticate(username, password);
  }
  if (scheme === 'token') throw new TsdbError(StatusCode.InvalidAuthHeader, 'Unsupported authentication scheme: token (tsdb user providers take a username and password)');
  let value = metadataText(md, AUTH_METADATA);
  if (value === undefined) throw new TsdbError(StatusCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
  // A bare credential is Basic (GreptimeDB's older clients send it so).
  if (!/^[A-Za-z]+ /.test(value)) value = `Basic ${value}`;
  const { username, password } = credentialsFromHeaders({ authorization: value });
  return auth.authenticate(username, password);
}

/** Resolves the call's database (which must exist), time zone and user. */
export async function flightCallContext(
  header: RequestHeaderMessage | null | undefined,
  md: grpc.Metadata,
  handlers: { readonly sql: SqlHandler; readonly auth?: AuthHandler | undefined },
): Promise<FlightCallContext> {
  const user = await userOf(header, md, handlers.auth);
  const db = databaseOf(header, md);
  if (!CATALOGS.has(db.catalog) || !(await handlers.sql.databaseExists(db.schema))) {
    throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${db.text}`);
  }
  const given = header && header.timezone !== '' ? header.timezone : metadataText(md, TIMEZONE_METADATA);
  const timezone = given === undefined || given.trim() === '' ? 'UTC' : given.trim();
  if (!isValidTimeZone(timezone)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time zone: ${timezone}`);
  return { database: db.schema, timezone, user };
}
