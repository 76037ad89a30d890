/**
 * GreptimeDB's vector functions (its `src/common/function/src/scalars/vector` and `aggrs/vector`)
 * on the DuckDB instance, installed with the other tsdb functions (`session-functions.ts`). A vector
 * is a DuckDB `FLOAT[]` (a VECTOR(n) column reads as `FLOAT[n]`, `table-router.ts`); every function
 * takes vectors as such or as text (`'[1.0, 2.0]'`): each is a macro casting its arguments to
 * `FLOAT[]` around a JavaScript scalar function that computes as GreptimeDB does, in float32
 * (`vec_div` by 0 gives ±inf, `vec_cos_distance` with a zero vector 1), with its errors
 * (`vectors length not match: vec_add`, EngineExecuteQuery). `vec_sum`, `vec_product` and
 * `vec_avg` are aggregates: macros over DuckDB's `list()` of the group's vectors.
 */
import { BIGINT, BLOB, DuckDBBlobValue, DuckDBListValue, DuckDBScalarFunction, FLOAT, LIST, listValue, UBIGINT, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue, type DuckDBVector } from '@duckdb/node-api';
import { parseVectorText, vectorOfBytes, vectorText, VectorTextError } from '../common/vector-text.js';
import { EXECUTION_ERROR } from './duckdb-error.js';

const VEC = LIST(FLOAT);

class ExecutionError extends Error {}

type Arg = Float32Array | number | bigint | string;

function floats(v: DuckDBValue): Float32Array {
  return Float32Array.from((v as DuckDBListValue).items as number[]);
}

/**
 * A scalar function of `params` computed row by row (vectors as Float32Array), NULL where an
 * argument is NULL; an ExecutionError fails the query with its message.
 */
function scalar(name: string, params: readonly DuckDBType[], returnType: DuckDBType, row: (args: Arg[]) => unknown): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: params,
    mainFunction: (info, input, output) => {
      const n = input.rowCount;
      const columns = params.map((_, i) => input.getColumnVector(i));
      const args: Arg[] = new Array(params.length);
      const out = output as DuckDBVector<DuckDBValue>;
      try {
        rows: for (let r = 0; r < n; r++) {
          for (let i = 0; i < columns.length; i++) {
            const a = columns[i]!.getItem(r);
            if (a === null) {
              out.setItem(r, null);
              continue rows;
            }
            args[i] = params[i] === VEC ? floats(a) : (a as number | bigint | string);
          }
          const v = row(args);
          out.setItem(r, v === null || v === undefined ? null : v instanceof Float32Array ? listValue(Array.from(v)) : (v as DuckDBValue));
        }
        out.flush();
      } catch (e) {
        if (!(e instanceof ExecutionError)) throw e;
        info.setError(EXECUTION_ERROR + e.message);
      }
    },
  });
}

function sameLength(name: string, a: Float32Array, b: Float32Array): void {
  if (a.length !== b.length) throw new ExecutionError(`vectors length not match: ${name}`);
}

/** An elementwise operation of two vectors, in float32. */
function elementwise(name: string, op: (x: number, y: number) => number): DuckDBScalarFunction {
  return scalar(`__tsdb_${name}`, [VEC, VEC], VEC, ([a, b]) => {
    const x = a as Float32Array;
    const y = b as Float32Array;
    sameLength(name, x, y);
    const out = new Float32Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = op(x[i]!, y[i]!);
    return out;
  });
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s = Math.fround(s + Math.fround(a[i]! * b[i]!));
  return s;
}

const EPSILON = 1.1920929e-7;

