/**
 * Progress of `tsdb cli export|import`: on a terminal, one line redrawn in place (a bar of the tables
 * done, the rows so far, the time taken, the table at work); otherwise a plain line per table, so
 * that a log or a pipe gets readable text without control characters.
 */

export interface ProgressOut {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const WIDTH = 24;

export class ProgressBar {
  private done = 0;
  private rows = 0;
  private readonly began = Date.now();
  private drawn = false;

  constructor(
    private readonly out: ProgressOut,
    /** What is done, e.g. `export public`. */
    private readonly what: string,
    private readonly total: number,
  ) {}

  private line(current: string): string {
    const filled = this.total === 0 ? WIDTH : Math.round((WIDTH * this.done) / this.total);
    const secs = ((Date.now() - this.began) / 1000).toFixed(1);
    return `${this.what} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${this.done}/${this.total} tables, ${this.rows.toLocaleString('en-US')} rows, ${secs}s${current === '' ? '' : `  ${current}`}`;
  }

  /** Table `name` is being copied. */
  start(name: string): void {
    if (this.out.isTTY === true) {
      this.out.write(`\r\x1b[2K${this.line(name)}`);
      this.drawn = true;
    }
  }

  /** Table `name` is done with `rows` rows. */
  step(name: string, rows: number, note = ''): void {
    this.done++;
    this.rows += rows;
    if (this.out.isTTY === true) {
      this.out.write(`\r\x1b[2K${this.line('')}`);
      this.drawn = true;
    } else this.out.write(`${this.what}: ${name}: ${rows} rows${note === '' ? '' : ` (${note})`} [${this.done}/${this.total} tables, ${this.rows} rows]\n`);
  }

  /** The summary line; returns the rows copied. */
  finish(): number {
    if (this.drawn) this.out.write('\n');
    this.out.write(`${this.what}: ${this.done} tables, ${this.rows} rows in ${((Date.now() - this.began) / 1000).toFixed(1)}s\n`);
    return this.rows;
  }
}
