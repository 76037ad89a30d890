/**
 * The PostgreSQL server with the `pg` driver (node-postgres): simple queries, and parameterized
 * queries over the extended protocol (Parse/Bind/Describe/Execute/Sync) with text parameters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';
import { cutFraction, insertLiterals, TYPE_COLUMNS, TYPE_ROWS, typeTableDdl, type TypeColumn, type TypeRow } from '../support/type-rows.js';

test('pg: simple and parameterized queries, errors with SQLSTATE, the session goes on', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.postgres!;
  const client = new pg.Client({ host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)), user: 'tsdb', database: 'public' });
  await client.connect();
  try {
    await client.query('CREATE TABLE m (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, v DOUBLE, n BIGINT)');
    const ins = await client.query("INSERT INTO m VALUES ('a', 1000, 1.5, 7), ('b', 2000, 2.5, 8)");
    assert.equal(ins.rowCount, 2);
    const all = await client.query('SELECT host, v, n FROM m ORDER BY host');
    assert.deepEqual(all.rows, [{ host: 'a', v: 1.5, n: '7' }, { host: 'b', v: 2.5, n: '8' }]);
    assert.deepEqual(all.fields.map((f) => f.dataTypeID), [1043, 701, 20]);
    // Parameters go through the extended protocol.
    const one = await client.query('SELECT host, v FROM m WHERE host = $1 AND v > $2', ['b', 2]);
    assert.deepEqual(one.rows, [{ host: 'b', v: 2.5 }]);
    await client.query('INSERT INTO m (host, ts, v, n) VALUES ($1, $2, $3, $4)', ['c', '1970-01-01 00:00:03', 3.5, 9]);
    assert.deepEqual((await client.query('SELECT count(*) AS c FROM m')).rows, [{ c: '3' }]);
    await assert.rejects(client.query('SELECT * FROM nope WHERE x = $1', [1]), (err: Error & { code?: string }) => err.code === '42P01');
    await assert.rejects(client.query('SELECT * FROM nope'), (err: Error & { code?: string }) => err.code === '42P01');
    // A value a cast cannot convert fails the query (3001, EngineExecuteQuery), as in GreptimeDB.
    await assert.rejects(client.query("SELECT 'abc'::INT"), (err: Error & { code?: string }) => err.code === 'P0000' && /Cast error: Cannot cast string 'abc' to value of Int32 type/.test(err.message));
    // A parameter typed int4 from its cast is decoded by the wire layer, as PostgreSQL does: 22P02.
    await assert.rejects(client.query('SELECT $1::INT AS x', ['abc']), (err: Error & { code?: string }) => err.code === '22P02');
    await assert.rejects(client.query("SELECT X'0g'"), (err: Error & { code?: string }) => err.code === '42601');
    assert.deepEqual((await client.query('SELECT $1::BIGINT + 1 AS x', [41])).rows, [{ x: '42' }]);
    // An unaliased parameter is named `$n`, as GreptimeDB (DataFusion) names it, not by its value.
    const named = await client.query("SELECT $1::INT, $1::BIGINT + 1, $2 || 'x', $2 AS s", [41, 'y']);
    assert.deepEqual(named.fields.map((f) => f.name), ['$1', '$1 + Int64(1)', '$2 || Utf8("x")', 's']);
    assert.deepEqual(named.rows, [{ $1: 41, '$1 + Int64(1)': '42', '$2 || Utf8("x")': 'yx', s: 'y' }]);
  } finally {
    // Before the server stops (t.after), or the driver reports the closed connection as an error.
    await client.end();
  }
});

/** A value of the round-trip table as it reads back over PostgreSQL, in JS terms (see `fromText`). */
type PgValue = boolean | number | bigint | string | Buffer | null;

/** The tsdb column types as PostgreSQL types (reference api.md §5). */
const PG_TYPES: Record<TypeColumn, number> = {
  b: 16, i8: 21, i16: 21, i32: 23, i64: 20, u8: 21, u16: 23, u32: 20, u64: 1700, f32: 700, f64: 701, s: 1043, bin: 17, d: 1082, t0: 1114, t3: 1114, t6: 1114, t9: 1114,
};

