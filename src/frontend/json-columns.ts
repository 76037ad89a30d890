/**
 * JSON columns on the write path: every value written to a JSON column, whatever the protocol (SQL
 * INSERT, INSERT … SELECT, gRPC, Flight, COPY), is stored as its canonical text (`common/jsonb.ts`),
 * which is what GreptimeDB's JSONB shows back; a value that is not JSON fails the write as
 * GreptimeDB's does (`Invalid JSON: <value>`, InvalidArguments).
 */
import type { TableInfo } from '../catalog/table-info.js';
import { quoteIdent } from '../common/sql-quote.js';
import type { Relation } from '../query/query-executor.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { canonicalJson, JsonSyntaxError } from '../common/jsonb.js';
import type { Vector, WriteBatch } from '../types/write-batch.js';
import { vectorDimOf } from '../types/region-metadata.js';

/** The canonical text of one value written to a JSON column. */
export function jsonColumnValue(text: string): string {
  try {
    return canonicalJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new TsdbError(StatusCode.InvalidArguments, `Invalid JSON: ${text}`);
    throw e;
  }
}

/** `batch` with the values of `info`'s JSON columns made canonical (the batch itself when it has none). */
export function canonicalJsonColumns(info: TableInfo, batch: WriteBatch): WriteBatch {
  let columns: Map<number, Vector> | undefined;
  for (const c of info.columns) {
    if (c.data_type !== 'Json') continue;
    const v = batch.columns.get(c.column_id);
    if (v === undefined || v.type !== 'string') continue;
    const data = new Array<string | null>(batch.rowCount);
    for (let i = 0; i < batch.rowCount; i++) {
      const s = v.data[i] ?? null;
      data[i] = s === null ? null : jsonColumnValue(s);
    }
    columns ??= new Map(batch.columns);
    columns.set(c.column_id, { type: 'string', data });
  }
  return columns === undefined ? batch : { ...batch, columns };
}

/**
 * A table's relation with its JSON columns typed DuckDB JSON and its VECTOR(n) columns as FLOAT[n],
 * as queries see them: merged region rows and rows that crossed from a datanode as Arrow come as
 * plain text and bytes (`projection`: the columns the relation has, all when undefined).
 */
export function jsonTyped(info: TableInfo, relation: Relation, projection?: readonly string[]): Relation {
  const have = projection === undefined ? undefined : new Set(projection);
  const typed = info.columns.flatMap((c) => {
    if (have !== undefined && !have.has(c.name)) return [];
    const n = quoteIdent(c.name);
    if (c.data_type === 'Json') return [`CAST(${n} AS JSON) AS ${n}`];
    // A vector's bytes as the FLOAT[n] the vector functions and results read (`query/vector-functions.ts`).
    const dim = vectorDimOf(c.data_type);
    return dim === undefined ? [] : [`CAST(__tsdb_vec_from_bytes(${n}) AS FLOAT[${dim}]) AS ${n}`];
  });
  if (typed.length === 0) return relation;
  const sql = `SELECT * REPLACE (${typed.join(', ')}) FROM (${relation.sql})`;
  return { sql, release: () => relation.release?.() };
}

/** Whether a table has VECTOR columns (read as FLOAT[n] only where `jsonTyped` makes them so). */
export function hasVectorColumns(info: TableInfo): boolean {
  return info.columns.some((c) => vectorDimOf(c.data_type) !== undefined);
}
