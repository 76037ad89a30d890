/**
 * GreptimeDB's IP address functions on tsdb's DuckDB: `ipv4_num_to_string` (alias `inet_ntoa`),
 * `ipv4_string_to_num`, `ipv4_to_cidr`, `ipv4_in_range`, `ipv6_num_to_string`,
 * `ipv6_string_to_num`, `ipv6_to_cidr`, `ipv6_in_range`.
 *
 * Addresses are read as GreptimeDB reads them, with Rust's strict parsers (four decimal octets
 * without leading zeros; IPv6 groups of one to four hex digits, one `::`, an embedded IPv4 tail)
 * and written as Rust writes them (RFC 5952 compression, `::ffff:a.b.c.d` for mapped addresses),
 * so that answers match GreptimeDB's to the character, its quirks included (the `/0` mask that
 * keeps every bit, the fixed `/32` and `/16` of `ipv6_to_cidr`'s guesses for 2001:db8 and fe80).
 * Errors are its texts: DataFusion's execution errors (`Execution error: …`) and its InvalidFuncArgs
 * (`Invalid function args: …`); both 3001 EngineExecuteQuery (`duckdb-error.ts`).
 * NULL in an argument gives NULL, but for the mask of `ipv*_to_cidr`, whose NULL means "guess".
 */
import { BLOB, BOOLEAN, DuckDBBlobValue, DuckDBScalarFunction, HUGEINT, UINTEGER, VARCHAR, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { registrar, scalar } from './js-functions.js';

const executionError = (message: string): TsdbError => new TsdbError(StatusCode.EngineExecuteQuery, `Execution error: ${message}`);
/**
 * GreptimeDB's InvalidFuncArgs. DataFusion carries it as an external error, and GreptimeDB's answer
 * shows an external error's root cause alone (`output_msg`), as its sqlness shows for st_* errors.
 */
const invalidArgs = (message: string): TsdbError => new TsdbError(StatusCode.EngineExecuteQuery, `Invalid function args: ${message}`);
const castError = (value: unknown, type: string): TsdbError => new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Can't cast value ${String(value)} to type ${type}`);

const OCTET = /^(?:0|[1-9][0-9]{0,2})$/;

/** An IPv4 address as Rust's `Ipv4Addr::from_str` reads it (unsigned 32-bit), or undefined. */
export function parseIpv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!OCTET.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export const formatIpv4 = (n: number): string => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Groups of one side of `::` (the last may be dotted IPv4, counting two), or undefined. */
function ipv6Groups(side: string): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const out: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (GROUP.test(p)) {
      out.push(parseInt(p, 16));
    } else if (i === parts.length - 1 && p.includes('.')) {
      const v4 = parseIpv4(p);
      if (v4 === undefined) return undefined;
      out.push(v4 >>> 16, v4 & 0xffff);
    } else {
      return undefined;
    }
  }
  return out;
}

/** An IPv6 address as Rust's `Ipv6Addr::from_str` reads it (its eight 16-bit groups), or undefined. */
export function parseIpv6(s: string): number[] | undefined {
  const at = s.indexOf('::');
  if (at < 0) {
    const g = ipv6Groups(s);
    return g !== undefined && g.length === 8 ? g : undefined;
  }
  const tail = s.slice(at + 2);
  if (tail.includes('::')) return undefined;
  const head = ipv6Groups(s.slice(0, at));
  const rest = ipv6Groups(tail);
  // `::` stands for one zero group at least; a dotted IPv4 only ends the address.
  if (head === undefined || rest === undefined || head.length + rest.length > 7 || s.slice(0, at).includes('.')) return undefined;
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

/** An IPv6 address as Rust's `Display` writes it. */
export function formatIpv6(g: readonly number[]): string {
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `::ffff:${formatIpv4(((g[6]! << 16) | g[7]!) >>> 0)}`;
  let start = 0;
  let len = 0;
  for (let i = 0, s = 0, l = 0; i < 8; i++) {
    if (g[i] === 0) {
      if (l === 0) s = i;
      l++;
      if (l > len) [start, len] = [s, l];
    } else {
      l = 0;
    }
  }
  const hex = (xs: readonly number[]): string => xs.map((x) => x.toString(16)).join(':');
  return len > 1 ? `${hex(g.slice(0, start))}::${hex(g.slice(start + len))}` : hex(g);
}

/** The octets of eight groups. */
const octets = (g: readonly number[]): number[] => g.flatMap((x) => [x >>> 8, x & 255]);
const groupsOf = (b: readonly number[]): number[] => Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);

/** A mask as GreptimeDB casts it to UInt8. */
function uint8(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw castError(value, 'UInt8');
  return n;
}

