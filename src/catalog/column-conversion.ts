/**
 * Which column type changes `ALTER TABLE … MODIFY COLUMN` accepts: GreptimeDB's rule is Arrow's
 * `can_cast_types` (rows already written are cast when read, a value that does not convert reads as
 * NULL), here limited to the casts DuckDB makes too, since reads cast old files with `TRY_CAST`.
 */
import { decimalOf, type ColumnType } from '../types/region-metadata.js';

const INTEGERS = new Set<ColumnType>(['Int8', 'Int16', 'Int32', 'Int64', 'UInt8', 'UInt16', 'UInt32', 'UInt64']);

function isNumeric(t: ColumnType): boolean {
  return INTEGERS.has(t) || t === 'Float32' || t === 'Float64' || decimalOf(t) !== undefined;
}

function isTime(t: ColumnType): boolean {
  return t === 'Date' || t.startsWith('Timestamp');
}

/** Whether values of `from` can be read as `to` after a MODIFY COLUMN. */
export function canModifyColumnType(from: ColumnType, to: ColumnType): boolean {
  if (from === to) return true;
  // Any value has a text form but bytes (which need not be UTF-8); text may parse as anything.
  if (to === 'String') return from !== 'Binary';
  if (from === 'String') return true;
  if (isNumeric(from) && isNumeric(to)) return true;
  // Booleans and integers or floats, both ways (not decimals: Arrow has no such cast).
  if (from === 'Boolean') return INTEGERS.has(to) || to === 'Float32' || to === 'Float64';
  if (to === 'Boolean') return INTEGERS.has(from) || from === 'Float32' || from === 'Float64';
  // Dates and timestamps among themselves (Arrow's numeric ⇄ timestamp casts DuckDB does not make).
  return isTime(from) && isTime(to);
}
