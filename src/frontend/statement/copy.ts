/**
 * COPY: a table's rows to a file and back, and a whole database (schema and data) to a directory and
 * back, as GreptimeDB's `COPY [db.]t TO|FROM '<path>' WITH (format, start_time, end_time, pattern)
 * [LIMIT n]`, `COPY (<query>) TO '<file>'` and `COPY DATABASE db TO|FROM '<dir>/'` (answers
 * `Affected Rows: <rows copied>`).
 *
 * Files are written and read by the frontend's DuckDB on a connection no other statement uses
 * meanwhile; user SQL never names a file (`query/sandbox.ts` checks the query of `COPY (<query>)`
 * as it checks any SELECT), the copy directory is among the directories that DuckDB may touch, and
 * `copy/copy-location.ts` keeps every path inside it. A table is written by one streamed
 * `COPY (SELECT … FROM <its scan>) TO` (Parquet with zstd, CSV with a header, or newline-delimited
 * JSON), a query's result by one `COPY (<the query as a SELECT of it runs>) TO` on the query's
 * connection, with no row held here; a file is read as a stream of Arrow batches (`queryArrow`) cast
 * to the table's column types, each batch written as it comes. Object storage locations are staged
 * in `<copy dir>/.tsdb-staging`: written there and uploaded, or downloaded there and read.
 *
 * COPY DATABASE TO writes, beside one `<table>.<format>` per table, the schema as GreptimeDB's export
 * tool lays it out: `create_database.sql` and `create_tables.sql` (physical metric tables first);
 * COPY DATABASE FROM creates the tables that `create_tables.sql` names and the database lacks before
 * it loads the data files, so an export restores into an empty server. `schema_only = true` (tsdb's)
 * writes or applies only the schema.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { fullTableName, INFORMATION_SCHEMA, type ColumnSchema, type TableInfo } from '../../catalog/table-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';
import { convertTime, parseTimestamp } from '../../common/time/timestamp.js';
import { queryArrow } from '../../query/arrow-result.js';
import { duckdbError } from '../../query/duckdb-error.js';
import type { QueryWriter } from '../../query/query-executor.js';
import { affected, type Output } from '../../query/output.js';
import type { Statement } from '../../sql/ast.js';
import { parseSql } from '../../sql/parser.js';
import { SQL_TYPES, sqlTypeOf } from '../../types/sql-types.js';
import { timeUnitOf, type TimeUnit } from '../../types/time-unit.js';
import { OP_PUT, type Vector, type WriteBatch } from '../../types/write-batch.js';
import { decimalOf, isColumnType, vectorDimOf } from '../../types/region-metadata.js';
import { CopyProgress } from '../copy/copy-progress.js';
import { checkPermission } from '../auth/permission.js';
import { resolveCopyLocation, STAGING_DIR, type CopyLocation } from '../copy/copy-location.js';
import { vectorFromArrow } from '../copy/arrow-vectors.js';
import { compressionSuffix, formatOptionsOf, PLAIN_FORMAT, type FormatOptions } from '../copy/format-options.js';
import { isPhysicalTable } from '../metric-engine.js';
import type { TableRouter } from '../table-router.js';
import type { Session } from '../session.js';
import { defaultValue, vectorOf, vectorValue } from './insert.js';
import { resolveName } from './names.js';
import { showCreateDatabase, showCreateTable } from './show.js';

type Copy = Extract<Statement, { kind: 'copy' }>;

export type CopyFormat = 'parquet' | 'csv' | 'json';

/** What COPY needs of the frontend instance. */
export interface CopyContext {
  readonly catalog: CatalogManager;
  readonly tables: TableRouter;
  /** The copy directory (`[copy] dir`); undefined: local files are refused. */
  readonly dir: string | undefined;
  /** `[copy] allow_object_storage`: object storage URLs allowed (off: refused, the server reaches no endpoint a statement names). */
  readonly objectStorage?: boolean;
  /** `[copy] object_storage`: URL prefixes allowed when `objectStorage` is off. */
  readonly objectStoragePrefixes?: readonly string[];
  readonly logger: Logger | undefined;
  /** Runs `fn` on a connection of the frontend's DuckDB that nothing else uses meanwhile. */
  withConnection<T>(session: Session, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /**
   * Plans the query of `COPY (<query>) TO` in `session` as a SELECT of it is planned (its rewrites,
   * views, sandbox, time zone and result names), then hands `write` the SQL of its result on the
   * query's connection instead of reading its rows; resolves to the rows `write` wrote.
   */
  writeQuery(sql: string, session: Session, write: QueryWriter): Promise<number>;
  /** Runs a statement of an export's schema (CREATE TABLE) in `session`. */
  execute(stmt: Statement, session: Session): Promise<Output>;
}

/** The file of the tables' CREATE statements in a COPY DATABASE directory (as GreptimeDB's export tool names it). */
export const CREATE_TABLES_FILE = 'create_tables.sql';
export const CREATE_DATABASE_FILE = 'create_database.sql';

/** Rows per batch read from a file and written to the table. */
const READ_BATCH_ROWS = 32_768;

/** Bytes per part of an upload to object storage. */
const UPLOAD_PART_BYTES = 16 * 1024 * 1024;

const EXTENSIONS: Record<CopyFormat, string> = { parquet: 'parquet', csv: 'csv', json: 'json' };

function formatOf(options: Readonly<Record<string, string>>): CopyFormat {
  const f = (options['format'] ?? 'parquet').toLowerCase();
  if (f === 'parquet' || f === 'csv' || f === 'json') return f;
  throw new TsdbError(StatusCode.InvalidArguments, `Unsupported format: ${options['format']} (parquet, csv or json)`);
}

function flag(options: Readonly<Record<string, string>>, key: string): boolean {
  const v = options[key]?.toLowerCase();
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw new TsdbError(StatusCode.InvalidArguments, `Invalid value of option ${key}: ${options[key]} (true or false)`);
}

/** The half-open range [start_time, end_time) of the options, in nanoseconds (read in the session's zone). */
interface NsRange {
  readonly start?: bigint;
  readonly end?: bigint;
}

function rangeOf(options: Readonly<Record<string, string>>, zone: string): NsRange {
  const read = (key: string): bigint | undefined => {
    const text = options[key];
    if (text === undefined || text === '') return undefined;
    const t = parseTimestamp(text, 'ns', zone);
    if (t === undefined) throw new TsdbError(StatusCode.InvalidArguments, `Failed to parse ${key}: ${text} is not a timestamp`);
    return t;
  };
  const start = read('start_time');
  const end = read('end_time');
  return { ...(start !== undefined && { start }), ...(end !== undefined && { end }) };
}

const NS_PER: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

/** The least value of unit `unit` at or after `ns`. */
function ceilTo(ns: bigint, unit: TimeUnit): bigint {
  const f = NS_PER[unit];
  const q = ns / f;
  return q * f < ns ? q + 1n : q;
}

/** The time index condition of a range (SQL over the column as written in the unit's type), or ''. */
function rangeCondition(column: string, unit: TimeUnit, range: NsRange): string {
  const parts: string[] = [];
  const literal = (v: bigint) => (unit === 'ns' ? `make_timestamp_ns(${v})` : `CAST(make_timestamp(${convertTime(v, unit, 'us')}) AS ${SQL_TYPES[unitType(unit)]})`);
  if (range.start !== undefined) parts.push(`${quoteIdent(column)} >= ${literal(ceilTo(range.start, unit))}`);
  if (range.end !== undefined) parts.push(`${quoteIdent(column)} < ${literal(ceilTo(range.end, unit))}`);
  return parts.join(' AND ');
}

function unitType(unit: TimeUnit): keyof typeof SQL_TYPES {
  return unit === 's' ? 'TimestampSecond' : unit === 'ms' ? 'TimestampMillisecond' : unit === 'us' ? 'TimestampMicrosecond' : 'TimestampNanosecond';
}

function timeIndexOf(info: TableInfo): { column: ColumnSchema; unit: TimeUnit } {
  const column = info.columns.find((c) => c.name === info.time_index)!;
  return { column, unit: timeUnitOf(column.data_type)! };
}

/**
 * Whether object storage `location` lies under one of `prefixes` (`s3://bucket/dir/`): compared
 * after its `.` and `..` segments are resolved, so `s3://bucket/dir/../other` is not under `dir/`.
 */
export function allowedLocation(location: string, prefixes: readonly string[]): boolean {
  const m = /^([a-z0-9]+):\/\/([^/]*)(\/.*)?$/i.exec(location);
  if (m === null) return false;
  const segments: string[] = [];
  for (const s of (m[3] ?? '/').split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (segments.length === 0) return false;
      segments.pop();
    } else segments.push(s);
  }
  const normal = `${m[1]!.toLowerCase()}://${m[2]}/${segments.join('/')}${location.endsWith('/') && segments.length > 0 ? '/' : ''}`;
  return prefixes.some((p) => {
    const prefix = p.endsWith('/') ? p : `${p}/`;
    const scheme = prefix.indexOf('://');
    const lower = scheme < 0 ? prefix : `${prefix.slice(0, scheme).toLowerCase()}${prefix.slice(scheme)}`;
    return normal.startsWith(lower) || `${normal}/` === lower;
  });
}

