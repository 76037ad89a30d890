/**
 * A scan of one region: a consistent snapshot of its SST files (those overlapping the time range)
 * and memtables, as one SQL relation (or a DuckDB view) with one column per region column.
 *
 * Sources whose time ranges cannot overlap are unioned as they are (each is sorted and merged
 * within itself); only groups of overlapping sources are merged across (last_row: newest row per
 * key and time; last_non_null: newest non-NULL value per field, back to the newest delete), so
 * deduplication costs only where sources can collide. Append-mode regions are never merged.
 * Tombstones are dropped from the result; rows past the TTL are filtered out.
 *
 * The scan's filter (time range, primary-key values: `ScanRequest`, `src/types/scan-request.ts`) is
 * applied inside each source, below the merge: to SST files as a WHERE on the Parquet scan (row
 * groups pruned by their statistics), to memtables by the table function (`RunFilter`). Both only
 * narrow by key and time, which the merge groups by, so a key's rows are kept or dropped together;
 * never by fields.
 *
 * A scan of the last row of each series (`ScanRequest.lastRow`: the query keeps only the latest row
 * of each group of series) takes from each memtable only its runs' last rows (in the time range),
 * not every row; files are read as they are. The merge across sources is the usual one. That is the
 * full scan's answer for the latest row of each series: its time T is the latest of any source, and
 * every source with a row of the series at T gives that row (its own latest), so the merge at T
 * sees every version there (of last_non_null fields too); rows of earlier times the merge may now
 * get wrong are below T, which the query drops. A file whose last rows per series were kept from
 * its flush (`last-row-cache.ts`) gives those instead of its rows when the scan's time range ends
 * at or after the file's last time (else its last row in the range may be an earlier one).
 *
 * A delete could break this: a newer delete at a source's latest time hides it, the latest row is
 * then earlier, and the source left out its own version there. So files are cut only when no source
 * holds a delete (a file's kept last rows say whether it does; a file without them may); memtables
 * are cut when none of them holds a delete and, if a file may, every file row is older than every
 * memtable row (each file's newest sequence below each memtable's oldest: a file's delete then
 * hides no memtable row), as flushes leave them; otherwise every row is read.
 * Files with an inverted index (docs/format/inverted-index.md) are narrowed further by the terms on
 * tags (`keys`, `conditions`): only row groups whose segments may hold a matching value are read
 * (a `file_row_number` range on the Parquet scan, which DuckDB uses to skip the others), and a
 * file none of whose row groups can match is not read at all. A row group is left out only when
 * none of its rows can meet the terms, which depend on the key alone: a key's rows are still kept
 * or dropped together, in every source.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { SeriesRun } from '../memtable/memtable.js';
import { decimalOf, vectorDimOf, type ColumnMetadata, type RegionMetadata, type TimestampType } from '../../types/region-metadata.js';
import { parseVectorText, vectorBytes } from '../../common/vector-text.js';
import { MEMTABLE_SCAN_FUNCTION, publishRuns, type RunFilter } from './memtable-scan-function.js';
import type { FileLastRows } from './last-row-cache.js';
import type { KeyCondition, KeyFilterValue } from '../../types/scan-request.js';
import type { IndexTerm, InvertedIndex } from '../sst/inverted-index.js';
import { OP_TYPE_COLUMN, physicalName, SEQUENCE_COLUMN } from '../sst/sst-format.js';
import { sqlTypeOf } from '../../types/sql-types.js';
import { OP_DELETE } from '../../types/write-batch.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';

/** One memtable's rows, read out when the scan was made. */
export interface MemtableSnapshot {
  readonly metadata: RegionMetadata;
  readonly fields: readonly { column_id: number }[];
  readonly runs: readonly SeriesRun[];
  readonly timeRange: readonly [number, number];
  /** At least the rows of `runs` (the memtable's row count), when known. */
  readonly rowsAtMost?: number;
  /** The oldest sequence of its rows, when known. */
  readonly minSequence?: number;
}

