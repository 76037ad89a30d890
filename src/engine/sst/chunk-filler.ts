/**
 * Fills DuckDB data chunks from memtable series runs, by column: numeric columns are converted to
 * the column's physical width in a scratch typed array and copied into the vector in one call
 * (`copy_data_to_vector`; `vector_get_data` only returns a copy); strings are assigned per value,
 * except tag values of at most 12 UTF-8 bytes (host names, regions…): a run holds one key, so such
 * a value is encoded once per run and written as DuckDB's inlined `duckdb_string_t` (length, then
 * the bytes, zero-padded: 16 bytes, duckdb.h) into a scratch buffer copied in one call, instead of
 * one native call per row. NULLs go in as one validity bitmask per column.
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBDataChunk } from '@duckdb/node-api';
import type { Vector } from '../../types/write-batch.js';
import type { SeriesRun } from '../memtable/memtable.js';
import { decimalOf, storedTypeOf, type ColumnType, type RegionMetadata } from '../../types/region-metadata.js';
import { sstColumns, type SstColumn } from './sst-format.js';

export const CHUNK_ROWS = duckdb.vector_size();

/** Rows `[start, end)` of one run. */
export interface Piece {
  readonly run: SeriesRun;
  readonly start: number;
  readonly end: number;
}

type Physical = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** Whether a column type fills its chunk vectors with strings or bytes (DECIMAL: canonical text, `chunkTypeOf`; a vector: its bytes). */
function isText(type: ColumnType | undefined): boolean {
  return type === 'String' || type === 'Json' || (type !== undefined && (storedTypeOf(type) === 'Binary' || decimalOf(type) !== undefined));
}

function scratchFor(type: ColumnType): Physical {
  if (isText(type)) return new Uint8Array(0);
  switch (storedTypeOf(type)) {
    case 'Boolean':
    case 'UInt8':
      return new Uint8Array(CHUNK_ROWS);
    case 'Int8':
      return new Int8Array(CHUNK_ROWS);
    case 'Int16':
      return new Int16Array(CHUNK_ROWS);
    case 'Int32':
    case 'Date':
      return new Int32Array(CHUNK_ROWS);
    case 'UInt16':
      return new Uint16Array(CHUNK_ROWS);
    case 'UInt32':
      return new Uint32Array(CHUNK_ROWS);
    case 'Float32':
      return new Float32Array(CHUNK_ROWS);
    case 'Float64':
      return new Float64Array(CHUNK_ROWS);
    case 'UInt64':
      return new BigUint64Array(CHUNK_ROWS);
    case 'String':
    case 'Json':
    case 'Binary':
      return new Uint8Array(0);
    default:
      return new BigInt64Array(CHUNK_ROWS); // Int64 and timestamps
  }
}

/** Bytes of a `duckdb_string_t`, and the longest string stored inline in it (duckdb.h). */
const STRING_T_BYTES = 16;
const STRING_INLINE_BYTES = 12;
const utf8 = new TextEncoder();

/** Where a chunk column's values come from in a run. */
type Source = { kind: 'tag'; index: number } | { kind: 'field'; index: number } | { kind: 'ts' } | { kind: 'seq' } | { kind: 'op' };

export class ChunkFiller {
  readonly columns: readonly SstColumn[];
  private readonly sources: readonly Source[];
  private readonly scratch: readonly Physical[];
  /** 64-bit scratch columns as 32-bit words, made on first use. */
  private readonly scratchWords: Array<Int32Array | undefined> = [];
  private readonly validity = new Uint32Array(CHUNK_ROWS / 32);
  /** Inlined `duckdb_string_t`s of a chunk's tag column, and one value being encoded. */
  private inlined: Int32Array | undefined;
  private readonly allColumns: readonly number[];

  /** `fields`: the field columns of the runs, in run order (the memtable's `fields`). */
  constructor(metadata: RegionMetadata, fields: readonly { column_id: number }[]) {
    this.columns = sstColumns(metadata);
    this.allColumns = this.columns.map((_, i) => i);
    const fieldIndex = new Map(fields.map((f, i) => [f.column_id, i]));
    this.sources = this.columns.map((c): Source => {
      if (c.column === undefined) return c.name === '__sequence' ? { kind: 'seq' } : { kind: 'op' };
      if (c.column.column_id === metadata.time_index) return { kind: 'ts' };
      const tag = metadata.primary_key.indexOf(c.column.column_id);
      if (tag >= 0) return { kind: 'tag', index: tag };
      const f = fieldIndex.get(c.column.column_id);
      if (f === undefined) throw new Error(`field ${c.column.name} is not in the memtable`);
      return { kind: 'field', index: f };
    });
    this.scratch = this.columns.map((c) => (c.column ? scratchFor(c.column.type) : c.name === '__sequence' ? new BigUint64Array(CHUNK_ROWS) : new Uint8Array(CHUNK_ROWS)));
  }

  newChunk(): DuckDBDataChunk {
    return DuckDBDataChunk.create(this.columns.map((c) => c.duckdbType));
  }

