/**
 * Every option of the four components (spec §2.4–2.13, plus the reference's `user_provider`,
 * `default_timezone`, `tls.ca_cert_path` and `tls.watch`), with its default and meaning.
 * Keys mirror the TOML keys; the option types are inferred from these schemas.
 */
import { join } from 'node:path';
import { GIB, MIB } from '../common/size/size.js';
import { stringList,
  address,
  addressList,
  bindAddress,
  boolean,
  duration,
  float,
  integer,
  memorySize,
  oneOf,
  size,
  string,
  stringMap,
} from './fields.js';
import {
  engineList,
  MissingOption,
  optional,
  section,
  tableArray,
  type Infer,
  type ResolveContext,
} from './schema.js';
import { MASK, maskUrlPassword, maskUserProvider } from './secrets.js';

const SECRET = (): string => MASK;

// ---------------------------------------------------------------------------------------------
// Protocol servers (frontend, standalone; the HTTP server also on datanode and metasrv)

const httpCommon = {
  addr: bindAddress({ doc: 'HTTP server address (ip:port).', default: '127.0.0.1:4000' }),
  timeout: duration({
    doc: 'HTTP request timeout; a request still running after it is answered 408 and its SQL statement stops. The `x-tsdb-timeout` header of a request replaces it. `0s` disables it.',
    default: 30_000,
  }),
  body_limit: size({
    doc: 'Maximum HTTP request body size; a larger body is rejected with 413 before it is read. `0` disables the limit.',
    default: 64 * MIB,
  }),
};

/** The HTTP server of a datanode or metasrv: health, status and configuration endpoints. */
const httpBasic = section('HTTP server.', httpCommon);

/** The HTTP server of a frontend or standalone: every HTTP API. */
const httpFull = section('HTTP server.', {
  ...httpCommon,
  is_strict_mode: boolean({
    doc: 'Strict verification of protocol payloads (e.g. UTF-8 of Prometheus labels); slightly slower.',
    default: false,
  }),
  disable_dashboard: boolean({ doc: 'Do not serve the dashboard.', default: false }),
});

const grpc = section('gRPC server.', {
  addr: bindAddress({ doc: 'gRPC server address (ip:port).', default: '127.0.0.1:4001' }),
  runtime_size: integer({ doc: 'Number of gRPC server worker threads.', default: 8, min: 1 }),
});

export const TLS_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

function tls(protocol: string) {
  return section(`TLS of the ${protocol} server.`, {
    mode: oneOf(TLS_MODES, {
      doc: 'TLS mode: `disable`, `prefer` (TLS when the client asks), `require` (TLS only), `verify-ca`, `verify-full` (also verify client certificates against `ca_cert_path`).',
      default: 'disable',
      spellings: { verify_ca: 'verify-ca', verify_full: 'verify-full' },
    }),
    cert_path: string({ doc: 'Path of the server certificate (PEM); required unless mode is `disable`.', default: '' }),
    key_path: string({ doc: 'Path of the server private key (PEM); required unless mode is `disable`.', default: '' }),
    ca_cert_path: string({ doc: 'Path of the CA certificate (PEM) that client certificates are verified against.', default: '' }),
    watch: boolean({ doc: 'Reload the certificate and key when their files change.', default: false }),
  });
}

const mysql = section('MySQL protocol server.', {
  enable: boolean({ doc: 'Enable the MySQL protocol.', default: true }),
  addr: bindAddress({ doc: 'MySQL server address (ip:port); `add` is accepted too.', default: '127.0.0.1:4002', aliases: ['add'] }),
  runtime_size: integer({ doc: 'Worker threads of the MySQL server in GreptimeDB; accepted and checked, but tsdb serves every connection on its event loop and runs queries on DuckDB threads (README: runtime_size).', default: 2, min: 1 }),
  tls: tls('MySQL'),
});

const postgres = section('PostgreSQL protocol server.', {
  enable: boolean({ doc: 'Enable the PostgreSQL protocol.', default: true }),
  addr: bindAddress({ doc: 'PostgreSQL server address (ip:port).', default: '127.0.0.1:4003' }),
  runtime_size: integer({ doc: 'Worker threads of the PostgreSQL server in GreptimeDB; accepted and checked, but tsdb serves every connection on its event loop and runs queries on DuckDB threads (README: runtime_size).', default: 2, min: 1 }),
  tls: tls('PostgreSQL'),
});

