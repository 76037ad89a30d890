/**
 * GreptimeDB's VECTOR(n) values as text and bytes: a vector is n float32 values, stored as their
 * little-endian bytes (4n bytes, what GreptimeDB stores and shows as binary), read from text such as
 * `[1.0, 2.0, 3.0]` with its parser's rules and errors, and written back as its `vec_to_string`
 * writes it (`[1,2,3]`: each float as Rust prints an f32, shortest digits and never an exponent).
 */

/** A vector text that does not parse, as GreptimeDB words it (`Invalid Vector: …`). */
export class VectorTextError extends Error {}

/** The floats of `[a, b, …]`; with `dim`, exactly that many. Throws VectorTextError. */
export function parseVectorText(s: string, dim?: number): Float32Array {
  const t = s.trim();
  const fail = (why: string) => new VectorTextError(`Invalid Vector: Failed to parse ${s} to Vector value: ${why}`);
  if (!t.startsWith('[') || !t.endsWith(']') || t.length < 2) throw fail('not properly enclosed in brackets');
  const content = t.slice(1, -1).trim();
  if (content === '') {
    if (dim !== undefined && dim !== 0) throw fail('wrong dimension');
    return new Float32Array(0);
  }
  const parts = content.split(',');
  const out = new Float32Array(parts.length);
  parts.forEach((p, i) => {
    const v = rustF32(p.trim());
    if (v === undefined) throw fail('elements are not all float32');
    out[i] = v;
  });
  if (dim !== undefined && dim !== out.length) throw fail('wrong dimension');
  return out;
}

/** Rust's `str::parse::<f32>`: decimal and exponent forms, `inf`, `infinity`, `nan` in any case. */
function rustF32(s: string): number | undefined {
  const l = s.toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(l)) return l.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(l)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(l)) return undefined;
  return Math.fround(Number(l));
}

/** The bytes of a vector as stored (float32, little-endian). */
export function vectorBytes(v: Float32Array): Uint8Array {
  const out = new Uint8Array(v.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i]!, true);
  return out;
}

/** The floats of stored vector bytes (float32, little-endian). */
export function vectorOfBytes(b: Uint8Array): Float32Array {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Float32Array(b.byteLength >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** An f32 as Rust's `Display` writes it: the shortest digits that read back, in plain decimal. */
export function f32Text(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const f = Math.fround(v);
  let exp = '';
  for (let p = 1; p <= 9; p++) {
    exp = f.toExponential(p - 1);
    if (Math.fround(Number(exp)) === f) break;
  }
  const [mantissa, e] = exp.split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '').replace(/0+$/, '') || '0';
  const point = Number(e) + 1; // digits before the decimal point
  let body: string;
  if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) body = digits + '0'.repeat(point - digits.length);
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? '-' : '') + body;
}

/** A vector as `vec_to_string` writes it: `[1,2.5,-3]`. */
export function vectorText(v: ArrayLike<number>): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + f32Text(v[i]!);
  return `${s}]`;
}
