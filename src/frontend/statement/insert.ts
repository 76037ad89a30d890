/**
 * INSERT / REPLACE … VALUES and INSERT … SELECT: rows to one columnar write batch per region; DELETE
 * as tombstones of the rows a condition matches. Literals are converted
 * here with the reference's messages; other expressions (`now()`, `1 + 1`, casts, subqueries) are
 * evaluated as one query, through the same path (and sandbox) as a SELECT. Naive timestamp strings
 * are read in the session's time zone; a timestamp outside its column's range is refused, never
 * wrapped. The statement is checked whole before anything is written: a bad row writes nothing.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { fullTableName, INFORMATION_SCHEMA, type ColumnSchema, type TableInfo } from '../../catalog/table-info.js';
import type { Cell, Output } from '../../query/output.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { checkTimestampRange, convertTime, parseTimestamp } from '../../common/time/timestamp.js';
import { timeUnitOf, type TimeUnit } from '../../types/time-unit.js';
import { OP_DELETE, OP_PUT, vectorTypeOf, type Vector, type WriteBatch } from '../../types/write-batch.js';
import { vectorDimOf, type ColumnType } from '../../types/region-metadata.js';
import { sqlTypeOf } from '../../types/sql-types.js';
import { parseVectorText, vectorBytes, VectorTextError } from '../../common/vector-text.js';
import { quoteIdent } from '../../common/sql-quote.js';
import type { Statement, ValueExpr } from '../../sql/ast.js';
import type { TableRouter } from '../table-router.js';
import type { Session } from '../session.js';
import { resolveName } from './names.js';
import { constantOf } from './values.js';

type Insert = Extract<Statement, { kind: 'insert' }>;

/** The name INSERT … SELECT gives its query (and, numbered, the query's columns). */
const INSERT_SOURCE = '__tsdb_insert_source';


/** A converted cell: what the column's vector holds (number, bigint, string, boolean, bytes) or null. */
export type Value = number | bigint | string | boolean | Uint8Array | null;

