/**
 * Merges SST files into one through DuckDB: every input projected to the region's current
 * columns (a column a file lacks reads as its default), rows past the TTL dropped, duplicates
 * merged by the merge mode, tombstones dropped when the plan allows it (else the newest one per
 * key is kept, so that it still hides older rows in files left out), sorted as an SST.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { defaultLiteral, timeLiteral } from '../read/region-scan.js';
import type { RegionMetadata, TimestampType } from '../../types/region-metadata.js';
import { widenRange } from '../../types/time-unit.js';
import type { FileMeta } from '../sst/file-meta.js';
import { METADATA_KEY, OP_TYPE_COLUMN, physicalName, ROW_GROUP_ROWS, SEQUENCE_COLUMN, sstColumns } from '../sst/sst-format.js';
import { sqlTypeOf } from '../../types/sql-types.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';

export interface CompactInput {
  readonly path: string;
  /** Columns the file holds; undefined = all current ones. */
  readonly columnIds?: readonly number[];
}

export interface CompactRequest {
  readonly metadata: RegionMetadata;
  readonly inputs: readonly CompactInput[];
  readonly dropTombstones: boolean;
  /** Rows older than this (time index unit) are dropped. */
  readonly ttlCutoff?: bigint;
  readonly outPath: string;
  readonly fileId: string;
}

const EPOCH: Record<TimestampType, string> = {
  TimestampSecond: 'epoch',
  TimestampMillisecond: 'epoch_ms',
  TimestampMicrosecond: 'epoch_us',
  TimestampNanosecond: 'epoch_ns',
};

/** Writes the merged file; undefined (and no file) when nothing is left (all expired or deleted). */
export async function compactFiles(conn: DuckDBConnection, req: CompactRequest): Promise<FileMeta | undefined> {
  const md = req.metadata;
  const ts = md.columns.find((c) => c.column_id === md.time_index)!;
  const unit = ts.type as TimestampType;
  const tsCol = quoteIdent(physicalName(ts.column_id));
  const ttl = req.ttlCutoff === undefined ? '' : ` WHERE ${tsCol} >= ${timeLiteral(req.ttlCutoff, unit)}`;
  const union = req.inputs
    .map((input) => {
      const have = new Set(input.columnIds ?? md.columns.map((c) => c.column_id));
      // Every column in its current type (fields may have changed type since a file was written).
      const cols = md.columns.map((c) => {
        const name = quoteIdent(physicalName(c.column_id));
        return have.has(c.column_id) ? `${c.semantic_type === 'field' ? 'TRY_CAST' : 'CAST'}(${name} AS ${sqlTypeOf(c.type)}) AS ${name}` : `${defaultLiteral(c)} AS ${name}`;
      });
      return `SELECT ${cols.join(', ')}, ${SEQUENCE_COLUMN}, ${OP_TYPE_COLUMN} FROM read_parquet(${quoteLiteral(input.path)})${ttl}`;
    })
    .join(' UNION ALL ');
  const key = [...md.primary_key, md.time_index].map((id) => quoteIdent(physicalName(id))).join(', ');
  const newest = `QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY ${SEQUENCE_COLUMN} DESC) = 1`;
  let body: string;
  if (md.options.append_mode) {
    body = union;
  } else if (md.options.merge_mode === 'last_row') {
    body = `SELECT * FROM (SELECT * FROM (${union}) ${newest})${req.dropTombstones ? ` WHERE ${OP_TYPE_COLUMN} = 1` : ''}`;
  } else {
    const fields = md.columns.filter((c) => c.semantic_type === 'field');
    const withDeleted = `SELECT *, coalesce(max(CASE WHEN ${OP_TYPE_COLUMN} = 0 THEN ${SEQUENCE_COLUMN} END) OVER (PARTITION BY ${key}), 0) AS __deleted FROM (${union})`;
    const merged = fields.map((c) => {
      const f = quoteIdent(physicalName(c.column_id));
      return `arg_max(${f}, ${SEQUENCE_COLUMN}) FILTER (WHERE ${f} IS NOT NULL AND ${SEQUENCE_COLUMN} > __deleted) AS ${f}`;
    });
    const puts = `SELECT ${key}, ${[...merged, `max(${SEQUENCE_COLUMN}) AS ${SEQUENCE_COLUMN}`].join(', ')}, 1::UTINYINT AS ${OP_TYPE_COLUMN} FROM (${withDeleted}) GROUP BY ${key} HAVING max(${SEQUENCE_COLUMN}) > max(__deleted)`;
    if (req.dropTombstones) body = puts;
    else {
      const nulls = fields.map((c) => `${defaultLiteral({ ...c, default: null })} AS ${quoteIdent(physicalName(c.column_id))}`);
      const deletes = `SELECT ${key}, ${[...nulls, SEQUENCE_COLUMN].join(', ')}, ${OP_TYPE_COLUMN} FROM (${union}) WHERE ${OP_TYPE_COLUMN} = 0 ${newest}`;
      body = `SELECT * FROM (${puts}) UNION ALL BY NAME SELECT * FROM (${deletes})`;
    }
  }
  const out = sstColumns(md).map((c) => quoteIdent(c.name));
  const order = `${key}, ${SEQUENCE_COLUMN} DESC`;
  const kv = `{${quoteLiteral(METADATA_KEY)}: ${quoteLiteral(JSON.stringify(md))}}`;
  await conn.run(
    `COPY (SELECT ${out.join(', ')} FROM (${body}) ORDER BY ${order}) TO ${quoteLiteral(req.outPath)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}, KV_METADATA ${kv})`,
  );
  const summary = await conn.runAndReadAll(
    `SELECT count(*), min(${EPOCH[unit]}(${tsCol}))::BIGINT, max(${EPOCH[unit]}(${tsCol}))::BIGINT, max(${SEQUENCE_COLUMN})::BIGINT FROM read_parquet(${quoteLiteral(req.outPath)})`,
  );
  const [rows, minTs, maxTs, maxSeq] = summary.getRows()[0]! as [bigint, bigint | null, bigint | null, bigint | null];
  if (rows === 0n) return undefined;
  const groups = await conn.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${quoteLiteral(req.outPath)})`);
  return {
    file_id: req.fileId,
    time_range: widenRange(minTs!, maxTs!),
    level: 1,
    file_size: (await stat(req.outPath)).size,
    num_rows: Number(rows),
    num_row_groups: Number(groups.getRows()[0]![0]),
    max_sequence: Number(maxSeq),
    column_ids: md.columns.map((c) => c.column_id),
  };
}
