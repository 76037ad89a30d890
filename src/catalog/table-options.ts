/**
 * Table and database options (`WITH (…)`, reference api.md §4.1–4.2): which keys exist, what values
 * they take, and the region options the engine gets from them.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { KIB, MIB, GIB, TIB, PIB, parseSize } from '../common/size/size.js';
import { MONTH_MS, parseDuration, YEAR_MS } from '../common/time/duration.js';
import type { MergeMode, RegionOptions } from '../types/region-metadata.js';

/** Keys a table accepts as written. */
const TABLE_KEYS = new Set([
  'ttl',
  'append_mode',
  'merge_mode',
  'write_buffer_size',
  'storage',
  'comment',
  'skip_wal',
  'sst_format',
  'auto_flush_interval',
  'max_row_group_row_count',
  'compaction.type',
  'compaction.override',
  'memtable.type',
  'memtable.partition_tree.index_max_keys_per_shard',
  'memtable.partition_tree.data_freeze_threshold',
  'memtable.partition_tree.fork_dictionary_bytes',
  'wal_options',
  'physical_metric_table',
  'on_physical_table',
  'repartition.column.hint',
  'timeout',
  'wait',
]);

/** The semantic layer's options (GreptimeDB's `greptime.semantic.*`, renamed), shown by information_schema.table_semantics. */
export const SEMANTIC_PREFIX = 'tsdb.semantic.';

/** Key families a table accepts: any key under these prefixes. */
const TABLE_PREFIXES = ['compaction.twcs.', 'index.', SEMANTIC_PREFIX];

/** Keys a database accepts (tables created in it inherit them). */
const DATABASE_KEYS = new Set([
  'ttl', 'storage', 'append_mode', 'merge_mode', 'skip_wal', 'compaction.type', 'sst_format', 'memtable.type',
  'memtable.partition_tree.index_max_keys_per_shard', 'memtable.partition_tree.data_freeze_threshold', 'memtable.partition_tree.fork_dictionary_bytes',
]);
const DATABASE_PREFIXES = ['compaction.twcs.'];

/** Whether a database accepts option `key` (lower case). */
export function isDatabaseOptionKey(key: string): boolean {
  return DATABASE_KEYS.has(key) || DATABASE_PREFIXES.some((p) => key.startsWith(p));
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

function checkBoolean(key: string, value: string): void {
  if (value !== 'true' && value !== 'false') throw invalid(`Invalid value for option ${key}: ${value}, expected true or false`);
}

/** Milliseconds of a `ttl` (`forever` and `0s` mean no TTL: undefined; `instant`: 0). */
export function parseTtl(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'forever' || v === '') return undefined;
  if (v === 'instant') return 0;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch {
    throw invalid(`Invalid ttl: ${value}`);
  }
  return ms === 0 ? undefined : ms;
}

/** A TTL as GreptimeDB shows it (humantime): `7days`, `1day`, `1h 30m`, `forever`, `instant`. */
export function formatTtl(value: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'forever' || v === 'instant') return v;
  const ms = parseTtl(v);
  if (ms === undefined) return 'forever';
  // humantime's format_duration: years of 365.25 days, months of 30.44 days, then days.
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['year', YEAR_MS], ['month', MONTH_MS], ['day', 86_400_000]] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}${n === 1 ? '' : 's'}`);
  }
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join(' ');
}

/** A size as GreptimeDB shows it (ReadableSize's Display): `1.0KiB`, `2.5MiB`, `512B`. */
export function formatReadableSize(bytes: number): string {
  for (const [unit, size] of [['PiB', PIB], ['TiB', TIB], ['GiB', GIB], ['MiB', MIB], ['KiB', KIB]] as const) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)}${unit}`;
  }
  return `${bytes}B`;
}

/** Checks and normalizes options (keys lower-cased); `kind` tells table from database keys. */
export function checkOptions(options: Readonly<Record<string, string>>, kind: 'table' | 'database'): Record<string, string> {
  const keys = kind === 'table' ? TABLE_KEYS : DATABASE_KEYS;
  const prefixes = kind === 'table' ? TABLE_PREFIXES : DATABASE_PREFIXES;
  const out: Record<string, string> = {};
  for (const [rawKey, rawValue] of Object.entries(options)) {
    const key = rawKey.toLowerCase();
    if (!keys.has(key) && !prefixes.some((p) => key.startsWith(p))) {
      throw invalid(kind === 'table' ? `Unrecognized table option key: ${rawKey}` : `Unrecognized database option key: ${rawKey}`);
    }
    // Free text is kept as written: the comment, the storage name, the semantic layer's values.
    const value = key === 'comment' || key === 'storage' || key.startsWith(SEMANTIC_PREFIX) ? rawValue : rawValue.trim().toLowerCase();
    switch (key) {
      case 'ttl':
        out[key] = formatTtl(value);
        continue;
      case 'write_buffer_size': {
        let bytes: number;
        try {
          bytes = parseSize(value);
        } catch {
          throw invalid(`Invalid write_buffer_size: ${rawValue}`);
        }
        out[key] = formatReadableSize(bytes);
        continue;
      }
      case 'append_mode':
      case 'skip_wal':
        checkBoolean(key, value);
        break;
      case 'merge_mode':
        // '' is GreptimeDB's "not set" (the default, last_row), kept as written.
        if (value !== '' && value !== 'last_row' && value !== 'last_non_null') throw invalid(`Invalid merge mode: ${rawValue}`);
        break;
      case 'compaction.type':
        if (value !== 'twcs') throw invalid(`Invalid compaction type: ${rawValue}, only twcs is supported`);
        break;
      case 'memtable.type':
        // GreptimeDB's `bulk` is its default memtable: tsdb reads it as the engine's default kind.
        if (value !== 'time_series' && value !== 'partition_tree' && value !== 'bulk') throw invalid(`Invalid memtable type: ${rawValue}`);
        break;
      case 'memtable.partition_tree.index_max_keys_per_shard':
      case 'memtable.partition_tree.data_freeze_threshold':
        if (!/^\d+$/.test(value) || Number(value) < 1) throw invalid(`Invalid ${key}: ${rawValue}`);
        break;
      case 'memtable.partition_tree.fork_dictionary_bytes':
        try {
          parseSize(value);
        } catch {
          throw invalid(`Invalid ${key}: ${rawValue}`);
        }
        break;
      case 'compaction.twcs.time_window':
        try {
          parseDuration(value);
        } catch {
          throw invalid(`Invalid compaction.twcs.time_window: ${rawValue}`);
        }
        break;
      case 'index.inverted_index.segment_row_count':
        if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 0x7fff_ffff) throw invalid(`Invalid ${key}: ${rawValue}`);
        break;
      case 'index.inverted_index.ignore_column_ids':
        if (!/^\s*(\d+\s*(,\s*\d+\s*)*)?$/.test(value)) throw invalid(`Invalid ${key}: ${rawValue}, expected column ids separated by commas`);
        break;
      case 'compaction.twcs.trigger_file_num':
        if (!/^\d+$/.test(value) || Number(value) < 1) throw invalid(`Invalid compaction.twcs.trigger_file_num: ${rawValue}`);
        break;
    }
    out[key] = value;
  }
  if (out['append_mode'] === 'true' && out['merge_mode'] !== undefined && out['merge_mode'] !== '') {
    throw invalid('merge_mode is not allowed when append_mode is enabled');
  }
  return out;
}

