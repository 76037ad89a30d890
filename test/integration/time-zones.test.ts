/**
 * One session time zone rule everywhere (reference api.md §7): the matrix of time zones (UTC, a
 * fixed offset, a zone with daylight saving, a half-hour offset) × protocols (HTTP with
 * `X-Tsdb-Timezone`, MySQL `SET time_zone`, PostgreSQL `SET TIME ZONE` / `SET timezone`), each on
 * a fresh table whose time index is in seconds, milliseconds or nanoseconds.
 *
 * In every cell the same naive literals (no offset) are read in the session's time zone wherever
 * they appear: INSERT VALUES, WHERE comparisons, BETWEEN, IN, `TIMESTAMP '…'`, `'…'::TIMESTAMP`,
 * `CAST('…' AS TIMESTAMP)`, DELETE; literals with an offset mean what they say. The stored instant
 * is read back over HTTP in UTC (raw epoch integers) and compared with instants written here as
 * `Date.UTC(…)`, not computed by tsdb's own code; MySQL and PostgreSQL show timestamps as the
 * session zone's wall time (`YYYY-MM-DD HH:MM:SS[.fff]`; PostgreSQL drops trailing zeros). New York's daylight-saving edges follow one rule
 * (src/common/time/timestamp.ts `localOffsetMinutes`): a skipped local time moves forward by the
 * gap (2024-03-10 02:30 → 07:30Z), a repeated one is its first occurrence (2024-11-03 01:30 → 05:30Z).
 * `now()` is an instant; `date_trunc('day', …)`, `date_bin(INTERVAL '1 day', …)` and a range query
 * `ALIGN '1d'` cut days at the session's local midnight. Last, PostgreSQL's startup parameter
 * `TimeZone` (sent by the `postgres` driver; `pg` cannot send it) sets the zone as SET does.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseLosslessJson } from 'lossless-json';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';
import { greptimeGrpc } from '../support/greptime-grpc.js';

// ---------------------------------------------------------------------------------------------
// The rows: the same literals in every zone.

/** The rows of every table, by name; `id` is the value of column `v`. */
type RowName = 'winter' | 'spring' | 'summer' | 'autumn' | 'zulu' | 'plus2' | 'minus5' | 'frac';
/** The local day a row falls on, in every zone of the matrix. */
type Day = 'jan15' | 'mar10' | 'jul1' | 'nov3';

interface RowSpec {
  readonly id: number;
  /** The literal as written in INSERT and WHERE. */
  readonly literal: string;
  readonly day: Day;
}

const ROWS: Readonly<Record<RowName, RowSpec>> = {
  // Naive: read in the session's time zone. In New York, `spring` is in the skipped hour and
  // `autumn` in the repeated hour; elsewhere they are ordinary times.
  winter: { id: 1, literal: '2024-01-15 09:00:00', day: 'jan15' },
  spring: { id: 2, literal: '2024-03-10 02:30:00', day: 'mar10' },
  summer: { id: 3, literal: '2024-07-01 02:00:00', day: 'jul1' },
  autumn: { id: 4, literal: '2024-11-03 01:30:00', day: 'nov3' },
  // With an offset: the same instant whatever the session's zone (and the same local day in
  // each zone of the matrix). `minus5` is New York's second 01:30 of 2024-11-03 (EST).
  zulu: { id: 5, literal: '2024-07-01T12:00:00Z', day: 'jul1' },
  plus2: { id: 6, literal: '2024-07-01 15:00:00+02:00', day: 'jul1' },
  minus5: { id: 7, literal: '2024-11-03 01:30:00-05:00', day: 'nov3' },
  // Naive with a fraction (only in tables with a sub-second unit): `summer` + 250 ms.
  frac: { id: 8, literal: '2024-07-01 02:00:00.250', day: 'jul1' },
};

/** The instants of the rows with an offset, the same in every zone (ms since the epoch). */
const ABSOLUTE = {
  zulu: Date.UTC(2024, 6, 1, 12, 0),
  plus2: Date.UTC(2024, 6, 1, 13, 0),
  minus5: Date.UTC(2024, 10, 3, 6, 30),
} as const;

