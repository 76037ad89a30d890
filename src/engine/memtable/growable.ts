/**
 * Append-only typed arrays that grow by doubling: the column buffers of a memtable series.
 */

type TypedArray = Float64Array | BigInt64Array | BigUint64Array | Uint8Array | Int32Array;
type TypedArrayCtor<A extends TypedArray> = { new (length: number): A };

export class Growable<A extends TypedArray> {
  data: A;
  length = 0;

  constructor(
    private readonly ctor: TypedArrayCtor<A>,
    initialCapacity = 8,
  ) {
    this.data = new ctor(initialCapacity);
  }

  /** Makes room for `n` more values. */
  reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.data.length) return;
    // A buffer made for one value (a series that may never get a second) grows straight to 8.
    let cap = Math.max(8, this.data.length * 2);
    while (cap < need) cap *= 2;
    const next = new this.ctor(cap);
    (next as unknown as { set(a: A): void }).set(this.data);
    this.data = next;
  }

  /** The filled part (a view: valid until the next append). */
  view(): A {
    return this.data.subarray(0, this.length) as A;
  }

  /** Bytes held, capacity included. */
  bytes(): number {
    return this.data.byteLength;
  }
}

export function growableF64(cap?: number): Growable<Float64Array> {
  return new Growable(Float64Array, cap);
}

export function growableI64(cap?: number): Growable<BigInt64Array> {
  return new Growable(BigInt64Array, cap);
}

export function growableU64(cap?: number): Growable<BigUint64Array> {
  return new Growable(BigUint64Array, cap);
}

export function growableU8(cap?: number): Growable<Uint8Array> {
  return new Growable(Uint8Array, cap);
}

export function growableI32(cap?: number): Growable<Int32Array> {
  return new Growable(Int32Array, cap);
}
