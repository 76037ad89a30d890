/**
 * Loads a component's configuration. Precedence, highest first (spec §2.3): command-line options,
 * the TOML file (`-c`), environment variables, defaults. Throws ConfigError listing every problem.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { envAssignments } from './env-source.js';
import { fileAssignments } from './file-source.js';
import { COMPONENT_FLAGS, DEFAULT_ENV_PREFIX, envVarName, type ComponentName } from './flags.js';
import {
  datanodeSchema,
  frontendSchema,
  metasrvSchema,
  standaloneSchema,
  type DatanodeOptions,
  type FrontendOptions,
  type MetasrvOptions,
  type StandaloneOptions,
} from './options.js';
import { ConfigError, pathKey, pathText, resolveConfig, type Assignment, type PathSegment } from './resolve.js';
import { sanitize, type AnyOptions } from './sanitize.js';
import type { Section, Source, SystemInfo } from './schema.js';

export const SCHEMAS = {
  standalone: standaloneSchema,
  frontend: frontendSchema,
  datanode: datanodeSchema,
  metasrv: metasrvSchema,
} as const satisfies Record<ComponentName, Section>;

export interface OptionsByComponent {
  standalone: StandaloneOptions;
  frontend: FrontendOptions;
  datanode: DatanodeOptions;
  metasrv: MetasrvOptions;
}

export interface LoadRequest<C extends ComponentName> {
  readonly component: C;
  /** `-c/--config-file` */
  readonly configFile?: string;
  /** `--env-prefix`; the component's default prefix when unset. */
  readonly envPrefix?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Command-line options, already turned into assignments. */
  readonly flags?: readonly Assignment[];
  readonly system?: SystemInfo;
}

export interface LoadedConfig<C extends ComponentName> {
  readonly component: C;
  readonly config: OptionsByComponent[C];
  /** Where each explicitly set option came from (keys: dotted paths); absent = default. */
  readonly sources: ReadonlyMap<string, Source>;
  /** Values that were fixed, e.g. a reject size below the write buffer size. */
  readonly warnings: readonly string[];
  readonly configFile?: string;
  readonly envPrefix: string;
}

export function systemInfo(): SystemInfo {
  return { totalMemory: totalmem(), cpus: availableParallelism() };
}

export function loadConfig<C extends ComponentName>(req: LoadRequest<C>): LoadedConfig<C> {
  const component = req.component;
  const envPrefix = req.envPrefix ?? DEFAULT_ENV_PREFIX[component];
  const system = req.system ?? systemInfo();
  const assignments: Assignment[] = [...envAssignments(req.env ?? {}, envPrefix)];
  if (req.configFile !== undefined) assignments.push(...readConfigFile(req.configFile));
  assignments.push(...(req.flags ?? []));

  const schema: Section = SCHEMAS[component];
  const resolved = resolveConfig(schema, assignments, {
    system,
    missingHint: (path) => missingHint(component, envPrefix, path),
    otherSchemas: (Object.keys(SCHEMAS) as ComponentName[])
      .filter((name) => name !== component)
      .map((name) => [name, SCHEMAS[name]] as const),
  });
  const { issues, warnings } = sanitize(component, resolved as { config: AnyOptions; sources: ReadonlyMap<string, Source> }, system);
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    component,
    config: resolved.config as OptionsByComponent[C],
    sources: resolved.sources,
    warnings,
    configFile: req.configFile,
    envPrefix,
  };
}

function readConfigFile(file: string): Assignment[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    throw new ConfigError([{ path: '', message: `cannot read config file ${file}: ${why}` }]);
  }
  return fileAssignments(text, file);
}

function missingHint(component: ComponentName, envPrefix: string, path: readonly PathSegment[]): string {
  const key = pathKey(path);
  const flag = COMPONENT_FLAGS[component].find((f) => f.paths.some((p) => pathKey(p) === key));
  const ways = [
    ...(flag ? [flag.long] : []),
    `"${pathText(path)}" in the config file`,
    `the environment variable ${envVarName(envPrefix, path)}`,
  ];
  return `; set it with ${ways.slice(0, -1).join(', ')} or ${ways.at(-1)}`;
}
