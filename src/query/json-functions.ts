/**
 * GreptimeDB's JSON functions (its `src/common/function/src/scalars/json`) as DuckDB scalar
 * functions written in JavaScript, registered on the instance with the other tsdb functions
 * (`session-functions.ts` `installFunctions`, run on every frontend, standalone and datanode
 * instance). A JSON value is its canonical text (`common/jsonb.ts`), typed DuckDB JSON (a VARCHAR
 * named so) so that results show it as `Json`; the functions read it with jsonb's parser, so that
 * integers, floats and their conversions behave as GreptimeDB's (`json_get_int` of `true` is 1,
 * `json_is_float` of `1` is true, `json_get_string` of `1e100` is `1e100`).
 *
 * `parse_json`, `json_to_string`; `json_get_int` / `_float` / `_bool` / `_string` / `_object` and
 * `json_get` (as `json_get_string`) by jsonb path; `json_is_null` / `_bool` / `_int` / `_float` /
 * `_string` / `_array` / `_object`; `json_path_exists`, `json_path_match`, `json_object_keys`.
 * DuckDB's own `json_object` serves GreptimeDB's. Errors are GreptimeDB's execution errors
 * (`Execution error: cannot parse '…': EOF while parsing a value, pos 20`; `duckdb-error.ts` gives
 * them EngineExecuteQuery). NULL arguments give NULL (DuckDB's default for scalar functions).
 */
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBScalarFunction,
  DuckDBVarCharType,
  LIST,
  listValue,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBVector,
} from '@duckdb/node-api';
import { EXECUTION_ERROR } from './duckdb-error.js';
import { isNumber, JsonObject, JsonPath, JsonPathError, jsonText, JsonSyntaxError, numberText, parseJson, sortedMembers, type JsonNumber, type JsonValue } from '../common/jsonb.js';

/** DuckDB's JSON type. */
export const JSON_TYPE = DuckDBVarCharType.create('JSON');

class ExecutionError extends Error {}

/** A document of a JSON argument, or undefined when it is not JSON (jsonb then finds nothing). */
function docOf(text: string): JsonValue | undefined {
  try {
    return parseJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return undefined;
    throw e;
  }
}

/** Paths are mostly one literal per query: parsed once. */
const paths = new Map<string, JsonPath | undefined>();

function pathOf(text: string): JsonPath | undefined {
  let p = paths.get(text);
  if (p === undefined && !paths.has(text)) {
    try {
      p = JsonPath.parse(text);
    } catch (e) {
      if (!(e instanceof JsonPathError)) throw e;
    }
    if (paths.size > 1024) paths.clear();
    paths.set(text, p);
  }
  return p;
}

/** jsonb's `get_by_path` of a document and a path text: the value found, else undefined. */
function getByPath(text: string, path: string): JsonValue | undefined {
  const p = pathOf(path);
  const doc = p === undefined ? undefined : docOf(text);
  return doc === undefined ? undefined : p!.get(doc);
}

const isContainer = (v: JsonValue): boolean => Array.isArray(v) || v instanceof JsonObject;

/** jsonb's `to_i64`: integers within 64 bits signed, booleans as 0/1, strings of an integer. */
function toI64(v: JsonValue | undefined): bigint | null {
  if (v === undefined || v === null || isContainer(v)) return null;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string') {
    if (!/^[+-]?\d+$/.test(v)) return null;
    const n = BigInt(v);
    return n >= -(1n << 63n) && n < 1n << 63n ? n : null;
  }
  if (isNumber(v) && 'int' in v) return v.int < 1n << 63n ? v.int : null;
  return null;
}

/** jsonb's `to_f64`: numbers, booleans as 0/1, strings Rust reads as a float. */
function toF64(v: JsonValue | undefined): number | null {
  if (v === undefined || v === null || isContainer(v)) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.toLowerCase();
    if (/^[+-]?(inf|infinity)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(s)) return NaN;
    return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s) ? Number(s) : null;
  }
  if (isNumber(v)) return 'int' in v ? Number(v.int) : v.float;
  return null;
}

/** jsonb's `to_bool`: booleans, and the strings `true` / `false` in any case. */
function toBool(v: JsonValue | undefined): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.toLowerCase();
    return s === 'true' ? true : s === 'false' ? false : null;
  }
  return null;
}

/** jsonb's `to_str`: strings, booleans and numbers as text; containers and null have none. */
function toStr(v: JsonValue | undefined): string | null {
  if (v === undefined || v === null || isContainer(v)) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return numberText(v as JsonNumber);
}

type Row = (args: ReadonlyArray<string | null>) => unknown;

