/**
 * The MySQL server with the `mysql2` driver: text queries (COM_QUERY) and prepared statements
 * (COM_STMT_PREPARE / EXECUTE with typed parameters, binary result rows), errors with errno and
 * SQLSTATE, USE and changeUser, a pool; and the round trip of every tsdb type through both protocols.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';
import { cutFraction, insertLiterals, TYPE_COLUMNS, TYPE_ROWS, typeTableDdl, type TypeColumn, type TypeRow } from '../support/type-rows.js';

type Row = Record<string, unknown>;

async function connect(t: TestContext): Promise<{ options: mysql.ConnectionOptions; conn: mysql.Connection }> {
  const s = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--mysql-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const addr = s.mysql!;
  const options: mysql.ConnectionOptions = {
    host: addr.slice(0, addr.lastIndexOf(':')),
    port: Number(addr.slice(addr.lastIndexOf(':') + 1)),
    user: 'root',
    database: 'public',
    // Exact values: 64-bit integers and dates as strings, Date parameters written in UTC.
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    timezone: 'Z',
  };
  const conn = await mysql.createConnection(options);
  // Before the server stops (t.after runs in reverse order of registration).
  t.after(() => conn.end());
  return { options, conn };
}

function errorOf(errno: number, sqlState: string): (err: unknown) => boolean {
  return (err) => {
    const e = err as { errno?: number; sqlState?: string; message?: string };
    assert.equal(e.errno, errno, e.message);
    assert.equal(e.sqlState, sqlState, e.message);
    return true;
  };
}

test('mysql2: text queries and prepared statements, errors, USE and changeUser, a pool', async (t) => {
  const { options, conn } = await connect(t);
  await conn.query('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE, n BIGINT)');
  const [ins] = await conn.query<mysql.ResultSetHeader>("INSERT INTO cpu VALUES ('a', 1000, 1.5, 7), ('b', 2000, NULL, -1)");
  assert.equal(ins.affectedRows, 2);
  const [rows, fields] = await conn.query<mysql.RowDataPacket[]>('SELECT host, ts, usage, n FROM cpu ORDER BY ts');
  assert.deepEqual(rows, [
    { host: 'a', ts: '1970-01-01 00:00:01', usage: 1.5, n: '7' },
    { host: 'b', ts: '1970-01-01 00:00:02', usage: null, n: '-1' },
  ]);
  assert.deepEqual(fields.map((f) => f.columnType), [253, 7, 5, 8]);

  // Prepared: typed parameters (numbers, bigint, strings, Date, null, booleans), binary rows.
  const [pins] = await conn.execute<mysql.ResultSetHeader>('INSERT INTO cpu (host, ts, usage, n) VALUES (?, ?, ?, ?), (?, ?, ?, ?)', [
    'c', new Date(3000), 2.25, 9007199254740993n,
    "d'quote", new Date(4000), null, true,
  ]);
  assert.equal(pins.affectedRows, 2);
  const [sel] = await conn.execute<mysql.RowDataPacket[]>('SELECT host, ts, usage, n FROM cpu WHERE ts >= ? AND n > ? ORDER BY ts', [new Date(3000), 0]);
  assert.deepEqual(sel, [
    { host: 'c', ts: '1970-01-01 00:00:03', usage: 2.25, n: '9007199254740993' },
    { host: "d'quote", ts: '1970-01-01 00:00:04', usage: null, n: '1' },
  ]);
  const [byHost] = await conn.execute<mysql.RowDataPacket[]>('SELECT count(*) AS c FROM cpu WHERE host IN (?, ?)', ['a', "d'quote"]);
  assert.deepEqual(byHost, [{ c: '2' }]);
  // The same statement again (mysql2 caches it: no new COM_STMT_PREPARE, types not bound again).
  const [again] = await conn.execute<mysql.RowDataPacket[]>('SELECT count(*) AS c FROM cpu WHERE host IN (?, ?)', ['b', 'c']);
  assert.deepEqual(again, [{ c: '2' }]);
  // An unaliased parameter is named `$n` by its position, as GreptimeDB (DataFusion) names it, not by its value.
  const [named, namedFields] = await conn.execute<mysql.RowDataPacket[]>('SELECT ? + 1, CAST(? AS CHAR), ? AS c', [41, 'x', 'y']);
  assert.deepEqual(namedFields.map((f) => f.name), ['$1 + Int64(1)', '$2', 'c']);
  assert.deepEqual(named, [{ '$1 + Int64(1)': '42', $2: 'x', c: 'y' }]);

  // Errors: the server's errno and SQLSTATE, the connection goes on.
  await assert.rejects(conn.query('SELECT * FROM nope'), errorOf(1146, '42S02'));
  await assert.rejects(conn.execute('SELECT * FROM nope WHERE x = ?', [1]), errorOf(1146, '42S02'));
  await assert.rejects(conn.query('SELEC 1'), errorOf(1235, '42000')); // Unsupported: `SQL statement is not supported, keyword: SELEC`
  await assert.rejects(conn.query('USE nope'), errorOf(1102, '42000'));
  await assert.rejects(conn.query("SELECT CAST('abc' AS INT)"), errorOf(1815, 'HY000')); // EngineExecuteQuery (3001): a failed cast, as GreptimeDB reports it

  // USE, then changeUser to another database and back.
  await conn.query('CREATE DATABASE other');
  await conn.query('USE other');
  await conn.query('CREATE TABLE o (ts TIMESTAMP TIME INDEX, v INT)');
  await conn.execute('INSERT INTO o VALUES (?, ?)', [1, 42]);
  const [[db]] = await conn.query<mysql.RowDataPacket[]>('SELECT database() AS db');
  assert.deepEqual(db, { db: 'other' });
  await conn.changeUser({ user: 'root', database: 'public' });
  assert.deepEqual((await conn.query<mysql.RowDataPacket[]>('SELECT database() AS db'))[0], [{ db: 'public' }]);
  assert.deepEqual((await conn.query<mysql.RowDataPacket[]>('SELECT v FROM other.o'))[0], [{ v: 42 }]);
  await assert.rejects(conn.changeUser({ user: 'root', database: 'nope' }), errorOf(1049, '42000'));

  // A pool: several connections at once, each with its own session.
  const pool = mysql.createPool({ ...options, connectionLimit: 4 });
  try {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, k) => pool.execute<mysql.RowDataPacket[]>('SELECT count(*) AS c, ? AS k FROM cpu WHERE ts >= ?', [k, new Date(2000)])),
    );
    // An integer parameter is an Int64 (LONGLONG) as GreptimeDB types it: a string with bigNumberStrings.
    assert.deepEqual(results.map(([r]) => r[0]), Array.from({ length: 12 }, (_, k) => ({ c: '3', k: String(k) })));
    const ids = await Promise.all(Array.from({ length: 4 }, async () => {
      const c = await pool.getConnection();
      try {
        return c.threadId;
      } finally {
        c.release();
      }
    }));
    assert.equal(ids.length, 4);
  } finally {
    await pool.end();
  }
});

/** What mysql2 gives for a row of the round-trip table, through the text or the binary protocol. */
function expected(r: TypeRow, binary: boolean): Row {
  const out: Row = { ts: cutFraction(new Date(r.ts).toISOString().replace('T', ' ').replace('Z', ''), 3, 3) };
  const big = (v: bigint | null) => (v === null ? null : v.toString());
  // Binary rows carry microseconds, which mysql2 writes with the column's decimals (none when zero).
  const time = (v: string | null, digits: number) => {
    if (v === null) return null;
    if (!binary) return cutFraction(v, digits, 3);
    const [whole, frac = ''] = v.split('.') as [string, string?];
    const us = frac.padEnd(9, '0').slice(0, 6);
    return /^0+$/.test(us) ? whole : `${whole}.${us.slice(0, Math.min(digits, 6))}`;
  };
  const values: Record<TypeColumn, unknown> = {
    b: r.b === null ? null : r.b ? 1 : 0,
    i8: r.i8, i16: r.i16, i32: r.i32, i64: big(r.i64), u8: r.u8, u16: r.u16, u32: r.u32, u64: big(r.u64),
    f32: r.f32, f64: r.f64, s: r.s, bin: r.bin, d: r.d,
    t0: time(r.t0, 0), t3: time(r.t3, 3), t6: time(r.t6, 6), t9: time(r.t9, 9),
  };
  return { ...out, ...values };
}

