/**
 * The messages of `tsdb.meta.v1` (proto/tsdb/meta/v1/meta.proto) and their conversion to and from
 * the values of the MetaService interface (meta/meta-service.ts), shared by the service
 * (meta-service-server.ts) and its client (meta-client.ts). Loaded through proto-loader like the
 * other services (PROTO_LOADER_OPTIONS: 64-bit integers as decimal strings, bytes as Buffers,
 * oneofs named by a virtual field, proto3 `optional` fields absent unless set).
 *
 * Every `…Of` function checks what the peer sent and throws InvalidArguments when it does not fit
 * (a region id that is no u64, a role the request cannot have, DDL JSON of the wrong shape): the
 * service answers that to the client; the client turns it into Internal (the metasrv's fault).
 */
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { TableInfo } from '../../catalog/table-info.js';
import type { Peer } from '../../catalog/table-route.js';
import type { KvEntry } from '../../meta/kv/kv-backend.js';
import { viewInfoProblem } from '../../catalog/view-info.js';
import type { DdlResult, DdlTask, HeartbeatRequest, HeartbeatResponse, MetaEvent, NodeInfo, NodeRole, RegionStat, RegionToOpen } from '../../meta/meta-service.js';
import { isColumnType } from '../../types/region-metadata.js';
import { withLenientDecoding } from './lenient-decoding.js';
import { PROTO_LOADER_OPTIONS } from './protos.js';
import { regionIdOf } from './region-messages.js';

export const META_PROTO_FILE = 'tsdb/meta/v1/meta.proto';
export const META_SERVICE_NAME = 'tsdb.meta.v1.Meta';

let packageDefinition: protoLoader.PackageDefinition | undefined;

export function metaPackageDefinition(): protoLoader.PackageDefinition {
  packageDefinition ??= protoLoader.loadSync(META_PROTO_FILE, PROTO_LOADER_OPTIONS);
  return packageDefinition;
}

/** `tsdb.meta.v1.Meta` as proto-loader defines it (for clients). */
export function metaMethods(): grpc.ServiceDefinition {
  return metaPackageDefinition()[META_SERVICE_NAME] as grpc.ServiceDefinition;
}

/**
 * `tsdb.meta.v1.Meta`, for `addService`. Request decoding never throws: an undecodable request
 * reaches the handler as a marker (lenient-decoding.ts).
 */
export function metaServiceDefinition(): grpc.ServiceDefinition {
  return withLenientDecoding(metaMethods());
}

// ---- message shapes, as proto-loader gives and takes them ----

/** A 64-bit integer: a decimal string when decoded, a number or string when encoded. */
type Long = string | number;

export interface PeerMessage {
  readonly id: Long;
  readonly addr: string;
}

export interface RegionStatMessage {
  readonly region_id: Long;
  readonly memtable_rows: Long;
  readonly memtable_bytes: Long;
  readonly sst_rows: Long;
  readonly sst_files: Long;
  readonly sst_bytes: Long;
}

export interface HeartbeatRequestMessage {
  readonly role: number;
  readonly peer: PeerMessage | null;
  readonly version: string;
  readonly start_time_ms: Long;
  readonly regions: readonly RegionStatMessage[];
  readonly shared_storage?: boolean;
}

export interface RegionToOpenMessage {
  readonly region_id: Long;
  readonly dir: string;
  readonly storage?: string;
}

export interface HeartbeatResponseMessage {
  readonly lease_ms: Long;
  readonly heartbeat_interval_ms: Long;
  readonly leased_regions: readonly Long[];
  readonly close_regions: readonly Long[];
  readonly open_regions: readonly RegionToOpenMessage[];
}

export interface GetRequestMessage {
  readonly key: string;
}

export interface GetResponseMessage {
  readonly value?: Uint8Array;
}

export interface RangeRequestMessage {
  readonly prefix: string;
}

