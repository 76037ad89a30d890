/**
 * DuckDB's parse trees as JSON (`json_serialize_sql`, `json_deserialize_sql`), read and written
 * without losing a number. Integers beyond 2^53 (a BIGINT or UBIGINT literal, the `upper`/`lower`
 * halves of a HUGEINT or of a wide DECIMAL's unscaled value) are kept as their text in a
 * `LosslessNumber` (lossless-json's parser) and written back as DuckDB wrote them; every other
 * number is a plain `number`.
 *
 * Both steps are on every query's path, so each keeps to the native JSON functions when it can: a
 * text without a run of 16 digits has no such integer and takes `JSON.parse` (lossless-json's
 * parser is ~4x slower); writing is `JSON.stringify`, the kept numbers marking themselves
 * (`toJSON`) with a per-process nonce that is then replaced by their digits (lossless-json's
 * `stringify` is ~3x slower than `JSON.stringify`).
 */
import { randomBytes } from 'node:crypto';
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse } from 'lossless-json';

/** 2^53 has 16 digits: a number text with fewer is always exact as a double. */
const LONG_DIGITS = /\d{16}/;

/** What a kept number writes itself as inside JSON.stringify, until its digits replace it. */
const MARK = `__tsdb_exact_${randomBytes(6).toString('hex')}_`;
const MARKED = new RegExp(`"${MARK}(-?[0-9][0-9.eE+-]*)"`, 'g');

/** A number of a parse tree that a double cannot hold exactly. */
class ExactNumber extends LosslessNumber {
  toJSON(): string {
    return MARK + this.value;
  }
}

function parseNumber(text: string): number | LosslessNumber {
  return isSafeNumber(text) ? Number(text) : new ExactNumber(text);
}

/** A serialized parse tree; "no location" (2^64 - 1) becomes 0, which DuckDB reads back alike. */
export function parseSqlJson(text: string): unknown {
  const json = text.replace(/"query_location":\d{16,}/g, '"query_location":0');
  return LONG_DIGITS.test(json) ? parse(json, null, parseNumber) : JSON.parse(json);
}

/** A parse tree (from `parseSqlJson`, possibly rewritten) as JSON for `json_deserialize_sql`. */
export function stringifySqlJson(tree: unknown): string {
  let json = JSON.stringify(tree) ?? 'null';
  if (json.includes(MARK)) json = json.replace(MARKED, '$1');
  // An integral DOUBLE or FLOAT constant (`1e3`, DuckDB's `1000.0`) is written without its point by
  // JSON.stringify, which DuckDB then reads as an integer and refuses.
  return json.includes('"DOUBLE"') || json.includes('"FLOAT"') ? json.replace(INTEGRAL_FLOAT, '$1.0$2') : json;
}

const INTEGRAL_FLOAT = /("id":"(?:DOUBLE|FLOAT)","type_info":null\},"is_null":false,"value":-?\d+)([,}])/g;

/** The integer a parse tree holds at a number position (a plain or a kept number), else undefined. */
export function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (isLosslessNumber(v) && /^-?\d+$/.test(v.value)) return BigInt(v.value);
  return undefined;
}
