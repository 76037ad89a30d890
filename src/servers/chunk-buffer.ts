/**
 * The growing buffer the MySQL and PostgreSQL row encoders write a large answer into, a chunk at
 * a time (`mysql/row-encoder.ts`, `postgres/data-rows.ts`): written in place at `pos`, grown by
 * doubling, and handed out whole by `take`, after which the next chunk's buffer is allocated only
 * when written to (none after a result's last chunk). The protocols' own field framing is theirs.
 */

const EMPTY = Buffer.alloc(0);

export class ChunkBuffer {
  buf: Buffer = EMPTY;
  pos = 0;

  /**
   * `capacity`: the size of the first allocation (a small result's guess); `chunkCapacity`: of the
   * ones after a `take`.
   */
  constructor(
    private capacity: number,
    private readonly chunkCapacity: number,
  ) {}

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n, this.capacity));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** The bytes so far, the buffer then starting again (a fresh one: the result is not copied). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.buf = EMPTY;
    this.pos = 0;
    this.capacity = this.chunkCapacity;
    return out;
  }
}

/**
 * Writes `s` as UTF-8 at `at` in `b`, which has room for 3 bytes per UTF-16 unit: a byte loop while
 * it is ASCII, then Buffer#write. Returns the bytes written.
 */
export function writeUtf8(b: Buffer, at: number, s: string): number {
  const n = s.length;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    b[at + i] = c;
  }
  return i === n ? n : i + b.write(s.slice(i), at + i, 'utf8');
}
