/**
 * The CSV and JSON options of COPY as GreptimeDB reads them (`common/datasource` file formats):
 * `compression_type` (GZIP/GZ and ZSTD/ZST here; BZIP2 and XZ, which GreptimeDB also has, are
 * refused by name: DuckDB and Node write neither), `delimiter` (GreptimeDB's byte code, `'9'` is a
 * tab; a single character is also taken), `timestamp_format` and `date_format` (chrono's strftime
 * patterns, turned into DuckDB's). Parquet takes none of them.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

export interface FormatOptions {
  readonly compression?: 'gzip' | 'zstd';
  /** The CSV field separator (one character). */
  readonly delimiter: string;
  /** DuckDB strftime patterns. */
  readonly timestampFormat?: string;
  readonly dateFormat?: string;
}

export const PLAIN_FORMAT: FormatOptions = { delimiter: ',' };

/** The file name suffix of a compression (`.gz`, `.zst`), empty for none. */
export function compressionSuffix(o: FormatOptions): string {
  return o.compression === 'gzip' ? '.gz' : o.compression === 'zstd' ? '.zst' : '';
}

function parseFormatError(key: string, value: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Failed to parse format ${key} with value: ${value}`);
}

/** chrono's strftime pattern as DuckDB's: its fractions `%.3f`/`%3f` (ms), `%.6f`/`%6f` (µs), `%.9f`/`%9f` (ns). */
export function duckdbPattern(chrono: string): string {
  return chrono
    .replaceAll('%.3f', '.%g')
    .replaceAll('%.6f', '.%f')
    .replaceAll('%.9f', '.%n')
    .replaceAll('%3f', '%g')
    .replaceAll('%6f', '%f')
    .replaceAll('%9f', '%n');
}

/** The format options of a COPY statement (`options` keys lower-cased). */
export function formatOptionsOf(options: Readonly<Record<string, string>>): FormatOptions {
  let compression: FormatOptions['compression'];
  const c = options['compression_type'];
  if (c !== undefined) {
    const up = c.trim().toUpperCase();
    if (up === 'GZIP' || up === 'GZ') compression = 'gzip';
    else if (up === 'ZSTD' || up === 'ZST') compression = 'zstd';
    else if (up === 'BZIP2' || up === 'BZ2' || up === 'XZ') throw new TsdbError(StatusCode.Unsupported, `Unsupported compression type: ${up} (tsdb writes and reads GZIP and ZSTD)`);
    else if (up !== '') throw new TsdbError(StatusCode.InvalidArguments, `Unsupported compression type: ${up}`);
  }
  let delimiter = ',';
  const d = options['delimiter'];
  if (d !== undefined) {
    if (/^\d{1,3}$/.test(d) && Number(d) <= 255) delimiter = String.fromCharCode(Number(d));
    else if ([...d].length === 1) delimiter = d;
    else throw parseFormatError('delimiter', d);
    if (delimiter === '\n' || delimiter === '\r' || delimiter === '"') throw parseFormatError('delimiter', d);
  }
  const ts = options['timestamp_format'];
  const date = options['date_format'];
  return {
    delimiter,
    ...(compression !== undefined && { compression }),
    ...(ts !== undefined && ts !== '' && { timestampFormat: duckdbPattern(ts) }),
    ...(date !== undefined && date !== '' && { dateFormat: duckdbPattern(date) }),
  };
}
