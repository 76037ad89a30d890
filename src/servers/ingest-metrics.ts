/**
 * Counting of ingestion requests for `/metrics` (common/metrics/server-metrics.ts): rows written
 * by protocol and database, request bytes, refused requests and the rows they carried.
 */
import type { FastifyRequest } from 'fastify';
import { recordIngest, recordIngestRejected, type IngestProtocol } from '../common/metrics/server-metrics.js';
import type { IngestTable } from '../frontend/ingest-request.js';

/** Rows of decoded tables (a sum over tables, not rows). */
export function rowsOf(tables: readonly IngestTable[]): number {
  let n = 0;
  for (const t of tables) n += t.rowCount;
  return n;
}

/** Bytes of an HTTP request's body as received (compressed bodies count compressed). */
export function bodySize(req: FastifyRequest): number {
  return Buffer.isBuffer(req.body) ? req.body.length : 0;
}

/**
 * Writes `tables` with `write` and counts the outcome: the rows written, or a refused request
 * with the rows it carried. Returns (or throws) what `write` does.
 */
export async function countedIngest(protocol: IngestProtocol, database: string, tables: readonly IngestTable[], bytes: number, write: () => Promise<number>): Promise<number> {
  let written: number;
  try {
    written = await write();
  } catch (err) {
    recordIngestRejected(protocol, rowsOf(tables), bytes);
    throw err;
  }
  recordIngest(protocol, database, written, bytes);
  return written;
}
