/**
 * Fills DuckDB data chunks from memtable typed arrays in bulk.
 *
 * `vector_get_data` in @duckdb/node-bindings 1.5.6-r.1 returns a *copy* of the vector's memory:
 * writing into it changes nothing. Bulk writes go through `copy_data_to_vector` (a memcpy from an
 * ArrayBuffer range into the vector at a byte offset) and `copy_data_to_vector_validity`.
 *
 * The relation every candidate exposes: tag columns, `ts` (TIMESTAMP_MS), `seq` (DOUBLE, as the
 * memtable keeps it), `op` (UTINYINT), field columns (DOUBLE).
 */
import duckdb from '@duckdb/node-bindings';
import {
  DOUBLE,
  ENUM,
  TIMESTAMP_MS,
  UTINYINT,
  VARCHAR,
  DuckDBTypeId,
  type DuckDBEnumType,
  type DuckDBType,
} from '@duckdb/node-api';
import { compareKeys, sortDedupSeries, type Memtable, type MemtableSeries } from './memtable-fixture.js';

/** Rows in a DuckDB vector (STANDARD_VECTOR_SIZE). */
export const CHUNK_ROWS = duckdb.vector_size();

/**
 * How tag strings reach a VARCHAR vector:
 * - `assign`: `vector_assign_string_element` per row (one N-API call and one UTF-8 encode per row);
 * - `string-t`: the 16-byte `duckdb_string_t` of each series' value is built once; values of at
 *   most 12 bytes are inlined in it and copied in bulk, a longer value is assigned once per run of
 *   rows and its string_t (pointing into the vector's string heap) replicated over the run;
 * - `enum`: the column is an ENUM over the memtable's sorted distinct values; the dictionary index
 *   is bulk-copied.
 */
export type TagEncoding = 'assign' | 'string-t' | 'enum';

export interface RelationLayout {
  readonly names: readonly string[];
  readonly types: readonly DuckDBType[];
  readonly tagCount: number;
}

/** Rows `order[start..end)` (or `start..end` without `order`) of series `series`. */
export interface Piece {
  series: number;
  order: Int32Array | undefined;
  start: number;
  end: number;
}

/** Which series a scan visits, in which order, over which row ranges. */
export interface ScanPlan {
  /** Series indexes in visiting order. */
  readonly series: Int32Array;
  /** Sort by (ts, seq desc) and keep the newest row per ts, per series, when the cursor reaches it. */
  readonly dedup: boolean;
  /** Inclusive time range in milliseconds; rows outside are skipped (needs sorted series). */
  readonly tsFrom?: number;
  readonly tsTo?: number;
}

export function enumDictionary(mt: Memtable, tag: number): string[] {
  const values = new Set<string>();
  for (const s of mt.series) values.add(s.key[tag]!);
  // ENUM values compare and sort by dictionary index: sorted, so ORDER BY matches VARCHAR order.
  return [...values].sort();
}

export function relationLayout(mt: Memtable, tags: TagEncoding): RelationLayout {
  const tagTypes = mt.tagNames.map((_, t) => (tags === 'enum' ? ENUM(enumDictionary(mt, t)) : VARCHAR));
  return {
    names: [...mt.tagNames, 'ts', 'seq', 'op', ...mt.fieldNames],
    types: [...tagTypes, TIMESTAMP_MS, DOUBLE, UTINYINT, ...mt.fieldNames.map(() => DOUBLE)],
    tagCount: mt.tagNames.length,
  };
}

/** All series in memtable order, or in key order (what a flush writes). */
export function seriesOrder(mt: Memtable, byKey: boolean, onlyFirstTag?: string): Int32Array {
  let indexes = mt.series.map((_, i) => i);
  if (onlyFirstTag !== undefined) indexes = indexes.filter((i) => mt.series[i]!.key[0] === onlyFirstTag);
  if (byKey) indexes.sort((a, b) => compareKeys(mt.series[a]!.key, mt.series[b]!.key));
  return Int32Array.from(indexes);
}

