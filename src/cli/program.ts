/**
 * The `tsdb` command line: `tsdb [options] <standalone|frontend|datanode|metasrv> start [options]`.
 * Options and their help come from config/flags.ts and the schema's documentation and defaults.
 */
import { Command, Option } from 'commander';
import { versionText } from '../common/build-info.js';
import { SCHEMAS } from '../config/load.js';
import {
  COMPONENT_FLAGS,
  DEFAULT_ENV_PREFIX,
  GLOBAL_FLAGS,
  type ComponentName,
  type FlagSpec,
} from '../config/flags.js';
import { locate, pathText, type Assignment } from '../config/resolve.js';
import type { Field } from '../config/schema.js';
import type { TransferOptions } from './data-transfer.js';

export const COMPONENT_NAMES: readonly ComponentName[] = ['standalone', 'frontend', 'datanode', 'metasrv'];

const COMPONENT_DOCS: Record<ComponentName, string> = {
  standalone: 'a frontend and a datanode in one process',
  frontend: 'protocol servers and query planning of a distributed deployment',
  datanode: 'hosts regions and stores data in a distributed deployment',
  metasrv: 'cluster metadata, region placement and failover',
};

/** What `tsdb <component> start` was asked to do. */
export interface StartRequest {
  readonly component: ComponentName;
  readonly configFile?: string;
  readonly envPrefix?: string;
  /** Command-line options as configuration assignments (highest precedence). */
  readonly flags: Assignment[];
}

export interface ProgramIo {
  writeOut(text: string): void;
  writeErr(text: string): void;
  onStart(request: StartRequest): void;
  /** `tsdb cli export|import`: what to transfer. */
  onTransfer?(kind: 'export' | 'import', options: TransferOptions): void;
}

/** `--http-addr <addr>  HTTP server address (ip:port). (default: 127.0.0.1:4000; config: http.addr)` */
function describeFlag(component: ComponentName | undefined, spec: FlagSpec): string {
  const path = spec.paths[0]!;
  const schema = SCHEMAS[component ?? 'standalone'];
  const found = locate(schema, path);
  const field = found.ok && found.node.node === 'field' ? (found.node as Field<unknown>) : undefined;
  const doc = spec.description ?? field?.doc ?? '';
  const keys = spec.paths.map(pathText).join(', ');
  let dflt = '';
  if (field?.default !== undefined) {
    const v = field.format(field.default);
    const text = Array.isArray(v) ? v.join(',') : String(v);
    dflt = `default: ${text === '' ? 'none' : text}; `;
  } else if (field?.computed !== undefined) {
    dflt = `default: ${field.computed.doc}; `;
  }
  const also = spec.aliases?.length ? `; also ${spec.aliases.join(', ')}` : '';
  return `${doc} (${dflt}config: ${keys}${also})`;
}

function flagOption(component: ComponentName | undefined, spec: FlagSpec, long = spec.long, hidden = false): Option {
  const opt = new Option(`${long} ${spec.arg}`, describeFlag(component, spec));
  if (hidden) opt.hideHelp();
  return opt;
}

/** Turns parsed option values into assignments, with the flag as their source. */
function toAssignments(bound: ReadonlyArray<readonly [Option, FlagSpec]>, values: Record<string, unknown>): Assignment[] {
  const out: Assignment[] = [];
  for (const [opt, spec] of bound) {
    const v = values[opt.attributeName()];
    if (v === undefined) continue;
    let text = Array.isArray(v) ? v.join(',') : v === true ? 'true' : String(v);
    text = spec.toText?.(text) ?? text;
    for (const path of spec.paths) {
      out.push({ path, raw: text, info: { textual: true }, source: { kind: 'flag', flag: opt.long ?? spec.long } });
    }
  }
  return out;
}

