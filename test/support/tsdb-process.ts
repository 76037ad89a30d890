/**
 * Runs the real `bin/tsdb` for integration tests: on free loopback ports, with its own
 * directories, reading the bound addresses from its log; stopped by PID when the test ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';

export const TSDB_BIN = new URL('../../../bin/tsdb', import.meta.url).pathname;

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs tsdb to completion (help, version, rejected configuration…). */
export function runTsdb(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSDB_BIN, ...withFreePorts(args)], {
      env: { ...cleanEnv(), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tsdb ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 15_000}ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * `standalone start` or `frontend start` without `--postgres-addr` / `--mysql-addr` / `--rpc-addr`
 * gets free ports for PostgreSQL, MySQL and gRPC, so that tests running in parallel do not all bind
 * the defaults 127.0.0.1:4003, :4002 and :4001.
 */
export function withFreePorts(args: string[]): string[] {
  const i = Math.max(args.indexOf('standalone'), args.indexOf('frontend'));
  if (i < 0 || args[i + 1] !== 'start' || args.includes('--help') || args.includes('-h')) return args;
  const out = args.includes('--postgres-addr') ? args : [...args, '--postgres-addr', '127.0.0.1:0'];
  const withMysql = out.includes('--mysql-addr') ? out : [...out, '--mysql-addr', '127.0.0.1:0'];
  return withMysql.includes('--rpc-addr') ? withMysql : [...withMysql, '--rpc-addr', '127.0.0.1:0'];
}

/** A started datanode's region service on a free port rather than 3001, which parallel tests would share. */
function withFreeRegionPort(args: string[]): string[] {
  const d = args.indexOf('datanode');
  if (d < 0 || args[d + 1] !== 'start' || args.includes('--help') || args.includes('-h') || args.includes('--rpc-addr')) return args;
  return [...args, '--rpc-addr', '127.0.0.1:0'];
}

/** The environment without TSDB_* variables of whoever runs the tests. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TSDB_')));
}

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [key: string]: unknown;
}

export class TsdbProcess {
  readonly lines: LogLine[] = [];
  stderr = '';
  private buffered = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private listeners: Array<() => void> = [];

  constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (c: Buffer) => {
      this.buffered += c.toString();
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        try {
          this.lines.push(JSON.parse(line) as LogLine);
        } catch {
          this.lines.push({ level: 'raw', msg: line });
        }
        for (const l of this.listeners) l();
      }
    });
    child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => child.on('close', (code, signal) => {
      resolve({ code, signal });
      for (const l of this.listeners) l();
    }));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits for a log line matching `pred`; rejects if the process exits first or on timeout. */
  waitForLog(pred: (l: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(pred);
        if (found) {
          done();
          resolve(found);
        } else if (!this.running) {
          done();
          reject(new Error(`tsdb exited before the expected log line\nstdout:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for a log line\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
      };
      this.listeners.push(check);
      check();
    });
  }

  /** Sends a signal and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) process.kill(this.pid, signal);
    const timer = setTimeout(() => this.running && process.kill(this.pid, 'SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  wait(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }
}

export interface Started {
  readonly proc: TsdbProcess;
  /** Bound HTTP address, `127.0.0.1:<port>`. */
  readonly http: string;
  readonly baseUrl: string;
  /** Bound PostgreSQL address, `127.0.0.1:<port>`, when the component serves it. */
  readonly postgres?: string;
  /** Bound MySQL address, `127.0.0.1:<port>`, when the component serves it. */
  readonly mysql?: string;
  /** Bound gRPC address, `127.0.0.1:<port>`, when the component serves it. */
  readonly grpc?: string;
}

/**
 * How a server process is spawned: its environment, and another entry point than `bin/tsdb`
 * (`script`, given `scriptArgs` before `args`).
 */
export interface SpawnOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly script?: string;
  readonly scriptArgs?: readonly string[];
}

/** Starts `tsdb <args>` and waits until it logs that it started; killed by PID when the test ends. */
export async function startTsdb(t: TestContext, args: string[], opts: SpawnOptions = {}): Promise<Started> {
  const proc = spawnTsdb(t, args, opts);
  const started = await proc.waitForLog((l) => / started$/.test(l.msg));
  const addresses = started['addresses'] as Record<string, string>;
  const http = addresses['http']!;
  const postgres = addresses['postgresql'];
  const mysql = addresses['mysql'];
  const grpc = addresses['grpc'];
  return { proc, http, baseUrl: `http://${http}`, ...(postgres !== undefined && { postgres }), ...(mysql !== undefined && { mysql }), ...(grpc !== undefined && grpc !== null && { grpc }) };
}

/** Spawns `tsdb <args>` without waiting; killed by PID when the test ends. */
export function spawnTsdb(t: TestContext, args: string[], opts: SpawnOptions = {}): TsdbProcess {
  const child = spawn(process.execPath, [opts.script ?? TSDB_BIN, ...(opts.scriptArgs ?? []), ...withFreeRegionPort(withFreePorts(args))], {
    env: { ...cleanEnv(), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = new TsdbProcess(child);
  t.after(async () => {
    if (proc.running) await proc.stop('SIGKILL');
  });
  return proc;
}
