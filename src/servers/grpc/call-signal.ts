/**
 * The cancellation of one gRPC call as an AbortSignal for the statement it runs: aborted with
 * DeadlineExceeded when the call passes its deadline, with Cancelled when its client cancels or
 * disconnects. grpc-js cancels a call at its deadline, and the client's own timer fires a little
 * before the server's (which counts from the call's arrival): a cancel within `DEADLINE_SLACK_MS`
 * of the deadline counts as the deadline's.
 */
import type * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { timerDelay } from '../../common/time/duration.js';

const DEADLINE_SLACK_MS = 100;

type Call =
  | grpc.ServerUnaryCall<unknown, unknown>
  | grpc.ServerReadableStream<unknown, unknown>
  | grpc.ServerWritableStream<unknown, unknown>
  | grpc.ServerDuplexStream<unknown, unknown>;

export function callSignal(call: Call, what: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  const started = Date.now();
  const expired = () => {
    if (!controller.signal.aborted) controller.abort(new TsdbError(StatusCode.DeadlineExceeded, `Request timed out: the gRPC call's deadline passed after ${at - started} ms`));
  };
  const onCancel = () => {
    if (controller.signal.aborted) return;
    if (Number.isFinite(at) && Date.now() >= at - DEADLINE_SLACK_MS) expired();
    else controller.abort(new TsdbError(StatusCode.Cancelled, `Query execution was cancelled: the ${what} client cancelled the call or disconnected`));
  };
  const events = call as unknown as NodeJS.EventEmitter;
  events.on('cancelled', onCancel);
  const timer = Number.isFinite(at) ? setTimeout(expired, timerDelay(Math.max(0, at - started))) : undefined;
  return {
    signal: controller.signal,
    dispose() {
      events.off('cancelled', onCancel);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
