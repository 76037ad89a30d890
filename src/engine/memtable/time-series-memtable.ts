/**
 * The `time_series` memtable (GreptimeDB mito's default): rows grouped by series (primary key),
 * each series a set of columnar buffers in arrival order. Sorting by (time, sequence desc) and
 * deduplication by the merge mode happen when rows are read out (flush, scan), per series.
 */
import { OP_DELETE, vectorTypeOf, type OpType, type Vector, type WriteBatch } from '../batch/write-batch.js';
import type { ColumnMetadata, MergeMode, RegionMetadata } from '../region/metadata.js';
import { fieldBuilder, type FieldBuilder } from './field-builder.js';
import { growableF64, growableI64, growableU8, type Growable } from './growable.js';

/** A primary key value: strings, numbers, 64-bit integers, booleans, or NULL. */
export type PkValue = string | number | bigint | boolean | null;

/** One series' rows, sorted by time then sequence (newest first among equal times). */
export interface SeriesRun {
  /** Primary key values, in key order. */
  readonly key: readonly PkValue[];
  readonly ts: BigInt64Array;
  readonly seq: Float64Array;
  readonly op: Uint8Array;
  /** One vector per field, in the order of `TimeSeriesMemtable.fields`. */
  readonly fields: readonly Vector[];
}

/** How rows with the same key and time are read out: all of them, or merged. */
export type ReadMode = 'append' | MergeMode;

interface Series {
  readonly key: readonly PkValue[];
  readonly ts: Growable<BigInt64Array>;
  /** `ts` as 32-bit words (low, high): copied and compared without making BigInts. */
  tsWords: Int32Array;
  readonly seq: Growable<Float64Array>;
  readonly op: Growable<Uint8Array>;
  readonly fields: FieldBuilder[];
  /** Times strictly increase in arrival order: no sort or dedup needed. */
  increasing: boolean;
}

const SERIES_OVERHEAD = 256;

function pkValue(v: Vector | undefined, row: number, col: ColumnMetadata): PkValue {
  if (v === undefined) return col.default === undefined ? null : (col.default as PkValue);
  switch (v.type) {
    case 'string':
      return v.data[row] ?? null;
    case 'binary':
      throw new TypeError(`binary column ${col.name} cannot be part of the primary key`);
    case 'bool':
      return v.valid?.[row] === 0 ? null : v.data[row] === 1;
    default:
      return v.valid?.[row] === 0 ? null : v.data[row]!;
  }
}

