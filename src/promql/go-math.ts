/**
 * Go's `math` functions as Prometheus 2.42 (Go 1.19, linux/amd64) computes them, so that
 * exp/ln/log10/log2 and the trigonometric and hyperbolic functions agree with it to the last bit
 * (V8's fdlibm-derived Math.* differ by an ulp or more on many inputs, and Go's amd64 Log even
 * mishandles subnormals). Exp and Log follow Go's amd64 assembly (Exp on its FMA path, which
 * Go takes on CPUs with AVX2 and FMA); the rest follow Go's portable code (Cephes and FreeBSD
 * msun algorithms); Atan2 and Pow (integer powers by Go's repeated squaring) for the binary
 * operators. Each step keeps Go's order of float64 operations.
 */

const view = new DataView(new ArrayBuffer(8));

function bitsHi(x: number): number {
  view.setFloat64(0, x);
  return view.getUint32(0);
}

function fromBits(hi: number, lo: number): number {
  view.setUint32(0, hi >>> 0);
  view.setUint32(4, lo >>> 0);
  return view.getFloat64(0);
}

/** x as m · 2^e with m an integer (x finite). */
function decompose(x: number): [bigint, number] {
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = expBits - 1075;
  }
  return [neg ? -m : m, e];
}

function scale2(x: number, e: number): number {
  // Two steps so that 2^e itself never overflows or underflows.
  const h = Math.trunc(e / 2);
  return x * 2 ** h * 2 ** (e - h);
}

const SPLITTER = 134217729; // 2^27 + 1 (Veltkamp)

/**
 * a·b + c with a single rounding (the VFMADD instructions). Fast path: the exact value as a sum of
 * doubles (TwoProduct, TwoSum) is rounded once unless it lies too close to a rounding boundary to
 * tell, or the operands are extreme; those cases take the exact BigInt route.
 */
export function fma(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a * b + c;
  // A finite product never overflows inside an FMA, so an infinite (or NaN) addend decides.
  if (!Number.isFinite(c)) return c;
  if (a === 0 || b === 0) return a * b + c;
  if (c === 0) return a * b;
  const ph = a * b;
  const aa = Math.abs(a);
  const ab = Math.abs(b);
  const ac = Math.abs(c);
  const ap = Math.abs(ph);
  if (aa < 1e150 && ab < 1e150 && ac < 1e290 && ap > 1e-250 && (ac > 1e-250 || ac === 0)) {
    let t = SPLITTER * a;
    const ah = t - (t - a);
    const al = a - ah;
    t = SPLITTER * b;
    const bh = t - (t - b);
    const bl = b - bh;
    const pl = ah * bh - ph + ah * bl + al * bh + al * bl;
    const sh = ph + c;
    let bb = sh - ph;
    const sl = ph - (sh - bb) + (c - bb);
    const uh = sl + pl;
    bb = uh - sl;
    const ul = sl - (uh - bb) + (pl - bb);
    const r = sh + uh;
    bb = r - sh;
    const e1 = sh - (r - bb) + (uh - bb);
    // r rounds sh + uh; the exact value is r + e1 + ul. Rounding is monotonic, so if r + d stays r
    // for d a hair either side of the computed e1 + ul, it stays r for the exact residual too.
    const d = e1 + ul;
    if (r + d * 1.0001 === r && r + d * 0.9999 === r) return r;
  }
  return exactFma(a, b, c);
}