/**
 * A scalar function of VARCHAR arguments computed row by row by `row`, NULL where an argument is
 * NULL (`row` never sees one); an ExecutionError fails the query with its message.
 */
function scalar(name: string, params: readonly DuckDBType[], returnType: DuckDBType, row: Row, convert: (v: unknown) => DuckDBValue = (v) => v as DuckDBValue): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: params,
    mainFunction: (info, input: DuckDBDataChunk, output: DuckDBVector) => {
      const n = input.rowCount;
      const columns = params.map((_, i) => input.getColumnVector(i));
      const args: Array<string | null> = new Array(params.length);
      const out = output as DuckDBVector<DuckDBValue>;
      try {
        rows: for (let r = 0; r < n; r++) {
          for (let i = 0; i < columns.length; i++) {
            const a = columns[i]!.getItem(r) as string | null;
            if (a === null) {
              out.setItem(r, null);
              continue rows;
            }
            args[i] = a;
          }
          const v = row(args);
          out.setItem(r, v === null || v === undefined ? null : convert(v));
        }
        out.flush();
      } catch (e) {
        if (!(e instanceof ExecutionError)) throw e;
        info.setError(EXECUTION_ERROR + e.message);
      }
    },
  });
}

const text1 = [VARCHAR];
const text2 = [VARCHAR, VARCHAR];

/** The functions, made once per instance. */
function jsonFunctions(): DuckDBScalarFunction[] {
  const get = (name: string, type: DuckDBType, pick: (v: JsonValue | undefined) => unknown) => scalar(name, text2, type, ([j, p]) => pick(getByPath(j!, p!)));
  const is = (name: string, test: (v: JsonValue) => boolean) =>
    scalar(name, text1, BOOLEAN, ([j]) => {
      const doc = docOf(j!);
      return doc === undefined ? null : test(doc);
    });
  return [
    scalar('parse_json', text1, JSON_TYPE, ([s]) => {
      try {
        return jsonText(parseJson(s!));
      } catch (e) {
        if (e instanceof JsonSyntaxError) throw new ExecutionError(`cannot parse '${s}': ${e.message}`);
        throw e;
      }
    }),
    scalar('json_to_string', text1, VARCHAR, ([j]) => {
      const doc = docOf(j!);
      if (doc === undefined) throw new ExecutionError(`invalid json binary: InvalidJsonb`);
      return jsonText(doc);
    }),
    get('json_get_int', BIGINT, toI64),
    get('json_get_float', DOUBLE, toF64),
    get('json_get_bool', BOOLEAN, toBool),
    get('json_get_string', VARCHAR, toStr),
    get('json_get', VARCHAR, toStr),
    scalar('json_get_object', text2, JSON_TYPE, ([j, p]) => {
      if (pathOf(p!) === undefined) throw new ExecutionError('InvalidJsonPath');
      const v = getByPath(j!, p!);
      return v instanceof JsonObject ? jsonText(v) : null;
    }),
    is('json_is_null', (v) => v === null),
    is('json_is_bool', (v) => typeof v === 'boolean'),
    is('json_is_int', (v) => isNumber(v) && 'int' in v && v.int < 1n << 63n),
    is('json_is_float', (v) => isNumber(v)),
    is('json_is_string', (v) => typeof v === 'string'),
    is('json_is_array', (v) => Array.isArray(v)),
    is('json_is_object', (v) => v instanceof JsonObject),
    scalar('json_path_exists', text2, BOOLEAN, ([j, p]) => {
      const path = pathOf(p!);
      if (path === undefined) throw new ExecutionError(`invalid json path '${p}': InvalidJsonPath`);
      const doc = docOf(j!);
      if (doc === undefined) return false;
      return path.predicate !== undefined || path.select(doc).length > 0;
    }),
    scalar('json_path_match', text2, BOOLEAN, ([j, p]) => {
      const doc = docOf(j!);
      const path = pathOf(p!);
      if (doc === undefined || doc === null || path === undefined || path.predicate === undefined) return null;
      return path.select(doc).length > 0;
    }),
    scalar(
      'json_object_keys',
      text1,
      LIST(VARCHAR),
      ([j]) => {
        const doc = docOf(j!);
        if (doc === undefined) throw new ExecutionError('invalid json binary: InvalidJsonb');
        return doc instanceof JsonObject ? sortedMembers(doc).map((m) => m[0]) : null;
      },
      (keys) => listValue(keys as string[]),
    ),
  ];
}

/** Registers the JSON functions on the DuckDB instance of `conn` (once per instance). */
export function installJsonFunctions(conn: DuckDBConnection): void {
  for (const f of jsonFunctions()) conn.registerScalarFunction(f);
}

