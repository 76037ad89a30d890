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
