/**
 * Spans of the engine's background work: `flush` (files written, rows, bytes) and `compaction`
 * (files removed and added, bytes before and after), each with its region id. The job functions
 * returned here run when the job queue gives them a slot, so a span's duration is the work itself,
 * not the wait; they are bound to the context they were made in, so that a flush asked by a
 * statement (ADMIN flush_table) hangs under it whatever job the queue ran before, and one started
 * in the background (write buffer full, a compaction after a flush) under what caused it.
 */
import { bindToActiveContext, withSpan } from '../common/tracing/tracing.js';
import { formatRegionId, tableIdOf, type RegionId } from '../types/region-id.js';
import type { FileMeta } from './sst/file-meta.js';

function bytesOf(files: readonly FileMeta[]): number {
  let n = 0;
  for (const f of files) n += f.file_size;
  return n;
}

export function flushJob(id: RegionId, flush: () => Promise<FileMeta[]>): () => Promise<FileMeta[]> {
  return bindToActiveContext(() => withSpan('flush', undefined, async (span) => {
    if (span === undefined) return flush();
    span.setAttributes({ 'tsdb.region.id': formatRegionId(id), 'tsdb.table.id': tableIdOf(id) });
    const files = await flush();
    let rows = 0;
    for (const f of files) rows += f.num_rows;
    span.setAttributes({ 'tsdb.files.added': files.length, 'tsdb.rows': rows, 'tsdb.bytes.written': bytesOf(files) });
    return files;
  }));
}

export function compactionJob(id: RegionId, files: () => readonly FileMeta[], compact: () => Promise<{ removed: number; added: number }>): () => Promise<{ removed: number; added: number }> {
  return bindToActiveContext(() => withSpan('compaction', undefined, async (span) => {
    if (span === undefined) return compact();
    span.setAttributes({ 'tsdb.region.id': formatRegionId(id), 'tsdb.table.id': tableIdOf(id), 'tsdb.files.before': files().length, 'tsdb.bytes.before': bytesOf(files()) });
    const result = await compact();
    span.setAttributes({ 'tsdb.files.removed': result.removed, 'tsdb.files.added': result.added, 'tsdb.bytes.after': bytesOf(files()) });
    return result;
  }));
}
