/**
 * The type round trip of the driver tests: a table with a column of every type tsdb stores
 * (`catalog/column-types.ts`: Boolean, Int8…Int64, UInt8…UInt64, Float32, Float64, String, Binary,
 * Date, Timestamp s/ms/µs/ns) and rows of edge values, each protocol's test reading them back through
 * its driver. Timestamps are written as wall-clock text in UTC with their full precision.
 */

export const TYPE_COLUMNS = [
  'b', 'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f32', 'f64', 's', 'bin', 'd', 't0', 't3', 't6', 't9',
] as const;
export type TypeColumn = (typeof TYPE_COLUMNS)[number];

/** `CREATE TABLE <name>` with the time index `ts` (milliseconds) and one column per type. */
export function typeTableDdl(name: string): string {
  return `CREATE TABLE ${name} (ts TIMESTAMP(3) TIME INDEX, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT,
    u8 TINYINT UNSIGNED, u16 SMALLINT UNSIGNED, u32 INT UNSIGNED, u64 BIGINT UNSIGNED, f32 FLOAT, f64 DOUBLE,
    s STRING, bin VARBINARY, d DATE, t0 TIMESTAMP(0), t3 TIMESTAMP(3), t6 TIMESTAMP(6), t9 TIMESTAMP(9))`;
}

/** tsdb's `data_type` of each column. */
export const DATA_TYPES: Record<TypeColumn, string> = {
  b: 'Boolean', i8: 'Int8', i16: 'Int16', i32: 'Int32', i64: 'Int64', u8: 'UInt8', u16: 'UInt16', u32: 'UInt32', u64: 'UInt64',
  f32: 'Float32', f64: 'Float64', s: 'String', bin: 'Binary', d: 'Date',
  t0: 'TimestampSecond', t3: 'TimestampMillisecond', t6: 'TimestampMicrosecond', t9: 'TimestampNanosecond',
};

export interface TypeRow {
  /** Milliseconds since the epoch. */
  readonly ts: number;
  readonly b: boolean | null;
  readonly i8: number | null;
  readonly i16: number | null;
  readonly i32: number | null;
  readonly i64: bigint | null;
  readonly u8: number | null;
  readonly u16: number | null;
  readonly u32: number | null;
  readonly u64: bigint | null;
  /** A value a float32 holds exactly. */
  readonly f32: number | null;
  readonly f64: number | null;
  readonly s: string | null;
  readonly bin: Buffer | null;
  /** `YYYY-MM-DD`. */
  readonly d: string | null;
  /** `YYYY-MM-DD HH:MM:SS[.f…]` in UTC, with the column's full precision. */
  readonly t0: string | null;
  readonly t3: string | null;
  readonly t6: string | null;
  readonly t9: string | null;
}

const NULLS = {
  b: null, i8: null, i16: null, i32: null, i64: null, u8: null, u16: null, u32: null, u64: null, f32: null, f64: null,
  s: null, bin: null, d: null, t0: null, t3: null, t6: null, t9: null,
} as const;

export const TYPE_ROWS: readonly TypeRow[] = [
  {
    ts: 1000,
    b: false,
    i8: -128,
    i16: -32768,
    i32: -2147483648,
    i64: -9223372036854775808n,
    u8: 0,
    u16: 0,
    u32: 0,
    u64: 0n,
    f32: -3.4028234663852886e38,
    f64: -1.7976931348623157e308,
    s: 'a',
    bin: Buffer.from([0x00]),
    d: '1969-12-31',
    t0: '1969-12-31 23:59:59',
    t3: '1900-01-01 00:00:00.001',
    t6: '1969-12-31 23:59:59.999999',
    t9: '1969-12-31 23:59:59.999999999',
  },
  {
    ts: 2000,
    b: true,
    i8: 127,
    i16: 32767,
    i32: 2147483647,
    i64: 9223372036854775807n,
    u8: 255,
    u16: 65535,
    u32: 4294967295,
    u64: 18446744073709551615n,
    f32: 3.4028234663852886e38,
    f64: 1.7976931348623157e308,
    s: `héllo, 世界 😀 'q' \\ "dq" \n tab\t`,
    bin: Buffer.from([0x00, 0xff, 0x27, 0x5c, 0x80, 0x0a, 0xc3]),
    d: '9999-12-31',
    t0: '9999-12-31 23:59:59',
    t3: '9999-12-31 23:59:59.999',
    t6: '9999-12-31 23:59:59.999999',
    // The latest instant a nanosecond column holds (int64's maximum is DuckDB's `infinity`, refused).
    t9: '2262-04-11 23:47:16.854775806',
  },
  {
    ts: 3000,
    b: true,
    i8: 0,
    i16: -1,
    i32: 1,
    i64: 9007199254740993n, // 2^53 + 1: no double holds it
    u8: 1,
    u16: 1,
    u32: 2147483648,
    u64: 9223372036854775808n,
    f32: Math.fround(0.1),
    f64: -0,
    s: '',
    bin: Buffer.alloc(0),
    d: '2024-02-29',
    t0: '2024-02-29 12:34:56',
    t3: '2024-02-29 12:34:56.789',
    t6: '2024-02-29 12:34:56.000001',
    t9: '2024-02-29 12:34:56.123456789',
  },
  { ts: 4000, ...NULLS },
  { ts: 5000, ...NULLS, f32: 1.401298464324817e-45, f64: 5e-324, s: 'ctl \u0001\u007f', t9: '1970-01-01 00:00:00.000000001' },
  // Floats store NaN and the infinities (GreptimeDB does; MySQL writes them `NaN`/`inf`/`-inf`, PostgreSQL `NaN`/`Infinity`).
  { ts: 6000, ...NULLS, f32: NaN, f64: NaN },
  { ts: 7000, ...NULLS, f32: Infinity, f64: -Infinity },
  { ts: 8000, ...NULLS, f32: -Infinity, f64: Infinity },
];

/** A value as a tsdb SQL literal (bytes through `from_hex`, negative zero as `-0.0`, NaN and the infinities as strings). */
export function sqlLiteral(v: TypeRow[TypeColumn] | number): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? `'NaN'` : v > 0 ? `'inf'` : `'-Infinity'`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0.0' : String(v);
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v)) return `from_hex('${v.toString('hex')}')`;
  return `'${v.replaceAll("'", "''")}'`;
}

/** `INSERT INTO <name> VALUES …` of the rows as literals. */
export function insertLiterals(name: string, rows: readonly TypeRow[] = TYPE_ROWS): string {
  const values = rows.map((r) => `(${[r.ts, ...TYPE_COLUMNS.map((c) => r[c])].map(sqlLiteral).join(', ')})`);
  return `INSERT INTO ${name} (ts, ${TYPE_COLUMNS.join(', ')}) VALUES ${values.join(', ')}`;
}

/**
 * A timestamp text cut to `digits` fraction digits (truncating), the fraction written in groups of
 * `group` digits (3: MySQL's text rows; 1: trailing zeros dropped, as PostgreSQL) and none when zero.
 */
export function cutFraction(text: string, digits: number, group: 1 | 3): string {
  const [whole, frac = ''] = text.split('.') as [string, string?];
  let f = frac.padEnd(9, '0').slice(0, digits).replace(/0+$/, '');
  if (f === '') return whole;
  f = f.padEnd(Math.ceil(f.length / group) * group, '0');
  return `${whole}.${f}`;
}
