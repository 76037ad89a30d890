/**
 * Servers of the benchmark, each started by this process on 127.0.0.1 with a free port and its own
 * temporary data directory, and stopped by its PID: tsdb (`node bin/tsdb standalone start`),
 * InfluxDB 1.x (`influxd -config <generated file>`) and VictoriaMetrics (ClickHouse and PostgreSQL
 * have their own files, and use `launch`/`stopper`/`waitReady` from here). Also: installing the
 * Debian packages when the binaries are missing, versions, waiting for a server (and its child
 * processes) to go idle (CPU time from /proc), RSS and data-directory size.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The servers started here (bench/ingest runs these three). */
export type SystemName = 'tsdb' | 'influxdb' | 'victoriametrics';
/** Every system bench/tsbs runs. */
export type TsbsSystem = SystemName | 'tsdb-cluster' | 'clickhouse' | 'postgresql';

export interface Server {
  readonly system: SystemName;
  readonly pid: number;
  readonly baseUrl: string;
  /** Directories holding the stored data, by label (e.g. data, wal), for the on-disk size. */
  readonly dataDirs: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly version: string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Kills whatever this process started if it exits early (only our own children, by PID). */
export function installExitCleanup(): void {
  const killAll = (): void => {
    for (const child of running) if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

export function log(msg: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function which(bin: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  const out = r.stdout.trim();
  return r.status === 0 && out !== '' ? out : null;
}

/** The Debian package of each peer and the binary that shows it is installed (a name on PATH or an absolute path). */
const PACKAGES: Partial<Record<TsbsSystem, { readonly pkg: string; readonly bin: string }>> = {
  influxdb: { pkg: 'influxdb', bin: 'influxd' },
  victoriametrics: { pkg: 'victoria-metrics', bin: 'victoria-metrics' },
  clickhouse: { pkg: 'clickhouse-server', bin: '/usr/sbin/clickhouse-server' },
  postgresql: { pkg: 'postgresql-15', bin: '/usr/lib/postgresql/15/bin/postgres' },
};

function installed(bin: string): boolean {
  return bin.startsWith('/') ? existsSync(bin) : which(bin) !== null;
}

/** Installs the Debian packages of `systems` whose binaries are missing (apt-get update first only if the install fails). */
export function ensurePackages(systems: readonly TsbsSystem[] = ['influxdb', 'victoriametrics']): void {
  const wanted = systems.flatMap((s) => PACKAGES[s] ?? []);
  const missing = wanted.filter((p) => !installed(p.bin)).map((p) => p.pkg);
  if (missing.length === 0) return;
  log(`installing ${missing.join(' ')} with apt-get`);
  const install = (): number | null =>
    spawnSync('apt-get', ['install', '-y', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status;
  if (install() !== 0) {
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (install() !== 0) throw new Error(`apt-get install -y ${missing.join(' ')} failed`);
  }
  for (const p of wanted) if (!installed(p.bin)) throw new Error(`${p.bin} still missing after apt-get install ${p.pkg}`);
}

function dpkgVersion(pkg: string): string {
  const r = spawnSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitReady(url: string, child: ChildProcess, logFile: string, okStatus: (s: number) => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready; log: ${logFile}\n${tail(logFile)}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (okStatus(res.status)) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`server not ready at ${url} after ${timeoutMs} ms; log: ${logFile}`);
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function launch(cmd: string, args: string[], logFile: string, env?: Readonly<Record<string, string>>): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', fd, fd], ...(env === undefined ? {} : { env: { ...process.env, ...env } }) });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 20_000);
    await exited;
    clearTimeout(timer);
  };
}

/** How to start tsdb beyond the defaults (all optional). */
export interface TsdbStartOptions {
  /** Extra environment variables, e.g. `TSDB_STANDALONE__STORAGE__TYPE`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra command-line arguments after `standalone start …`. */
  readonly args?: readonly string[];
  /** `--log-level` (default warn). */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** File taking the server's standard output and error (default `<dataDir>/server.log`; appended to). */
  readonly logFile?: string;
  /** Node options before `bin/tsdb`, e.g. `--cpu-prof --cpu-prof-dir=<dir>`. */
  readonly nodeArgs?: readonly string[];
}

/** A started tsdb; `grpcAddr` is its gRPC listener (`--rpc-addr`, `grpc.addr`) as `127.0.0.1:<port>`. */
export interface TsdbServer extends Server {
  readonly grpcAddr: string;
}

export async function startTsdb(repoRoot: string, dataDir: string, options: TsdbStartOptions = {}): Promise<TsdbServer> {
  mkdirSync(dataDir, { recursive: true });
  const [http, rpc, mysql, pg] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const logFile = options.logFile ?? join(dataDir, 'server.log');
  const bin = join(repoRoot, 'bin', 'tsdb');
  const name = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? 'tsdb';
  const head = spawnSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  const version = head.status === 0 ? `${name} (work tree at ${head.stdout.trim()})` : name;
  const child = launch(process.execPath, [
    ...(options.nodeArgs ?? []), bin, 'standalone', 'start',
    '--http-addr', `127.0.0.1:${http}`, '--rpc-addr', `127.0.0.1:${rpc}`, '--mysql-addr', `127.0.0.1:${mysql}`, '--postgres-addr', `127.0.0.1:${pg}`,
    '--http-timeout', '600s', '--data-home', join(dataDir, 'home'), '--log-dir', join(dataDir, 'logs'), '--log-level', options.logLevel ?? 'warn',
    ...(options.args ?? []),
  ], logFile, options.env);
  const baseUrl = `http://127.0.0.1:${http}`;
  await waitReady(`${baseUrl}/health`, child, logFile, (s) => s === 200);
  return { system: 'tsdb', pid: child.pid ?? 0, baseUrl, grpcAddr: `127.0.0.1:${rpc}`, dataDirs: { data: join(dataDir, 'home', 'data'), wal: join(dataDir, 'home', 'wal'), metadata: join(dataDir, 'home', 'metadata') }, logFile, version, stop: stopper(child) };
}

export async function startInfluxdb(dataDir: string): Promise<Server> {
  mkdirSync(dataDir, { recursive: true });
  const [http, rpc] = [await freePort(), await freePort()];
  const configFile = join(dataDir, 'influxdb.conf');
  const logFile = join(dataDir, 'server.log');
  writeFileSync(configFile, [
    'reporting-disabled = true',
    `bind-address = "127.0.0.1:${rpc}"`,
    '[meta]',
    `  dir = "${join(dataDir, 'meta')}"`,
    '  logging-enabled = false',
    '[data]',
    `  dir = "${join(dataDir, 'data')}"`,
    `  wal-dir = "${join(dataDir, 'wal')}"`,
    '  query-log-enabled = false',
    '  max-series-per-database = 0',
    '  max-values-per-tag = 0',
    '[monitor]',
    '  store-enabled = false',
    '[subscriber]',
    '  enabled = false',
    '[continuous_queries]',
    '  enabled = false',
    '[http]',
    '  enabled = true',
    `  bind-address = "127.0.0.1:${http}"`,
    '  log-enabled = false',
    '  pprof-enabled = false',
    '  max-body-size = 0',
    '[ifql]',
    '  enabled = false',
    '[logging]',
    '  level = "warn"',
    '  suppress-logo = true',
    '',
  ].join('\n'));
  const out = spawnSync('influxd', ['version'], { encoding: 'utf8' });
  const version = `${out.stdout.trim().replace(/^InfluxDB /, '').replace(/ \(git: unknown unknown\)$/, '')} (deb ${dpkgVersion('influxdb')})`;
  const child = launch('influxd', ['-config', configFile], logFile);
  const baseUrl = `http://127.0.0.1:${http}`;
  await waitReady(`${baseUrl}/ping`, child, logFile, (s) => s === 204);
  return { system: 'influxdb', pid: child.pid ?? 0, baseUrl, dataDirs: { data: join(dataDir, 'data'), wal: join(dataDir, 'wal'), meta: join(dataDir, 'meta') }, logFile, version, stop: stopper(child) };
}

export async function startVictoriaMetrics(dataDir: string): Promise<Server> {
  mkdirSync(dataDir, { recursive: true });
  const http = await freePort();
  const logFile = join(dataDir, 'server.log');
  const storage = join(dataDir, 'storage');
  const child = launch('victoria-metrics', [
    `-storageDataPath=${storage}`, `-httpListenAddr=127.0.0.1:${http}`, '-search.disableCache',
    // TSBS data is from 2016: keep it (the default retention is one month and would drop it).
    '-retentionPeriod=100y', '-loggerLevel=WARN',
  ], logFile);
  const baseUrl = `http://127.0.0.1:${http}`;
  await waitReady(`${baseUrl}/health`, child, logFile, (s) => s === 200);
  let version = victoriaFlagVersion();
  try {
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    const m = /vm_app_version\{version="([^"]*)"/.exec(metrics);
    if (m?.[1] !== undefined && m[1] !== '') version = m[1];
  } catch {
    // keep the flag's answer
  }
  version = version === '' ? `${dpkgVersion('victoria-metrics')} (Debian package; the binary reports no version)` : `${version} (deb ${dpkgVersion('victoria-metrics')})`;
  return { system: 'victoriametrics', pid: child.pid ?? 0, baseUrl, dataDirs: { storage }, logFile, version, stop: stopper(child) };
}

function victoriaFlagVersion(): string {
  const out = spawnSync('victoria-metrics', ['-version'], { encoding: 'utf8' });
  const v = `${out.stdout}${out.stderr}`.trim();
  return v;
}

/** User + system CPU seconds of a process, from /proc/<pid>/stat (clock ticks at 100 Hz). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] !== undefined ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Waits until the process uses < 5% of a core over 2 s (background flushes/compactions done), at most maxMs. */
export async function waitIdle(pid: number, maxMs = 120_000): Promise<number> {
  return waitIdleAll(() => [pid], maxMs);
}

/**
 * As waitIdle, over the processes `pids()` names at each look (a PostgreSQL's postmaster and its
 * backends and workers come and go): the sum of their CPU seconds grows by < 0.1 over 2 s.
 */
export async function waitIdleAll(pids: () => readonly number[], maxMs = 120_000): Promise<number> {
  const t0 = Date.now();
  const total = (): number => pids().reduce((n, p) => n + cpuSeconds(p), 0);
  let prev = total();
  while (Date.now() - t0 < maxMs) {
    await sleep(2000);
    const now = total();
    if (now - prev < 0.1) break;
    prev = now;
  }
  return Date.now() - t0;
}

/** The process and its descendants (from /proc/<pid>/stat's parent pids). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid);
      if (list === undefined) children.set(ppid, [Number(name)]);
      else list.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const p = todo.pop() ?? 0;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

export function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}