export interface RangeResponseMessage {
  readonly kvs: ReadonlyArray<{ readonly key: string; readonly value: Uint8Array }>;
}

export interface AllocateTableIdResponseMessage {
  readonly table_id: number;
}

export interface DdlRequestMessage {
  readonly task: Uint8Array;
}

export interface DdlResponseMessage {
  readonly created?: boolean;
}

export interface NodeInfoMessage {
  readonly peer: PeerMessage | null;
  readonly role: number;
  readonly version: string;
  readonly start_time_ms: Long;
  readonly last_activity_ms: Long;
  readonly alive: boolean;
  readonly region_count?: number;
}

export interface ClusterInfoResponseMessage {
  readonly nodes: readonly NodeInfoMessage[];
}

export interface MetaEventMessage {
  /** The member of the `event` oneof that is set. */
  readonly event?: string;
  readonly table_changed?: { readonly table_id: number } | null;
  readonly database_changed?: { readonly name: string } | null;
  readonly reset?: Record<string, never> | null;
}

// ---- scalars ----

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** A 64-bit integer of the wire as a number; it must be a non-negative safe integer (ids, counts, times). */
function safeOf(value: unknown, what: string, signed = false): number {
  const n = typeof value === 'string' && /^-?[0-9]{1,20}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || (!signed && n < 0)) throw invalid(`${what} ${JSON.stringify(value)} is not ${signed ? 'a' : 'a non-negative'} safe integer`);
  return n;
}

/** A number of the interface as a 64-bit integer of the wire. */
function longOf(value: number, what: string, signed = false): number {
  if (!Number.isSafeInteger(value) || (!signed && value < 0)) throw invalid(`${what} ${String(value)} is not ${signed ? 'an' : 'a non-negative'} integer`);
  return value;
}

/** A u32 (table ids). */
function u32Of(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) throw invalid(`${what} ${JSON.stringify(value)} is not a u32`);
  return value;
}

/** A region id (decimal string in the interface) as the wire carries it, checked. */
function regionIdText(value: unknown, what: string): string {
  return regionIdOf(value, what).toString();
}

// ---- peers and roles ----

const ROLE_NUMBERS: Record<NodeRole, number> = { datanode: 1, frontend: 2, metasrv: 3 };
const ROLES: Record<number, NodeRole> = { 1: 'datanode', 2: 'frontend', 3: 'metasrv' };

function roleOf(value: number, what: string): NodeRole {
  const role = ROLES[value];
  if (role === undefined) throw invalid(`${what}: unknown role ${value}`);
  return role;
}

export function peerMessage(peer: Peer): PeerMessage {
  return { id: longOf(peer.id, 'peer id'), addr: peer.addr };
}

export function peerOf(m: PeerMessage | null | undefined, what: string): Peer {
  if (m === null || m === undefined) throw invalid(`${what} names no peer`);
  return { id: safeOf(m.id, `${what}: peer id`), addr: m.addr ?? '' };
}

// ---- heartbeats ----

export function heartbeatRequestMessage(req: HeartbeatRequest): HeartbeatRequestMessage {
  return {
    role: ROLE_NUMBERS[req.role],
    peer: peerMessage(req.peer),
    version: req.version,
    start_time_ms: longOf(req.start_time_ms, 'start_time_ms', true),
    regions: req.regions.map(
      (r): RegionStatMessage => ({
        region_id: regionIdText(r.region_id, 'region_id'),
        memtable_rows: longOf(r.memtable_rows, 'memtable_rows'),
        memtable_bytes: longOf(r.memtable_bytes, 'memtable_bytes'),
        sst_rows: longOf(r.sst_rows, 'sst_rows'),
        sst_files: longOf(r.sst_files, 'sst_files'),
        sst_bytes: longOf(r.sst_bytes, 'sst_bytes'),
      }),
    ),
    ...(req.shared_storage !== undefined && { shared_storage: req.shared_storage }),
  };
}