/** The exact route: a·b + c in BigInt, rounded half to even (exported for tests). */
export function exactFma(a: number, b: number, c: number): number {
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  const s = ((ma * mb) << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (s === 0n) return 0;
  const neg = s < 0n;
  let m = neg ? -s : s;
  let exp = e;
  const len = m.toString(2).length;
  // Keep 53 significant bits (fewer below the normal range), rounding half to even.
  let keep = 53;
  const minExp = -1074;
  if (exp + len - keep < minExp) keep = Math.max(0, len - (minExp - exp));
  if (len > keep) {
    const shift = BigInt(len - keep);
    const rem = m & ((1n << shift) - 1n);
    const half = 1n << (shift - 1n);
    m >>= shift;
    exp += len - keep;
    if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
  }
  const v = scale2(Number(m), exp);
  return neg ? -v : v;
}

/** CVTSD2SL: round half to even to int32; NaN and out-of-range give the "integer indefinite" value. */
function cvtsd2sl(x: number): number {
  if (!(x >= -2147483648.5 && x < 2147483647.5)) return -2147483648;
  const r = Math.round(x);
  // Math.round rounds halves up; SSE rounds them to even.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const LOG2E = 1.442695040888963407359924681001892;
const LN2U = 0.69314718055966295651160180568695068359375;
const LN2L = 0.28235290563031577122588448175013436025525412068e-12;
const EXP_OVERFLOW = 7.09782712893384e2;

/** Go's amd64 Exp (FMA path). */
export function goExp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > EXP_OVERFLOW) return Infinity;
  const k = cvtsd2sl(LOG2E * x);
  let r = fma(-k, LN2U, x);
  r = fma(-k, LN2L, r);
  r *= 0.0625;
  let p = 2.4801587301587301587e-5;
  p = fma(p, r, 1.984126984126984127e-4);
  p = fma(p, r, 1.3888888888888888889e-3);
  p = fma(p, r, 8.3333333333333333333e-3);
  p = fma(p, r, 4.1666666666666666667e-2);
  p = fma(p, r, 1.6666666666666666667e-1);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  r *= p;
  r *= r + 2.0;
  r *= r + 2.0;
  r *= r + 2.0;
  r = fma(r, r + 2.0, 1.0);
  const biased = k + 0x3ff;
  if (biased <= 0) {
    // Subnormal results in two steps (2^(k+1022), then 2^-1022), as Go's denormal branch.
    if (biased < -52) return 0;
    return r * fromBits((biased + 0x3fe) << 20, 0) * fromBits(1 << 20, 0);
  }
  if (biased >= 0x7ff) return Infinity;
  return r * fromBits(biased << 20, 0);
}

const HSQRT2 = 7.07106781186547524401e-1;
const LN2HI = 6.9314718036912381649e-1;
const LN2LO = 1.90821492927058770002e-10;
const L1 = 6.66666666666673513e-1;
const L2 = 3.999999999940941908e-1;
const L3 = 2.857142874366239149e-1;
const L4 = 2.222219843214978396e-1;
const L5 = 1.818357216161805012e-1;
const L6 = 1.531383769920937332e-1;
const L7 = 1.479819860511658591e-1;

/** Go's amd64 Log (its frexp ignores subnormals: their results are off, as in Prometheus). */
export function goLog(x: number): number {
  if (x === 0) return -Infinity;
  if (Number.isNaN(x)) return x;
  if (x < 0 || Object.is(x, -0)) return Number.NaN;
  if (x === Infinity) return x;
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  let f1 = fromBits((hi & 0x000fffff) | 0x3fe00000, lo);
  let k = ((hi >>> 20) & 0x7ff) - 0x3fe;
  if (f1 <= HSQRT2) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const R = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2HI - ((hfsq - (s * (hfsq + R) + k * LN2LO)) - f);
}

export function goLog10(x: number): number {
  // Go's constant 1/Ln10 is exact before rounding: log10(e) correctly rounded.
  return goLog(x) * Math.LOG10E;
}

/** Go's Log2: exact for powers of two (via Frexp), else Log(frac)·(1/Ln2) + exp. */
export function goLog2(x: number): number {
  const [frac, exp] = goFrexp(x);
  if (frac === 0.5) return exp - 1;
  return goLog(frac) * Math.LOG2E + exp;
}

// --- sin, cos, tan (Cephes, with Go's Payne–Hanek reduction beyond 2^29) ---

const SIN = [1.5896230157654656806e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6, -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1];
const COS = [-1.135853652138768173e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7, 2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2];
const PI4A = 7.85398125648498535156e-1;
const PI4B = 3.77489470793079817668e-8;
const PI4C = 2.69515142907905952645e-15;
const FOUR_OVER_PI = 1.2732395447351628;
const REDUCE_THRESHOLD = 2 ** 29;

