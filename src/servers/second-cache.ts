/**
 * Per-second values of a result's timestamp column (its zone offset, date text or calendar fields)
 * in a small direct-mapped table, for the row encoders of the MySQL and PostgreSQL servers: an
 * answer's times repeat seconds or lie close together, and the zone and calendar are the costly part
 * of writing one, so each second is worked out once rather than once per row.
 */

const SLOTS = 1024;

export class SecondCache<T> {
  private readonly keys = new Float64Array(SLOTS).fill(Number.NaN);
  private readonly values = new Array<T>(SLOTS);

  constructor(private readonly make: (second: number) => T) {}

  /** The value of `second` (an integer; any, negative too). */
  get(second: number): T {
    // ToInt32 wraps seconds past 2^31, which still gives a slot; the key is compared exactly.
    const slot = second & (SLOTS - 1);
    if (this.keys[slot] === second) return this.values[slot]!;
    const v = this.make(second);
    this.keys[slot] = second;
    this.values[slot] = v;
    return v;
  }
}
