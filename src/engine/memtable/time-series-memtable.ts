/**
 * The `time_series` memtable (GreptimeDB mito's default): rows grouped by series (primary key),
 * each series a set of columnar buffers in arrival order. Sorting by (time, sequence desc) and
 * deduplication by the merge mode happen when rows are read out (flush, scan), per series.
 *
 * Batches with a row or two per series land in a pending columnar buffer first (a copy of whole
 * columns) and are handed out to their series only when a read needs them or `PENDING_ROWS` have
 * gathered: with thousands of series, appending to every series' dozen buffers per batch was most
 * of a write (a cache miss or more per buffer); per many batches it is a fraction. Batches with
 * many rows per series go to their series at once.
 */
import { OP_DELETE, vectorTypeOf, type OpType, type Vector, type WriteBatch } from '../../types/write-batch.js';
import type { ColumnMetadata, RegionMetadata } from '../../types/region-metadata.js';
import { fieldBuilder, type FieldBuilder } from './field-builder.js';
import { growableF64, growableI32, growableI64, growableU8, type Growable } from './growable.js';
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
  /**
   * Times increasing: the last run read out, views of its buffers (rows once written never
   * change), while its row count is `runRows`.
   */
  run: SeriesRun | undefined;
  runRows: number;
  /** Written to since the last read out; its position in key order then. */
  dirty: boolean;
  pos: number;
}

const SERIES_OVERHEAD = 256;
/** Rows the pending buffer gathers before they are handed out to their series. */
export const PENDING_ROWS = 1 << 16;
/**
 * A batch with at least this many rows per series on average goes to its series at once (after
 * the pending rows): the pending buffer would only add a copy (about 20% more write time at 50
 * rows per series; 40% less at a row or two).
 */
export const DENSE_ROWS_PER_SERIES = 4;

/** Written rows not yet handed out to their series, in write order. */
interface Pending {
  readonly ids: Growable<Int32Array>;
  readonly ts: Growable<BigInt64Array>;
  readonly seq: Growable<Float64Array>;
  readonly op: Growable<Uint8Array>;
  readonly fields: FieldBuilder[];
}

export class TimeSeriesMemtable extends MemtableBase {
  /** Field columns (neither tag nor time index), in column order. */
  readonly fields: readonly ColumnMetadata[];
  private readonly tags: readonly ColumnMetadata[];
  private readonly timeIndex: ColumnMetadata;
  private readonly index: KeyIndex;
  /** Series by key id. */
  private readonly series: Series[] = [];
  /** Series in primary-key order, as of the last read; `added` holds those created since. */
  private sorted: Series[] = [];
  private added: Series[] = [];
  /** Series written to since the last read out (`dirty` set). */
  private dirty: Series[] = [];
  /** The last read out: one run per series in key order. Never changed once handed out. */
  private readout: { readonly mode: ReadMode; readonly list: readonly SeriesRun[] } | undefined;
  /** Series whose times do not increase in arrival order (read out by sorting a copy). */
  private unordered = 0;

  /**
   * While every series' times increase, the read out is views kept here and patched per write
   * (the vector cache is not needed); once some do not, reads sort copies and the vector cache
   * keeps them, within its budget.
   */
  get cachesRuns(): boolean {
    this.distribute();
    return this.unordered === 0;
  }
  /** Counts writes: tells a series whether it was grouped in this one. */
  private epoch = 0;
  private approxBytes = 0;
  private pending: Pending;
  /** Per key id, the last `stamp` that counted it (`distinct`). */
  private stamps = new Int32Array(0);
  private stamp = 0;

  constructor(readonly metadata: RegionMetadata) {
    super();
    const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
    this.tags = metadata.primary_key.map((id) => byId.get(id)!);
    this.index = new KeyIndex(this.tags);
    this.timeIndex = byId.get(metadata.time_index)!;
    this.fields = metadata.columns.filter((c) => c.semantic_type === 'field');
    this.pending = this.newPending(64);
  }

  private newPending(capacity: number): Pending {
    return {
      ids: growableI32(capacity),
      ts: growableI64(capacity),
      seq: growableF64(capacity),
      op: growableU8(capacity),
      fields: this.fields.map((c) => fieldBuilder(vectorTypeOf(c.type), c.default, capacity)),
    };
  }

