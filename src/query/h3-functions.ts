/**
 * GreptimeDB's `h3_*` functions on tsdb's DuckDB, over Uber's H3 library (`h3-js`): cells of the
 * hexagonal grid from coordinates, their strings and numbers, parents, children, disks, paths
 * and distances.
 *
 * A cell is given as GreptimeDB accepts it: a number (BIGINT or UBIGINT) or its hexadecimal
 * string. The SQL names are macros that hand the cell to the JavaScript function as text
 * (`CAST(c AS VARCHAR)`), so one function serves every form: a number's text has 16 or more
 * decimal digits (cells are about 6·10^17), a hexadecimal cell string has at most 16 characters
 * and carries letters in all but the finest cells. Cells come back as UBIGINT, as GreptimeDB
 * returns UInt64. Resolutions are GreptimeDB's UInt8 casts: negative or above 255 is its cast
 * error, 16..255 the H3 error. NULL in any argument gives NULL.
 */
import { BOOLEAN, DOUBLE, HUGEINT, INTEGER, LIST, listValue, UBIGINT, UTINYINT, VARCHAR, type DuckDBConnection, type DuckDBScalarFunction } from '@duckdb/node-api';
import {
  cellToCenterChild, cellToChildPos, cellToChildren, cellToChildrenSize, cellToLatLng, cellToParent, childPosToCell, getBaseCellNumber,
  getResolution, greatCircleDistance, gridDisk, gridDiskDistances, gridDistance, gridPathCells, isPentagon, isValidCell, latLngToCell,
} from 'h3-js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { registrar, scalar } from './js-functions.js';

const h3Error = (message: string): TsdbError => new TsdbError(StatusCode.EngineExecuteQuery, `Execution error: H3 error: ${message}`);

/** A resolution as GreptimeDB reads it: cast to UInt8, then checked against H3's 0..15. */
export function h3Resolution(value: unknown): number {
  const r = Number(value);
  if (!Number.isInteger(r) || r < 0 || r > 255) throw new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Can't cast value ${String(value)} to type UInt8`);
  if (r > 15) throw h3Error(`invalid resolution (got Some(${r})): out of range`);
  return r;
}

/** The H3 index (hexadecimal, h3-js's form) of a cell given as a number's text or a cell string. */
export function h3Cell(text: string): string {
  const t = text.trim();
  let hex: string;
  if (/^\d{16,20}$/.test(t)) {
    hex = BigInt(t).toString(16);
  } else if (/^-\d+$/.test(t)) {
    // A BIGINT holding a cell above 2^63 (GreptimeDB reads it `as u64`).
    hex = BigInt.asUintN(64, BigInt(t)).toString(16);
  } else {
    hex = t.toLowerCase();
  }
  if (!/^[0-9a-f]{1,16}$/.test(hex) || !isValidCell(hex)) throw h3Error(`invalid cell index (got ${JSON.stringify(text)})`);
  return hex;
}

/** A cell as the UBIGINT GreptimeDB returns. */
const cellNumber = (hex: string): bigint => BigInt(`0x${hex}`);

/** The cells of `h3_cells_contains`' first argument: a list (as DuckDB writes one as text) or comma-separated strings. */
export function h3Cells(text: string): string[] {
  let body = text.trim();
  if (body.startsWith('[') && body.endsWith(']')) body = body.slice(1, -1);
  if (body.trim() === '') return [];
  return body.split(',').map((s) => h3Cell(s.trim().replace(/^'(.*)'$/, '$1')));
}

/** Wraps h3-js's own failures (an impossible path, a pentagon in the way) as GreptimeDB's H3 error. */
function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw h3Error(err instanceof Error ? err.message : String(err));
  }
}

/** A function of one cell (its text). */
function cellFunction(name: string, returnType: Parameters<typeof scalar>[2], f: (cell: string) => unknown): DuckDBScalarFunction {
  return scalar(name, [VARCHAR], returnType, (input, i) => f(h3Cell(input[0]!.getItem(i) as string)));
}

/** A function of a cell and a resolution; `f` answering undefined gives NULL (a resolution on the wrong side of the cell's). */
function cellResolutionFunction(name: string, returnType: Parameters<typeof scalar>[2], f: (cell: string, res: number) => unknown): DuckDBScalarFunction {
  return scalar(name, [VARCHAR, HUGEINT], returnType, (input, i) => {
    const v = f(h3Cell(input[0]!.getItem(i) as string), h3Resolution(input[1]!.getItem(i)));
    return v === undefined ? null : v;
  });
}

