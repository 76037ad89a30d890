/**
 * Writes sorted series runs to one Parquet SST through DuckDB: `COPY (SELECT … FROM` the memtable
 * scan table function, which fills data chunks from the runs (ChunkFiller)`) TO` the file — zstd,
 * footer statistics, row groups of ROW_GROUP_ROWS, the region metadata in the key-value metadata.
 * DuckDB keeps the order of the scan, which is the sort order of the runs.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SeriesRun } from '../memtable/memtable.js';
import { decimalOf, type RegionMetadata } from '../../types/region-metadata.js';
import { widenRange } from '../../types/time-unit.js';
import { MEMTABLE_SCAN_FUNCTION, publishRuns } from '../read/memtable-scan-function.js';
import { ChunkFiller } from './chunk-filler.js';
import type { FileMeta } from './file-meta.js';
import { METADATA_KEY, ROW_GROUP_ROWS } from './sst-format.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';

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

interface RunStats {
  readonly rows: number;
  readonly minTs: bigint | undefined;
  readonly maxTs: bigint | undefined;
  readonly maxSequence: number;
}

/** Rows, time range and newest sequence of sorted runs. */
function statsOf(runs: readonly SeriesRun[]): RunStats {
  let rows = 0;
  let minTs: bigint | undefined;
  let maxTs: bigint | undefined;
  let maxSequence = 0;
  for (const run of runs) {
    const n = run.ts.length;
    if (n === 0) continue;
    // Runs are sorted by time: the first and last rows bound the run.
    if (minTs === undefined || run.ts[0]! < minTs) minTs = run.ts[0]!;
    if (maxTs === undefined || run.ts[n - 1]! > maxTs) maxTs = run.ts[n - 1]!;
    for (let i = 0; i < n; i++) if (run.seq[i]! > maxSequence) maxSequence = run.seq[i]!;
    rows += n;
  }
  return { rows, minTs, maxTs, maxSequence };
}

/**
 * Writes the file; undefined (and no file) when the runs hold no rows. The runs stream through the
 * memtable scan table function straight into DuckDB's Parquet writer, chunk by chunk, in their
 * order: no copy of the rows is held in DuckDB (a temporary table of a 1 GB memtable took several
 * GB of memory during the flush).
 */
export async function writeSst(conn: DuckDBConnection, req: SstWriteRequest): Promise<FileMeta | undefined> {
  const runs = [...req.runs];
  const loaded = statsOf(runs);
  if (loaded.rows === 0) return undefined;
  const handle = publishRuns(req.metadata, req.fields, runs);
  try {
    // DECIMAL columns come out of the memtable scan as text (`chunkTypeOf`) and go into the file as DECIMAL.
    const columns = new ChunkFiller(req.metadata, req.fields).columns
      .map((c) => (c.column !== undefined && decimalOf(c.column.type) !== undefined ? `CAST(${quoteIdent(c.name)} AS ${c.sqlType}) AS ${quoteIdent(c.name)}` : quoteIdent(c.name)))
      .join(', ');
    const kv = `{${quoteLiteral(METADATA_KEY)}: ${quoteLiteral(JSON.stringify(req.metadata))}}`;
    await conn.run(
      `COPY (SELECT ${columns} FROM ${MEMTABLE_SCAN_FUNCTION}(${quoteLiteral(handle.id)})) TO ${quoteLiteral(req.path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}, KV_METADATA ${kv})`,
    );
  } finally {
    handle.dispose();
  }
  const groups = await conn.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${quoteLiteral(req.path)})`);
  return {
    file_id: req.fileId,
    time_range: widenRange(loaded.minTs!, loaded.maxTs!),
    level: req.level,
    file_size: (await stat(req.path)).size,
    num_rows: loaded.rows,
    num_row_groups: Number(groups.getRows()[0]![0]),
    max_sequence: loaded.maxSequence,
    column_ids: req.metadata.columns.map((c) => c.column_id),
  };
}
