/**
 * Per-second values of a result's timestamp column (its zone offset, date text or calendar fields)
 * in a direct-mapped table, for the row encoders of the MySQL and PostgreSQL servers: an answer's
 * times repeat seconds (every series of a result at the same instants), and the zone and calendar
 * are the costly part of writing one, so each second is worked out about once rather than per row.
 * Slots are picked by a multiplicative hash (times at a fixed step would fill few slots of a
 * plain `second mod size`); the table starts small, for small results, and grows while it misses.
 */

const FIRST_BITS = 8;
const MAX_BITS = 14;

export class SecondCache<T> {
  private bits = FIRST_BITS;
  private keys = new Float64Array(1 << FIRST_BITS).fill(Number.NaN);
  private values = new Array<T>(1 << FIRST_BITS);
  private misses = 0;

  constructor(private readonly make: (second: number) => T) {}

  /** The value of `second` (an integer; any, negative too). */
  get(second: number): T {
    // Seconds past 2^31 wrap in Math.imul's ToInt32, which still gives a slot; the key is compared exactly.
    const slot = Math.imul(second | 0, 0x9e3779b1) >>> (32 - this.bits);
    if (this.keys[slot] === second) return this.values[slot]!;
    if (++this.misses > 2 << this.bits && this.bits < MAX_BITS) this.grow();
    const v = this.make(second);
    const at = Math.imul(second | 0, 0x9e3779b1) >>> (32 - this.bits);
    this.keys[at] = second;
    this.values[at] = v;
    return v;
  }

  /** A table four times larger, empty: what was cached is made again as it is met. */
  private grow(): void {
    this.bits = Math.min(MAX_BITS, this.bits + 2);
    this.keys = new Float64Array(1 << this.bits).fill(Number.NaN);
    this.values = new Array<T>(1 << this.bits);
    this.misses = 0;
  }
}
