/**
 * greptime.v1 messages encoded and decoded outside a gRPC call: the Flight ticket (an encoded
 * GreptimeRequest) and FlightMetadata (DoGet's app_metadata for a statement without rows). Read
 * with protobufjs from the same .proto files the gRPC services load, decoded to the same shape
 * (`PROTO_LOADER_OPTIONS`: field names as written, 64-bit integers as strings, enums as numbers,
 * oneofs named by a virtual field).
 */
import path from 'node:path';
import protobuf from 'protobufjs';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { GREPTIME_PROTO_FILES, PROTO_ROOT } from './protos.js';
import type { RequestHeader } from './request-context.js';

let root: protobuf.Root | undefined;

function greptimeRoot(): protobuf.Root {
  if (root === undefined) {
    const r = new protobuf.Root();
    r.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
    r.loadSync([...GREPTIME_PROTO_FILES], { keepCase: true });
    r.resolveAll();
    root = r;
  }
  return root;
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: Buffer, defaults: true, oneofs: true };

/** The parts of a GreptimeRequest that Flight reads. */
export interface GreptimeRequestMessage {
  readonly header?: RequestHeaderMessage | null;
  /** Which member of the `request` oneof is set. */
  readonly request?: string;
  readonly query?: { readonly query?: string; readonly sql?: string } | null;
  readonly [member: string]: unknown;
}

export type RequestHeaderMessage = RequestHeader;

/** Decodes a Flight ticket; bytes that are not a GreptimeRequest are the client's mistake. */
export function decodeGreptimeRequest(bytes: Uint8Array): GreptimeRequestMessage {
  const type = greptimeRoot().lookupType('greptime.v1.GreptimeRequest');
  try {
    return type.toObject(type.decode(bytes), TO_OBJECT) as GreptimeRequestMessage;
  } catch (err) {
    throw new TsdbError(StatusCode.InvalidArguments, `Failed to decode GreptimeRequest from Flight ticket: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Encodes a GreptimeRequest given as a plain object (tests and tools build tickets with it). */
export function encodeGreptimeRequest(request: Record<string, unknown>): Uint8Array {
  const type = greptimeRoot().lookupType('greptime.v1.GreptimeRequest');
  const problem = type.verify(request);
  if (problem !== null) throw new Error(`invalid GreptimeRequest: ${problem}`);
  return type.encode(type.fromObject(request)).finish();
}

/** `FlightMetadata{affected_rows{value}}`. */
export function encodeFlightMetadata(affectedRows: number): Uint8Array {
  const type = greptimeRoot().lookupType('greptime.v1.FlightMetadata');
  return type.encode(type.fromObject({ affected_rows: { value: affectedRows } })).finish();
}

export interface FlightMetadataMessage {
  readonly affected_rows?: { readonly value: number } | null;
  readonly metrics?: { readonly metrics: Buffer } | null;
}

export function decodeFlightMetadata(bytes: Uint8Array): FlightMetadataMessage {
  const type = greptimeRoot().lookupType('greptime.v1.FlightMetadata');
  return type.toObject(type.decode(bytes), { ...TO_OBJECT, defaults: false }) as FlightMetadataMessage;
}
