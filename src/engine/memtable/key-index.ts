/**
 * Series ids of a memtable: each primary key column's values get small codes (strings through the
 * column's dictionary, one lookup per distinct value of a batch), and each tuple of codes a key id
 * in an open-addressing hash table — no key string is built per row.
 */
import { dictionaryOf, NULL_CODE } from '../../types/string-dictionary.js';
import type { Vector, WriteBatch } from '../../types/write-batch.js';
import type { ColumnMetadata } from '../../types/region-metadata.js';
import type { PkValue } from './memtable.js';
import { pkValue } from './series-key.js';

const EMPTY = -1;
/** The largest batch (key cells, rows) whose scratch `idsOf` keeps for the next batch. */
const SCRATCH_CELLS = 1 << 18;
/** The most distinct values of a string column whose scratch `idsOf` keeps. */
const SCRATCH_VALUES = 1 << 16;

export class KeyIndex {
  /** Primary key values by key id. */
  readonly keys: PkValue[][] = [];
  /** Memory the index holds, in bytes (values, keys, tables). */
  bytes = 0;
  readonly primaryKey: readonly number[];
  private readonly codeOf: Map<PkValue, number>[];
  private readonly valueOf: PkValue[][];
  /** Codes of key id i at [i × width, (i + 1) × width). */
  private tuples = new Int32Array(64);
  private slots = new Int32Array(64).fill(EMPTY);
  // Scratch of `idsOf` (not counted in `bytes`: at most SCRATCH_CELLS × 5 bytes and SCRATCH_VALUES × 4).
  private codes = new Int32Array(0);
  private changed = new Uint8Array(0);
  private local = new Int32Array(0);

  constructor(private readonly tags: readonly ColumnMetadata[]) {
    this.primaryKey = tags.map((c) => c.column_id);
    this.codeOf = tags.map(() => new Map());
    this.valueOf = tags.map(() => []);
    this.bytes = this.tuples.byteLength + this.slots.byteLength;
  }

  get size(): number {
    return this.keys.length;
  }

  private code(t: number, value: PkValue): number {
    const map = this.codeOf[t]!;
    let c = map.get(value);
    if (c === undefined) {
      c = map.size;
      map.set(value, c);
      this.valueOf[t]!.push(value);
      this.bytes += 48 + (typeof value === 'string' ? value.length * 2 : 8);
    }
    return c;
  }