const opentsdb = section('OpenTSDB protocol, in the HTTP API.', {
  enable: boolean({ doc: 'Enable the OpenTSDB protocol in the HTTP API.', default: true }),
});

const influxdb = section('InfluxDB line protocol, in the HTTP API.', {
  enable: boolean({ doc: 'Enable the InfluxDB protocol in the HTTP API.', default: true }),
});

const promStore = section('Prometheus remote write and read, in the HTTP API.', {
  enable: boolean({ doc: 'Enable Prometheus remote write and read in the HTTP API.', default: true }),
  with_metric_engine: boolean({ doc: 'Store Prometheus remote writes with the metric engine.', default: true }),
});

// ---------------------------------------------------------------------------------------------
// Storage (datanode, standalone)

export const STORAGE_TYPES = ['File', 'S3', 'Oss', 'Azblob', 'Gcs'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];
export type ObjectStorageType = Exclude<StorageType, 'File'>;

/** Which storage-type keys belong to which storage types, and which of them are required. */
export const STORAGE_KEYS: Record<
  ObjectStorageType,
  { readonly keys: readonly string[]; readonly required: readonly string[] }
> = {
  S3: {
    keys: ['bucket', 'root', 'endpoint', 'region', 'access_key_id', 'secret_access_key', 'cache_path', 'cache_capacity'],
    required: ['bucket'],
  },
  Oss: {
    keys: ['bucket', 'root', 'endpoint', 'access_key_id', 'secret_access_key', 'cache_path', 'cache_capacity'],
    required: ['bucket', 'endpoint'],
  },
  Azblob: {
    keys: ['container', 'root', 'endpoint', 'account_name', 'account_key', 'sas_token', 'cache_path', 'cache_capacity'],
    required: ['container'],
  },
  Gcs: {
    keys: ['bucket', 'root', 'scope', 'credential_path', 'endpoint', 'cache_path', 'cache_capacity'],
    required: ['bucket'],
  },
};

function isObjectStorage(type: unknown): boolean {
  return type !== undefined && type !== 'File';
}

/** The keys of a storage type section: used by `[storage]` and each `[[storage.providers]]`. */
function storageTypeFields() {
  return {
    bucket: optional(string({ doc: 'S3, Oss, Gcs: bucket name.', example: 'my-bucket' })),
    root: optional(string({ doc: 'S3, Oss, Azblob, Gcs: root path in the bucket or container.', example: 'data' })),
    endpoint: optional(string({ doc: 'S3, Oss, Azblob, Gcs: API endpoint URL.', example: 'https://s3.amazonaws.com' })),
    region: optional(string({ doc: 'S3: region.', example: 'us-west-2' })),
    access_key_id: optional(string({ doc: 'S3, Oss: access key id.', example: 'AKIA…' })),
    secret_access_key: optional(string({ doc: 'S3, Oss: secret access key.', example: '…', mask: SECRET })),
    container: optional(string({ doc: 'Azblob: container name.', example: 'my-container' })),
    account_name: optional(string({ doc: 'Azblob: account name.', example: 'myaccount' })),
    account_key: optional(string({ doc: 'Azblob: account key.', example: '…', mask: SECRET })),
    sas_token: optional(string({ doc: 'Azblob: shared access signature.', example: '…', mask: SECRET })),
    scope: optional(string({ doc: 'Gcs: service scope.', example: 'https://www.googleapis.com/auth/devstorage.read_write' })),
    credential_path: optional(string({ doc: 'Gcs: path of the service account credentials.', example: '/etc/tsdb/gcs.json' })),
    cache_path: optional(string({ doc: 'Object storage: local directory of the file cache (each provider in a subdirectory named after it).', example: '/tmp/tsdb/object_cache' }), {
      doc: '{storage.data_home}/object_cache for object storage',
      resolve: (c: ResolveContext) =>
        isObjectStorage(c.parent['type']) ? join(c.root['storage'].data_home, 'object_cache') : undefined,
    }),
    cache_capacity: optional(size({ doc: 'Object storage: most bytes of files the provider keeps in its cache (least recently used go first; files in use stay).', example: '256MiB' }), {
      doc: '256MiB for object storage',
      resolve: (c: ResolveContext) => (isObjectStorage(c.parent['type']) ? 256 * MIB : undefined),
    }),
  };
}

