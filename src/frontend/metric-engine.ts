/**
 * The metric engine (reference internals.md §5): many small "logical" tables stored in the one
 * region of a "physical" table, so that thousands of metrics (one table each, as Prometheus remote
 * write makes them) do not mean thousands of regions, WALs, memtables and flushes.
 *
 * - A physical table (`ENGINE=metric WITH ('physical_metric_table' = '')`) is a mito region with the
 *   columns it was created with plus `__table_id` (UInt32) and `__tsid` (UInt64) at the front of its
 *   primary key, and every tag of every logical table on it (added on demand, NULL elsewhere).
 * - A logical table (`ENGINE=metric WITH ('on_physical_table' = 'phy')`) has no region of its own:
 *   its rows are the physical rows with `__table_id` = its table id. Its time index and fields are
 *   the physical table's; its tags are a subset of the physical table's.
 * - `__tsid` is a 64-bit hash of a row's tag values (with their names), so the rows of one series
 *   sort together within a logical table.
 */
import { fullTableName, LOGICAL_TABLE_OPTION, METRIC_ENGINE, ownsNoRegions, type ColumnSchema, type TableInfo } from '../catalog/table-info.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { dictionaryOf, NULL_CODE, type StringDictionary } from '../types/string-dictionary.js';
import { OP_DELETE, type Vector, type WriteBatch } from '../types/write-batch.js';
import { quoteIdent } from '../common/sql-quote.js';

export { LOGICAL_TABLE_OPTION, METRIC_ENGINE };
export const PHYSICAL_TABLE_OPTION = 'physical_metric_table';
export const TABLE_ID_COLUMN = '__table_id';
export const TSID_COLUMN = '__tsid';
/** The physical table Prometheus remote write creates and uses (`tsdb_physical_table`). */
export const DEFAULT_PHYSICAL_TABLE = 'tsdb_physical_table';

export function isPhysicalTable(info: TableInfo): boolean {
  return info.engine === METRIC_ENGINE && info.options[PHYSICAL_TABLE_OPTION] !== undefined;
}

export function isLogicalTable(info: TableInfo): boolean {
  return ownsNoRegions(info);
}

/** Whether a column is one the metric engine adds to physical tables. */
export function isInternalColumn(name: string): boolean {
  return name === TABLE_ID_COLUMN || name === TSID_COLUMN;
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** A physical table as created: its own columns with `__table_id` and `__tsid` leading the primary key. */
export function physicalTableInfo(info: TableInfo): TableInfo {
  for (const c of info.columns) if (isInternalColumn(c.name)) throw invalid(`Column name ${c.name} is reserved by the metric engine`);
  const fields = info.columns.filter((c) => c.semantic_type === 'field');
  if (fields.length === 0) throw invalid(`Physical table ${info.name} needs a field column (the value)`);
  for (const c of info.columns) {
    if (c.semantic_type === 'tag' && c.data_type !== 'String') throw invalid(`Tag ${c.name} of a metric table must be a STRING, not ${c.data_type}`);
  }
  const next = info.next_column_id;
  const internal: ColumnSchema[] = [
    { column_id: next, name: TABLE_ID_COLUMN, data_type: 'UInt32', semantic_type: 'tag', nullable: false },
    { column_id: next + 1, name: TSID_COLUMN, data_type: 'UInt64', semantic_type: 'tag', nullable: false },
  ];
  // Time index and fields, the internal key, then the tags (GreptimeDB's column order).
  const own = info.columns.filter((c) => c.semantic_type !== 'tag');
  const tags = info.columns.filter((c) => c.semantic_type === 'tag');
  // Many small series of many tables in one region: the partition_tree memtable (key dictionary,
  // sorted parts) writes them faster and keeps them smaller, as GreptimeDB forces its bulk memtable here.
  const options = info.options['memtable.type'] === undefined ? { ...info.options, 'memtable.type': 'partition_tree' } : info.options;
  return {
    ...info,
    options,
    columns: [...own, ...internal, ...tags],
    primary_key: [TABLE_ID_COLUMN, TSID_COLUMN, ...info.primary_key],
    next_column_id: next + 2,
  };
}

/**
 * Checks a logical table against its physical table: the same time index, fields the physical
 * table has (same names and types), STRING tags. Returns the tags the physical table lacks.
 */
export function checkLogical(logical: TableInfo, physical: TableInfo): ColumnSchema[] {
  const byName = new Map(physical.columns.map((c) => [c.name, c]));
  const ts = physical.columns.find((c) => c.name === physical.time_index)!;
  const lts = logical.columns.find((c) => c.name === logical.time_index)!;
  if (lts.name !== ts.name || lts.data_type !== ts.data_type) {
    throw invalid(`The time index of logical table ${logical.name} must be ${ts.name} of type ${ts.data_type}, as in physical table ${physical.name}`);
  }
  const missing: ColumnSchema[] = [];
  for (const c of logical.columns) {
    if (isInternalColumn(c.name)) throw invalid(`Column name ${c.name} is reserved by the metric engine`);
    if (c.semantic_type === 'timestamp') continue;
    const have = byName.get(c.name);
    if (c.semantic_type === 'field') {
      if (have === undefined || have.semantic_type !== 'field') throw invalid(`Field ${c.name} of logical table ${logical.name} is not a field of physical table ${physical.name}`);
      if (have.data_type !== c.data_type) throw invalid(`Field ${c.name} of logical table ${logical.name} must be ${have.data_type}, as in physical table ${physical.name}`);
      continue;
    }
    if (c.data_type !== 'String') throw invalid(`Tag ${c.name} of a metric table must be a STRING, not ${c.data_type}`);
    if (have === undefined) missing.push(c);
    else if (have.semantic_type !== 'tag') throw invalid(`Column ${c.name} is a field of physical table ${physical.name}; logical table ${logical.name} cannot make it a tag`);
  }
  return missing;
}

/** The physical table with tags added (new column ids, at the end of the key). */
export function withTags(physical: TableInfo, tags: readonly ColumnSchema[]): TableInfo {
  if (tags.length === 0) return physical;
  let next = physical.next_column_id;
  const added = tags.map((c) => ({ column_id: next++, name: c.name, data_type: c.data_type, semantic_type: 'tag' as const, nullable: true }));
  return {
    ...physical,
    columns: [...physical.columns, ...added],
    primary_key: [...physical.primary_key, ...added.map((c) => c.name)],
    next_column_id: next,
    schema_version: physical.schema_version + 1,
  };
}

/**
 * Writes the 64-bit `__tsid` of row `row` into `out[2 * row]` (low word) and `out[2 * row + 1]`
 * (high word): FNV-1a over the tag names and values (NULL tags left out), as two 32-bit lanes with
 * different offsets, in integer arithmetic. Stored in files: it must never change, or rows written
 * before and after would not be the same series. The tags come as dictionaries (`columns[i]`
 * codes the values of tag `names[i]`), so a value is found without the column's per-row strings.
 */
function hashTags(names: readonly string[], columns: readonly StringDictionary[], row: number, out: Uint32Array): void {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < names.length; i++) {
    const dict = columns[i]!;
    const code = dict.codes[row]!;
    if (code === NULL_CODE) continue;
    const v = dict.values[code]!;
    const name = names[i]!;
    for (let k = 0; k < name.length; k++) {
      const c = name.charCodeAt(k);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193);
    }
    a = Math.imul(a ^ 0xff, 0x01000193);
    b = Math.imul(b ^ 0xfe, 0x01000193);
    for (let k = 0; k < v.length; k++) {
      const c = v.charCodeAt(k);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193);
    }
    a = Math.imul(a ^ 0xfe, 0x01000193);
    b = Math.imul(b ^ 0xff, 0x01000193);
  }
  out[2 * row] = a >>> 0;
  out[2 * row + 1] = b >>> 0;
}

