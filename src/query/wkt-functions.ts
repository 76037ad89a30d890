/**
 * GreptimeDB's WKT point functions on tsdb's DuckDB: `wkt_point_from_latlng(lat, lng)` (a point's
 * WKT, longitude first, numbers as Rust prints an f64: shortest digits, never an exponent) and
 * `st_distance_sphere_m(a, b)` (the haversine distance in metres between two WKT points on a sphere
 * of the mean Earth radius, 6371008.8 m, as the `geo` crate computes it). GreptimeDB answers other
 * geometries of the sphere distance with its "non-point" execution error, as here.
 * The other `st_*` functions (planar distance, area, relations of any geometries) are not here.
 */
import { DOUBLE, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { registrar, scalar } from './js-functions.js';

/** An f64 as Rust's `Display` writes it: JavaScript's shortest digits, the exponent spelt out. */
export function rustFloat(x: number): string {
  const s = String(x);
  const e = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (e === null) return s;
  const [, sign, int, frac = '', exp] = e;
  const digits = int! + frac;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  return `${sign}${digits.padEnd(point, '0').slice(0, point)}${digits.length > point ? `.${digits.slice(point)}` : ''}`;
}

export const wktPoint = (lat: number, lng: number): string => `POINT(${rustFloat(lng)} ${rustFloat(lat)})`;

const NUM = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
const POINT = new RegExp(`^\\s*POINT\\s*(?:Z|M|ZM)?\\s*\\(\\s*(${NUM})\\s+(${NUM})(?:\\s+${NUM}){0,2}\\s*\\)\\s*$`, 'i');
const OTHER = /^\s*(LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\s*(?:Z|M|ZM)?\s*\(/i;

/** A WKT point's [x, y]; another geometry's tag gives undefined; anything else fails as GreptimeDB's parse. */
export function readPoint(wkt: string): [number, number] | undefined {
  const m = POINT.exec(wkt);
  if (m !== null) return [Number(m[1]), Number(m[2])];
  if (OTHER.test(wkt) && balanced(wkt)) return undefined;
  throw new TsdbError(StatusCode.EngineExecuteQuery, `Fail to parse WKT: ${wkt}`);
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0 && s.trim().endsWith(')');
}

const EARTH_RADIUS_M = 6371008.8;
const RAD = Math.PI / 180;

export function distanceSphereM(a: string, b: string): number {
  const p = readPoint(a);
  const q = readPoint(b);
  if (p === undefined || q === undefined) throw new TsdbError(StatusCode.EngineExecuteQuery, 'Great circle distance between non-point objects are not supported for now.');
  const [lng1, lat1] = p;
  const [lng2, lat2] = q;
  const h = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lng2 - lng1) * RAD) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(h));
}

/** Registers the WKT functions on the DuckDB instance of `conn` (idempotent). */
export function registerWktFunctions(conn: DuckDBConnection): void {
  const r = registrar(conn);
  r.registerScalarFunction(scalar('wkt_point_from_latlng', [DOUBLE, DOUBLE], VARCHAR, (input, i) => wktPoint(input[0]!.getItem(i) as number, input[1]!.getItem(i) as number)));
  r.registerScalarFunction(scalar('st_distance_sphere_m', [VARCHAR, VARCHAR], DOUBLE, (input, i) => distanceSphereM(input[0]!.getItem(i) as string, input[1]!.getItem(i) as string)));
}
