/** Masking of secrets in configuration shown to users (`GET /config`, logs). */

export const MASK = '******';

/**
 * `static_user_provider:cmd:alice=secret,bob=pw` shows as
 * `static_user_provider:cmd:alice=******,bob=******`; provider forms naming a file show as they are.
 */
export function maskUserProvider(value: string): string {
  const prefix = 'static_user_provider:cmd:';
  if (!value.startsWith(prefix)) return value;
  const users = value
    .slice(prefix.length)
    .split(',')
    .map((entry) => {
      const eq = entry.indexOf('=');
      return eq < 0 ? MASK : `${entry.slice(0, eq)}=${MASK}`;
    });
  return prefix + users.join(',');
}

/**
 * A URL's password (`http://user:pass@host/…` shows as `http://user:******@host/…`); text that is
 * not a URL with a password shows as it is.
 */
export function maskUrlPassword(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.password === '') return value;
  // Only the password's span is replaced, so the rest reads exactly as configured.
  const at = value.indexOf('@');
  const colon = value.lastIndexOf(':', at);
  return at > 0 && colon > 0 ? `${value.slice(0, colon + 1)}${MASK}${value.slice(at)}` : value;
}