/** Local midnight of each day as MySQL and PostgreSQL show it, in every zone. */
const MIDNIGHT_SHOWN: Readonly<Record<Day, string>> = {
  jan15: '2024-01-15 00:00:00',
  mar10: '2024-03-10 00:00:00',
  jul1: '2024-07-01 00:00:00',
  nov3: '2024-11-03 00:00:00',
};

// ---------------------------------------------------------------------------------------------
// The zones: what the naive literals mean there.

interface Zone {
  /** As given to `X-Tsdb-Timezone` / `SET`. */
  readonly name: string;
  /** For table names. */
  readonly slug: string;
  /** The instant (ms since the epoch) each naive literal stands for in this zone. */
  readonly naive: Readonly<Record<'winter' | 'spring' | 'summer' | 'autumn', number>>;
  /** How MySQL and PostgreSQL show each whole-second row in this zone. */
  readonly shown: Readonly<Record<Exclude<RowName, 'frac'>, string>>;
  /** The instant of local midnight of each day in this zone. */
  readonly midnight: Readonly<Record<Day, number>>;
}

/** Naive rows are shown as written, except where a zone says otherwise. */
const NAIVE_SHOWN = { winter: ROWS.winter.literal, spring: ROWS.spring.literal, summer: ROWS.summer.literal, autumn: ROWS.autumn.literal };

