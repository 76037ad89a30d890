/**
 * Fuzzing the line protocol parser: valid bodies, mutated at random (bytes inserted, deleted or
 * replaced, favouring `\ , = " space newline` and digits), must parse or be refused with a
 * LineProtocolError, never anything else, and never slowly. Each result is also compared with a
 * small reference parser written for clarity (BigInt, regexes, no caches), so the fast paths (series
 * cache, key layout, float shortcut, 32-bit halves) must agree with it on values and failing lines.
 *
 *   TSDB_FUZZ_SEED=<n> replays a run; TSDB_FUZZ_MS=<ms> sets its length (3000).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMESTAMP_RANGE } from '../../common/time/timestamp.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import { DEFAULT_MAX_SERIES, LineProtocolError, parseLineProtocol, resetSeriesCache, type Precision } from './line-protocol.js';

const SEED = Number(process.env['TSDB_FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 32));
const DURATION_MS = Number(process.env['TSDB_FUZZ_MS'] ?? 3000);
const SLOW_MS = 1000;
const NOW = 1_600_000_000_000_000_000n;

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// The reference parser: the grammar in its plainest form.

class RefError extends Error {
  constructor(
    readonly line: number,
    problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

type RefKind = 'tag' | 'Float64' | 'Int64' | 'UInt64' | 'Boolean' | 'String';
interface RefColumn {
  readonly name: string;
  readonly kind: RefKind;
  readonly values: Map<number, string | number | bigint | boolean>;
}
interface RefTable {
  readonly name: string;
  rows: number;
  readonly byName: Map<string, RefColumn>;
  readonly tags: RefColumn[];
  readonly fields: RefColumn[];
  readonly ts: bigint[];
}

const FACTOR: Record<Precision, bigint> = { ns: 1n, us: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const VALUE_END = ', \n\r\t';

function reference(body: string, precision: Precision, now: bigint): IngestTable[] {
  const tables = new Map<string, RefTable>();
  const order: RefTable[] = [];
  const n = body.length;
  let p = 0;
  let line = 1;
  let lineNo = 1;
  const fail = (problem: string): never => {
    throw new RefError(lineNo, problem);
  };
  const token = (stops: string, escapes: string, equalsIsError: boolean): string => {
    let text = '';
    while (p < n && !stops.includes(body[p]!)) {
      const c = body[p]!;
      if (c === '\\' && p + 1 < n && escapes.includes(body[p + 1]!)) {
        text += body[p + 1];
        p += 2;
        continue;
      }
      if (equalsIsError && c === '=') fail('= in tag value');
      text += c;
      p++;
    }
    return text;
  };
  while (p < n) {
    while (body[p] === ' ' || body[p] === '\t') p++;
    if (p >= n) break;
    if (body[p] === '\n' || (body[p] === '\r' && (p + 1 === n || body[p + 1] === '\n'))) {
      p += body[p] === '\n' ? 1 : 2;
      line++;
      continue;
    }
    if (body[p] === '#') {
      const end = body.indexOf('\n', p);
      if (end < 0) break;
      p = end + 1;
      line++;
      continue;
    }
    lineNo = line;
    const measurement = token(', \n', ', \\', false);
    if (measurement === '' && body[p] === ',') fail('missing measurement');
    if (body[p] !== ',' && body[p] !== ' ') fail('missing fields');
    const tags: [string, string][] = [];
    while (body[p] === ',') {
      p++;
      const key = token('=, \n', ',= \\', false);
      if (key === '' || body[p] !== '=') fail('bad tag key');
      p++;
      const value = token(', \n', ',= \\', true);
      if (value === '') fail('missing tag value');
      if (tags.some(([k]) => k === key)) fail('duplicate tag');
      tags.push([key, value]);
    }
    if (body[p] !== ' ') fail('missing fields');
    while (body[p] === ' ') p++;
    if (p >= n || '\n\r\t'.includes(body[p]!)) fail('missing fields');
    const fields: [string, RefKind, string | number | bigint | boolean][] = [];
    for (;;) {
      const key = token('=, \n', ',= \\', false);
      if (key === '' || body[p] !== '=') fail('bad field key');
      p++;
      if (body[p] === '"') {
        p++;
        let text = '';
        for (;;) {
          if (p >= n) fail('unterminated string');
          const c = body[p]!;
          if (c === '"') break;
          if (c === '\\' && (body[p + 1] === '"' || body[p + 1] === '\\')) {
            text += body[p + 1];
            p += 2;
            continue;
          }
          if (c === '\n') line++;
          text += c;
          p++;
        }
        p++;
        if (p < n && !VALUE_END.includes(body[p]!)) fail('text after string');
        fields.push([key, 'String', text]);
      } else {
        const start = p;
        while (p < n && !VALUE_END.includes(body[p]!)) p++;
        const v = body.slice(start, p);
        if (/^-?\d+i$/.test(v)) {
          const b = BigInt(v.slice(0, -1));
          if (b < INT64_MIN || b > INT64_MAX) fail('integer out of range');
          fields.push([key, 'Int64', b]);
        } else if (/^\d+u$/.test(v)) {
          const b = BigInt(v.slice(0, -1));
          if (b >= 2n ** 64n) fail('unsigned out of range');
          fields.push([key, 'UInt64', b]);
        } else if (/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) {
          const f = Number(v);
          if (!Number.isFinite(f)) fail('float out of range');
          fields.push([key, 'Float64', f]);
        } else if (['t', 'T', 'true', 'True', 'TRUE'].includes(v)) {
          fields.push([key, 'Boolean', true]);
        } else if (['f', 'F', 'false', 'False', 'FALSE'].includes(v)) {
          fields.push([key, 'Boolean', false]);
        } else {
          fail('invalid value');
        }
      }
      if (body[p] !== ',') break;
      p++;
    }
    let ts = now;
    if (body[p] === ' ') {
      while (body[p] === ' ') p++;
      if (p < n && !VALUE_END.includes(body[p]!)) {
        const start = p;
        while (p < n && !VALUE_END.includes(body[p]!)) p++;
        const v = body.slice(start, p);
        if (!/^-?\d+$/.test(v)) fail('invalid timestamp');
        ts = BigInt(v) * FACTOR[precision];
        if (ts < TIMESTAMP_RANGE.ns.min || ts > TIMESTAMP_RANGE.ns.max) fail('timestamp out of range');
      }
    }
    while (body[p] === ' ' || body[p] === '\t' || body[p] === '\r') p++;
    if (body[p] === '\n') {
      p++;
      line++;
    } else if (p < n) {
      fail('trailing text');
    }
    // The row.
    let table = tables.get(measurement);
    if (table === undefined) {
      table = { name: measurement, rows: 0, byName: new Map(), tags: [], fields: [], ts: [] };
      tables.set(measurement, table);
      order.push(table);
    }
    const row = table.rows;
    for (const [key, value] of tags) {
      let col = table.byName.get(key);
      if (col === undefined) {
        if (key === 'tsdb_timestamp') fail('reserved');
        col = { name: key, kind: 'tag', values: new Map() };
        table.byName.set(key, col);
        table.tags.push(col);
      } else if (col.kind !== 'tag') {
        fail('tag is a field');
      }
      col.values.set(row, value);
    }
    for (const [key, kind, value] of fields) {
      let col = table.byName.get(key);
      if (col === undefined) {
        if (key === 'tsdb_timestamp') fail('reserved');
        col = { name: key, kind, values: new Map() };
        table.byName.set(key, col);
        table.fields.push(col);
      } else if (col.kind !== kind) {
        fail('type conflict');
      }
      col.values.set(row, value);
    }
    table.ts.push(ts);
    table.rows++;
  }
  return order.map((t) => ({ name: t.name, rowCount: t.rows, columns: [...t.tags, ...t.fields].map((c) => refColumn(c, t.rows)).concat(refTimestamp(t)) }));
}

function refColumn(c: RefColumn, rows: number): IngestColumn {
  const at = (i: number) => c.values.get(i);
  const hasNull = c.values.size < rows;
  const valid = hasNull ? Uint8Array.from({ length: rows }, (_, i) => (c.values.has(i) ? 1 : 0)) : undefined;
  const withValid = <V extends object>(v: V) => (valid === undefined ? v : { ...v, valid });
  switch (c.kind) {
    case 'tag':
      return { name: c.name, semantic: 'tag', type: 'String', vector: { type: 'string', data: Array.from({ length: rows }, (_, i) => (at(i) ?? null) as string | null) } };
    case 'String':
      return { name: c.name, semantic: 'field', type: 'String', vector: { type: 'string', data: Array.from({ length: rows }, (_, i) => (at(i) ?? null) as string | null) } };
    case 'Float64':
      return { name: c.name, semantic: 'field', type: 'Float64', vector: withValid({ type: 'float64' as const, data: Float64Array.from({ length: rows }, (_, i) => (at(i) as number | undefined) ?? 0) }) };
    case 'Boolean':
      return { name: c.name, semantic: 'field', type: 'Boolean', vector: withValid({ type: 'bool' as const, data: Uint8Array.from({ length: rows }, (_, i) => (at(i) === true ? 1 : 0)) }) };
    case 'Int64':
      return { name: c.name, semantic: 'field', type: 'Int64', vector: withValid({ type: 'int64' as const, data: BigInt64Array.from({ length: rows }, (_, i) => (at(i) as bigint | undefined) ?? 0n) }) };
    case 'UInt64':
      return { name: c.name, semantic: 'field', type: 'UInt64', vector: withValid({ type: 'uint64' as const, data: BigUint64Array.from({ length: rows }, (_, i) => (at(i) as bigint | undefined) ?? 0n) }) };
  }
}

function refTimestamp(t: RefTable): IngestColumn {
  return { name: 'tsdb_timestamp', semantic: 'timestamp', type: 'TimestampNanosecond', vector: { type: 'int64', data: BigInt64Array.from(t.ts) } };
}

// ---------------------------------------------------------------------------------------------
// Bodies.

const MEASUREMENTS = ['cpu', 'mem', 'disk\\ io', 'a\\,b', 'weird=name', 'm'];
const TAG_KEYS = ['host', 'region', 'dc', 'k\\=1', 'sp\\ ace', 'hostname'];
const TAG_VALUES = ['a', 'host_1', 'host_12', 'eu-west-1', 'v\\,1', 'x\\ y', 'q"q', 'back\\\\slash', 'Ubuntu16.04LTS', 'zürich', '東京', '😀'];
const FIELD_KEYS = ['usage', 'value', 'count', 'flag', 'msg', 'f\\,g', 'big', 'n2'];
const PALETTE = ['\\', ',', '=', '"', ' ', '\n', '\r', '\t', '#', '0', '1', '9', '-', '.', 'e', 'E', '+', 'i', 'u', 't', 'f', 'a', 'T', 'F', 'é'];

function validLine(rnd: () => number): string {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  let s = pick(MEASUREMENTS);
  const tagKeys = TAG_KEYS.filter(() => rnd() < 0.4);
  for (const k of tagKeys) s += `,${k}=${pick(TAG_VALUES)}`;
  const fields: string[] = [];
  const nFields = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < nFields; i++) {
    const key = pick(FIELD_KEYS);
    // One type per key mostly, so that many bodies parse.
    const kind = rnd() < 0.9 ? FIELD_KEYS.indexOf(key) % 5 : Math.floor(rnd() * 5);
    let v: string;
    switch (kind) {
      case 0:
        v = pick(['1', '-1.5', '.5', '1.', '1e5', '-2.5E-3', '0', '123456.789', '9007199254740993', '1e308', String(rnd() * 1000)]);
        break;
      case 1:
        v = `${pick(['0', '-1', '42', '9223372036854775807', '-9223372036854775808', '9007199254740993'])}i`;
        break;
      case 2:
        v = `${pick(['0', '7', '18446744073709551615', '4294967296'])}u`;
        break;
      case 3:
        v = pick(['t', 'F', 'true', 'FALSE', 'True']);
        break;
      default:
        v = pick(['""', '"plain"', '"a \\"q\\" b"', '"back\\\\"', '"multi\nline"', '"c,= "']);
    }
    fields.push(`${key}=${v}`);
  }
  s += ` ${fields.join(',')}`;
  const r = rnd();
  if (r < 0.7) s += ` ${pick(['1451606400000000000', '-1', '0', '1451606400', '9223372036854775807', '9223372036854775806', '-9223286400000000000', '12', String(Math.floor(rnd() * 1e15))])}`;
  if (rnd() < 0.1) s += pick([' ', '\t', ' \r']);
  return s;
}

function mutate(body: string, rnd: () => number): string {
  const ops = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < ops; k++) {
    const at = Math.floor(rnd() * (body.length + 1));
    const ch = PALETTE[Math.floor(rnd() * PALETTE.length)]!;
    const op = rnd();
    if (op < 0.35) body = body.slice(0, at) + ch + body.slice(at);
    else if (op < 0.6) body = body.slice(0, at) + body.slice(at + 1);
    else if (op < 0.85) body = body.slice(0, at) + ch + body.slice(at + 1);
    else {
      // Duplicate or drop a run, e.g. `,k=v`, a quote pair, a whole line.
      const len = 1 + Math.floor(rnd() * 12);
      body = rnd() < 0.5 ? body.slice(0, at) + body.slice(at, at + len) + body.slice(at) : body.slice(0, at) + body.slice(at + len);
    }
  }
  return body;
}

// ---------------------------------------------------------------------------------------------

test(`fuzz: mutated bodies parse like the reference or fail on the same line, quickly (seed ${SEED})`, (t) => {
  t.diagnostic(`seed ${SEED} (TSDB_FUZZ_SEED=${SEED} replays this run)`);
  const rnd = prng(SEED);
  const precisions: Precision[] = ['ns', 'us', 'ms', 's', 'm', 'h'];
  const deadline = Date.now() + DURATION_MS;
  let bodies = 0;
  let parsed = 0;
  let refused = 0;
  while (Date.now() < deadline) {
    let lines = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => validLine(rnd));
    // Often a few lines repeated in one order, as writers do: the series cache and key layouts then
    // predict the next line, and a mutation must break the prediction cleanly.
    if (rnd() < 0.4) lines = Array.from({ length: 5 + Math.floor(rnd() * 30) }, (_, i) => lines[rnd() < 0.8 ? i % lines.length : Math.floor(rnd() * lines.length)]!);
    if (rnd() < 0.3) lines.splice(Math.floor(rnd() * lines.length), 0, rnd() < 0.5 ? '' : '# comment');
    let body = lines.join(rnd() < 0.2 ? '\r\n' : '\n');
    if (rnd() < 0.85) body = mutate(body, rnd);
    const precision = precisions[Math.floor(rnd() * precisions.length)]!;
    // Sometimes a cold cache, sometimes one so small that it fills, refuses series and starts over.
    if (rnd() < 0.3) resetSeriesCache(rnd() < 0.5 ? 1 + Math.floor(rnd() * 4) : DEFAULT_MAX_SERIES);
    const context = `seed ${SEED}, body #${bodies} ${JSON.stringify(body)}, precision ${precision}`;

    let expected: IngestTable[] | RefError;
    try {
      expected = reference(body, precision, NOW);
    } catch (err) {
      if (!(err instanceof RefError)) throw err;
      expected = err;
    }
    // Twice: the second parse finds the series of the first in the cache.
    for (let pass = 0; pass < 2; pass++) {
      const started = performance.now();
      let got: IngestTable[] | LineProtocolError;
      try {
        got = parseLineProtocol(body, { precision, now: NOW });
      } catch (err) {
        if (!(err instanceof LineProtocolError)) assert.fail(`${context}: threw ${err instanceof Error ? err.stack : String(err)}`);
        got = err;
      }
      const ms = performance.now() - started;
      assert.ok(ms < SLOW_MS, `${context}: took ${ms.toFixed(0)} ms`);
      if (expected instanceof RefError) {
        assert.ok(got instanceof LineProtocolError, `${context}: parsed, the reference refuses ${expected.message}`);
        assert.equal(got.line, expected.line, `${context}: ${got.message} vs reference ${expected.message}`);
      } else {
        assert.ok(!(got instanceof LineProtocolError), `${context}: ${got instanceof Error ? got.message : ''}, the reference parses it`);
        assert.deepEqual(got, expected, context);
      }
    }
    if (expected instanceof RefError) refused++;
    else parsed++;
    bodies++;
  }
  resetSeriesCache();
  t.diagnostic(`${bodies} bodies: ${parsed} parsed, ${refused} refused`);
  assert.ok(parsed > 0 && refused > 0, `both outcomes seen (seed ${SEED})`);
});

test('fuzz: large bodies of random bytes from the palette fail or parse in linear time', () => {
  const rnd = prng(SEED ^ 0x5eed);
  for (let k = 0; k < 20; k++) {
    const chars: string[] = [];
    for (let i = 0; i < 200_000; i++) chars.push(rnd() < 0.5 ? PALETTE[Math.floor(rnd() * PALETTE.length)]! : String.fromCharCode(97 + Math.floor(rnd() * 26)));
    const body = (k % 2 === 0 ? 'm f="' : 'm ') + chars.join('');
    const started = performance.now();
    try {
      parseLineProtocol(body, { precision: 'ns', now: NOW });
    } catch (err) {
      assert.ok(err instanceof LineProtocolError, `seed ${SEED}: ${String(err)}`);
    }
    const ms = performance.now() - started;
    assert.ok(ms < SLOW_MS, `seed ${SEED}, body ${k}: took ${ms.toFixed(0)} ms`);
  }
});
