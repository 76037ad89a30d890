/**
 * The Prometheus remote storage messages (`prompb/types.proto`, `prompb/remote.proto`) as protobufjs
 * reflection types, for everything but the hot path: encoding WriteRequests (tests, benchmarks),
 * decoding ReadRequests and encoding ReadResponses. Remote write bodies are decoded by the hand-written
 * reader in `remote-write.ts`, which is several times faster (see `bench/prom-codec/`).
 *
 * Field numbers:
 * ```
 * WriteRequest  { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
 * TimeSeries    { repeated Label labels = 1; repeated Sample samples = 2; repeated Exemplar exemplars = 3;
 *                 repeated Histogram histograms = 4; }
 * Label         { string name = 1; string value = 2; }
 * Sample        { double value = 1; int64 timestamp = 2; }
 * ReadRequest   { repeated Query queries = 1; repeated ResponseType accepted_response_types = 2; }
 * Query         { int64 start_timestamp_ms = 1; int64 end_timestamp_ms = 2; repeated LabelMatcher matchers = 3;
 *                 ReadHints hints = 4; }
 * LabelMatcher  { Type type = 1; string name = 2; string value = 3; }   Type: EQ 0, NEQ 1, RE 2, NRE 3
 * ReadResponse  { repeated QueryResult results = 1; }
 * QueryResult   { repeated TimeSeries timeseries = 1; }
 * ```
 */
import protobuf from 'protobufjs';

/** `ReadRequest.ResponseType`: one ReadResponse with raw samples (the only type tsdb answers with). */
export const RESPONSE_TYPE_SAMPLES = 0;
/** `ReadRequest.ResponseType`: streamed XOR chunks (not implemented). */
export const RESPONSE_TYPE_STREAMED_XOR_CHUNKS = 1;

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: {
          fields: {
            timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 },
          },
        },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
          },
        },
        Label: {
          fields: {
            name: { type: 'string', id: 1 },
            value: { type: 'string', id: 2 },
          },
        },
        Sample: {
          fields: {
            value: { type: 'double', id: 1 },
            timestamp: { type: 'int64', id: 2 },
          },
        },
        ReadRequest: {
          fields: {
            queries: { rule: 'repeated', type: 'Query', id: 1 },
            acceptedResponseTypes: { rule: 'repeated', type: 'int32', id: 2 },
          },
        },
        Query: {
          fields: {
            startTimestampMs: { type: 'int64', id: 1 },
            endTimestampMs: { type: 'int64', id: 2 },
            matchers: { rule: 'repeated', type: 'LabelMatcher', id: 3 },
          },
        },
        // Strings as bytes, so that the decoder can reject invalid UTF-8 instead of replacing it.
        LabelMatcher: {
          fields: {
            type: { type: 'int32', id: 1 },
            name: { type: 'bytes', id: 2 },
            value: { type: 'bytes', id: 3 },
          },
        },
        ReadResponse: {
          fields: {
            results: { rule: 'repeated', type: 'QueryResult', id: 1 },
          },
        },
        QueryResult: {
          fields: {
            timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 },
          },
        },
      },
    },
  },
});

export const WriteRequestType = root.lookupType('prometheus.WriteRequest');
export const ReadRequestType = root.lookupType('prometheus.ReadRequest');
export const ReadResponseType = root.lookupType('prometheus.ReadResponse');

/** What protobufjs gives for an int64: a number, or a Long (from the `long` package) when that is installed. */
export type Int64Value = number | { readonly low: number; readonly high: number };

/** An int64 as a number (exact within ±2^53, which covers every millisecond timestamp in use). */
export function int64ToNumber(v: Int64Value | null | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  return v.high * 0x1_0000_0000 + (v.low >>> 0);
}

/** The plain objects protobufjs encodes (field names as in the JSON schema above). */
export interface PbLabel {
  name: string;
  value: string;
}
export interface PbSample {
  value: number;
  timestamp: number;
}
export interface PbTimeSeries {
  labels: PbLabel[];
  samples: PbSample[];
}