/** `ipv4_num_to_string`: the value cast to UInt32 (an error outside it), as A.B.C.D. */
export function ipv4NumToString(value: bigint | number): string {
  const n = Number(value);
  if (n < 0 || n > 0xffffffff) throw castError(value, 'UInt32');
  return formatIpv4(n);
}

export function ipv4StringToNum(s: string): number {
  const n = parseIpv4(s);
  if (n === undefined) throw invalidArgs(`Invalid IPv4 address format: ${s}`);
  return n;
}

/** Rust's `u32::MAX.wrapping_shl(32 - mask)` (release arithmetic: the subtraction wraps, the shift takes five bits). */
const ipv4Mask = (mask: number): number => (mask === 32 ? 0xffffffff : (0xffffffff << ((32 - mask) & 31)) >>> 0);

/** `ipv4_to_cidr`: a missing mask is guessed from the octets given or the trailing zero bits. */
export function ipv4ToCidr(ip: string, mask: number | undefined): string {
  if (ip === '') throw executionError('empty IPv4 address');
  let bits = parseIpv4(ip);
  const dots = ip.split('.').length - 1;
  if (bits === undefined) {
    bits = parseIpv4(dots >= 3 ? ip : ip + '.0'.repeat(3 - dots));
    if (bits === undefined) throw invalidArgs(`Invalid IPv4 address: ${ip}`);
  }
  let m = mask;
  if (m === undefined) {
    if (dots < 3) {
      m = 8 * (dots + 1);
    } else {
      let tz = 0;
      while (tz < 32 && ((bits >>> tz) & 1) === 0) tz++;
      m = tz % 8 === 0 ? 32 - tz : 32 - Math.floor(tz / 8) * 8;
    }
  }
  return `${formatIpv4((bits & ipv4Mask(m)) >>> 0)}/${m}`;
}

/** Rust's `u8::from_str` (an optional `+`, decimal digits). */
const parseU8 = (s: string): number | undefined => (/^\+?[0-9]+$/.test(s) && Number(s.replace('+', '')) <= 255 ? Number(s.replace('+', '')) : undefined);

function parseCidr(cidr: string, v: 4 | 6): [number[], number] {
  const parts = cidr.split('/');
  if (parts.length !== 2) throw invalidArgs(`Invalid CIDR notation: ${cidr}`);
  const ip = v === 4 ? parseIpv4(parts[0]!) : parseIpv6(parts[0]!);
  if (ip === undefined) throw invalidArgs(`Invalid IPv${v} address in CIDR: ${parts[0]}`);
  const prefix = parseU8(parts[1]!);
  if (prefix === undefined) throw invalidArgs(`Invalid prefix length: ${parts[1]}`);
  const max = v === 4 ? 32 : 128;
  if (prefix > max) throw invalidArgs(`IPv${v} prefix length must be <= ${max}, got ${prefix}`);
  return [typeof ip === 'number' ? [ip] : octets(ip), prefix];
}

export function ipv4InRange(ip: string, range: string): boolean {
  if (ip === '' || range === '') throw executionError('IP address or CIDR range cannot be empty');
  const addr = parseIpv4(ip);
  if (addr === undefined) throw invalidArgs(`Invalid IPv4 address: ${ip}`);
  const [[base], prefix] = parseCidr(range, 4);
  const mask = prefix === 0 ? 0 : ipv4Mask(prefix);
  return ((addr & mask) >>> 0) === ((base! & mask) >>> 0);
}

export function ipv6InRange(ip: string, range: string): boolean {
  if (ip === '' || range === '') throw executionError('IP address or CIDR range cannot be empty');
  const g = parseIpv6(ip);
  if (g === undefined) throw invalidArgs(`Invalid IPv6 address: ${ip}`);
  const a = octets(g);
  const [b, prefix] = parseCidr(range, 6);
  const full = prefix >>> 3;
  for (let i = 0; i < full; i++) if (a[i] !== b[i]) return false;
  if (prefix % 8 !== 0) {
    const m = (0xff << (8 - (prefix % 8))) & 0xff;
    if ((a[full]! & m) !== (b[full]! & m)) return false;
  }
  return true;
}

/** `ipv6_num_to_string`: 32 hex digits (Rust's `u8::from_str_radix` per pair) as an address. */
export function ipv6NumToString(hex: string): string {
  const s = hex.toLowerCase();
  const len = Buffer.byteLength(s);
  if (len !== 32) throw executionError(`expecting 32 hex characters, got ${len}`);
  const bytes: number[] = [];
  for (let i = 0; i < 16; i++) {
    const pair = s.slice(2 * i, 2 * i + 2);
    if (!/^\+?[0-9a-f]+$/.test(pair)) throw invalidArgs(`Invalid hex characters in '${pair}'`);
    bytes.push(parseInt(pair.replace('+', ''), 16));
  }
  return formatIpv6(groupsOf(bytes));
}

