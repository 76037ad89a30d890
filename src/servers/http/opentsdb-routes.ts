/**
 * OpenTSDB `POST /v1/opentsdb/api/put` (reference api.md §1.5): one data point or an array; a
 * metric is a table (`tsdb_timestamp` ms, `tsdb_value`, a STRING tag per tag key). Points are
 * checked one by one: refused points do not stop the others. Without `summary` / `details` the
 * answer is 204 when every point was written and 500 otherwise; with them, 200 and the counts
 * (and the refused points with their errors).
 */
import type { FastifyInstance } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import type { Logger } from '../../common/logging.js';
import type { AuthHandler, IngestHandler } from '../handlers.js';
import { decodePut, putAnswer, type DataPointError } from '../opentsdb/put.js';
import { requestBody, requestDatabase, sendWriteError, withBasicAuth } from './write-routes.js';
import { TsdbError } from '../../common/error/tsdb-error.js';

export function opentsdbRoutes(app: FastifyInstance, handler: IngestHandler, auth: AuthHandler | undefined, log: Logger): void {
  app.post('/v1/opentsdb/api/put', withBasicAuth(auth, log, async (req, reply, user) => {
    const query = req.query as Record<string, string | undefined>;
    try {
      const database = requestDatabase(req);
      const decoded = decodePut(await requestBody(req));
      const errors: DataPointError[] = [...decoded.errors];
      let success = 0;
      // One table at a time: a table that cannot be written fails its points only.
      for (const [i, table] of decoded.tables.entries()) {
        try {
          success += await handler.ingest([table], { database, timezone: 'UTC', user });
        } catch (err) {
          // A missing database or a refused user fails the whole request, as for the other protocols.
          if (err instanceof TsdbError && (err.code === StatusCode.DatabaseNotFound || err.code === StatusCode.PermissionDenied)) throw err;
          const message = err instanceof Error ? err.message : String(err);
          for (const p of decoded.rowPoints[i]!) errors.push({ datapoint: decoded.points[p], error: message });
        }
      }
      const details = query['details'] !== undefined;
      if (details || query['summary'] !== undefined) return reply.code(200).type('application/json').send(putAnswer(success, errors, details));
      if (errors.length > 0) {
        // GreptimeDB's answer: the reasons are only given with `details`.
        log.debug({ failed: errors.length, first: errors[0]!.error }, 'OpenTSDB put: data points refused');
        const message = `Internal error: ${StatusCode.Internal}`;
        return reply.code(500).header('x-tsdb-err-code', String(StatusCode.Internal)).header('x-tsdb-err-msg', message).type('application/json').send({ error: message });
      }
      return reply.code(204).send();
    } catch (err) {
      return sendWriteError(req, reply, log, err);
    }
  }));
}