const M_PI4 = [
  0x0000000000000001n, 0x45f306dc9c882a53n, 0xf84eafa3ea69bb81n, 0xb6c52b3278872083n, 0xfca2c757bd778ac3n, 0x6e48dc74849ba5c0n, 0x0c925dd413a32439n, 0xfc3bd63962534e7dn, 0xd1046bea5d768909n, 0xd338e04d68befc82n,
  0x7323ac7306a673e9n, 0x3908bf177bf25076n, 0x3ff12fffbc0b301fn, 0xde5e2316b414da3en, 0xda6cfd9e4f96136en, 0x9e8c7ecd3cbfd45an, 0xea4f758fd7cbe2f6n, 0x7a0e73ef14a525d4n, 0xd7f6bf623f1aba10n, 0xac06608df8f6d757n,
];
const U64 = (1n << 64n) - 1n;

/** Go's trigReduce: octant j and the reduced argument for x ≥ 2^29 (uint64 arithmetic in BigInt). */
function trigReduce(x: number): [number, number] {
  const PI4 = Math.PI / 4;
  if (x < PI4) return [0, x];
  view.setFloat64(0, x);
  let ix = view.getBigUint64(0);
  const exp = Number((ix >> 52n) & 0x7ffn) - 1023 - 52;
  ix &= ~(0x7ffn << 52n);
  ix |= 1n << 52n;
  const digit = Math.floor((exp + 61) / 64);
  const bitshift = BigInt((exp + 61) % 64);
  const sh = (a: bigint, b: bigint): bigint => ((a << bitshift) & U64) | (bitshift === 0n ? 0n : b >> (64n - bitshift));
  const z0 = sh(M_PI4[digit]!, M_PI4[digit + 1]!);
  const z1 = sh(M_PI4[digit + 1]!, M_PI4[digit + 2]!);
  const z2 = sh(M_PI4[digit + 2]!, M_PI4[digit + 3]!);
  const z2hi = (z2 * ix) >> 64n;
  const z1p = z1 * ix;
  const z1hi = z1p >> 64n;
  const z1lo = z1p & U64;
  const z0lo = (z0 * ix) & U64;
  const loSum = z1lo + z2hi;
  const lo = loSum & U64;
  const carry = loSum >> 64n;
  let hi = (z0lo + z1hi + carry) & U64;
  let j = Number(hi >> 61n);
  hi = ((hi << 3n) & U64) | (lo >> 61n);
  const lz = 64 - hi.toString(2).length;
  const e = BigInt(1023 - (lz + 1));
  hi = ((hi << BigInt(lz + 1)) & U64) | (lo >> BigInt(64 - (lz + 1)));
  hi >>= 64n - 52n;
  hi |= e << 52n;
  view.setBigUint64(0, hi);
  let z = view.getFloat64(0);
  if ((j & 1) === 1) {
    j = (j + 1) & 7;
    z--;
  }
  return [j, z * PI4];
}

/** The octant and the reduced argument for sin/cos/tan (x ≥ 0), zeros mapped to the origin. */
function reduce(x: number, mod8: boolean): [number, number] {
  if (x >= REDUCE_THRESHOLD) return trigReduce(x);
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if ((j & 1) === 1) {
    j++;
    y++;
  }
  if (mod8) j &= 7;
  return [j, x - y * PI4A - y * PI4B - y * PI4C];
}

function sinPoly(z: number, zz: number): number {
  return z + z * zz * ((((((SIN[0]! * zz + SIN[1]!) * zz + SIN[2]!) * zz + SIN[3]!) * zz + SIN[4]!) * zz) + SIN[5]!);
}

function cosPoly(zz: number): number {
  return 1.0 - 0.5 * zz + zz * zz * ((((((COS[0]! * zz + COS[1]!) * zz + COS[2]!) * zz + COS[3]!) * zz + COS[4]!) * zz) + COS[5]!);
}

export function goSin(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return Number.NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let [j, z] = reduce(x, true);
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosPoly(zz) : sinPoly(z, zz);
  return sign ? -y : y;
}

export function goCos(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  x = Math.abs(x);
  let sign = false;
  let [j, z] = reduce(x, true);
  if (j > 3) {
    j -= 4;
    sign = !sign;
  }
  if (j > 1) sign = !sign;
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinPoly(z, zz) : cosPoly(zz);
  return sign ? -y : y;
}