function lowerBound(ts: BigInt64Array, n: number, ms: number): number {
  const words = new Int32Array(ts.buffer, ts.byteOffset, n * 2);
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[2 * mid + 1]! * 4294967296 + (words[2 * mid]! >>> 0) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Walks the plan's series and hands out pieces of at most `max` rows in total. */
export class SeriesCursor {
  private position = 0;
  private order: Int32Array | undefined;
  private row = 0;
  private end = -1;
  /** Rows handed out so far. */
  emitted = 0;

  constructor(
    private readonly mt: Memtable,
    private readonly plan: ScanPlan,
  ) {}

  /** Moves to the next series with rows left; false at the end. */
  private enterSeries(): boolean {
    while (this.position < this.plan.series.length) {
      const s = this.mt.series[this.plan.series[this.position]!]!;
      this.order = this.plan.dedup ? sortDedupSeries(s) : undefined;
      let start = 0;
      let end = this.order?.length ?? s.length;
      if (this.order === undefined && s.increasing) {
        if (this.plan.tsFrom !== undefined) start = lowerBound(s.ts, s.length, this.plan.tsFrom);
        if (this.plan.tsTo !== undefined) end = lowerBound(s.ts, s.length, this.plan.tsTo + 1);
      }
      if (start < end) {
        this.row = start;
        this.end = end;
        return true;
      }
      this.position++;
    }
    return false;
  }

  /** Fills `out` (reused) with pieces; returns their row count, 0 at the end. */
  next(max: number, out: Piece[]): number {
    out.length = 0;
    let count = 0;
    while (count < max) {
      if (this.row >= this.end) {
        if (this.end >= 0) this.position++;
        this.end = -1;
        if (!this.enterSeries()) break;
      }
      const take = Math.min(max - count, this.end - this.row);
      out.push({ series: this.plan.series[this.position]!, order: this.order, start: this.row, end: this.row + take });
      this.row += take;
      count += take;
    }
    this.emitted += count;
    return count;
  }
}

/** The 16-byte `duckdb_string_t` of a value of at most 12 UTF-8 bytes (zero-padded), else undefined. */
export function inlineStringT(value: string): Uint32Array | undefined {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > 12) return undefined;
  const out = new Uint8Array(16);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return new Uint32Array(out.buffer);
}

/** Per-series precomputed tag representations and typed-array views. */
interface SeriesViews {
  readonly tsWords: Uint32Array;
  /** Per tag: inlined string_t words, or undefined when the value is longer than 12 bytes. */
  readonly stringT: readonly (Uint32Array | undefined)[];
  readonly enumIndex: readonly number[];
}

export class ChunkWriter {
  private readonly views: SeriesViews[];
  private readonly enumWidth: number[];
  private readonly words = new Uint32Array(CHUNK_ROWS * 4);
  private readonly f64 = new Float64Array(CHUNK_ROWS);
  private readonly u8 = new Uint8Array(CHUNK_ROWS);
  private readonly u16 = new Uint16Array(CHUNK_ROWS);
  private readonly u32 = new Uint32Array(CHUNK_ROWS);
  private readonly validity = new Uint32Array(CHUNK_ROWS / 32);
  private readonly longRuns: number[] = [];

  constructor(
    private readonly mt: Memtable,
    private readonly layout: RelationLayout,
    private readonly tags: TagEncoding,
  ) {
    const enumIndexes = mt.tagNames.map((_, t) => {
      const type = layout.types[t]!;
      if (type.typeId !== DuckDBTypeId.ENUM) return undefined;
      const values = (type as DuckDBEnumType).values;
      return new Map(values.map((v, i) => [v, i]));
    });
    this.enumWidth = layout.types.slice(0, layout.tagCount).map((type) => {
      if (type.typeId !== DuckDBTypeId.ENUM) return 0;
      const internal = (type as DuckDBEnumType).internalTypeId;
      return internal === DuckDBTypeId.UTINYINT ? 1 : internal === DuckDBTypeId.USMALLINT ? 2 : 4;
    });
    this.views = mt.series.map((s) => ({
      tsWords: new Uint32Array(s.ts.buffer, s.ts.byteOffset, s.length * 2),
      stringT: tags === 'string-t' ? s.key.map(inlineStringT) : [],
      enumIndex: s.key.map((v, t) => enumIndexes[t]?.get(v) ?? 0),
    }));
  }

  /**
   * Writes `rows` rows described by `pieces` into the chunk's vectors; `columns[j]` is the relation
   * column of the chunk's j-th vector. Sets the chunk size first.
   */
  write(chunk: duckdb.DataChunk, columns: readonly number[], pieces: readonly Piece[], rows: number): void {
    duckdb.data_chunk_set_size(chunk, rows);
    const tagCount = this.layout.tagCount;
    for (let j = 0; j < columns.length; j++) {
      const column = columns[j]!;
      const vector = duckdb.data_chunk_get_vector(chunk, j);
      if (column < tagCount) this.writeTag(vector, column, pieces, rows);
      else if (column === tagCount) this.writeTs(vector, pieces);
      else if (column === tagCount + 1) this.writeF64(vector, pieces, (s) => s.seq);
      else if (column === tagCount + 2) this.writeOp(vector, pieces);
      else this.writeField(vector, column - tagCount - 3, pieces, rows);
    }
  }

