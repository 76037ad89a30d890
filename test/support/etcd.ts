/**
 * A real etcd for tests: starts Debian's `etcd` (package etcd-server, installed by .ci/run) as a
 * one-member cluster on 127.0.0.1 with free client and peer ports and its own data directory,
 * waits until it answers /health, and stops it by its PID. A stopped server can be started again
 * on the same data directory and ports, which the outage tests need; cluster tests reuse this.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ETCD_BINARY = process.env['TSDB_TEST_ETCD'] ?? '/usr/bin/etcd';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

export interface EtcdOptions {
  /** Where etcd keeps its data; reuse it (with the same ports) to restart a stopped server. */
  readonly dataDir: string;
  /** 0 or absent = a free port. */
  readonly clientPort?: number;
  readonly peerPort?: number;
  readonly name?: string;
}

/** A running etcd server started by a test. */
export class EtcdServer {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #logPath: string;
  readonly options: Required<EtcdOptions>;

  private constructor(child: ChildProcess, exited: Promise<void>, logPath: string, options: Required<EtcdOptions>) {
    this.#child = child;
    this.#exited = exited;
    this.#logPath = logPath;
    this.options = options;
  }

  /** The client endpoint as host:port. */
  get endpoint(): string {
    return `127.0.0.1:${this.options.clientPort}`;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts etcd and waits until it answers; fails with the tail of its log if it does not. */
  static async start(options: EtcdOptions): Promise<EtcdServer> {
    const full: Required<EtcdOptions> = {
      dataDir: options.dataDir,
      clientPort: options.clientPort || (await freePort()),
      peerPort: options.peerPort || (await freePort()),
      name: options.name ?? 'tsdb-test',
    };
    const client = `http://127.0.0.1:${full.clientPort}`;
    const peer = `http://127.0.0.1:${full.peerPort}`;
    const logPath = `${full.dataDir}.log`;
    const log = openSync(logPath, 'a');
    const child = spawn(
      ETCD_BINARY,
      [
        `--name=${full.name}`,
        `--data-dir=${full.dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=${full.name}=${peer}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-level=warn',
        '--log-outputs=stderr',
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const server = new EtcdServer(child, exited, logPath, full);
    try {
      await server.#waitHealthy();
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  /** Starts a new etcd on this one's data directory and ports (this one must be stopped). */
  restart(): Promise<EtcdServer> {
    assert.ok(!this.running, 'stop the etcd server before restarting it');
    return EtcdServer.start(this.options);
  }

  /** Stops the server by its PID: SIGTERM, then SIGKILL if it lingers. A second call is a no-op. */
  async stop(): Promise<void> {
    if (!this.running) return;
    process.kill(this.pid, 'SIGTERM');
    const timer = sleep(STOP_TIMEOUT_MS).then(() => 'timeout' as const);
    if ((await Promise.race([this.#exited.then(() => 'exited' as const), timer])) === 'timeout' && this.running) {
      process.kill(this.pid, 'SIGKILL');
      await this.#exited;
    }
  }

  /** Kills the server with SIGKILL (a crash), and waits until it is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    process.kill(this.pid, 'SIGKILL');
    await this.#exited;
  }

  async #waitHealthy(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let last = '';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`etcd exited at start (${this.#child.exitCode ?? this.#child.signalCode}):\n${this.#logTail()}`);
      try {
        const res = await fetch(`http://${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
        const body = await res.text();
        if (res.ok && body.includes('"health":"true"')) return;
        last = `${res.status} ${body}`;
      } catch (err) {
        last = String(err);
      }
      await sleep(50);
    }
    throw new Error(`etcd on ${this.endpoint} did not become healthy within ${START_TIMEOUT_MS} ms (last: ${last}):\n${this.#logTail()}`);
  }

  #logTail(): string {
    try {
      return readFileSync(this.#logPath, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

/**
 * Starts etcd in a fresh temporary directory; `t.after` (a test's, or node:test's file-level
 * `after`) stops it and removes the directory.
 */
export async function startEtcd(t: { after(fn: () => Promise<void>): void }): Promise<EtcdServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-etcd-'));
  let server: EtcdServer | undefined;
  // One hook, so the server is stopped before its directory is removed.
  t.after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  server = await EtcdServer.start({ dataDir: join(dir, 'data') });
  return server;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr !== null ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
