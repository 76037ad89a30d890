/**
 * `GET /metrics`: the process's metrics (common/metrics/) in Prometheus text format, with the
 * Content-Type prom-client gives (`text/plain; version=0.0.4; charset=utf-8`). Served without
 * authentication on every component, like `/health` and `/status` (and GreptimeDB's `/metrics`):
 * a scraper holds no database credentials, and the figures name no rows. Restrict it at the
 * network if that matters.
 */
import type { FastifyInstance } from 'fastify';
import { metricsRegistry, startProcessMetrics } from '../../common/metrics/registry.js';

export function metricsRoutes(app: FastifyInstance): void {
  startProcessMetrics();
  app.get('/metrics', async (_req, reply) => {
    const body = await metricsRegistry.metrics();
    return reply.type(metricsRegistry.contentType).send(body);
  });
}
