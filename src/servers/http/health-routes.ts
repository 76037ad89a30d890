import type { FastifyInstance } from 'fastify';
import { processHealth, type HealthBoard } from '../../common/health/health-board.js';

/**
 * `/health`, `/ready`, `/v1/health` (GET and POST): 200 while the server runs. The body is `{}`
 * when nothing is wrong; while something keeps the server from working fully (writes refused by
 * a full disk, log lines dropped) it is `{"degraded": [{source, message, since}…],
 * "log_lines_dropped": n}` — still 200: the server answers and serves reads, which is what a load
 * balancer's check asks. While a condition keeps it from serving at all (a metasrv that cannot
 * reach etcd) the body also says `"ready": false`, and `/ready` answers 503 so that a readiness
 * check holds traffic back (`/health` stays 200: restarting the process would not help).
 */
export function healthRoutes(app: FastifyInstance, health: HealthBoard = processHealth): void {
  const body = () => {
    const report = health.report();
    if (report.conditions.length === 0 && report.log_lines_dropped === 0) return {};
    return { ...(!health.ready() && { ready: false }), degraded: report.conditions, log_lines_dropped: report.log_lines_dropped };
  };
  for (const url of ['/health', '/v1/health']) {
    app.route({ method: ['GET', 'POST'], url, handler: async () => body() });
  }
  app.route({
    method: ['GET', 'POST'],
    url: '/ready',
    handler: async (_req, reply) => {
      if (!health.ready()) reply.code(503);
      return body();
    },
  });
}