export interface FileSnapshot {
  readonly fileId: string;
  /** Absolute local path (DuckDB reads local files). */
  readonly path: string;
  readonly timeRange: readonly [number, number];
  /** Region columns the file holds; undefined = all current ones. */
  readonly columnIds?: readonly number[];
  /** The newest sequence of its rows, when known. */
  readonly maxSequence?: number;
  /** Its last rows per series, when kept (`last-row-cache.ts`; asked for by last-row scans only). */
  readonly lastRows?: FileLastRows;
  /** The file's inverted index, when it has one and the scan may use it. */
  readonly index?: InvertedIndex;
}

export interface ScanSnapshot {
  readonly metadata: RegionMetadata;
  readonly files: readonly FileSnapshot[];
  readonly memtables: readonly MemtableSnapshot[];
  /** Inclusive bounds on the time index (its unit) requested, and the TTL cutoff. */
  readonly start?: bigint;
  readonly end?: bigint;
  /** Rows older than this (time index unit) are expired. */
  readonly ttlCutoff?: bigint;
  /** Primary key values the rows may have (`ScanRequest.keys`). */
  readonly keys?: ReadonlyMap<number, readonly KeyFilterValue[]>;
  /** Only the last row of each series is asked for (`ScanRequest.lastRow`; see the file header). */
  readonly lastRow?: boolean;
  /** Further conditions on primary key values (`ScanRequest.conditions`): used only with an index. */
  readonly conditions?: ReadonlyMap<number, readonly KeyCondition[]>;
  /** Releases the files for deletion once the scan is done. */
  readonly release: () => void;
}

/** A typed SQL literal of a time index value, so that DuckDB can push the comparison into Parquet. */
export function timeLiteral(value: bigint, unit: TimestampType): string {
  switch (unit) {
    case 'TimestampSecond':
      return `make_timestamp(${value * 1_000_000n})::TIMESTAMP_S`;
    case 'TimestampMillisecond':
      return `epoch_ms(${value})::TIMESTAMP_MS`;
    case 'TimestampMicrosecond':
      return `make_timestamp(${value})`;
    case 'TimestampNanosecond':
      return `make_timestamp_ns(${value})`;
  }
}

export function defaultLiteral(c: ColumnMetadata): string {
  const type = sqlTypeOf(c.type);
  const v = c.default;
  if (v === undefined || v === null) return `CAST(NULL AS ${type})`;
  if (c.type.startsWith('Timestamp') && typeof v === 'number') return timeLiteral(BigInt(v), c.type as TimestampType);
  // A vector's DEFAULT is its text; rows hold its bytes.
  const dim = vectorDimOf(c.type);
  if (dim !== undefined && typeof v === 'string') return `from_hex('${Buffer.from(vectorBytes(parseVectorText(v, dim))).toString('hex')}')`;
  if (typeof v === 'string') return `CAST(${quoteLiteral(v)} AS ${type})`;
  return `CAST(${String(v)} AS ${type})`;
}

const INTEGER_TYPES = new Set(['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64']);

/** The JavaScript type of the filter values a tag column takes, or undefined (not filtered). */
function keyFilterKind(c: ColumnMetadata): 'string' | 'bigint' | undefined {
  if (c.type === 'String') return 'string';
  return INTEGER_TYPES.has(c.type) ? 'bigint' : undefined;
}

/** Most slices a group of overlapping sources is merged in (`timeSlices`); more: merged whole. */
export const MAX_TIME_SLICES = 8;

/** Times `[lo, hiExclusive)` (time index unit): the part of sources one merge covers. */
export interface TimeSlice {
  readonly lo: bigint;
  readonly hiExclusive: bigint;
}

/**
 * A group of sources with overlapping time ranges, cut where a range starts or ends: each slice
 * with the sources covering it (ranges are widened outwards, so every row of a source falls in a
 * slice it covers). Only slices covered by several sources need merging: a flush leaves the next
 * memtable overlapping the file by a few late rows, and merging the whole of both (a window over
 * every row) cost more than all the rest of a scan.
 */