const storageTypeDoc =
  'Storage type: `File` (local file system), `S3` (and S3-compatible), `Oss`, `Azblob`, `Gcs` (`Gsc` is accepted too).';

const storage = section('Storage of data files.', {
  data_home: string({ doc: 'Home directory of the data (and, with File storage, the data files).', default: '/tmp/tsdb' }),
  type: oneOf(STORAGE_TYPES, { doc: storageTypeDoc, default: 'File', spellings: { Gsc: 'Gcs' } }),
  ...storageTypeFields(),
  providers: tableArray(
    'More storages, each a `[[storage.providers]]` table; a table is put on one with the table option `storage = "<name>"`.',
    section('A storage provider.', {
      name: optional(string({ doc: 'Name that tables use to choose this provider; defaults to its type.', example: 'S3' })),
      type: oneOf(STORAGE_TYPES, { doc: storageTypeDoc, spellings: { Gsc: 'Gcs' }, example: 'S3' }),
      ...storageTypeFields(),
    }),
  ),
});

// ---------------------------------------------------------------------------------------------
// WAL (datanode, standalone)

const wal = section('Write-ahead log.', {
  dir: string({
    doc: 'WAL directory. Must be set when the storage type is not File.',
    emptyIsUnset: true,
    computed: {
      doc: '{storage.data_home}/wal with File storage; required otherwise',
      resolve: (c) => {
        const st = c.root['storage'];
        if (st.type !== 'File') throw new MissingOption(`required when storage.type is ${st.type} (the WAL is always on local disk)`);
        return join(st.data_home, 'wal');
      },
    },
  }),
  file_size: size({ doc: 'Maximum size of one WAL file.', default: 256 * MIB, min: 1 }),
  purge_threshold: size({
    doc: 'When the WAL grows beyond this, regions are flushed so that old files can be purged.',
    default: 4 * GIB,
    min: 1,
  }),
  purge_interval: duration({ doc: 'Interval between purges of WAL files whose entries are all flushed.', default: 10 * 60_000 }),
  read_batch_size: integer({ doc: 'Number of entries read at a time when the WAL is replayed.', default: 128, min: 1 }),
  sync_write: boolean({ doc: 'Call fsync on every WAL write before acknowledging it.', default: false }),
});

// ---------------------------------------------------------------------------------------------
// Region engine (datanode, standalone)

function memoryShare(doc: string, fraction: number, cap: number) {
  return {
    doc,
    resolve: (c: ResolveContext) => Math.min(Math.floor(c.system.totalMemory / fraction), cap),
  };
}

