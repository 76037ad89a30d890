/**
 * GreptimeDB's geo functions on tsdb's DuckDB: `geohash(lat, lng, resolution)` and
 * `geohash_neighbours(lat, lng, resolution)` (`geohash.ts`), scalar functions of JavaScript's
 * (`js-functions.ts`), registered with tsdb's other functions (`session-functions.ts`). NULL in
 * any argument gives NULL, as in GreptimeDB. The `h3_*` functions are in `h3-functions.ts`.
 */
import { BIGINT, DOUBLE, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { checkResolution, geohashEncode, geohashNeighbours } from './geohash.js';
import { registrar, scalar } from './js-functions.js';

/** Registers the geo functions on the instance of `connection`. */
export function registerGeoFunctions(connection: DuckDBConnection): void {
  const conn = registrar(connection);
  const args = (input: Parameters<Parameters<typeof scalar>[3]>[0], i: number) =>
    [input[0]!.getItem(i) as number, input[1]!.getItem(i) as number, checkResolution(Number(input[2]!.getItem(i)))] as const;
  conn.registerScalarFunction(scalar('geohash', [DOUBLE, DOUBLE, BIGINT], VARCHAR, (input, i) => geohashEncode(...args(input, i))));
  conn.registerScalarFunction(scalar('geohash_neighbours', [DOUBLE, DOUBLE, BIGINT], LIST(VARCHAR), (input, i) => listValue(geohashNeighbours(...args(input, i)))));
}
