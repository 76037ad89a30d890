/**
 * Starts tsdb like bench/tsbs does (`node bin/tsdb standalone start`, every listener on a free
 * 127.0.0.1 port, its own data home), optionally under `node --cpu-prof --cpu-prof-dir=<dir>`, and
 * stops it by PID with SIGINT: tsdb shuts down gracefully and exits, and Node writes the profile.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type Server } from '../tsbs/servers.js';

const running = new Set<ChildProcess>();
let cleanupInstalled = false;

/** SIGKILLs the tsdb processes this module started if this process exits first (by PID, only ours). */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const child of running) if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function tsdbVersion(repoRoot: string): string {
  const name = spawnSync(process.execPath, [join(repoRoot, 'bin', 'tsdb'), '--version'], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? 'tsdb';
  const head = spawnSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return head.status === 0 ? `${name} (work tree at ${head.stdout.trim()})` : name;
}

export interface TsdbStartOptions {
  /** Write a V8 CPU profile of the server into this directory (`node --cpu-prof`). */
  readonly cpuProfDir?: string;
  /** More Node options for the server process (e.g. `--import` of a preload module). */
  readonly nodeArgs?: readonly string[];
  /** More environment variables for the server process. */
  readonly env?: Readonly<Record<string, string>>;
  /** More `tsdb standalone start` options, after the defaults (so they win). */
  readonly tsdbArgs?: readonly string[];
}

/** A started tsdb, with the loopback ports of its listeners (bench/wire speaks MySQL and PostgreSQL to it). */
export interface TsdbServer extends Server {
  readonly ports: { readonly http: number; readonly rpc: number; readonly mysql: number; readonly postgres: number };
}

export async function startTsdb(repoRoot: string, dataDir: string, opts: TsdbStartOptions = {}): Promise<TsdbServer> {
  installCleanup();
  mkdirSync(dataDir, { recursive: true });
  const [http, rpc, mysql, pg] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const logFile = join(dataDir, 'server.log');
  const nodeArgs: string[] = [];
  if (opts.cpuProfDir !== undefined) {
    mkdirSync(opts.cpuProfDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`);
  }
  nodeArgs.push(...(opts.nodeArgs ?? []));
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [
    ...nodeArgs, join(repoRoot, 'bin', 'tsdb'), 'standalone', 'start',
    '--http-addr', `127.0.0.1:${http}`, '--rpc-addr', `127.0.0.1:${rpc}`, '--mysql-addr', `127.0.0.1:${mysql}`, '--postgres-addr', `127.0.0.1:${pg}`,
    '--http-timeout', '600s', '--data-home', join(dataDir, 'home'), '--log-dir', join(dataDir, 'logs'), '--log-level', 'warn',
    ...(opts.tsdbArgs ?? []),
  ], { stdio: ['ignore', fd, fd], env: { ...process.env, ...(opts.env ?? {}) } });
  closeSync(fd);
  if (child.pid === undefined) throw new Error('could not start tsdb');
  running.add(child);
  child.once('exit', () => running.delete(child));
  const baseUrl = `http://127.0.0.1:${http}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tsdb exited with ${child.exitCode} before it was ready; log: ${logFile}\n${tail(logFile)}`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`tsdb not ready at ${baseUrl} after 60 s; log: ${logFile}`);
    await sleep(200);
  }
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(child.pid, 'SIGINT');
    // Graceful: tsdb stops its servers and engine, then Node writes the CPU profile.
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 120_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    system: 'tsdb',
    pid: child.pid,
    baseUrl,
    dataDirs: { data: join(dataDir, 'home', 'data'), wal: join(dataDir, 'home', 'wal'), metadata: join(dataDir, 'home', 'metadata') },
    logFile,
    version: tsdbVersion(repoRoot),
    stop,
    ports: { http, rpc, mysql, postgres: pg },
  };
}

/** The exit code / signal of a stopped tsdb is not kept by Server; callers read the log for errors. */
export function logErrors(logFile: string, max = 10): string[] {
  try {
    return readFileSync(logFile, 'utf8').split('\n').filter((l) => /"level":(50|60)|\bERROR\b|\bFATAL\b/i.test(l)).slice(0, max);
  } catch {
    return [];
  }
}
