/**
 * GreptimeDB's WKT point functions on tsdb's DuckDB: `wkt_point_from_latlng(lat, lng)` (a point's
 * WKT, longitude first, numbers as Rust prints an f64: shortest digits, never an exponent) and
 * `st_distance_sphere_m(a, b)` (the haversine distance in metres between two WKT points on a sphere
 * of the mean Earth radius, 6371008.8 m, as the `geo` crate computes it). GreptimeDB answers other
 * geometries of the sphere distance with its "non-point" execution error, as here.
 * `st_area` (planar, unsigned: the exterior ring's shoelace area less the holes', on coordinates
 * shifted to the ring's first point as `geo` does) and `st_distance` (planar Euclidean: 0 where the
 * geometries meet, else the least point/segment distance) read POINT, LINESTRING, POLYGON and their
 * MULTI forms, as do the relations `st_contains`, `st_within` (DE-9IM, for containers of points or
 * polygons) and `st_intersects`. GEOMETRYCOLLECTION is not read; parse errors do not carry the
 * `wkt` crate's own detail.
 */
import { BOOLEAN, DOUBLE, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
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

type Coord = readonly [number, number];
/** A geometry as its parts: points, line strings, polygons (rings, the exterior first). */
export interface Geometry {
  readonly points: Coord[];
  readonly lines: Coord[][];
  readonly polygons: Coord[][][];
}

const parseError = (wkt: string): TsdbError => new TsdbError(StatusCode.EngineExecuteQuery, `Fail to parse WKT: ${wkt}`);

/** A WKT geometry (2D; Z and M values dropped as `geo_types` drops them). */
export function parseWkt(wkt: string): Geometry {
  const tokens = wkt.match(/[A-Za-z]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),]|\S/g) ?? [];
  let at = 0;
  const fail = (): never => {
    throw parseError(wkt);
  };
  const take = (t: string): void => {
    if (tokens[at++] !== t) fail();
  };
  const coord = (): Coord => {
    const xs: number[] = [];
    while (at < tokens.length && /^[-+.\d]/.test(tokens[at]!)) xs.push(Number(tokens[at++]));
    if (xs.length < 2 || xs.length > 4) fail();
    return [xs[0]!, xs[1]!];
  };
  const list = <T>(item: () => T): T[] => {
    take('(');
    const out = [item()];
    while (tokens[at] === ',') {
      at++;
      out.push(item());
    }
    take(')');
    return out;
  };
  const pointItem = (): Coord => (tokens[at] === '(' ? list(coord)[0]! : coord());
  const g: Geometry = { points: [], lines: [], polygons: [] };
  const tag = (tokens[at++] ?? '').toUpperCase();
  if (/^(Z|M|ZM)$/i.test(tokens[at] ?? '')) at++;
  if ((tokens[at] ?? '').toUpperCase() === 'EMPTY') fail();
  if (tag === 'POINT') g.points.push(list(coord)[0]!);
  else if (tag === 'LINESTRING') g.lines.push(list(coord));
  else if (tag === 'POLYGON') g.polygons.push(list(() => list(coord)));
  else if (tag === 'MULTIPOINT') g.points.push(...list(pointItem));
  else if (tag === 'MULTILINESTRING') g.lines.push(...list(() => list(coord)));
  else if (tag === 'MULTIPOLYGON') g.polygons.push(...list(() => list(() => list(coord))));
  else fail();
  if (at !== tokens.length) fail();
  return g;
}

/** Twice a ring's signed area, on coordinates shifted to its first point (`geo`'s precision measure); 0 for an open ring. */
function twiceRingArea(ring: readonly Coord[]): number {
  const n = ring.length;
  if (n === 0 || ring[0]![0] !== ring[n - 1]![0] || ring[0]![1] !== ring[n - 1]![1]) return 0;
  const [sx, sy] = ring[0]!;
  let t = 0;
  for (let i = 0; i + 1 < n; i++) t += (ring[i]![0] - sx) * (ring[i + 1]![1] - sy) - (ring[i]![1] - sy) * (ring[i + 1]![0] - sx);
  return t;
}

