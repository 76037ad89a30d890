/**
 * What a memtable is to the region: rows written in batches with their sequences, read out as one
 * sorted run per series. Two kinds (`[region_engine.mito.memtable] type`): `time_series` (the
 * default) and `partition_tree`.
 */
import type { WriteBatch, Vector } from '../../types/write-batch.js';
import type { ColumnMetadata, MergeMode, RegionMetadata } from '../../types/region-metadata.js';

/** A primary key value: strings, numbers, 64-bit integers, booleans, or NULL. */
export type PkValue = string | number | bigint | boolean | null;

/** One series' rows, sorted by time then sequence (newest first among equal times). */
export interface SeriesRun {
  /** Primary key values, in key order. */
  readonly key: readonly PkValue[];
  readonly ts: BigInt64Array;
  /** `ts` as 32-bit words (low, high), when the memtable has them: at least 2 × ts.length long. */
  readonly tsWords?: Int32Array;
  readonly seq: Float64Array;
  readonly op: Uint8Array;
  /** One vector per field, in the order of `Memtable.fields`. */
  readonly fields: readonly Vector[];
}

/** How rows with the same key and time are read out: all of them, or merged. */
export type ReadMode = 'append' | MergeMode;

export interface MemtableStats {
  readonly rows: number;
  readonly series: number;
  /** Memory held, in bytes (buffers at their capacity, series and key overheads included). */
  readonly bytes: number;
  readonly minTs: bigint | undefined;
  readonly maxTs: bigint | undefined;
  readonly minSequence: number | undefined;
  readonly maxSequence: number | undefined;
}

export interface Memtable {
  readonly metadata: RegionMetadata;
  /** Field columns (neither tag nor time index), in column order. */
  readonly fields: readonly ColumnMetadata[];
  /** Adds a batch whose rows take sequences `firstSequence`, `firstSequence + 1`, … */
  write(batch: WriteBatch, firstSequence: number): void;
  /** No more writes; the memtable waits to be flushed. */
  freeze(): void;
  readonly isFrozen: boolean;
  isEmpty(): boolean;
  stats(): MemtableStats;
  /** Series per `__table_id` when the region is a metric engine's physical region, else undefined. */
  seriesByTable(): ReadonlyMap<number, number> | undefined;
  /**
   * The rows, one run per series in primary-key order, sorted by time (newest sequence first among
   * equal times). `append` keeps every row; `last_row` keeps the newest row of each time (a delete
   * included, so that it still hides older data elsewhere); `last_non_null` merges each field's
   * newest non-NULL value, stopping at a newer delete.
   */
  runs(mode: ReadMode): Iterable<SeriesRun>;
  /**
   * True when `runs` keeps its own read out (reading again costs only what changed since): the
   * vector cache then leaves it alone.
   */
  readonly cachesRuns?: boolean;
}

/** `[region_engine.mito.memtable]`. */
export interface MemtableOptions {
  readonly type: 'time_series' | 'partition_tree';
  /** partition_tree: keys a shard holds before a new shard starts. */
  readonly indexMaxKeysPerShard: number;
  /** partition_tree: rows in a shard's active buffer before it is sorted and frozen into a part. */
  readonly dataFreezeThreshold: number;
  /** partition_tree: the next memtable of a region reuses the key dictionary up to this size. */
  readonly forkDictionaryBytes: number;
}

export const DEFAULT_MEMTABLE_OPTIONS: MemtableOptions = {
  type: 'time_series',
  indexMaxKeysPerShard: 8192,
  dataFreezeThreshold: 32768,
  forkDictionaryBytes: 1024 ** 3,
};