function parseFailure(text: string, what: string): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Failed to parse value: Failed to parse ${text} to ${what} value`);
}

/** The time of the write in a timestamp unit. */
function nowIn(unit: TimeUnit): bigint {
  return convertTime(BigInt(Date.now()), 'ms', unit);
}

/** A literal (not DEFAULT, not an expression) as a value of column `c`. */
function literalValue(v: ValueExpr, c: ColumnSchema, session: Session): Value {
  const unit = timeUnitOf(c.data_type);
  if (v.kind === 'null') return null;
  if (unit !== undefined) {
    if (v.kind === 'number' && /^[+-]?\d+$/.test(v.text)) {
      const t = BigInt(v.text);
      checkTimestampRange(t, unit, c.name);
      return t;
    }
    if (v.kind === 'number') return BigInt(constantOf(v, c.data_type) as number | string);
    if (v.kind === 'string') {
      const t = parseTimestamp(v.value, unit, session.timezone);
      if (t === undefined) throw parseFailure(v.value, 'Timestamp');
      checkTimestampRange(t, unit, c.name, v.value);
      return t;
    }
  }
  if (c.data_type === 'Date' && v.kind === 'string') {
    const t = parseTimestamp(v.value, 's', 'UTC');
    if (t === undefined) throw parseFailure(v.value, 'Date');
    return Number(t / 86_400n);
  }
  const dim = vectorDimOf(c.data_type);
  if (dim !== undefined && v.kind === 'string') return vectorValue(v.value, dim);
  if (c.data_type === 'Binary' && v.kind === 'string') return Buffer.from(v.value, 'utf8');
  if (c.data_type === 'Binary' && v.kind === 'hex') return Buffer.from(v.digits, 'hex');
  const k = constantOf(v, c.data_type);
  if (c.data_type === 'Int64' || c.data_type === 'UInt64') return k === null ? null : BigInt(k as number | string);
  return k;
}

/** The value a row gets for a column it does not give (its default, the write time, or NULL). */
export function defaultValue(c: ColumnSchema, table: TableInfo): Value {
  const d = c.default;
  const unit = timeUnitOf(c.data_type);
  if (d?.kind === 'current_timestamp' && unit !== undefined) return nowIn(unit);
  if (d?.kind === 'value' && d.value !== null) {
    if (unit !== undefined) {
      // An epoch in the column's unit; a string is a DEFAULT stored before they were read at CREATE (UTC).
      const t = typeof d.value === 'string' && !/^-?\d+$/.test(d.value) ? parseTimestamp(d.value, unit, 'UTC') : BigInt(d.value as number | string);
      if (t === undefined) throw parseFailure(String(d.value), 'Timestamp');
      checkTimestampRange(t, unit, c.name);
      return t;
    }
    if (c.data_type === 'Int64' || c.data_type === 'UInt64') return BigInt(d.value as number | string);
    const dim = vectorDimOf(c.data_type);
    if (dim !== undefined) return vectorValue(String(d.value), dim);
    return d.value;
  }
  if (!c.nullable) {
    throw new TsdbError(StatusCode.InvalidArguments, `Column ${c.name} of table ${fullTableName(table)} is not null and has no default value`);
  }
  return null;
}

/**
 * The values of expressions for their columns, evaluated as one query (`query`, the SELECT path:
 * session time zone, sandbox): cast to the column's type in DuckDB, but for timestamp columns,
 * whose values are converted by their result's type (`cellValue`: a timestamp, an epoch in the
 * column's unit, or a string read in the session's zone).
 */
async function evaluate(exprs: ReadonlyArray<{ text: string; column: ColumnSchema }>, zone: string, query: (sql: string) => Promise<Output>): Promise<Value[]> {
  const items = exprs.map((e, i) => `${timeUnitOf(e.column.data_type) !== undefined ? `(${e.text})` : `CAST((${e.text}) AS ${castTypeOf(e.column.data_type)})`} AS ${quoteIdent(`v${i}`)}`);
  const out = await query(`SELECT ${items.join(', ')}`);
  if (out.kind !== 'records' || out.rows.length !== 1) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid SQL, error: a VALUES expression must give one value');
  return exprs.map((e, i) => cellValue(out.rows[0]![i]!, out.columns[i]!.data_type, e.column, zone));
}

/** The type a value is cast to for a column: a JSON column's value as text, checked and made canonical where it is written (`json-columns.ts`). */
function castTypeOf(type: ColumnType): string {
  // A vector's value as its text (`[1.0, 2.0]`), read by `vectorValue`.
  return type === 'Json' || vectorDimOf(type) !== undefined ? 'VARCHAR' : sqlTypeOf(type);
}

/** A value written to a VECTOR(n) column (its text, or its floats) as its stored bytes; GreptimeDB's errors. */
export function vectorValue(v: string | readonly Cell[], dim: number): Uint8Array {
  try {
    const floats = typeof v === 'string' ? parseVectorText(v, dim) : Float32Array.from(v as number[]);
    if (floats.length !== dim) throw new VectorTextError(`Invalid Vector: Failed to parse ${JSON.stringify(v)} to Vector value: wrong dimension`);
    return vectorBytes(floats);
  } catch (e) {
    if (e instanceof VectorTextError) throw new TsdbError(StatusCode.InvalidArguments, e.message);
    throw e;
  }
}

export function vectorOf(type: ColumnType, values: readonly Value[], name: string): Vector {
  const n = values.length;
  const kind = vectorTypeOf(type);
  const valid = values.some((v) => v === null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : undefined;
  const withValid = <T extends object>(x: T) => (valid ? { ...x, valid } : x);
  switch (kind) {
    case 'float64':
      return withValid({ type: 'float64', data: Float64Array.from(values, (v) => (v === null ? 0 : Number(v))) }) as Vector;
    case 'int64':
      return withValid({ type: 'int64', data: BigInt64Array.from(values, (v) => (v === null ? 0n : BigInt(v as bigint))) }) as Vector;
    case 'uint64':
      return withValid({ type: 'uint64', data: BigUint64Array.from(values, (v) => (v === null ? 0n : BigInt(v as bigint))) }) as Vector;
    case 'bool':
      return withValid({ type: 'bool', data: Uint8Array.from(values, (v) => (v === true ? 1 : 0)) }) as Vector;
    case 'string':
      return { type: 'string', data: values.map((v) => (v === null ? null : String(v))) };
    case 'binary':
      return { type: 'binary', data: values.map((v) => (v === null ? null : v instanceof Uint8Array ? v : Buffer.from(String(v)))) };
    default:
      throw new TsdbError(StatusCode.Unexpected, `no vector for column ${name} (${n} rows)`);
  }
}

/** The table an INSERT or DELETE names, and the columns an INSERT gives (all, in table order, by default). */
/** information_schema is read-only (reference api.md §2: `Cannot change read-only table: <t>`). */
function checkWritable(database: string, table: string): void {
  if (database === INFORMATION_SCHEMA) throw new TsdbError(StatusCode.Unsupported, `Cannot change read-only table: ${table}`);
}

async function target(stmt: Insert, session: Session, catalog: CatalogManager): Promise<{ info: TableInfo; targets: ColumnSchema[] }> {
  const { database, table } = resolveName(stmt.name, session);
  checkWritable(database, table);
  const info = await catalog.table(database, table);
  if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
  const byName = new Map(info.columns.map((c) => [c.name, c]));
  const targets = (stmt.columns ?? info.columns.map((c) => c.name)).map((name) => {
    const c = byName.get(name);
    if (c === undefined) throw new TsdbError(StatusCode.TableColumnNotFound, `Column ${name} not exists in table ${info.name}`);
    return c;
  });
  if (new Set(targets.map((c) => c.name)).size !== targets.length) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid SQL, error: a column is given twice');
  return { info, targets };
}

/**
 * Fills the columns an INSERT does not give, checks NOT NULL, and writes one batch per region. A
 * statement cancelled before the write (`signal`) writes nothing; once the write starts it is not
 * interrupted (one batch, applied whole).
 */
async function writeRows(info: TableInfo, targets: readonly ColumnSchema[], values: Map<string, Value[]>, rowCount: number, tables: TableRouter, signal?: AbortSignal): Promise<number> {
  if (rowCount === 0) return 0;
  const given = new Set(targets.map((c) => c.name));
  for (const c of info.columns) if (!given.has(c.name)) values.get(c.name)!.fill(defaultValue(c, info));
  for (const c of info.columns) {
    if (!c.nullable && values.get(c.name)!.some((v) => v === null)) {
      throw new TsdbError(StatusCode.InvalidArguments, `Column ${c.name} of table ${fullTableName(info)} is not null, but a value is NULL`);
    }
  }
  const columns = new Map<number, Vector>(info.columns.map((c) => [c.column_id, vectorOf(c.data_type, values.get(c.name)!, c.name)]));
  const batch: WriteBatch = { op: OP_PUT, rowCount, columns };
  signal?.throwIfAborted();
  await tables.write(info, batch);
  return rowCount;
}

function emptyValues(info: TableInfo, rows: number): Map<string, Value[]> {
  return new Map<string, Value[]>(info.columns.map((c) => [c.name, new Array<Value>(rows)]));
}

/** Executes INSERT … VALUES (expressions evaluated by `query`); returns the number of rows written. */
export async function insertValues(stmt: Insert, session: Session, catalog: CatalogManager, tables: TableRouter, query: (sql: string) => Promise<Output>): Promise<number> {
  if (stmt.source.kind !== 'values') throw new TsdbError(StatusCode.Unexpected, 'insertValues of an INSERT … SELECT');
  const rows = stmt.source.rows;
  const { info, targets } = await target(stmt, session, catalog);
  for (const row of rows) {
    if (row.length !== targets.length) {
      throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: column count mismatch, columns: ${targets.length}, values: ${row.length}`);
    }
  }
  // Every column of the table gets a value per row: given, default, or NULL.
  const values = emptyValues(info, rows.length);
  const expressions: Array<{ row: number; column: ColumnSchema; text: string }> = [];
  rows.forEach((row, r) => {
    targets.forEach((c, i) => {
      const v = row[i]!;
      if (v.kind === 'default') values.get(c.name)![r] = defaultValue(c, info);
      else if (v.kind === 'sql') expressions.push({ row: r, column: c, text: v.text });
      else values.get(c.name)![r] = literalValue(v, c, session);
    });
  });
  if (expressions.length > 0) {
    // Each distinct expression once (per column type), all in one query.
    const distinct = new Map<string, { text: string; column: ColumnSchema; index: number }>();
    for (const e of expressions) {
      const key = `${e.column.data_type}\u0000${e.column.name}\u0000${e.text}`;
      if (!distinct.has(key)) distinct.set(key, { text: e.text, column: e.column, index: distinct.size });
    }
    const results = await evaluate([...distinct.values()], session.timezone, query);
    for (const e of expressions) values.get(e.column.name)![e.row] = results[distinct.get(`${e.column.data_type}\u0000${e.column.name}\u0000${e.text}`)!.index]!;
  }
  return writeRows(info, targets, values, rows.length, tables, session.signal);
}

