/**
 * The kinds of option values: each parses from TOML (typed) and from text (environment variables,
 * flags), with one clear message for a bad value, and formats back to TOML.
 */
import { formatAddress, parseAddress } from '../common/net/address.js';
import { formatSize, parseSize, type Bytes } from '../common/size/size.js';
import { formatDuration, parseDuration, type Millis } from '../common/time/duration.js';
import { makeField, type Field, type FieldOpts, type RawInfo } from './schema.js';

/** Describes a raw value for a message: `integer 30`, `string "x"`. */
export function describeRaw(raw: unknown, info: RawInfo): string {
  if (info.textual) return JSON.stringify(raw);
  const kind = info.tomlKind ?? typeof raw;
  if (raw instanceof Date) return `${kind} ${raw.toISOString()}`;
  return `${kind} ${JSON.stringify(raw)}`;
}

function expected(what: string, raw: unknown, info: RawInfo): Error {
  return new Error(`expected ${what}, got ${describeRaw(raw, info)}`);
}

/** A TOML string, or any text: the string itself. */
function asText(raw: unknown, info: RawInfo, what: string): string {
  if (typeof raw === 'string' && (info.textual || info.tomlKind === undefined || info.tomlKind === 'string')) {
    return raw;
  }
  throw expected(what, raw, info);
}

export function string(opts: FieldOpts<string>): Field<string> {
  return makeField('string', (raw, info) => asText(raw, info, 'a string'), (v) => v, opts);
}

export function integer(opts: FieldOpts<number> & { min?: number; max?: number }): Field<number> {
  const { min, max } = opts;
  const range =
    min !== undefined && max !== undefined ? ` between ${min} and ${max}` : min !== undefined ? ` ≥ ${min}` : '';
  return makeField(
    'integer',
    (raw, info) => {
      let n: number;
      if (info.textual) {
        const s = String(raw).trim();
        if (!/^[+-]?\d+$/.test(s)) throw expected(`an integer${range}`, raw, info);
        n = Number(s);
      } else {
        if (typeof raw !== 'number' || info.tomlKind === 'float' || !Number.isInteger(raw)) {
          throw expected(`an integer${range}`, raw, info);
        }
        n = raw;
      }
      if (!Number.isSafeInteger(n)) throw new Error(`integer ${JSON.stringify(raw)} is out of range`);
      if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
        throw new Error(`expected an integer${range}, got ${n}`);
      }
      return n;
    },
    (v) => v,
    opts,
  );
}

export function float(opts: FieldOpts<number> & { min?: number; max?: number }): Field<number> {
  const { min, max } = opts;
  return makeField(
    'float',
    (raw, info) => {
      let n: number;
      if (info.textual) {
        const s = String(raw).trim();
        if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw expected('a number', raw, info);
        n = Number(s);
      } else {
        if (typeof raw !== 'number') throw expected('a number', raw, info);
        n = raw;
      }
      if (!Number.isFinite(n)) throw expected('a finite number', raw, info);
      if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
        throw new Error(`expected a number between ${min ?? '-∞'} and ${max ?? '∞'}, got ${n}`);
      }
      return n;
    },
    (v) => v,
    opts,
  );
}

export function boolean(opts: FieldOpts<boolean>): Field<boolean> {
  return makeField(
    'boolean',
    (raw, info) => {
      if (info.textual) {
        const s = String(raw).trim().toLowerCase();
        if (s === 'true') return true;
        if (s === 'false') return false;
        throw expected('true or false', raw, info);
      }
      if (typeof raw !== 'boolean') throw expected('a boolean (true or false)', raw, info);
      return raw;
    },
    (v) => v,
    opts,
  );
}

/** A duration such as `30s`; held in milliseconds. */
export function duration(opts: FieldOpts<Millis>): Field<Millis> {
  return makeField(
    'duration',
    (raw, info) => parseDuration(asText(raw, info, 'a duration string such as "30s", "10m" or "1h"')),
    (v) => formatDuration(v),
    opts,
  );
}

/**
 * A size such as `64MB`; held in bytes. A TOML integer is a number of bytes. `min` rejects smaller
 * sizes; `emptyIsZero` reads `""` as 0.
 */
export function size(opts: FieldOpts<Bytes> & { min?: Bytes; emptyIsZero?: boolean }): Field<Bytes> {
  return makeField(
    'size',
    (raw, info) => {
      let n: Bytes;
      if (!info.textual && info.tomlKind === 'integer' && typeof raw === 'number') {
        if (raw < 0 || !Number.isSafeInteger(raw)) throw new Error(`invalid size ${raw}`);
        n = raw;
      } else {
        const text = asText(raw, info, 'a size string such as "64MB", "256MiB" or "1GiB"');
        n = opts.emptyIsZero && text.trim() === '' ? 0 : parseSize(text);
      }
      if (opts.min !== undefined && n < opts.min) {
        throw new Error(`size ${JSON.stringify(raw)} is too small; the minimum is ${formatSize(opts.min)}`);
      }
      return n;
    },
    (v) => formatSize(v),
    opts,
  );
}

