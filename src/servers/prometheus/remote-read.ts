/**
 * Prometheus remote read: a snappy-compressed `prometheus.ReadRequest` in, a snappy-compressed
 * `prometheus.ReadResponse` with raw samples (response type SAMPLES) out (reference api.md §1.6;
 * headers `Content-Type: application/x-protobuf`, `Content-Encoding: snappy` are the server's).
 * Streamed XOR chunks are not implemented: `negotiateResponseType` rejects a request that accepts
 * only those, like GreptimeDB (`negotiate_response_type` in its prom_store handler). ReadHints
 * (Query field 4) are ignored.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { type Int64Value, int64ToNumber, type PbLabel, type PbSample, ReadRequestType, ReadResponseType, RESPONSE_TYPE_SAMPLES } from './prompb.js';
import { checkTimestamp } from './remote-write.js';
import { snappyCompress, snappyDecompress } from './snappy-block.js';

export { encodeWriteRequest } from './remote-write.js';
export { RESPONSE_TYPE_SAMPLES, RESPONSE_TYPE_STREAMED_XOR_CHUNKS } from './prompb.js';

/** `LabelMatcher.Type`, in wire order: EQ 0, NEQ 1, RE 2, NRE 3. */
export type MatcherType = 'EQ' | 'NEQ' | 'RE' | 'NRE';
const MATCHER_TYPES: readonly MatcherType[] = ['EQ', 'NEQ', 'RE', 'NRE'];

export interface ReadMatcher {
  readonly type: MatcherType;
  readonly name: string;
  readonly value: string;
}

/** One query of a ReadRequest: series matching every matcher, samples in [startMs, endMs]. */
export interface ReadQuery {
  readonly startMs: number;
  readonly endMs: number;
  readonly matchers: ReadonlyArray<ReadMatcher>;
}

/** One series of a QueryResult (also what `encodeWriteRequest` takes): samples ordered by time. */
export interface ReadSeries {
  readonly labels: ReadonlyArray<{ name: string; value: string }>;
  readonly samples: ReadonlyArray<{ value: number; timestampMs: number }>;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a remote read body (snappy-compressed ReadRequest). `acceptedResponseTypes` as sent
 * (empty means SAMPLES). Throws InvalidArguments for a body that is not snappy or not a ReadRequest,
 * one that decompresses to more than `maxRawBytes`, an unknown matcher type and matcher names or
 * values that are not UTF-8.
 */
export function decodeReadRequest(body: Uint8Array, maxRawBytes = Infinity): { queries: ReadQuery[]; acceptedResponseTypes: number[] } {
  const raw = snappyDecompress(body, 'ReadRequest', maxRawBytes);
  const msg = decodeMessage(() => ReadRequestType.decode(raw), 'ReadRequest') as unknown as PbReadRequest;
  const queries = (msg.queries ?? []).map((q, qi): ReadQuery => ({
    startMs: int64ToNumber(q.startTimestampMs),
    endMs: int64ToNumber(q.endTimestampMs),
    matchers: (q.matchers ?? []).map((m, mi): ReadMatcher => {
      const type = MATCHER_TYPES[m.type ?? 0];
      if (type === undefined) throw invalid('ReadRequest', `query ${qi} matcher ${mi}: unknown matcher type ${m.type}`);
      return { type, name: utf8(m.name, 'ReadRequest', `query ${qi} matcher ${mi} name`), value: utf8(m.value, 'ReadRequest', `query ${qi} matcher ${mi} value`) };
    }),
  }));
  return { queries, acceptedResponseTypes: [...(msg.acceptedResponseTypes ?? [])] };
}

/**
 * The response type to answer with: the first accepted one tsdb implements, SAMPLES when the request
 * names none; Unsupported when it accepts only types tsdb lacks.
 */
export function negotiateResponseType(acceptedResponseTypes: readonly number[]): number {
  if (acceptedResponseTypes.length === 0 || acceptedResponseTypes.includes(RESPONSE_TYPE_SAMPLES)) return RESPONSE_TYPE_SAMPLES;
  throw new TsdbError(
    StatusCode.Unsupported,
    `Not supported: server does not support any of the requested response types: [${acceptedResponseTypes.join(', ')}]`,
  );
}

/** Encodes a ReadRequest (snappy-compressed): for tests and clients. */
export function encodeReadRequest(queries: ReadonlyArray<ReadQuery>, acceptedResponseTypes: readonly number[] = [RESPONSE_TYPE_SAMPLES]): Buffer {
  const msg = {
    queries: queries.map((q) => ({
      startTimestampMs: checkTimestamp(q.startMs, 'query start'),
      endTimestampMs: checkTimestamp(q.endMs, 'query end'),
      matchers: q.matchers.map((m) => ({
        type: MATCHER_TYPES.indexOf(m.type),
        name: Buffer.from(m.name, 'utf8'),
        value: Buffer.from(m.value, 'utf8'),
      })),
    })),
    acceptedResponseTypes: [...acceptedResponseTypes],
  };
  return snappyCompress(ReadRequestType.encode(msg).finish());
}

/** Encodes a ReadResponse (snappy-compressed): one QueryResult per query, in the request's order. */
export function encodeReadResponse(results: ReadonlyArray<ReadonlyArray<ReadSeries>>): Buffer {
  const msg = {
    results: results.map((series) => ({
      timeseries: series.map((s) => ({
        labels: s.labels.map((l): PbLabel => ({ name: l.name, value: l.value })),
        samples: s.samples.map((p): PbSample => ({ value: p.value, timestamp: checkTimestamp(p.timestampMs) })),
      })),
    })),
  };
  return snappyCompress(ReadResponseType.encode(msg).finish());
}

/** Decodes a ReadResponse (snappy-compressed): for tests and clients. */
export function decodeReadResponse(body: Uint8Array): ReadSeries[][] {
  const raw = snappyDecompress(body, 'ReadResponse');
  const msg = decodeMessage(() => ReadResponseType.decode(raw), 'ReadResponse') as unknown as PbReadResponse;
  return (msg.results ?? []).map((r) =>
    (r.timeseries ?? []).map((s) => ({
      labels: (s.labels ?? []).map((l) => ({ name: l.name ?? '', value: l.value ?? '' })),
      samples: (s.samples ?? []).map((p) => ({ value: p.value ?? 0, timestampMs: int64ToNumber(p.timestamp) })),
    })),
  );
}

// What protobufjs decodes (absent repeated fields are empty arrays, absent scalars their defaults).
interface PbReadRequest {
  queries?: { startTimestampMs?: Int64Value; endTimestampMs?: Int64Value; matchers?: { type?: number; name?: Uint8Array; value?: Uint8Array }[] }[];
  acceptedResponseTypes?: number[];
}
interface PbReadResponse {
  results?: { timeseries?: { labels?: { name?: string; value?: string }[]; samples?: { value?: number; timestamp?: Int64Value }[] }[] }[];
}

function decodeMessage<T>(decode: () => T, what: string): T {
  try {
    return decode();
  } catch (err) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function utf8(bytes: Uint8Array | undefined, what: string, field: string): string {
  // protobufjs leaves an absent bytes field as its default, an empty array (not a Uint8Array).
  if (bytes === undefined || bytes.length === 0) return '';
  try {
    return UTF8.decode(bytes);
  } catch (err) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid ${what}: ${field} is not valid UTF-8`, { cause: err });
  }
}

function invalid(what: string, message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `invalid ${what}: ${message}`);
}
