/**
 * A real Prometheus 2.42 server (Debian's /usr/bin/prometheus) over given samples, for answers
 * promtool's unit tests cannot show — such as the order of an instant vector (sort, sort_desc).
 * The samples go in as OpenMetrics through `promtool tsdb create-blocks-from openmetrics`; the
 * server listens on a free 127.0.0.1 port, with its own temp dir, and is stopped by its PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';

export interface PromSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface PrometheusOracle {
  /** The `data.result` of an instant query at `timeSec`, in the order the API gives it. */
  query(expr: string, timeSec: number): Promise<PromSample[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Starts Prometheus over `openMetrics` (the text without the `# EOF` line). */
export async function startPrometheus(openMetrics: string): Promise<PrometheusOracle> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-oracle-'));
  writeFileSync(join(dir, 'in.om'), `${openMetrics}# EOF\n`);
  writeFileSync(join(dir, 'prometheus.yml'), 'global: {}\n');
  const made = spawnSync(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'in.om'), join(dir, 'data')], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`promtool create-blocks-from failed: ${made.stderr}`);
  const port = await freePort();
  const child: ChildProcess = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/-/ready`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error('prometheus did not become ready');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    async query(expr, timeSec) {
      const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}&time=${timeSec}`);
      const body = (await r.json()) as { status: string; error?: string; data?: { result: PromSample[] } };
      if (body.status !== "success") throw new Error(`prometheus: ${(body as { errorType?: string }).errorType}: ${body.error}`);
      return body.data!.result;
    },
    stop,
  };
}
