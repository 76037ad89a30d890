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
