/**
 * A float32 as the shortest decimal that reads back as the same float32: what GreptimeDB's
 * results show for a FLOAT column (`0.04`, not the double `0.03999999910593033` the same bits
 * widen to). Shared by the HTTP results (as a number) and the MySQL text protocol (as text).
 */

/** The double whose shortest text is float32 `v`'s shortest text (NaN, ±Infinity and ±0 as they are). */
export function shortestFloat32(v: number): number {
  const f = Math.fround(v);
  if (!Number.isFinite(f) || f === 0) return f;
  for (let p = 1; p < 9; p++) {
    const s = Number(f.toPrecision(p));
    if (Math.fround(s) === f) return s;
  }
  return Number(f.toPrecision(9));
}