const mito = section('The mito region engine.', {
  num_workers: integer({ doc: 'Number of region workers.', default: 8, min: 1 }),
  manifest_checkpoint_distance: integer({
    doc: 'Number of manifest actions after which a new manifest checkpoint is written.',
    default: 10,
    min: 1,
  }),
  max_background_jobs: integer({ doc: 'Maximum number of flush and compaction jobs running at once.', default: 4, min: 1 }),
  auto_flush_interval: duration({ doc: 'A region that has not flushed for this long is flushed.', default: 3_600_000 }),
  global_write_buffer_size: size({
    doc: 'Memtable memory of all regions above which the largest regions are flushed.',
    computed: memoryShare('1/8 of OS memory, at most 1GiB', 8, GIB),
  }),
  global_write_buffer_reject_size: size({
    doc: 'Memtable memory above which writes are rejected until flushes free memory.',
    computed: {
      doc: '2 × global_write_buffer_size',
      resolve: (c) => 2 * (c.parent['global_write_buffer_size'] as number),
    },
  }),
  sst_meta_cache_size: size({
    doc: 'Cache of SST metadata; 0 disables it.',
    computed: memoryShare('1/32 of OS memory, at most 128MiB', 32, 128 * MIB),
  }),
  vector_cache_size: size({
    doc: 'Cache of vectors and arrays; 0 disables it.',
    computed: memoryShare('1/16 of OS memory, at most 512MiB', 16, 512 * MIB),
  }),
  page_cache_size: size({
    doc: 'Cache of pages of SST row groups; 0 disables it.',
    computed: memoryShare('1/16 of OS memory, at most 512MiB', 16, 512 * MIB),
  }),
  sst_write_buffer_size: size({ doc: 'Buffer for writing an SST (at least 5MiB).', default: 8 * MIB }),
  scan_parallelism: integer({
    doc: 'Parallelism of scans: 0 = a quarter of the CPU cores (at least 1), 1 = in the current thread, n = n.',
    default: 0,
    min: 0,
  }),
  inverted_index: section('Inverted index.', {
    create_on_flush: oneOf(['auto', 'disable'], { doc: 'Build the index on flush: `auto` or `disable`.', default: 'auto' }),
    create_on_compaction: oneOf(['auto', 'disable'], { doc: 'Build the index on compaction: `auto` or `disable`.', default: 'auto' }),
    apply_on_query: oneOf(['auto', 'disable'], { doc: 'Use the index in queries: `auto` or `disable`.', default: 'auto' }),
    mem_threshold_on_create: size({
      doc: 'Memory above which index creation sorts externally; "" or 0 sorts all in memory.',
      default: 64 * MIB,
      emptyIsZero: true,
    }),
    intermediate_path: string({
      doc: 'Directory of the external sort files.',
      emptyIsUnset: true,
      computed: { doc: '{storage.data_home}/index_intermediate', resolve: (c) => join(c.root['storage'].data_home, 'index_intermediate') },
    }),
  }),
  memtable: section('Memtables.', {
    type: oneOf(['time_series', 'partition_tree'], {
      doc: '`time_series`, or `partition_tree` (experimental: better write and memory efficiency for many series, slower reads).',
      default: 'time_series',
    }),
    index_max_keys_per_shard: integer({ doc: 'partition_tree: maximum keys in a shard.', default: 8192, min: 1 }),
    data_freeze_threshold: integer({ doc: 'partition_tree: maximum rows in the active write buffer of a shard.', default: 32768, min: 1 }),
    fork_dictionary_bytes: size({ doc: 'partition_tree: maximum dictionary bytes.', default: GIB }),
  }),
});

const regionEngine = engineList('Region engines, each a `[[region_engine]]` table; only `mito` has options.', { mito });

// ---------------------------------------------------------------------------------------------
// Meta client (datanode, frontend)

const metaClient = section('Connection to metasrv.', {
  metasrv_addrs: addressList({ doc: 'Addresses of the metasrv nodes.', default: ['127.0.0.1:3002'] }),
  timeout: duration({ doc: 'Timeout of metasrv operations.', default: 3000 }),
  connect_timeout: duration({ doc: 'Timeout of connecting to metasrv.', default: 1000 }),
  ddl_timeout: duration({ doc: 'Timeout of DDL execution.', default: 10_000 }),
  tcp_nodelay: boolean({ doc: 'Set TCP_NODELAY on metasrv connections.', default: true }),
});

// ---------------------------------------------------------------------------------------------
// Logging and metrics (all components)

