/**
 * The `partition_tree` memtable (`[region_engine.mito.memtable] type = "partition_tree"`): built
 * for many series and fast writes. Each primary key gets an id from a key dictionary; keys are
 * grouped into shards of at most `index_max_keys_per_shard` ids. A shard appends whole column
 * ranges of a batch to its active buffer (no per-series buffers: one copy per column per batch);
 * when the buffer holds `data_freeze_threshold` rows it is sorted by (key, time, sequence desc)
 * into a compact immutable part. Reads join a shard's parts and buffer, group rows by key and merge
 * each series like the `time_series` memtable. The next memtable of a region starts from the same
 * key dictionary while it is at most `fork_dictionary_bytes`, so known series cost no new entry.
 */
import { isNull, OP_DELETE, vectorTypeOf, type Vector, type WriteBatch } from '../../types/write-batch.js';
import type { ColumnMetadata, RegionMetadata } from '../../types/region-metadata.js';
import { fieldBuilder, type FieldBuilder } from './field-builder.js';
import { growableF64, growableI32, growableI64, growableU8, type Growable } from './growable.js';
import type { MemtableOptions, ReadMode, SeriesRun } from './memtable.js';
import { selectRows, sortByTime } from './select-rows.js';
import { KeyIndex } from './key-index.js';
import { MemtableBase } from './memtable-base.js';
import { comparePk, stringBytes, wordsOf } from './series-key.js';
import { concatVectors, gatherVector, vectorBytes } from './vectors.js';

const SHARD_OVERHEAD = 512;

/** Sorted, immutable rows of a shard: key id, time, sequence, op, fields. */
interface DataPart {
  readonly pk: Int32Array;
  readonly ts: BigInt64Array;
  readonly seq: Float64Array;
  readonly op: Uint8Array;
  readonly fields: readonly Vector[];
  readonly bytes: number;
}

/** A shard's rows joined for a read: parts and active buffer, one after another. */
interface Joined {
  readonly pk: Int32Array;
  readonly words: Int32Array;
  readonly ts: BigInt64Array;
  readonly seq: Float64Array;
  readonly op: Uint8Array;
  readonly fields: readonly Vector[];
  /** Row positions grouped by key id (rows of a key in the order above), and where each key starts. */
  readonly byKey: Int32Array;
  readonly starts: Map<number, [number, number]>;
}

class Shard {
  readonly parts: DataPart[] = [];
  pk!: Growable<Int32Array>;
  ts!: Growable<BigInt64Array>;
  seq!: Growable<Float64Array>;
  op!: Growable<Uint8Array>;
  fields!: FieldBuilder[];
  private partBytes = 0;

  constructor(
    private readonly fieldColumns: readonly ColumnMetadata[],
    private readonly freezeThreshold: number,
  ) {
    this.reset(64);
  }

  /** A new, empty active buffer with room for `capacity` rows. */
  private reset(capacity: number): void {
    this.pk = growableI32(capacity);
    this.ts = growableI64(capacity);
    this.seq = growableF64(capacity);
    this.op = growableU8(capacity);
    this.fields = this.fieldColumns.map((c) => fieldBuilder(vectorTypeOf(c.type), c.default, capacity));
  }

  get activeRows(): number {
    return this.pk.length;
  }

  bytes(): number {
    let n = SHARD_OVERHEAD + this.partBytes + this.pk.bytes() + this.ts.bytes() + this.seq.bytes() + this.op.bytes();
    for (const f of this.fields) n += f.bytes();
    return n;
  }

