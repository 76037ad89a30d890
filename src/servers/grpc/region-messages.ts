/**
 * The messages of `tsdb.region.v1` (proto/tsdb/region/v1/region.proto) and their conversion to and
 * from the region server interface's values (types/region-server.ts), shared by the service
 * (region-service.ts) and its client (region-client.ts). `Handle` goes through proto-loader like the
 * other services (PROTO_LOADER_OPTIONS: 64-bit integers as decimal strings, oneofs named by a virtual
 * field); the region query, carried inside a Flight ticket, is encoded and decoded with protobufjs
 * from the same file. Whatever the peer sent that does not fit (a region id that is no u64,
 * metadata that is not RegionMetadata JSON, a malformed write batch) is InvalidArguments.
 */
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { RegionId } from '../../types/region-id.js';
import { isColumnType, type RegionMetadata } from '../../types/region-metadata.js';
import type { RegionQuery, RegionStatistics } from '../../types/region-server.js';
import type { KeyCondition, KeyFilterValue, ScanRequest } from '../../types/scan-request.js';
import { OP_DELETE, OP_PUT, type WriteBatch } from '../../types/write-batch.js';
import { withLenientDecoding } from './lenient-decoding.js';
import { PROTO_LOADER_OPTIONS, PROTO_ROOT } from './protos.js';
import { decodeWriteBatchColumns, encodeWriteBatchColumns } from './write-batch-ipc.js';

export const REGION_PROTO_FILE = 'tsdb/region/v1/region.proto';
export const REGION_SERVICE_NAME = 'tsdb.region.v1.RegionServer';

/** The kinds of RegionRequest, as the `body` oneof names them. */
export const REGION_REQUEST_KINDS = ['create', 'open', 'close', 'alter', 'drop', 'truncate', 'flush', 'compact', 'write', 'statistics', 'ssts', 'info'] as const;
export type RegionRequestKind = (typeof REGION_REQUEST_KINDS)[number];

/** A RegionRequest as proto-loader gives and takes it (`body` names the member set). */
export interface RegionRequestMessage {
  readonly body?: string;
  readonly create?: { readonly metadata: string; readonly dir: string } | null;
  readonly open?: { readonly region_id: string; readonly dir: string; readonly storage?: string } | null;
  readonly close?: RegionIdMessage | null;
  readonly alter?: { readonly region_id: string; readonly metadata: string } | null;
  readonly drop?: RegionIdMessage | null;
  readonly truncate?: RegionIdMessage | null;
  readonly flush?: RegionIdMessage | null;
  readonly compact?: RegionIdMessage | null;
  readonly write?: { readonly region_id: string; readonly batch?: WriteBatchMessage | null } | null;
  readonly statistics?: RegionIdMessage | null;
  readonly ssts?: RegionIdMessage | null;
  readonly info?: RegionIdMessage | null;
}

export interface RegionIdMessage {
  readonly region_id: string;
}

export interface WriteBatchMessage {
  /** OpType: 0 delete, 1 put. */
  readonly op: number;
  readonly columns: Uint8Array;
}

export interface RegionStatisticsMessage {
  readonly memtable_rows: string | number;
  readonly memtable_bytes: string | number;
  readonly sst_files: string | number;
  readonly sst_bytes: string | number;
  readonly sst_rows: string | number;
}

export interface RegionResponseMessage {
  readonly affected_rows: string | number;
  readonly statistics?: RegionStatisticsMessage | null;
  /** An ssts request's answer: the RegionSsts as JSON text. */
  readonly ssts?: string;
  /** An info request's answer: the RegionInfo as JSON text. */
  readonly info?: string;
}

let packageDefinition: protoLoader.PackageDefinition | undefined;

export function regionPackageDefinition(): protoLoader.PackageDefinition {
  packageDefinition ??= protoLoader.loadSync(REGION_PROTO_FILE, PROTO_LOADER_OPTIONS);
  return packageDefinition;
}

