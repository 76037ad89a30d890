/**
 * Request decoding that never throws: grpc-js answers a message its deserializer rejects with
 * INTERNAL, which would call a client's mistake a server fault. With `withLenientDecoding` an
 * undecodable message reaches the handler as a marker, and `undecodable(message)` gives the
 * decoder's reason so the handler refuses it with INVALID_ARGUMENT (1004).
 */
import type * as grpc from '@grpc/grpc-js';
import { errorMessage } from '../../common/error/tsdb-error.js';

const UNDECODABLE = Symbol('undecodable');

export function withLenientDecoding(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(def)) {
    out[name] = {
      ...m,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return m.requestDeserialize(bytes);
        } catch (err) {
          return { [UNDECODABLE]: errorMessage(err) };
        }
      },
    };
  }
  return out as grpc.ServiceDefinition;
}

/** The decoder's reason when `message` did not decode; else undefined. */
export function undecodable(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || !(UNDECODABLE in message)) return undefined;
  return String((message as { [UNDECODABLE]: unknown })[UNDECODABLE]);
}
