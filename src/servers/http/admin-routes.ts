import type { FastifyInstance } from 'fastify';
import type { AdminHandler } from '../handlers.js';

/**
 * A metasrv's view of the cluster, for operators: `GET /admin/nodes` (every node: role, address,
 * version, start time, last heartbeat, alive) and `GET /admin/routes` (every table's regions and
 * the datanode serving each). JSON; read-only.
 */
export function adminRoutes(app: FastifyInstance, handler: AdminHandler): void {
  app.get('/admin/nodes', async () => ({ nodes: await handler.nodes() }));
  app.get('/admin/routes', async () => ({ tables: await handler.routes() }));
}