/**
 * A query result cell (of result type `from`) as a value of column `c`: into a timestamp column, a
 * timestamp converted to its unit, an integer as an epoch in it, a string read in `zone`; checked
 * against the column's range.
 */
function cellValue(v: Cell, from: string, c: ColumnSchema, zone: string): Value {
  if (v === null) return null;
  const dim = vectorDimOf(c.data_type);
  if (dim !== undefined && (typeof v === 'string' || Array.isArray(v))) return vectorValue(v as string | readonly Cell[], dim);
  const unit = timeUnitOf(c.data_type);
  if (unit !== undefined) {
    const fromUnit = timeUnitOf(from as ColumnType);
    let t: bigint;
    if (fromUnit !== undefined) t = convertTime(BigInt(v as number | bigint), fromUnit, unit);
    else if (typeof v === 'string') {
      const parsed = parseTimestamp(v, unit, zone);
      if (parsed === undefined) throw parseFailure(v, 'Timestamp');
      t = parsed;
    } else if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) t = BigInt(v);
    else throw new TsdbError(StatusCode.InvalidArguments, `Cannot write a value of type ${from} into the timestamp column ${c.name}`);
    checkTimestampRange(t, unit, c.name);
    return t;
  }
  switch (vectorTypeOf(c.data_type)) {
    case 'int64':
    case 'uint64':
      return BigInt(v as number | bigint | string);
    case 'float64':
      return typeof v === 'boolean' ? Number(v) : Number(v as number | string);
    case 'bool':
      return Boolean(v);
    case 'string':
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'binary':
      return Array.isArray(v) ? Uint8Array.from(v as number[]) : Buffer.from(String(v));
  }
}

