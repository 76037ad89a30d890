/** What the manifest records of one SST file. JSON-serializable. */
export interface FileMeta {
  /** UUID; the file is `{region_dir}/{file_id}.parquet`. */
  readonly file_id: string;
  /** Smallest and largest time index value in the file, in the time index column's unit. */
  readonly time_range: readonly [number, number];
  /** 0: written by a flush; 1: written by a compaction. */
  readonly level: 0 | 1;
  readonly file_size: number;
  readonly num_rows: number;
  readonly num_row_groups: number;
  /** Largest sequence number of any row in the file. */
  readonly max_sequence: number;
  /**
   * The region columns the file holds (`c<id>`): columns added later read as their default from it.
   * Absent in files of older manifests: every current column is then taken to be there.
   */
  readonly column_ids?: readonly number[];
  /**
   * Bytes of the file's inverted index, `{region_dir}/{file_id}.invidx` (docs/format/inverted-index.md),
   * when one was written (absent: the file has none).
   */
  readonly index_file_size?: number;
}

/** The object path of an SST in region directory `dir` (ending with `/`). */
export function sstPath(dir: string, fileId: string): string {
  return `${dir}${fileId}.parquet`;
}

export const INDEX_SUFFIX = '.invidx';

/** The object path of an SST's inverted index in region directory `dir`. */
export function indexPath(dir: string, fileId: string): string {
  return `${dir}${fileId}${INDEX_SUFFIX}`;
}