  /** Sorts the active buffer by (key id, time, sequence desc) into a part; starts a new buffer. */
  freezeActive(): void {
    const n = this.pk.length;
    if (n === 0) return;
    const pk = this.pk.data;
    const words = wordsOf(this.ts.data, n);
    const seq = this.seq.data;
    // Counting sort by key id (stable: each key's rows stay in arrival order), then each key's
    // rows by time — usually already in order.
    let lo = pk[0]!;
    let hi = lo;
    for (let i = 1; i < n; i++) {
      const id = pk[i]!;
      if (id < lo) lo = id;
      else if (id > hi) hi = id;
    }
    const starts = new Int32Array(hi - lo + 2);
    for (let i = 0; i < n; i++) starts[pk[i]! - lo + 1]!++;
    for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
    const next = starts.slice();
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[next[pk[i]! - lo]!++] = i;
    for (let k = 0; k + 1 < starts.length; k++) if (starts[k + 1]! - starts[k]! > 1) sortByTime(order.subarray(starts[k]!, starts[k + 1]!), words, seq);
    const part: DataPart = {
      pk: new Int32Array(n),
      ts: new BigInt64Array(n),
      seq: new Float64Array(n),
      op: new Uint8Array(n),
      fields: this.fields.map((f) => f.gather(order)),
      bytes: 0,
    };
    const outWords = wordsOf(part.ts);
    for (let i = 0; i < n; i++) {
      const j = order[i]!;
      part.pk[i] = pk[j]!;
      outWords[2 * i] = words[2 * j]!;
      outWords[2 * i + 1] = words[2 * j + 1]!;
      part.seq[i] = seq[j]!;
      part.op[i] = this.op.data[j]!;
    }
    const bytes = n * 21 + part.fields.reduce((b, v) => b + vectorBytes(v), 0);
    this.parts.push({ ...part, bytes });
    this.partBytes += bytes;
    // A shard that filled its buffer once will fill it again: the next one starts at full size
    // (no regrowing), while quiet shards keep small buffers.
    this.reset(this.freezeThreshold);
  }

  /** The shard's rows now (a copy of the active buffer), grouped by key. */
  join(): Joined {
    const n = this.pk.length;
    const active: DataPart | undefined =
      n === 0
        ? undefined
        : {
            pk: this.pk.data.slice(0, n),
            ts: this.ts.data.slice(0, n),
            seq: this.seq.data.slice(0, n),
            op: this.op.data.slice(0, n),
            fields: this.fields.map((f) => f.gather(Int32Array.from({ length: n }, (_, i) => i))),
            bytes: 0,
          };
    const parts = active ? [...this.parts, active] : this.parts;
    const total = parts.reduce((t, p) => t + p.pk.length, 0);
    const pk = parts.length === 1 ? parts[0]!.pk : new Int32Array(total);
    const ts = parts.length === 1 ? parts[0]!.ts : new BigInt64Array(total);
    const seq = parts.length === 1 ? parts[0]!.seq : new Float64Array(total);
    const op = parts.length === 1 ? parts[0]!.op : new Uint8Array(total);
    if (parts.length > 1) {
      let at = 0;
      for (const p of parts) {
        pk.set(p.pk, at);
        ts.set(p.ts, at);
        seq.set(p.seq, at);
        op.set(p.op, at);
        at += p.pk.length;
      }
    }
    const fields = this.fieldColumns.map((c, f) => concatVectors(vectorTypeOf(c.type), parts.map((p) => p.fields[f]!)));
    // Counting sort by key id, stable: a key's rows stay in part order, each part in time order.
    const counts = new Map<number, number>();
    for (let i = 0; i < total; i++) counts.set(pk[i]!, (counts.get(pk[i]!) ?? 0) + 1);
    const starts = new Map<number, [number, number]>();
    const next = new Map<number, number>();
    let at = 0;
    for (const [id, c] of counts) {
      starts.set(id, [at, at + c]);
      next.set(id, at);
      at += c;
    }
    const byKey = new Int32Array(total);
    for (let i = 0; i < total; i++) {
      const id = pk[i]!;
      const p = next.get(id)!;
      byKey[p] = i;
      next.set(id, p + 1);
    }
    return { pk, words: wordsOf(ts), ts, seq, op, fields, byKey, starts };
  }
}