/**
 * Executes INSERT … SELECT: the query's columns go to the target columns by position, each cast to
 * its column's type by DuckDB (out of range, or not a value of it: a failed cast, 3001) but for
 * timestamp columns, whose values `cellValue` converts (an epoch in the column's unit, a string in the
 * session's zone). `query` runs the SQL `wrap` makes of the query's plain SQL.
 */
export async function insertSelect(stmt: Insert, session: Session, catalog: CatalogManager, tables: TableRouter, query: (sql: string, wrap?: (sql: string) => string) => Promise<Output>): Promise<number> {
  if (stmt.source.kind !== 'query') throw new TsdbError(StatusCode.Unexpected, 'insertSelect of an INSERT … VALUES');
  const { info, targets } = await target(stmt, session, catalog);
  const mismatch = (values: number) => new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: column count mismatch, columns: ${targets.length}, values: ${values}`);
  // The query's columns under names of ours (a query with more keeps its others, counted below).
  const names = targets.map((_, i) => quoteIdent(`${INSERT_SOURCE}_${i + 1}`));
  const items = targets.map((c, i) => (timeUnitOf(c.data_type) !== undefined ? names[i]! : `CAST(${names[i]} AS ${castTypeOf(c.data_type)}) AS ${names[i]}`));
  const wrap = (sql: string) => `WITH ${INSERT_SOURCE}(${names.join(', ')}) AS (${sql}) SELECT ${items.join(', ')}, * EXCLUDE (${names.join(', ')}) FROM ${INSERT_SOURCE}`;
  let out: Output;
  try {
    out = await query(stmt.source.sql, wrap);
  } catch (err) {
    // Fewer columns than targets: one of our names is missing. Count them without the casts.
    if (err instanceof TsdbError && err.message.includes(INSERT_SOURCE)) {
      const plain = await query(stmt.source.sql);
      throw mismatch(plain.kind === 'records' ? plain.columns.length : 0);
    }
    throw err;
  }
  if (out.kind !== 'records') throw new TsdbError(StatusCode.InvalidArguments, 'INSERT … SELECT needs a query that returns rows');
  if (out.columns.length !== targets.length) throw mismatch(out.columns.length);
  const values = emptyValues(info, out.rows.length);
  out.rows.forEach((row, r) => targets.forEach((c, i) => (values.get(c.name)![r] = cellValue(row[i]!, out.columns[i]!.data_type, c, session.timezone))));
  return writeRows(info, targets, values, out.rows.length, tables, session.signal);
}

type Delete = Extract<Statement, { kind: 'delete' }>;

/**
 * Executes DELETE FROM t [WHERE …]: DuckDB finds the (primary key, time index) of the rows the
 * condition matches; they are written as tombstones, which hide those rows from then on (each in
 * its row's region: the router keeps only the key columns once it has split them).
 */
export async function deleteRows(stmt: Delete, session: Session, catalog: CatalogManager, tables: TableRouter, query: (sql: string) => Promise<Output>): Promise<number> {
  const { database, table } = resolveName(stmt.name, session);
  checkWritable(database, table);
  const info = await catalog.table(database, table);
  if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
  // A partitioned table's partition columns come along: they choose the region of each tombstone.
  const keyColumns = [...new Set([...info.primary_key, info.time_index, ...(info.partition?.columns ?? [])])].map((n) => info.columns.find((c) => c.name === n)!);
  const from = stmt.name.parts.map(quoteIdent).join('.');
  const out = await query(`SELECT ${keyColumns.map((c) => quoteIdent(c.name)).join(', ')} FROM ${from}${stmt.where !== undefined ? ` WHERE ${stmt.where}` : ''}`);
  if (out.kind !== 'records' || out.rows.length === 0) return 0;
  const columns = new Map<number, Vector>(
    keyColumns.map((c, i) => [c.column_id, vectorOf(c.data_type, out.rows.map((row) => cellValue(row[i]!, out.columns[i]!.data_type, c, session.timezone)), c.name)]),
  );
  // Cancelled before the write: nothing is deleted; once it starts, the batch is applied whole.
  session.signal?.throwIfAborted();
  await tables.write(info, { op: OP_DELETE, rowCount: out.rows.length, columns });
  return out.rows.length;
}
