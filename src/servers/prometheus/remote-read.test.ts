/**
 * Tests of the remote read codec: ReadRequest and ReadResponse byte fixtures built by hand, round
 * trips with all four matcher types, response type negotiation and rejected inputs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import {
  decodeReadRequest,
  decodeReadResponse,
  encodeReadRequest,
  encodeReadResponse,
  encodeWriteRequest,
  negotiateResponseType,
  type ReadQuery,
  type ReadSeries,
  RESPONSE_TYPE_SAMPLES,
  RESPONSE_TYPE_STREAMED_XOR_CHUNKS,
} from './remote-read.js';
import { decodeRemoteWrite } from './remote-write.js';
import { snappyCompress, snappyDecompress } from './snappy-block.js';

/**
 * ReadRequest { queries { start 1000 end 2000 matchers { EQ "__name__" "up" } matchers { NRE "job" "a.*" } }
 *               accepted_response_types [SAMPLES] }:
 *   0a 24                                   queries, 36 bytes
 *     08 e8 07  10 d0 0f                      start_timestamp_ms 1000, end_timestamp_ms 2000
 *     1a 0e  12 08 "__name__" 1a 02 "up"      matchers, 14 bytes (type EQ = 0 is omitted, as in proto3)
 *     1a 0c  08 03 12 03 "job" 1a 03 "a.*"    matchers, 12 bytes: type NRE = 3
 *   12 01 00                                accepted_response_types, packed: [0]
 */
const READ_REQUEST = Buffer.from(
  '0a24' + '08e80710d00f' + '1a0e' + '12085f5f6e616d655f5f' + '1a027570' + '1a0c' + '0803' + '12036a6f62' + '1a03612e2a' + '120100',
  'hex',
);
const READ_QUERY: ReadQuery = {
  startMs: 1000,
  endMs: 2000,
  matchers: [
    { type: 'EQ', name: '__name__', value: 'up' },
    { type: 'NRE', name: 'job', value: 'a.*' },
  ],
};

/**
 * ReadResponse { results { timeseries { labels { "__name__" "up" } samples { 1.5 @ 1000 } } } results { } }:
 *   0a 20  0a 1e                            results (32 bytes) → timeseries (30 bytes)
 *     0a 0e 0a 08 "__name__" 12 02 "up"       labels
 *     12 0c 09 <1.5 as f64 LE> 10 e8 07       samples
 *   0a 00                                   results: empty
 */
const READ_RESPONSE = Buffer.from('0a20' + '0a1e' + '0a0e0a085f5f6e616d655f5f12027570' + '120c09000000000000f83f10e807' + '0a00', 'hex');