  /** Adds a batch whose rows take sequences `firstSequence`, `firstSequence + 1`, … */
  write(batch: WriteBatch, firstSequence: number): void {
    const times = this.timesOf(batch, this.timeIndex);
    const n = batch.rowCount;
    if (n === 0) return;
    const fieldVectors = this.fields.map((c) => batch.columns.get(c.column_id));
    const indexBytes = this.index.bytes;
    const ids = this.index.idsOf(batch);
    this.approxBytes += this.index.bytes - indexBytes;
    // New series now (the statistics count them); their rows come with the others.
    for (let row = 0; row < n; row++) {
      const id = ids[row]!;
      if ((row > 0 && id === ids[row - 1]) || this.series[id] !== undefined) continue;
      const s = (this.series[id] = this.newSeries(this.index.keys[id]!));
      this.added.push(s);
      this.noteSeries(batch, row);
      this.approxBytes += SERIES_OVERHEAD;
    }
    const isDelete = batch.op === OP_DELETE;
    this.noteRows(times, n, firstSequence);
    this.approxBytes += n * (17 + this.fields.length * 9) + stringBytes(fieldVectors);
    if (n >= DENSE_ROWS_PER_SERIES * this.distinct(ids, n)) {
      this.distribute();
      const seqs = new Float64Array(n);
      for (let i = 0; i < n; i++) seqs[i] = firstSequence + i;
      this.appendGrouped(ids, n, wordsOf(times, n), seqs, new Uint8Array(n).fill(batch.op), isDelete ? undefined : fieldVectors);
      return;
    }
    const p = this.pending;
    const at = p.ids.length;
    for (const g of [p.ids, p.ts, p.seq, p.op]) g.reserve(n);
    p.ids.data.set(ids, at);
    p.ts.data.set(times.subarray(0, n), at);
    const seq = p.seq.data;
    for (let i = 0; i < n; i++) seq[at + i] = firstSequence + i;
    p.op.data.fill(batch.op, at, at + n);
    p.ids.length = p.ts.length = p.seq.length = p.op.length = at + n;
    for (let f = 0; f < p.fields.length; f++) {
      const builder = p.fields[f]!;
      if (isDelete) for (let i = 0; i < n; i++) builder.appendNull();
      else builder.appendRange(fieldVectors[f], 0, n);
    }
    if (p.ids.length >= PENDING_ROWS) this.distribute();
  }

  /** The number of distinct key ids among `ids[0…n)` (stamps per id, no set). */
  private distinct(ids: Int32Array, n: number): number {
    if (this.stamps.length < this.index.size) this.stamps = new Int32Array(Math.max(this.index.size, 2 * this.stamps.length));
    const stamps = this.stamps;
    const stamp = ++this.stamp;
    let count = 0;
    for (let row = 0; row < n; row++) {
      const id = ids[row]!;
      if (stamps[id] !== stamp) {
        stamps[id] = stamp;
        count++;
      }
    }
    return count;
  }

  /** Hands the pending rows out to their series. */
  private distribute(): void {
    const p = this.pending;
    const n = p.ids.length;
    if (n === 0) return;
    // Times as 32-bit words (low, high): copying and comparing them makes no BigInts.
    this.appendGrouped(p.ids.data, n, wordsOf(p.ts.data, n), p.seq.data, p.op.data, p.fields.map((b) => b.prefix(n)));
    // A fresh, small buffer: a frozen memtable or a quiet table does not keep a large one empty.
    this.pending = this.newPending(64);
  }

  /**
   * Appends rows `0…n` (key ids `ids`, times as words, sequences, ops, field vectors: undefined
   * for deletes, whose fields are NULL) to their series: grouped by series (stable, so each
   * series' rows stay in write order), then series by series, column by column.
   */
  private appendGrouped(ids: Int32Array, n: number, words: Int32Array, seqs: Float64Array, ops: Uint8Array, fieldVectors: ReadonlyArray<Vector | undefined> | undefined): void {
    const epoch = ++this.epoch;
    const groups: Series[] = [];
    const slotOf = new Int32Array(n);
    for (let row = 0; row < n; row++) {
      const s = this.series[ids[row]!]!;
      if (s.mark !== epoch) {
        s.mark = epoch;
        if (!s.dirty) {
          s.dirty = true;
          this.dirty.push(s);
        }
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
      this.appendRows(s, order, at, at + s.pending, words, seqs, ops, fieldVectors);
      at += s.pending;
    }
  }

  /** Appends rows `order[start…end)` to series `s` (`fieldVectors` undefined: a delete, fields NULL). */
  private appendRows(s: Series, order: Int32Array, start: number, end: number, words: Int32Array, seqs: Float64Array, ops: Uint8Array, fieldVectors: ReadonlyArray<Vector | undefined> | undefined): void {
    const k = end - start;
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
      const r = order[start + i]!;
      const lo = words[2 * r]!;
      const hi = words[2 * r + 1]!;
      if (increasing && (n > 0 || i > 0) && compareWords(hi, lo, prevHi, prevLo) <= 0) increasing = false;
      sw[2 * (n + i)] = lo;
      sw[2 * (n + i) + 1] = hi;
      prevHi = hi;
      prevLo = lo;
    }
    if (s.increasing && !increasing) this.unordered++;
    s.increasing = increasing;
    s.ts.length = n + k;
    s.seq.reserve(k);
    s.op.reserve(k);
    const seq = s.seq.data;
    const op = s.op.data;
    for (let i = 0; i < k; i++) {
      const r = order[start + i]!;
      seq[n + i] = seqs[r]!;
      op[n + i] = ops[r]!;
    }
    s.seq.length = n + k;
    s.op.length = n + k;
    const rows = order.subarray(start, end);
    for (let f = 0; f < s.fields.length; f++) {
      const builder = s.fields[f]!;
      if (fieldVectors === undefined) for (let i = 0; i < k; i++) builder.appendNull();
      else builder.appendRows(fieldVectors[f], rows);
    }
  }

