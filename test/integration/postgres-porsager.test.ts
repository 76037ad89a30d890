/**
 * The PostgreSQL server with porsager's `postgres` driver: the extended protocol with named
 * (prepare: true) and unnamed statements, Describe before Bind (the driver serializes each
 * parameter as the type the server describes), errors with SQLSTATE; and the type round trip.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import postgres from 'postgres';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';
import { cutFraction, insertLiterals, TYPE_COLUMNS, TYPE_ROWS, typeTableDdl } from '../support/type-rows.js';

async function connect(t: TestContext, opts: postgres.Options<Record<string, postgres.PostgresType>> = {}): Promise<postgres.Sql<Record<string, unknown>>> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--postgres-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.postgres!;
  const sql = postgres({
    host: addr.slice(0, addr.lastIndexOf(':')),
    port: Number(addr.slice(addr.lastIndexOf(':') + 1)),
    user: 'tsdb',
    database: 'public',
    max: 2,
    onnotice: () => {},
    ...opts,
  });
  t.after(() => sql.end());
  return sql as unknown as postgres.Sql<Record<string, unknown>>;
}

test('postgres (porsager): named and unnamed statements, typed parameters, errors', async (t) => {
  const sql = await connect(t);
  await sql`CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE, n BIGINT, ok BOOLEAN)`;
  // Parameters: strings, numbers (typed by the server's description), a Date, a boolean, null.
  const ins = await sql`INSERT INTO cpu (host, ts, usage, n, ok) VALUES (${'a'}, ${new Date(1000)}, ${1.5}, ${7}, ${true}), (${"b'q"}, ${new Date(2000)}, ${null}, ${-1}, ${false})`;
  assert.equal(ins.count, 2);
  const rows = await sql`SELECT host, ts, usage, n, ok FROM cpu WHERE ts >= ${new Date(1000)} ORDER BY ts`;
  assert.deepEqual([...rows], [
    { host: 'a', ts: new Date('1970-01-01T00:00:01Z'), usage: 1.5, n: '7', ok: true },
    { host: "b'q", ts: new Date('1970-01-01T00:00:02Z'), usage: null, n: '-1', ok: false },
  ]);
  // A number compared with a timestamp column is serialized as a timestamp (the server describes $1 so).
  assert.deepEqual([...(await sql`SELECT host FROM cpu WHERE ts = ${2000}`)], [{ host: "b'q" }]);
  assert.deepEqual([...(await sql`SELECT count(*) AS c FROM cpu WHERE n > ${0} AND host IN (${'a'}, ${"b'q"})`)], [{ c: '1' }]);
  // The same named statement again, and unnamed statements (prepare: false).
  for (const host of ['a', "b'q"]) assert.equal((await sql`SELECT host FROM cpu WHERE host = ${host}`)[0]!['host'], host);
  const unnamed = await sql.unsafe('SELECT n FROM cpu WHERE host = $1', ['a'], { prepare: false });
  assert.deepEqual([...unnamed], [{ n: '7' }]);
  // Errors: SQLSTATE, and the connection goes on.
  await assert.rejects(sql`SELECT * FROM nope WHERE x = ${1}`, (err: Error & { code?: string }) => err.code === '42P01');
  await assert.rejects(sql`SELECT * FROM nope`.simple(), (err: Error & { code?: string }) => err.code === '42P01');
  assert.deepEqual([...(await sql`SELECT ${41}::BIGINT + 1 AS x`)], [{ x: '42' }]);
});

test('postgres (porsager): every tsdb type round-trips through literals and parameters', async (t) => {
  // Timestamps and dates as their text (the default parses them into a Date, in the local time zone
  // and to the millisecond), and serialized as given: strings keep their precision.
  const sql = await connect(t, {
    types: {
      ts: { to: 1114, from: [1082, 1114], serialize: (x: unknown) => (x instanceof Date ? x.toISOString() : String(x)), parse: (x: string) => x },
    },
  });
  await sql.unsafe(typeTableDdl('lit'));
  await sql.unsafe(typeTableDdl('par'));
  await sql.unsafe(insertLiterals('lit'));
  for (const r of TYPE_ROWS) {
    // porsager writes numbers with '' + x, which drops the sign of zero: -0 goes as the text '-0'.
    // It declares a bigint an int8 (as PostgreSQL, the server then refuses 2^64 - 1): UInt64 as text.
    const values = [new Date(r.ts), ...TYPE_COLUMNS.map((c) => (Object.is(r[c], -0) ? '-0' : c === 'u64' && r[c] !== null ? String(r[c]) : r[c]))];
    const q = `INSERT INTO par (ts, ${TYPE_COLUMNS.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`;
    assert.equal((await sql.unsafe(q, values as postgres.ParameterOrJSON<never>[])).count, 1);
  }
  const expected = TYPE_ROWS.map((r) => ({
    ts: cutFraction(new Date(r.ts).toISOString().replace('T', ' ').replace('Z', ''), 6, 1),
    b: r.b,
    i8: r.i8,
    i16: r.i16,
    i32: r.i32,
    // int8 and numeric as strings; int2, int4, float4, float8 as numbers; bytea as Buffer.
    i64: r.i64 === null ? null : r.i64.toString(),
    u8: r.u8,
    u16: r.u16,
    u32: r.u32 === null ? null : String(r.u32),
    u64: r.u64 === null ? null : r.u64.toString(),
    f32: r.f32,
    f64: r.f64,
    s: r.s,
    bin: r.bin,
    d: r.d,
    t0: r.t0 && cutFraction(r.t0, 6, 1),
    t3: r.t3 && cutFraction(r.t3, 6, 1),
    t6: r.t6 && cutFraction(r.t6, 6, 1),
    t9: r.t9 && cutFraction(r.t9, 6, 1),
  }));
  for (const table of ['lit', 'par']) {
    const rows = await sql.unsafe(`SELECT ts, ${TYPE_COLUMNS.join(', ')} FROM ${table} WHERE ts > $1 ORDER BY ts`, [new Date(0)]);
    const got = rows.map((r) => ({ ...r, f32: r['f32'] === null ? null : Math.fround(r['f32'] as number) }));
    assert.deepEqual(got, expected, table);
    assert.ok(Object.is(rows[2]!['f64'], -0), `${table}: -0`);
    assert.deepEqual(rows.columns.map((c) => c.type), [1114, 16, 21, 21, 23, 20, 21, 23, 20, 1700, 700, 701, 1043, 17, 1082, 1114, 1114, 1114, 1114]);
  }
});