const TAN_P = [-1.30936939181383777646e4, 1.1535166483858741614e6, -1.79565251976484877988e7];
const TAN_Q = [1.0, 1.36812963470692954678e4, -1.32089234440210967447e6, 2.50083801823357915839e7, -5.38695755929454629881e7];

export function goTan(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return Number.NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  const [j, z] = reduce(x, false);
  const zz = z * z;
  let y = zz > 1e-14 ? z + z * ((zz * ((TAN_P[0]! * zz + TAN_P[1]!) * zz + TAN_P[2]!)) / ((((zz + TAN_Q[1]!) * zz + TAN_Q[2]!) * zz + TAN_Q[3]!) * zz + TAN_Q[4]!)) : z;
  if ((j & 2) === 2) y = -1 / y;
  return sign ? -y : y;
}

// --- atan, asin, acos (Cephes) ---

function xatan(x: number): number {
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
  let z = x * x;
  z = (z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4)) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  return x * z + x;
}

function satan(x: number): number {
  const MOREBITS = 6.12323399573676588613e-17;
  const TAN3PIO8 = 2.4142135623730950488;
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return Math.PI / 2 - xatan(1 / x) + MOREBITS;
  return Math.PI / 4 + xatan((x - 1) / (x + 1)) + 0.5 * MOREBITS;
}

export function goAtan(x: number): number {
  if (x === 0) return x;
  if (x > 0) return satan(x);
  return -satan(-x);
}

export function goAsin(x: number): number {
  if (x === 0) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x > 1) return Number.NaN;
  let temp = Math.sqrt(1 - x * x);
  temp = x > 0.7 ? Math.PI / 2 - satan(temp / x) : satan(x / temp);
  return sign ? -temp : temp;
}

export function goAcos(x: number): number {
  return Math.PI / 2 - goAsin(x);
}

// --- sinh, cosh, tanh (Hart & Cheney, Cephes) over Go's Exp ---

export function goSinh(x: number): number {
  const P0 = -0.6307673640497716991184787251e6;
  const P1 = -0.8991272022039509355398013511e5;
  const P2 = -0.2894211355989563807284660366e4;
  const P3 = -0.2630563213397497062819489e2;
  const Q0 = -0.6307673640497716991212077277e6;
  const Q1 = 0.1521517378790019070696485176e5;
  const Q2 = -0.173678953558233699533450911e3;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 21) temp = goExp(x) * 0.5;
  else if (x > 0.5) {
    const ex = goExp(x);
    temp = (ex - 1 / ex) * 0.5;
  }
  else {
    const sq = x * x;
    temp = (((P3 * sq + P2) * sq + P1) * sq + P0) * x;
    temp = temp / (((sq + Q2) * sq + Q1) * sq + Q0);
  }
  return sign ? -temp : temp;
}

export function goCosh(x: number): number {
  x = Math.abs(x);
  if (x > 21) return goExp(x) * 0.5;
  const ex = goExp(x);
  return (ex + 1 / ex) * 0.5;
}

export function goTanh(x: number): number {
  const MAXLOG = 8.8029691931113054295988e1;
  const P = [-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3];
  const Q = [1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3];
  let z = Math.abs(x);
  if (z > 0.5 * MAXLOG) return x < 0 ? -1 : 1;
  if (z >= 0.625) {
    const s = goExp(2 * z);
    z = 1 - 2 / (s + 1);
    return x < 0 ? -z : z;
  }
  if (x === 0) return x;
  const s = x * x;
  return x + (x * s * ((P[0]! * s + P[1]!) * s + P[2]!)) / (((s + Q[0]!) * s + Q[1]!) * s + Q[2]!);
}

// --- asinh, acosh, atanh, log1p (FreeBSD msun) ---

const LN2 = 6.93147180559945286227e-1;

export function goAsinh(x: number): number {
  if (Number.isNaN(x) || !Number.isFinite(x)) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 2 ** 28) temp = goLog(x) + LN2;
  else if (x > 2) temp = goLog(2 * x + 1 / (Math.sqrt(x * x + 1) + x));
  else if (x < 2 ** -28) temp = x;
  else temp = goLog1p(x + (x * x) / (1 + Math.sqrt(1 + x * x)));
  return sign ? -temp : temp;
}