  /**
   * The codes of column `t` for the batch's rows, written to `out[at…at + n)`; `changed[row]` is set
   * where the code may differ from the row before (never left unset where it does differ).
   */
  private columnCodes(t: number, v: Vector | undefined, n: number, out: Int32Array, at: number, changed: Uint8Array): void {
    const col = this.tags[t]!;
    if (v === undefined) {
      out.fill(this.code(t, pkValue(undefined, 0, col)), at, at + n);
      return;
    }
    if (v.type === 'string') {
      // One lookup per distinct value of the batch, then per row an index into them.
      const dict = dictionaryOf(v)!;
      const values = dict.values;
      const local = values.length <= SCRATCH_VALUES ? this.localScratch(values.length) : new Int32Array(values.length);
      for (let k = 0; k < values.length; k++) local[k] = this.code(t, values[k]!);
      const codes = dict.codes;
      let nullCode = -1;
      let prev = -1; // no dictionary code is -1 (NULL_CODE is 0xffffffff)
      let code = 0;
      for (let i = 0; i < n; i++) {
        const c = codes[i]!;
        if (c !== prev) {
          prev = c;
          changed[i] = 1;
          if (c === NULL_CODE) {
            if (nullCode < 0) nullCode = this.code(t, null);
            code = nullCode;
          } else code = local[c]!;
        }
        out[at + i] = code;
      }
      return;
    }
    // Numbers (the metric engine's `__table_id` and `__tsid`): a run of one value — a series'
    // rows, a table's — costs one comparison per row instead of a map lookup (a BigInt each for
    // 64-bit values). 64-bit values are compared as their two 32-bit words.
    const words = v.type === 'int64' || v.type === 'uint64' ? new Int32Array(v.data.buffer, v.data.byteOffset, 2 * n) : undefined;
    const data = v.data as ArrayLike<number>;
    const valid = v.type === 'binary' ? undefined : v.valid;
    let last = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0 && (valid === undefined || valid[i] === valid[i - 1])) {
        const same = words !== undefined ? words[2 * i] === words[2 * i - 2] && words[2 * i + 1] === words[2 * i - 1] : data[i] === data[i - 1];
        if (same) {
          out[at + i] = last;
          continue;
        }
      }
      changed[i] = 1;
      out[at + i] = last = this.code(t, pkValue(v, i, col));
    }
  }

  /**
   * The key id of every row of `batch`, new keys added. The codes of all key columns go to one
   * matrix (column by column) and a row whose codes are all those of the row before — the rows of
   * one series together — takes its id without hashing.
   */
  idsOf(batch: WriteBatch): Int32Array {
    const n = batch.rowCount;
    const width = this.tags.length;
    const ids = new Int32Array(n);
    if (n === 0) return ids;
    // Scratch kept between batches (typed arrays are costly to allocate), up to a bound.
    const cells = n * width;
    const codes = cells <= SCRATCH_CELLS ? this.codeScratch(cells) : new Int32Array(cells);
    const changed = n <= SCRATCH_CELLS ? this.changedScratch(n) : new Uint8Array(n);
    changed[0] = 1;
    for (let t = 0; t < width; t++) this.columnCodes(t, batch.columns.get(this.primaryKey[t]!), n, codes, t * n, changed);
    let prev = -1;
    for (let row = 0; row < n; row++) {
      if (changed[row] === 0) {
        ids[row] = prev;
        continue;
      }
      let h = 0x811c9dc5;
      for (let t = 0; t < width; t++) h = Math.imul(h ^ codes[t * n + row]!, 0x01000193);
      h ^= h >>> 15;
      const mask = this.slots.length - 1;
      let slot = h & mask;
      let id: number;
      for (;;) {
        id = this.slots[slot]!;
        if (id === EMPTY) {
          id = this.add(codes, n, row, slot);
          break;
        }
        let match = true;
        const base = id * width;
        for (let t = 0; t < width; t++) {
          if (this.tuples[base + t] !== codes[t * n + row]) {
            match = false;
            break;
          }
        }
        if (match) break;
        slot = (slot + 1) & mask;
      }
      ids[row] = prev = id;
    }
    return ids;
  }

  private codeScratch(cells: number): Int32Array {
    if (this.codes.length < cells) this.codes = new Int32Array(Math.max(cells, 2 * this.codes.length));
    return this.codes;
  }

  /** Zeroed marks for `n` rows. */
  private changedScratch(n: number): Uint8Array {
    if (this.changed.length < n) this.changed = new Uint8Array(Math.max(n, 2 * this.changed.length));
    else this.changed.fill(0, 0, n);
    return this.changed;
  }

  private localScratch(n: number): Int32Array {
    if (this.local.length < n) this.local = new Int32Array(Math.max(n, 2 * this.local.length));
    return this.local;
  }

  /** Adds the key of row `row` (codes of column t at `codes[t × n + row]`) at `slot`. */
  private add(codes: Int32Array, n: number, row: number, slot: number): number {
    const width = this.tags.length;
    const id = this.keys.length;
    const key: PkValue[] = new Array(width);
    for (let t = 0; t < width; t++) key[t] = this.valueOf[t]![codes[t * n + row]!]!;
    this.keys.push(key);
    if ((id + 1) * width > this.tuples.length) {
      const next = new Int32Array(Math.max(this.tuples.length * 2, (id + 1) * width));
      next.set(this.tuples);
      this.bytes += next.byteLength - this.tuples.byteLength;
      this.tuples = next;
    }
    for (let t = 0; t < width; t++) this.tuples[id * width + t] = codes[t * n + row]!;
    this.slots[slot] = id;
    this.bytes += 48 + 8 * width;
    if (this.keys.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  /** Doubles the table (kept at most half full). */
  private rehash(): void {
    const width = this.tags.length;
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let id = 0; id < this.keys.length; id++) {
      let h = 0x811c9dc5;
      for (let t = 0; t < width; t++) h = Math.imul(h ^ this.tuples[id * width + t]!, 0x01000193);
      h ^= h >>> 15;
      let slot = h & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.bytes += slots.byteLength - this.slots.byteLength;
    this.slots = slots;
  }
}