/** A memory budget: a size, or a share of the machine's memory (`"25%"`, as GreptimeDB writes it). */
export type MemorySize = { readonly bytes: Bytes } | { readonly percent: number };

/** Bytes of a memory budget on a machine with `totalMemory` bytes. */
export function memoryBytes(m: MemorySize, totalMemory: number): Bytes {
  return 'bytes' in m ? m.bytes : Math.floor((totalMemory * m.percent) / 100);
}

/** A size (`4GiB`, a TOML integer of bytes) or a percentage of the machine's memory (`"25%"`, above 0 and at most 100). */
export function memorySize(opts: FieldOpts<MemorySize>): Field<MemorySize> {
  return makeField(
    'size or percentage',
    (raw, info): MemorySize => {
      if (!info.textual && info.tomlKind === 'integer' && typeof raw === 'number') {
        if (raw < 0 || !Number.isSafeInteger(raw)) throw new Error(`invalid size ${raw}`);
        return { bytes: raw };
      }
      const text = asText(raw, info, 'a size such as "4GiB" or a percentage of memory such as "25%"').trim();
      const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
      if (pct !== null) {
        const percent = Number(pct[1]);
        if (!(percent > 0 && percent <= 100)) throw new Error(`invalid percentage "${text}"; expected more than 0% and at most 100%`);
        return { percent };
      }
      return { bytes: parseSize(text) };
    },
    (v) => ('bytes' in v ? formatSize(v.bytes) : `${v.percent}%`),
    opts,
  );
}

/** An `ip:port` a server binds (port 0 = any free port). */
export function bindAddress(opts: FieldOpts<string>): Field<string> {
  return makeField(
    'address',
    (raw, info) => formatAddress(parseAddress(asText(raw, info, 'an address "ip:port"'), { bind: true })),
    (v) => v,
    opts,
  );
}

/** A `host:port` a client connects to. */
export function address(opts: FieldOpts<string>): Field<string> {
  return makeField(
    'address',
    (raw, info) => formatAddress(parseAddress(asText(raw, info, 'an address "host:port"'), { bind: false })),
    (v) => v,
    opts,
  );
}

/**
 * One of a set of values. `spellings` maps every accepted spelling (compared without case) to
 * the canonical value, e.g. `LeaseBased` → `lease_based`.
 */
export function oneOf<const E extends string>(
  values: readonly E[],
  opts: FieldOpts<E> & { spellings?: Record<string, E> },
): Field<E> {
  const accepted = new Map<string, E>();
  for (const v of values) accepted.set(v.toLowerCase(), v);
  for (const [spelling, v] of Object.entries(opts.spellings ?? {})) accepted.set(spelling.toLowerCase(), v);
  return makeField(
    'string',
    (raw, info) => {
      const s = asText(raw, info, `one of ${values.map((v) => `"${v}"`).join(', ')}`);
      const v = accepted.get(s.trim().toLowerCase());
      if (v === undefined) throw new Error(`invalid value "${s}"; expected one of ${values.map((v) => `"${v}"`).join(', ')}`);
      return v;
    },
    (v) => v,
    opts,
  );
}

/**
 * A list: a TOML array, or (for convenience and in text) one string of items separated by commas —
 * or by commas or spaces when `spaceSeparated`.
 */
function listOf<T>(
  typeName: string,
  item: (s: string) => T,
  opts: FieldOpts<T[]> & { spaceSeparated?: boolean },
): Field<T[]> {
  const split = opts.spaceSeparated ? /[\s,]+/ : /,/;
  return makeField(
    typeName,
    (raw, info) => {
      let items: string[];
      if (typeof raw === 'string' && (info.textual || info.tomlKind === 'string')) {
        items = raw.split(split).map((s) => s.trim()).filter((s) => s !== '');
      } else if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) {
        items = raw as string[];
      } else {
        throw expected('an array of strings', raw, info);
      }
      return items.map(item);
    },
    (v) => v.map((x) => String(x)),
    opts,
  );
}

export function stringList(opts: FieldOpts<string[]> & { spaceSeparated?: boolean }): Field<string[]> {
  return listOf('list of strings', (s) => s, opts);
}

export function addressList(opts: FieldOpts<string[]> & { spaceSeparated?: boolean }): Field<string[]> {
  return listOf('list of addresses', (s) => formatAddress(parseAddress(s, { bind: false })), opts);
}

/**
 * A table of string values keyed by the user (e.g. HTTP headers). Each entry is set on its own:
 * `headers = { Authorization = "…" }` in TOML, `…__HEADERS__AUTHORIZATION=…` in the environment.
 */
export function stringMap(opts: FieldOpts<Record<string, string>>): Field<Record<string, string>> {
  return makeField(
    'table of strings',
    (raw, info) => {
      throw expected('a table of strings, e.g. { Authorization = "Basic …" }', raw, info);
    },
    (v) => ({ ...v }),
    opts,
    { parseEntry: (raw, info) => asText(raw, info, 'a string') },
  );
}