/**
 * `tsdb.region.v1.RegionServer`, for `addService` and for clients. Request decoding never throws:
 * an undecodable request reaches the handler as a marker (lenient-decoding.ts).
 */
export function regionServiceDefinition(): grpc.ServiceDefinition {
  return withLenientDecoding(regionPackageDefinition()[REGION_SERVICE_NAME] as grpc.ServiceDefinition);
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** A region id as the wire carries it (a decimal string, or a number from a hand-built message). */
export function regionIdOf(value: unknown, what = 'region_id'): RegionId {
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) {
    const id = BigInt(value);
    if (id <= U64_MAX) return id;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw invalid(`${what} ${JSON.stringify(value)} is not a u64 region id`);
}

/** A u64 count as the wire carries it, as a number (counts of rows and bytes stay below 2^53). */
export function countOf(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0;
}

// ---- RegionMetadata as JSON ----

export function metadataJson(metadata: RegionMetadata): string {
  return JSON.stringify(metadata);
}

const SEMANTIC_TYPES = new Set(['tag', 'field', 'timestamp']);
const MERGE_MODES = new Set(['last_row', 'last_non_null']);

/** RegionMetadata from JSON text; text that is not JSON or not of its shape is InvalidArguments. */
export function parseRegionMetadata(text: string, what = 'region metadata'): RegionMetadata {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalid(`The ${what} is not JSON: ${errorMessage(err)}`);
  }
  const problem = metadataProblem(value);
  if (problem !== undefined) throw invalid(`The ${what} is not a RegionMetadata: ${problem}`);
  return value as RegionMetadata;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isOptional = (v: unknown, check: (x: unknown) => boolean): boolean => v === undefined || check(v);

/** What keeps `value` from being a RegionMetadata (its shape, not its consistency: the engine checks that). */
function metadataProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (typeof value.region_id !== 'string') return 'region_id is not a string';
  try {
    regionIdOf(value.region_id);
  } catch {
    return `region_id ${JSON.stringify(value.region_id)} is not a u64`;
  }
  if (!isCount(value.schema_version)) return 'schema_version is not a count';
  if (!Array.isArray(value.columns)) return 'columns is not an array';
  for (const [i, c] of value.columns.entries()) {
    if (!isObject(c)) return `column ${i} is not an object`;
    if (!isCount(c.column_id) || (c.column_id as number) > 0xffff_ffff) return `column ${i}: column_id is not a u32`;
    if (typeof c.name !== 'string') return `column ${i}: name is not a string`;
    if (typeof c.type !== 'string' || !isColumnType(c.type)) return `column ${i}: unknown type ${JSON.stringify(c.type)}`;
    if (typeof c.semantic_type !== 'string' || !SEMANTIC_TYPES.has(c.semantic_type)) return `column ${i}: unknown semantic_type ${JSON.stringify(c.semantic_type)}`;
    if (typeof c.nullable !== 'boolean') return `column ${i}: nullable is not a boolean`;
    if (!isOptional(c.default, (d) => d === null || ['string', 'number', 'boolean'].includes(typeof d))) return `column ${i}: default is not a scalar`;
    if (!isOptional(c.comment, (d) => typeof d === 'string')) return `column ${i}: comment is not a string`;
  }
  if (!Array.isArray(value.primary_key) || !value.primary_key.every(isCount)) return 'primary_key is not an array of column ids';
  if (!isCount(value.time_index)) return 'time_index is not a column id';
  const o = value.options;
  if (!isObject(o)) return 'options is not an object';
  if (typeof o.append_mode !== 'boolean') return 'options.append_mode is not a boolean';
  if (typeof o.merge_mode !== 'string' || !MERGE_MODES.has(o.merge_mode)) return `options.merge_mode ${JSON.stringify(o.merge_mode)} is unknown`;
  for (const k of ['ttl', 'compaction_time_window', 'compaction_trigger_file_num'] as const) {
    if (!isOptional(o[k], (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) return `options.${k} is not a non-negative number`;
  }
  if (!isOptional(o.storage, (x) => typeof x === 'string')) return 'options.storage is not a string';
  if (!isOptional(o.memtable, isObject)) return 'options.memtable is not an object';
  return undefined;
}

// ---- write batches ----

export function writeBatchMessage(batch: WriteBatch): WriteBatchMessage {
  const columns = encodeWriteBatchColumns(batch.rowCount, batch.columns);
  return { op: batch.op, columns: Buffer.from(columns.buffer, columns.byteOffset, columns.byteLength) };
}

export function writeBatchOf(message: WriteBatchMessage | null | undefined): WriteBatch {
  if (message === null || message === undefined) throw invalid('The write request holds no batch');
  const op = message.op;
  if (op !== OP_PUT && op !== OP_DELETE) throw invalid(`Unknown write batch op ${String(op)}`);
  const { rowCount, columns } = decodeWriteBatchColumns(message.columns ?? new Uint8Array(0));
  return { op, rowCount, columns };
}

// ---- statistics ----

export function statisticsMessage(s: RegionStatistics): RegionStatisticsMessage {
  return { memtable_rows: s.memtable_rows, memtable_bytes: s.memtable_bytes, sst_files: s.sst_files, sst_bytes: s.sst_bytes, sst_rows: s.sst_rows };
}

export function statisticsOf(m: RegionStatisticsMessage): RegionStatistics {
  return {
    memtable_rows: countOf(m.memtable_rows),
    memtable_bytes: countOf(m.memtable_bytes),
    sst_files: countOf(m.sst_files),
    sst_bytes: countOf(m.sst_bytes),
    sst_rows: countOf(m.sst_rows),
  };
}

// ---- region queries (the Flight ticket) ----

let root: protobuf.Root | undefined;

function queryType(): protobuf.Type {
  if (root === undefined) {
    const r = new protobuf.Root();
    r.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
    r.loadSync(REGION_PROTO_FILE, { keepCase: true });
    r.resolveAll();
    root = r;
  }
  return root.lookupType('tsdb.region.v1.RegionQueryRequest');
}

interface KeyValueMessage {
  value?: string;
  string_value?: string;
  int_value?: string;
}

interface KeyPatternMessage {
  pattern?: string;
  full?: boolean;
  negated?: boolean;
}

interface KeyConditionMessage {
  condition?: string;
  not_in?: { values?: KeyValueMessage[] };
  regex?: KeyPatternMessage;
  like?: KeyPatternMessage;
}

interface RegionQueryMessage {
  region_id?: string;
  scan?: {
    start?: string;
    end?: string;
    keys?: Array<{ column_id?: number; values?: KeyValueMessage[] }>;
    last_row?: boolean;
    conditions?: Array<{ column_id?: number; conditions?: KeyConditionMessage[] }>;
  } | null;
  sql?: string;
}

function keyValueMessage(v: KeyFilterValue): KeyValueMessage {
  return typeof v === 'string' ? { string_value: v } : { int_value: v.toString() };
}

function keyConditionMessage(c: KeyCondition): KeyConditionMessage {
  switch (c.kind) {
    case 'not_in':
      return { not_in: { values: c.values.map(keyValueMessage) } };
    case 'regex':
      return { regex: { pattern: c.pattern, full: c.full, negated: c.negated } };
    case 'like':
      return { like: { pattern: c.pattern, negated: c.negated } };
  }
}

function keyValueOf(v: KeyValueMessage, column: number): KeyFilterValue {
  if (v.value === 'string_value') return v.string_value ?? '';
  if (v.value === 'int_value') return int64Of(v.int_value, 'A key filter value');
  throw invalid(`A key filter value of column ${column} holds neither a string nor an integer`);
}

function keyConditionOf(m: KeyConditionMessage, column: number): KeyCondition {
  if (m.condition === 'not_in') return { kind: 'not_in', values: (m.not_in?.values ?? []).map((v) => keyValueOf(v, column)) };
  if (m.condition === 'regex') return { kind: 'regex', pattern: m.regex?.pattern ?? '', full: m.regex?.full === true, negated: m.regex?.negated === true };
  if (m.condition === 'like') return { kind: 'like', pattern: m.like?.pattern ?? '', negated: m.like?.negated === true };
  throw invalid(`A key condition of column ${column} is none of not_in, regex, like`);
}

/** The Flight ticket of a region query. */
export function encodeRegionQuery(id: RegionId, query: RegionQuery): Uint8Array {
  const message: Record<string, unknown> = { region_id: id.toString() };
  const scan = query.scan;
  if (scan !== undefined) {
    message.scan = {
      ...(scan.start !== undefined && { start: scan.start.toString() }),
      ...(scan.end !== undefined && { end: scan.end.toString() }),
      keys: [...(scan.keys ?? new Map<number, readonly KeyFilterValue[]>())].map(([column_id, values]) => ({ column_id, values: values.map(keyValueMessage) })),
      ...(scan.lastRow === true && { last_row: true }),
      conditions: [...(scan.conditions ?? new Map<number, readonly KeyCondition[]>())].map(([column_id, conditions]) => ({ column_id, conditions: conditions.map(keyConditionMessage) })),
    };
  }
  if (query.sql !== undefined) message.sql = query.sql;
  const type = queryType();
  return type.encode(type.fromObject(message)).finish();
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function int64Of(value: unknown, what: string): bigint {
  if (typeof value === 'string' && /^-?[0-9]{1,19}$/.test(value)) {
    const v = BigInt(value);
    if (v >= I64_MIN && v <= I64_MAX) return v;
  }
  throw invalid(`${what} ${JSON.stringify(value)} is not an int64`);
}

/** A region query from its Flight ticket; bytes that are not a RegionQueryRequest are InvalidArguments. */
export function decodeRegionQuery(bytes: Uint8Array): { id: RegionId; query: RegionQuery } {
  const type = queryType();
  let m: RegionQueryMessage;
  try {
    m = type.toObject(type.decode(bytes), { longs: String, enums: Number, defaults: false, oneofs: true }) as RegionQueryMessage;
  } catch (err) {
    throw invalid(`Failed to decode RegionQueryRequest from Flight ticket: ${errorMessage(err)}`);
  }
  const id = regionIdOf(m.region_id ?? '0');
  let scan: ScanRequest | undefined;
  if (m.scan !== undefined && m.scan !== null) {
    const keys = new Map<number, KeyFilterValue[]>();
    for (const k of m.scan.keys ?? []) {
      const column = k.column_id ?? 0;
      if (keys.has(column)) throw invalid(`The region query filters column ${column} twice`);
      keys.set(
        column,
        (k.values ?? []).map((v) => keyValueOf(v, column)),
      );
    }
    const conditions = new Map<number, KeyCondition[]>();
    for (const k of m.scan.conditions ?? []) {
      const column = k.column_id ?? 0;
      if (conditions.has(column)) throw invalid(`The region query has conditions on column ${column} twice`);
      conditions.set(
        column,
        (k.conditions ?? []).map((c) => keyConditionOf(c, column)),
      );
    }
    scan = {
      ...(m.scan.start !== undefined && { start: int64Of(m.scan.start, 'scan.start') }),
      ...(m.scan.end !== undefined && { end: int64Of(m.scan.end, 'scan.end') }),
      ...(keys.size > 0 && { keys }),
      ...(m.scan.last_row === true && { lastRow: true }),
      ...(conditions.size > 0 && { conditions }),
    };
  }
  return { id, query: { ...(scan !== undefined && { scan }), ...(m.sql !== undefined && { sql: m.sql }) } };
}
