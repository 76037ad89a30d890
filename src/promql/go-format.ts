/**
 * Go's spellings that Prometheus's error messages and labels use: `strconv.Quote`, a label set's
 * `String()` (`{a="b", c="d"}`, `__name__` as any other label) and `strconv.FormatFloat(v, 'f', -1,
 * 64)` (count_values' label values: shortest digits, never an exponent).
 */
import type { Labels } from './labels.js';

/** Go's `%q` of a string (`strconv.Quote`). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoteChar(ch, '"');
  return out + '"';
}

/** Go's `%q` of a rune. */
export function goQuoteRune(ch: string): string {
  return `'${quoteChar(ch, "'")}'`;
}

function quoteChar(ch: string, quote: string): string {
  const cp = ch.codePointAt(0)!;
  if (ch === quote || ch === '\\') return `\\${ch}`;
  if (cp >= 0x20 && cp < 0x7f) return ch;
  switch (cp) {
    case 7:
      return '\\a';
    case 8:
      return '\\b';
    case 12:
      return '\\f';
    case 10:
      return '\\n';
    case 13:
      return '\\r';
    case 9:
      return '\\t';
    case 11:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (isPrintable(ch)) return ch;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

const NON_PRINTABLE = /^[\p{C}\p{Z}]$/u;
export function isPrintable(ch: string): boolean {
  // Go's IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
  return ch === ' ' || !NON_PRINTABLE.test(ch);
}

/** A label set as Go's `labels.Labels.String()` writes it. */
export function goLabelsString(labels: Labels): string {
  return `{${labels.map((l) => `${l.name}=${goQuote(l.value)}`).join(', ')}}`;
}

/** strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that round-trip, in plain notation. */
export function formatFloatF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  const s = String(v);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const sign = m[1]!;
  const digits = m[2]! + (m[3] ?? '');
  const exp = Number(m[4]);
  if (exp >= 0) {
    const intLen = exp + 1;
    if (digits.length <= intLen) return sign + digits + '0'.repeat(intLen - digits.length);
    return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}

/** fmt's %v of a float64 (strconv 'g', shortest): an exponent from 1e+06 up and below 1e-04. */
export function formatFloatV(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return formatFloatF(v);
}

/** Go's `%f` verb, for error messages that quote a number as Prometheus's fmt.Errorf prints it (`NaN`, `+Inf`, `-0.000000`, all integer digits, ties to even). */
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