export function goAcosh(x: number): number {
  if (x < 1 || Number.isNaN(x)) return Number.NaN;
  if (x === 1) return 0;
  if (x >= 2 ** 28) return goLog(x) + LN2;
  if (x > 2) return goLog(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
  const t = x - 1;
  return goLog1p(t + Math.sqrt(2 * t + t * t));
}

export function goAtanh(x: number): number {
  if (x < -1 || x > 1 || Number.isNaN(x)) return Number.NaN;
  if (x === 1) return Infinity;
  if (x === -1) return -Infinity;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x < 2 ** -28) temp = x;
  else if (x < 0.5) {
    temp = x + x;
    temp = 0.5 * goLog1p(temp + (temp * x) / (1 - x));
  } else temp = 0.5 * goLog1p((x + x) / (1 - x));
  return sign ? -temp : temp;
}

export function goLog1p(x: number): number {
  const SQRT2M1 = 4.142135623730950488017e-1;
  const SQRT2HALFM1 = -2.928932188134524755992e-1;
  const LP1 = 6.66666666666673513e-1;
  const LP2 = 3.999999999940941908e-1;
  const LP3 = 2.857142874366239149e-1;
  const LP4 = 2.222219843214978396e-1;
  const LP5 = 1.818357216161805012e-1;
  const LP6 = 1.531383769920937332e-1;
  const LP7 = 1.479819860511658591e-1;
  if (x < -1 || Number.isNaN(x)) return Number.NaN;
  if (x === -1) return -Infinity;
  if (x === Infinity) return Infinity;
  const absx = Math.abs(x);
  let f = 0;
  // iu: the 52 mantissa bits of u (below 2^53, so exact in a double).
  let iu = 0;
  let k = 1;
  if (absx < SQRT2M1) {
    if (absx < 2 ** -29) {
      if (absx < 2 ** -54) return x;
      return x - x * x * 0.5;
    }
    if (x > SQRT2HALFM1) {
      k = 0;
      f = x;
      iu = 1;
    }
  }
  let c = 0;
  if (k !== 0) {
    let u: number;
    if (absx < 2 ** 53) {
      u = 1.0 + x;
      k = ((bitsHi(u) >>> 20) & 0x7ff) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      k = ((bitsHi(u) >>> 20) & 0x7ff) - 1023;
      c = 0;
    }
    view.setFloat64(0, u);
    const hi = view.getUint32(0) & 0x000fffff;
    const lo = view.getUint32(4);
    iu = hi * 2 ** 32 + lo;
    if (iu < 0x0006a09e667f3bcd) {
      u = fromBits(hi | 0x3ff00000, lo);
    } else {
      k++;
      u = fromBits(hi | 0x3fe00000, lo);
      iu = (0x0010000000000000 - iu) / 4;
      iu = Math.floor(iu);
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  if (iu === 0) {
    if (f === 0) {
      if (k === 0) return 0;
      c += k * LN2LO;
      return k * LN2HI + c;
    }
    const R = hfsq * (1.0 - 0.66666666666666666 * f);
    if (k === 0) return f - R;
    return k * LN2HI - ((R - (k * LN2LO + c)) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  const R = z * (LP1 + z * (LP2 + z * (LP3 + z * (LP4 + z * (LP5 + z * (LP6 + z * LP7))))));
  if (k === 0) return f - (hfsq - s * (hfsq + R));
  return k * LN2HI - ((hfsq - (s * (hfsq + R) + (k * LN2LO + c))) - f);
}

// --- atan2, frexp, ldexp, pow (the `atan2` and `^` operators) ---

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

const frexpBits = new DataView(new ArrayBuffer(8));

/** Go's math.Frexp: x = frac × 2^exp with |frac| in [0.5, 1). */
export function goFrexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = 0;
  if (Math.abs(x) < 2.2250738585072014e-308) {
    x *= 2 ** 52;
    e = -52;
  }
  frexpBits.setFloat64(0, x);
  const hi = frexpBits.getUint32(0);
  e += ((hi >>> 20) & 0x7ff) - 1022;
  frexpBits.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return [frexpBits.getFloat64(0), e];
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
 * answers Prometheus's bits); a fractional part of the exponent through Go's Exp and Log (above).
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
    a1 = goExp(yf * goLog(x));
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