/** `st_area`: the unsigned planar area (points and lines have none). */
export function area(g: Geometry): number {
  let a = 0;
  for (const [exterior, ...holes] of g.polygons) {
    let p = Math.abs(twiceRingArea(exterior!) / 2);
    for (const h of holes) p -= Math.abs(twiceRingArea(h) / 2);
    a += p;
  }
  return a;
}

const pointDistance = (a: Coord, b: Coord): number => Math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2);

/** `geo`'s point-to-segment distance. */
function segmentDistance(p: Coord, a: Coord, b: Coord): number {
  if (a[0] === b[0] && a[1] === b[1]) return pointDistance(p, a);
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const d2 = dx * dx + dy * dy;
  const r = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / d2;
  if (r <= 0) return pointDistance(p, a);
  if (r >= 1) return pointDistance(p, b);
  return Math.abs(((a[1] - p[1]) * dx - (a[0] - p[0]) * dy) / d2) * Math.sqrt(d2);
}

const orient = (a: Coord, b: Coord, c: Coord): number => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
const onSegment = (p: Coord, a: Coord, b: Coord): boolean =>
  orient(a, b, p) === 0 && Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1]);

function segmentsMeet(a: Coord, b: Coord, c: Coord, d: Coord): boolean {
  const o1 = orient(a, b, c);
  const o2 = orient(a, b, d);
  const o3 = orient(c, d, a);
  const o4 = orient(c, d, b);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  return onSegment(c, a, b) || onSegment(d, a, b) || onSegment(a, c, d) || onSegment(b, c, d);
}