  /**
   * Buffers start with room for one row and double: with many series most hold a row or two, and
   * a run of a full buffer is the buffer itself (no view made at each read out).
   */
  private newSeries(key: readonly PkValue[]): Series {
    const ts = growableI64(1);
    return {
      key,
      ts,
      tsWords: new Int32Array(ts.data.buffer),
      seq: growableF64(1),
      op: growableU8(1),
      fields: this.fields.map((c) => fieldBuilder(vectorTypeOf(c.type), c.default, 1)),
      increasing: true,
      mark: 0,
      slot: 0,
      pending: 0,
      run: undefined,
      runRows: -1,
      dirty: false,
      pos: -1,
    };
  }

  protected bytes(): number {
    return this.approxBytes;
  }

  /**
   * The runs in key order. While every series' times increase, a read costs what changed since
   * the last one: the last read out is copied and the runs of the series written to since are
   * made again, as views of their buffers (no copy of rows); new series are sorted and merged into
   * the key order. The array returned is never changed afterwards. Otherwise every read sorts and
   * merges the series that need it into copies, and keeps none of them.
   */
  runs(mode: ReadMode): readonly SeriesRun[] {
    this.distribute();
    const last = this.readout;
    if (this.unordered === 0 && last !== undefined && last.mode === mode && this.added.length === 0) {
      if (this.dirty.length === 0) return last.list;
      const list = last.list.slice();
      for (const s of this.dirty) {
        s.dirty = false;
        list[s.pos] = this.run(s, mode);
      }
      this.dirty = [];
      this.readout = { mode, list };
      return list;
    }
    const order = this.inKeyOrder();
    for (const s of this.dirty) s.dirty = false;
    this.dirty = [];
    const list = new Array<SeriesRun>(order.length);
    for (let i = 0; i < order.length; i++) {
      const s = order[i]!;
      s.pos = i;
      list[i] = this.run(s, mode);
    }
    this.readout = this.unordered === 0 ? { mode, list } : undefined;
    return list;
  }

  private inKeyOrder(): readonly Series[] {
    if (this.added.length === 0) return this.sorted;
    const add = this.added.sort((a, b) => comparePk(a.key, b.key));
    this.added = [];
    const old = this.sorted;
    if (old.length === 0) return (this.sorted = add);
    const merged: Series[] = new Array<Series>(old.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < add.length) merged[k++] = comparePk(old[i]!.key, add[j]!.key) <= 0 ? old[i++]! : add[j++]!;
    while (i < old.length) merged[k++] = old[i++]!;
    while (j < add.length) merged[k++] = add[j++]!;
    return (this.sorted = merged);
  }

  private run(s: Series, mode: ReadMode): SeriesRun {
    const n = s.ts.length;
    if (!s.increasing) {
      s.run = undefined;
      const order = Int32Array.from({ length: n }, (_, i) => i);
      const distinct = sortByTime(order, s.tsWords, s.seq.data);
      const { rows, perField } = selectRows(order, distinct, s.tsWords, s.op.data, mode, this.fields.length, (f, j) => s.fields[f]!.isNull(j));
      return this.gather(s, rows, perField);
    }
    // Strictly increasing times: every mode keeps every row, in arrival order, so the run is
    // views of the buffers (the same in every mode), made again only once rows were added.
    if (s.run !== undefined && s.runRows === n) return s.run;
    s.runRows = n;
    return (s.run = {
      key: s.key,
      ts: filled(s.ts.data, n),
      tsWords: s.tsWords,
      seq: filled(s.seq.data, n),
      op: filled(s.op.data, n),
      fields: s.fields.map((b) => b.prefix(n)),
    });
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

/** The first `n` values of a buffer: the buffer itself when full (a view costs more to make). */
export function filled<A extends BigInt64Array | Float64Array | Uint8Array>(data: A, n: number): A {
  return data.length === n ? data : (data.subarray(0, n) as A);
}
