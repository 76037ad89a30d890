/**
 * The memtable's rows in arrival order, as the columnar write batches the region worker receives,
 * and a writer that appends such a batch to a DuckDB table chunk by chunk: the write-side cost of
 * keeping the memtable as a DuckDB table (candidate d).
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBAppender, DuckDBDataChunk } from '@duckdb/node-api';
import { CHUNK_ROWS, inlineStringT } from './chunk-writer.js';
import type { Memtable } from './memtable-fixture.js';

export interface ArrivalRows {
  readonly rowCount: number;
  /** Memtable series index of each row (the batch's tag columns, already resolved to a series). */
  readonly series: Int32Array;
  readonly ts: BigInt64Array<ArrayBuffer>;
  readonly seq: Float64Array<ArrayBuffer>;
  readonly op: Uint8Array<ArrayBuffer>;
  readonly fields: readonly Float64Array<ArrayBuffer>[];
  /** Byte-per-row validity per field, undefined when the field has no NULL. */
  readonly valid: readonly (Uint8Array | undefined)[];
}

/** Time-major: every series' i-th row, then every series' (i+1)-th row. */
export function arrivalRows(mt: Memtable): ArrivalRows {
  const n = mt.rowCount;
  const series = new Int32Array(n);
  const tsWords = new Uint32Array(n * 2);
  const seq = new Float64Array(n);
  const op = new Uint8Array(n);
  const fields = mt.fieldNames.map(() => new Float64Array(n));
  const valid = mt.fieldNames.map((_, f) =>
    mt.series.some((s) => s.fields[f]!.valid !== undefined) ? new Uint8Array(n).fill(1) : undefined,
  );
  const perSeries = mt.series[0]?.length ?? 0;
  let row = 0;
  for (let i = 0; i < perSeries; i++) {
    for (let s = 0; s < mt.series.length; s++, row++) {
      const src = mt.series[s]!;
      series[row] = s;
      const words = new Uint32Array(src.ts.buffer, src.ts.byteOffset, src.length * 2);
      tsWords[2 * row] = words[2 * i]!;
      tsWords[2 * row + 1] = words[2 * i + 1]!;
      seq[row] = src.seq[i]!;
      op[row] = src.op[i]!;
      for (let f = 0; f < fields.length; f++) {
        const column = src.fields[f]!;
        fields[f]![row] = column.data[i]!;
        const v = valid[f];
        if (v !== undefined && column.valid !== undefined) v[row] = column.valid[i]!;
      }
    }
  }
  return { rowCount: n, series, ts: new BigInt64Array(tsWords.buffer), seq, op, fields, valid };
}

/** Appends arrival rows to a table with the relation layout's columns (tags as VARCHAR). */
export class ArrivalAppender {
  private readonly stringT: (Uint32Array | undefined)[][];
  /** Per tag: every series' value is inlined, so the whole column is one copy. */
  private readonly allInline: boolean[];
  private readonly words = new Uint32Array(CHUNK_ROWS * 4);
  private readonly validity = new Uint32Array(CHUNK_ROWS / 32);

  constructor(
    private readonly mt: Memtable,
    private readonly rows: ArrivalRows,
    private readonly appender: DuckDBAppender,
    private readonly chunk: DuckDBDataChunk,
  ) {
    this.stringT = mt.series.map((s) => s.key.map(inlineStringT));
    this.allInline = mt.tagNames.map((_, t) => this.stringT.every((k) => k[t] !== undefined));
  }

  /** Appends rows [start, end) in chunks, then flushes the appender so queries see them. */
  appendBatch(start: number, end: number): void {
    for (let at = start; at < end; at += CHUNK_ROWS) {
      this.fill(at, Math.min(CHUNK_ROWS, end - at));
      this.appender.appendDataChunk(this.chunk);
      this.chunk.reset();
    }
    this.appender.flushSync();
  }

  private fill(start: number, n: number): void {
    const chunk = this.chunk.chunk;
    const rows = this.rows;
    const tagCount = this.mt.tagNames.length;
    duckdb.data_chunk_set_size(chunk, n);
    for (let t = 0; t < tagCount; t++) {
      const vector = duckdb.data_chunk_get_vector(chunk, t);
      const dst = this.words;
      for (let i = 0; i < n; i++) {
        const s = rows.series[start + i]!;
        const inline = this.stringT[s]![t];
        if (inline === undefined) {
          duckdb.vector_assign_string_element(vector, i, this.mt.series[s]!.key[t]!);
          continue;
        }
        dst.set(inline, i * 4);
      }
      if (this.allInline[t]) duckdb.copy_data_to_vector(vector, 0, dst.buffer, 0, n * 16);
      else this.copyInlined(vector, t, start, n);
    }
    const copy = (column: number, src: ArrayBufferView<ArrayBuffer>, width: number): void => {
      const vector = duckdb.data_chunk_get_vector(chunk, column);
      duckdb.copy_data_to_vector(vector, 0, src.buffer, src.byteOffset + start * width, n * width);
    };
    copy(tagCount, rows.ts, 8);
    copy(tagCount + 1, rows.seq, 8);
    copy(tagCount + 2, rows.op, 1);
    for (let f = 0; f < rows.fields.length; f++) {
      copy(tagCount + 3 + f, rows.fields[f]!, 8);
      const valid = rows.valid[f];
      if (valid === undefined) continue;
      let hasNull = false;
      for (let i = 0; i < n; i++) {
        if (valid[start + i] === 0) {
          if (!hasNull) {
            this.validity.fill(0xffffffff);
            hasNull = true;
          }
          this.validity[i >>> 5]! &= ~(1 << (i & 31));
        }
      }
      if (hasNull) {
        const vector = duckdb.data_chunk_get_vector(chunk, tagCount + 3 + f);
        duckdb.vector_ensure_validity_writable(vector);
        duckdb.copy_data_to_vector_validity(vector, 0, this.validity.buffer, 0, Math.ceil(n / 64) * 8);
      }
    }
  }

  /** Mixed short and long values: copy only the inlined rows' string_t, one row at a time. */
  private copyInlined(vector: duckdb.Vector, tag: number, start: number, n: number): void {
    for (let i = 0; i < n; i++) {
      if (this.stringT[this.rows.series[start + i]!]![tag] !== undefined) {
        duckdb.copy_data_to_vector(vector, i * 16, this.words.buffer, i * 16, 16);
      }
    }
  }
}
