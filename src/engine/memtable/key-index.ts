/**
 * Series ids of a memtable: each primary key column's values get small codes (strings through the
 * column's dictionary, one lookup per distinct value of a batch), and each tuple of codes a key id
 * in an open-addressing hash table — no key string is built per row.
 */
import { dictionaryOf, NULL_CODE } from '../batch/string-dictionary.js';
import type { Vector, WriteBatch } from '../../types/write-batch.js';
import type { ColumnMetadata } from '../../types/region-metadata.js';
import type { PkValue } from './memtable.js';
import { pkValue } from './series-key.js';

const EMPTY = -1;

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

  /** Per primary key column, the codes of the batch's rows. */
  private columnCodes(t: number, v: Vector | undefined, n: number): Int32Array {
    const col = this.tags[t]!;
    const out = new Int32Array(n);
    if (v === undefined) return out.fill(this.code(t, pkValue(undefined, 0, col)));
    if (v.type === 'string') {
      const dict = dictionaryOf(v)!;
      const local = Int32Array.from(dict.values, (s) => this.code(t, s));
      const nullCode = dict.codes.includes(NULL_CODE) ? this.code(t, null) : -1;
      const codes = dict.codes;
      for (let i = 0; i < n; i++) {
        const c = codes[i]!;
        out[i] = c === NULL_CODE ? nullCode : local[c]!;
      }
      return out;
    }
    for (let i = 0; i < n; i++) out[i] = this.code(t, pkValue(v, i, col));
    return out;
  }

  /** The key id of every row of `batch`, new keys added. */
  idsOf(batch: WriteBatch): Int32Array {
    const n = batch.rowCount;
    const width = this.tags.length;
    const cols = this.tags.map((c, t) => this.columnCodes(t, batch.columns.get(c.column_id), n));
    const ids = new Int32Array(n);
    let prev = -1;
    for (let row = 0; row < n; row++) {
      if (prev >= 0) {
        let same = true;
        for (let t = 0; t < width; t++) {
          if (cols[t]![row] !== cols[t]![row - 1]) {
            same = false;
            break;
          }
        }
        if (same) {
          ids[row] = prev;
          continue;
        }
      }
      let h = 0x811c9dc5;
      for (let t = 0; t < width; t++) h = Math.imul(h ^ cols[t]![row]!, 0x01000193);
      h ^= h >>> 15;
      const mask = this.slots.length - 1;
      let slot = h & mask;
      let id: number;
      for (;;) {
        id = this.slots[slot]!;
        if (id === EMPTY) {
          id = this.add(cols, row, slot);
          break;
        }
        let match = true;
        const base = id * width;
        for (let t = 0; t < width; t++) {
          if (this.tuples[base + t] !== cols[t]![row]) {
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

  private add(cols: readonly Int32Array[], row: number, slot: number): number {
    const width = this.tags.length;
    const id = this.keys.length;
    this.keys.push(cols.map((c, t) => this.valueOf[t]![c[row]!]!));
    if ((id + 1) * width > this.tuples.length) {
      const next = new Int32Array(Math.max(this.tuples.length * 2, (id + 1) * width));
      next.set(this.tuples);
      this.bytes += next.byteLength - this.tuples.byteLength;
      this.tuples = next;
    }
    for (let t = 0; t < width; t++) this.tuples[id * width + t] = cols[t]![row]!;
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