/** Runs COPY. */
export async function runCopy(stmt: Copy, session: Session, ctx: CopyContext): Promise<Output> {
  // COPY … TO reads what it writes out: a user who may not read may not export (the statement's
  // write permission is checked with every statement's).
  if (stmt.direction === 'to') checkPermission(session.user, 'read');
  if (ctx.objectStorage !== true && /^(s3|oss|gs|gcs|azblob):\/\//i.test(stmt.location.trim()) && !allowedLocation(stmt.location.trim(), ctx.objectStoragePrefixes ?? [])) {
    throw new TsdbError(StatusCode.PermissionDenied, 'Permission denied: COPY to or from this object storage location is not allowed ([copy] allow_object_storage = false, and no [copy] object_storage prefix holds it)');
  }
  if (stmt.target.kind === 'database') {
    const location = await resolveCopyLocation(stmt.location, stmt.connection, ctx.dir);
    return affected(stmt.direction === 'to' ? await copyDatabaseTo(stmt.target.name, location, stmt.options, session, ctx) : await copyDatabaseFrom(stmt.target.name, location, stmt.options, session, ctx));
  }
  if (stmt.target.kind === 'query') {
    const location = await resolveCopyLocation(stmt.location, stmt.connection, ctx.dir);
    if (location.directory) throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: COPY TO needs a file name, not the directory ${location.shown}`);
    return affected(await copyQueryTo(stmt.target.sql, location, formatOf(stmt.options), session, ctx, formatOptionsOf(stmt.options)));
  }
  const { database, table } = resolveName(stmt.target.name, session);
  if (stmt.direction === 'from' && database === INFORMATION_SCHEMA) throw new TsdbError(StatusCode.Unsupported, `Cannot change read-only table: ${table}`);
  const info = await ctx.catalog.table(database, table);
  if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
  const format = formatOf(stmt.options);
  const range = rangeOf(stmt.options, session.timezone);
  const location = await resolveCopyLocation(stmt.location, stmt.connection, ctx.dir);
  if (stmt.direction === 'to') {
    if (location.directory) throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: COPY TO needs a file name, not the directory ${location.shown}`);
    return affected(await copyTableTo(info, location, format, range, session, ctx, formatOptionsOf(stmt.options)));
  }
  const pattern = stmt.options['pattern'];
  const files = await sourceFiles(location, pattern, undefined);
  return affected(await copyFilesFrom(info, files, format, range, stmt.limit, session, ctx, formatOptionsOf(stmt.options)));
}

