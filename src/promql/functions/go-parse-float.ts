/**
 * Go's strconv.ParseFloat(s, 64) as far as PromQL needs it (histogram `le` label values): decimal
 * and hexadecimal (`0x1p-3`) forms, `inf`/`infinity`/`nan` in any case; undefined where Go
 * returns an error — including out-of-range values such as `1e400`, which Go rejects with ErrRange.
 */

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX = /^([+-]?)0[xX]((?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+))[pP]([+-]?[0-9_]+)$/;

export function goParseFloat(s: string): number | undefined {
  const special = parseSpecial(s);
  if (special !== undefined) return special;
  if (DECIMAL.test(s)) {
    const v = Number(s);
    return Number.isFinite(v) ? v : undefined;
  }
  const m = HEX.exec(s);
  if (m !== null && underscoreOK(s)) return parseHex(m[1] === '-', m[2]!.replace(/_/g, ''), Number(m[3]!.replace(/_/g, '')));
  return undefined;
}

function parseSpecial(s: string): number | undefined {
  const l = s.toLowerCase();
  let sign = 1;
  let body = l;
  if (l[0] === '+' || l[0] === '-') {
    sign = l[0] === '-' ? -1 : 1;
    body = l.slice(1);
    if (body === 'inf' || body === 'infinity') return sign * Infinity;
    return undefined;
  }
  if (body === 'inf' || body === 'infinity') return Infinity;
  if (body === 'nan') return Number.NaN;
  return undefined;
}

/** Go's underscoreOK for a base-prefixed number: '_' only between digits or after the prefix. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s[0] === '+' || s[0] === '-') s = s.slice(1);
  if (s.length >= 2 && s[0] === '0' && /[xX]/.test(s[1]!)) {
    i = 2;
    saw = '0';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (/[0-9a-fA-F]/.test(c) && !/[pP]/.test(c)) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** A hex mantissa times 2^exp, correctly rounded (half to even); undefined on overflow. */
function parseHex(neg: boolean, mant: string, exp: number): number | undefined {
  const dot = mant.indexOf('.');
  const digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  if (digits === '') return undefined;
  if (dot >= 0) exp -= 4 * (mant.length - dot - 1);
  let m = BigInt(`0x${digits}`);
  if (m === 0n) return neg ? -0 : 0;
  // Normalise to a 53-bit mantissa with round-half-even, tracking the binary exponent.
  let bits = m.toString(2).length;
  let e = exp;
  const target = Math.max(53, 0);
  if (bits > target) {
    const shift = BigInt(bits - target);
    const rem = m & ((1n << shift) - 1n);
    const half = 1n << (shift - 1n);
    m >>= shift;
    e += Number(shift);
    if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
    bits = m.toString(2).length;
  }
  const v = Number(m) * 2 ** e;
  if (!Number.isFinite(v) || (bits + e > 1024)) return undefined;
  // Subnormal results: let the multiplication round (a second rounding; acceptable for `le` labels).
  return neg ? -v : v;
}