export function timeSlices(group: readonly Source[]): Array<{ slice: TimeSlice; sources: Source[] }> {
  const bounds = group.map((s) => ({ s, lo: BigInt(Math.floor(s.timeRange[0])), hiExclusive: BigInt(Math.ceil(s.timeRange[1])) + 1n }));
  const cuts = [...new Set(bounds.flatMap((b) => [b.lo, b.hiExclusive]))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Array<{ slice: TimeSlice; sources: Source[] }> = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const lo = cuts[i]!;
    const hiExclusive = cuts[i + 1]!;
    const covering = bounds.filter((b) => b.lo <= lo && b.hiExclusive >= hiExclusive).map((b) => b.s);
    if (covering.length === 0) continue;
    const last = out[out.length - 1];
    // Neighbouring slices of the same sources are one slice.
    if (last !== undefined && last.slice.hiExclusive === lo && last.sources.length === covering.length && last.sources.every((s, k) => s === covering[k])) {
      out[out.length - 1] = { slice: { lo: last.slice.lo, hiExclusive }, sources: covering };
    } else out.push({ slice: { lo, hiExclusive }, sources: covering });
  }
  return out;
}

/**
 * Most separate row ranges of one file read as a UNION ALL of range scans; with more, the file is
 * read from the first selected row to the last. Each range is a Parquet scan of its own (~1.5–3 ms
 * of fixed cost on 2 cores, docs/benchmarks.md "Inverted index"), so past a few a single scan that
 * skips by statistics costs less.
 */
export const MAX_ROW_RANGES = 4;
/**
 * Selected row groups closer than this many row groups are read as one range, the groups between
 * included: decoding a row group costs far less than a scan of its own.
 */
export const MAX_GAP_ROW_GROUPS = 8;
/**
 * A `NOT IN` list longer than this in the query makes the scan skip whole files only: DuckDB 1.5
 * evaluates such a list 10–20x slower when the same Parquet scan also filters on `file_row_number`
 * and keeps part of the file (measured: 100 values, half the row groups: 878 ms against 53 ms for
 * the whole file unfiltered; docs/benchmarks.md "Inverted index").
 */
export const MAX_NOT_IN_WITH_ROW_RANGES = 8;

/** What the inverted indexes did in a scan (`RegionScan.indexStats`). */
export interface IndexScanStats {
  /** Files whose index was consulted. */
  readonly files: number;
  /** Of those, files left out entirely (no row group can match). */
  readonly filesSkipped: number;
  /** Row groups of the consulted files, and those that may match (read). */
  readonly rowGroups: number;
  readonly rowGroupsSelected: number;
}

export interface Source {
  readonly from: string;
  /** A condition on the Parquet scan's `file_row_number` (the row groups an index selected). */
  readonly rowFilter?: string;
  /** A memtable: the table function over only the rows of `slice` (files are filtered by WHERE). */
  readonly sliced?: (slice: TimeSlice) => string;
  /** An SST file (read_parquet), not a memtable. */
  readonly fromFile?: boolean;
  readonly columnIds: ReadonlySet<number>;
  readonly timeRange: readonly [number, number];
}

export class RegionScan {
  private readonly objects: string[] = [];
  private readonly disposers: Array<() => void> = [];
  private released = false;
  /** Memtables give only their runs' last rows (`ScanSnapshot.lastRow`, see the file header). */
  private lastRowRuns = false;
  /** Files give only their last rows, where kept (`FileSnapshot.lastRows`). */
  private lastRowFiles = false;
  private stats: IndexScanStats = { files: 0, filesSkipped: 0, rowGroups: 0, rowGroupsSelected: 0 };

  constructor(private readonly snapshot: ScanSnapshot) {}

  /** What inverted indexes did in the last `relation()` of this scan. */
  get indexStats(): IndexScanStats {
    return this.stats;
  }

  get metadata(): RegionMetadata {
    return this.snapshot.metadata;
  }

  /** Number of SST files the scan reads (those outside the time range are left out). */
  get fileCount(): number {
    return this.snapshot.files.length;
  }