// ---- TO ----

function formatClause(format: CopyFormat, fo: FormatOptions): string {
  const text = [
    ...(fo.compression !== undefined ? [`COMPRESSION ${fo.compression}`] : []),
    ...(fo.timestampFormat !== undefined ? [`TIMESTAMPFORMAT ${quoteLiteral(fo.timestampFormat)}`] : []),
    ...(fo.dateFormat !== undefined ? [`DATEFORMAT ${quoteLiteral(fo.dateFormat)}`] : []),
  ].map((o) => `, ${o}`).join('');
  switch (format) {
    case 'parquet':
      return 'FORMAT parquet, COMPRESSION zstd';
    case 'csv':
      return `FORMAT csv, HEADER true, DELIMITER ${quoteLiteral(fo.delimiter)}${text}`;
    case 'json':
      return `FORMAT json${text}`;
  }
}

/** A local file for `location`'s object (its own path, or a new file in the staging directory), and how to finish it. */
async function localTarget(location: CopyLocation, ctx: CopyContext, name: string): Promise<{ path: string; finish(): Promise<number>; abandon(): Promise<void> }> {
  if (location.kind === 'local') {
    await mkdir(dirname(location.path), { recursive: true });
    // Written beside its final name, then renamed: a reader never sees half a file.
    const partial = join(dirname(location.path), `.${basename(location.path)}.${randomUUID()}.partial`);
    return {
      path: partial,
      finish: async () => {
        await rename(partial, location.path);
        return (await stat(location.path)).size;
      },
      abandon: () => rm(partial, { force: true }),
    };
  }
  const staged = await stagingFile(ctx, name);
  return {
    path: staged,
    finish: async () => {
      try {
        const size = (await stat(staged)).size;
        await location.store.upload(location.path, staged, UPLOAD_PART_BYTES);
        return size;
      } finally {
        await rm(staged, { force: true });
      }
    },
    abandon: () => rm(staged, { force: true }),
  };
}

