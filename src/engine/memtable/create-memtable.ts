/**
 * A region's next memtable, of the kind `[region_engine.mito.memtable] type` names.
 */
import type { RegionMetadata } from '../region/metadata.js';
import type { Memtable, MemtableOptions } from './memtable.js';
import { PartitionTreeMemtable } from './partition-tree-memtable.js';
import { TimeSeriesMemtable } from './time-series-memtable.js';

/**
 * A new memtable for `metadata`. A `partition_tree` memtable following `previous` (the one just
 * frozen) goes on with its key dictionary when that is at most `fork_dictionary_bytes` and the
 * primary key is unchanged.
 */
export function createMemtable(metadata: RegionMetadata, opts: MemtableOptions, previous?: Memtable): Memtable {
  if (opts.type === 'time_series') return new TimeSeriesMemtable(metadata);
  const forked = previous instanceof PartitionTreeMemtable && previous.canFork(metadata, opts.forkDictionaryBytes) ? previous.dictionary : undefined;
  return new PartitionTreeMemtable(metadata, opts, forked);
}