  /** Fills `chunk` (reset first) with the pieces, at most CHUNK_ROWS rows in all. */
  fill(chunk: DuckDBDataChunk, pieces: readonly Piece[]): number {
    chunk.reset();
    return this.fillColumns(chunk, this.allColumns, pieces);
  }


  /**
   * Fills vector k of `chunk` with column `columnIndexes[k]` (a projection, as a table function's
   * output chunk asks for), for the pieces; sets the chunk's row count.
   */
  fillColumns(chunk: DuckDBDataChunk, columnIndexes: readonly number[], pieces: readonly Piece[]): number {
    const rows = pieces.reduce((n, p) => n + (p.end - p.start), 0);
    if (rows > CHUNK_ROWS) throw new RangeError(`${rows} rows do not fit a chunk of ${CHUNK_ROWS}`);
    for (let k = 0; k < columnIndexes.length; k++) {
      const c = columnIndexes[k]!;
      const vector = duckdb.data_chunk_get_vector(chunk.chunk, k);
      const col = this.columns[c]!;
      const source = this.sources[c]!;
      const type = col.column?.type;
      let hasNull = false;
      this.validity.fill(0xffff_ffff);
      const setNull = (row: number) => {
        hasNull = true;
        this.validity[row >>> 5]! &= ~(1 << (row & 31));
      };
      if (type !== 'Binary' && isText(type) && source.kind === 'tag') {
        this.fillTagStrings(vector, source.index, pieces, rows, setNull);
      } else if (isText(type)) {
        let at = 0;
        for (const p of pieces) {
          if (source.kind === 'tag') {
            const v = p.run.key[source.index];
            for (let i = p.start; i < p.end; i++, at++) {
              if (v === null || v === undefined) setNull(at);
              else duckdb.vector_assign_string_element(vector, at, String(v));
            }
          } else {
            const vec = p.run.fields[(source as { index: number }).index]!;
            for (let i = p.start; i < p.end; i++, at++) {
              const v = vec.data[i];
              if (v === null || v === undefined) setNull(at);
              else if (typeof v === 'string') duckdb.vector_assign_string_element(vector, at, v);
              else duckdb.vector_assign_string_element_len(vector, at, v as Uint8Array);
            }
          }
        }
      } else {
        const dst = this.scratch[c]!;
        let at = 0;
        for (const p of pieces) {
          const n = p.end - p.start;
          switch (source.kind) {
            case 'ts': {
              const words = p.run.tsWords;
              if (n < SHORT_PIECE && words !== undefined) {
                // Word by word: no view and no BigInt made per piece (a piece is often a few rows).
                const d = this.words(c, dst);
                for (let i = 2 * p.start, j = 2 * at, end = 2 * p.end; i < end; i++, j++) d[j] = words[i]!;
              } else (dst as BigInt64Array).set(p.run.ts.subarray(p.start, p.end), at);
              break;
            }
            case 'op':
              copyRange(p.run.op, p.start, n, dst, at);
              break;
            case 'seq': {
              // Sequences are integers below 2^53: written as two 32-bit words, no BigInt per row.
              const d = this.words(c, dst);
              for (let i = 0; i < n; i++) {
                const v = p.run.seq[p.start + i]!;
                d[2 * (at + i)] = v % 0x1_0000_0000 | 0;
                d[2 * (at + i) + 1] = Math.floor(v / 0x1_0000_0000);
              }
              break;
            }
            case 'tag': {
              const v = p.run.key[source.index];
              for (let i = 0; i < n; i++) {
                if (v === null || v === undefined) setNull(at + i);
                else writeValue(dst, at + i, v as number | bigint | boolean);
              }
              break;
            }
            case 'field':
              copyField(p.run.fields[source.index]!, p.start, n, dst, at, setNull);
              break;
          }
          at += n;
        }
        duckdb.copy_data_to_vector(vector, 0, dst.buffer as ArrayBuffer, dst.byteOffset, rows * dst.BYTES_PER_ELEMENT);
      }
      if (hasNull) {
        // The validity mask is allocated lazily: without this the copy would write through a null pointer.
        duckdb.vector_ensure_validity_writable(vector);
        duckdb.copy_data_to_vector_validity(vector, 0, this.validity.buffer, 0, Math.ceil(rows / 64) * 8);
      }
    }
    chunk.rowCount = rows;
    return rows;
  }
  private words(c: number, dst: Physical): Int32Array {
    return (this.scratchWords[c] ??= new Int32Array(dst.buffer, dst.byteOffset, dst.length * 2));
  }