async function stagingFile(ctx: CopyContext, name: string): Promise<string> {
  if (ctx.dir === undefined) throw new TsdbError(StatusCode.PermissionDenied, 'Permission denied: COPY to or from object storage stages its files in the copy directory ([copy] dir), which is not configured');
  const dir = join(ctx.dir, STAGING_DIR);
  await mkdir(dir, { recursive: true });
  return join(dir, `${randomUUID()}-${name.replace(/[^A-Za-z0-9._-]/g, '_')}`);
}

/**
 * A column as COPY TO writes it: a DECIMAL in JSON as its text (JSON numbers read back through
 * doubles), timestamps and dates of CSV and JSON in the statement's timestamp_format / date_format.
 */
function exported(c: { readonly name: string; readonly data_type: string }, format: CopyFormat, fo: FormatOptions): string {
  const n = quoteIdent(c.name);
  if (format === 'json' && isColumnType(c.data_type) && decimalOf(c.data_type) !== undefined) return `CAST(${n} AS VARCHAR)`;
  if (format === 'parquet') return n;
  if (fo.timestampFormat !== undefined && c.data_type.startsWith('Timestamp')) {
    return `strftime(CAST(${n} AS ${c.data_type === 'TimestampNanosecond' ? 'TIMESTAMP_NS' : 'TIMESTAMP'}), ${quoteLiteral(fo.timestampFormat)})`;
  }
  if (fo.dateFormat !== undefined && c.data_type === 'Date') return `strftime(${n}, ${quoteLiteral(fo.dateFormat)})`;
  return n;
}

/** Writes the rows of `info` in `range` to `location`; returns the number of rows. */
async function copyTableTo(info: TableInfo, location: CopyLocation, format: CopyFormat, range: NsRange, session: Session, ctx: CopyContext, fo: FormatOptions = PLAIN_FORMAT): Promise<number> {
  const { column, unit } = timeIndexOf(info);
  // The scan's inclusive range in the column's unit (what it prunes files and row groups by).
  const scanRange = {
    ...(range.start !== undefined && { start: ceilTo(range.start, unit) }),
    ...(range.end !== undefined && { end: ceilTo(range.end, unit) - 1n }),
  };
  return writeTarget(location, ctx, `${info.name}.${EXTENSIONS[format]}`, `${fullTableName(info)} to ${location.shown}`, async (target, progress) => {
    const relation = await ctx.tables.relation(info, scanRange, undefined, session.signal, new Set(info.columns.map((c) => c.name)));
    try {
      const where = rangeCondition(column.name, unit, range);
      const columns = info.columns.map((c) => `${exported(c, format, fo)} AS ${quoteIdent(c.name)}`).join(', ');
      const query = `SELECT ${columns} FROM (${relation.sql}) AS __tsdb_copy${where === '' ? '' : ` WHERE ${where}`}`;
      return await ctx.withConnection(session, (conn) => copyInDuckdb(conn, query, format, fo, target, location, progress));
    } finally {
      relation.release?.();
    }
  });
}

/**
 * Writes a query's result as DuckDB produces it (`CopyContext.writeQuery`: planned as a SELECT of
 * it, then run by DuckDB's COPY on the query's connection), so that no row is held here and the
 * result limits of `[query]` do not bound it. Its columns are written as a table's are (`exported`).
 */
async function copyQueryTo(sql: string, location: CopyLocation, format: CopyFormat, session: Session, ctx: CopyContext, fo: FormatOptions = PLAIN_FORMAT): Promise<number> {
  return writeTarget(location, ctx, `query.${EXTENSIONS[format]}`, `a query to ${location.shown}`, (target, progress) =>
    ctx.writeQuery(sql, session, (conn, result) => {
      const columns = result.columns.map((c) => `${exported(c, format, fo)} AS ${quoteIdent(c.name)}`).join(', ');
      return copyInDuckdb(conn, `SELECT ${columns} FROM (${result.sql}) AS __tsdb_copy`, format, fo, target, location, progress);
    }),
  );
}

/**
 * Writes file `location` with `write` (given the local path to write and the copy's progress; it
 * resolves to the rows written): finished (renamed into place, or uploaded) when it succeeds,
 * removed when it fails or is cancelled. Returns the rows written.
 */
