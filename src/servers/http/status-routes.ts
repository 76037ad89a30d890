import type { FastifyInstance } from 'fastify';
import type { StatusHandler } from '../handlers.js';

/** `GET /status`: version, commit, component, uptime. */
export function statusRoutes(app: FastifyInstance, handler: StatusHandler): void {
  app.get('/status', async () => handler.status());
}
