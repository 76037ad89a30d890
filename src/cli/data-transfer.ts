/**
 * `tsdb cli export` and `tsdb cli import`: back up and restore databases of a running server over
 * its HTTP SQL API, with COPY. The files are written and read by the server, in its copy directory
 * (`[copy] dir`; `--output-dir` / `--input-dir` is a path in it) or on object storage (an `s3://…`
 * directory with `--connection` keys). One directory per database, `<dir>/<database>/`, laid out as
 * COPY DATABASE lays it out: `create_database.sql`, `create_tables.sql`, one `<table>.<format>` per
 * table.
 *
 * Export: the schema first (`COPY DATABASE … WITH (schema_only = true)`), then each table's rows
 * with one `COPY <table> TO`, so that the progress bar moves table by table. Import: the database
 * is created when missing, its tables from `create_tables.sql` (`COPY DATABASE … FROM … WITH
 * (schema_only = true)`), then each table's rows with one `COPY <table> FROM`.
 */
import { ProgressBar, type ProgressOut } from './progress-bar.js';
import { SqlError, SqlOverHttp, type SqlClientOptions } from './sql-over-http.js';

export interface TransferOptions extends SqlClientOptions {
  /** Databases (comma-separated); export: all but the system ones when absent. */
  readonly database?: string;
  /** The directory on the server (a path in its copy directory, or an object storage URL). */
  readonly dir: string;
  readonly format: string;
  readonly startTime?: string;
  readonly endTime?: string;
  /** `key=value` pairs of the CONNECTION clause (object storage). */
  readonly connection: readonly string[];
}

/** GreptimeDB's status code of a database that does not exist. */

const SYSTEM_DATABASES = new Set(['information_schema', 'tsdb_private', 'pg_catalog']);

const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;

function connectionClause(pairs: readonly string[]): string {
  if (pairs.length === 0) return '';
  const items = pairs.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new Error(`--connection takes key=value, not: ${p}`);
    return `${p.slice(0, eq).trim()} = ${literal(p.slice(eq + 1))}`;
  });
  return ` CONNECTION (${items.join(', ')})`;
}

function withClause(opts: TransferOptions, extra: string[] = []): string {
  const items = [`format = ${literal(opts.format)}`, ...extra];
  if (opts.startTime !== undefined) items.push(`start_time = ${literal(opts.startTime)}`);
  if (opts.endTime !== undefined) items.push(`end_time = ${literal(opts.endTime)}`);
  return ` WITH (${items.join(', ')})`;
}

function dirOf(base: string, database: string): string {
  return `${base.replace(/\/+$/, '')}/${database}/`;
}

/** The tables of `database` whose rows are copied (a physical metric table's are its logical tables'). */
async function dataTables(client: SqlOverHttp, database: string): Promise<string[]> {
  const { rows } = await client.run(
    `SELECT table_name, create_options FROM information_schema.tables WHERE table_schema = ${literal(database)} AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.filter((r) => !/(^|\s)physical_metric_table=/.test(String(r[1] ?? ''))).map((r) => String(r[0]));
}

async function databasesOf(client: SqlOverHttp, opts: TransferOptions): Promise<string[]> {
  if (opts.database !== undefined && opts.database !== '') return opts.database.split(',').map((d) => d.trim()).filter((d) => d !== '');
  const { rows } = await client.run('SHOW DATABASES');
  return rows.map((r) => String(r[0])).filter((d) => !SYSTEM_DATABASES.has(d));
}

/** Exports; returns the number of rows written. */
export async function exportData(opts: TransferOptions, out: ProgressOut): Promise<number> {
  const client = new SqlOverHttp(opts);
  const conn = connectionClause(opts.connection);
  let rows = 0;
  for (const db of await databasesOf(client, opts)) {
    const dir = dirOf(opts.dir, db);
    await client.run(`COPY DATABASE ${ident(db)} TO ${literal(dir)}${withClause(opts, ['schema_only = true'])}${conn}`);
    const tables = await dataTables(client, db);
    const bar = new ProgressBar(out, `export ${db}`, tables.length);
    for (const t of tables) {
      bar.start(t);
      const { affected } = await client.run(`COPY ${ident(db)}.${ident(t)} TO ${literal(`${dir}${t}.${opts.format}`)}${withClause(opts)}${conn}`);
      bar.step(t, affected);
    }
    rows += bar.finish();
  }
  return rows;
}

/** Imports; returns the number of rows read. */
export async function importData(opts: TransferOptions, out: ProgressOut): Promise<number> {
  if (opts.database === undefined || opts.database === '') throw new Error('--database is required: the databases to import (their directories are <input-dir>/<database>/)');
  const client = new SqlOverHttp(opts);
  const conn = connectionClause(opts.connection);
  let rows = 0;
  for (const db of await databasesOf(client, opts)) {
    const dir = dirOf(opts.dir, db);
    // Restoring into a server without the database: created by the export's create_database.sql (its options too).
    await client.run(`COPY DATABASE ${ident(db)} FROM ${literal(dir)} WITH (format = ${literal(opts.format)}, schema_only = true, create_database = true)${conn}`);
    const tables = await dataTables(client, db);
    const bar = new ProgressBar(out, `import ${db}`, tables.length);
    for (const t of tables) {
      bar.start(t);
      try {
        const { affected } = await client.run(`COPY ${ident(db)}.${ident(t)} FROM ${literal(`${dir}${t}.${opts.format}`)}${withClause(opts)}${conn}`);
        bar.step(t, affected);
      } catch (err) {
        // A table of the database that the export did not hold: nothing to load into it.
        if (err instanceof SqlError && err.message.startsWith('File not found:')) bar.step(t, 0, 'no file in the export');
        else throw err;
      }
    }
    rows += bar.finish();
  }
  return rows;
}