const ZONES: readonly Zone[] = [
  {
    name: 'UTC',
    slug: 'utc',
    naive: {
      winter: Date.UTC(2024, 0, 15, 9, 0),
      spring: Date.UTC(2024, 2, 10, 2, 30),
      summer: Date.UTC(2024, 6, 1, 2, 0),
      autumn: Date.UTC(2024, 10, 3, 1, 30),
    },
    shown: { ...NAIVE_SHOWN, zulu: '2024-07-01 12:00:00', plus2: '2024-07-01 13:00:00', minus5: '2024-11-03 06:30:00' },
    midnight: { jan15: Date.UTC(2024, 0, 15), mar10: Date.UTC(2024, 2, 10), jul1: Date.UTC(2024, 6, 1), nov3: Date.UTC(2024, 10, 3) },
  },
  {
    name: '+08:00',
    slug: 'plus8',
    naive: {
      winter: Date.UTC(2024, 0, 15, 1, 0),
      spring: Date.UTC(2024, 2, 9, 18, 30),
      summer: Date.UTC(2024, 5, 30, 18, 0),
      autumn: Date.UTC(2024, 10, 2, 17, 30),
    },
    shown: { ...NAIVE_SHOWN, zulu: '2024-07-01 20:00:00', plus2: '2024-07-01 21:00:00', minus5: '2024-11-03 14:30:00' },
    midnight: { jan15: Date.UTC(2024, 0, 14, 16), mar10: Date.UTC(2024, 2, 9, 16), jul1: Date.UTC(2024, 5, 30, 16), nov3: Date.UTC(2024, 10, 2, 16) },
  },
  {
    name: 'America/New_York',
    slug: 'new_york',
    naive: {
      winter: Date.UTC(2024, 0, 15, 14, 0), // EST, -05:00
      spring: Date.UTC(2024, 2, 10, 7, 30), // skipped: read at -05:00, i.e. 03:30 EDT
      summer: Date.UTC(2024, 6, 1, 6, 0), // EDT, -04:00
      autumn: Date.UTC(2024, 10, 3, 5, 30), // repeated: the first 01:30, EDT
    },
    shown: { ...NAIVE_SHOWN, spring: '2024-03-10 03:30:00', zulu: '2024-07-01 08:00:00', plus2: '2024-07-01 09:00:00', minus5: '2024-11-03 01:30:00' },
    // Midnight of 2024-03-10 is still EST and of 2024-11-03 still EDT.
    midnight: { jan15: Date.UTC(2024, 0, 15, 5), mar10: Date.UTC(2024, 2, 10, 5), jul1: Date.UTC(2024, 6, 1, 4), nov3: Date.UTC(2024, 10, 3, 4) },
  },
  {
    name: 'Asia/Kolkata',
    slug: 'kolkata',
    naive: {
      winter: Date.UTC(2024, 0, 15, 3, 30),
      spring: Date.UTC(2024, 2, 9, 21, 0),
      summer: Date.UTC(2024, 5, 30, 20, 30),
      autumn: Date.UTC(2024, 10, 2, 20, 0),
    },
    shown: { ...NAIVE_SHOWN, zulu: '2024-07-01 17:30:00', plus2: '2024-07-01 18:30:00', minus5: '2024-11-03 12:00:00' },
    midnight: {
      jan15: Date.UTC(2024, 0, 14, 18, 30),
      mar10: Date.UTC(2024, 2, 9, 18, 30),
      jul1: Date.UTC(2024, 5, 30, 18, 30),
      nov3: Date.UTC(2024, 10, 2, 18, 30),
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Units: raw epoch integers as HTTP gives them.

type Unit = 's' | 'ms' | 'us' | 'ns';
const PRECISION: Record<Unit, number> = { s: 0, ms: 3, us: 6, ns: 9 };
const DATA_TYPE: Record<Unit, string> = { s: 'TimestampSecond', ms: 'TimestampMillisecond', us: 'TimestampMicrosecond', ns: 'TimestampNanosecond' };

function unitOfDataType(dataType: string): Unit {
  const u = (Object.keys(DATA_TYPE) as Unit[]).find((k) => DATA_TYPE[k] === dataType);
  if (u === undefined) throw new Error(`not a timestamp column type: ${dataType}`);
  return u;
}

/** An instant of whole milliseconds as a raw epoch integer in `unit`. */
function rawIn(ms: number, unit: Unit): bigint {
  switch (unit) {
    case 's':
      assert.equal(ms % 1000, 0, `${ms} ms is not whole seconds`);
      return BigInt(ms / 1000);
    case 'ms':
      return BigInt(ms);
    case 'us':
      return BigInt(ms) * 1000n;
    case 'ns':
      return BigInt(ms) * 1_000_000n;
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions: one interface over the three protocols.

type Protocol = 'http' | 'mysql' | 'postgres';
const PROTOCOLS: readonly Protocol[] = ['http', 'mysql', 'postgres'];

type Cell = string | number | bigint | null;

interface Result {
  readonly rows: Cell[][];
  /** HTTP only: each column's data type (timestamps are raw epoch integers in its unit). */
  readonly types?: readonly string[];
}

interface SqlSession {
  readonly protocol: Protocol;
  query(sql: string): Promise<Result>;
  /** Runs a statement that changes rows; the number of rows affected. */
  execute(sql: string): Promise<number>;
  close(): Promise<void>;
}

function hostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

interface HttpOutput {
  readonly affectedrows?: number;
  readonly records?: { readonly schema: { readonly column_schemas: { name: string; data_type: string }[] }; readonly rows: Cell[][] };
}

/** POST /v1/sql in time zone `zone`; 64-bit integers kept exact (as bigint). */
async function httpSql(baseUrl: string, zone: string, sql: string): Promise<HttpOutput> {
  const res = await fetch(`${baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-tsdb-timezone': zone },
    body: new URLSearchParams({ sql }).toString(),
  });
  const text = await res.text();
  const body = parseLosslessJson(text, null, (n) => (/^-?\d+$/.test(n) ? BigInt(n) : Number(n))) as { code: bigint; error?: string; output?: HttpOutput[] };
  if (res.status !== 200 || body.code !== 0n) throw new Error(`HTTP ${res.status} code ${body.code}: ${body.error ?? text}`);
  assert.equal(body.output!.length, 1);
  return body.output![0]!;
}

function httpSession(server: Started, zone: string): SqlSession {
  return {
    protocol: 'http',
    async query(sql) {
      const o = await httpSql(server.baseUrl, zone, sql);
      assert.ok(o.records, `${sql}: no records`);
      return { rows: o.records.rows, types: o.records.schema.column_schemas.map((c) => c.data_type) };
    },
    async execute(sql) {
      const o = await httpSql(server.baseUrl, zone, sql);
      return Number(o.affectedrows);
    },
    close: async () => {},
  };
}

async function mysqlSession(server: Started, zone: string): Promise<SqlSession> {
  const conn = await mysql.createConnection({
    ...hostPort(server.mysql!),
    user: 'root',
    database: 'public',
    // Cells as the server's text: timestamps as it shows them, 64-bit integers exact.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  await conn.query(`SET time_zone = '${zone}'`);
  return {
    protocol: 'mysql',
    async query(sql) {
      const [rows] = await conn.query<mysql.RowDataPacket[][]>({ sql, rowsAsArray: true });
      return { rows: rows as unknown as Cell[][] };
    },
    async execute(sql) {
      const [r] = await conn.query<mysql.ResultSetHeader>(sql);
      return r.affectedRows;
    },
    close: () => conn.end(),
  };
}

/** `timestamp` (1114) cells as the server's text, not a JS Date read in the test's own zone. */
const PG_TYPES = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 1114 ? (v: string) => v : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig;

/** A PostgreSQL session in `zone`, set by `SET TIME ZONE '…'` or by `SET timezone = '…'`. */
async function postgresSession(server: Started, zone: string, form: 'SET TIME ZONE' | 'SET timezone'): Promise<SqlSession> {
  const client = new pg.Client({ ...hostPort(server.postgres!), user: 'tsdb', database: 'public', types: PG_TYPES });
  await client.connect();
  await client.query(form === 'SET TIME ZONE' ? `SET TIME ZONE '${zone}'` : `SET timezone = '${zone}'`);
  return {
    protocol: 'postgres',
    async query(sql) {
      const r = await client.query<Cell[]>({ text: sql, rowMode: 'array' });
      return { rows: r.rows };
    },
    async execute(sql) {
      const r = await client.query(sql);
      return r.rowCount ?? -1;
    },
    close: () => client.end(),
  };
}

// ---------------------------------------------------------------------------------------------
// Checks: each runs a list of statements and compares all answers at once, so that a failure
// lists every statement that answers wrongly, not only the first.

const q = (literal: string) => `'${literal}'`;

/** The ids (column `v`) a query returns, sorted; or the error it fails with. */
async function idsOf(s: SqlSession, sql: string): Promise<number[] | string> {
  try {
    const { rows } = await s.query(sql);
    return rows.map((r) => Number(r[0])).sort((a, b) => a - b);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

async function expectIds(s: SqlSession, cases: ReadonlyArray<readonly [sql: string, ids: readonly number[]]>): Promise<void> {
  const wrong: string[] = [];
  for (const [sql, ids] of cases) {
    const want = [...ids].sort((a, b) => a - b);
    const got = await idsOf(s, sql);
    if (!isDeepStrictEqual(got, want)) wrong.push(`${sql}\n    got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  if (wrong.length > 0) assert.fail(`${wrong.length} of ${cases.length} statements answer wrongly:\n  ${wrong.join('\n  ')}`);
}

/**
 * What a timestamp cell of column `col` should be: over HTTP the raw epoch integer of instant
 * `ms` in the column's unit, over MySQL and PostgreSQL `shown` (the session zone's wall time).
 */
function timeCell(s: SqlSession, r: Result, col: number, ms: number, shown: string): Cell {
  return s.protocol === 'http' ? rawIn(ms, unitOfDataType(r.types![col]!)) : shown;
}

/** The rows of a table: their names, expected instants and how they are shown, in one zone. */
interface TableRow {
  readonly name: RowName;
  readonly id: number;
  readonly literal: string;
  readonly day: Day;
  readonly ms: number;
  readonly shown: string;
}

function rowsOf(zone: Zone, unit: Unit, protocol: Protocol): TableRow[] {
  const names: RowName[] = ['winter', 'spring', 'summer', 'autumn', 'zulu', 'plus2', 'minus5', ...(unit === 's' ? [] : ['frac' as const])];
  return names.map((name) => {
    const spec = ROWS[name];
    if (name === 'frac') {
      // PostgreSQL drops trailing zeros of the fraction; MySQL shows milliseconds.
      const shown = `${zone.shown.summer}${protocol === 'postgres' ? '.25' : '.250'}`;
      return { name, ...spec, ms: zone.naive.summer + 250, shown };
    }
    const ms = name === 'zulu' || name === 'plus2' || name === 'minus5' ? ABSOLUTE[name] : zone.naive[name];
    return { name, ...spec, ms, shown: zone.shown[name] };
  });
}

/** Runs one cell of the matrix: a zone, a protocol, a table with time index unit `unit`. */
async function runCell(t: TestContext, server: Started, zone: Zone, s: SqlSession, unit: Unit): Promise<void> {
  const table = `tz_${zone.slug}_${s.protocol}_${unit}`;
  const rows = rowsOf(zone, unit, s.protocol);
  const row = (name: RowName) => rows.find((r) => r.name === name)!;
  const ids = (pred: (ms: number) => boolean) => rows.filter((r) => pred(r.ms)).map((r) => r.id);
  const utc = (sql: string) => httpSql(server.baseUrl, 'UTC', sql);
  const [winter, spring, summer, autumn] = [row('winter'), row('spring'), row('summer'), row('autumn')];

  await t.test('INSERT of naive and offset literals stores the instants they mean in the session zone', async () => {
    await s.execute(`CREATE TABLE ${table} (ts TIMESTAMP(${PRECISION[unit]}) TIME INDEX, v BIGINT)`);
    const affected = await s.execute(`INSERT INTO ${table} (ts, v) VALUES ${rows.map((r) => `(${q(r.literal)}, ${r.id})`).join(', ')}`);
    assert.equal(affected, rows.length);
    // Read in UTC over HTTP, whatever the protocol of the session.
    const o = await utc(`SELECT v, ts FROM ${table} ORDER BY v`);
    assert.deepEqual(o.records!.schema.column_schemas.map((c) => c.data_type), ['Int64', DATA_TYPE[unit]]);
    assert.deepEqual(
      o.records!.rows.map(([v, ts]) => [Number(v), ts]),
      rows.map((r) => [r.id, rawIn(r.ms, unit)]),
    );
  });

  await t.test('SELECT shows the instants in the session zone', async () => {
    const r = await s.query(`SELECT v, ts FROM ${table} ORDER BY v`);
    assert.deepEqual(
      r.rows.map(([v, ts]) => [Number(v), ts]),
      rows.map((x) => [x.id, timeCell(s, r, 1, x.ms, x.shown)]),
    );
  });

  await t.test('WHERE compares with naive literals read in the session zone', async () => {
    const cases: Array<readonly [string, readonly number[]]> = [];
    for (const r of rows) cases.push([`SELECT v FROM ${table} WHERE ts = ${q(r.literal)}`, [r.id]]);
    cases.push(
      [`SELECT v FROM ${table} WHERE ts >= ${q(spring.literal)} AND ts < ${q(autumn.literal)}`, ids((ms) => ms >= spring.ms && ms < autumn.ms)],
      [`SELECT v FROM ${table} WHERE ts > ${q(summer.literal)}`, ids((ms) => ms > summer.ms)],
      [`SELECT v FROM ${table} WHERE ts <= ${q(spring.literal)}`, ids((ms) => ms <= spring.ms)],
      [`SELECT v FROM ${table} WHERE ts BETWEEN ${q(winter.literal)} AND ${q(summer.literal)}`, ids((ms) => ms >= winter.ms && ms <= summer.ms)],
      [`SELECT v FROM ${table} WHERE ts IN (${q(winter.literal)}, ${q(autumn.literal)})`, [winter.id, autumn.id]],
      [`SELECT v FROM ${table} WHERE ts <> ${q(spring.literal)}`, ids((ms) => ms !== spring.ms)],
    );
    await expectIds(s, cases);
  });

  await t.test("TIMESTAMP '…', '…'::TIMESTAMP and CAST('…' AS TIMESTAMP) are read in the session zone", async () => {
    await expectIds(s, [
      [`SELECT v FROM ${table} WHERE ts = TIMESTAMP ${q(summer.literal)}`, [summer.id]],
      [`SELECT v FROM ${table} WHERE ts = ${q(summer.literal)}::TIMESTAMP`, [summer.id]],
      [`SELECT v FROM ${table} WHERE ts = CAST(${q(summer.literal)} AS TIMESTAMP)`, [summer.id]],
      [`SELECT v FROM ${table} WHERE ts = TIMESTAMP ${q(spring.literal)}`, [spring.id]],
      [`SELECT v FROM ${table} WHERE ts = CAST(${q(autumn.literal)} AS TIMESTAMP)`, [autumn.id]],
      [
        `SELECT v FROM ${table} WHERE ts BETWEEN TIMESTAMP ${q(winter.literal)} AND ${q(summer.literal)}::TIMESTAMP`,
        ids((ms) => ms >= winter.ms && ms <= summer.ms),
      ],
      [`SELECT v FROM ${table} WHERE ts IN (TIMESTAMP ${q(winter.literal)}, CAST(${q(autumn.literal)} AS TIMESTAMP))`, [winter.id, autumn.id]],
    ]);
  });

  await t.test('date_trunc and date_bin cut days at local midnight', async () => {
    const r = await s.query(`SELECT v, date_trunc('day', ts) AS d, date_bin(INTERVAL '1 day', ts) AS b FROM ${table} ORDER BY v`);
    assert.deepEqual(
      r.rows.map(([v, d, b]) => [Number(v), d, b]),
      rows.map((x) => [x.id, timeCell(s, r, 1, zone.midnight[x.day], MIDNIGHT_SHOWN[x.day]), timeCell(s, r, 2, zone.midnight[x.day], MIDNIGHT_SHOWN[x.day])]),
    );
  });

  await t.test("a range query ALIGN '1d' puts its slots at local midnight", async () => {
    const r = await s.query(`SELECT ts, count(v) RANGE '1d' FROM ${table} ALIGN '1d' BY () ORDER BY ts`);
    const days: Day[] = ['jan15', 'mar10', 'jul1', 'nov3'];
    assert.deepEqual(
      r.rows.map(([ts, c]) => [ts, Number(c)]),
      days.map((d) => [timeCell(s, r, 0, zone.midnight[d], MIDNIGHT_SHOWN[d]), rows.filter((x) => x.day === d).length]),
    );
  });

  await t.test('DELETE … WHERE ts = naive literal removes exactly that row', async () => {
    assert.equal(await s.execute(`DELETE FROM ${table} WHERE ts = ${q(spring.literal)}`), 1);
    const o = await utc(`SELECT v FROM ${table} ORDER BY v`);
    assert.deepEqual(o.records!.rows.map(([v]) => Number(v)), rows.filter((r) => r !== spring).map((r) => r.id));
  });

  await t.test('now() is an instant: a row inserted with it is within the last hour', async () => {
    const before = Date.now();
    assert.equal(await s.execute(`INSERT INTO ${table} (ts, v) VALUES (now(), 100)`), 1);
    const after = Date.now();
    const o = await utc(`SELECT ts FROM ${table} WHERE v = 100`);
    const stored = o.records!.rows[0]![0] as bigint;
    // Within a second of the insert (the s unit floors), so not shifted by any zone's offset.
    const [lo, hi] = [rawIn(Math.floor(before / 1000) * 1000 - 1000, unit), rawIn(Math.ceil(after / 1000) * 1000 + 1000, unit)];
    assert.ok(stored >= lo && stored <= hi, `now() stored ${stored} (${unit}), inserted between ${lo} and ${hi}`);
    await expectIds(s, [[`SELECT v FROM ${table} WHERE ts > now() - INTERVAL '1 hour'`, [100]]]);
  });
}

// ---------------------------------------------------------------------------------------------

test('one session time zone rule: zones × protocols', async (t) => {
  const server = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  const units: Unit[] = ['ms', 'ns', 's'];
  for (const [zi, zone] of ZONES.entries()) {
    for (const [pi, protocol] of PROTOCOLS.entries()) {
      // Each protocol meets each unit, and each zone too.
      const unit = units[(zi + pi) % units.length]!;
      await t.test(`${zone.name} over ${protocol}, TIMESTAMP(${PRECISION[unit]})`, async (t) => {
        const s =
          protocol === 'http'
            ? httpSession(server, zone.name)
            : protocol === 'mysql'
              ? await mysqlSession(server, zone.name)
              : await postgresSession(server, zone.name, zi % 2 === 0 ? 'SET TIME ZONE' : 'SET timezone');
        try {
          await runCell(t, server, zone, s, unit);
        } finally {
          await s.close();
        }
      });
    }
  }

  await t.test('PostgreSQL startup parameter TimeZone sets the session zone', async () => {
    const sql = postgres({ ...hostPort(server.postgres!), user: 'tsdb', database: 'public', max: 1, onnotice: () => {}, connection: { TimeZone: 'America/New_York' } });
    try {
      await sql.unsafe('CREATE TABLE tz_startup (ts TIMESTAMP TIME INDEX, v BIGINT)');
      await sql.unsafe(`INSERT INTO tz_startup (ts, v) VALUES ('${ROWS.spring.literal}', 1), ('${ROWS.autumn.literal}', 2)`);
      const o = await httpSql(server.baseUrl, 'UTC', 'SELECT v, ts FROM tz_startup ORDER BY v');
      assert.deepEqual(o.records!.rows.map(([v, ts]) => [Number(v), ts]), [
        [1, BigInt(Date.UTC(2024, 2, 10, 7, 30))],
        [2, BigInt(Date.UTC(2024, 10, 3, 5, 30))],
      ]);
      const found = await sql.unsafe(`SELECT v FROM tz_startup WHERE ts = '${ROWS.autumn.literal}'`);
      assert.deepEqual(found.map((r) => Number(r['v'])), [2]);
    } finally {
      await sql.end();
    }
  });
});

test('default_timezone: the time zone of every session that names none, on HTTP, MySQL, PostgreSQL and gRPC', async (t) => {
  const server = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { env: { TSDB_STANDALONE__DEFAULT_TIMEZONE: '+08:00' } });
  const http = async (sql: string, zone?: string) => {
    const res = await fetch(`${server.baseUrl}/v1/sql?db=public`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(zone !== undefined && { 'x-tsdb-timezone': zone }) },
      body: new URLSearchParams({ sql }).toString(),
    });
    const json = parseLosslessJson(await res.text()) as { output?: Array<{ records?: { rows: unknown[][] } }> };
    return json.output?.[0]?.records?.rows;
  };
  await http('CREATE TABLE dz (ts TIMESTAMP(3) TIME INDEX, v DOUBLE)');
  // A naive literal is read at +08:00 without a header, as the header's zone with one.
  await http("INSERT INTO dz VALUES ('2024-01-01 08:00:00', 1)");
  await http("INSERT INTO dz VALUES ('2024-01-01 09:00:00', 2)", 'UTC');
  const epochs = (await http('SELECT CAST(epoch_ms(ts) AS VARCHAR), v FROM dz ORDER BY v', 'UTC'))!.map((r) => [String(r[0]), String(r[1])]);
  assert.deepEqual(epochs, [[String(Date.UTC(2024, 0, 1, 0)), '1'], [String(Date.UTC(2024, 0, 1, 9)), '2']]);
  assert.deepEqual((await http('SELECT timezone()'))!.map((r) => String(r[0])), ['+08:00']);

  const my = await mysql.createConnection({ ...hostPort(server.mysql!), user: 'root', database: 'public', dateStrings: true });
  try {
    const [myRows] = await my.query('SELECT ts FROM dz WHERE v = 1');
    assert.deepEqual(myRows, [{ ts: '2024-01-01 08:00:00' }], 'MySQL shows the instant in the default zone');
  } finally {
    await my.end();
  }

  const pgc = new pg.Client({ ...hostPort(server.postgres!), user: 'tsdb', database: 'public' });
  await pgc.connect();
  try {
    assert.deepEqual(Object.values((await pgc.query('SHOW timezone')).rows[0]!), ['+08:00']);
  } finally {
    await pgc.end();
  }

  // gRPC (GreptimeDatabase query.sql): a naive literal in a DELETE is read at +08:00.
  const deleted = await greptimeGrpc(t, server.grpc!).handle({ header: { dbname: 'public' }, query: { sql: "DELETE FROM dz WHERE ts = '2024-01-01 08:00:00'" } });
  assert.ok(deleted.ok, JSON.stringify(deleted));
  assert.deepEqual((await http('SELECT v FROM dz', 'UTC'))!.map((r) => String(r[0])), ['2']);
});
