/**
 * Builds the inverted index of a written SST (flush or compaction output) from the file itself:
 * for each indexed column, DuckDB reads the distinct (value, segment) pairs of the Parquet file
 * (segment = `file_row_number // segment_row_count`), and they are grouped by value here. Past
 * `mem_threshold_on_create` bytes of pairs in memory, the groups gathered so far are sorted and
 * spilled to a run file under `intermediate_path`, and the runs are merged at the end (an external
 * sort), so that a column of many distinct values never needs them all in memory at once.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnMetadata, RegionMetadata } from '../../types/region-metadata.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';
import { physicalName } from './sst-format.js';
import { compareValues, InvertedIndexWriter, type IndexValueKind } from './inverted-index.js';

export interface IndexBuildOptions {
  readonly segmentRowCount: number;
  /** Bytes of pairs held in memory before a sorted run is spilled; 0: no limit. */
  readonly memThreshold: number;
  /** Directory of the spilled runs (created when needed; each build removes its own files). */
  readonly intermediateDir: string;
}

/** What a build did, for logs and tests. */
export interface IndexBuildStats {
  readonly columns: number;
  readonly spilledRuns: number;
}

const INTEGER_TYPES = new Set(['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64']);

/** The value kind a column is indexed as, or undefined (not indexable: only string and integer tags). */
export function indexValueKind(c: ColumnMetadata): IndexValueKind | undefined {
  if (c.type === 'String') return 'string';
  return INTEGER_TYPES.has(c.type) ? 'integer' : undefined;
}

/**
 * The columns a file of `md` indexes: tags marked `INVERTED INDEX` (GreptimeDB's opt-in; its
 * current versions index no tag unless asked), of string or integer type, less those of the
 * table option `index.inverted_index.ignore_column_ids`.
 */
export function invertedIndexColumns(md: RegionMetadata): ColumnMetadata[] {
  const keys = new Set(md.primary_key);
  const ignored = new Set(md.options.inverted_index?.ignore_column_ids ?? []);
  return md.columns.filter((c) => c.inverted_index === true && keys.has(c.column_id) && !ignored.has(c.column_id) && indexValueKind(c) !== undefined);
}

/** Approximate bytes a value and its segment list take in memory. */
const VALUE_OVERHEAD = 80;
const SEGMENT_BYTES = 8;

/** Segments of one value, gathered in any order. */
type Groups = Map<string, number[]>;

function sortedDistinct(segments: number[]): number[] {
  segments.sort((a, b) => a - b);
  let n = 0;
  for (let i = 0; i < segments.length; i++) if (i === 0 || segments[i] !== segments[i - 1]) segments[n++] = segments[i]!;
  segments.length = n;
  return segments;
}