  /**
   * The scan as one SQL relation (a SELECT with one column per region column, named as the
   * column), to run in a connection of the engine's DuckDB instance, where the memtable scan
   * function is registered. Memtables are published for the table function until `release`.
   */
  relation(): string {
    if (this.released) throw new TsdbError(StatusCode.IllegalState, 'the scan was released');
    const md = this.snapshot.metadata;
    const plan = this.snapshot.lastRow === true ? this.lastRowPlan() : 'none';
    this.lastRowRuns = plan !== 'none';
    this.lastRowFiles = plan === 'all';
    const sources: Source[] = [];
    this.stats = { files: 0, filesSkipped: 0, rowGroups: 0, rowGroupsSelected: 0 };
    for (const f of this.snapshot.files) {
      // A file's last rows stand for it when they are its last rows in the time range too.
      if (this.lastRowFiles && f.lastRows !== undefined && (this.snapshot.end === undefined || BigInt(Math.ceil(f.timeRange[1])) <= this.snapshot.end)) {
        sources.push(this.runsSource({ ...f.lastRows, timeRange: f.timeRange, rowsAtMost: f.lastRows.runs.length }));
        continue;
      }
      const columnIds = new Set(f.columnIds ?? md.columns.map((c) => c.column_id));
      const file = quoteLiteral(f.path);
      const ranges = f.index === undefined ? undefined : this.selectedRows(f.index, columnIds);
      if (ranges === undefined) {
        sources.push({ from: `read_parquet(${file})`, fromFile: true, columnIds, timeRange: f.timeRange });
        continue;
      }
      if (ranges.length === 0) continue;
      const numbered = `read_parquet(${file}, file_row_number = true)`;
      const between = ([lo, hi]: readonly [number, number]) => `file_row_number BETWEEN ${lo} AND ${hi}`;
      if (ranges.length === 1 || ranges.length > MAX_ROW_RANGES) {
        sources.push({ from: numbered, rowFilter: between([ranges[0]![0], ranges[ranges.length - 1]![1]]), fromFile: true, columnIds, timeRange: f.timeRange });
      } else {
        const union = ranges.map((r) => `SELECT * FROM ${numbered} WHERE ${between(r)}`).join(' UNION ALL ');
        sources.push({ from: `(${union})`, fromFile: true, columnIds, timeRange: f.timeRange });
      }
    }
    for (const m of this.snapshot.memtables) {
      if (m.runs.every((r) => r.ts.length === 0)) continue;
      sources.push(this.runsSource(m));
    }
    // One source (a point query's usual case): its rows as they are, in one SELECT. Planning the
    // nested form costs DuckDB ~0.4 ms more per query.
    if (sources.length === 1) return this.select(sources[0]!, true);
    const body = sources.length === 0 ? this.emptyRelation() : this.merged(sources);
    const visible = md.columns.map((c) => `${quoteIdent(physicalName(c.column_id))} AS ${quoteIdent(c.name)}`).join(', ');
    return `SELECT ${visible} FROM (${body})`;
  }

  /**
   * Which sources of a last-row scan give only their last rows (see the file header): all of them
   * when no source holds a delete (a file without kept last rows may: then none is cut); else the
   * memtables when none of them holds one and every file row is older than every memtable row;
   * else none.
   */
  private lastRowPlan(): 'all' | 'memtables' | 'none' {
    const { files, memtables } = this.snapshot;
    if (memtables.some((m) => m.runs.some((r) => r.op.indexOf(OP_DELETE) >= 0))) return 'none';
    if (files.every((f) => f.lastRows !== undefined && !f.lastRows.deletes)) return 'all';
    let oldest = Infinity;
    for (const m of memtables) {
      if (m.runs.every((r) => r.ts.length === 0)) continue;
      if (m.minSequence === undefined) return 'none';
      oldest = Math.min(oldest, m.minSequence);
    }
    return files.some((f) => f.maxSequence === undefined || f.maxSequence >= oldest) ? 'none' : 'memtables';
  }

  /**
   * Runs (a memtable's, or a file's kept last rows) as a source, read in place through the table
   * function; no copy into a DuckDB table. Published when the SQL names it: whole, or per time
   * slice when only a slice overlaps other sources.
   */
  private runsSource(m: Pick<MemtableSnapshot, 'metadata' | 'fields' | 'runs' | 'timeRange' | 'rowsAtMost'>): Source {
    const publish = (slice?: TimeSlice): string => {
      const handle = publishRuns(m.metadata, m.fields, m.runs, this.runFilter(m.metadata, m.timeRange, slice), m.rowsAtMost);
      this.disposers.push(handle.dispose);
      return `${MEMTABLE_SCAN_FUNCTION}(${quoteLiteral(handle.id)})`;
    };
    let whole: string | undefined;
    return {
      get from() {
        return (whole ??= publish());
      },
      sliced: publish,
      columnIds: new Set(m.metadata.columns.map((c) => c.column_id)),
      timeRange: m.timeRange,
    };
  }

