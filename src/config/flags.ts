/**
 * The command-line options of `tsdb <component> start` (spec §2.14) and the options they set.
 * Flags are applied last, over the file and the environment.
 */
import type { PathSegment } from './resolve.js';

export type ComponentName = 'standalone' | 'frontend' | 'datanode' | 'metasrv';

export interface FlagSpec {
  /** `--http-addr` */
  readonly long: string;
  /** Commander's argument form: `<addr>`, `[bool]` (bare flag = true), `<addrs...>`. */
  readonly arg: string;
  /** The options it sets (the TLS flags set MySQL's and PostgreSQL's). */
  readonly paths: readonly (readonly PathSegment[])[];
  /** Help text; by default the first option's documentation. */
  readonly description?: string;
  /** Other spellings accepted. */
  readonly aliases?: readonly string[];
  /** Turns the flag's text into the option's text form (e.g. seconds → duration). */
  readonly toText?: (value: string) => string;
}

const httpAddr: FlagSpec = { long: '--http-addr', arg: '<addr>', paths: [['http', 'addr']] };
const httpTimeout: FlagSpec = {
  long: '--http-timeout',
  arg: '<seconds>',
  paths: [['http', 'timeout']],
  description: 'HTTP request timeout in seconds (a duration such as 30s is accepted too); 0 disables it.',
  toText: (v) => (/^\s*\d+\s*$/.test(v) ? `${v.trim()}s` : v),
};
const rpcAddrFrontend: FlagSpec = { long: '--rpc-addr', arg: '<addr>', paths: [['grpc', 'addr']] };
const mysqlAddr: FlagSpec = { long: '--mysql-addr', arg: '<addr>', paths: [['mysql', 'addr']] };
const postgresAddr: FlagSpec = { long: '--postgres-addr', arg: '<addr>', paths: [['postgres', 'addr']] };
const influxdbEnable: FlagSpec = { long: '--influxdb-enable', arg: '[bool]', paths: [['influxdb', 'enable']] };
const userProvider: FlagSpec = { long: '--user-provider', arg: '<provider>', paths: [['user_provider']] };
const tlsFlags: FlagSpec[] = [
  {
    long: '--tls-mode',
    arg: '<mode>',
    paths: [['mysql', 'tls', 'mode'], ['postgres', 'tls', 'mode']],
    description: 'TLS mode of the MySQL and PostgreSQL servers: disable, prefer, require, verify-ca, verify-full.',
  },
  {
    long: '--tls-cert-path',
    arg: '<path>',
    paths: [['mysql', 'tls', 'cert_path'], ['postgres', 'tls', 'cert_path']],
    description: 'Server certificate (PEM) of the MySQL and PostgreSQL servers.',
  },
  {
    long: '--tls-key-path',
    arg: '<path>',
    paths: [['mysql', 'tls', 'key_path'], ['postgres', 'tls', 'key_path']],
    description: 'Server private key (PEM) of the MySQL and PostgreSQL servers.',
  },
];
/** The spec spells it `--metasrv-addr` on a frontend and `--metasrv-addrs` on a datanode; both accept both. */
function metasrvAddrs(long: string, alias: string): FlagSpec {
  return {
    long,
    arg: '<addrs>',
    paths: [['meta_client', 'metasrv_addrs']],
    description: 'Addresses of the metasrv nodes, comma separated.',
    aliases: [alias],
  };
}
const dataHome: FlagSpec = { long: '--data-home', arg: '<dir>', paths: [['storage', 'data_home']] };
const walDir: FlagSpec = { long: '--wal-dir', arg: '<dir>', paths: [['wal', 'dir']] };

export const COMPONENT_FLAGS: Record<ComponentName, readonly FlagSpec[]> = {
  standalone: [
    httpAddr,
    httpTimeout,
    rpcAddrFrontend,
    mysqlAddr,
    postgresAddr,
    influxdbEnable,
    userProvider,
    ...tlsFlags,
    dataHome,
    walDir,
  ],
  frontend: [
    httpAddr,
    httpTimeout,
    rpcAddrFrontend,
    mysqlAddr,
    postgresAddr,
    influxdbEnable,
    metasrvAddrs('--metasrv-addr', '--metasrv-addrs'),
    { long: '--disable-dashboard', arg: '[bool]', paths: [['http', 'disable_dashboard']] },
    userProvider,
    ...tlsFlags,
  ],
  datanode: [
    dataHome,
    httpAddr,
    httpTimeout,
    metasrvAddrs('--metasrv-addrs', '--metasrv-addr'),
    { long: '--node-id', arg: '<id>', paths: [['node_id']] },
    { long: '--rpc-addr', arg: '<addr>', paths: [['rpc_addr']] },
    { long: '--rpc-hostname', arg: '<host>', paths: [['rpc_hostname']] },
    walDir,
  ],
  metasrv: [
    { long: '--bind-addr', arg: '<addr>', paths: [['bind_addr']] },
    { long: '--server-addr', arg: '<addr>', paths: [['server_addr']] },
    {
      long: '--store-addrs',
      arg: '<addrs...>',
      paths: [['store_addr']],
      description: 'Addresses of the etcd key-value store, separated by commas or spaces.',
    },
    { long: '--selector', arg: '<selector>', paths: [['selector']] },
    { long: '--use-memory-store', arg: '[bool]', paths: [['use_memory_store']] },
    { long: '--enable-region-failover', arg: '[bool]', paths: [['enable_region_failover']] },
    httpAddr,
    httpTimeout,
  ],
};

/** Global options, accepted before or after the subcommand. */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  {
    long: '--log-dir',
    arg: '<dir>',
    paths: [['logging', 'dir']],
    description: 'Directory of the log files, overriding logging.dir (default: {data_home}/logs).',
  },
  {
    long: '--log-level',
    arg: '<level>',
    paths: [['logging', 'level']],
    description: 'Log level: info, debug, warn or error, overriding logging.level.',
  },
];

export const DEFAULT_ENV_PREFIX: Record<ComponentName, string> = {
  standalone: 'TSDB_STANDALONE',
  frontend: 'TSDB_FRONTEND',
  datanode: 'TSDB_DATANODE',
  metasrv: 'TSDB_METASRV',
};

/** The environment variable that sets an option. */
export function envVarName(prefix: string, path: readonly PathSegment[]): string {
  return [prefix.toUpperCase(), ...path.map((s) => String(s).toUpperCase())].join('__');
}