/**
 * Per row, 1 where some tag's value differs from the row before (row 0 always): column by column,
 * comparing codes, so the rows of one series are found without looking at a string.
 */
function seriesStarts(columns: readonly StringDictionary[], n: number): Uint8Array {
  const starts = new Uint8Array(n);
  if (n > 0) starts[0] = 1;
  for (let i = 0; i < columns.length; i++) {
    const codes = columns[i]!.codes;
    for (let r = 1; r < n; r++) if (codes[r] !== codes[r - 1]) starts[r] = 1;
  }
  return starts;
}

/**
 * A logical table's write batch (keyed by its column ids) as the physical table's: columns mapped
 * by name, `__table_id` set, `__tsid` hashed from the tags, the physical table's other tags NULL.
 */
export function physicalBatch(logical: TableInfo, physical: TableInfo, batch: WriteBatch): WriteBatch {
  const physicalByName = new Map(physical.columns.map((c) => [c.name, c]));
  const columns = new Map<number, Vector>();
  const tagNames: string[] = [];
  const tagValues: StringDictionary[] = [];
  for (const c of logical.columns) {
    const v = batch.columns.get(c.column_id);
    if (v === undefined) continue;
    const target = physicalByName.get(c.name);
    if (target === undefined) throw new TsdbError(StatusCode.Unexpected, `column ${c.name} of ${fullTableName(logical)} is missing in physical table ${physical.name}`);
    columns.set(target.column_id, v);
    if (c.semantic_type === 'tag' && v.type === 'string') {
      tagNames.push(c.name);
      // Computed once and remembered with the vector: the WAL and the memtable use it too.
      tagValues.push(dictionaryOf(v)!);
    }
  }
  // Tags in name order, so the hash does not depend on the column order.
  const order = tagNames.map((_, i) => i).sort((a, b) => (tagNames[a]! < tagNames[b]! ? -1 : 1));
  const names = order.map((i) => tagNames[i]!);
  const values = order.map((i) => tagValues[i]!);
  const n = batch.rowCount;
  const tsid = new BigUint64Array(n);
  // Little-endian words of the u64s; rows of one series usually come together: hashed once.
  const words = new Uint32Array(tsid.buffer);
  const starts = seriesStarts(values, n);
  for (let r = 0; r < n; r++) {
    if (starts[r] === 0) {
      words[2 * r] = words[2 * r - 2]!;
      words[2 * r + 1] = words[2 * r - 1]!;
    } else hashTags(names, values, r, words);
  }
  columns.set(physicalByName.get(TABLE_ID_COLUMN)!.column_id, { type: 'float64', data: new Float64Array(n).fill(logical.table_id) });
  columns.set(physicalByName.get(TSID_COLUMN)!.column_id, { type: 'uint64', data: tsid });
  // A delete names every key column of the physical table: the logical table's other tags are NULL.
  if (batch.op === OP_DELETE) {
    for (const id of physical.primary_key) {
      const c = physicalByName.get(id)!;
      if (!columns.has(c.column_id)) columns.set(c.column_id, { type: 'string', data: new Array<string | null>(n).fill(null) });
    }
  }
  return { op: batch.op, rowCount: n, columns };
}

/** The rows of a logical table, as SQL over a scan of its physical table. */
export function logicalRelation(logical: TableInfo, physicalScan: string): string {
  const cols = logical.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `SELECT ${cols} FROM (${physicalScan}) WHERE ${quoteIdent(TABLE_ID_COLUMN)} = ${logical.table_id}`;
}
