import type { FastifyInstance } from 'fastify';
import type { ConfigHandler } from '../handlers.js';

/** `GET /config`: the effective configuration as TOML, secrets masked. */
export function configRoutes(app: FastifyInstance, handler: ConfigHandler): void {
  app.get('/config', async (_req, reply) => reply.type('text/plain; charset=utf-8').send(handler.configToml()));
}
