/**
 * Writes sorted series runs to one Parquet SST through DuckDB: the rows go into a temporary table
 * by data chunks (ChunkFiller), then `COPY … TO` writes the file — zstd, footer statistics, row
 * groups of ROW_GROUP_ROWS, the region metadata in the key-value metadata. DuckDB keeps the
 * insertion order, which is the sort order of the runs.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SeriesRun } from '../memtable/time-series-memtable.js';
import type { RegionMetadata } from '../region/metadata.js';
import { widenRange } from '../region/time-unit.js';
import { CHUNK_ROWS, ChunkFiller, type Piece } from './chunk-filler.js';
import type { FileMeta } from './file-meta.js';
import { METADATA_KEY, quoteIdent, quoteLiteral, ROW_GROUP_ROWS } from './sst-format.js';

export interface SstWriteRequest {
  readonly metadata: RegionMetadata;
  /** The field columns of the runs, in run order. */
  readonly fields: readonly { column_id: number }[];
  readonly runs: Iterable<SeriesRun>;
  /** Absolute local path of the file to write. */
  readonly path: string;
  readonly fileId: string;
  readonly level: 0 | 1;
}

/** Writes the file; undefined (and no file) when the runs hold no rows. */
export async function writeSst(conn: DuckDBConnection, req: SstWriteRequest): Promise<FileMeta | undefined> {
  const filler = new ChunkFiller(req.metadata, req.fields);
  const table = `sst_${randomUUID().replaceAll('-', '')}`;
  await conn.run(`CREATE TEMP TABLE ${table} (${filler.columns.map((c) => `${quoteIdent(c.name)} ${c.sqlType}`).join(', ')})`);
  try {
    const appender = await conn.createAppender(table);
    const chunk = filler.newChunk();
    let rows = 0;
    let minTs: bigint | undefined;
    let maxTs: bigint | undefined;
    let maxSeq = 0;
    const pieces: Piece[] = [];
    let inChunk = 0;
    const flushChunk = () => {
      if (inChunk === 0) return;
      filler.fill(chunk, pieces);
      appender.appendDataChunk(chunk);
      pieces.length = 0;
      inChunk = 0;
    };
    for (const run of req.runs) {
      const n = run.ts.length;
      if (n === 0) continue;
      for (let i = 0; i < n; i++) {
        const t = run.ts[i]!;
        if (minTs === undefined || t < minTs) minTs = t;
        if (maxTs === undefined || t > maxTs) maxTs = t;
        if (run.seq[i]! > maxSeq) maxSeq = run.seq[i]!;
      }
      rows += n;
      for (let start = 0; start < n; ) {
        const take = Math.min(n - start, CHUNK_ROWS - inChunk);
        pieces.push({ run, start, end: start + take });
        inChunk += take;
        start += take;
        if (inChunk === CHUNK_ROWS) flushChunk();
      }
    }
    flushChunk();
    appender.flushSync();
    appender.closeSync();
    if (rows === 0) return undefined;

    const kv = `{${quoteLiteral(METADATA_KEY)}: ${quoteLiteral(JSON.stringify(req.metadata))}}`;
    await conn.run(
      `COPY ${table} TO ${quoteLiteral(req.path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}, KV_METADATA ${kv})`,
    );
    const groups = await conn.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${quoteLiteral(req.path)})`);
    return {
      file_id: req.fileId,
      time_range: widenRange(minTs!, maxTs!),
      level: req.level,
      file_size: (await stat(req.path)).size,
      num_rows: rows,
      num_row_groups: Number(groups.getRows()[0]![0]),
      max_sequence: maxSeq,
    };
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
  }
}
