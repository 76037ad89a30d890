/**
 * A string column as its distinct values and one code per row — how tags travel: the WAL writes
 * them so, and the memtables find series by the codes (one lookup per distinct value instead of
 * one per row). Computed at most once per vector and remembered with it.
 */
import type { Vector } from './write-batch.js';

export type StringVector = Extract<Vector, { type: 'string' }>;

/** The code of a NULL row. */
export const NULL_CODE = 0xffff_ffff;

export interface StringDictionary {
  /** Distinct non-NULL values, in order of first appearance. */
  readonly values: readonly string[];
  /** Per row: an index into `values`, or NULL_CODE. */
  readonly codes: Uint32Array;
}

const known = new WeakMap<StringVector, StringDictionary>();

/**
 * The dictionary of `v`, or undefined when it has more than `maxDistinct` distinct values (then
 * nothing is remembered, and a later call without a limit computes it in full).
 */
export function dictionaryOf(v: StringVector, maxDistinct = Infinity): StringDictionary | undefined {
  const cached = known.get(v);
  if (cached !== undefined) return cached.values.length <= maxDistinct ? cached : undefined;
  const data = v.data;
  const index = new Map<string, number>();
  const codes = new Uint32Array(data.length);
  let last: string | null | undefined;
  let lastCode = NULL_CODE;
  for (let i = 0; i < data.length; i++) {
    const s = data[i] ?? null;
    // Runs of one value (a series' rows together) cost one comparison each.
    if (s === last) {
      codes[i] = lastCode;
      continue;
    }
    let code = NULL_CODE;
    if (s !== null) {
      const found = index.get(s);
      if (found === undefined) {
        if (index.size >= maxDistinct) return undefined;
        code = index.size;
        index.set(s, code);
      } else code = found;
    }
    codes[i] = code;
    last = s;
    lastCode = code;
  }
  const dict = { values: [...index.keys()], codes };
  known.set(v, dict);
  return dict;
}

/** The dictionary of `v` if it is already known (made from one, or computed before); never computes it. */
export function knownDictionary(v: StringVector): StringDictionary | undefined {
  return known.get(v);
}

/** The number of rows of a string vector, without making its per-row strings when they are not made yet. */
export function stringVectorLength(v: StringVector): number {
  return known.get(v)?.codes.length ?? v.data.length;
}

/**
 * A string vector built from a dictionary (WAL replay, a protocol decoder that sees each series'
 * tags once): its dictionary is known from the start,
 * and the per-row strings are only made if something reads `data` (tags are read by their codes).
 */
export function vectorFromDictionary(values: readonly string[], codes: Uint32Array, trusted = false): StringVector {
  // Codes read from outside (the WAL, another thread) are checked; a maker that built them itself from `values` need not.
  if (!trusted) {
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (c !== NULL_CODE && c >= values.length) throw new RangeError(`dictionary index ${c} out of range (${values.length} values)`);
    }
  }
  let data: (string | null)[] | undefined;
  const v: StringVector = {
    type: 'string',
    get data(): readonly (string | null)[] {
      if (data === undefined) {
        data = new Array(codes.length);
        for (let i = 0; i < codes.length; i++) {
          const c = codes[i]!;
          data[i] = c === NULL_CODE ? null : values[c]!;
        }
      }
      return data;
    },
  };
  known.set(v, { values, codes });
  return v;
}
