/**
 * Reading one series out of a memtable: its rows put in time order (newest sequence first among
 * equal times) and chosen by the read mode — the part both memtable kinds share.
 */
import { OP_DELETE } from '../../types/write-batch.js';
import type { ReadMode } from './memtable.js';
import { compareWords } from './series-key.js';

/**
 * Sorts row positions `pos` (in place) by time, then newest sequence first. `words` holds the
 * times as 32-bit word pairs. Returns true when the times were strictly increasing already: no
 * sort was needed and there is nothing to deduplicate.
 */
export function sortByTime(pos: Int32Array, words: Int32Array, seq: Float64Array): boolean {
  let increasing = true;
  for (let i = 1; i < pos.length; i++) {
    const a = pos[i - 1]!;
    const b = pos[i]!;
    if (compareWords(words[2 * b + 1]!, words[2 * b]!, words[2 * a + 1]!, words[2 * a]!) <= 0) {
      increasing = false;
      break;
    }
  }
  if (increasing) return true;
  pos.sort((a, b) => compareWords(words[2 * a + 1]!, words[2 * a]!, words[2 * b + 1]!, words[2 * b]!) || seq[b]! - seq[a]!);
  return false;
}

/** The rows a read keeps, and per field the row each value comes from (-1 = NULL). */
export interface Selection {
  readonly rows: Int32Array;
  readonly perField: readonly Int32Array[];
}

/**
 * Chooses the rows of one series: `order` is sorted by `sortByTime`; `distinct` says its times
 * are all different. `append` keeps every row; `last_row` the newest of each time (a delete
 * included); `last_non_null` takes each field's newest non-NULL value, stopping at a newer delete.
 */
export function selectRows(
  order: Int32Array,
  distinct: boolean,
  words: Int32Array,
  op: Uint8Array,
  mode: ReadMode,
  fieldCount: number,
  isNull: (field: number, row: number) => boolean,
): Selection {
  const same = (rows: Int32Array): Selection => ({ rows, perField: Array.from({ length: fieldCount }, () => rows) });
  if (mode === 'append' || distinct) return same(order);
  const n = order.length;
  // One output row per distinct time: the first (newest) of each group of equal times.
  const heads: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 0) heads.push(0);
    else {
      const a = order[i - 1]!;
      const b = order[i]!;
      if (words[2 * a] !== words[2 * b] || words[2 * a + 1] !== words[2 * b + 1]) heads.push(i);
    }
  }
  const rows = new Int32Array(heads.length);
  for (let h = 0; h < heads.length; h++) rows[h] = order[heads[h]!]!;
  if (mode === 'last_row') return same(rows);
  const perField = Array.from({ length: fieldCount }, (_, f) => {
    const idx = new Int32Array(heads.length);
    for (let h = 0; h < heads.length; h++) {
      const end = h + 1 < heads.length ? heads[h + 1]! : n;
      idx[h] = -1;
      for (let i = heads[h]!; i < end; i++) {
        const j = order[i]!;
        if (op[j] === OP_DELETE) break;
        if (!isNull(f, j)) {
          idx[h] = j;
          break;
        }
      }
    }
    return idx;
  });
  return { rows, perField };
}
