import { isIP } from 'node:net';

/** A parsed `ip:port` or `host:port`. IPv6 hosts are held without brackets. */
export interface Address {
  readonly host: string;
  readonly port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * Parses an address.
 * - `bind` addresses (where a server listens) must be `ip:port` (IPv6 as `[::1]:4000`); port 0
 *   asks the OS for a free port.
 * - other addresses (where a client connects) may name a host: `meta.example:3002`; port ≥ 1.
 */
export function parseAddress(text: string, opts: { bind: boolean }): Address {
  const s = text.trim();
  const expected = opts.bind ? 'ip:port, e.g. "127.0.0.1:4000"' : 'host:port, e.g. "127.0.0.1:3002"';
  let host: string;
  let portText: string;
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close < 0 || s[close + 1] !== ':') throw new Error(`invalid address "${text}"; expected ${expected}`);
    host = s.slice(1, close);
    portText = s.slice(close + 2);
    if (isIP(host) !== 6) throw new Error(`invalid address "${text}": "${host}" is not an IPv6 address`);
  } else {
    const colon = s.lastIndexOf(':');
    if (colon <= 0) throw new Error(`invalid address "${text}"; expected ${expected}`);
    host = s.slice(0, colon);
    portText = s.slice(colon + 1);
    if (host.includes(':')) {
      throw new Error(`invalid address "${text}": write an IPv6 address in brackets, e.g. "[::1]:4000"`);
    }
    if (isIP(host) === 0) {
      if (opts.bind) throw new Error(`invalid address "${text}": "${host}" is not an IP address; expected ${expected}`);
      if (!HOSTNAME.test(host)) throw new Error(`invalid address "${text}": "${host}" is not a valid host name`);
    }
  }
  if (!/^\d{1,5}$/.test(portText)) throw new Error(`invalid address "${text}": port "${portText}" is not a number`);
  const port = Number(portText);
  if (port > 65535 || (!opts.bind && port === 0)) {
    throw new Error(`invalid address "${text}": port ${port} is out of range (${opts.bind ? 0 : 1}-65535)`);
  }
  return { host, port };
}

/** `host:port`, with IPv6 hosts in brackets. */
export function formatAddress(addr: Address): string {
  return isIP(addr.host) === 6 ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
}