/** Compares two int64 values given as (high signed, low unsigned) 32-bit words. */
function compareWords(hiA: number, loA: number, hiB: number, loB: number): number {
  if (hiA !== hiB) return hiA < hiB ? -1 : 1;
  const a = loA >>> 0;
  const b = loB >>> 0;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** One primary key value's part of a series key: a type letter, the value (NULs escaped), a NUL. */
function keyPart(v: PkValue): string {
  if (v === null) return '\u0001\u0000';
  const text = typeof v === 'string' ? v : String(v);
  return (typeof v)[0]! + (text.includes('\u0000') ? text.replaceAll('\u0000', '\u0000\u0002') : text) + '\u0000';
}

/** Orders primary keys: NULL first, then by value. */
export function comparePk(a: readonly PkValue[], b: readonly PkValue[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

export interface MemtableStats {
  readonly rows: number;
  readonly series: number;
  readonly bytes: number;
  readonly minTs: bigint | undefined;
  readonly maxTs: bigint | undefined;
  readonly minSequence: number | undefined;
  readonly maxSequence: number | undefined;
}

export class TimeSeriesMemtable {
  /** Field columns (neither tag nor time index), in column order. */
  readonly fields: readonly ColumnMetadata[];
  private readonly tags: readonly ColumnMetadata[];
  private readonly timeIndex: ColumnMetadata;
  private readonly series = new Map<string, Series>();
  private frozen = false;
  private rows = 0;
  private approxBytes = 0;
  private minTs: bigint | undefined;
  private maxTs: bigint | undefined;
  private minSeq: number | undefined;
  private maxSeq: number | undefined;

  constructor(readonly metadata: RegionMetadata) {
    const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
    this.tags = metadata.primary_key.map((id) => byId.get(id)!);
    this.timeIndex = byId.get(metadata.time_index)!;
    this.fields = metadata.columns.filter((c) => c.semantic_type === 'field');
  }

  /** Adds a batch whose rows take sequences `firstSequence`, `firstSequence + 1`, … */
  write(batch: WriteBatch, firstSequence: number): void {
    if (this.frozen) throw new Error('cannot write to a frozen memtable');
    const tsVector = batch.columns.get(this.timeIndex.column_id);
    if (tsVector === undefined || tsVector.type !== 'int64') throw new TypeError(`the batch has no int64 time index column ${this.timeIndex.name}`);
    const tagVectors = this.tags.map((c) => batch.columns.get(c.column_id));
    const fieldVectors = this.fields.map((c) => batch.columns.get(c.column_id));
    const isDelete = batch.op === OP_DELETE;
    const rowBytes = 17 + this.fields.length * 9;
    const nTags = this.tags.length;
    const fieldCount = this.fields.length;
    // Times as 32-bit words (low, high): copying and comparing them makes no BigInts.
    const words = new Int32Array(tsVector.data.buffer, tsVector.data.byteOffset, batch.rowCount * 2);
    let minRow = -1;
    let maxRow = -1;
    let series: Series | undefined;
    for (let row = 0; row < batch.rowCount; row++) {
      // Rows of one series often come together: compare with the previous row before hashing.
      if (series === undefined || !this.sameTags(tagVectors, row, row - 1)) {
        let k = '';
        for (let t = 0; t < nTags; t++) k += keyPart(pkValue(tagVectors[t], row, this.tags[t]!));
        series = this.series.get(k);
        if (series === undefined) {
          series = this.newSeries(this.tags.map((c, i) => pkValue(tagVectors[i], row, c)));
          this.series.set(k, series);
          this.approxBytes += SERIES_OVERHEAD + k.length * 2;
        }
      }
      const lo = words[2 * row]!;
      const hi = words[2 * row + 1]!;
      const n = series.ts.length;
      if (n + 1 > series.ts.data.length) {
        series.ts.reserve(1);
        series.tsWords = new Int32Array(series.ts.data.buffer);
      }
      const sw = series.tsWords;
      if (n > 0 && compareWords(hi, lo, sw[2 * n - 1]!, sw[2 * n - 2]!) <= 0) series.increasing = false;
      sw[2 * n] = lo;
      sw[2 * n + 1] = hi;
      series.ts.length = n + 1;
      series.seq.reserve(1);
      series.seq.data[series.seq.length++] = firstSequence + row;
      series.op.reserve(1);
      series.op.data[series.op.length++] = batch.op;
      const builders = series.fields;
      if (isDelete) for (let f = 0; f < fieldCount; f++) builders[f]!.appendNull();
      else for (let f = 0; f < fieldCount; f++) builders[f]!.append(fieldVectors[f], row);
      if (minRow < 0 || compareWords(hi, lo, words[2 * minRow + 1]!, words[2 * minRow]!) < 0) minRow = row;
      if (maxRow < 0 || compareWords(hi, lo, words[2 * maxRow + 1]!, words[2 * maxRow]!) > 0) maxRow = row;
    }
    if (minRow >= 0) {
      const lo = tsVector.data[minRow]!;
      const hi = tsVector.data[maxRow]!;
      if (this.minTs === undefined || lo < this.minTs) this.minTs = lo;
      if (this.maxTs === undefined || hi > this.maxTs) this.maxTs = hi;
    }
    if (batch.rowCount > 0) {
      this.minSeq = Math.min(this.minSeq ?? firstSequence, firstSequence);
      this.maxSeq = Math.max(this.maxSeq ?? 0, firstSequence + batch.rowCount - 1);
    }
    this.rows += batch.rowCount;
    this.approxBytes += batch.rowCount * rowBytes + stringBytes(fieldVectors);
  }

  /** Whether rows `a` and `b` of the batch have the same primary key (b < 0: no). */
  private sameTags(vectors: ReadonlyArray<Vector | undefined>, a: number, b: number): boolean {
    if (b < 0) return false;
    for (const v of vectors) {
      if (v === undefined) continue; // absent: the default, the same for every row
      if (v.data[a] !== v.data[b]) return false;
      if ('valid' in v && v.valid !== undefined && v.valid[a] !== v.valid[b]) return false;
    }
    return true;
  }

  private newSeries(key: readonly PkValue[]): Series {
    const ts = growableI64();
    return {
      key,
      ts,
      tsWords: new Int32Array(ts.data.buffer),
      seq: growableF64(),
      op: growableU8(),
      fields: this.fields.map((c) => fieldBuilder(vectorTypeOf(c.type), c.default)),
      increasing: true,
    };
  }

  /** No more writes; the memtable waits to be flushed. */
  freeze(): void {
    this.frozen = true;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  isEmpty(): boolean {
    return this.rows === 0;
  }

  stats(): MemtableStats {
    return {
      rows: this.rows,
      series: this.series.size,
      bytes: this.approxBytes,
      minTs: this.minTs,
      maxTs: this.maxTs,
      minSequence: this.minSeq,
      maxSequence: this.maxSeq,
    };
  }

  /**
   * The rows, one run per series in primary-key order, sorted by time (newest sequence first among
   * equal times). `append` keeps every row; `last_row` keeps the newest row of each time (a delete
   * included, so that it still hides older data elsewhere); `last_non_null` merges each field's
   * newest non-NULL value, stopping at a newer delete.
   */
  *runs(mode: ReadMode): Generator<SeriesRun> {
    const all = [...this.series.values()].sort((a, b) => comparePk(a.key, b.key));
    for (const s of all) yield this.run(s, mode);
  }

  private run(s: Series, mode: ReadMode): SeriesRun {
    const n = s.ts.length;
    const ts = s.ts.data;
    const seq = s.seq.data;
    let order: Int32Array;
    if (s.increasing) {
      order = Int32Array.from({ length: n }, (_, i) => i);
    } else {
      order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => (ts[a]! < ts[b]! ? -1 : ts[a]! > ts[b]! ? 1 : seq[b]! - seq[a]!));
    }
    if (mode === 'append' || s.increasing) return this.gather(s, order, this.fields.map(() => order));

    // One output row per distinct time: the first (newest) of each group of equal times.
    const heads: number[] = [];
    for (let i = 0; i < n; i++) if (i === 0 || ts[order[i]!] !== ts[order[i - 1]!]) heads.push(i);
    const rowIdx = new Int32Array(heads.length);
    for (let h = 0; h < heads.length; h++) rowIdx[h] = order[heads[h]!]!;
    if (mode === 'last_row') return this.gather(s, rowIdx, this.fields.map(() => rowIdx));

    const op = s.op.data;
    const perField = this.fields.map((_, f) => {
      const idx = new Int32Array(heads.length);
      const builder = s.fields[f]!;
      for (let h = 0; h < heads.length; h++) {
        const end = h + 1 < heads.length ? heads[h + 1]! : n;
        idx[h] = -1;
        for (let i = heads[h]!; i < end; i++) {
          const j = order[i]!;
          if (op[j] === OP_DELETE) break;
          if (!builder.isNull(j)) {
            idx[h] = j;
            break;
          }
        }
      }
      return idx;
    });
    return this.gather(s, rowIdx, perField);
  }

  private gather(s: Series, rows: Int32Array, perField: readonly Int32Array[]): SeriesRun {
    const n = rows.length;
    const ts = new BigInt64Array(n);
    const seq = new Float64Array(n);
    const op = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const j = rows[i]!;
      ts[i] = s.ts.data[j]!;
      seq[i] = s.seq.data[j]!;
      op[i] = s.op.data[j]! as OpType;
    }
    return { key: s.key, ts, seq, op, fields: s.fields.map((b, f) => b.gather(perField[f]!)) };
  }
}

function stringBytes(vectors: ReadonlyArray<Vector | undefined>): number {
  let n = 0;
  for (const v of vectors) {
    if (v?.type === 'string') for (const s of v.data) n += s === null ? 0 : 16 + s.length * 2;
    else if (v?.type === 'binary') for (const b of v.data) n += b === null ? 0 : 64 + b.length;
  }
  return n;
}
