/**
 * Checks a region's metadata for consistency before a region is created with it or altered to it:
 * a region request (over gRPC, from a frontend) may carry metadata the engine cannot read by — no
 * columns, a time index that names no timestamp column, a primary key of fields — which, once in
 * the manifest, would fail every later query as an internal error. Such metadata is the request's
 * mistake: InvalidArguments, and nothing is written.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { TIMESTAMP_TYPES, type RegionMetadata } from '../../types/region-metadata.js';

function invalid(region: string, message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid metadata for region ${region}: ${message}`);
}

const TIME_TYPES: ReadonlySet<string> = new Set(TIMESTAMP_TYPES);

/** Throws InvalidArguments when `metadata` is not one a region can hold. */
export function validateMetadata(metadata: RegionMetadata): void {
  const region = metadata.region_id;
  if (metadata.columns.length === 0) throw invalid(region, 'it has no columns');
  const ids = new Set<number>();
  const names = new Set<string>();
  for (const c of metadata.columns) {
    if (ids.has(c.column_id)) throw invalid(region, `column id ${c.column_id} is used twice`);
    if (names.has(c.name)) throw invalid(region, `column name ${JSON.stringify(c.name)} is used twice`);
    ids.add(c.column_id);
    names.add(c.name);
  }
  const timeIndex = metadata.columns.find((c) => c.column_id === metadata.time_index);
  if (timeIndex === undefined) throw invalid(region, `its time index ${metadata.time_index} is not one of its columns`);
  if (timeIndex.semantic_type !== 'timestamp' || !TIME_TYPES.has(timeIndex.type)) {
    throw invalid(region, `its time index ${timeIndex.name} is a ${timeIndex.semantic_type} of type ${timeIndex.type}, not a timestamp`);
  }
  const others = metadata.columns.filter((c) => c.semantic_type === 'timestamp' && c !== timeIndex);
  if (others.length > 0) throw invalid(region, `column ${others[0]!.name} is a timestamp beside the time index ${timeIndex.name}`);
  const key = new Set<number>();
  for (const id of metadata.primary_key) {
    const c = metadata.columns.find((col) => col.column_id === id);
    if (c === undefined) throw invalid(region, `primary key column ${id} is not one of its columns`);
    if (c.semantic_type !== 'tag') throw invalid(region, `primary key column ${c.name} is a ${c.semantic_type}, not a tag`);
    if (key.has(id)) throw invalid(region, `primary key column ${c.name} is named twice`);
    key.add(id);
  }
  const loose = metadata.columns.find((c) => c.semantic_type === 'tag' && !key.has(c.column_id));
  if (loose !== undefined) throw invalid(region, `tag ${loose.name} is not in the primary key`);
}

/**
 * Throws InvalidArguments when altering a region from `from` to `to` would change what its rows
 * already written mean: the time index, the role of a column it keeps, or the type of a tag (a
 * field may change type: reads cast the rows written before, ALTER TABLE MODIFY COLUMN).
 */
export function validateAlter(from: RegionMetadata, to: RegionMetadata): void {
  validateMetadata(to);
  const region = to.region_id;
  const before = from.columns.find((c) => c.column_id === from.time_index)!;
  const after = to.columns.find((c) => c.column_id === to.time_index)!;
  if (after.column_id !== before.column_id || after.type !== before.type) throw invalid(region, `an alter cannot change the time index (${before.name} ${before.type})`);
  for (const c of to.columns) {
    const old = from.columns.find((o) => o.column_id === c.column_id);
    if (old !== undefined && (old.semantic_type !== c.semantic_type || (old.semantic_type !== 'field' && old.type !== c.type))) {
      throw invalid(region, `an alter cannot change column ${old.name} from a ${old.semantic_type} of type ${old.type} to a ${c.semantic_type} of type ${c.type}`);
    }
  }
}
