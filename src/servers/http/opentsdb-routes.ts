/**
 * OpenTSDB `POST /v1/opentsdb/api/put` (reference api.md §1.5): one data point or an array; a
 * metric is a table (`tsdb_timestamp` ms, `tsdb_value`, a STRING tag per tag key). Points are
 * checked one by one: refused points (and the points of a table that cannot be written) do not stop
 * the others. The whole request is refused (400, nothing written) for a body that is not a put
 * (`decodePut`: not JSON, nested too deep, too many tags), a timestamp outside the range of its
 * table's time index, or a table that would exceed the column limit. Without `summary` /
 * `details` the answer is 204 when every point was written and 500 otherwise; with them, 200 and
 * the counts (and the refused points with their errors).
 */
import type { FastifyInstance } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import type { Logger } from '../../common/logging.js';
import type { AuthHandler, IngestHandler } from '../handlers.js';
import { decodePut, putAnswer, type DataPointError } from '../opentsdb/put.js';
import { requestBody, requestDatabase, sendWriteError, withBasicAuth } from './write-routes.js';
import { ingestRejectedRows, recordIngest, recordIngestRejected } from '../../common/metrics/server-metrics.js';
import { bodySize } from '../ingest-metrics.js';

export function opentsdbRoutes(app: FastifyInstance, handler: IngestHandler, auth: AuthHandler | undefined, log: Logger): void {
  app.post('/v1/opentsdb/api/put', withBasicAuth(auth, log, async (req, reply, user) => {
    const query = req.query as Record<string, string | undefined>;
    let points = 0;
    try {
      const database = requestDatabase(req);
      const decoded = decodePut(await requestBody(req));
      const errors: DataPointError[] = [...decoded.errors];
      points = decoded.points.length;
      // A table that cannot be written fails its points only. The request fails whole (nothing
      // written) for a missing database, a refused user, a timestamp out of its column's range (a
      // table whose time index has a finer unit) or a table beyond the column limit.
      const success = await handler.ingest(decoded.tables, { database, timezone: 'UTC', user }, {
        onTableError: (i, err) => {
          const message = err instanceof Error ? err.message : String(err);
          for (const p of decoded.rowPoints[i]!) errors.push({ datapoint: decoded.points[p], error: message });
        },
      });
      recordIngest('opentsdb', database, success, bodySize(req));
      if (errors.length > 0) ingestRejectedRows.inc({ protocol: 'opentsdb' }, errors.length);
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
      recordIngestRejected('opentsdb', points, bodySize(req));
      return sendWriteError(req, reply, log, err);
    }
  }));
}
