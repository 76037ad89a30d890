import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { frontendSchema } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';

/** The stateless protocol front of a distributed deployment. */
export function createFrontend(loaded: LoadedConfig<'frontend'>, logger: Logger): Component {
  const c = loaded.config;
  return new ServingComponent({ name: 'frontend', schema: frontendSchema, config: c, http: c.http, logger });
}