  /** Inclusive lower bound of the rows read: the requested start or the TTL cutoff, the later. */
  private lowerBound(): bigint | undefined {
    const { start, ttlCutoff } = this.snapshot;
    if (start === undefined) return ttlCutoff;
    return ttlCutoff === undefined || start > ttlCutoff ? start : ttlCutoff;
  }

  /** Primary key values usable as a filter: only string values of string tags, integers of integer tags. */
  private keyFilters(): Array<{ column: ColumnMetadata; values: readonly KeyFilterValue[] }> {
    const md = this.snapshot.metadata;
    const out: Array<{ column: ColumnMetadata; values: readonly KeyFilterValue[] }> = [];
    for (const [id, values] of this.snapshot.keys ?? []) {
      const column = md.columns.find((c) => c.column_id === id);
      if (column === undefined || !md.primary_key.includes(id)) continue;
      const kind = keyFilterKind(column);
      if (kind === undefined || !values.every((v) => typeof v === kind)) continue;
      out.push({ column, values });
    }
    return out;
  }

  /**
   * The rows of a file worth reading by its index: inclusive row ranges of whole row groups, in
   * order ([] = none), or undefined when the index cannot narrow the file (no term on a column it
   * indexes, or every row group may match). Terms on a column the file lacks (it reads as its
   * default there) are not asked.
   */
  private selectedRows(index: InvertedIndex, columnIds: ReadonlySet<number>): Array<[number, number]> | undefined {
    const terms: Array<{ columnId: number; term: IndexTerm }> = [];
    for (const k of this.keyFilters()) if (columnIds.has(k.column.column_id)) terms.push({ columnId: k.column.column_id, term: { kind: 'in', values: k.values } });
    const md = this.snapshot.metadata;
    for (const [columnId, conditions] of this.snapshot.conditions ?? []) {
      if (!md.primary_key.includes(columnId) || !columnIds.has(columnId)) continue;
      for (const term of conditions) terms.push({ columnId, term });
    }
    if (terms.length === 0) return undefined;
    const segments = index.segmentsMatching(terms);
    if (segments === undefined) return undefined;
    const groups = index.rowGroupsOf(segments);
    let selected = groups.filter((g) => g).length;
    if (selected > 0 && terms.some((t) => t.term.kind === 'not_in' && t.term.values.length > MAX_NOT_IN_WITH_ROW_RANGES)) selected = groups.length;
    this.stats = {
      files: this.stats.files + 1,
      filesSkipped: this.stats.filesSkipped + (selected === 0 ? 1 : 0),
      rowGroups: this.stats.rowGroups + groups.length,
      rowGroupsSelected: this.stats.rowGroupsSelected + selected,
    };
    if (selected === groups.length) return undefined;
    const ranges: Array<[number, number]> = [];
    let start = 0;
    let lastGroup = -Infinity;
    index.layout.rowGroupRows.forEach((n, g) => {
      if (groups[g] && n > 0) {
        const last = ranges[ranges.length - 1];
        if (last !== undefined && g - lastGroup <= MAX_GAP_ROW_GROUPS) last[1] = start + n - 1;
        else ranges.push([start, start + n - 1]);
        lastGroup = g;
      }
      start += n;
    });
    return ranges;
  }

  /** The filter of a memtable's runs (keys are by position in the memtable's own primary key). */
  /**
   * What the table function keeps of a memtable; a time bound the memtable's whole range
   * (`timeRange`, widened outwards) already satisfies is left out, so that no run is searched.
   */
  private runFilter(memtable: RegionMetadata, timeRange: readonly [number, number], slice?: TimeSlice): RunFilter {
    let lower = this.lowerBound();
    let upper = this.snapshot.end;
    if (slice !== undefined) {
      if (lower === undefined || slice.lo > lower) lower = slice.lo;
      if (upper === undefined || slice.hiExclusive - 1n < upper) upper = slice.hiExclusive - 1n;
    }
    if (lower !== undefined && lower <= BigInt(timeRange[0])) lower = undefined;
    if (upper !== undefined && upper >= BigInt(timeRange[1])) upper = undefined;
    const keys: Array<{ keyIndex: number; values: readonly KeyFilterValue[] }> = [];
    for (const k of this.keyFilters()) {
      const keyIndex = memtable.primary_key.indexOf(k.column.column_id);
      // A memtable of older metadata may lack the column (it reads as its default): not filtered.
      if (keyIndex >= 0) keys.push({ keyIndex, values: k.values });
    }
    return { ...(lower !== undefined && { start: lower }), ...(upper !== undefined && { end: upper }), keys, ...(this.lastRowRuns && { lastRow: true }) };
  }

