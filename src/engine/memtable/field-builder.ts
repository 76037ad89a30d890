/**
 * The values of one field column within one memtable series, appended row by row and gathered
 * back into a Vector in any order (sorting, deduplication).
 */
import type { DefaultValue } from '../../types/region-metadata.js';
import type { Vector, VectorType } from '../../types/write-batch.js';
import { growableF64, growableI64, growableU64, growableU8, type Growable } from './growable.js';

export interface FieldBuilder {
  /** Appends row `row` of `v`; when `v` is undefined (column absent from the batch), `fallback`. */
  append(v: Vector | undefined, row: number): void;
  appendNull(): void;
  /** Appends rows `start` to `end` (exclusive) of `v` at once (`v` undefined: the fallback). */
  appendRange(v: Vector | undefined, start: number, end: number): void;
  /** Appends rows `rows` of `v` (`v` undefined: the fallback). */
  appendRows(v: Vector | undefined, rows: Int32Array): void;
  isNull(i: number): boolean;
  /** Values at `indices` (-1 = NULL), as a Vector. */
  gather(indices: Int32Array): Vector;
  /**
   * The first `n` values as a Vector (typed columns: views of the buffers, no copy). Values once
   * appended never change, so the Vector stays valid while more are appended.
   */
  prefix(n: number): Vector;
  bytes(): number;
}

/** Typed-array columns: float64, int64, uint64, bool. NULLs tracked once the first one appears. */
class TypedBuilder<A extends Float64Array | BigInt64Array | BigUint64Array | Uint8Array> implements FieldBuilder {
  private valid: Growable<Uint8Array> | undefined;

  constructor(
    private readonly type: 'float64' | 'int64' | 'uint64' | 'bool',
    private readonly values: Growable<A>,
    private readonly fallback: number | bigint | null,
  ) {}

  private markNull(): void {
    if (this.valid === undefined) {
      this.valid = growableU8(Math.max(8, this.values.data.length));
      this.valid.data.fill(1, 0, this.values.length);
      this.valid.length = this.values.length;
    }
  }

  private push(value: number | bigint | null): void {
    if (value === null) this.markNull();
    this.values.reserve(1);
    const i = this.values.length++;
    if (value !== null) (this.values.data as unknown as Array<number | bigint>)[i] = value;
    if (this.valid !== undefined) {
      this.valid.reserve(1);
      this.valid.data[this.valid.length++] = value === null ? 0 : 1;
    }
  }

  append(v: Vector | undefined, row: number): void {
    if (v === undefined) return this.push(this.fallback);
    if (v.type === 'string' || v.type === 'binary') throw new TypeError(`a ${v.type} vector for a ${this.type} column`);
    if (v.valid !== undefined && v.valid[row] === 0) return this.push(null);
    this.push(v.data[row]!);
  }

  appendNull(): void {
    this.push(null);
  }

  appendRange(v: Vector | undefined, start: number, end: number): void {
    const n = end - start;
    if (n <= 0) return;
    if (v === undefined) {
      this.values.reserve(n);
      const at = this.values.length;
      if (this.fallback === null) {
        this.markNullableAt(at);
        this.valid!.reserve(n);
        this.valid!.data.fill(0, at, at + n);
        this.valid!.length = at + n;
      } else {
        (this.values.data as unknown as { fill(x: number | bigint, s: number, e: number): void }).fill(this.fallback, at, at + n);
        this.extendValid(n);
      }
      this.values.length = at + n;
      return;
    }
    if (v.type === 'string' || v.type === 'binary') throw new TypeError(`a ${v.type} vector for a ${this.type} column`);
    this.values.reserve(n);
    (this.values.data as unknown as { set(a: ArrayLike<number | bigint>, at: number): void }).set(v.data.subarray(start, end) as unknown as ArrayLike<number | bigint>, this.values.length);
    this.values.length += n;
    if (v.valid !== undefined) {
      this.markNullableAt(this.values.length - n);
      this.valid!.reserve(n);
      this.valid!.data.set(v.valid.subarray(start, end), this.valid!.length);
      this.valid!.length += n;
    } else this.extendValid(n);
  }

  appendRows(v: Vector | undefined, rows: Int32Array): void {
    const k = rows.length;
    if (v === undefined) return this.appendRange(undefined, 0, k);
    if (v.type === 'string' || v.type === 'binary') throw new TypeError(`a ${v.type} vector for a ${this.type} column`);
    this.values.reserve(k);
    const at = this.values.length;
    const out = this.values.data as unknown as Array<number | bigint>;
    const src = v.data as unknown as ArrayLike<number | bigint>;
    for (let i = 0; i < k; i++) out[at + i] = src[rows[i]!]!;
    this.values.length = at + k;
    if (v.valid !== undefined) {
      this.markNullableAt(at);
      this.valid!.reserve(k);
      const valid = this.valid!.data;
      for (let i = 0; i < k; i++) valid[at + i] = v.valid[rows[i]!]!;
      this.valid!.length = at + k;
    } else this.extendValid(k);
  }

