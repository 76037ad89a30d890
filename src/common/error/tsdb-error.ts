import { StatusCode } from './status-code.js';

/** The one error type that crosses layers: a status code and a message for the user. */
export class TsdbError extends Error {
  override readonly name = 'TsdbError';

  constructor(
    readonly code: StatusCode,
    message: string,
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
  }
}

/** The status code of any thrown value: its own for a TsdbError, Internal otherwise. */
export function statusCodeOf(err: unknown): StatusCode {
  return err instanceof TsdbError ? err.code : StatusCode.Internal;
}

/** A message for any thrown value, never `undefined` or `[object Object]`. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
