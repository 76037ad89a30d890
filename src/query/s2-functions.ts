/**
 * GreptimeDB's `s2_*` functions on tsdb's DuckDB: `s2_latlng_to_cell(lat, lng)` (the level-30 S2
 * cell id of a point, UBIGINT), `s2_cell_level`, `s2_cell_to_token`, `s2_cell_parent(cell, level)`.
 * The cell id is S2's: the point's cube face, its (u, v) on that face through the quadratic
 * projection to (s, t), then (i, j) cell coordinates walked along the Hilbert curve four bits at a
 * time with S2's lookup table (built once here). A cell is given as BIGINT (read as its unsigned
 * bits, as GreptimeDB reads an Int64) or UBIGINT; the macros pass it as UBIGINT.
 */
import { BIGINT, DOUBLE, UBIGINT, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { registrar, scalar } from './js-functions.js';

const LOOKUP_BITS = 4;
const SWAP = 1;
const INVERT = 2;
const MAX_LEVEL = 30;
const MAX_SIZE = 2 ** MAX_LEVEL;
const POS_TO_IJ = [[0, 1, 3, 2], [0, 2, 3, 1], [3, 2, 0, 1], [3, 1, 0, 2]] as const;
const POS_TO_ORIENTATION = [SWAP, 0, 0, INVERT | SWAP] as const;

/** S2's lookup from (i, j bits, orientation) to (Hilbert position, orientation). */
const LOOKUP_POS = (() => {
  const table = new Int32Array(1 << (2 * LOOKUP_BITS + 2));
  const init = (level: number, i: number, j: number, orig: number, pos: number, orientation: number): void => {
    if (level === LOOKUP_BITS) {
      table[(((i << LOOKUP_BITS) + j) << 2) + orig] = (pos << 2) + orientation;
      return;
    }
    const r = POS_TO_IJ[orientation]!;
    for (let k = 0; k < 4; k++) init(level + 1, (i << 1) + (r[k]! >> 1), (j << 1) + (r[k]! & 1), orig, (pos << 2) + k, orientation ^ POS_TO_ORIENTATION[k]!);
  };
  for (let o = 0; o < 4; o++) init(0, 0, 0, o, 0, o);
  return table;
})();

const stToIJ = (s: number): number => Math.max(0, Math.min(MAX_SIZE - 1, Math.floor(MAX_SIZE * s)));
const uvToST = (u: number): number => (u >= 0 ? 0.5 * Math.sqrt(1 + 3 * u) : 1 - 0.5 * Math.sqrt(1 - 3 * u));

/** `s2_latlng_to_cell`: the leaf cell id of a point given in degrees. */
export function s2LatLngToCell(latDeg: number, lngDeg: number): bigint {
  const lat = (latDeg * Math.PI) / 180;
  const lng = (lngDeg * Math.PI) / 180;
  if (!(Math.abs(lat) <= Math.PI / 2 && Math.abs(lng) <= Math.PI)) throw new TsdbError(StatusCode.EngineExecuteQuery, 'Invalid function args: The input coordinates are invalid');
  const x = Math.cos(lat) * Math.cos(lng);
  const y = Math.cos(lat) * Math.sin(lng);
  const z = Math.sin(lat);
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const az = Math.abs(z);
  let face = ax > ay ? (ax > az ? 0 : 2) : ay > az ? 1 : 2;
  if ([x, y, z][face]! < 0) face += 3;
  const [u, v] = [[y / x, z / x], [-x / y, z / y], [-x / z, -y / z], [z / x, y / x], [z / y, -x / y], [-y / z, -x / z]][face]!;
  const i = stToIJ(uvToST(u!));
  const j = stToIJ(uvToST(v!));
  let n = BigInt(face) << 60n;
  let bits = face & SWAP;
  const mask = (1 << LOOKUP_BITS) - 1;
  for (let k = 7; k >= 0; k--) {
    bits += ((Math.floor(i / 2 ** (k * LOOKUP_BITS)) & mask) << (LOOKUP_BITS + 2)) + ((Math.floor(j / 2 ** (k * LOOKUP_BITS)) & mask) << 2);
    bits = LOOKUP_POS[bits]!;
    n |= BigInt(bits >> 2) << BigInt(k * 2 * LOOKUP_BITS);
    bits &= SWAP | INVERT;
  }
  return BigInt.asUintN(64, n * 2n + 1n);
}

const lsb = (id: bigint): bigint => id & -id;
const trailingZeros = (id: bigint): number => (id === 0n ? 64 : lsb(id).toString(2).length - 1);

export const s2CellLevel = (id: bigint): number => MAX_LEVEL - (trailingZeros(id) >> 1);

export function s2CellToToken(id: bigint): string {
  if (id === 0n) return 'X';
  return id.toString(16).padStart(16, '0').replace(/0+$/, '');
}

/** `s2_cell_parent`: GreptimeDB's level range check, then S2's parent. */
export function s2CellParent(id: bigint, level: bigint): bigint {
  if (level < 0n || level > BigInt(MAX_LEVEL)) throw new TsdbError(StatusCode.EngineExecuteQuery, 'Execution error: argument out of valid range');
  const l = 1n << BigInt(2 * (MAX_LEVEL - Number(level)));
  return BigInt.asUintN(64, (id & BigInt.asUintN(64, -l)) | l);
}

/** Registers the s2 functions on the DuckDB instance of `conn` (idempotent). */
export async function installS2Functions(conn: DuckDBConnection): Promise<void> {
  const r = registrar(conn);
  r.registerScalarFunction(scalar('s2_latlng_to_cell', [DOUBLE, DOUBLE], UBIGINT, (input, i) => s2LatLngToCell(input[0]!.getItem(i) as number, input[1]!.getItem(i) as number)));
  r.registerScalarFunction(scalar('__tsdb_s2_cell_level', [UBIGINT], UBIGINT, (input, i) => BigInt(s2CellLevel(input[0]!.getItem(i) as bigint))));
  r.registerScalarFunction(scalar('__tsdb_s2_cell_to_token', [UBIGINT], VARCHAR, (input, i) => s2CellToToken(input[0]!.getItem(i) as bigint)));
  r.registerScalarFunction(scalar('__tsdb_s2_cell_parent', [UBIGINT, BIGINT], UBIGINT, (input, i) => s2CellParent(input[0]!.getItem(i) as bigint, input[1]!.getItem(i) as bigint)));
  // A BIGINT cell is its unsigned bits (GreptimeDB reads an Int64 cell `as u64`).
  const bits = '(CASE WHEN c < 0 THEN CAST(c + 18446744073709551616 AS UBIGINT) ELSE CAST(c AS UBIGINT) END)';
  await conn.run(`CREATE OR REPLACE MACRO s2_cell_level(c) AS __tsdb_s2_cell_level(${bits})`);
  await conn.run(`CREATE OR REPLACE MACRO s2_cell_to_token(c) AS __tsdb_s2_cell_to_token(${bits})`);
  await conn.run(`CREATE OR REPLACE MACRO s2_cell_parent(c, l) AS __tsdb_s2_cell_parent(${bits}, l)`);
}