export class PartitionTreeMemtable extends MemtableBase {
  readonly fields: readonly ColumnMetadata[];
  readonly dictionary: KeyIndex;
  private readonly tags: readonly ColumnMetadata[];
  private readonly timeIndex: ColumnMetadata;
  private readonly shards = new Map<number, Shard>();
  /** Key ids with rows in this memtable. */
  private present = new Uint8Array(1024);
  private dictionaryBytes = 0;
  private stringFieldBytes = 0;

  constructor(
    readonly metadata: RegionMetadata,
    private readonly opts: MemtableOptions,
    /** The key dictionary of the region's previous memtable, to go on from (a fork). */
    dictionary?: KeyIndex,
  ) {
    super();
    const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
    this.tags = metadata.primary_key.map((id) => byId.get(id)!);
    this.timeIndex = byId.get(metadata.time_index)!;
    this.fields = metadata.columns.filter((c) => c.semantic_type === 'field');
    this.dictionary = dictionary ?? new KeyIndex(this.tags);
  }

  /** Whether the next memtable may go on with this one's dictionary (same key, at most `maxBytes`). */
  canFork(metadata: RegionMetadata, maxBytes: number): boolean {
    const pk = this.dictionary.primaryKey;
    return this.dictionary.bytes <= maxBytes && pk.length === metadata.primary_key.length && pk.every((id, i) => metadata.primary_key[i] === id);
  }

  /** Shards holding rows now (for tests and statistics). */
  shardCount(): number {
    return this.shards.size;
  }

  /** Sorted parts over all shards (for tests and statistics). */
  partCount(): number {
    let n = 0;
    for (const s of this.shards.values()) n += s.parts.length;
    return n;
  }

  private shard(id: number): Shard {
    const index = Math.floor(id / this.opts.indexMaxKeysPerShard);
    let s = this.shards.get(index);
    if (s === undefined) {
      s = new Shard(this.fields, this.opts.dataFreezeThreshold);
      this.shards.set(index, s);
    }
    return s;
  }

  write(batch: WriteBatch, firstSequence: number): void {
    const times = this.timesOf(batch, this.timeIndex);
    const n = batch.rowCount;
    if (n === 0) return;
    const fieldVectors = this.fields.map((c) => batch.columns.get(c.column_id));
    const dictionaryBytes = this.dictionary.bytes;
    const ids = this.dictionary.idsOf(batch);
    this.dictionaryBytes += this.dictionary.bytes - dictionaryBytes;
    const perShard = this.opts.indexMaxKeysPerShard;
    const first = Math.floor(ids[0]! / perShard) * perShard;
    let oneShard = true;
    let present = this.present;
    for (let row = 0; row < n; row++) {
      const id = ids[row]!;
      if (row > 0 && id === ids[row - 1]) continue;
      if (id >= present.length) {
        const grown = new Uint8Array(Math.max(present.length * 2, id + 1));
        grown.set(present);
        this.present = present = grown;
      }
      if (present[id] === 0) {
        present[id] = 1;
        this.noteSeries(batch, row);
      }
      if (id < first || id >= first + perShard) oneShard = false;
    }
    if (oneShard) {
      this.append(this.shard(ids[0]!), batch, times, fieldVectors, ids, 0, n, undefined, firstSequence);
    } else {
      // Rows grouped by shard (stable), each group appended at once.
      const byShard = new Map<number, number[]>();
      for (let row = 0; row < n; row++) {
        const index = Math.floor(ids[row]! / perShard);
        const list = byShard.get(index);
        if (list) list.push(row);
        else byShard.set(index, [row]);
      }
      for (const list of byShard.values()) {
        const rows = Int32Array.from(list);
        this.append(this.shard(ids[rows[0]!]!), batch, times, fieldVectors, ids, 0, rows.length, rows, firstSequence);
      }
    }

    this.noteRows(times, n, firstSequence);
    this.stringFieldBytes += stringBytes(fieldVectors);
  }