/** A spilled run: one JSON line `[value, [segments…]]` per value, ascending. */
async function spill(groups: Groups, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.run`);
  const fh = await open(path, 'w');
  try {
    const values = [...groups.keys()].sort(compareValues);
    let buf = '';
    for (const v of values) {
      buf += `${JSON.stringify([v, sortedDistinct(groups.get(v)!)])}\n`;
      if (buf.length > 1 << 20) {
        await fh.write(buf);
        buf = '';
      }
    }
    await fh.write(buf);
  } finally {
    await fh.close();
  }
  return path;
}

/** The lines of a run, in order. */
async function* readRun(path: string): AsyncGenerator<[string, number[]]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as [string, number[]];
}

/** Merges sorted runs into the writer's current column: one value at a time, segments united. */
async function mergeRuns(paths: readonly string[], writer: InvertedIndexWriter): Promise<void> {
  const its = paths.map((p) => readRun(p));
  const heads: Array<[string, number[]] | undefined> = [];
  for (const it of its) heads.push((await it.next()).value ?? undefined);
  for (;;) {
    let min: string | undefined;
    for (const h of heads) if (h !== undefined && (min === undefined || compareValues(h[0], min) < 0)) min = h[0];
    if (min === undefined) return;
    const segments: number[] = [];
    for (let k = 0; k < heads.length; k++) {
      const h = heads[k];
      if (h === undefined || h[0] !== min) continue;
      for (const s of h[1]) segments.push(s);
      heads[k] = (await its[k]!.next()).value ?? undefined;
    }
    writer.addValue(min, sortedDistinct(segments));
  }
}

/** Rows of each row group of a Parquet file, in order. */
async function rowGroupRows(conn: DuckDBConnection, path: string): Promise<number[]> {
  const r = await conn.runAndReadAll(`SELECT row_group_id, max(row_group_num_rows) FROM parquet_metadata(${quoteLiteral(path)}) GROUP BY row_group_id ORDER BY row_group_id`);
  return r.getRows().map((row) => Number(row[1]));
}

/**
 * The index file's bytes for the SST at `path` (written with `md`), or undefined when `md` indexes
 * no column. `stats` (when given) receives what the build did.
 */
export async function buildInvertedIndex(
  conn: DuckDBConnection,
  path: string,
  md: RegionMetadata,
  rowCount: number,
  opts: IndexBuildOptions,
  stats?: (s: IndexBuildStats) => void,
): Promise<Uint8Array | undefined> {
  const columns = invertedIndexColumns(md);
  if (columns.length === 0) return undefined;
  const S = opts.segmentRowCount;
  const writer = new InvertedIndexWriter({ segmentRowCount: S, rowCount, rowGroupRows: await rowGroupRows(conn, path) });
  let spilledRuns = 0;
  for (const c of columns) {
    const col = quoteIdent(physicalName(c.column_id));
    // Distinct pairs only: rows are sorted by key, so a segment holds few values of a tag.
    const result = await conn.stream(
      `SELECT DISTINCT ${col}::VARCHAR AS v, (file_row_number // ${S})::UINTEGER AS s FROM read_parquet(${quoteLiteral(path)}, file_row_number = true)`,
    );
    const groups: Groups = new Map();
    const nulls: number[] = [];
    const runs: string[] = [];
    let bytes = 0;
    try {
      for (;;) {
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) break;
        const [values, segments] = chunk.getColumns() as [Array<string | null>, number[]];
        for (let i = 0; i < values.length; i++) {
          const v = values[i] ?? null;
          const s = segments[i]!;
          if (v === null) {
            nulls.push(s);
            continue;
          }
          let list = groups.get(v);
          if (list === undefined) {
            groups.set(v, (list = []));
            bytes += VALUE_OVERHEAD + 2 * v.length;
          }
          list.push(s);
          bytes += SEGMENT_BYTES;
          if (opts.memThreshold > 0 && bytes > opts.memThreshold) {
            runs.push(await spill(groups, opts.intermediateDir));
            groups.clear();
            bytes = 0;
          }
        }
      }
      writer.beginColumn(c.column_id, indexValueKind(c)!, sortedDistinct(nulls));
      if (runs.length === 0) {
        for (const v of [...groups.keys()].sort(compareValues)) writer.addValue(v, sortedDistinct(groups.get(v)!));
      } else {
        if (groups.size > 0) runs.push(await spill(groups, opts.intermediateDir));
        groups.clear();
        spilledRuns += runs.length;
        await mergeRuns(runs, writer);
      }
    } finally {
      await Promise.all(runs.map((r) => rm(r, { force: true })));
    }
  }
  stats?.({ columns: columns.length, spilledRuns });
  return writer.finish();
}

/** `[region_engine.mito.inverted_index]` as the engine uses it. */
export interface InvertedIndexOptions {
  /** `create_on_flush = "auto"`: flushes write the index of their SST. */
  readonly createOnFlush: boolean;
  /** `create_on_compaction = "auto"`: compactions write the index of their output. */
  readonly createOnCompaction: boolean;
  /** `apply_on_query = "auto"`: scans skip row groups by the index. */
  readonly applyOnQuery: boolean;
  /** `mem_threshold_on_create` in bytes; 0: sort in memory only. */
  readonly memThreshold: number;
  /** `intermediate_path`: where the external sort spills. */
  readonly intermediateDir: string;
}

export const DEFAULT_INVERTED_INDEX_OPTIONS: InvertedIndexOptions = Object.freeze({
  createOnFlush: true,
  createOnCompaction: true,
  applyOnQuery: true,
  memThreshold: 64 * 1024 * 1024,
  intermediateDir: join(tmpdir(), 'tsdb-index-intermediate'),
});