  /**
   * A string tag column: each piece's one value, inlined into the scratch entries when it fits
   * (one copy for the chunk), else assigned row by row after the copy. Each value's entry is
   * encoded once and remembered (`inlinedEntry`): with one row per series, encoding it per piece
   * was most of a scan's tag cost.
   */
  private fillTagStrings(vector: duckdb.Vector, keyIndex: number, pieces: readonly Piece[], rows: number, setNull: (row: number) => void): void {
    const buf = (this.inlined ??= new Int32Array(CHUNK_ROWS * STRING_T_WORDS));
    const long: { at: number; n: number; value: string }[] = [];
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const v = p.run.key[keyIndex];
      if (v === null || v === undefined) {
        for (let i = 0; i < n; i++) setNull(at + i);
        buf.fill(0, at * STRING_T_WORDS, (at + n) * STRING_T_WORDS);
      } else {
        const value = typeof v === 'string' ? v : String(v);
        const e = inlinedEntry(value);
        if (e < 0) {
          long.push({ at, n, value });
          buf.fill(0, at * STRING_T_WORDS, (at + n) * STRING_T_WORDS);
        } else {
          const w0 = inlinedWords[e]!;
          const w1 = inlinedWords[e + 1]!;
          const w2 = inlinedWords[e + 2]!;
          const w3 = inlinedWords[e + 3]!;
          for (let i = 0, j = at * STRING_T_WORDS; i < n; i++, j += STRING_T_WORDS) {
            buf[j] = w0;
            buf[j + 1] = w1;
            buf[j + 2] = w2;
            buf[j + 3] = w3;
          }
        }
      }
      at += n;
    }
    duckdb.copy_data_to_vector(vector, 0, buf.buffer as ArrayBuffer, 0, rows * STRING_T_BYTES);
    for (const l of long) for (let i = 0; i < l.n; i++) duckdb.vector_assign_string_element(vector, l.at + i, l.value);
  }
}

const STRING_T_WORDS = STRING_T_BYTES / 4;
/** Values remembered by `inlinedEntry` before it starts again (about 16 MB of entries and keys). */
const INLINED_MAX = 1 << 18;
/** Encoded entries, STRING_T_WORDS 32-bit words each, by value: word offset, or -1 (too long). */
const inlinedAt = new Map<string, number>();
let inlinedWords = new Int32Array(1024 * STRING_T_WORDS);
let inlinedUsed = 0;
const encodeRoom = new Uint8Array(STRING_T_BYTES);
const encodeWords = new Int32Array(encodeRoom.buffer);

/**
 * The word offset in `inlinedWords` of `value` as an inlined `duckdb_string_t` (length, then the
 * UTF-8 bytes zero-padded), or -1 when it is longer than 12 bytes.
 */
export function inlinedEntry(value: string): number {
  const known = inlinedAt.get(value);
  if (known !== undefined) return known;
  if (inlinedAt.size >= INLINED_MAX) {
    inlinedAt.clear();
    inlinedUsed = 0;
  }
  encodeRoom.fill(0);
  // encodeInto stops at the 12 bytes of room: the value fits when all of it was read.
  const r = value.length <= STRING_INLINE_BYTES ? utf8.encodeInto(value, encodeRoom.subarray(4, STRING_T_BYTES)) : undefined;
  if (r === undefined || r.read !== value.length) {
    inlinedAt.set(value, -1);
    return -1;
  }
  encodeWords[0] = r.written; // native byte order, as DuckDB reads it
  if (inlinedUsed + STRING_T_WORDS > inlinedWords.length) {
    const grown = new Int32Array(inlinedWords.length * 2);
    grown.set(inlinedWords);
    inlinedWords = grown;
  }
  const at = inlinedUsed;
  inlinedWords.set(encodeWords, at);
  inlinedUsed += STRING_T_WORDS;
  inlinedAt.set(value, at);
  return at;
}

/** `inlinedEntry`'s entry of `value` as bytes (tests), or undefined when too long. */
export function inlinedBytes(value: string): Uint8Array | undefined {
  const at = inlinedEntry(value);
  return at < 0 ? undefined : new Uint8Array(inlinedWords.buffer.slice(at * 4, (at + STRING_T_WORDS) * 4));
}

function writeValue(dst: Physical, i: number, v: number | bigint | boolean): void {
  if (dst instanceof BigInt64Array || dst instanceof BigUint64Array) dst[i] = typeof v === 'bigint' ? v : BigInt(Number(v));
  else dst[i] = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
}

function copyField(v: Vector, start: number, n: number, dst: Physical, at: number, setNull: (row: number) => void): void {
  if (v.type === 'string' || v.type === 'binary') throw new TypeError(`a ${v.type} vector for a numeric column`);
  const valid = v.valid;
  if (valid !== undefined) for (let i = 0; i < n; i++) if (valid[start + i] === 0) setNull(at + i);
  const src = v.data;
  if (src.constructor === dst.constructor) return copyRange(src as Physical, start, n, dst, at);
  for (let i = 0; i < n; i++) writeValue(dst, at + i, src[start + i]!);
}

/** Pieces shorter than this are copied value by value (a view per piece costs more). */
const SHORT_PIECE = 64;

/** `n` values of `src` from `start` into `dst` at `at` (arrays of the same kind). */
function copyRange(src: Physical, start: number, n: number, dst: Physical, at: number): void {
  if (n >= SHORT_PIECE || src instanceof BigInt64Array || src instanceof BigUint64Array) {
    (dst as Float64Array).set((src as Float64Array).subarray(start, start + n), at);
    return;
  }
  const d = dst as Float64Array;
  const sv = src as Float64Array;
  for (let i = 0; i < n; i++) d[at + i] = sv[start + i]!;
}