async function writeTarget(location: CopyLocation, ctx: CopyContext, name: string, what: string, write: (target: string, progress: CopyProgress) => Promise<number>): Promise<number> {
  const target = await localTarget(location, ctx, name);
  const progress = new CopyProgress(ctx.logger, what);
  let ok = false;
  try {
    progress.rows = await write(target.path, progress);
    progress.bytes = await target.finish();
    ok = true;
    return progress.rows;
  } finally {
    if (!ok) await target.abandon().catch(() => undefined);
    progress.end(ok);
  }
}

/**
 * Runs DuckDB's `COPY (<query>) TO <target>` on `conn`, its rows so far and the file's bytes read
 * into `progress` every second; returns the rows written. DuckDB's messages name the file as the
 * statement did, not by its path here.
 */
async function copyInDuckdb(conn: DuckDBConnection, query: string, format: CopyFormat, fo: FormatOptions, target: string, location: CopyLocation, progress: CopyProgress): Promise<number> {
  const poll = setInterval(() => {
    try {
      progress.rows = Number(conn.progress.rows_processed);
    } catch {
      // no figure this time
    }
    void stat(target).then(
      (s) => (progress.bytes = s.size),
      () => undefined,
    );
  }, 1_000);
  poll.unref();
  try {
    const result = await conn.runAndReadAll(`COPY (${query}) TO ${quoteLiteral(target)} (${formatClause(format, fo)})`);
    return Number(result.getRows()[0]?.[0] ?? 0);
  } catch (err) {
    const e = duckdbError(err);
    throw e.message.includes(target) ? new TsdbError(e.code, e.message.replaceAll(target, location.shown)) : e;
  } finally {
    clearInterval(poll);
  }
}