/** The scalar functions (JavaScript), made once per instance. */
function vectorFunctions(): DuckDBScalarFunction[] {
  return [
    scalar('__tsdb_parse_vec', [VARCHAR], VEC, ([s]) => {
      try {
        return parseVectorText(s as string);
      } catch (e) {
        if (e instanceof VectorTextError) throw new ExecutionError(e.message);
        throw e;
      }
    }),
    scalar('__tsdb_vec_to_string', [VEC], VARCHAR, ([v]) => vectorText(v as Float32Array)),
    scalar('__tsdb_vec_from_bytes', [BLOB], VEC, ([b]) => vectorOfBytes((b as unknown as DuckDBBlobValue).bytes)),
    elementwise('vec_add', (x, y) => x + y),
    elementwise('vec_sub', (x, y) => x - y),
    elementwise('vec_mul', (x, y) => x * y),
    elementwise('vec_div', (x, y) => x / y),
    scalar('__tsdb_vec_scalar_add', [FLOAT, VEC], VEC, ([s, v]) => (v as Float32Array).map((x) => x + (s as number))),
    scalar('__tsdb_vec_scalar_mul', [FLOAT, VEC], VEC, ([s, v]) => (v as Float32Array).map((x) => x * (s as number))),
    scalar('__tsdb_vec_elem_sum', [VEC], FLOAT, ([v]) => (v as Float32Array).reduce((s, x) => Math.fround(s + x), 0)),
    scalar('__tsdb_vec_elem_product', [VEC], FLOAT, ([v]) => (v as Float32Array).reduce((s, x) => Math.fround(s * x), 1)),
    scalar('__tsdb_vec_elem_avg', [VEC], FLOAT, ([v]) => {
      const x = v as Float32Array;
      return x.length === 0 ? null : Math.fround(x.reduce((s, y) => Math.fround(s + y), 0) / x.length);
    }),
    scalar('__tsdb_vec_norm', [VEC], VEC, ([v]) => {
      const x = v as Float32Array;
      const norm = Math.fround(Math.sqrt(dot(x, x)));
      return x.map((y) => y / norm);
    }),
    scalar('__tsdb_vec_dim', [VEC], UBIGINT, ([v]) => BigInt((v as Float32Array).length)),
    scalar('__tsdb_vec_kth_elem', [VEC, BIGINT], FLOAT, ([v, k]) => {
      const x = v as Float32Array;
      const i = Number(k);
      if (i < 0) throw new ExecutionError('2nd argument not a valid index or expected datatype: vec_kth_elem');
      if (i >= x.length) throw new ExecutionError('index out of bound: vec_kth_elem');
      return x[i]!;
    }),
    scalar('__tsdb_vec_subvector', [VEC, BIGINT, BIGINT], VEC, ([v, s, e]) => {
      const x = v as Float32Array;
      const start = Number(s);
      const end = Number(e);
      if (!(start >= 0 && start <= end && end <= x.length)) {
        throw new ExecutionError(`Invalid function args: Invalid start and end indices: start=${start}, end=${end}, vec_len=${x.length}`);
      }
      return x.slice(start, end);
    }),
    scalar('__tsdb_vec_l2sq_distance', [VEC, VEC], FLOAT, ([a, b]) => {
      const x = a as Float32Array;
      const y = b as Float32Array;
      sameLength('vec_l2sq_distance', x, y);
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        const d = Math.fround(x[i]! - y[i]!);
        s = Math.fround(s + Math.fround(d * d));
      }
      return s;
    }),
    scalar('__tsdb_vec_dot_product', [VEC, VEC], FLOAT, ([a, b]) => {
      sameLength('vec_dot_product', a as Float32Array, b as Float32Array);
      return dot(a as Float32Array, b as Float32Array);
    }),
    scalar('__tsdb_vec_cos_distance', [VEC, VEC], FLOAT, ([a, b]) => {
      const x = a as Float32Array;
      const y = b as Float32Array;
      sameLength('vec_cos_distance', x, y);
      const d = dot(x, y);
      const nx = Math.fround(Math.sqrt(dot(x, x)));
      const ny = Math.fround(Math.sqrt(dot(y, y)));
      if (Math.abs(d) < EPSILON || nx < EPSILON || ny < EPSILON) return 1;
      const r = Math.fround(1 - Math.fround(d / Math.fround(nx * ny)));
      return Math.abs(r) < EPSILON ? 0 : r;
    }),
    scalar('__tsdb_vec_fold', [LIST(VEC), VARCHAR], VEC, ([list, how]) => {
      const vectors = (list as unknown as DuckDBListValue).items.filter((v) => v !== null).map(floats);
      if (vectors.length === 0) return null;
      const dim = vectors[0]!.length;
      for (const v of vectors) if (v.length !== dim) throw new ExecutionError(`vectors length not match: vec_${String(how)}`);
      const out = Float32Array.from(vectors[0]!);
      for (const v of vectors.slice(1)) for (let i = 0; i < dim; i++) out[i] = how === 'product' ? out[i]! * v[i]! : out[i]! + v[i]!;
      if (how === 'avg') for (let i = 0; i < dim; i++) out[i] = out[i]! / vectors.length;
      return out;
    }),
  ];
}

/** The SQL functions users call: macros casting the arguments to vectors around the functions above. */
const MACROS: readonly string[] = [
  'parse_vec(s) AS __tsdb_parse_vec(s)',
  'vec_to_string(v) AS __tsdb_vec_to_string(CAST(v AS FLOAT[]))',
  ...['vec_add', 'vec_sub', 'vec_mul', 'vec_div', 'vec_l2sq_distance', 'vec_dot_product', 'vec_cos_distance'].map((f) => `${f}(a, b) AS __tsdb_${f}(CAST(a AS FLOAT[]), CAST(b AS FLOAT[]))`),
  ...['vec_scalar_add', 'vec_scalar_mul'].map((f) => `${f}(s, v) AS __tsdb_${f}(CAST(s AS FLOAT), CAST(v AS FLOAT[]))`),
  ...['vec_elem_sum', 'vec_elem_product', 'vec_elem_avg', 'vec_norm', 'vec_dim'].map((f) => `${f}(v) AS __tsdb_${f}(CAST(v AS FLOAT[]))`),
  'vec_kth_elem(v, k) AS __tsdb_vec_kth_elem(CAST(v AS FLOAT[]), k)',
  'vec_subvector(v, s, e) AS __tsdb_vec_subvector(CAST(v AS FLOAT[]), s, e)',
  ...['sum', 'product', 'avg'].map((f) => `vec_${f}(v) AS __tsdb_vec_fold(list(CAST(v AS FLOAT[])), '${f}')`),
];

/** Registers the vector functions on the DuckDB instance of `conn` (once per instance). */
export async function installVectorFunctions(conn: DuckDBConnection): Promise<void> {
  for (const f of vectorFunctions()) conn.registerScalarFunction(f);
  for (const m of MACROS) await conn.run(`CREATE OR REPLACE MACRO ${m}`);
}

