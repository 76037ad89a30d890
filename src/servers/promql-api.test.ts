import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PromqlError } from '../promql/errors.js';
import { labelsFrom } from '../promql/labels.js';
import { apiErrorOf, checkRange, MAX_TIME_MS, MIN_TIME_MS, parsePromDuration, parsePromTime, resultJson } from './promql-api.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { StatusCode } from '../common/error/status-code.js';

test('parsePromTime: unix seconds to the ms (Go rounding), RFC 3339 with offsets and nanoseconds, the min/max constants', () => {
  assert.equal(parsePromTime('1'), 1000);
  assert.equal(parsePromTime('1.5'), 1500);
  assert.equal(parsePromTime('1.0006'), 1001);
  assert.equal(parsePromTime('1.0005'), 1000, 'Go rounds the float 0.000499999…');
  assert.equal(parsePromTime('-1.5'), -1500);
  assert.equal(parsePromTime('1e3'), 1_000_000);
  assert.equal(parsePromTime('.5'), 500);
  assert.equal(parsePromTime('2024-01-01T00:00:00Z'), Date.UTC(2024, 0, 1));
  assert.equal(parsePromTime('2024-01-01T02:00:00.123456789+02:00'), Date.UTC(2024, 0, 1) + 123);
  assert.equal(parsePromTime('0050-01-01T00:00:00Z'), new Date('0050-01-01T00:00:00Z').getTime());
  assert.equal(parsePromTime('-292273086-05-16T16:47:06Z'), MIN_TIME_MS);
  assert.equal(parsePromTime('292277025-08-18T07:12:54.999999999Z'), MAX_TIME_MS);
  for (const bad of ['', 'x', '0x10', '2024-01-01', '2024-02-30T00:00:00Z', '2024-01-01T00:00:00', 'Inf', ' 1']) {
    assert.throws(() => parsePromTime(bad), { message: `cannot parse ${JSON.stringify(bad)} to a valid timestamp` }, bad);
  }
});

test('parsePromDuration: seconds or Prometheus durations; checkRange in Prometheus order', () => {
  assert.equal(parsePromDuration('15'), 15_000);
  assert.equal(parsePromDuration('0.5'), 500);
  assert.equal(parsePromDuration('1m30s'), 90_000);
  assert.equal(parsePromDuration('0.000001', true), 0.001);
  assert.throws(() => parsePromDuration('5x'), { message: 'cannot parse "5x" to a valid duration' });
  assert.throws(() => parsePromDuration('1e30'), { message: 'cannot parse "1e30" to a valid duration. It overflows int64' });
  assert.throws(() => checkRange(10, 0, 1), { message: 'invalid parameter "end": end timestamp must not be before start time' });
  assert.throws(() => checkRange(0, 10, 0), /zero or negative query resolution/);
  assert.doesNotThrow(() => checkRange(0, 11_000_000, 1000));
  assert.throws(() => checkRange(0, 11_001_000, 1000), /11,000 points/);
});

test('resultJson writes Prometheus JSON; apiErrorOf gives Prometheus types and statuses, never a 5xx for a user error', () => {
  const labels = labelsFrom({ __name__: 'up', job: 'a' });
  assert.equal(resultJson({ type: 'vector', vector: [{ labels, t: 1500, v: 1 }] }), '{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"a"},"value":[1.5,"1"]}]}');
  assert.equal(resultJson({ type: 'matrix', matrix: [{ labels, t: [0, 1000], v: [Number.NaN, Number.POSITIVE_INFINITY] }] }), '{"resultType":"matrix","result":[{"metric":{"__name__":"up","job":"a"},"values":[[0,"NaN"],[1,"+Inf"]]}]}');
  assert.equal(resultJson({ type: 'scalar', t: 0, v: 1e21 }), '{"resultType":"scalar","result":[0,"1e+21"]}');
  assert.equal(resultJson({ type: 'string', t: 0, v: 'a"b' }), '{"resultType":"string","result":[0,"a\\"b"]}');
  assert.deepEqual(apiErrorOf(new PromqlError('execution', 'x')), { errorType: 'execution', message: 'x', status: 422 });
  assert.deepEqual(apiErrorOf(new PromqlError('canceled', 'x')), { errorType: 'canceled', message: 'x', status: 503 });
  assert.equal(apiErrorOf(new TsdbError(StatusCode.TableColumnNotFound, 'x')).status, 400);
  assert.equal(apiErrorOf(new TsdbError(StatusCode.PermissionDenied, 'x')).status, 403);
  assert.equal(apiErrorOf(new TsdbError(StatusCode.DeadlineExceeded, 'x')).errorType, 'timeout');
  assert.deepEqual(apiErrorOf(new Error('secret')), { errorType: 'internal', message: 'Internal error: 1003', status: 500 });
});