  /**
   * Appends batch rows to a shard, freezing its buffer each time it fills: rows [start, end) of
   * the batch, or with `rows`, the batch rows `rows[start…end)`.
   */
  private append(
    shard: Shard,
    batch: WriteBatch,
    ts: BigInt64Array,
    fieldVectors: ReadonlyArray<Vector | undefined>,
    ids: Int32Array,
    start: number,
    end: number,
    rows: Int32Array | undefined,
    firstSequence: number,
  ): void {
    const threshold = this.opts.dataFreezeThreshold;
    const isDelete = batch.op === OP_DELETE;
    let i = start;
    while (i < end) {
      const take = Math.min(end - i, Math.max(1, threshold - shard.activeRows));
      const at = shard.pk.length;
      for (const g of [shard.pk, shard.ts, shard.seq, shard.op]) g.reserve(take);
      const seq = shard.seq.data;
      if (rows === undefined) {
        shard.pk.data.set(ids.subarray(i, i + take), at);
        shard.ts.data.set(ts.subarray(i, i + take), at);
        for (let r = 0; r < take; r++) seq[at + r] = firstSequence + i + r;
      } else {
        const pk = shard.pk.data;
        const out = wordsOf(shard.ts.data, shard.ts.data.length);
        const src = wordsOf(ts);
        for (let r = 0; r < take; r++) {
          const row = rows[i + r]!;
          pk[at + r] = ids[row]!;
          out[2 * (at + r)] = src[2 * row]!;
          out[2 * (at + r) + 1] = src[2 * row + 1]!;
          seq[at + r] = firstSequence + row;
        }
      }
      shard.op.data.fill(batch.op, at, at + take);
      shard.pk.length = shard.ts.length = shard.seq.length = shard.op.length = at + take;
      const picked = rows?.subarray(i, i + take);
      for (let f = 0; f < shard.fields.length; f++) {
        const builder = shard.fields[f]!;
        if (isDelete) for (let r = 0; r < take; r++) builder.appendNull();
        else if (picked === undefined) builder.appendRange(fieldVectors[f], i, i + take);
        else builder.appendRows(fieldVectors[f], picked);
      }
      i += take;
      if (shard.activeRows >= threshold) shard.freezeActive();
    }
  }

  protected bytes(): number {
    let bytes = this.dictionaryBytes + this.stringFieldBytes;
    for (const s of this.shards.values()) bytes += s.bytes();
    return bytes;
  }

  *runs(mode: ReadMode): Generator<SeriesRun> {
    const joined = new Map<number, Joined>();
    for (const [index, s] of this.shards) joined.set(index, s.join());
    const keys = this.dictionary.keys;
    const ids: number[] = [];
    for (let id = 0; id < this.present.length; id++) if (this.present[id] === 1) ids.push(id);
    ids.sort((a, b) => comparePk(keys[a]!, keys[b]!));
    const perShard = this.opts.indexMaxKeysPerShard;
    const fieldCount = this.fields.length;
    for (const id of ids) {
      const j = joined.get(Math.floor(id / perShard))!;
      const [from, to] = j.starts.get(id)!;
      const order = j.byKey.slice(from, to);
      const distinct = sortByTime(order, j.words, j.seq);
      const { rows, perField } = selectRows(order, distinct, j.words, j.op, mode, fieldCount, (f, r) => isNull(j.fields[f]!, r));
      const n = rows.length;
      const ts = new BigInt64Array(n);
      const tsWords = wordsOf(ts);
      const seq = new Float64Array(n);
      const op = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const r = rows[i]!;
        tsWords[2 * i] = j.words[2 * r]!;
        tsWords[2 * i + 1] = j.words[2 * r + 1]!;
        seq[i] = j.seq[r]!;
        op[i] = j.op[r]!;
      }
      yield { key: keys[id]!, ts, seq, op, fields: j.fields.map((v, f) => gatherVector(v, perField[f]!)) };
    }
  }
}
