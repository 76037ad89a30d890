/**
 * One connection per closed-loop worker, for each way of sending the point query:
 * - `mysql`: mysql2, text protocol (COM_QUERY) with the literal query;
 * - `mysql-prepared`: mysql2 `execute` (COM_STMT_PREPARE once per connection, then COM_STMT_EXECUTE
 *   with the host and timestamp as string parameters);
 * - `pg`: node-postgres, simple query protocol (Query message) with the literal query;
 * - `pg-prepared`: node-postgres named statement (Parse once per connection, then Bind/Execute/Sync);
 * - `http`: `POST /v1/sql` (form body) over a keep-alive node:http agent with one socket per worker.
 * Every call returns the number of rows and the first row, for checking.
 */
import { Agent, request } from 'node:http';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { POINT_QUERY_MYSQL_PREPARED, POINT_QUERY_PG_PREPARED, pointQuerySql, type PointQuery } from './dataset.js';

export const PROTOCOLS = ['mysql', 'mysql-prepared', 'pg', 'pg-prepared', 'http'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface Endpoints {
  readonly host: string;
  readonly mysql?: { readonly port: number; readonly database: string };
  readonly postgres?: { readonly port: number; readonly database: string; readonly user: string };
  /** `http://127.0.0.1:port` of tsdb's HTTP API. */
  readonly http?: { readonly baseUrl: string; readonly database: string };
}

export interface Answer {
  readonly rows: number;
  readonly first: Readonly<Record<string, unknown>> | undefined;
}

export interface PointConnection {
  run(q: PointQuery): Promise<Answer>;
  /** Closes gracefully. */
  close(): Promise<void>;
  /** Drops the socket at once (a stuck server). */
  destroy(): void;
}

/** A pool of connections of one protocol; `http` shares one agent among them. */
export interface ConnectionSet {
  readonly connections: readonly PointConnection[];
  close(): Promise<void>;
  destroy(): void;
}

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`no ${what} endpoint`);
  return v;
}

async function mysqlConnection(ep: Endpoints, prepared: boolean): Promise<PointConnection> {
  const m = need(ep.mysql, 'MySQL');
  const conn = await mysql.createConnection({ host: ep.host, port: m.port, database: m.database, user: 'root' });
  // A dropped connection surfaces as a rejected query; keep the event from crashing the process.
  conn.on('error', () => {});
  return {
    async run(q) {
      const [rows] = prepared ? await conn.execute(POINT_QUERY_MYSQL_PREPARED, [q.hostname, q.ts]) : await conn.query(pointQuerySql(q));
      const list = rows as Record<string, unknown>[];
      return { rows: list.length, first: list[0] };
    },
    close: () => conn.end(),
    destroy: () => conn.destroy(),
  };
}

async function pgConnection(ep: Endpoints, prepared: boolean): Promise<PointConnection> {
  const p = need(ep.postgres, 'PostgreSQL');
  const client = new pg.Client({ host: ep.host, port: p.port, database: p.database, user: p.user });
  client.on('error', () => {});
  await client.connect();
  return {
    async run(q) {
      const res = prepared
        ? await client.query({ name: 'point', text: POINT_QUERY_PG_PREPARED, values: [q.hostname, q.ts] })
        : await client.query(pointQuerySql(q));
      return { rows: res.rows.length, first: res.rows[0] as Record<string, unknown> | undefined };
    },
    close: () => client.end(),
    destroy: () => {
      // pg has no public abort; ending the stream drops the socket.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    },
  };
}

interface SqlResponse {
  readonly code: number;
  readonly error?: string;
  readonly output?: readonly { readonly records?: { readonly schema: { readonly column_schemas: readonly { readonly name: string }[] }; readonly rows: readonly (readonly unknown[])[] } }[];
}

function httpConnection(ep: Endpoints, agent: Agent): PointConnection {
  const h = need(ep.http, 'HTTP');
  const url = new URL(`${h.baseUrl}/v1/sql?db=${encodeURIComponent(h.database)}`);
  const post = (body: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    async run(q) {
      const res = await post(new URLSearchParams({ sql: pointQuerySql(q) }).toString());
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.slice(0, 300)}`);
      const parsed = JSON.parse(res.body) as SqlResponse;
      if (parsed.code !== 0) throw new Error(`code ${parsed.code}: ${parsed.error ?? res.body.slice(0, 300)}`);
      const rec = parsed.output?.[0]?.records;
      const row = rec?.rows[0];
      let first: Record<string, unknown> | undefined;
      if (rec !== undefined && row !== undefined) {
        first = {};
        rec.schema.column_schemas.forEach((c, i) => (first![c.name] = row[i]));
      }
      return { rows: rec?.rows.length ?? 0, first };
    },
    close: async () => {},
    destroy: () => {},
  };
}

/** Opens `n` connections of `protocol` (sequentially: servers may limit concurrent handshakes). */
export async function openConnections(protocol: Protocol, ep: Endpoints, n: number): Promise<ConnectionSet> {
  if (protocol === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });
    const connections = Array.from({ length: n }, () => httpConnection(ep, agent));
    return {
      connections,
      close: async () => agent.destroy(),
      destroy: () => agent.destroy(),
    };
  }
  const connections: PointConnection[] = [];
  try {
    for (let i = 0; i < n; i++) {
      connections.push(protocol === 'mysql' || protocol === 'mysql-prepared' ? await mysqlConnection(ep, protocol === 'mysql-prepared') : await pgConnection(ep, protocol === 'pg-prepared'));
    }
  } catch (e) {
    for (const c of connections) c.destroy();
    throw e;
  }
  return {
    connections,
    close: async () => {
      await Promise.allSettled(connections.map((c) => c.close()));
    },
    destroy: () => {
      for (const c of connections) c.destroy();
    },
  };
}
