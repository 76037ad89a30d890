/**
 * A region's next memtable, of the kind its table's `memtable.type` option names, else
 * `[region_engine.mito.memtable] type`.
 */
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { Memtable, MemtableOptions } from './memtable.js';
import { PartitionTreeMemtable } from './partition-tree-memtable.js';
import { TimeSeriesMemtable } from './time-series-memtable.js';

/**
 * A new memtable for `metadata`. A `partition_tree` memtable following `previous` (the one just
 * frozen) goes on with its key dictionary when that is at most `fork_dictionary_bytes` and the
 * primary key is unchanged.
 */
export function createMemtable(metadata: RegionMetadata, engine: MemtableOptions, previous?: Memtable): Memtable {
  const opts = memtableOptionsOf(metadata, engine);
  if (opts.type === 'time_series') return new TimeSeriesMemtable(metadata);
  const forked = previous instanceof PartitionTreeMemtable && previous.canFork(metadata, opts.forkDictionaryBytes) ? previous.dictionary : undefined;
  return new PartitionTreeMemtable(metadata, opts, forked);
}

/** The engine's memtable options with the table's own `memtable.*` options over them. */
export function memtableOptionsOf(metadata: RegionMetadata, engine: MemtableOptions): MemtableOptions {
  const own = metadata.options.memtable;
  if (own === undefined) return engine;
  return {
    type: own.type ?? engine.type,
    indexMaxKeysPerShard: own.index_max_keys_per_shard ?? engine.indexMaxKeysPerShard,
    dataFreezeThreshold: own.data_freeze_threshold ?? engine.dataFreezeThreshold,
    forkDictionaryBytes: own.fork_dictionary_bytes ?? engine.forkDictionaryBytes,
  };
}