export function heartbeatRequestOf(m: HeartbeatRequestMessage): HeartbeatRequest {
  const role = roleOf(m.role, 'heartbeat');
  if (role !== 'datanode' && role !== 'frontend') throw invalid(`A heartbeat comes from a datanode or a frontend, not a ${role}`);
  return {
    role,
    peer: peerOf(m.peer, 'heartbeat'),
    version: m.version ?? '',
    start_time_ms: safeOf(m.start_time_ms, 'start_time_ms', true),
    regions: (m.regions ?? []).map(
      (r): RegionStat => ({
        region_id: regionIdText(r.region_id, 'region_id'),
        memtable_rows: safeOf(r.memtable_rows, 'memtable_rows'),
        memtable_bytes: safeOf(r.memtable_bytes, 'memtable_bytes'),
        sst_rows: safeOf(r.sst_rows, 'sst_rows'),
        sst_files: safeOf(r.sst_files, 'sst_files'),
        sst_bytes: safeOf(r.sst_bytes, 'sst_bytes'),
      }),
    ),
    ...(m.shared_storage !== undefined && m.shared_storage !== null && { shared_storage: m.shared_storage }),
  };
}

export function heartbeatResponseMessage(res: HeartbeatResponse): HeartbeatResponseMessage {
  return {
    lease_ms: longOf(res.lease_ms, 'lease_ms'),
    heartbeat_interval_ms: longOf(res.heartbeat_interval_ms, 'heartbeat_interval_ms'),
    leased_regions: res.leased_regions.map((id) => regionIdText(id, 'leased region')),
    close_regions: res.close_regions.map((id) => regionIdText(id, 'region to close')),
    open_regions: res.open_regions.map((r) => ({ region_id: regionIdText(r.region_id, 'region to open'), dir: r.dir, ...(r.storage !== undefined && { storage: r.storage }) })),
  };
}

export function heartbeatResponseOf(m: HeartbeatResponseMessage): HeartbeatResponse {
  return {
    lease_ms: safeOf(m.lease_ms, 'lease_ms'),
    heartbeat_interval_ms: safeOf(m.heartbeat_interval_ms, 'heartbeat_interval_ms'),
    leased_regions: (m.leased_regions ?? []).map((id) => regionIdText(id, 'leased region')),
    close_regions: (m.close_regions ?? []).map((id) => regionIdText(id, 'region to close')),
    open_regions: (m.open_regions ?? []).map(
      (r): RegionToOpen => ({ region_id: regionIdText(r.region_id, 'region to open'), dir: r.dir ?? '', ...(r.storage !== undefined && r.storage !== null && { storage: r.storage }) }),
    ),
  };
}

// ---- metadata reads ----

/** Bytes of the wire as the interface gives them: Buffers (which are Uint8Arrays). */
function bytesOf(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  throw invalid(`${what} is not bytes`);
}

export function getResponseMessage(value: Uint8Array | undefined): GetResponseMessage {
  return value === undefined ? {} : { value };
}

export function getResponseOf(m: GetResponseMessage): Uint8Array | undefined {
  return m.value === undefined || m.value === null ? undefined : bytesOf(m.value, 'the value');
}

export function rangeResponseMessage(entries: readonly KvEntry[]): RangeResponseMessage {
  return { kvs: entries };
}

export function rangeResponseOf(m: RangeResponseMessage): KvEntry[] {
  const kvs = m.kvs ?? [];
  const out = new Array<KvEntry>(kvs.length);
  for (let i = 0; i < kvs.length; i++) {
    const kv = kvs[i]!;
    out[i] = { key: kv.key ?? '', value: bytesOf(kv.value, `the value of ${kv.key}`) };
  }
  return out;
}

export function tableIdMessage(id: number): AllocateTableIdResponseMessage {
  return { table_id: u32Of(id, 'table_id') };
}