async function copyDatabaseTo(database: string, location: CopyLocation, options: Readonly<Record<string, string>>, session: Session, ctx: CopyContext): Promise<number> {
  const db = await ctx.catalog.requireDatabase(database);
  const format = formatOf(options);
  const fo = formatOptionsOf(options);
  // A compressed file's name says so (`t.csv.gz`), as COPY DATABASE FROM expects it.
  const suffix = format === 'parquet' ? '' : compressionSuffix(fo);
  const range = rangeOf(options, session.timezone);
  const tables = (await ctx.catalog.tables(db.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Physical metric tables first: the logical ones are created in them.
  const ordered = [...tables.filter(isPhysicalTable), ...tables.filter((t) => !isPhysicalTable(t))];
  const schemaSession: Session = { ...session, database: db.name };
  const creates: string[] = [];
  for (const t of ordered) {
    const out = await showCreateTable({ kind: 'show_create_table', name: { parts: [t.name] }, text: '' }, schemaSession, ctx.catalog);
    if (out.kind === 'records') creates.push(`${String(out.rows[0]![1])};\n`);
  }
  const createDb = await showCreateDatabase({ kind: 'show_create_database', name: db.name, text: '' }, ctx.catalog);
  await writeBeside(location, CREATE_DATABASE_FILE, createDb.kind === 'records' ? `${String(createDb.rows[0]![1])};\n` : '', ctx);
  await writeBeside(location, CREATE_TABLES_FILE, creates.join('\n'), ctx);
  if (flag(options, 'schema_only')) return 0;
  let rows = 0;
  // A physical metric table's rows are its logical tables' rows, copied with them.
  for (const t of tables.filter((t) => !isPhysicalTable(t))) {
    session.signal?.throwIfAborted();
    rows += await copyTableTo(t, child(location, `${t.name}.${EXTENSIONS[format]}${suffix}`), format, range, session, ctx, fo);
  }
  return rows;
}

/** The location of file `name` in directory `location`. */
function child(location: CopyLocation, name: string): CopyLocation {
  if (location.kind === 'local') return { ...location, path: join(location.path, name), directory: false, shown: `${location.shown.replace(/\/?$/, '/')}${name}` };
  const dir = location.path === '' || location.path.endsWith('/') ? location.path : `${location.path}/`;
  return { ...location, path: `${dir}${name}`, directory: false, shown: `${location.shown.replace(/\/?$/, '/')}${name}` };
}

async function writeBeside(location: CopyLocation, name: string, text: string, ctx: CopyContext): Promise<void> {
  const target = await localTarget(child(location, name), ctx, name);
  try {
    await writeFile(target.path, text);
    await target.finish();
  } catch (err) {
    await target.abandon().catch(() => undefined);
    throw err;
  }
}

// ---- FROM ----

/** A file to read: local, or an object to download first. */
type SourceFile = { readonly name: string; readonly local: string } | { readonly name: string; readonly location: Extract<CopyLocation, { kind: 'remote' }>; readonly path: string };

/**
 * The files a FROM location names: the file, or the files of the directory (not its subdirectories,
 * nor hidden ones) whose names `pattern` (a regular expression) matches, or that end in `.ext`.
 */
async function sourceFiles(location: CopyLocation, pattern: string | undefined, ext: string | undefined): Promise<SourceFile[]> {
  let regex: RegExp | undefined;
  if (pattern !== undefined) {
    try {
      regex = new RegExp(pattern);
    } catch (err) {
      throw new TsdbError(StatusCode.InvalidArguments, `Invalid pattern: ${pattern}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const keep = (name: string) => !name.startsWith('.') && (regex === undefined || regex.test(name)) && (ext === undefined || name.endsWith(`.${ext}`));
  if (location.kind === 'local') {
    const s = await stat(location.path).catch(() => undefined);
    if (s === undefined) throw new TsdbError(StatusCode.InvalidArguments, `File not found: ${location.shown}`);
    if (!s.isDirectory()) return [{ name: basename(location.path), local: location.path }];
    const entries = await readdir(location.path, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && keep(e.name))
      .map((e) => e.name)
      .sort()
      .map((name) => ({ name, local: join(location.path, name) }));
  }
  if (!location.directory) {
    const s = await location.store.stat(location.path);
    if (s !== undefined) return [{ name: location.path.split('/').pop()!, location, path: location.path }];
  }
  const prefix = location.path === '' || location.path.endsWith('/') ? location.path : `${location.path}/`;
  const listed = await location.store.list(prefix);
  const files = listed.filter((e) => !e.path.slice(prefix.length).includes('/') && e.path.length > prefix.length && keep(e.path.slice(prefix.length)));
  if (files.length === 0 && !location.directory) throw new TsdbError(StatusCode.InvalidArguments, `File not found: ${location.shown}`);
  return files.map((e) => ({ name: e.path.slice(prefix.length), location, path: e.path }));
}

/** Local paths of `files`, downloading remote ones into the staging directory; `cleanup` removes those. */
async function localFiles(files: readonly SourceFile[], ctx: CopyContext, signal?: AbortSignal): Promise<{ paths: string[]; cleanup(): Promise<void> }> {
  const staged: string[] = [];
  const paths: string[] = [];
  try {
    for (const f of files) {
      if ('local' in f) paths.push(f.local);
      else {
        const local = await stagingFile(ctx, f.name);
        staged.push(local);
        await f.location.store.download(f.path, local, signal);
        paths.push(local);
      }
    }
  } catch (err) {
    await Promise.all(staged.map((p) => rm(p, { force: true })));
    throw err;
  }
  return { paths, cleanup: async () => void (await Promise.all(staged.map((p) => rm(p, { force: true })))) };
}

/** DuckDB's reader of `paths` in `format`, every column as written (Parquet) or as text (CSV, JSON). */
function reader(format: CopyFormat, paths: readonly string[], fo: FormatOptions, columns?: readonly string[]): string {
  const list = `[${paths.map(quoteLiteral).join(', ')}]`;
  // Without compression_type, DuckDB's own guess from the file name (`.gz`, `.zst`).
  const compression = `compression = ${quoteLiteral(fo.compression ?? (format === 'json' ? 'auto_detect' : 'auto'))}`;
  switch (format) {
    case 'parquet':
      return `read_parquet(${list}, union_by_name = true)`;
    case 'csv':
      return `read_csv(${list}, header = true, delim = ${quoteLiteral(fo.delimiter)}, quote = '"', escape = '"', all_varchar = true, allow_quoted_nulls = false, union_by_name = true, ${compression})`;
    case 'json':
      return columns === undefined
        ? `read_json(${list}, format = 'newline_delimited', union_by_name = true, ${compression})`
        : `read_json(${list}, format = 'newline_delimited', columns = {${columns.map((c) => `${quoteLiteral(c)}: 'VARCHAR'`).join(', ')}}, ${compression})`;
  }
}

async function copyFilesFrom(info: TableInfo, files: readonly SourceFile[], format: CopyFormat, range: NsRange, limit: number | undefined, session: Session, ctx: CopyContext, fo: FormatOptions = PLAIN_FORMAT): Promise<number> {
  if (files.length === 0 || limit === 0) return 0;
  if (info.engine === 'metric' && isPhysicalTable(info)) throw new TsdbError(StatusCode.Unsupported, `COPY FROM into the physical metric table ${info.name} is not supported: copy into its logical tables`);
  const { paths, cleanup } = await localFiles(files, ctx, session.signal);
  const bytes = (await Promise.all(paths.map((p) => stat(p).then((s) => s.size)))).reduce((a, b) => a + b, 0);
  const progress = new CopyProgress(ctx.logger, `${files.length === 1 ? files[0]!.name : `${files.length} files`} to ${fullTableName(info)}`);
  progress.bytes = bytes;
  let ok = false;
  // DuckDB's messages name the files by their local paths: the server's directories are not the user's business.
  const hide = (err: unknown): unknown => {
    if (!(err instanceof TsdbError)) return err;
    let message = err.message;
    paths.forEach((p, i) => (message = message.replaceAll(p, files[i]!.name)));
    return message === err.message ? err : new TsdbError(err.code, message);
  };
  try {
    const rows = await ctx.withConnection(session, async (conn) => {
      // The file's columns, by name: the table's columns it has are read; the others get their defaults.
      let described;
      try {
        described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${reader(format, paths, fo)}`)).getRows().map((r) => String(r[0]));
      } catch (err) {
        throw new TsdbError(StatusCode.InvalidArguments, `Failed to read ${files.length === 1 ? files[0]!.name : 'the files'} as ${format}: ${duckdbError(err).message}`);
      }
      const inFile = new Set(described);
      const given = info.columns.filter((c) => inFile.has(c.name));
      const missing = info.columns.filter((c) => !inFile.has(c.name));
      if (given.length === 0) throw new TsdbError(StatusCode.InvalidArguments, `None of the columns of table ${info.name} is in ${files.length === 1 ? files[0]!.name : 'the files'}`);
      const defaults = new Map(missing.map((c) => [c.name, defaultValue(c, info)]));
      const { column: ts, unit } = timeIndexOf(info);
      // A JSON column's values as text (made canonical and checked where rows are written); a
      // vector's as its text `[a, b, …]` (a Parquet list, CSV text or a JSON array alike), made bytes below.
      const asText = (c: ColumnSchema) => c.data_type === 'Json' || vectorDimOf(c.data_type) !== undefined;
      // A DECIMAL's as the text DuckDB prints at the column's scale, which is how rows carry it (types/decimal.ts).
      const item = (c: ColumnSchema) => {
        const n = quoteIdent(c.name);
        if (asText(c)) return `CAST(${n} AS VARCHAR)`;
        // Text read by the statement's timestamp_format / date_format (CSV and JSON hold text).
        const pattern = format === 'parquet' ? undefined : c.data_type === 'Date' ? fo.dateFormat : c.data_type.startsWith('Timestamp') ? fo.timestampFormat : undefined;
        if (pattern !== undefined) return `CAST(strptime(CAST(${n} AS VARCHAR), ${quoteLiteral(pattern)}) AS ${sqlTypeOf(c.data_type)})`;
        if (decimalOf(c.data_type) !== undefined) return `CAST(CAST(${n} AS ${sqlTypeOf(c.data_type)}) AS VARCHAR)`;
        return `CAST(${n} AS ${sqlTypeOf(c.data_type)})`;
      };
      const items = given.map((c) => `${item(c)} AS ${quoteIdent(c.name)}`);
      const where = inFile.has(ts.name) ? rangeCondition(ts.name, unit, range) : '';
      const sql = `SELECT * FROM (SELECT ${items.join(', ')} FROM ${reader(format, paths, fo, format === 'json' ? given.map((c) => c.name) : undefined)})${where === '' ? '' : ` WHERE ${where}`}${limit !== undefined ? ` LIMIT ${limit}` : ''}`;
      const stream = await queryArrow(conn, sql, { batchRows: READ_BATCH_ROWS, ...(session.signal !== undefined && { signal: session.signal }) });
      let written = 0;
      for await (const batch of stream.batches) {
        const n = batch.numRows;
        if (n === 0) continue;
        const columns = new Map<number, Vector>();
        given.forEach((c, i) => {
          const dim = vectorDimOf(c.data_type);
          const v = dim === undefined ? vectorFromArrow(batch.getChildAt(i)!.data[0]!, c.data_type, c.name) : vectorColumn(batch.getChildAt(i)!.data[0]!, dim, c.name);
          if (!c.nullable && hasNull(v)) throw new TsdbError(StatusCode.InvalidArguments, `Column ${c.name} of table ${fullTableName(info)} is not null, but a value is NULL`);
          columns.set(c.column_id, v);
        });
        for (const c of missing) columns.set(c.column_id, vectorOf(c.data_type, new Array(n).fill(defaults.get(c.name)!), c.name));
        const write: WriteBatch = { op: OP_PUT, rowCount: n, columns };
        await ctx.tables.write(info, write);
        written += n;
        progress.rows = written;
      }
      return written;
    }).catch((err: unknown) => {
      throw hide(err);
    });
    ok = true;
    return rows;
  } finally {
    progress.end(ok);
    await cleanup();
  }
}

