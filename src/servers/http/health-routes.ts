import type { FastifyInstance } from 'fastify';

/** `/health`, `/ready`, `/v1/health` (GET and POST): 200 `{}` while the server runs. */
export function healthRoutes(app: FastifyInstance): void {
  for (const url of ['/health', '/ready', '/v1/health']) {
    app.route({ method: ['GET', 'POST'], url, handler: async () => ({}) });
  }
}
