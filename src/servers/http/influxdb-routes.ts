/**
 * InfluxDB line protocol over HTTP (reference api.md §1.4): `POST /v1/influxdb/write` (v1: `db`,
 * `precision`, `u` / `p`) and `POST /v1/influxdb/api/v2/write` (`bucket`, `org`, `precision`,
 * `Authorization: Token user:password`), `GET /v1/influxdb/ping` (204) and `/v1/influxdb/health`
 * (200). A request is parsed whole before anything is written: a bad line refuses all of it (400,
 * naming the line). Measurements become tables with `merge_mode = 'last_non_null'`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import type { Logger } from '../../common/logging.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { AuthHandler, IngestHandler } from '../handlers.js';
import { parsePrecision } from '../influxdb/line-protocol.js';
import { ParsePool } from '../influxdb/parse-pool.js';
import { credentialsFromHeaders, type Credentials } from './basic-auth.js';
import { requestBytes, requestDatabase, sendWriteError } from './write-routes.js';
import { recordIngest, recordIngestRejected } from '../../common/metrics/server-metrics.js';
import { bodySize, rowsOf } from '../ingest-metrics.js';

/** Credentials of an InfluxDB request: `Token user:password`, Basic, or the `u` and `p` parameters. */
export function influxCredentials(req: FastifyRequest, query: Record<string, string | undefined>): Credentials {
  const header = req.headers['authorization'];
  if (typeof header === 'string' && /^token /i.test(header)) {
    const token = header.slice(6).trim();
    const colon = token.indexOf(':');
    if (colon < 0) throw new TsdbError(StatusCode.InvalidAuthHeader, 'Invalid http authorization header: a token is <username>:<password>');
    return { username: token.slice(0, colon), password: token.slice(colon + 1) };
  }
  if (header !== undefined || req.headers['x-tsdb-auth'] !== undefined) return credentialsFromHeaders(req.headers);
  const { u, p } = query;
  if (u === undefined && p === undefined) throw new TsdbError(StatusCode.AuthHeaderNotFound, 'Not found influx http authorization info');
  if (u === undefined || p === undefined) throw new TsdbError(StatusCode.InvalidArguments, 'influxdb auth: username and password must be provided together');
  return { username: u, password: p };
}

async function influxUser(req: FastifyRequest, query: Record<string, string | undefined>, auth: AuthHandler | undefined): Promise<UserInfo> {
  if (auth === undefined) return DEFAULT_USER;
  const { username, password } = influxCredentials(req, query);
  return auth.authenticate(username, password);
}

export function influxdbRoutes(app: FastifyInstance, handler: IngestHandler, auth: AuthHandler | undefined, log: Logger): void {
  // Large bodies are parsed in worker threads while the main thread writes.
  const pool = new ParsePool();
  app.addHook('onClose', () => pool.close());
  const write = (v2: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const query = req.query as Record<string, string | undefined>;
    let user: UserInfo;
    try {
      user = await influxUser(req, query, auth);
    } catch (err) {
      // Authentication failures are 401; only a u without p (or p without u) is a bad request.
      return sendWriteError(req, reply, log, err, err instanceof TsdbError && err.code === StatusCode.InvalidArguments ? undefined : 401);
    }
    let rows = 0;
    try {
      const precision = parsePrecision(query['precision']);
      const database = requestDatabase(req, v2 ? query['bucket'] : undefined);
      const tables = await pool.parse(await requestBytes(req), precision, BigInt(Date.now()) * 1_000_000n);
      rows = rowsOf(tables);
      await handler.ingest(tables, { database, timezone: 'UTC', user }, { mergeMode: 'last_non_null' });
      recordIngest('influxdb', database, rows, bodySize(req));
      return reply.code(204).send();
    } catch (err) {
      recordIngestRejected('influxdb', rows, bodySize(req));
      return sendWriteError(req, reply, log, err);
    }
  };
  app.post('/v1/influxdb/write', write(false));
  app.post('/v1/influxdb/api/v2/write', write(true));
  // InfluxDB 1.x answers ping with 204 and its version; clients use GET or HEAD (fastify adds HEAD).
  app.get('/v1/influxdb/ping', (_req, reply) => reply.code(204).header('x-influxdb-version', '1.8.0').send());
  app.get('/v1/influxdb/health', (_req, reply) => reply.code(200).send());
}
