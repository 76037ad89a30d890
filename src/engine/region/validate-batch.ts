/**
 * Checks a write batch against a region's schema before anything is written: every bad input is
 * refused whole, with a message naming the column (reference api.md §2 messages where they exist).
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { OP_DELETE, OP_PUT, vectorLength, vectorTypeOf, type WriteBatch } from '../../types/write-batch.js';
import type { RegionMetadata } from '../../types/region-metadata.js';

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid request to region, reason: ${message}`);
}

export function validateBatch(metadata: RegionMetadata, batch: WriteBatch): void {
  if (batch.op !== OP_PUT && batch.op !== OP_DELETE) throw invalid(`unknown operation ${batch.op}`);
  if (batch.op === OP_DELETE && metadata.options.append_mode) throw invalid('DELETE is not allowed under append mode');
  if (!Number.isInteger(batch.rowCount) || batch.rowCount < 0) throw invalid(`bad row count ${batch.rowCount}`);
  const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
  for (const [id, v] of batch.columns) {
    const col = byId.get(id);
    if (col === undefined) throw invalid(`column id ${id} is not in the region`);
    const length = vectorLength(v);
    if (length !== batch.rowCount) throw invalid(`column ${col.name} has ${length} values for ${batch.rowCount} rows`);
    const want = vectorTypeOf(col.type);
    if (v.type !== want) throw invalid(`column ${col.name} of type ${col.type} needs ${want} values, got ${v.type}`);
    if (!col.nullable && batch.op === OP_PUT) {
      const hasNull = v.type === 'string' || v.type === 'binary' ? v.data.some((x) => x === null) : v.valid?.some((x) => x === 0);
      if (hasNull) throw invalid(`column ${col.name} is not nullable`);
    }
  }
  const ts = batch.columns.get(metadata.time_index);
  if (ts === undefined) throw invalid(`the time index column ${byId.get(metadata.time_index)?.name} is missing`);
  if (ts.type === 'int64' && ts.valid?.some((x) => x === 0)) throw invalid('the time index column cannot be NULL');
  for (const c of metadata.columns) {
    if (batch.columns.has(c.column_id) || batch.op === OP_DELETE) continue;
    if (!c.nullable && c.default === undefined) throw invalid(`column ${c.name} is not nullable and has no default, but the batch has no values for it`);
  }
  if (batch.op === OP_DELETE) {
    for (const id of metadata.primary_key) {
      if (!batch.columns.has(id)) throw invalid(`a delete needs every primary key column; ${byId.get(id)?.name} is missing`);
    }
  }
}
