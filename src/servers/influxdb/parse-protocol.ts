/**
 * What the main thread and the line-protocol parse workers exchange, and the body decoding both
 * sides use.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';

export interface ParseTask {
  readonly id: number;
  readonly body: Uint8Array;
  readonly precision: string;
  /** Nanoseconds since the epoch, as decimal text (lines without a timestamp). */
  readonly now: string;
}

export type ParseAnswer =
  | { readonly id: number; readonly tables: IngestTable[]; readonly packed: PackedStrings[] }
  | { readonly id: number; readonly lineError: { readonly line: number; readonly problem: string } }
  | { readonly id: number; readonly failure: { readonly code: number; readonly message: string } };

/** A request body as text: ASCII (the usual case) the fast way, else checked UTF-8. */
export function decodeBody(bytes: Uint8Array): string {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(buf)) return buf.toString('latin1');
  if (!isUtf8(buf)) throw new TsdbError(StatusCode.InvalidArguments, 'The request body is not valid UTF-8');
  return buf.toString('utf8');
}

/** The buffers of the tables' typed arrays, moved rather than copied to the other thread. */
export function transferablesOf(tables: readonly IngestTable[], packed: readonly PackedStrings[] = []): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const t of tables) {
    for (const c of t.columns) {
      const v = c.vector;
      if (v.type === 'string' || v.type === 'binary') continue;
      if (v.data.buffer instanceof ArrayBuffer) out.add(v.data.buffer);
      if (v.valid !== undefined && v.valid.buffer instanceof ArrayBuffer) out.add(v.valid.buffer);
    }
  }
  for (const p of packed) if (p.codes.buffer instanceof ArrayBuffer) out.add(p.codes.buffer);
  return [...out];
}

/** A string column sent as its distinct values and a code per row (-1 = NULL): far cheaper to clone. */
export interface PackedStrings {
  readonly table: number;
  readonly column: number;
  readonly values: string[];
  readonly codes: Int32Array;
}

/** Replaces the string columns of `tables` by empty arrays and returns them packed. */
export function packStrings(tables: IngestTable[]): PackedStrings[] {
  const out: PackedStrings[] = [];
  tables.forEach((t, ti) => {
    t.columns.forEach((c, ci) => {
      const v = c.vector;
      if (v.type !== 'string') return;
      const index = new Map<string, number>();
      const values: string[] = [];
      const codes = new Int32Array(v.data.length);
      for (let r = 0; r < v.data.length; r++) {
        const x = v.data[r]!;
        if (x === null) {
          codes[r] = -1;
          continue;
        }
        let code = index.get(x);
        if (code === undefined) {
          code = values.length;
          values.push(x);
          index.set(x, code);
        }
        codes[r] = code;
      }
      out.push({ table: ti, column: ci, values, codes });
      (t.columns as IngestColumn[])[ci] = { ...c, vector: { type: 'string', data: [] } };
    });
  });
  return out;
}

/** Puts packed string columns back into `tables`. */
export function unpackStrings(tables: IngestTable[], packed: readonly PackedStrings[]): void {
  for (const p of packed) {
    const t = tables[p.table]!;
    const data = new Array<string | null>(p.codes.length);
    for (let r = 0; r < p.codes.length; r++) {
      const code = p.codes[r]!;
      data[r] = code < 0 ? null : p.values[code]!;
    }
    const c = t.columns[p.column]!;
    (t.columns as IngestColumn[])[p.column] = { ...c, vector: { type: 'string', data } };
  }
}
