/**
 * Snappy in the block (raw) format, which Prometheus remote write and read use for their bodies
 * (`Content-Encoding: snappy`), not the framed stream format. A body starts with the uncompressed
 * length as a varint, then literal and copy elements.
 */
import { compressSync, uncompressSync } from 'snappy';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

/**
 * The most output one input byte can stand for: a 3-byte copy element writes at most 64 bytes. A body
 * whose header claims more than this allows is rejected before anything is allocated for it.
 */
const MAX_EXPANSION = 22;

/**
 * `body` uncompressed; `what` names the message in errors (`WriteRequest`). Throws InvalidArguments,
 * also for a body that would decompress to more than `maxLength` bytes (checked from its header,
 * before anything is allocated).
 */
export function snappyDecompress(body: Uint8Array, what: string, maxLength = Infinity): Buffer {
  const declared = declaredLength(body);
  if (declared === undefined) {
    throw new TsdbError(StatusCode.InvalidArguments, `invalid snappy-compressed ${what}: ${body.length === 0 ? 'empty body' : 'bad length header'}`);
  }
  if (declared.length > MAX_EXPANSION * (body.length - declared.headerBytes) + 1) {
    throw new TsdbError(
      StatusCode.InvalidArguments,
      `invalid snappy-compressed ${what}: header claims ${declared.length} bytes, more than ${body.length} compressed bytes can hold`,
    );
  }
  if (declared.length > maxLength) {
    throw new TsdbError(StatusCode.InvalidArguments, `The decompressed request body is larger than http.body_limit (${maxLength} bytes): the snappy-compressed ${what} holds ${declared.length}`);
  }
  try {
    return uncompressSync(body) as Buffer;
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^snappy: /, '') : String(err);
    throw new TsdbError(StatusCode.InvalidArguments, `invalid snappy-compressed ${what}: ${reason}`, { cause: err });
  }
}

export function snappyCompress(data: Uint8Array): Buffer {
  return compressSync(data);
}

/** The varint at the start of a block: the uncompressed length (at most 2^32 − 1), or undefined. */
function declaredLength(body: Uint8Array): { length: number; headerBytes: number } | undefined {
  let length = 0;
  for (let i = 0; i < 5 && i < body.length; i++) {
    const b = body[i]!;
    length += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return length > 0xffffffff ? undefined : { length, headerBytes: i + 1 };
  }
  return undefined;
}
