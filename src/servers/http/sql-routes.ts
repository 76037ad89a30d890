/**
 * `POST /v1/sql` (spec §4.1, reference api.md §1.2): `sql`, `db`, `format`, `limit` from the query
 * string or a form-encoded body (the query string wins); `X-Tsdb-Timezone` sets the time zone.
 * The database is checked before anything runs; the first failing statement turns the whole
 * response into its error.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import { isValidTimeZone } from '../../common/time/timestamp.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import { errorMessage, statusCodeOf, TsdbError } from '../../common/error/tsdb-error.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { credentialsFromHeaders } from './basic-auth.js';
import { elapsedMs, sendError } from './http-server.js';
import { formatOf, render } from './sql-format.js';

const FORM = 'application/x-www-form-urlencoded';

/**
 * An `application/x-www-form-urlencoded` body: `decodeURIComponent` per field (native, fast on the
 * megabyte-sized `sql` of a batched INSERT) after `+` → space. Undefined when a field is not valid
 * percent-encoded UTF-8.
 */
export function decodeForm(body: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    try {
      out[decodeURIComponent(key.replaceAll('+', ' '))] = decodeURIComponent(value.replaceAll('+', ' '));
    } catch {
      return undefined;
    }
  }
  return out;
}

/** The request's parameters: form fields, then the query string over them. */
function params(req: FastifyRequest): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const body = req.body;
  if (Buffer.isBuffer(body) && body.length > 0) {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== FORM) return undefined;
    const decoded = decodeForm(body.toString('latin1'));
    if (decoded === undefined) throw new TsdbError(StatusCode.InvalidArguments, 'Invalid form-encoded body: a field is not valid percent-encoded UTF-8');
    Object.assign(out, decoded);
  }
  for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** `db` as `<catalog>-<schema>` or `<schema>`; only the `tsdb` catalog exists. */
function databaseOf(db: string): { catalog: string; database: string } {
  const dash = db.indexOf('-');
  return dash < 0 ? { catalog: 'tsdb', database: db } : { catalog: db.slice(0, dash), database: db.slice(dash + 1) };
}

/** The user of a request: authenticated when a provider is configured (failures are 401), else the default user. */
async function userOf(req: FastifyRequest, auth: AuthHandler | undefined): Promise<UserInfo | { error: unknown }> {
  if (auth === undefined) return DEFAULT_USER;
  try {
    const { username, password } = credentialsFromHeaders(req.headers);
    return await auth.authenticate(username, password);
  } catch (error) {
    return { error };
  }
}

/** `defaultTimezone`: a request's time zone when it sends no `x-tsdb-timezone` (`default_timezone`). */
export function sqlRoutes(app: FastifyInstance, handler: SqlHandler, auth?: AuthHandler, defaultTimezone = 'UTC'): void {
  app.get('/v1/sql', (req, reply) => {
    sendError(req, reply, StatusCode.InvalidArguments, 'Method GET is not allowed for /v1/sql: send the statement with POST, form-encoded', 405).header('allow', 'POST');
  });

  app.post('/v1/sql', async (req: FastifyRequest, reply: FastifyReply) => {
    const user = await userOf(req, auth);
    if ('error' in user) return sendError(req, reply, statusCodeOf(user.error), errorMessage(user.error), 401);
    const p = params(req);
    if (p === undefined) {
      return sendError(req, reply, StatusCode.InvalidArguments, `Unsupported Content-Type: ${String(req.headers['content-type'] ?? '')}; /v1/sql takes ${FORM}`, 415);
    }
    const sql = p['sql'];
    if (sql === undefined || sql.trim() === '') return sendError(req, reply, StatusCode.InvalidArguments, 'sql parameter is required.');
    const given = p['db'] ?? (req.headers['x-tsdb-db-name'] as string | undefined);
    // Spec §4.1: with authentication on, the database must be named.
    if (auth !== undefined && given === undefined) return sendError(req, reply, StatusCode.InvalidArguments, 'db parameter is required when authentication is enabled.');
    const dbParam = given ?? 'public';
    const { catalog, database } = databaseOf(dbParam);
    if (catalog !== 'tsdb' || !(await handler.databaseExists(database))) {
      return sendError(req, reply, StatusCode.DatabaseNotFound, `Database not found: ${dbParam}`);
    }
    const tzHeader = req.headers['x-tsdb-timezone'];
    const timezone = typeof tzHeader === 'string' && tzHeader.trim() !== '' ? tzHeader.trim() : defaultTimezone;
    if (!isValidTimeZone(timezone)) return sendError(req, reply, StatusCode.InvalidArguments, `Invalid time zone: ${timezone}`);
    let limit: number | undefined;
    if (p['limit'] !== undefined) {
      limit = Number(p['limit']);
      if (!Number.isInteger(limit) || limit < 0) return sendError(req, reply, StatusCode.InvalidArguments, `Invalid limit: ${p['limit']}`);
    }
    // An unknown format is refused before anything runs.
    const format = formatOf(p['format']);
    const outputs = await handler.executeSql(sql, { database, timezone, user, signal: req.deadline, client: `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}` });
    if (outputs.length > 1 && format !== 'greptimedb_v1' && format !== 'influxdb_v1') {
      return sendError(req, reply, StatusCode.InvalidArguments, `cannot output multi-statements result in ${format} format`);
    }
    const elapsed = elapsedMs(req);
    const { contentType, body } = render(format, outputs, elapsed, limit);
    return reply.header('x-tsdb-format', format).header('x-tsdb-execution-time', String(elapsed)).type(contentType).send(body);
  });
}
