/**
 * Crash tests' writers: a child process that prints `ready`, then `ack <n>` after each write it had
 * acknowledged; it is killed with SIGKILL at a chosen moment, and the acknowledgements are what a
 * reopen must find.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `node <script> <args…>`, waits for `ready`, runs `whileRunning` (if any), kills the child
 * `killAfterMs` later; returns the numbers it acknowledged.
 */
export async function runAndKill(script: string, args: readonly string[], killAfterMs: number, whileRunning?: () => Promise<void>): Promise<number[]> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: number[] = [];
  let out = '';
  let err = '';
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (line === 'ready') ready();
      else if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
    }
  });
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await Promise.race([isReady, exited]);
    assert.equal(child.exitCode, null, `the writer exited early: ${err}`);
    await whileRunning?.();
    await sleep(killAfterMs);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  return acked;
}
