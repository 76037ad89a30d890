/**
 * `tsdb <component> start`: configuration → logger → component, then run until SIGINT/SIGTERM
 * and stop gracefully. Returns the process exit code.
 */
import { buildInfo } from '../common/build-info.js';
import { createLogger, type Logger, type LoggerHandle } from '../common/logging.js';
import { formatAddress } from '../common/net/address.js';
import { formatDuration, type Millis } from '../common/time/duration.js';
import { startTracing, type TracingHandle } from '../common/tracing/tracing-setup.js';
import type { Component } from '../components/component.js';
import { createDatanode } from '../components/datanode.js';
import { createFrontend } from '../components/frontend.js';
import { createMetasrv } from '../components/metasrv.js';
import { createStandalone } from '../components/standalone.js';
import type { ComponentName } from '../config/flags.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { ConfigError } from '../config/resolve.js';
import type { StartRequest } from './program.js';

/** Exit codes: 0 clean stop, 1 failure while starting or running, 2 bad usage or configuration. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

function createComponent(loaded: LoadedConfig<ComponentName>, handle: LoggerHandle): Component {
  const logger = handle.logger;
  switch (loaded.component) {
    case 'standalone':
      return createStandalone(loaded as LoadedConfig<'standalone'>, logger);
    case 'frontend':
      return createFrontend(loaded as LoadedConfig<'frontend'>, logger);
    case 'datanode':
      return createDatanode(loaded as LoadedConfig<'datanode'>, logger);
    case 'metasrv':
      return createMetasrv(loaded as LoadedConfig<'metasrv'>, logger);
  }
}

/**
 * How long a shutdown may take before the process exits anyway: the HTTP server's wait for
 * requests in flight (`http.timeout` + 1 s, or 30 s without a timeout) and 10 s more to close
 * the data side.
 */
export function shutdownDeadline(httpTimeout: Millis): Millis {
  return (httpTimeout > 0 ? httpTimeout + 1000 : 30_000) + 10_000;
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * Runs a component until SIGINT/SIGTERM. `make` builds it instead of the default wiring of its
 * kind (tests: a standalone frontend over a datanode's regions).
 */
export async function startComponent(req: StartRequest, writeErr: (text: string) => void, make?: (loaded: LoadedConfig<ComponentName>, logger: Logger) => Component): Promise<number> {
  const name = req.component;
  let loaded: LoadedConfig<ComponentName>;
  try {
    loaded = loadConfig({
      component: name,
      configFile: req.configFile,
      envPrefix: req.envPrefix,
      env: process.env,
      flags: req.flags,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const lines = err.issues.length === 1 ? err.message : err.message.split('\n').map((l) => `  - ${l}`).join('\n');
    writeErr(`tsdb ${name}: invalid configuration${err.issues.length === 1 ? ': ' : ':\n'}${lines}\n`);
    return EXIT_USAGE;
  }

  const logging = loaded.config.logging;
  let handle: LoggerHandle;
  try {
    handle = await createLogger({
      level: logging.level,
      dir: logging.dir,
      appendStdout: logging.append_stdout,
      maxFiles: logging.max_log_files,
      base: { component: name },
    });
  } catch (err) {
    writeErr(`tsdb ${name}: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const log = handle.logger;
  const b = buildInfo();
  log.info(
    {
      version: b.version,
      commit: b.commit,
      config_file: loaded.configFile ?? null,
      env_prefix: loaded.envPrefix,
      log_dir: logging.dir,
    },
    `tsdb ${name} ${b.version} starting`,
  );
  for (const w of loaded.warnings) log.warn(w);
  let tracing: TracingHandle | undefined;
  if (logging.enable_otlp_tracing) {
    try {
      const nodeId = (loaded.config as { node_id?: number }).node_id;
      tracing = startTracing({ endpoint: logging.otlp_endpoint, ratio: logging.tracing_sample_ratio.default_ratio, serviceName: name, ...(nodeId !== undefined && { instanceId: String(nodeId) }), logger: log });
    } catch (err) {
      writeErr(`tsdb ${name}: ${(err as Error).message}\n`);
      await handle.close();
      return EXIT_USAGE;
    }
  }

  const fatal = (err: unknown): void => {
    log.fatal({ err }, `fatal error: ${(err as Error)?.message ?? String(err)}`);
    handle.flushSync();
    process.exit(EXIT_FAILURE);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);

  const component = make !== undefined ? make(loaded, handle.logger) : createComponent(loaded, handle);
  const stopping = waitForSignal();
  try {
    await component.start();
  } catch (err) {
    const message = (err as Error).message;
    log.error({ err }, `tsdb ${name} failed to start: ${message}`);
    writeErr(`tsdb ${name}: ${message}\n`);
    await component.stop().catch((e: unknown) => log.error({ err: e }, 'error while cleaning up'));
    await tracing?.shutdown();
    await handle.close();
    return EXIT_FAILURE;
  }
  const addresses = Object.fromEntries(
    component.servers().map((s) => [s.name.toLowerCase(), s.boundAddress() ? formatAddress(s.boundAddress()!) : null]),
  );
  log.info({ addresses }, `tsdb ${name} started`);

  const signal = await stopping;
  log.info({ signal }, `received ${signal}, shutting down`);
  // Whatever hangs (a statement DuckDB does not interrupt, a client that never finishes its
  // request), the process ends by this deadline; the WAL holds every acknowledged write.
  const deadlineMs = shutdownDeadline(loaded.config.http.timeout);
  const deadline = setTimeout(() => {
    log.error({ deadline_ms: deadlineMs }, `shutdown did not finish within ${formatDuration(deadlineMs)}; exiting now`);
    handle.flushSync();
    process.exit(EXIT_FAILURE);
  }, deadlineMs);
  deadline.unref();
  const force = (again: NodeJS.Signals) => {
    log.warn({ signal: again }, `received ${again} again, exiting without finishing the shutdown`);
    handle.flushSync();
    process.exit(EXIT_FAILURE);
  };
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  try {
    await component.stop();
  } catch (err) {
    log.error({ err }, `error while stopping: ${(err as Error).message}`);
    await tracing?.shutdown();
    await handle.close();
    return EXIT_FAILURE;
  }
  await tracing?.shutdown();
  log.info(`tsdb ${name} stopped`);
  await handle.close();
  return EXIT_OK;
}
