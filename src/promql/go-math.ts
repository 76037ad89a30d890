/**
 * Go's math.Atan2, computed as Go computes it (Cephes' rational approximation, in pure Go on
 * amd64), so `atan2` answers bit-identical values to Prometheus's rather than V8's (which may
 * differ in the last place).
 */

// Cephes atan.c coefficients, as Go's math/atan.go uses them.
const P0 = -8.750608600031904122785e-1;
const P1 = -1.615753718733365076637e1;
const P2 = -7.50085579231470466734e1;
const P3 = -1.22886668449013617341e2;
const P4 = -6.485021904942025371773e1;
const Q0 = 2.485846490142306297962e1;
const Q1 = 1.650270098316988542046e2;
const Q2 = 4.328810604912902668951e2;
const Q3 = 4.853903996359136964868e2;
const Q4 = 1.945506571482613964425e2;
/** pi/2 = PIO2 + MOREBITS */
const MOREBITS = 6.12323399573676588613e-17;
const TAN3PIO8 = 2.4142135623730950488;

/** The series for [0, 0.66]. */
function xatan(x: number): number {
  let z = x * x;
  z = (z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4)) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  return x * z + x;
}

/** Range reduction of a positive argument. */
function satan(x: number): number {
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return Math.PI / 2 - xatan(1 / x) + MOREBITS;
  return Math.PI / 4 + xatan((x - 1) / (x + 1)) + 0.5 * MOREBITS;
}

export function goAtan(x: number): number {
  if (x === 0) return x;
  return x > 0 ? satan(x) : -satan(-x);
}

const copysign = (m: number, s: number): number => (s < 0 || Object.is(s, -0) ? -Math.abs(m) : Math.abs(m));

export function goAtan2(y: number, x: number): number {
  if (Number.isNaN(y) || Number.isNaN(x)) return Number.NaN;
  if (y === 0) return x >= 0 && !Object.is(x, -0) ? copysign(0, y) : copysign(Math.PI, y);
  if (x === 0) return copysign(Math.PI / 2, y);
  const xInf = x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY;
  const yInf = y === Number.POSITIVE_INFINITY || y === Number.NEGATIVE_INFINITY;
  if (xInf) {
    if (x > 0) return yInf ? copysign(Math.PI / 4, y) : copysign(0, y);
    return yInf ? copysign((3 * Math.PI) / 4, y) : copysign(Math.PI, y);
  }
  if (yInf) return copysign(Math.PI / 2, y);
  const q = goAtan(y / x);
  if (x < 0) return q <= 0 ? q + Math.PI : q - Math.PI;
  return q;
}

const bits = new DataView(new ArrayBuffer(8));

/** Go's math.Frexp: x = frac × 2^exp with |frac| in [0.5, 1). */
export function goFrexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = 0;
  if (Math.abs(x) < 2.2250738585072014e-308) {
    x *= 2 ** 52;
    e = -52;
  }
  bits.setFloat64(0, x);
  const hi = bits.getUint32(0);
  e += ((hi >>> 20) & 0x7ff) - 1022;
  bits.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return [bits.getFloat64(0), e];
}

/** Go's math.Ldexp: frac × 2^exp, rounding once when the result is subnormal. */
export function goLdexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  const [f, e] = goFrexp(frac);
  exp += e;
  if (exp < -1075) return f < 0 ? -0 : 0;
  if (exp > 1024) return f < 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  // f × 2^exp in two exact steps, the last one rounding (if subnormal) once.
  if (exp < -1021) return f * 2 ** (exp + 60) * 2 ** -60;
  return f * 2 ** (exp - 1) * 2;
}

function isOddInt(x: number): boolean {
  if (Math.abs(x) >= 2 ** 53) return false;
  return Number.isInteger(x) && Math.abs(x % 2) === 1;
}

/**
 * Go's math.Pow: its special cases, and integer powers by Go's repeated squaring (so `x ^ 3`
 * answers Prometheus's bits); a fractional part of the exponent goes through exp/log, where the
 * last place may differ from Go's assembly.
 */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  if (x === 0) {
    if (y < 0) return Object.is(x, -0) && isOddInt(y) ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    return Object.is(x, -0) && isOddInt(y) ? x : 0;
  }
  if (y === Number.POSITIVE_INFINITY || y === Number.NEGATIVE_INFINITY) {
    if (x === -1) return 1;
    return Math.abs(x) < 1 === (y > 0) ? 0 : Number.POSITIVE_INFINITY;
  }
  if (x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY) {
    if (x < 0) return goPow(1 / x, -y);
    return y < 0 ? 0 : Number.POSITIVE_INFINITY;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);

  const ay = Math.abs(y);
  let yi = Math.trunc(ay);
  let yf = ay - yi;
  if (yf !== 0 && x < 0) return Number.NaN;
  if (yi >= 2 ** 63) {
    if (x === -1) return 1;
    return Math.abs(x) < 1 === (y > 0) ? 0 : Number.POSITIVE_INFINITY;
  }
  let a1 = 1;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = Math.exp(yf * Math.log(x));
  }
  let [x1, xe] = goFrexp(x);
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      ae += xe;
      break;
    }
    if (i % 2 === 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return goLdexp(a1, ae);
}
