/**
 * The encoders of a result's rows timed alone, in this process, on one answer's cells: what each
 * protocol's server does between having the rows and writing bytes. The row-at-a-time encoders
 * (kept for one-off rows, and as the reference of the tests) against the batch encoders the
 * servers use, each pair's bytes compared. The batched encoder of each pair runs first: the
 * row-at-a-time one leaves much garbage for whatever runs next to collect.
 */
import type { Cell, OutputColumn } from '../../src/query/output.js';
import { render } from '../../src/servers/http/sql-format.js';
import { encodeBinaryRow, encodeTextRow, framePayloads } from '../../src/servers/mysql/resultset.js';
import { cellEncoder } from '../../src/servers/postgres/types.js';
import { dataRow } from '../../src/servers/postgres/messages.js';
import { DataRowEncoder } from '../../src/servers/postgres/data-rows.js';
import { RowPacketEncoder } from '../../src/servers/mysql/row-encoder.js';

export interface EncodeCase {
  readonly name: string;
  readonly ms: number;
  readonly bytes: number;
}

function timed(rounds: number, f: () => Buffer | string): { ms: number; out: Buffer | string } {
  // Two warm-ups: the first compiles, the second meets the garbage the previous case left.
  f();
  let out = f();
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    out = f();
    ms.push(performance.now() - t);
  }
  return { ms: ms.sort((a, b) => a - b)[ms.length >> 1]!, out };
}

const size = (b: Buffer | string): number => (typeof b === 'string' ? Buffer.byteLength(b) : b.length);

export function encodeCases(columns: readonly OutputColumn[], rows: readonly (readonly Cell[])[], rounds: number): EncodeCase[] {
  const out: EncodeCase[] = [];
  const add = (name: string, f: () => Buffer | string): Buffer | string => {
    const r = timed(rounds, f);
    out.push({ name, ms: r.ms, bytes: size(r.out) });
    return r.out;
  };
  add('JSON (greptimedb_v1, `render`)', () => render('greptimedb_v1', [{ kind: 'records', columns, rows }], 1).body);
  const same = (a: Buffer | string, b: Buffer | string, what: string): void => {
    if (!(a as Buffer).equals(b as Buffer)) throw new Error(`${what}: the batch encoder's bytes differ from the row-at-a-time encoder's`);
  };
  for (const binary of [false, true]) {
    const kind = binary ? 'binary' : 'text';
    const after = add(`MySQL ${kind} rows, batched (now: \`RowPacketEncoder\`)`, () => {
      const enc = new RowPacketEncoder(columns, binary, 'UTC', 1);
      const parts: Buffer[] = [];
      for (let r = 0; r < rows.length; ) {
        const chunk = enc.encode(rows, r, rows.length);
        parts.push(chunk.bytes);
        r = chunk.next;
      }
      return Buffer.concat(parts);
    });
    const before = add(`MySQL ${kind} rows, a row at a time (before: \`encodeTextRow\` / \`encodeBinaryRow\`)`, () =>
      framePayloads(rows.map((r) => (binary ? encodeBinaryRow(r, columns, 'UTC') : encodeTextRow(r, columns, 'UTC'))), 1).bytes,
    );
    same(after, before, `MySQL ${kind}`);
  }
  for (const format of [0, 1] as const) {
    const kind = format === 0 ? 'text' : 'binary';
    const after = add(`PostgreSQL ${kind} DataRows, batched (now: \`DataRowEncoder\`)`, () => {
      const enc = new DataRowEncoder(columns, columns.map(() => format), 'UTC');
      const parts: Buffer[] = [];
      for (let r = 0; r < rows.length; ) {
        const chunk = enc.encode(rows, r, rows.length);
        parts.push(chunk.bytes);
        r = chunk.next;
      }
      return Buffer.concat(parts);
    });
    const before = add(`PostgreSQL ${kind} DataRows, a cell at a time (before: \`cellEncoder\` + \`dataRow\`)`, () => {
      const enc = columns.map((c) => cellEncoder(c.data_type, format));
      return Buffer.concat(rows.map((r) => dataRow(r.map((cell, k) => enc[k]!(cell)))));
    });
    same(after, before, `PostgreSQL ${kind}`);
  }
  return out;
}
