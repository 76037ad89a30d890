/**
 * The `time_series` memtable (GreptimeDB mito's default): rows grouped by series (primary key),
 * each series a set of columnar buffers in arrival order. Sorting by (time, sequence desc) and
 * deduplication by the merge mode happen when rows are read out (flush, scan), per series.
 */
import { OP_DELETE, vectorTypeOf, type OpType, type Vector, type WriteBatch } from '../batch/write-batch.js';
import type { ColumnMetadata, RegionMetadata } from '../region/metadata.js';
import { fieldBuilder, type FieldBuilder } from './field-builder.js';
import { growableF64, growableI64, growableU8, type Growable } from './growable.js';
import type { PkValue, ReadMode, SeriesRun } from './memtable.js';
import { selectRows, sortByTime } from './select-rows.js';
import { KeyIndex } from './key-index.js';
import { MemtableBase } from './memtable-base.js';
import { comparePk, compareWords, stringBytes, wordsOf } from './series-key.js';

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
  /** While a batch is written: the write (epoch) that grouped it, its group and its row count. */
  mark: number;
  slot: number;
  pending: number;
}

const SERIES_OVERHEAD = 256;

export class TimeSeriesMemtable extends MemtableBase {
  /** Field columns (neither tag nor time index), in column order. */
  readonly fields: readonly ColumnMetadata[];
  private readonly tags: readonly ColumnMetadata[];
  private readonly timeIndex: ColumnMetadata;
  private readonly index: KeyIndex;
  /** Series by key id. */
  private readonly series: Series[] = [];
  /** Counts writes: tells a series whether it was grouped in this one. */
  private epoch = 0;
  private approxBytes = 0;

  constructor(readonly metadata: RegionMetadata) {
    super();
    const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
    this.tags = metadata.primary_key.map((id) => byId.get(id)!);
    this.index = new KeyIndex(this.tags);
    this.timeIndex = byId.get(metadata.time_index)!;
    this.fields = metadata.columns.filter((c) => c.semantic_type === 'field');
  }

  /** Adds a batch whose rows take sequences `firstSequence`, `firstSequence + 1`, … */
  write(batch: WriteBatch, firstSequence: number): void {
    const times = this.timesOf(batch, this.timeIndex);
    const fieldVectors = this.fields.map((c) => batch.columns.get(c.column_id));
    const indexBytes = this.index.bytes;
    const ids = this.index.idsOf(batch);
    this.approxBytes += this.index.bytes - indexBytes;
    const isDelete = batch.op === OP_DELETE;
    const n = batch.rowCount;
    const rowBytes = 17 + this.fields.length * 9;
    // Times as 32-bit words (low, high): copying and comparing them makes no BigInts.
    const words = wordsOf(times, n);

    // The batch's rows grouped by series (stable), then appended series by series, column by column.
    const epoch = ++this.epoch;
    const groups: Series[] = [];
    const slotOf = new Int32Array(n);
    for (let row = 0; row < n; row++) {
      const id = ids[row]!;
      let s = this.series[id];
      if (s === undefined) {
        s = this.series[id] = this.newSeries(this.index.keys[id]!);
        this.seriesCount++;
        this.approxBytes += SERIES_OVERHEAD;
      }
      if (s.mark !== epoch) {
        s.mark = epoch;
        s.slot = groups.length;
        s.pending = 0;
        groups.push(s);
      }
      s.pending++;
      slotOf[row] = s.slot;
    }
    const next = new Int32Array(groups.length);
    for (let g = 1; g < groups.length; g++) next[g] = next[g - 1]! + groups[g - 1]!.pending;
    const order = new Int32Array(n);
    for (let row = 0; row < n; row++) order[next[slotOf[row]!]!++] = row;
    let at = 0;
    for (const s of groups) {
      const rows = order.subarray(at, at + s.pending);
      at += s.pending;
      this.appendRows(s, rows, words, firstSequence, batch.op, isDelete ? undefined : fieldVectors);
    }
    this.noteRows(times, n, firstSequence);
    this.approxBytes += batch.rowCount * rowBytes + stringBytes(fieldVectors);
  }

  /** Appends rows `rows` of a batch to series `s` (fieldVectors undefined: a delete, fields NULL). */
  private appendRows(s: Series, rows: Int32Array, words: Int32Array, firstSequence: number, op: OpType, fieldVectors: ReadonlyArray<Vector | undefined> | undefined): void {
    const k = rows.length;
    const n = s.ts.length;
    if (n + k > s.ts.data.length) {
      s.ts.reserve(k);
      s.tsWords = new Int32Array(s.ts.data.buffer);
    }
    const sw = s.tsWords;
    let increasing = s.increasing;
    let prevHi = n > 0 ? sw[2 * n - 1]! : 0;
    let prevLo = n > 0 ? sw[2 * n - 2]! : 0;
    for (let i = 0; i < k; i++) {
      const r = rows[i]!;
      const lo = words[2 * r]!;
      const hi = words[2 * r + 1]!;
      if (increasing && (n > 0 || i > 0) && compareWords(hi, lo, prevHi, prevLo) <= 0) increasing = false;
      sw[2 * (n + i)] = lo;
      sw[2 * (n + i) + 1] = hi;
      prevHi = hi;
      prevLo = lo;
    }
    s.increasing = increasing;
    s.ts.length = n + k;
    s.seq.reserve(k);
    const seq = s.seq.data;
    for (let i = 0; i < k; i++) seq[n + i] = firstSequence + rows[i]!;
    s.seq.length = n + k;
    s.op.reserve(k);
    s.op.data.fill(op, n, n + k);
    s.op.length = n + k;
    for (let f = 0; f < s.fields.length; f++) {
      const builder = s.fields[f]!;
      if (fieldVectors === undefined) for (let i = 0; i < k; i++) builder.appendNull();
      else builder.appendRows(fieldVectors[f], rows);
    }
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
      mark: 0,
      slot: 0,
      pending: 0,
    };
  }

  protected bytes(): number {
    return this.approxBytes;
  }

  *runs(mode: ReadMode): Generator<SeriesRun> {
    const all = this.series.filter((x) => x !== undefined).sort((a, b) => comparePk(a.key, b.key));
    for (const s of all) yield this.run(s, mode);
  }

  private run(s: Series, mode: ReadMode): SeriesRun {
    const order = Int32Array.from({ length: s.ts.length }, (_, i) => i);
    const distinct = s.increasing || sortByTime(order, s.tsWords, s.seq.data);
    const { rows, perField } = selectRows(order, distinct, s.tsWords, s.op.data, mode, this.fields.length, (f, j) => s.fields[f]!.isNull(j));
    return this.gather(s, rows, perField);
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