export function tableIdOf(m: AllocateTableIdResponseMessage): number {
  return u32Of(m.table_id, 'table_id');
}

// ---- DDL tasks (JSON) ----

export function ddlRequestMessage(task: DdlTask): DdlRequestMessage {
  return { task: Buffer.from(JSON.stringify(task), 'utf8') };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isStringRecord = (v: unknown): boolean => isObject(v) && Object.values(v).every((x) => typeof x === 'string');
const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const SEMANTIC_TYPES = new Set(['tag', 'field', 'timestamp']);

/** What keeps `value` from being a TableInfo (its shape; the metasrv checks its consistency). */
function tableInfoProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (!isCount(value.table_id) || (value.table_id as number) > 0xffff_ffff) return 'table_id is not a u32';
  for (const k of ['catalog', 'database', 'name', 'time_index', 'engine'] as const) if (typeof value[k] !== 'string') return `${k} is not a string`;
  if (!Array.isArray(value.columns)) return 'columns is not an array';
  for (const [i, c] of value.columns.entries()) {
    if (!isObject(c)) return `column ${i} is not an object`;
    if (!isCount(c.column_id) || (c.column_id as number) > 0xffff_ffff) return `column ${i}: column_id is not a u32`;
    if (typeof c.name !== 'string') return `column ${i}: name is not a string`;
    if (typeof c.data_type !== 'string' || !isColumnType(c.data_type)) return `column ${i}: unknown data_type ${JSON.stringify(c.data_type)}`;
    if (typeof c.semantic_type !== 'string' || !SEMANTIC_TYPES.has(c.semantic_type)) return `column ${i}: unknown semantic_type ${JSON.stringify(c.semantic_type)}`;
    if (typeof c.nullable !== 'boolean') return `column ${i}: nullable is not a boolean`;
    const d = c.default;
    if (d !== undefined) {
      const ok = isObject(d) && (d.kind === 'current_timestamp' || (d.kind === 'value' && (d.value === null || ['string', 'number', 'boolean'].includes(typeof d.value))));
      if (!ok) return `column ${i}: default is neither a value nor current_timestamp`;
    }
    if (c.comment !== undefined && typeof c.comment !== 'string') return `column ${i}: comment is not a string`;
  }
  if (!isStringArray(value.primary_key)) return 'primary_key is not an array of column names';
  if (!isStringRecord(value.options)) return 'options is not an object of strings';
  if (!Array.isArray(value.region_numbers) || !value.region_numbers.every(isCount)) return 'region_numbers is not an array of counts';
  const p = value.partition;
  if (p !== undefined && !(isObject(p) && isStringArray(p.columns) && isStringArray(p.exprs))) return 'partition is not {columns, exprs}';
  for (const k of ['next_column_id', 'schema_version'] as const) if (!isCount(value[k])) return `${k} is not a count`;
  if (typeof value.created_at !== 'number' || !Number.isFinite(value.created_at)) return 'created_at is not a number';
  if (value.comment !== undefined && typeof value.comment !== 'string') return 'comment is not a string';
  return undefined;
}

function tableInfoOf(value: unknown, what: string): TableInfo {
  const problem = tableInfoProblem(value);
  if (problem !== undefined) throw invalid(`The ${what} of the DDL task is not a TableInfo: ${problem}`);
  return value as TableInfo;
}