/** A function of two cells. */
function twoCellFunction(name: string, returnType: Parameters<typeof scalar>[2], f: (a: string, b: string) => unknown): DuckDBScalarFunction {
  return scalar(name, [VARCHAR, VARCHAR], returnType, (input, i) => f(h3Cell(input[0]!.getItem(i) as string), h3Cell(input[1]!.getItem(i) as string)));
}

/**
 * The most cells one value may list (a disk, children, a path): one call must not hold the
 * server's memory (a disk of k = 10^6 has 3·10^12 cells; children 15 resolutions down, 7^15).
 */
export const MAX_H3_CELLS = 1_000_000;

function tooMany(what: string, count: number): TsdbError {
  return h3Error(`${what} would be ${count} cells, more than the ${MAX_H3_CELLS} one value may hold`);
}

function distance(k: unknown): number {
  const n = Number(k);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Can't cast value ${String(k)} to type UInt32`);
  const cells = 3 * n * (n + 1) + 1;
  if (cells > MAX_H3_CELLS) throw tooMany(`a grid disk of k = ${n}`, cells);
  return n;
}

/** The JavaScript functions behind the macros (`__tsdb_h3_*`). */
function h3Functions(): DuckDBScalarFunction[] {
  const latLng = (input: Parameters<Parameters<typeof scalar>[3]>[0], i: number): string => {
    const lat = input[0]!.getItem(i) as number;
    const lng = input[1]!.getItem(i) as number;
    const res = h3Resolution(input[2]!.getItem(i));
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) throw h3Error(`invalid coordinate (got ${lat}, ${lng}): not finite`);
    return latLngToCell(lat, lng, res);
  };
  const cellList = (cells: readonly string[]) => listValue(cells.map(cellNumber));
  return [
    scalar('h3_latlng_to_cell', [DOUBLE, DOUBLE, HUGEINT], UBIGINT, (input, i) => cellNumber(latLng(input, i))),
    scalar('h3_latlng_to_cell_string', [DOUBLE, DOUBLE, HUGEINT], VARCHAR, (input, i) => latLng(input, i)),
    cellFunction('__tsdb_h3_cell_to_string', VARCHAR, (c) => c),
    scalar('__tsdb_h3_string_to_cell', [VARCHAR], UBIGINT, (input, i) => {
      const s = (input[0]!.getItem(i) as string).trim().toLowerCase();
      if (!/^[0-9a-f]{1,16}$/.test(s) || !isValidCell(s)) throw h3Error(`invalid cell index (got ${JSON.stringify(input[0]!.getItem(i))})`);
      return cellNumber(s);
    }),
    cellFunction('__tsdb_h3_cell_center_latlng', LIST(DOUBLE), (c) => listValue(cellToLatLng(c))),
    cellFunction('__tsdb_h3_cell_resolution', UTINYINT, (c) => getResolution(c)),
    cellFunction('__tsdb_h3_cell_base', UTINYINT, (c) => getBaseCellNumber(c)),
    cellFunction('__tsdb_h3_cell_is_pentagon', BOOLEAN, (c) => isPentagon(c)),
    cellResolutionFunction('__tsdb_h3_cell_center_child', UBIGINT, (c, r) => (r >= getResolution(c) ? cellNumber(cellToCenterChild(c, r)) : undefined)),
    cellResolutionFunction('__tsdb_h3_cell_parent', UBIGINT, (c, r) => (r <= getResolution(c) ? cellNumber(cellToParent(c, r)) : undefined)),
    cellResolutionFunction('__tsdb_h3_cell_to_children', LIST(UBIGINT), (c, r) => {
      if (r < getResolution(c)) return cellList([]);
      const size = cellToChildrenSize(c, r);
      if (size > MAX_H3_CELLS) throw tooMany(`the children of ${c} at resolution ${r}`, size);
      return cellList(cellToChildren(c, r));
    }),
    cellResolutionFunction('__tsdb_h3_cell_to_children_size', UBIGINT, (c, r) => (r >= getResolution(c) ? BigInt(cellToChildrenSize(c, r)) : 0n)),
    cellResolutionFunction('__tsdb_h3_cell_to_child_pos', UBIGINT, (c, r) => (r <= getResolution(c) ? BigInt(cellToChildPos(c, r)) : undefined)),
    scalar('__tsdb_h3_child_pos_to_cell', [HUGEINT, VARCHAR, HUGEINT], UBIGINT, (input, i) => {
      const pos = Number(input[0]!.getItem(i));
      const cell = h3Cell(input[1]!.getItem(i) as string);
      const res = h3Resolution(input[2]!.getItem(i));
      if (!Number.isInteger(pos) || pos < 0) throw new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Can't cast value ${pos} to type UInt64`);
      if (res < getResolution(cell) || pos >= cellToChildrenSize(cell, res)) return null;
      return cellNumber(childPosToCell(pos, cell, res));
    }),
    scalar('__tsdb_h3_grid_disk', [VARCHAR, HUGEINT], LIST(UBIGINT), (input, i) => {
      const cell = h3Cell(input[0]!.getItem(i) as string);
      const k = distance(input[1]!.getItem(i));
      return cellList(guarded(() => gridDisk(cell, k)));
    }),
    scalar('__tsdb_h3_grid_disk_distances', [VARCHAR, HUGEINT], LIST(UBIGINT), (input, i) => {
      const cell = h3Cell(input[0]!.getItem(i) as string);
      const k = distance(input[1]!.getItem(i));
      return cellList(guarded(() => gridDiskDistances(cell, k)).flat());
    }),
    twoCellFunction('__tsdb_h3_grid_distance', INTEGER, (a, b) => guarded(() => gridDistance(a, b))),
    twoCellFunction('__tsdb_h3_grid_path_cells', LIST(UBIGINT), (a, b) => {
      const steps = guarded(() => gridDistance(a, b));
      if (steps + 1 > MAX_H3_CELLS) throw tooMany(`the path from ${a} to ${b}`, steps + 1);
      return cellList(guarded(() => gridPathCells(a, b)));
    }),
    scalar('__tsdb_h3_cells_contains', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => {
      const cells = h3Cells(input[0]!.getItem(i) as string);
      const cell = h3Cell(input[1]!.getItem(i) as string);
      const res = getResolution(cell);
      return cells.some((c) => {
        const r = getResolution(c);
        return r <= res && cellToParent(cell, r) === c;
      });
    }),
    twoCellFunction('__tsdb_h3_distance_sphere_km', DOUBLE, (a, b) => greatCircleDistance(cellToLatLng(a), cellToLatLng(b), 'km')),
    twoCellFunction('__tsdb_h3_distance_degree', DOUBLE, (a, b) => {
      const [lat1, lng1] = cellToLatLng(a);
      const [lat2, lng2] = cellToLatLng(b);
      return Math.sqrt((lat1 - lat2) ** 2 + (lng1 - lng2) ** 2);
    }),
  ];
}