/** A text-format cell as a JS value: integers of int8/numeric as bigint, bytea as bytes, dates and timestamps as their text. */
function fromText(oid: number, text: string | null): PgValue {
  if (text === null) return null;
  switch (oid) {
    case 16:
      return text === 't';
    case 700:
      return Math.fround(Number(text)); // the float32 its shortest digits stand for
    case 21:
    case 23:
    case 701:
      return Number(text);
    case 20:
    case 1700:
      return BigInt(text);
    case 17:
      return Buffer.from(text.slice(2), 'hex');
    default:
      return text;
  }
}

/** What a row reads back as: timestamps with microseconds (PostgreSQL's precision), trailing zeros dropped. */
function expectedPg(r: TypeRow): Record<string, PgValue> {
  const out: Record<string, PgValue> = { ts: cutFraction(new Date(r.ts).toISOString().replace('T', ' ').replace('Z', ''), 6, 1) };
  for (const c of TYPE_COLUMNS) {
    const v = r[c];
    if (v === null) out[c] = null;
    else if (c === 'u32') out[c] = BigInt(v as number);
    else if (c === 'f32') out[c] = v as number;
    else if (c.startsWith('t')) out[c] = cutFraction(v as string, 6, 1);
    else out[c] = v;
  }
  return out;
}

/** The binary form of a parameter of each column's PostgreSQL type. */
function binaryParam(c: TypeColumn | 'ts', v: TypeRow[TypeColumn] | number): Buffer | null {
  if (v === null) return null;
  const micros = (text: string): bigint => {
    const [whole, frac = ''] = text.split('.') as [string, string?];
    return BigInt(Date.parse(`${whole.replace(' ', 'T')}Z`)) * 1000n + BigInt(frac.padEnd(9, '0').slice(0, 6)) - 946_684_800_000_000n;
  };
  const b = Buffer.alloc(8);
  const oid = c === 'ts' ? 1114 : PG_TYPES[c];
  switch (oid) {
    case 16:
      return Buffer.from([v ? 1 : 0]);
    case 21:
      b.writeInt16BE(v as number);
      return b.subarray(0, 2);
    case 23:
      b.writeInt32BE(v as number);
      return b.subarray(0, 4);
    case 20:
      b.writeBigInt64BE(BigInt(v as number));
      return b;
    case 700:
      b.writeFloatBE(v as number);
      return b.subarray(0, 4);
    case 701:
      b.writeDoubleBE(v as number);
      return b;
    case 1700: {
      // numeric: ndigits, weight, sign, dscale, base-10000 digits (integers only here).
      const groups: number[] = [];
      for (let n = v as bigint; n > 0n; n /= 10000n) groups.unshift(Number(n % 10000n));
      while (groups.length > 0 && groups[groups.length - 1] === 0) groups.pop();
      const weight = v === 0n ? 0 : String(v).length > 0 ? Math.ceil(String(v).length / 4) - 1 : 0;
      const out = Buffer.alloc(8 + 2 * groups.length);
      out.writeInt16BE(groups.length, 0);
      out.writeInt16BE(weight, 2);
      groups.forEach((g, i) => out.writeInt16BE(g, 8 + 2 * i));
      return out;
    }
    case 1043:
      return Buffer.from(v as string, 'utf8');
    case 17:
      return v as Buffer;
    case 1082:
      b.writeInt32BE(Date.parse(`${v as string}T00:00:00Z`) / 86_400_000 - 10957);
      return b.subarray(0, 4);
    default:
      b.writeBigInt64BE(c === 'ts' ? BigInt(v as number) * 1000n - 946_684_800_000_000n : micros(v as string));
      return b;
  }
}

