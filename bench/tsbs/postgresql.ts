/**
 * PostgreSQL 15 for the benchmark (Debian's postgresql-15, started by bench/wire's startPostgres:
 * initdb into a temp dir, a free port on 127.0.0.1, as the postgres user when run as root, stopped
 * by PID), its buffers sized for the data (see PG_SETTINGS). Loading is `COPY … FROM STDIN` in text
 * format over a pool of connections, one COPY per batch; queries run on a connection whose type
 * parsers return the wire's text, so a query's time is the server's answer read off the socket
 * (like the HTTP systems' "until the whole body is read"), and the records for comparison are
 * converted afterwards by the columns' types.
 */
import pg from 'pg';
import type { Cell, Row, Timed } from './clients.js';
import { DEFAULT_PG_BIN, startPostgres } from '../wire/postgres-server.js';

export const POSTGRES_BIN_DIR = DEFAULT_PG_BIN;

/**
 * Settings beyond the defaults (128 MB shared_buffers, 4 MB work_mem, 1 GB max_wal_size): enough
 * shared buffers to keep 4,000 hosts × 3 h (≈ 1.3 GB with its indexes) in memory as the other
 * systems keep theirs in their caches, work_mem for the hash aggregations, and WAL room so a load
 * does not checkpoint every few seconds. Commits stay synchronous (each COPY is flushed).
 */
export const PG_SETTINGS: Readonly<Record<string, string>> = {
  // date_trunc of a timestamptz works in the session's zone: UTC, as the other systems bucket.
  timezone: 'UTC',
  shared_buffers: '2GB',
  work_mem: '64MB',
  maintenance_work_mem: '256MB',
  max_wal_size: '8GB',
  effective_cache_size: '8GB',
};

export interface PgRunning {
  readonly pid: number;
  readonly port: number;
  readonly dataDir: string;
  readonly logFile: string;
  readonly version: string;
  /** Connections for COPY batches, taken and given back by `withClient`. */
  withClient<T>(f: (c: pg.Client) => Promise<T>): Promise<T>;
  /** The query connection (text answers, see the header). */
  readonly queryClient: pg.Client;
  stop(): Promise<void>;
}

// Every column as the text PostgreSQL sent: parsing is done after the timed part, by type.
const rawTypes = { getTypeParser: () => (v: string): string => v };

export async function startPostgresql(poolSize: number): Promise<PgRunning> {
  const srv = await startPostgres(POSTGRES_BIN_DIR, Math.max(20, poolSize + 5), PG_SETTINGS);
  const clients: pg.Client[] = [];
  const connect = async (raw: boolean): Promise<pg.Client> => {
    const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: srv.user, database: 'postgres', ...(raw ? { types: rawTypes } : {}) });
    c.on('error', () => {});
    await c.connect();
    clients.push(c);
    return c;
  };
  try {
    const queryClient = await connect(true);
    const free: pg.Client[] = [];
    for (let i = 0; i < poolSize; i++) free.push(await connect(false));
    const waiting: ((c: pg.Client) => void)[] = [];
    const withClient = async <T>(f: (c: pg.Client) => Promise<T>): Promise<T> => {
      const c = free.pop() ?? (await new Promise<pg.Client>((resolve) => waiting.push(resolve)));
      try {
        return await f(c);
      } finally {
        const next = waiting.shift();
        if (next !== undefined) next(c);
        else free.push(c);
      }
    };
    const stop = async (): Promise<void> => {
      for (const c of clients) await c.end().catch(() => {});
      await srv.stop();
    };
    return { pid: srv.pid, port: srv.port, dataDir: `${srv.dir}/data`, logFile: srv.logFile, version: srv.version, withClient, queryClient, stop };
  } catch (e) {
    for (const c of clients) await c.end().catch(() => {});
    await srv.stop();
    throw e;
  }
}

/**
 * `COPY <table> (<columns>) FROM STDIN` with `text` as its data, as a pg Submittable: the client
 * sends the statement, PostgreSQL answers CopyInResponse, we send the data in one CopyData message
 * and CopyDone; settles at ReadyForQuery with the rows copied.
 */
class CopyIn {
  private rows = 0;
  private error: Error | null = null;
  private settle: { resolve: (n: number) => void; reject: (e: Error) => void } | null = null;
  readonly done: Promise<number>;

  constructor(private readonly statement: string, private readonly data: Buffer) {
    this.done = new Promise<number>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  submit(connection: { query(text: string): void }): void {
    connection.query(this.statement);
  }

  handleCopyInResponse(connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /^COPY (\d+)/.exec(msg.text ?? '');
    if (m?.[1] !== undefined) this.rows = Number(m[1]);
  }

  handleError(err: Error): void {
    this.error = err;
  }

  handleReadyForQuery(): void {
    if (this.error !== null) this.settle?.reject(this.error);
    else this.settle?.resolve(this.rows);
  }

  // Not part of a COPY FROM's exchange; present because the client may call them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** Copies the text-format rows into `table`; returns the rows PostgreSQL copied. */
export async function pgCopy(client: pg.Client, table: string, columns: readonly string[], text: string): Promise<number> {
  const copy = new CopyIn(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, Buffer.from(text));
  void client.query(copy as unknown as pg.QueryConfig);
  return copy.done;
}

export interface PgAnswer {
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/** Runs `sql` on the text connection; the wall time covers sending it and reading every row. */
export async function pgQuery(client: pg.Client, sql: string): Promise<Timed & { readonly answer: PgAnswer }> {
  const t0 = performance.now();
  const res = await client.query<(string | null)[]>({ text: sql, rowMode: 'array' });
  const ms = performance.now() - t0;
  return { ms, body: '', answer: { fields: res.fields, rows: res.rows } };
}

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const NUMERIC_TYPES = new Set([20, 21, 23, 700, 701, 1700]);

function pgTimeMs(v: string): number {
  // `2016-01-01 00:00:10+00` (the server's TimeZone is UTC for the tsbs data's writes and reads alike).
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d(?::?\d\d)?)?$/.exec(v);
  if (m === null) return Number.NaN;
  const zone = m[3] === undefined ? 'Z' : m[3].length === 3 ? `${m[3]}:00` : m[3];
  return Date.parse(`${m[1]}T${m[2]}${zone}`);
}

/** Records: timestamp columns become `time` in epoch ms (as tsdbRows does), numbers numbers. */
export function pgRows(a: PgAnswer): Row[] {
  const conv = a.fields.map((f) => {
    if (f.dataTypeID === TIMESTAMPTZ || f.dataTypeID === TIMESTAMP) return { name: 'time', f: (v: string): Cell => pgTimeMs(v) };
    if (NUMERIC_TYPES.has(f.dataTypeID)) return { name: f.name, f: (v: string): Cell => Number(v) };
    return { name: f.name, f: (v: string): Cell => v };
  });
  return a.rows.map((r) => {
    const row: Row = {};
    conv.forEach((c, i) => {
      const v = r[i] ?? null;
      row[c.name] = v === null ? null : c.f(v);
    });
    return row;
  });
}