const text = (arg: string): string => `CAST(${arg} AS VARCHAR)`;

/** The SQL functions users call: macros passing cells as text to the functions above. */
const MACROS: readonly string[] = [
  ...['cell_to_string', 'cell_center_latlng', 'cell_resolution', 'cell_base', 'cell_is_pentagon'].map((f) => `h3_${f}(c) AS __tsdb_h3_${f}(${text('c')})`),
  `h3_string_to_cell(s) AS __tsdb_h3_string_to_cell(${text('s')})`,
  ...['cell_center_child', 'cell_parent', 'cell_to_children', 'cell_to_children_size', 'cell_to_child_pos'].map((f) => `h3_${f}(c, r) AS __tsdb_h3_${f}(${text('c')}, r)`),
  `h3_child_pos_to_cell(p, c, r) AS __tsdb_h3_child_pos_to_cell(p, ${text('c')}, r)`,
  ...['grid_disk', 'grid_disk_distances'].map((f) => `h3_${f}(c, k) AS __tsdb_h3_${f}(${text('c')}, k)`),
  ...['grid_distance', 'grid_path_cells', 'distance_sphere_km', 'distance_degree', 'cells_contains'].map((f) => `h3_${f}(a, b) AS __tsdb_h3_${f}(${text('a')}, ${text('b')})`),
];

/** Registers the h3 functions on the DuckDB instance of `conn` (idempotent). */
export async function installH3Functions(conn: DuckDBConnection): Promise<void> {
  const r = registrar(conn);
  for (const f of h3Functions()) r.registerScalarFunction(f);
  for (const m of MACROS) await conn.run(`CREATE OR REPLACE MACRO ${m}`);
}
