/**
 * One SQL statement over each protocol a tsdb server speaks — `POST /v1/sql`, MySQL (`mysql2`, text
 * queries) and PostgreSQL (`pg`, simple query protocol) — with its outcome in one shape: whether it
 * succeeded, the error as the protocol reports it (HTTP status and status code, MySQL errno and
 * SQLSTATE, PostgreSQL SQLSTATE), and every value the client received, for leak checks.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { StatusCode } from '../../src/common/error/status-code.js';

export type Protocol = 'http' | 'mysql' | 'postgres';

export const PROTOCOLS: readonly Protocol[] = ['http', 'mysql', 'postgres'];

/** A user and password of the server's user provider; undefined when the server has none. */
export interface Credentials {
  readonly user: string;
  readonly password: string;
}

export interface Outcome {
  /** The statement succeeded (HTTP code 0, a MySQL result, a PostgreSQL CommandComplete). */
  readonly ok: boolean;
  /**
   * The tsdb status code: HTTP's `code`; MySQL's from the message's `(<Name>): ` prefix; undefined
   * for PostgreSQL (only its SQLSTATE says what failed) or when the message has no such prefix.
   */
  readonly code?: number;
  readonly httpStatus?: number;
  readonly errno?: number;
  readonly sqlState?: string;
  /** The error message, or '' on success. */
  readonly message: string;
  /** The client gave up waiting (see `STATEMENT_TIMEOUT_MS`) or lost its connection. */
  readonly broken?: boolean;
  /** Everything received: the parsed body, rows, fields, error fields. */
  readonly received: unknown;
}

export interface SqlClient {
  readonly protocol: Protocol;
  run(sql: string): Promise<Outcome>;
  close(): Promise<void>;
}

/** How long one statement may take before the client gives up. */
export const STATEMENT_TIMEOUT_MS = 20_000;

function hostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

/** `POST /v1/sql`; with credentials, HTTP Basic and `db=public` (required with a user provider). */
export function httpClient(baseUrl: string, creds: Credentials | undefined): SqlClient {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (creds !== undefined) headers['authorization'] = `Basic ${Buffer.from(`${creds.user}:${creds.password}`).toString('base64')}`;
  const url = `${baseUrl}/v1/sql${creds !== undefined ? '?db=public' : ''}`;
  return {
    protocol: 'http',
    async run(sql) {
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, { method: 'POST', headers, body: new URLSearchParams({ sql }).toString(), signal: AbortSignal.timeout(STATEMENT_TIMEOUT_MS) });
        text = await res.text();
      } catch (err) {
        return { ok: false, broken: true, message: `request failed: ${(err as Error).message}`, received: undefined };
      }
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const code = typeof body?.['code'] === 'number' ? body['code'] : undefined;
      return {
        ok: res.status === 200 && code === 0,
        ...(code !== undefined && { code }),
        httpStatus: res.status,
        message: typeof body?.['error'] === 'string' ? body['error'] : '',
        received: [text, body],
      };
    },
    async close() {},
  };
}

/** The status code a MySQL error message names: `(PermissionDenied): …` → 7006. */
export function statusOfMysqlMessage(message: string): number | undefined {
  const m = /^\((\w+)\): /.exec(message);
  if (m === null) return undefined;
  const code = (StatusCode as unknown as Record<string, number | undefined>)[m[1]!];
  return typeof code === 'number' ? code : undefined;
}

/** A pool of `size` MySQL connections to database `public`, as `root` when the server has no user provider. */
export async function mysqlClient(addr: string, creds: Credentials | undefined, size: number): Promise<SqlClient> {
  const pool = mysql.createPool({
    ...hostPort(addr),
    user: creds?.user ?? 'root',
    ...(creds !== undefined && { password: creds.password }),
    database: 'public',
    connectionLimit: size,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  // Log in now, so that a failing login fails the set-up rather than every statement.
  (await pool.getConnection()).release();
  return {
    protocol: 'mysql',
    async run(sql) {
      try {
        // Rows carry the column names as keys.
        const [rows] = await pool.query({ sql, timeout: STATEMENT_TIMEOUT_MS });
        return { ok: true, message: '', received: rows };
      } catch (err) {
        const e = err as Error & { errno?: number; sqlState?: string; fatal?: boolean; code?: string };
        const code = statusOfMysqlMessage(e.message);
        return {
          ok: false,
          ...(code !== undefined && { code }),
          ...(e.errno !== undefined && { errno: e.errno }),
          ...(e.sqlState !== undefined && { sqlState: e.sqlState }),
          ...((e.fatal === true || e.errno === undefined) && { broken: true }),
          message: e.message,
          received: [e.message, e.code, e.sqlState],
        };
      }
    },
    close: () => pool.end(),
  };
}

/**
 * A pool of `size` PostgreSQL connections to database `public`, as `tsdb` when the server has no user
 * provider. Queries without parameters go over the simple query protocol.
 */
export async function pgClient(addr: string, creds: Credentials | undefined, size: number): Promise<SqlClient> {
  const pool = new pg.Pool({
    ...hostPort(addr),
    user: creds?.user ?? 'tsdb',
    ...(creds !== undefined && { password: creds.password }),
    database: 'public',
    max: size,
    query_timeout: STATEMENT_TIMEOUT_MS,
  });
  // An idle connection the server closes must not crash the test process.
  pool.on('error', () => {});
  (await pool.connect()).release();
  return {
    protocol: 'postgres',
    async run(sql) {
      try {
        const res = await pool.query(sql);
        const results = Array.isArray(res) ? res : [res];
        return { ok: true, message: '', received: results.map((r: pg.QueryResult) => [r.rows, r.fields.map((f) => f.name), r.command]) };
      } catch (err) {
        const e = err as Error & { code?: string; detail?: string; hint?: string };
        const sqlState = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
        return {
          ok: false,
          ...(sqlState !== undefined && { sqlState }),
          ...(sqlState === undefined && { broken: true }),
          message: e.message,
          received: [e.message, e.code, e.detail, e.hint],
        };
      }
    },
    close: () => pool.end(),
  };
}

/**
 * Every string a client received, for leak checks: strings as they are, byte arrays (Buffers, and
 * HTTP JSON's arrays of byte values for binary columns) decoded as Latin-1, other scalars as text.
 */
export function receivedStrings(value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) return out;
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('latin1'));
  else if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255)) {
      out.push(Buffer.from(value as number[]).toString('latin1'));
    }
    for (const v of value) receivedStrings(v, out);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out.push(k);
      receivedStrings(v, out);
    }
  } else out.push(String(value));
  return out;
}
