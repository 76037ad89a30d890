// The protobuf definitions tsdb serves over gRPC, loaded at run time from the repository's
// `proto/` directory (GreptimeDB's `greptime.v1` package: see proto/greptime/v1/common.proto).
//
// Loader options, fixed for every user of these definitions:
// - keepCase: field names as in the .proto files (`table_name`, `row_inserts`);
// - longs: String, so 64-bit integers (timestamps in ns, u64 values) arrive without losing digits;
// - enums: Number, so `datatype` is the ColumnDataType number;
// - bytes: Buffer; defaults: absent scalars read as their zero value; oneofs: a virtual field
//   naming the member that is set (`request: 'row_inserts'`).
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import * as grpc from '@grpc/grpc-js';

/** The repository's proto/ directory; this file compiles to dist/src/servers/grpc/protos.js. */
export const PROTO_ROOT = fileURLToPath(new URL('../../../../proto/', import.meta.url));

/** The .proto files, relative to PROTO_ROOT. */
export const GREPTIME_PROTO_FILES = [
  'greptime/v1/common.proto',
  'greptime/v1/row.proto',
  'greptime/v1/column.proto',
  'greptime/v1/ddl.proto',
  'greptime/v1/database.proto',
  'greptime/v1/health.proto',
  'greptime/v1/prom.proto',
] as const;

export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: Number,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

let cached: protoLoader.PackageDefinition | undefined;

/** The package definition of every file in GREPTIME_PROTO_FILES (loaded once). */
export function greptimePackageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([...GREPTIME_PROTO_FILES], PROTO_LOADER_OPTIONS);
  return cached;
}

/** A service definition by full name, e.g. `greptime.v1.GreptimeDatabase`. */
export function greptimeServiceDefinition(fullName: string): grpc.ServiceDefinition {
  const def = greptimePackageDefinition()[fullName];
  if (def === undefined || !isServiceDefinition(def)) throw new Error(`no gRPC service ${fullName} in ${PROTO_ROOT}`);
  return def as grpc.ServiceDefinition;
}

function isServiceDefinition(def: unknown): boolean {
  if (typeof def !== 'object' || def === null || 'format' in def) return false;
  return Object.values(def).every((m) => typeof m === 'object' && m !== null && 'path' in m);
}

/** Client constructors, for tests and tools: `new (greptimeClients().GreptimeDatabase)(addr, creds)`. */
export function greptimeClients(): {
  GreptimeDatabase: grpc.ServiceClientConstructor;
  HealthCheck: grpc.ServiceClientConstructor;
  PrometheusGateway: grpc.ServiceClientConstructor;
} {
  const make = (name: string) => grpc.makeGenericClientConstructor(greptimeServiceDefinition(name), name);
  return { GreptimeDatabase: make('greptime.v1.GreptimeDatabase'), HealthCheck: make('greptime.v1.HealthCheck'), PrometheusGateway: make('greptime.v1.PrometheusGateway') };
}
