/**
 * What the write endpoints of the ingestion protocols (InfluxDB, OpenTSDB, Prometheus) share: the
 * `db` parameter, request bodies (`Content-Encoding: gzip` / `deflate` decompressed within
 * `http.body_limit`), and their error shape — a plain `{"error":"<msg>"}` with the status of the
 * error's code (reference api.md §1.4, §2), plus the `x-tsdb-err-*` headers.
 */
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HTTP_STATUS, shouldLogError, StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { AuthHandler } from '../handlers.js';
import { credentialsFromHeaders } from './basic-auth.js';
import { decodeBody } from '../influxdb/parse-protocol.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** The database a `db` parameter names: `<catalog>-<schema>` or `<schema>`; only the `tsdb` catalog exists. */
export function databaseOf(db: string): string {
  const dash = db.indexOf('-');
  if (dash < 0) return db;
  if (db.slice(0, dash) !== 'tsdb') throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${db}`);
  return db.slice(dash + 1);
}

/** The largest body a decompressed request may have (the body limit, or 1 GiB without one). */
let decompressedLimit = 1024 ** 3;

/** Sets the limit on decompressed bodies (`http.body_limit`; 0 = the 1 GiB cap). */
export function setDecompressedLimit(bytes: number): void {
  decompressedLimit = bytes > 0 ? bytes : 1024 ** 3;
}

/** The limit on decompressed bodies, for bodies their decoder decompresses (Prometheus's snappy). */
export function decompressedBodyLimit(): number {
  return decompressedLimit;
}

/**
 * The request body as bytes, decompressed as its `Content-Encoding` says; encodings in `keep` are
 * left to the caller (Prometheus remote write bodies are snappy blocks its decoder reads).
 */
export async function requestBytes(req: FastifyRequest, keep: readonly string[] = []): Promise<Buffer> {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const encoding = String(req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || keep.includes(encoding)) return raw;
  const opts = { maxOutputLength: decompressedLimit };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return await gunzipAsync(raw, opts);
    if (encoding === 'deflate') return await inflateAsync(raw, opts);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new TsdbError(StatusCode.InvalidArguments, `The decompressed request body is larger than http.body_limit (${decompressedLimit} bytes)`);
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid ${encoding} request body: ${(err as Error).message}`);
  }
  throw new TsdbError(StatusCode.Unsupported, `Unsupported Content-Encoding: ${encoding}`);
}

/** The request body as UTF-8 text (decompressed first). */
export async function requestBody(req: FastifyRequest): Promise<string> {
  return decodeBody(await requestBytes(req));
}

/** Codes whose messages are not shown to clients (reference api.md §2). */
const MASKED = new Set<StatusCode>([StatusCode.Unknown, StatusCode.Internal]);

/** Answers a failed write: `{"error":…}` with the status of its code (or `httpStatus`); logs server-side failures. */
export function sendWriteError(req: FastifyRequest, reply: FastifyReply, log: Logger, err: unknown, httpStatus?: number): FastifyReply {
  const code = err instanceof TsdbError ? err.code : StatusCode.Internal;
  let message = err instanceof Error ? err.message : String(err);
  if (shouldLogError(code)) log.error({ err, url: req.url }, `write failed: ${message}`);
  if (MASKED.has(code)) message = `Internal error: ${code}`;
  const status = httpStatus ?? HTTP_STATUS[code];
  return reply
    .code(status)
    .header('x-tsdb-err-code', String(code))
    .header('x-tsdb-err-msg', message.replace(/[^\x20-\x7e]/g, '?'))
    .type('application/json')
    .send({ error: message });
}

/** The database a write request names: its `db` parameter (or `param`), else `x-tsdb-db-name`, else `public`. */
export function requestDatabase(req: FastifyRequest, param?: string): string {
  const query = req.query as Record<string, string | undefined>;
  return databaseOf(param ?? query['db'] ?? (req.headers['x-tsdb-db-name'] as string | undefined) ?? 'public');
}

type WriteHandler = (req: FastifyRequest, reply: FastifyReply, user: UserInfo) => Promise<FastifyReply>;

/**
 * A route handler that first authenticates the request with HTTP Basic credentials when a user
 * provider is configured (failures answer 401 in the write error shape), then runs `handler`.
 */
export function withBasicAuth(auth: AuthHandler | undefined, log: Logger, handler: WriteHandler): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (req, reply) => {
    let user: UserInfo = DEFAULT_USER;
    if (auth !== undefined) {
      try {
        const { username, password } = credentialsFromHeaders(req.headers);
        user = await auth.authenticate(username, password);
      } catch (err) {
        return sendWriteError(req, reply, log, err, 401);
      }
    }
    return handler(req, reply, user);
  };
}
