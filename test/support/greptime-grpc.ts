/**
 * A GreptimeDB gRPC test client on @grpc/grpc-js over the repository's protos: unary `Handle`,
 * `HandleRequests` streams and `HealthCheck`, answers as plain objects (failures with their status,
 * details and trailers), and row-insert builders.
 */
import * as grpc from '@grpc/grpc-js';
import type { TestContext } from 'node:test';
import { greptimeClients } from '../../src/servers/grpc/protos.js';

export type GrpcResult =
  | { readonly ok: true; readonly value: any }
  | { readonly ok: false; readonly code: number; readonly details: string; readonly trailers: Record<string, unknown> };

type Client = grpc.Client & Record<string, Function>;

export interface GreptimeGrpc {
  readonly db: Client;
  readonly health: Client;
  handle(req: unknown, md?: grpc.Metadata, opts?: grpc.CallOptions): Promise<GrpcResult>;
  healthCheck(): Promise<GrpcResult>;
  stream(md?: grpc.Metadata, opts?: grpc.CallOptions): { call: grpc.ClientWritableStream<unknown>; done: Promise<GrpcResult> };
}

function settle(resolve: (r: GrpcResult) => void) {
  return (err: grpc.ServiceError | null, value: unknown) => {
    if (err) resolve({ ok: false, code: err.code, details: err.details, trailers: err.metadata?.getMap() ?? {} });
    else resolve({ ok: true, value });
  };
}

/** Clients of `addr` (closed when the test ends). */
export function greptimeGrpc(t: TestContext, addr: string): GreptimeGrpc {
  const { GreptimeDatabase, HealthCheck } = greptimeClients();
  const db = new GreptimeDatabase(addr, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 }) as unknown as Client;
  const health = new HealthCheck(addr, grpc.credentials.createInsecure()) as unknown as Client;
  t.after(() => {
    db.close();
    health.close();
  });
  return {
    db,
    health,
    handle: (req, md = new grpc.Metadata(), opts = {}) => new Promise((resolve) => db['Handle']!(req, md, opts, settle(resolve))),
    healthCheck: () => new Promise((resolve) => health['HealthCheck']!({}, new grpc.Metadata(), settle(resolve))),
    stream: (md = new grpc.Metadata(), opts = {}) => {
      let resolve!: (r: GrpcResult) => void;
      const done = new Promise<GrpcResult>((r) => (resolve = r));
      const call = db['HandleRequests']!(md, opts, settle(resolve)) as grpc.ClientWritableStream<unknown>;
      return { call, done };
    },
  };
}

/** Rows in each message of test/support/grpc-stream-child.ts. */
export const ROWS_PER_MESSAGE = 50;

/** ColumnDataType numbers. */
export const DT = { BOOLEAN: 0, INT8: 1, INT32: 3, INT64: 4, UINT64: 8, FLOAT64: 10, BINARY: 11, STRING: 12, DATE: 13, TS_S: 15, TS_MS: 16, TS_US: 17, TS_NS: 18 } as const;
/** SemanticType numbers. */
export const SEM = { TAG: 0, FIELD: 1, TIMESTAMP: 2 } as const;

/** A `row_inserts` request of one table: host (tag), ts (ms), v (float64) for each [host, ms, v]. */
export function cpuRows(table: string, rows: ReadonlyArray<readonly [string, number, number | null]>, header: Record<string, unknown> = {}): unknown {
  return {
    header,
    row_inserts: {
      inserts: [{
        table_name: table,
        rows: {
          schema: [
            { column_name: 'host', datatype: DT.STRING, semantic_type: SEM.TAG },
            { column_name: 'ts', datatype: DT.TS_MS, semantic_type: SEM.TIMESTAMP },
            { column_name: 'v', datatype: DT.FLOAT64, semantic_type: SEM.FIELD },
          ],
          rows: rows.map(([host, ms, v]) => ({ values: [{ string_value: host }, { timestamp_millisecond_value: String(ms) }, v === null ? {} : { f64_value: v }] })),
        },
      }],
    },
  };
}

export function metadata(entries: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(entries)) md.set(k, v);
  return md;
}