/**
 * Float cells of text rows as their text says, NaN and the infinities included (tsdb writes them
 * `NaN`, `inf`, `-inf`, as GreptimeDB does; mysql2's own float parser reads only digits).
 */
const floatText = (field: { readonly type: string; string(): string | null }, next: () => unknown): unknown => {
  if (field.type !== 'FLOAT' && field.type !== 'DOUBLE') return next();
  const text = field.string();
  return text === null ? null : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text);
};

/** Float32 cells: mysql2 reads the text's shortest digits (text) or the float32 itself (binary); both are the same float32. */
function normalized(row: Row): Row {
  return { ...row, f32: row['f32'] === null ? null : Math.fround(row['f32'] as number) };
}

test('mysql2: every tsdb type round-trips through literals and typed parameters, in text and binary rows', async (t) => {
  const { conn } = await connect(t);
  await conn.query(typeTableDdl('lit'));
  await conn.query(typeTableDdl('par'));
  await conn.query(insertLiterals('lit'));
  // Parameters as mysql2 types them: numbers (integers as the server describes them), bigint and
  // timestamps as strings, Buffer as BLOB, booleans, null.
  const placeholders = `(${['ts', ...TYPE_COLUMNS].map(() => '?').join(', ')})`;
  for (const r of TYPE_ROWS) {
    const values = [new Date(r.ts), ...TYPE_COLUMNS.map((c) => r[c])];
    const [res] = await conn.execute<mysql.ResultSetHeader>(`INSERT INTO par (ts, ${TYPE_COLUMNS.join(', ')}) VALUES ${placeholders}`, values);
    assert.equal(res.affectedRows, 1);
  }
  const columns = `ts, ${TYPE_COLUMNS.join(', ')}`;
  for (const table of ['lit', 'par']) {
    const [text, fields]: [mysql.RowDataPacket[], mysql.FieldPacket[]] = await conn.query<mysql.RowDataPacket[]>({ sql: `SELECT ${columns} FROM ${table} ORDER BY ts`, typeCast: floatText });
    assert.deepEqual(text.map(normalized), TYPE_ROWS.map((r) => expected(r, false)), `${table}: text rows`);
    // Negative zero survives (deepEqual tells 0 from -0 only with Object.is).
    assert.ok(Object.is(text[2]!['f64'], -0), `${table}: -0`);
    const [bin] = await conn.execute<mysql.RowDataPacket[]>(`SELECT ${columns} FROM ${table} WHERE ts > ? ORDER BY ts`, [new Date(0)]);
    assert.deepEqual(bin.map(normalized), TYPE_ROWS.map((r) => expected(r, true)), `${table}: binary rows`);
    assert.ok(Object.is(bin[2]!['f64'], -0), `${table}: binary -0`);
    // NaN and the infinities: Rust's text in text rows, their IEEE bits in binary rows.
    const [special] = await conn.query<mysql.RowDataPacket[]>({ sql: `SELECT f32, f64 FROM ${table} WHERE ts >= 6000 ORDER BY ts`, typeCast: (field, next) => (field.type === 'FLOAT' || field.type === 'DOUBLE' ? field.string() : next()) });
    assert.deepEqual(special.map((r) => [r['f32'], r['f64']]), [['NaN', 'NaN'], ['inf', '-inf'], ['-inf', 'inf']], `${table}: special floats`);
    assert.deepEqual(bin.slice(5).map((r) => [r['f32'], r['f64']]), [[NaN, NaN], [Infinity, -Infinity], [-Infinity, Infinity]], `${table}: binary special floats`);
    // Column types: TINY, SHORT, LONG, LONGLONG (UNSIGNED_FLAG 0x20 for UInt*), FLOAT, DOUBLE, VAR_STRING, BLOB, DATE, TIMESTAMP.
    assert.deepEqual(
      fields.map((f) => [f.name, f.columnType, (f.flags as number) & 0x20, f.decimals]),
      [
        ['ts', 7, 0, 3], ['b', 1, 0, 0], ['i8', 1, 0, 0], ['i16', 2, 0, 0], ['i32', 3, 0, 0], ['i64', 8, 0, 0],
        ['u8', 1, 0x20, 0], ['u16', 2, 0x20, 0], ['u32', 3, 0x20, 0], ['u64', 8, 0x20, 0], ['f32', 4, 0, 31], ['f64', 5, 0, 31],
        ['s', 253, 0, 0], ['bin', 252, 0, 0], ['d', 10, 0, 0], ['t0', 7, 0, 0], ['t3', 7, 0, 3], ['t6', 7, 0, 6], ['t9', 7, 0, 6],
      ],
    );
  }
  // Parameters find the rows they were written with: each type compared with a parameter. Not
  // float32 (a double parameter is not the float32), not a BLOB (no `=` on bytes). 64-bit integers
  // beyond 2^53 are compared exactly.
  for (const r of TYPE_ROWS.filter((x) => x.b !== null)) {
    for (const c of TYPE_COLUMNS) {
      const v = r[c];
      if (c === 'f32' || c === 'bin' || v === null) continue;
      const [found] = await conn.execute<mysql.RowDataPacket[]>(`SELECT ts FROM par WHERE ${c} = ? ORDER BY ts`, [v]);
      const same = TYPE_ROWS.filter((x) => x[c] === v).map((x) => ({ ts: `1970-01-01 00:00:0${x.ts / 1000}` }));
      assert.deepEqual(found, same, `${c} = ${String(v)}`);
    }
  }
});
