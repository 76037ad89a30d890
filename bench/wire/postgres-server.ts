/**
 * A throwaway PostgreSQL (Debian's postgresql-15) for the reference run: `initdb` into a temp dir,
 * `postgres -D <dir>/data -p <free port> -k <dir> -h 127.0.0.1`, stopped by PID with SIGINT (fast
 * shutdown), the temp dir removed. PostgreSQL refuses to run as root: as root, initdb and postgres
 * run as the `postgres` user (spawned with its uid/gid, so the PID we hold is the postmaster's
 * own), the temp dir chowned to it; otherwise as the current user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../tsbs/servers.js';

export const DEFAULT_PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  readonly pid: number;
  readonly port: number;
  readonly dir: string;
  readonly logFile: string;
  readonly version: string;
  readonly user: string;
  stop(): Promise<void>;
}

interface Account {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

function postgresAccount(): Account | undefined {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (line === undefined) return undefined;
  const f = line.split(':');
  return { name: 'postgres', uid: Number(f[2]), gid: Number(f[3]) };
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

const running = new Map<ChildProcess, string>();
let cleanupInstalled = false;

/** On an early exit: SIGQUIT (immediate shutdown) to our postmasters, by PID, and remove their dirs. */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const [child, dir] of running) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** `settings`: more `-c name=value` server settings (bench/tsbs sizes its buffers with them). */
export async function startPostgres(binDir: string, maxConnections: number, settings: Readonly<Record<string, string>> = {}): Promise<PostgresServer> {
  const initdb = join(binDir, 'initdb');
  const postgres = join(binDir, 'postgres');
  if (!existsSync(initdb) || !existsSync(postgres)) throw new Error(`no PostgreSQL in ${binDir}: apt-get install -y postgresql-15 (or --pg-bin <dir>)`);
  installCleanup();
  const asRoot = process.getuid?.() === 0;
  const account = asRoot ? postgresAccount() : undefined;
  if (asRoot && account === undefined) throw new Error('running as root and there is no postgres user to run PostgreSQL as (postgresql-common creates it)');
  const ids = account === undefined ? {} : { uid: account.uid, gid: account.gid };
  const env = { ...process.env, LC_ALL: 'C', ...(account === undefined ? {} : { HOME: tmpdir(), USER: account.name, LOGNAME: account.name }) };
  const dir = mkdtempSync(join(tmpdir(), 'wire-pg-'));
  if (account !== undefined) chownSync(dir, account.uid, account.gid);
  const data = join(dir, 'data');
  const user = 'postgres';
  const init = spawnSync(initdb, ['-D', data, '-U', user, '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'], { ...ids, cwd: dir, env, encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.error?.message}`);
  }
  const port = await freePort();
  const logFile = join(dir, 'server.log');
  const fd = openSync(logFile, 'a');
  if (account !== undefined) chownSync(logFile, account.uid, account.gid);
  const child = spawn(postgres, ['-D', data, '-p', String(port), '-k', dir, '-h', '127.0.0.1', '-c', `max_connections=${maxConnections}`, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])], {
    ...ids, cwd: dir, env, stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  if (child.pid === undefined) throw new Error('could not start postgres');
  running.set(child, dir);
  child.once('exit', () => running.delete(child));
  const pid = child.pid;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(pid, 'SIGINT');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGQUIT');
      }, 30_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  let version = '';
  for (;;) {
    if (child.exitCode !== null) {
      const log = tail(logFile);
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`postgres exited with ${child.exitCode} before it was ready:\n${log}`);
    }
    const c = new pg.Client({ host: '127.0.0.1', port, user, database: 'postgres' });
    c.on('error', () => {});
    try {
      await c.connect();
      version = String(((await c.query('SHOW server_version')).rows[0] as { server_version: string }).server_version);
      await c.end();
      break;
    } catch {
      await c.end().catch(() => {});
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`postgres not ready on port ${port} after 60 s; log:\n${tail(logFile)}`);
    }
    await sleep(200);
  }
  const deb = spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'postgresql-15'], { encoding: 'utf8' });
  return { pid, port, dir, logFile, version: deb.status === 0 ? `PostgreSQL ${version} (deb ${deb.stdout.trim()})` : `PostgreSQL ${version}`, user, stop };
}