/** What keeps the fields of a DDL task of `kind` from fitting; undefined when they fit. */
function ddlProblem(t: Record<string, unknown>): string | undefined {
  switch (t.kind) {
    case 'create_table':
      tableInfoOf(t.info, 'info');
      return typeof t.if_not_exists === 'boolean' ? undefined : 'if_not_exists is not a boolean';
    case 'alter_table':
      tableInfoOf(t.before, 'before');
      tableInfoOf(t.after, 'after');
      return undefined;
    case 'drop_table':
    case 'truncate_table':
      tableInfoOf(t.info, 'info');
      return undefined;
    case 'create_database':
      if (typeof t.name !== 'string') return 'name is not a string';
      if (!isStringRecord(t.options)) return 'options is not an object of strings';
      return typeof t.if_not_exists === 'boolean' ? undefined : 'if_not_exists is not a boolean';
    case 'alter_database':
      if (typeof t.name !== 'string') return 'name is not a string';
      if (!isStringRecord(t.set)) return 'set is not an object of strings';
      return isStringArray(t.unset) ? undefined : 'unset is not an array of strings';
    case 'drop_database':
      return typeof t.name !== 'string' ? 'name is not a string' : undefined;
    case 'create_view':
      if (typeof t.replace !== 'boolean') return 'replace is not a boolean';
      return viewInfoProblem(t.info);
    case 'drop_view':
      return viewInfoProblem(t.info);
    default:
      return `unknown kind ${JSON.stringify(t.kind)}`;
  }
}

export function ddlTaskOf(m: DdlRequestMessage): DdlTask {
  let value: unknown;
  try {
    const b = bytesOf(m.task, 'the DDL task');
    value = JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw invalid(`The DDL task is not JSON: ${errorMessage(err)}`);
  }
  if (!isObject(value)) throw invalid('The DDL task is not an object');
  const problem = ddlProblem(value);
  if (problem !== undefined) throw invalid(`The DDL task ${typeof value.kind === 'string' ? `${value.kind} ` : ''}does not fit: ${problem}`);
  return value as unknown as DdlTask;
}

export function ddlResponseMessage(result: DdlResult): DdlResponseMessage {
  return result.created === undefined ? {} : { created: result.created };
}

export function ddlResultOf(m: DdlResponseMessage): DdlResult {
  return m.created === undefined || m.created === null ? {} : { created: m.created };
}

// ---- cluster info ----

export function clusterInfoMessage(nodes: readonly NodeInfo[]): ClusterInfoResponseMessage {
  return {
    nodes: nodes.map((n) => ({
      peer: peerMessage(n.peer),
      role: ROLE_NUMBERS[n.role],
      version: n.version,
      start_time_ms: longOf(n.start_time_ms, 'start_time_ms', true),
      last_activity_ms: longOf(n.last_activity_ms, 'last_activity_ms', true),
      alive: n.alive,
      ...(n.region_count !== undefined && { region_count: u32Of(n.region_count, 'region_count') }),
    })),
  };
}

export function clusterInfoOf(m: ClusterInfoResponseMessage): NodeInfo[] {
  return (m.nodes ?? []).map((n) => ({
    peer: peerOf(n.peer, 'a node'),
    role: roleOf(n.role, 'a node'),
    version: n.version ?? '',
    start_time_ms: safeOf(n.start_time_ms, 'start_time_ms', true),
    last_activity_ms: safeOf(n.last_activity_ms, 'last_activity_ms', true),
    alive: n.alive === true,
    ...(n.region_count !== undefined && n.region_count !== null && { region_count: n.region_count }),
  }));
}

// ---- events ----

export function metaEventMessage(e: MetaEvent): MetaEventMessage {
  switch (e.kind) {
    case 'table_changed':
      return { table_changed: { table_id: u32Of(e.table_id, 'table_id') } };
    case 'database_changed':
      return { database_changed: { name: e.name } };
    case 'reset':
      return { reset: {} };
  }
}

export function metaEventOf(m: MetaEventMessage): MetaEvent {
  switch (m.event) {
    case 'table_changed':
      return { kind: 'table_changed', table_id: u32Of(m.table_changed?.table_id, 'table_id') };
    case 'database_changed':
      return { kind: 'database_changed', name: m.database_changed?.name ?? '' };
    case 'reset':
      return { kind: 'reset' };
    default:
      throw invalid('A metadata event holds no event this node knows (table_changed, database_changed, reset)');
  }
}