/** `ipv6_string_to_num`: the 16 bytes of an IPv6 address, or of an IPv4 address mapped to IPv6. */
export function ipv6StringToNum(s: string): Uint8Array {
  let g = parseIpv6(s);
  if (g === undefined) {
    const v4 = parseIpv4(s);
    if (v4 === undefined) throw executionError(`Invalid IPv6 address format: ${s}`);
    g = [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff];
  }
  return Uint8Array.from(octets(g));
}

/** GreptimeDB's guess of an IPv6 prefix: its special cases (tested on the address's text there) first. */
function ipv6Subnet(g: readonly number[]): number {
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 32;
  if (g[7] === 1 && g.every((x, i) => i === 7 || x === 0)) return 128;
  if (g[0] === 0xfe80 && formatIpv6(g).startsWith('fe80::')) return 16;
  let subnet = 128;
  for (let i = 7; i >= 0; i--) {
    if (g[i] !== 0) {
      subnet = (g[i]! & 0xff) === 0 ? i * 16 + 8 : (i + 1) * 16;
      break;
    }
  }
  return subnet < 16 ? 64 : subnet;
}

/** `ipv6_to_cidr`: a partial address is completed with `::`; a missing mask is guessed. */
export function ipv6ToCidr(ip: string, mask: number | undefined): string {
  if (ip === '') throw executionError('empty IPv6 address');
  let g = parseIpv6(ip);
  if (g === undefined) {
    g = parseIpv6(ip.endsWith(':') ? `${ip}:` : ip.includes('::') ? ip : `${ip}::`);
    if (g === undefined) throw invalidArgs(`Invalid IPv6 address: ${ip}`);
  }
  const m = mask ?? ipv6Subnet(g);
  for (let i = 0; i < 8; i++) {
    if (16 * i + 16 <= m) continue;
    g[i] = 16 * i < m ? g[i]! & (0xffff << (16 - (m - 16 * i))) & 0xffff : 0;
  }
  return `${formatIpv6(g)}/${m}`;
}

/** A `*_to_cidr` function: NULL address gives NULL, NULL mask a guessed one. */
function cidrFunction(name: string, f: (ip: string, mask: number | undefined) => string): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    parameterTypes: [VARCHAR, HUGEINT],
    returnType: VARCHAR,
    specialHandling: true,
    mainFunction: (info, chunk, output) => {
      try {
        const ips: DuckDBVector = chunk.getColumnVector(0);
        const masks: DuckDBVector = chunk.getColumnVector(1);
        for (let i = 0; i < chunk.rowCount; i++) {
          const ip = ips.getItem(i) as string | null;
          const mask = masks.getItem(i);
          output.setItem(i, (ip === null ? null : f(ip, mask === null ? undefined : uint8(mask))) as never);
        }
        output.flush();
      } catch (err) {
        info.setError(err instanceof TsdbError ? err.message : `Execution error: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  });
}

/** Registers the IP functions on the DuckDB instance of `conn` (idempotent). */
export async function installIpFunctions(conn: DuckDBConnection): Promise<void> {
  const r = registrar(conn);
  const str = (input: DuckDBVector[], c: number, i: number): string => input[c]!.getItem(i) as string;
  for (const name of ['ipv4_num_to_string', 'inet_ntoa']) {
    r.registerScalarFunction(scalar(name, [HUGEINT], VARCHAR, (input, i) => ipv4NumToString(input[0]!.getItem(i) as bigint)));
  }
  r.registerScalarFunction(scalar('ipv4_string_to_num', [VARCHAR], UINTEGER, (input, i) => ipv4StringToNum(str(input, 0, i))));
  r.registerScalarFunction(scalar('ipv4_in_range', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => ipv4InRange(str(input, 0, i), str(input, 1, i))));
  r.registerScalarFunction(scalar('ipv6_in_range', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => ipv6InRange(str(input, 0, i), str(input, 1, i))));
  r.registerScalarFunction(scalar('ipv6_num_to_string', [VARCHAR], VARCHAR, (input, i) => ipv6NumToString(str(input, 0, i))));
  r.registerScalarFunction(scalar('ipv6_string_to_num', [VARCHAR], BLOB, (input, i) => new DuckDBBlobValue(ipv6StringToNum(str(input, 0, i)))));
  r.registerScalarFunction(cidrFunction('__tsdb_ipv4_to_cidr', ipv4ToCidr));
  r.registerScalarFunction(cidrFunction('__tsdb_ipv6_to_cidr', ipv6ToCidr));
  for (const v of ['ipv4', 'ipv6']) {
    await conn.run(`CREATE OR REPLACE MACRO ${v}_to_cidr(ip) AS __tsdb_${v}_to_cidr(ip, NULL), (ip, mask) AS __tsdb_${v}_to_cidr(ip, mask)`);
  }
}
