/**
 * What both memtable kinds keep alike: the frozen flag, row and series counts, time and sequence
 * bounds, and the statistics made of them.
 *
 * A metric engine's physical region holds the series of many logical tables, told apart by its
 * `__table_id` tag (frontend/metric-engine.ts): its new series are also counted per `__table_id`, so
 * that `/metrics` reports cardinality per logical table (common/metrics/table-series.ts).
 */
import type { WriteBatch } from '../../types/write-batch.js';
import type { ColumnMetadata, RegionMetadata } from '../../types/region-metadata.js';
import type { Memtable, MemtableStats, ReadMode, SeriesRun } from './memtable.js';
import { timeBounds, wordsOf } from './series-key.js';

/** The metric engine's logical-table tag (frontend/metric-engine.ts TABLE_ID_COLUMN; the engine does not import the frontend). */
const TABLE_ID_COLUMN = '__table_id';

export abstract class MemtableBase implements Memtable {
  abstract readonly metadata: RegionMetadata;
  abstract readonly fields: readonly ColumnMetadata[];
  protected seriesCount = 0;
  /** Series per logical table of a metric engine's physical region (undefined: not one, or not known yet). */
  private byTable: Map<number, number> | undefined;
  /** The column id of `__table_id`, -1 when the region has none; undefined until the first new series. */
  private tableIdColumn: number | undefined;
  private frozen = false;
  private rows = 0;
  private minTs: bigint | undefined;
  private maxTs: bigint | undefined;
  private minSeq: number | undefined;
  private maxSeq: number | undefined;

  abstract write(batch: WriteBatch, firstSequence: number): void;
  abstract runs(mode: ReadMode): Iterable<SeriesRun>;
  /** Memory held, in bytes. */
  protected abstract bytes(): number;

  /** The batch's time index values; refuses a write to a frozen memtable or without them. */
  protected timesOf(batch: WriteBatch, timeIndex: ColumnMetadata): BigInt64Array {
    if (this.frozen) throw new Error('cannot write to a frozen memtable');
    const v = batch.columns.get(timeIndex.column_id);
    if (v === undefined || v.type !== 'int64') throw new TypeError(`the batch has no int64 time index column ${timeIndex.name}`);
    return v.data;
  }

  /** Counts a new series, first written at `row` of `batch`. */
  protected noteSeries(batch: WriteBatch, row: number): void {
    this.seriesCount++;
    if (this.tableIdColumn === undefined) {
      const c = this.metadata.columns.find((m) => m.name === TABLE_ID_COLUMN && m.semantic_type === 'tag');
      this.tableIdColumn = c === undefined ? -1 : c.column_id;
    }
    if (this.tableIdColumn < 0) return;
    const v = batch.columns.get(this.tableIdColumn);
    if (v === undefined || v.type === 'string' || v.type === 'binary') return;
    const id = Number(v.data[row]);
    const map = (this.byTable ??= new Map());
    map.set(id, (map.get(id) ?? 0) + 1);
  }

  /** Series per `__table_id` of a metric engine's physical region; undefined for any other region. */
  seriesByTable(): ReadonlyMap<number, number> | undefined {
    return this.byTable;
  }

  /** Counts `n` written rows with times `ts` and sequences from `firstSequence`. */
  protected noteRows(ts: BigInt64Array, n: number, firstSequence: number): void {
    if (n === 0) return;
    const [minRow, maxRow] = timeBounds(wordsOf(ts, n), n);
    const lo = ts[minRow]!;
    const hi = ts[maxRow]!;
    if (this.minTs === undefined || lo < this.minTs) this.minTs = lo;
    if (this.maxTs === undefined || hi > this.maxTs) this.maxTs = hi;
    this.minSeq = Math.min(this.minSeq ?? firstSequence, firstSequence);
    this.maxSeq = Math.max(this.maxSeq ?? 0, firstSequence + n - 1);
    this.rows += n;
  }

  freeze(): void {
    this.frozen = true;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  isEmpty(): boolean {
    return this.rows === 0;
  }

  stats(): MemtableStats {
    return {
      rows: this.rows,
      series: this.seriesCount,
      bytes: this.bytes(),
      minTs: this.minTs,
      maxTs: this.maxTs,
      minSequence: this.minSeq,
      maxSequence: this.maxSeq,
    };
  }
}