  /** Starts tracking NULLs with the first `length` values valid. */
  private markNullableAt(length: number): void {
    if (this.valid !== undefined) return;
    this.valid = growableU8(Math.max(8, this.values.data.length));
    this.valid.data.fill(1, 0, length);
    this.valid.length = length;
  }

  /** n more valid values, when NULLs are tracked. */
  private extendValid(n: number): void {
    if (this.valid === undefined) return;
    this.valid.reserve(n);
    this.valid.data.fill(1, this.valid.length, this.valid.length + n);
    this.valid.length += n;
  }

  isNull(i: number): boolean {
    return this.valid !== undefined && this.valid.data[i] === 0;
  }

  gather(indices: Int32Array): Vector {
    const n = indices.length;
    const src = this.values.data;
    const out = new (src.constructor as { new (n: number): A })(n);
    let valid: Uint8Array | undefined;
    for (let i = 0; i < n; i++) {
      const j = indices[i]!;
      if (j < 0 || this.isNull(j)) {
        valid ??= new Uint8Array(n).fill(1);
        valid[i] = 0;
        continue;
      }
      (out as unknown as Array<number | bigint>)[i] = (src as unknown as Array<number | bigint>)[j]!;
    }
    return { type: this.type, data: out, ...(valid && { valid }) } as Vector;
  }

  prefix(n: number): Vector {
    // A full buffer is taken as it is: the next append moves the values to a new one.
    const all = this.values.data;
    const data = all.length === n ? all : all.subarray(0, n);
    const valid = this.valid === undefined ? undefined : this.valid.data.length === n ? this.valid.data : this.valid.data.subarray(0, n);
    return { type: this.type, data, ...(valid && { valid }) } as Vector;
  }

  bytes(): number {
    return this.values.bytes() + (this.valid?.bytes() ?? 0);
  }
}

/** Strings and binaries: plain arrays; their bytes estimated from their lengths. */
class ArrayBuilder<T extends string | Uint8Array> implements FieldBuilder {
  private readonly values: Array<T | null> = [];
  private size = 0;

  constructor(
    private readonly type: 'string' | 'binary',
    private readonly fallback: T | null,
  ) {}

  private push(value: T | null): void {
    this.values.push(value);
    this.size += 8 + (value === null ? 0 : typeof value === 'string' ? 16 + value.length * 2 : 64 + value.length);
  }

  append(v: Vector | undefined, row: number): void {
    if (v === undefined) return this.push(this.fallback);
    if (v.type !== this.type) throw new TypeError(`a ${v.type} vector for a ${this.type} column`);
    this.push((v.data[row] ?? null) as T | null);
  }

  appendNull(): void {
    this.push(null);
  }

  appendRange(v: Vector | undefined, start: number, end: number): void {
    for (let row = start; row < end; row++) this.append(v, row);
  }

  appendRows(v: Vector | undefined, rows: Int32Array): void {
    for (const row of rows) this.append(v, row);
  }

  isNull(i: number): boolean {
    return this.values[i] === null;
  }

  gather(indices: Int32Array): Vector {
    const out: Array<T | null> = new Array(indices.length);
    for (let i = 0; i < indices.length; i++) {
      const j = indices[i]!;
      out[i] = j < 0 ? null : this.values[j]!;
    }
    return { type: this.type, data: out } as Vector;
  }

  prefix(n: number): Vector {
    return { type: this.type, data: this.values.slice(0, n) } as Vector;
  }

  bytes(): number {
    return this.size;
  }
}

/** The fallback of a column absent from a batch: its default, converted to the vector's kind. */
function fallbackOf(type: VectorType, dflt: DefaultValue | undefined): number | bigint | string | null {
  if (dflt === undefined || dflt === null) return null;
  switch (type) {
    case 'int64':
    case 'uint64':
      return BigInt(dflt as number | string);
    case 'bool':
      return dflt === true || dflt === 'true' || dflt === 1 ? 1 : 0;
    case 'float64':
      return Number(dflt);
    case 'string':
      return String(dflt);
    case 'binary':
      return null;
  }
}

/** A builder for a column of `type`; typed columns start with room for `capacity` values. */
export function fieldBuilder(type: VectorType, dflt: DefaultValue | undefined, capacity?: number): FieldBuilder {
  const fallback = fallbackOf(type, dflt);
  switch (type) {
    case 'float64':
      return new TypedBuilder('float64', growableF64(capacity), fallback as number | null);
    case 'int64':
      return new TypedBuilder('int64', growableI64(capacity), fallback as bigint | null);
    case 'uint64':
      return new TypedBuilder('uint64', growableU64(capacity), fallback as bigint | null);
    case 'bool':
      return new TypedBuilder('bool', growableU8(capacity), fallback as number | null);
    case 'string':
      return new ArrayBuilder<string>('string', fallback as string | null);
    case 'binary':
      return new ArrayBuilder<Uint8Array>('binary', null);
  }
}