/** The engine's options of a table's regions. */
export function regionOptionsOf(options: Readonly<Record<string, string>>): RegionOptions {
  const ttl = options['ttl'] === undefined ? undefined : parseTtl(options['ttl']);
  const window = options['compaction.twcs.time_window'];
  const trigger = options['compaction.twcs.trigger_file_num'];
  const shardKeys = options['memtable.partition_tree.index_max_keys_per_shard'];
  const freeze = options['memtable.partition_tree.data_freeze_threshold'];
  const fork = options['memtable.partition_tree.fork_dictionary_bytes'];
  const segmentRows = options['index.inverted_index.segment_row_count'];
  const ignored = options['index.inverted_index.ignore_column_ids'];
  const ignoredIds = ignored === undefined || ignored.trim() === '' ? undefined : ignored.split(',').map((x) => Number(x.trim()));
  const invertedIndex =
    segmentRows === undefined && ignoredIds === undefined
      ? undefined
      : { ...(segmentRows !== undefined && { segment_row_count: Number(segmentRows) }), ...(ignoredIds !== undefined && { ignore_column_ids: ignoredIds }) };
  const named = options['memtable.type'];
  const type = named === 'bulk' ? undefined : (named as 'time_series' | 'partition_tree' | undefined);
  const memtable =
    type === undefined && shardKeys === undefined && freeze === undefined && fork === undefined
      ? undefined
      : {
          ...(type !== undefined && { type }),
          ...(shardKeys !== undefined && { index_max_keys_per_shard: Number(shardKeys) }),
          ...(freeze !== undefined && { data_freeze_threshold: Number(freeze) }),
          ...(fork !== undefined && { fork_dictionary_bytes: parseSize(fork) }),
        };
  return {
    append_mode: options['append_mode'] === 'true',
    merge_mode: (options['merge_mode'] as MergeMode | undefined) || 'last_row',
    ...(ttl !== undefined && { ttl }),
    ...(window !== undefined && { compaction_time_window: parseDuration(window) }),
    ...(memtable !== undefined && { memtable }),
    ...(trigger !== undefined && { compaction_trigger_file_num: Number(trigger) }),
    ...(options['storage'] !== undefined && { storage: options['storage'] }),
    ...(invertedIndex !== undefined && { inverted_index: invertedIndex }),
  };
}

/** The option that keeps a table's compaction options over its database's (set with `compaction.type`). */
export const COMPACTION_OVERRIDE = 'compaction.override';

/**
 * Whether a database option applies to its tables as it is now rather than as it was when they
 * were created (GreptimeDB's dynamic options: the TTL and the `compaction.*` options). A table does
 * not copy these: they reach its regions from the database, and again after ALTER DATABASE.
 */
export function isDynamicDatabaseOption(key: string): boolean {
  return key === 'ttl' || key.startsWith('compaction.');
}

/**
 * The options a table's regions work by: the table's own, its database's TTL when it has none, and
 * its database's compaction options unless the table overrides them (`compaction.type` or
 * `compaction.override`), which then replace the table's as GreptimeDB's compaction does.
 */
export function effectiveOptions(table: Readonly<Record<string, string>>, database: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = { ...table };
  if (database === undefined) return out;
  if (out['ttl'] === undefined && database['ttl'] !== undefined) out['ttl'] = database['ttl'];
  const overridden = table['compaction.type'] !== undefined || table[COMPACTION_OVERRIDE] === 'true';
  const fromDatabase = Object.entries(database).filter(([k]) => k.startsWith('compaction.'));
  if (!overridden && fromDatabase.length > 0) {
    for (const k of Object.keys(out)) if (k.startsWith('compaction.')) delete out[k];
    for (const [k, v] of fromDatabase) out[k] = v;
  }
  return out;
}