function invalid(fn: () => unknown, message: RegExp, code = StatusCode.InvalidArguments): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TsdbError, `TsdbError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

test('the ReadRequest fixture decodes; the encoder writes it byte for byte', () => {
  assert.deepEqual(decodeReadRequest(snappyCompress(READ_REQUEST)), { queries: [READ_QUERY], acceptedResponseTypes: [0] });
  assert.deepEqual(snappyDecompress(encodeReadRequest([READ_QUERY]), 'ReadRequest'), READ_REQUEST);
});

test('a ReadRequest of a Go client: unpacked response types, hints, no matchers', () => {
  // queries { start 0 (omitted) end 5 hints { step_ms 15000 func "rate" } }, response types 1 and 0 unpacked.
  const hints = [0x22, 0x09, 0x08, 0x98, 0x75, 0x12, 0x04, ...Buffer.from('rate')];
  const body = Buffer.from([0x0a, 2 + hints.length, 0x10, 0x05, ...hints, 0x10, 0x01, 0x10, 0x00]);
  assert.deepEqual(decodeReadRequest(snappyCompress(body)), {
    queries: [{ startMs: 0, endMs: 5, matchers: [] }],
    acceptedResponseTypes: [RESPONSE_TYPE_STREAMED_XOR_CHUNKS, RESPONSE_TYPE_SAMPLES],
  });
  assert.deepEqual(decodeReadRequest(snappyCompress(Buffer.alloc(0))), { queries: [], acceptedResponseTypes: [] });
});

test('all four matcher types, several queries and negative times round trip', () => {
  const queries: ReadQuery[] = [
    {
      startMs: -86_400_000,
      endMs: 1_700_000_000_123,
      matchers: [
        { type: 'EQ', name: '__name__', value: 'http_requests_total' },
        { type: 'NEQ', name: 'code', value: '200' },
        { type: 'RE', name: 'path', value: '/api/.*|/v1/é' },
        { type: 'NRE', name: 'instance', value: '' },
      ],
    },
    { startMs: 0, endMs: 0, matchers: [{ type: 'NEQ', name: 'ville', value: 'Zürich 東京' }] },
  ];
  const decoded = decodeReadRequest(encodeReadRequest(queries, [RESPONSE_TYPE_STREAMED_XOR_CHUNKS, RESPONSE_TYPE_SAMPLES]));
  assert.deepEqual(decoded, { queries, acceptedResponseTypes: [1, 0] });
});

test('response type negotiation: SAMPLES or none; only streamed chunks is unsupported', () => {
  assert.equal(negotiateResponseType([]), RESPONSE_TYPE_SAMPLES);
  assert.equal(negotiateResponseType([0]), RESPONSE_TYPE_SAMPLES);
  assert.equal(negotiateResponseType([1, 0]), RESPONSE_TYPE_SAMPLES);
  invalid(() => negotiateResponseType([1]), /^Not supported: server does not support any of the requested response types: \[1\]$/, StatusCode.Unsupported);
});

test('the ReadResponse encoder writes the fixture byte for byte; it decodes back', () => {
  const results: ReadSeries[][] = [[{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1.5, timestampMs: 1000 }] }], []];
  assert.deepEqual(snappyDecompress(encodeReadResponse(results), 'ReadResponse'), READ_RESPONSE);
  assert.deepEqual(decodeReadResponse(snappyCompress(READ_RESPONSE)), results);
});

test('ReadResponse round trip: one result per query, in order, with special values', () => {
  const results: ReadSeries[][] = [
    [
      {
        labels: [{ name: '__name__', value: 'cpu' }, { name: 'host', value: 'a' }],
        samples: [{ value: 0, timestampMs: -1 }, { value: -0.5, timestampMs: 0 }, { value: Infinity, timestampMs: 2 ** 53 - 1 }],
      },
      { labels: [{ name: '__name__', value: 'cpu' }, { name: 'host', value: 'ü' }], samples: [] },
    ],
    [],
    [{ labels: [], samples: [{ value: 42, timestampMs: 1 }] }],
  ];
  assert.deepEqual(decodeReadResponse(encodeReadResponse(results)), results);
  const [nan] = decodeReadResponse(encodeReadResponse([[{ labels: [], samples: [{ value: NaN, timestampMs: 1 }] }]]));
  assert.ok(Number.isNaN(nan![0]!.samples[0]!.value));
  assert.deepEqual(decodeReadResponse(encodeReadResponse([])), []);
});

test('encodeWriteRequest is exported here too, for clients of remote read and write', () => {
  const body = encodeWriteRequest([{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestampMs: 5 }] }]);
  assert.equal(decodeRemoteWrite(body).samples, 1);
});

test('a ReadRequest that is not snappy, truncated or malformed is rejected', () => {
  invalid(() => decodeReadRequest(Buffer.alloc(0)), /^invalid snappy-compressed ReadRequest: empty body$/);
  invalid(() => decodeReadRequest(Buffer.from('not snappy at all')), /^invalid snappy-compressed ReadRequest: /);
  // Cut at every offset: invalid, except where the cut falls between two complete fields.
  const completeAt = new Set([38]);
  for (let cut = 1; cut < READ_REQUEST.length; cut++) {
    const body = snappyCompress(READ_REQUEST.subarray(0, cut));
    if (completeAt.has(cut)) assert.deepEqual(decodeReadRequest(body), { queries: [READ_QUERY], acceptedResponseTypes: [] });
    else invalid(() => decodeReadRequest(body), /^invalid ReadRequest: /);
  }
  invalid(() => decodeReadRequest(snappyCompress(Buffer.from([0x0f]))), /^invalid ReadRequest: /); // wire type 7
});

test('unknown matcher types and matchers that are not UTF-8 are rejected', () => {
  const query = (matcher: number[]): Buffer => snappyCompress(Buffer.from([0x0a, matcher.length + 2, 0x1a, matcher.length, ...matcher]));
  invalid(() => decodeReadRequest(query([0x08, 0x04, 0x12, 0x01, 0x61])), /^invalid ReadRequest: query 0 matcher 0: unknown matcher type 4$/);
  invalid(() => decodeReadRequest(query([0x12, 0x02, 0xc3, 0x28])), /^invalid ReadRequest: query 0 matcher 0 name is not valid UTF-8$/);
  invalid(() => decodeReadRequest(query([0x12, 0x01, 0x61, 0x1a, 0x01, 0xff])), /^invalid ReadRequest: query 0 matcher 0 value is not valid UTF-8$/);
});

test('a ReadResponse that is not snappy or truncated is rejected; the encoder checks timestamps', () => {
  invalid(() => decodeReadResponse(Buffer.from([0x05, 0x00])), /^invalid snappy-compressed ReadResponse: /);
  invalid(() => decodeReadResponse(snappyCompress(READ_RESPONSE.subarray(0, 10))), /^invalid ReadResponse: /);
  invalid(() => encodeReadResponse([[{ labels: [], samples: [{ value: 1, timestampMs: NaN }] }]]), /invalid sample timestamp NaN/);
  invalid(() => encodeReadRequest([{ startMs: 1.5, endMs: 2, matchers: [] }]), /^invalid query start 1.5: must be an integer number of milliseconds$/);
});