function hasNull(v: Vector): boolean {
  if (v.type === 'string' || v.type === 'binary') return v.data.includes(null);
  return v.valid !== undefined && v.valid.includes(0);
}

async function copyDatabaseFrom(database: string, location: CopyLocation, options: Readonly<Record<string, string>>, session: Session, ctx: CopyContext): Promise<number> {
  // `create_database = true` (tsdb's; `tsdb cli import` sets it): a missing database is created by
  // the export's create_database.sql, with its options.
  if (flag(options, 'create_database') && (await ctx.catalog.database(database)) === undefined) {
    const text = await readBeside(location, CREATE_DATABASE_FILE, ctx, session.signal);
    if (text === undefined) throw new TsdbError(StatusCode.InvalidArguments, `File not found: ${location.shown}`);
    const stmts = parseSql(text);
    const create = stmts[0];
    if (stmts.length !== 1 || create?.kind !== 'create_database') throw new TsdbError(StatusCode.InvalidArguments, `${CREATE_DATABASE_FILE} must hold one CREATE DATABASE statement to create database ${database}`);
    await ctx.execute({ ...create, name: database, ifNotExists: true }, session);
  }
  const db = await ctx.catalog.requireDatabase(database);
  const format = formatOf(options);
  const fo = formatOptionsOf(options);
  const extension = `${EXTENSIONS[format]}${format === 'parquet' ? '' : compressionSuffix(fo)}`;
  const range = rangeOf(options, session.timezone);
  const dbSession: Session = { ...session, database: db.name };
  if (location.kind === 'local' && !(await stat(location.path).then((s) => s.isDirectory(), () => false))) throw new TsdbError(StatusCode.InvalidArguments, `File not found: ${location.shown}`);
  if (location.kind === 'remote' && (await location.store.list(location.path === '' || location.path.endsWith('/') ? location.path : `${location.path}/`)).length === 0) {
    throw new TsdbError(StatusCode.InvalidArguments, `File not found: ${location.shown}`);
  }
  // The schema beside the data: tables the database lacks are created first.
  const schema = await readBeside(location, CREATE_TABLES_FILE, ctx, session.signal);
  if (schema !== undefined) {
    for (const stmt of parseSql(schema)) {
      if (stmt.kind !== 'create_table') throw new TsdbError(StatusCode.InvalidArguments, `${CREATE_TABLES_FILE} may hold only CREATE TABLE statements, not: ${stmt.text.slice(0, 80)}`);
      const name = stmt.name.parts[stmt.name.parts.length - 1]!;
      if ((await ctx.catalog.table(db.name, name)) !== undefined) continue;
      await ctx.execute({ ...stmt, name: { parts: [name] }, ifNotExists: true }, dbSession);
    }
  }
  if (flag(options, 'schema_only')) return 0;
  const files = await sourceFiles(location, options['pattern'], extension);
  let rows = 0;
  for (const f of files) {
    session.signal?.throwIfAborted();
    const table = f.name.slice(0, -(extension.length + 1));
    const info = await ctx.catalog.table(db.name, table);
    if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${db.name}.${table}`);
    if (isPhysicalTable(info)) continue;
    rows += await copyFilesFrom(info, [f], format, range, undefined, session, ctx, fo);
  }
  return rows;
}

/** The text of file `name` in directory `location`, or undefined when there is none. */
async function readBeside(location: CopyLocation, name: string, ctx: CopyContext, signal?: AbortSignal): Promise<string | undefined> {
  const file = child(location, name);
  if (file.kind === 'local') return readFile(file.path, 'utf8').catch(() => undefined);
  if ((await file.store.stat(file.path)) === undefined) return undefined;
  const { paths, cleanup } = await localFiles([{ name, location: file as Extract<CopyLocation, { kind: 'remote' }>, path: file.path }], ctx, signal);
  try {
    return await readFile(paths[0]!, 'utf8');
  } finally {
    await cleanup();
  }
}

/** A VECTOR(n) column read as text (`[a, b, …]`) as its stored bytes. */
function vectorColumn(data: Parameters<typeof vectorFromArrow>[0], dim: number, name: string): Vector {
  const text = vectorFromArrow(data, 'String', name);
  if (text.type !== 'string') throw new TsdbError(StatusCode.Unexpected, `COPY FROM: column ${name} is not read as text`);
  return { type: 'binary', data: text.data.map((s) => (s === null ? null : vectorValue(s, dim))) };
}
