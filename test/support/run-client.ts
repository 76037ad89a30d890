/** Runs a command-line client (psql, mysql) to completion with a 30 s limit; captures its output. */
import { spawn } from 'node:child_process';

export interface ClientResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runClient(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