/** Whether `p` is inside `ring` or on it (even-odd crossing). */
function inRing(p: Coord, ring: readonly Coord[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (onSegment(p, a, b)) return true;
    if (a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside;
}

/** Whether `p` is in the polygon or on its boundary (not strictly inside a hole). */
function inPolygon(p: Coord, rings: readonly (readonly Coord[])[]): boolean {
  if (!inRing(p, rings[0]!)) return false;
  for (const h of rings.slice(1)) if (inRing(p, h) && !h.some((_, i) => i > 0 && onSegment(p, h[i - 1]!, h[i]!))) return false;
  return true;
}

/** The segments of a geometry's lines and rings. */
function segments(g: Geometry): [Coord, Coord][] {
  const out: [Coord, Coord][] = [];
  for (const path of [...g.lines, ...g.polygons.flat()]) for (let i = 0; i + 1 < path.length; i++) out.push([path[i]!, path[i + 1]!]);
  return out;
}

/** A geometry's coordinates. */
const coords = (g: Geometry): Coord[] => [...g.points, ...g.lines.flat(), ...g.polygons.flat(2)];

/** Whether two geometries share a point. */
function meet(a: Geometry, b: Geometry, sa: readonly [Coord, Coord][], sb: readonly [Coord, Coord][]): boolean {
  for (const [p, q] of sa) for (const [r, s] of sb) if (segmentsMeet(p, q, r, s)) return true;
  for (const p of a.points) if (b.points.some((q) => q[0] === p[0] && q[1] === p[1]) || sb.some(([r, s]) => onSegment(p, r, s))) return true;
  for (const p of b.points) if (sa.some(([r, s]) => onSegment(p, r, s))) return true;
  // One inside the other: a coordinate of one inside a polygon of the other.
  for (const poly of b.polygons) if (coords(a).some((p) => inPolygon(p, poly))) return true;
  for (const poly of a.polygons) if (coords(b).some((p) => inPolygon(p, poly))) return true;
  return false;
}

/** `st_distance`: planar Euclidean distance, 0 where the geometries meet. */
export function distance(a: Geometry, b: Geometry): number {
  const sa = segments(a);
  const sb = segments(b);
  if (meet(a, b, sa, sb)) return 0;
  let d = Infinity;
  for (const p of coords(a)) {
    for (const q of b.points) d = Math.min(d, pointDistance(p, q));
    for (const [r, s] of sb) d = Math.min(d, segmentDistance(p, r, s));
  }
  for (const p of coords(b)) for (const [r, s] of sa) d = Math.min(d, segmentDistance(p, r, s));
  return d;
}

/** Whether `p` is on a ring of the polygon (its boundary). */
const onBoundary = (p: Coord, rings: readonly (readonly Coord[])[]): boolean => rings.some((r) => r.some((_, i) => i > 0 && onSegment(p, r[i - 1]!, r[i]!)));
const midpoint = ([p, q]: readonly [Coord, Coord]): Coord => [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
const properlyCross = (a: Coord, b: Coord, c: Coord, d: Coord): boolean => orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0;

/** `st_intersects`: whether the geometries share a point. */
export const intersects = (a: Geometry, b: Geometry): boolean => meet(a, b, segments(a), segments(b));

/**
 * `st_contains` (DE-9IM: no point of `b` outside `a`, and their interiors meet), for a container of
 * points (`b` points) or of polygons (`b` anything); a line string containing lines or points is
 * refused rather than guessed.
 */
export function contains(a: Geometry, b: Geometry): boolean {
  const dimension = (g: Geometry): number => (g.polygons.length > 0 ? 2 : g.lines.length > 0 ? 1 : 0);
  if (dimension(b) > dimension(a)) return false;
  if (dimension(a) === 0) return b.points.every((p) => a.points.some((q) => q[0] === p[0] && q[1] === p[1]));
  if (dimension(a) === 1) throw new TsdbError(StatusCode.EngineExecuteQuery, 'Execution error: st_contains of a line string is not supported');
  const inside = (p: Coord): boolean => a.polygons.some((poly) => inPolygon(p, poly));
  const interior = (p: Coord): boolean => a.polygons.some((poly) => inPolygon(p, poly) && !onBoundary(p, poly));
  const sa = segments(a);
  const sb = segments(b);
  if (!coords(b).every(inside)) return false;
  for (const [p, q] of sb) {
    if (sa.some(([r, s]) => properlyCross(p, q, r, s)) || !inside(midpoint([p, q]))) return false;
  }
  // A hole of a within a polygon of b puts a's exterior inside b.
  if (a.polygons.some((poly) => poly.slice(1).some((h) => h.some((p) => b.polygons.some((bp) => inPolygon(p, bp) && !onBoundary(p, bp)))))) return false;
  if (coords(b).some(interior) || sb.some((s) => interior(midpoint(s)))) return true;
  // b's boundary lies on a's: a polygon of b with an area still has its interior inside a.
  return b.polygons.some((poly) => area({ points: [], lines: [], polygons: [poly] }) > 0);
}

/** A WKT point's [x, y]; another geometry gives undefined; text that is no geometry fails as GreptimeDB's parse. */
export function readPoint(wkt: string): [number, number] | undefined {
  const m = POINT.exec(wkt);
  if (m !== null) return [Number(m[1]), Number(m[2])];
  parseWkt(wkt);
  return undefined;
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
  const wkt = (input: Parameters<Parameters<typeof scalar>[3]>[0], c: number, i: number): Geometry => parseWkt(input[c]!.getItem(i) as string);
  r.registerScalarFunction(scalar('st_area', [VARCHAR], DOUBLE, (input, i) => area(wkt(input, 0, i))));
  r.registerScalarFunction(scalar('st_distance', [VARCHAR, VARCHAR], DOUBLE, (input, i) => distance(wkt(input, 0, i), wkt(input, 1, i))));
  r.registerScalarFunction(scalar('st_contains', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => contains(wkt(input, 0, i), wkt(input, 1, i))));
  r.registerScalarFunction(scalar('st_within', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => contains(wkt(input, 1, i), wkt(input, 0, i))));
  r.registerScalarFunction(scalar('st_intersects', [VARCHAR, VARCHAR], BOOLEAN, (input, i) => intersects(wkt(input, 0, i), wkt(input, 1, i))));
  r.registerScalarFunction(scalar('st_distance_sphere_m', [VARCHAR, VARCHAR], DOUBLE, (input, i) => distanceSphereM(input[0]!.getItem(i) as string, input[1]!.getItem(i) as string)));
}