  /** Creates the temporary view `name` over the scan (`relation`) in `conn`; `detach` drops it. */
  async attach(conn: DuckDBConnection, name: string): Promise<void> {
    await conn.run(`CREATE OR REPLACE TEMP VIEW ${quoteIdent(name)} AS ${this.relation()}`);
    this.objects.unshift(`DROP VIEW IF EXISTS ${quoteIdent(name)}`);
  }

  private emptyRelation(): string {
    const cols = this.snapshot.metadata.columns.map((c) => `CAST(NULL AS ${sqlTypeOf(c.type)}) AS ${quoteIdent(physicalName(c.column_id))}`);
    return `SELECT ${cols.join(', ')}, CAST(NULL AS UBIGINT) AS ${SEQUENCE_COLUMN}, CAST(NULL AS UTINYINT) AS ${OP_TYPE_COLUMN} WHERE false`;
  }

  /**
   * One source projected to the current columns, filtered by time, TTL and key values; `alone`:
   * the whole scan, so columns get their names, tombstones are dropped and `__sequence` and
   * `__op_type` are left out (a source holds one row per key and time, or every row in append mode).
   */
  private select(s: Source, alone = false, slice?: TimeSlice): string {
    const md = this.snapshot.metadata;
    const ts = md.columns.find((c) => c.column_id === md.time_index)!;
    const unit = ts.type as TimestampType;
    // Parquet has no second or millisecond timestamps of DuckDB's kinds: DuckDB reads them back as
    // microseconds, so file time columns are cast back to the region's types.
    const col = (c: ColumnMetadata) => {
      const name = quoteIdent(physicalName(c.column_id));
      const as = alone ? quoteIdent(c.name) : name;
      if (!s.columnIds.has(c.column_id)) return `${defaultLiteral(c)} AS ${as}`;
      // Fields are cast to the column's current type: older files and memtables keep the type a
      // column had before ALTER … MODIFY COLUMN (a cast to the same type costs nothing); a value
      // that does not convert reads as NULL, as in GreptimeDB.
      if (c.semantic_type === 'field') return `TRY_CAST(${name} AS ${sqlTypeOf(c.type)}) AS ${as}`;
      if (s.fromFile && (c.type === 'TimestampSecond' || c.type === 'TimestampMillisecond')) return `CAST(${name} AS ${sqlTypeOf(c.type)}) AS ${as}`;
      // A DECIMAL tag is text in memtable scans (`sst/sst-format.ts` chunkTypeOf).
      if (!s.fromFile && decimalOf(c.type) !== undefined) return `CAST(${name} AS ${sqlTypeOf(c.type)}) AS ${as}`;
      return alone ? `${name} AS ${as}` : name;
    };
    const cols = md.columns.map(col);
    const tsCol = quoteIdent(physicalName(ts.column_id));
    const where: string[] = [];
    const lower = this.lowerBound();
    if (lower !== undefined) where.push(`${tsCol} >= ${timeLiteral(lower, unit)}`);
    if (this.snapshot.end !== undefined) where.push(`${tsCol} <= ${timeLiteral(this.snapshot.end, unit)}`);
    if (slice !== undefined) where.push(`${tsCol} >= ${timeLiteral(slice.lo, unit)}`, `${tsCol} < ${timeLiteral(slice.hiExclusive, unit)}`);
    const from = slice !== undefined && s.sliced !== undefined ? s.sliced(slice) : s.from;
    if (s.rowFilter !== undefined) where.push(s.rowFilter);
    // Memtables are filtered by the table function; files here, on the Parquet scan's own columns.
    if (s.fromFile) {
      for (const k of this.keyFilters()) {
        if (!s.columnIds.has(k.column.column_id)) continue;
        const literals = k.values.map((v) => (typeof v === 'string' ? quoteLiteral(v) : String(v)));
        const col = quoteIdent(physicalName(k.column.column_id));
        where.push(literals.length === 0 ? 'false' : literals.length === 1 ? `${col} = ${literals[0]!}` : `${col} IN (${literals.join(', ')})`);
      }
    }
    if (alone) {
      if (!md.options.append_mode) where.push(`${OP_TYPE_COLUMN} = 1`);
      return `SELECT ${cols.join(', ')} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    }
    return `SELECT ${cols.join(', ')}, ${SEQUENCE_COLUMN}, ${OP_TYPE_COLUMN} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  }

  /** Sources grouped by overlapping time ranges; each group merged only if it has several. */
  private merged(sources: Source[]): string {
    const md = this.snapshot.metadata;
    const sorted = [...sources].sort((a, b) => a.timeRange[0] - b.timeRange[0]);
    const groups: Source[][] = [];
    let hi = -Infinity;
    for (const s of sorted) {
      if (groups.length > 0 && s.timeRange[0] <= hi) groups[groups.length - 1]!.push(s);
      else groups.push([s]);
      hi = Math.max(hi, s.timeRange[1]);
    }
    // By name: a merged last_non_null group lists its columns in another order.
    const parts: string[] = [];
    for (const g of groups) {
      const slices = g.length === 1 || md.options.append_mode ? [] : timeSlices(g);
      // Staircase overlaps of many files (backfill, late data) make ~2 slices a file, each reading
      // its sources again: past a few, the group is merged whole.
      if (slices.length === 0 || slices.length > MAX_TIME_SLICES) parts.push(this.mergeGroup(g, md));
      else for (const { slice, sources: covering } of slices) parts.push(this.mergeGroup(covering, md, slice));
    }
    return parts.map((p) => `SELECT * FROM (${p})`).join(' UNION ALL BY NAME ');
  }

  private mergeGroup(group: Source[], md: RegionMetadata, slice?: TimeSlice): string {
    const union = group.map((s) => this.select(s, false, slice)).join(' UNION ALL ');
    if (md.options.append_mode) return union;
    if (group.length === 1) return `SELECT * FROM (${union}) WHERE ${OP_TYPE_COLUMN} = 1`;
    const key = [...md.primary_key, md.time_index].map((id) => quoteIdent(physicalName(id))).join(', ');
    if (md.options.merge_mode === 'last_row') {
      return `SELECT * FROM (SELECT * FROM (${union}) QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY ${SEQUENCE_COLUMN} DESC) = 1) WHERE ${OP_TYPE_COLUMN} = 1`;
    }
    // last_non_null: per key and time, each field's newest non-NULL value newer than the newest delete.
    const fields = md.columns.filter((c) => c.semantic_type === 'field').map((c) => quoteIdent(physicalName(c.column_id)));
    const merged = fields.map((f) => `arg_max(${f}, ${SEQUENCE_COLUMN}) FILTER (WHERE ${f} IS NOT NULL AND ${SEQUENCE_COLUMN} > __deleted) AS ${f}`);
    return (
      `SELECT ${key}, ${merged.join(', ')}${merged.length ? ', ' : ''}max(${SEQUENCE_COLUMN}) AS ${SEQUENCE_COLUMN}, 1::UTINYINT AS ${OP_TYPE_COLUMN} ` +
      `FROM (SELECT *, coalesce(max(CASE WHEN ${OP_TYPE_COLUMN} = 0 THEN ${SEQUENCE_COLUMN} END) OVER (PARTITION BY ${key}), 0) AS __deleted FROM (${union})) ` +
      `GROUP BY ${key} HAVING max(${SEQUENCE_COLUMN}) > max(__deleted)`
    );
  }

  /** Drops what `attach` created in `conn`. */
  async detach(conn: DuckDBConnection): Promise<void> {
    for (const sql of this.objects.splice(0)) await conn.run(sql);
  }

  /** The scan is done: its files may be deleted once no other scan uses them. */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const dispose of this.disposers.splice(0)) dispose();
    this.snapshot.release();
  }
}