export const LOG_LEVELS = ['info', 'debug', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function logging(dir: { default?: string; computed?: { doc: string; resolve(c: ResolveContext): string } }) {
  return section('Logging.', {
    dir: string({
      doc: 'Directory of the log files (rotated daily): `tsdb.<date>.<n>.log` and, for errors only, `tsdb-err.<date>.<n>.log`.',
      emptyIsUnset: true,
      ...dir,
    }),
    level: oneOf(LOG_LEVELS, { doc: 'Log level: `info`, `debug`, `warn` or `error`.', default: 'info' }),
    append_stdout: boolean({ doc: 'Also write logs to standard output.', default: true }),
    max_log_files: integer({ doc: 'Number of daily files kept of each log.', default: 30, min: 1 }),
    enable_otlp_tracing: boolean({ doc: 'Export traces with OTLP.', default: false }),
    otlp_endpoint: string({ doc: 'Target of the gRPC OTLP trace export.', default: 'localhost:4317' }),
    tracing_sample_ratio: section('Trace sampling.', {
      default_ratio: float({ doc: 'Share of traces sampled, from 0 to 1.', default: 1.0, min: 0, max: 1 }),
    }),
  });
}

const loggingUnderDataHome = logging({
  computed: { doc: '{storage.data_home}/logs', resolve: (c) => join(c.root['storage'].data_home, 'logs') },
});

function exportMetricsFields() {
  return {
    enable: boolean({ doc: 'Export the server\'s own metrics.', default: false }),
    write_interval: duration({ doc: 'Interval between exports (the first comes one interval after start; a remote write may take 4/5 of it, at most 30s).', default: 30_000 }),
  };
}

const remoteWrite = section('Export to a Prometheus remote-write receiver.', {
  url: string({ doc: 'URL of the receiver, e.g. `http://127.0.0.1:4000/v1/prometheus/write?db=metrics` (Prometheus remote write 1.0, snappy protobuf); every series carries `job="tsdb-<component>"` and `instance="<http address>"`.', default: '', mask: maskUrlPassword }),
  headers: stringMap({ doc: 'HTTP headers sent with each export, e.g. `{ Authorization = "Basic …" }`.', default: {}, mask: (h) => Object.fromEntries(Object.keys(h).map((k) => [k, MASK])) }),
});

/** Frontend and standalone: export into a database of this server, or to a remote receiver. */
const exportMetricsFull = section('Export of the server\'s own metrics.', {
  ...exportMetricsFields(),
  self_import: section('Export into a database of this server (frontend and standalone only).', {
    db: string({ doc: 'Database receiving the metrics; it must exist. `information_schema` (the default) is read-only, so it means the database `tsdb_metrics`, created at start if missing.', default: 'information_schema' }),
  }),
  remote_write: remoteWrite,
});

/** Datanode and metasrv: export to a remote receiver only. */
const exportMetricsRemote = section('Export of the server\'s own metrics.', {
  ...exportMetricsFields(),
  remote_write: remoteWrite,
});

/** Slow queries (frontend, standalone): GreptimeDB's `[slow_query]`, README "Slow queries". */
export const SLOW_QUERY_RECORD_TYPES = ['system_table', 'log'] as const;

function slowQuery(enable: boolean) {
  return section('Slow queries: statements (SQL, TQL, PromQL; every protocol) that run at least `threshold` are recorded with their text (INSERT values and secrets cut), duration, user, database and protocol (README "Slow queries").', {
    enable: boolean({ doc: 'Record slow queries.', default: enable }),
    record_type: oneOf(SLOW_QUERY_RECORD_TYPES, {
      doc: 'Where: `system_table` (rows of the table `tsdb_private.slow_queries`, created when needed, readable with SQL) or `log` (lines of `tsdb-slow-queries.<date>.<n>.log` in logging.dir, and a warning in the main log).',
      default: 'system_table',
    }),
    threshold: duration({ doc: 'A statement that runs at least this long is recorded; `0s` records every statement.', default: 30_000 }),
    sample_ratio: float({ doc: 'Share of the slow statements recorded, from 0 (none) to 1 (all).', default: 1.0, min: 0, max: 1 }),
    ttl: duration({ doc: 'How long rows of `tsdb_private.slow_queries` are kept (its `ttl` table option, set when the table is created); `0s` keeps them forever.', default: 90 * 86_400_000 }),
  });
}

/**
 * COPY TO/FROM and COPY DATABASE on local files (README "Export, import, backup and restore"): the
 * one directory they may touch, so that SQL never reaches other files of the machine.
 */
function copyOptions(dir: { default?: string; computed?: { doc: string; resolve(c: ResolveContext): string } }) {
  return section('COPY to and from local files (README "Export, import, backup and restore").', {
    dir: string({
      doc: 'The only local directory COPY reads and writes (created when needed): a relative path in a COPY statement is taken under it, an absolute one must lie in it; `..`, symbolic links leading out of it and other absolute paths are refused with "permission denied" (7006). Object storage locations (`s3://bucket/path` with CONNECTION) are not under it.',
      emptyIsUnset: true,
      ...dir,
    }),
    allow_object_storage: boolean({
      doc: 'Allow COPY to and from object storage URLs (`s3://…`, `oss://…`, `gs://…`, `azblob://…` with CONNECTION). Off by default: such a statement makes the server connect to the endpoint it names, so any user who may write could make the server reach hosts of its network.',
      default: false,
    }),
    object_storage: stringList({
      doc: 'The object storage locations COPY may use when `allow_object_storage` is off: URL prefixes such as `s3://backups/tsdb/` (a location must start with one; a prefix without a trailing `/` is taken as a directory). The statement still gives the CONNECTION (endpoint and credentials).',
      default: [],
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Top-level options

function mode(defaultMode: 'standalone' | 'distributed') {
  return oneOf(['standalone', 'distributed'], {
    doc: 'Deployment mode: `standalone` or `distributed`.',
    default: defaultMode,
  });
}

const defaultTimezone = optional(
  string({ doc: 'Default time zone of sessions (IANA name such as `Asia/Shanghai`, or an offset such as `+08:00`); UTC when unset.', example: 'UTC' }),
);

const userProvider = optional(
  string({
    doc: 'Enables authentication: `static_user_provider:cmd:<user>=<password>,…`, `static_user_provider:file:<path>` or `watch_file_user_provider:<path>`.',
    example: 'static_user_provider:file:/etc/tsdb/users',
    mask: maskUserProvider,
  }),
);

const query = section('Query execution (README: "Query budgets").', {
  parallelism: integer({
    doc: 'Threads of the DuckDB queries run in: 0 = a quarter of the CPU cores (at least 1).',
    default: 0,
    min: 0,
  }),
  memory_pool_size: memorySize({
    doc: 'Memory all running queries may hold together, a size or a percentage of the machine\'s memory; past it, sorts, joins, aggregates and windows spill to {storage.data_home}/tmp/duckdb and what cannot spill fails with "resources exhausted" (6000). Apart from the write buffer and from flushes and compactions. `0` = DuckDB\'s own limit (80% of memory).',
    default: { percent: 25 },
  }),
  max_spill_size: size({
    doc: 'Bytes queries may spill together to {storage.data_home}/tmp/duckdb/query; a query that needs more fails with "resources exhausted" (6000) instead of filling the disk. `0` = DuckDB\'s own limit (90% of the free disk space at start).',
    default: 8 * GIB,
  }),
  max_result_rows: integer({
    doc: 'Rows one result may have; a query returning more fails with "resources exhausted" (6000) once it passes the limit, before the rest is read. Also the most slots (groups × time slots) a RANGE query may fill. `0` = no limit.',
    default: 10_000_000,
    min: 0,
  }),
  max_result_bytes: size({
    doc: 'Bytes one result may take in the server\'s memory (an estimate: per row, per cell, and the length of strings); a larger result fails with "resources exhausted" (6000) once it passes the limit, before the rest is read. `0` = no limit.',
    default: 256 * MIB,
  }),
  timeout: duration({
    doc: 'Longest a statement may run on any protocol when its client sets no shorter limit (http.timeout or x-tsdb-timeout, MySQL max_execution_time, PostgreSQL statement_timeout); past it the statement stops with "deadline exceeded" (1008). Bounds what a MySQL or PostgreSQL session without a limit of its own can hold. `0s` = no limit.',
    default: 30 * 60_000,
  }),
});

/** What a frontend serves, in a standalone server too: sessions and the protocol servers. */
const frontendOptions = {
  max_concurrent_queries: integer({
    doc: 'Queries that may run at once (SELECT, SHOW, INSERT … SELECT, DELETE); more wait in a queue, in arrival order. `0` = no limit (GreptimeDB\'s default; not advised: each running query holds a libuv thread).',
    default: 8,
    min: 0,
  }),
  concurrent_query_limiter_timeout: duration({
    doc: 'How long a query may wait in the queue of max_concurrent_queries; past it the query fails with "rate limited" (6001, HTTP 429, retryable). `0s` = wait until the statement\'s own deadline.',
    default: 10_000,
  }),
  default_timezone: defaultTimezone,
  user_provider: userProvider,
  http: httpFull,
  grpc,
  mysql,
  postgres,
  opentsdb,
  influxdb,
  prom_store: promStore,
  query,
};

export const standaloneSchema = section('tsdb standalone: a frontend and a datanode in one process.', {
  mode: mode('standalone'),
  ...frontendOptions,
  storage,
  wal,
  region_engine: regionEngine,
  logging: loggingUnderDataHome,
  export_metrics: exportMetricsFull,
  slow_query: slowQuery(false),
  copy: copyOptions({ computed: { doc: '{storage.data_home}/copy', resolve: (c) => join(c.root['storage'].data_home, 'copy') } }),
});

export const frontendSchema = section('tsdb frontend: protocol servers and query planning of a distributed deployment.', {
  mode: mode('distributed'),
  ...frontendOptions,
  meta_client: metaClient,
  logging: logging({ default: '/tmp/tsdb/logs' }),
  export_metrics: exportMetricsFull,
  slow_query: slowQuery(true),
  copy: copyOptions({ default: '/tmp/tsdb/copy' }),
});

export const datanodeSchema = section('tsdb datanode: hosts regions and stores data.', {
  mode: mode('distributed'),
  node_id: integer({ doc: 'Datanode identifier, unique in the cluster (required).', min: 0 }),
  rpc_hostname: optional(string({ doc: 'Host name other nodes use to reach this one.', example: '10.0.0.5' })),
  rpc_addr: bindAddress({ doc: 'gRPC server address (ip:port).', default: '127.0.0.1:3001' }),
  rpc_runtime_size: integer({ doc: 'Number of gRPC server worker threads.', default: 8, min: 1 }),
  http: httpBasic,
  meta_client: metaClient,
  storage,
  wal,
  region_engine: regionEngine,
  logging: loggingUnderDataHome,
  export_metrics: exportMetricsRemote,
});

export const SELECTORS = ['lease_based', 'load_based', 'round_robin'] as const;

export const metasrvSchema = section('tsdb metasrv: cluster metadata, region placement and failover.', {
  data_home: string({ doc: 'Working home directory.', default: '/tmp/metasrv/' }),
  bind_addr: bindAddress({ doc: 'Address metasrv binds (ip:port).', default: '127.0.0.1:3002' }),
  server_addr: address({ doc: 'Address frontends and datanodes use to reach this metasrv.', default: '127.0.0.1:3002' }),
  store_addr: addressList({
    doc: 'Addresses of the etcd key-value store, comma separated (`store_addrs` is accepted too).',
    default: ['127.0.0.1:2379'],
    aliases: ['store_addrs'],
    spaceSeparated: true,
  }),
  selector: oneOf(SELECTORS, {
    doc: 'How datanodes are chosen for new regions: `lease_based` (random), `load_based` (fewer regions, likelier) or `round_robin` (`LeaseBased`, `LoadBased`, `RoundRobin` accepted).',
    default: 'lease_based',
    spellings: { LeaseBased: 'lease_based', LoadBased: 'load_based', RoundRobin: 'round_robin' },
  }),
  use_memory_store: boolean({ doc: 'Keep metadata in memory instead of etcd (for tests only).', default: false }),
  enable_region_failover: boolean({
    doc: 'Move the regions of a failed datanode to live ones (their data must be on object storage all datanodes share). Refused unless allow_region_failover_on_local_wal is set too: rows a lost datanode acknowledged but had not flushed are only in its local WAL and are lost when its regions move.',
    default: false,
  }),
  allow_region_failover_on_local_wal: boolean({
    doc: 'Accept that region failover loses the rows a lost datanode had acknowledged but not yet flushed (they are only in its local WAL).',
    default: false,
  }),
  http: httpBasic,
  logging: logging({
    computed: { doc: '{data_home}/logs', resolve: (c) => join(c.root['data_home'], 'logs') },
  }),
  export_metrics: exportMetricsRemote,
});

export type StandaloneOptions = Infer<typeof standaloneSchema>;
export type FrontendOptions = Infer<typeof frontendSchema>;
export type DatanodeOptions = Infer<typeof datanodeSchema>;
export type MetasrvOptions = Infer<typeof metasrvSchema>;
export type StorageOptions = StandaloneOptions['storage'];
export type WalOptions = StandaloneOptions['wal'];
export type MitoOptions = StandaloneOptions['region_engine']['mito'];
export type HttpOptions = DatanodeOptions['http'];
export type LoggingOptions = StandaloneOptions['logging'];
export type TlsOptions = StandaloneOptions['mysql']['tls'];
export type SlowQueryOptions = StandaloneOptions['slow_query'];
export type CopyOptions = StandaloneOptions['copy'];