export function buildProgram(io: ProgramIo): Command {
  const program = new Command('tsdb')
    .description('tsdb: a time-series database server (SQL, PromQL; InfluxDB, Prometheus, OpenTSDB, MySQL and PostgreSQL protocols)')
    .usage('[options] <standalone|frontend|datanode|metasrv> start [options]')
    .version(versionText(), '-V, --version', 'print the version, git commit and build date')
    .helpOption('-h, --help', 'print this help')
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr })
    .showHelpAfterError()
    .exitOverride();
  const globals = GLOBAL_FLAGS.map((spec) => [flagOption(undefined, spec), spec] as const);
  for (const [opt] of globals) program.addOption(opt);

  for (const component of COMPONENT_NAMES) {
    const group = program
      .command(component)
      .description(COMPONENT_DOCS[component])
      .usage('start [options]')
      .helpCommand(false);
    const start = group.command('start').description(`start a ${component}: ${COMPONENT_DOCS[component]}`);
    start.option('-c, --config-file <file>', 'TOML configuration file (overrides environment variables; command-line options override it)');
    start.option(
      '--env-prefix <prefix>',
      `prefix of the environment variables read as options: <PREFIX>__<SECTION>__<KEY> (default: ${DEFAULT_ENV_PREFIX[component]})`,
    );
    const bound: Array<readonly [Option, FlagSpec]> = [];
    for (const spec of COMPONENT_FLAGS[component]) {
      const opt = flagOption(component, spec);
      start.addOption(opt);
      bound.push([opt, spec]);
      for (const alias of spec.aliases ?? []) {
        const aliasOpt = flagOption(component, spec, alias, true);
        start.addOption(aliasOpt);
        bound.push([aliasOpt, spec]);
      }
    }
    start.action((_opts, cmd: Command) => {
      const values = cmd.optsWithGlobals() as Record<string, unknown>;
      io.onStart({
        component,
        configFile: values['configFile'] as string | undefined,
        envPrefix: values['envPrefix'] as string | undefined,
        flags: [...toAssignments(globals, values), ...toAssignments(bound, values)],
      });
    });
  }
  addCliCommands(program, io);
  return program;
}

/** `tsdb cli export|import`: backup and restore through a running server (README "Export, import, backup and restore"). */
function addCliCommands(program: Command, io: ProgramIo): void {
  const cli = program.command('cli').description('tools that drive a running server').usage('<export|import> [options]').helpCommand(false);
  const collect = (v: string, prev: string[]) => [...prev, v];
  for (const kind of ['export', 'import'] as const) {
    const dirFlag = kind === 'export' ? '--output-dir <dir>' : '--input-dir <dir>';
    const cmd = cli
      .command(kind)
      .description(kind === 'export' ? 'export databases (schema and data) with COPY, into a directory of the server\'s copy directory or on object storage' : 'import databases exported by `tsdb cli export` (tables created when missing)')
      .requiredOption('--addr <addr>', 'HTTP address of the server (host:port or URL)')
      .requiredOption(dirFlag, 'directory on the server: a path in its [copy] dir, or s3://bucket/path with --connection; one sub-directory per database')
      .option('--database <names>', kind === 'export' ? 'databases to export, comma-separated (default: all but the system ones)' : 'databases to import, comma-separated (required)')
      .option('--format <format>', 'parquet, csv or json', 'parquet')
      .option('--start-time <time>', 'only rows at or after this time (time index)')
      .option('--end-time <time>', 'only rows before this time (time index)')
      .option('--auth-basic <user:password>', 'basic authentication')
      .option('--timeout <duration>', 'deadline of each statement (x-tsdb-timeout), 0 for none', '0')
      .option('--connection <key=value>', 'a key of the CONNECTION of an object storage location (repeatable), e.g. access_key_id=…', collect, [] as string[]);
    cmd.action((values: Record<string, unknown>) => {
      const v = (k: string) => values[k] as string | undefined;
      io.onTransfer?.(kind, {
        addr: v('addr')!,
        dir: (kind === 'export' ? v('outputDir') : v('inputDir'))!,
        format: v('format')!,
        connection: values['connection'] as string[],
        ...(v('database') !== undefined && { database: v('database')! }),
        ...(v('startTime') !== undefined && { startTime: v('startTime')! }),
        ...(v('endTime') !== undefined && { endTime: v('endTime')! }),
        ...(v('authBasic') !== undefined && { authBasic: v('authBasic')! }),
        ...(v('timeout') !== undefined && { timeout: v('timeout')! }),
      });
    });
  }
}