test('pg: every tsdb type round-trips through literals, text parameters and binary parameters', async (t) => {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.postgres!;
  const config = { host: addr.slice(0, addr.lastIndexOf(':')), port: Number(addr.slice(addr.lastIndexOf(':') + 1)), user: 'tsdb', database: 'public' };
  // Cells as the server sends them (no parsing), and a client with pg's own parsers.
  const raw = new pg.Client({ ...config, types: { getTypeParser: () => (v: string) => v } });
  const parsed = new pg.Client(config);
  await raw.connect();
  await parsed.connect();
  try {
    for (const table of ['lit', 'txt', 'bin']) await raw.query(typeTableDdl(table));
    await raw.query(insertLiterals('lit'));
    const insert = (table: string) => `INSERT INTO ${table} (ts, ${TYPE_COLUMNS.join(', ')}) VALUES (${['ts', ...TYPE_COLUMNS].map((_, i) => `$${i + 1}`).join(', ')})`;
    for (const r of TYPE_ROWS) {
      // Text parameters, as pg sends them (Buffers in binary): the server types them from the columns.
      // pg writes numbers with toString(), which drops the sign of zero: -0 goes as the text '-0'.
      const values = [new Date(r.ts), ...TYPE_COLUMNS.map((c) => (Object.is(r[c], -0) ? '-0' : r[c]))];
      assert.equal((await raw.query(insert('txt'), values)).rowCount, 1);
      // Every parameter in binary (format 1, type unspecified): decoded as the column's PostgreSQL type.
      assert.equal((await raw.query(insert('bin'), [binaryParam('ts', r.ts), ...TYPE_COLUMNS.map((c) => binaryParam(c, r[c]))])).rowCount, 1);
    }
    for (const table of ['lit', 'txt', 'bin']) {
      const simple = await raw.query(`SELECT ts, ${TYPE_COLUMNS.join(', ')} FROM ${table} ORDER BY ts`);
      assert.deepEqual(simple.fields.map((f) => f.dataTypeID), [1114, ...TYPE_COLUMNS.map((c) => PG_TYPES[c])]);
      const rows = simple.rows.map((row: Record<string, string | null>) => Object.fromEntries(simple.fields.map((f) => [f.name, fromText(f.dataTypeID, row[f.name]!)])));
      // PostgreSQL's timestamps have microseconds: nanoseconds are cut on the way out (and binary
      // parameters carry none).
      assert.deepEqual(rows, TYPE_ROWS.map((r) => expectedPg(r)), table);
      assert.ok(Object.is(rows[2]!['f64'], -0), `${table}: -0`);
      // The extended protocol answers the same text.
      const extended = await raw.query(`SELECT ts, ${TYPE_COLUMNS.join(', ')} FROM ${table} WHERE ts >= $1 ORDER BY ts`, [new Date(0)]);
      assert.deepEqual(extended.rows, simple.rows, `${table}: extended`);
    }
    // Floats as PostgreSQL prints them (shortest digits, exponent from 1e15 / 1e6 for float4).
    const floats = await raw.query('SELECT f32, f64 FROM lit ORDER BY ts');
    assert.deepEqual(floats.rows.map((r: Record<string, string>) => [r['f32'], r['f64']]), [
      ['-3.4028235e+38', '-1.7976931348623157e+308'],
      ['3.4028235e+38', '1.7976931348623157e+308'],
      ['0.1', '-0'],
      [null, null],
      ['1e-45', '5e-324'],
      ['NaN', 'NaN'],
      ['Infinity', '-Infinity'],
      ['-Infinity', 'Infinity'],
    ]);
    // pg's float parser reads them back.
    const special = await parsed.query('SELECT f32, f64 FROM bin WHERE ts >= $1 ORDER BY ts', [new Date(6000)]);
    assert.deepEqual(special.rows, [{ f32: NaN, f64: NaN }, { f32: Infinity, f64: -Infinity }, { f32: -Infinity, f64: Infinity }]);
    // pg's own parsers: int2/int4/float as numbers, int8 and numeric as strings, bytea as Buffer.
    const p = await parsed.query('SELECT b, i16, u16, i64, u64, f64, s, bin FROM txt WHERE ts = $1', [new Date(2000)]);
    assert.deepEqual(p.rows, [{ b: true, i16: 32767, u16: 65535, i64: '9223372036854775807', u64: '18446744073709551615', f64: 1.7976931348623157e308, s: TYPE_ROWS[1]!.s, bin: TYPE_ROWS[1]!.bin }]);
    // Binary result format: pg reads binary cells through a UTF-8 string (pg-protocol has no binary
    // mode), so only cells whose bytes are valid UTF-8 arrive intact.
    const config3 = { text: 'SELECT b, i32, u8, u16, s FROM lit WHERE ts = $1', values: [new Date(3000)], binary: true } as pg.QueryConfig;
    const b = await parsed.query(config3);
    assert.deepEqual(b.fields.map((f) => f.format), ['binary', 'binary', 'binary', 'binary', 'binary']);
    assert.deepEqual(b.rows, [{ b: true, i32: 1, u8: 1, u16: 1, s: '' }]);
  } finally {
    await raw.end();
    await parsed.end();
  }
});
