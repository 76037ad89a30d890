/**
 * A gRPC server interceptor that counts every call and its latency by method path
 * (`/greptime.v1.GreptimeDatabase/Handle`) and status code, when the call sends its status.
 */
import * as grpc from '@grpc/grpc-js';
import { secondsSince } from '../../common/metrics/latency-buckets.js';
import { grpcRequestsElapsed, grpcRequestsTotal } from '../../common/metrics/server-metrics.js';

export const grpcMetricsInterceptor: grpc.ServerInterceptor = (method, call) => {
  const started = process.hrtime.bigint();
  return new grpc.ServerInterceptingCall(call, {
    sendStatus(status, next) {
      const labels = { path: method.path, code: String(status.code) };
      grpcRequestsTotal.inc(labels);
      grpcRequestsElapsed.observe(labels, secondsSince(started));
      next(status);
    },
  });
};
