/**
 * Geohash (base-32 strings of interleaved longitude/latitude bisection bits) for GreptimeDB's
 * `geohash(lat, lng, resolution)` and `geohash_neighbours(lat, lng, resolution)`: the cell of a
 * point at 1 … 12 characters, and the 8 cells around it in GreptimeDB's order (n, nw, w, sw, s,
 * se, e, ne), each found as the cell of the centre moved by one cell's size.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** Checks a resolution as GreptimeDB does (cast to UInt8, then 1 … 12). */
export function checkResolution(r: number): number {
  if (!Number.isInteger(r) || r < 0 || r > 255) throw new TsdbError(StatusCode.EngineExecuteQuery, `Cast error: Can't cast value ${r} to type UInt8`);
  if (r < 1 || r > 12) throw new TsdbError(StatusCode.EngineExecuteQuery, `Execution error: Invalid geohash resolution ${r}, valid value range: [1, 12]`);
  return r;
}

/** The geohash of (lat, lng) with `length` characters. */
export function geohashEncode(lat: number, lng: number, length: number): string {
  if (!(lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90)) {
    throw new TsdbError(StatusCode.EngineExecuteQuery, `Geohash error: invalid coordinate range: Coord { x: ${lng}, y: ${lat} }`);
  }
  let [latMin, latMax, lngMin, lngMax] = [-90, 90, -180, 180];
  let out = '';
  let bits = 0;
  let ch = 0;
  let even = true;
  while (out.length < length) {
    if (even) {
      const mid = (lngMin + lngMax) / 2;
      if (lng >= mid) {
        ch = (ch << 1) | 1;
        lngMin = mid;
      } else {
        ch <<= 1;
        lngMax = mid;
      }
    } else {
      const mid = (latMin + latMax) / 2;
      if (lat >= mid) {
        ch = (ch << 1) | 1;
        latMin = mid;
      } else {
        ch <<= 1;
        latMax = mid;
      }
    }
    even = !even;
    if (++bits === 5) {
      out += BASE32[ch]!;
      bits = 0;
      ch = 0;
    }
  }
  return out;
}

/** The cell's centre and half sizes. */
function decode(hash: string): { lat: number; lng: number; latErr: number; lngErr: number } {
  let [latMin, latMax, lngMin, lngMax] = [-90, 90, -180, 180];
  let even = true;
  for (const c of hash) {
    const v = BASE32.indexOf(c);
    for (let bit = 4; bit >= 0; bit--) {
      const on = ((v >> bit) & 1) === 1;
      if (even) {
        const mid = (lngMin + lngMax) / 2;
        if (on) lngMin = mid;
        else lngMax = mid;
      } else {
        const mid = (latMin + latMax) / 2;
        if (on) latMin = mid;
        else latMax = mid;
      }
      even = !even;
    }
  }
  return { lat: (latMin + latMax) / 2, lng: (lngMin + lngMax) / 2, latErr: (latMax - latMin) / 2, lngErr: (lngMax - lngMin) / 2 };
}

/** The directions of the neighbours, in GreptimeDB's order: (Δlat, Δlng). */
const DIRECTIONS: ReadonlyArray<readonly [number, number]> = [
  [1, 0], // n
  [1, -1], // nw
  [0, -1], // w
  [-1, -1], // sw
  [-1, 0], // s
  [-1, 1], // se
  [0, 1], // e
  [1, 1], // ne
];

/** The 8 cells around the cell of (lat, lng) at `length` characters. */
export function geohashNeighbours(lat: number, lng: number, length: number): string[] {
  const hash = geohashEncode(lat, lng, length);
  const c = decode(hash);
  return DIRECTIONS.map(([dLat, dLng]) => geohashEncode(c.lat + 2 * c.latErr * dLat, c.lng + 2 * c.lngErr * dLng, length));
}
