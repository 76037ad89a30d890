/**
 * Credentials of an HTTP request (reference api.md §3, GreptimeDB `servers/src/http/authorize.rs`):
 * `x-tsdb-auth` or else `Authorization`, holding `Basic <base64(user:password)>` (scheme in any
 * case). Errors are 7003 (no header), 7004 (malformed), or 7002 for a Bearer token, which the static
 * user providers do not support.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

export const AUTH_HEADER = 'x-tsdb-auth';

type Headers = Record<string, string | string[] | undefined>;

/** A header by name in any case; the first of repeated values. */
function header(headers: Headers, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

function invalidHeader(message = 'Invalid http authorization header'): TsdbError {
  return new TsdbError(StatusCode.InvalidAuthHeader, message);
}

/** Standard base64 with padding, canonical (as Rust's `BASE64_STANDARD` decodes), or undefined. */
function strictBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function credentialsFromHeaders(headers: Headers): Credentials {
  const value = header(headers, AUTH_HEADER) ?? header(headers, 'authorization');
  if (value === undefined) throw new TsdbError(StatusCode.AuthHeaderNotFound, 'Not found http or grpc authorization header');
  // Header values must be visible ASCII (or tab), as hyper's `to_str` demands.
  if (/[^\t\x20-\x7e]/.test(value)) throw invalidHeader('Invalid visibility ASCII chars');

  const space = value.indexOf(' ');
  if (space < 0) throw invalidHeader();
  const scheme = value.slice(0, space).toLowerCase();
  const encoded = value.slice(space + 1);
  if (encoded.includes(' ')) throw invalidHeader();
  if (scheme === 'bearer') throw new TsdbError(StatusCode.UserPasswordMismatch, 'Unsupported authentication method: bearer token');
  if (scheme !== 'basic') throw invalidHeader(`Unsupported http auth scheme, name: ${scheme}`);

  const bytes = strictBase64(encoded);
  if (bytes === undefined) throw invalidHeader('Invalid base64 value');
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw invalidHeader('Invalid utf-8 value');
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw invalidHeader();
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