  private writeTs(vector: duckdb.Vector, pieces: readonly Piece[]): void {
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const s = this.mt.series[p.series]!;
      if (p.order === undefined) {
        duckdb.copy_data_to_vector(vector, at * 8, s.ts.buffer, s.ts.byteOffset + p.start * 8, n * 8);
      } else {
        // Gathered as two uint32 words per value: reading a BigInt64Array element makes a BigInt.
        const src = this.views[p.series]!.tsWords;
        const dst = this.words;
        for (let i = 0; i < n; i++) {
          const r = p.order[p.start + i]! * 2;
          dst[2 * (at + i)] = src[r]!;
          dst[2 * (at + i) + 1] = src[r + 1]!;
        }
        duckdb.copy_data_to_vector(vector, at * 8, dst.buffer, at * 8, n * 8);
      }
      at += n;
    }
  }

  private writeF64(vector: duckdb.Vector, pieces: readonly Piece[], pick: (s: MemtableSeries) => Float64Array<ArrayBuffer>): void {
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const src = pick(this.mt.series[p.series]!);
      if (p.order === undefined) {
        duckdb.copy_data_to_vector(vector, at * 8, src.buffer, src.byteOffset + p.start * 8, n * 8);
      } else {
        const dst = this.f64;
        for (let i = 0; i < n; i++) dst[at + i] = src[p.order[p.start + i]!]!;
        duckdb.copy_data_to_vector(vector, at * 8, dst.buffer, at * 8, n * 8);
      }
      at += n;
    }
  }

  private writeOp(vector: duckdb.Vector, pieces: readonly Piece[]): void {
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const src = this.mt.series[p.series]!.op;
      if (p.order === undefined) {
        duckdb.copy_data_to_vector(vector, at, src.buffer, src.byteOffset + p.start, n);
      } else {
        const dst = this.u8;
        for (let i = 0; i < n; i++) dst[at + i] = src[p.order[p.start + i]!]!;
        duckdb.copy_data_to_vector(vector, at, dst.buffer, at, n);
      }
      at += n;
    }
  }

  private writeField(vector: duckdb.Vector, field: number, pieces: readonly Piece[], rows: number): void {
    this.writeF64(vector, pieces, (s) => s.fields[field]!.data);
    // The byte-per-row validity becomes DuckDB's bit mask (uint64 words, least significant bit
    // first, 1 = valid), built as uint32 words so that no BigInt is involved.
    let hasNull = false;
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const valid = this.mt.series[p.series]!.fields[field]!.valid;
      if (valid !== undefined) {
        for (let i = 0; i < n; i++) {
          const row = p.order === undefined ? p.start + i : p.order[p.start + i]!;
          if (valid[row] === 0) {
            if (!hasNull) {
              this.validity.fill(0xffffffff);
              hasNull = true;
            }
            const bit = at + i;
            this.validity[bit >>> 5]! &= ~(1 << (bit & 31));
          }
        }
      }
      at += n;
    }
    if (hasNull) {
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, this.validity.buffer, 0, Math.ceil(rows / 64) * 8);
    }
  }

  private writeTag(vector: duckdb.Vector, tag: number, pieces: readonly Piece[], rows: number): void {
    if (this.tags === 'assign') {
      let at = 0;
      for (const p of pieces) {
        const value = this.mt.series[p.series]!.key[tag]!;
        for (let i = p.start; i < p.end; i++) duckdb.vector_assign_string_element(vector, at++, value);
      }
    } else if (this.tags === 'enum') {
      this.writeEnum(vector, tag, pieces);
    } else {
      this.writeStringT(vector, tag, pieces, rows);
    }
  }

  private writeEnum(vector: duckdb.Vector, tag: number, pieces: readonly Piece[]): void {
    const width = this.enumWidth[tag]!;
    const dst = width === 1 ? this.u8 : width === 2 ? this.u16 : this.u32;
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      dst.fill(this.views[p.series]!.enumIndex[tag]!, at, at + n);
      at += n;
    }
    duckdb.copy_data_to_vector(vector, 0, dst.buffer, 0, at * width);
  }

  private writeStringT(vector: duckdb.Vector, tag: number, pieces: readonly Piece[], rows: number): void {
    const dst = this.words;
    const longRuns = this.longRuns;
    longRuns.length = 0;
    let at = 0;
    for (const p of pieces) {
      const n = p.end - p.start;
      const inline = this.views[p.series]!.stringT[tag];
      if (inline === undefined) {
        duckdb.vector_assign_string_element(vector, at, this.mt.series[p.series]!.key[tag]!);
        longRuns.push(at, n);
      } else {
        const w0 = inline[0]!;
        const w1 = inline[1]!;
        const w2 = inline[2]!;
        const w3 = inline[3]!;
        for (let i = at * 4, e = (at + n) * 4; i < e; i += 4) {
          dst[i] = w0;
          dst[i + 1] = w1;
          dst[i + 2] = w2;
          dst[i + 3] = w3;
        }
      }
      at += n;
    }
    if (longRuns.length > 0) {
      // The assigned heads hold pointers into this vector's string heap: copy them over their runs.
      const heads = duckdb.vector_get_data(vector, rows * 16);
      const headWords = new Uint32Array(heads.buffer, heads.byteOffset, rows * 4);
      for (let k = 0; k < longRuns.length; k += 2) {
        const start = longRuns[k]!;
        const n = longRuns[k + 1]!;
        const h = start * 4;
        for (let i = h, e = (start + n) * 4; i < e; i += 4) {
          dst[i] = headWords[h]!;
          dst[i + 1] = headWords[h + 1]!;
          dst[i + 2] = headWords[h + 2]!;
          dst[i + 3] = headWords[h + 3]!;
        }
      }
    }
    duckdb.copy_data_to_vector(vector, 0, dst.buffer, 0, rows * 16);
  }
}
