/**
 * The encoders of a result's rows timed alone, in this process, on one answer's cells: what each
 * protocol's server does between having the rows and writing bytes. The row-at-a-time encoders
 * (kept for one-off rows, and as the reference of the tests) against the batch encoders the
 * servers use, each pair's bytes compared.
 */
import type { Cell, OutputColumn } from '../../src/query/output.js';
import { render } from '../../src/servers/http/sql-format.js';
import { encodeBinaryRow, encodeTextRow, framePayloads } from '../../src/servers/mysql/resultset.js';
import { cellEncoder } from '../../src/servers/postgres/types.js';
import { dataRow } from '../../src/servers/postgres/messages.js';

export interface EncodeCase {
  readonly name: string;
  readonly ms: number;
  readonly bytes: number;
}

function timed(rounds: number, f: () => Buffer | string): { ms: number; out: Buffer | string } {
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
  for (const binary of [false, true]) {
    add(`MySQL ${binary ? 'binary' : 'text'} rows, a row at a time (before)`, () =>
      framePayloads(rows.map((r) => (binary ? encodeBinaryRow(r, columns, 'UTC') : encodeTextRow(r, columns, 'UTC'))), 1).bytes,
    );
  }
  for (const format of [0, 1] as const) {
    add(`PostgreSQL ${format === 0 ? 'text' : 'binary'} DataRows, a cell at a time (before)`, () => {
      const enc = columns.map((c) => cellEncoder(c.data_type, format));
      return Buffer.concat(rows.map((r) => dataRow(r.map((cell, k) => enc[k]!(cell)))));
    });
  }
  add('JSON (greptimedb_v1, `render`)', () => render('greptimedb_v1', [{ kind: 'records', columns, rows }], 1).body);
  return out;
}
