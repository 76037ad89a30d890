/**
 * Go's `%f` verb for error messages that quote a number the way Prometheus's fmt.Errorf prints it
 * (`NaN`, `+Inf`, `-0.000000`, all integer digits for large values, ties to even).
 */

/** fmt.Sprintf("%.<prec>f", x). */
export function goFormatF(x: number, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return '+Inf';
  if (x === Number.NEGATIVE_INFINITY) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  return (neg ? '-' : '') + fixedAbs(Math.abs(x), prec);
}

/**
 * The exact decimal expansion of a double rounded to `prec` places, half to even (toFixed rounds
 * ties up and switches to exponent form from 1e21).
 */
function fixedAbs(x: number, prec: number): string {
  // x = m * 2^e exactly, with m an integer.
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = expBits - 1075;
  }
  const scale = 10n ** BigInt(prec);
  let q: bigint;
  if (e >= 0) q = (m << BigInt(e)) * scale;
  else {
    const num = m * scale;
    const den = 1n << BigInt(-e);
    q = num / den;
    const r = num - q * den;
    if (r * 2n > den || (r * 2n === den && (q & 1n) === 1n)) q += 1n;
  }
  const s = q.toString().padStart(prec + 1, '0');
  return prec === 0 ? s : `${s.slice(0, s.length - prec)}.${s.slice(s.length - prec)}`;
}
