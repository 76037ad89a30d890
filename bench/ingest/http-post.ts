/**
 * Posts prepared bodies with `concurrency` requests in flight over keep-alive connections
 * (node:http, lighter on the client's CPU than fetch), checking every response: the first non-2xx
 * answer or connection error stops the load (no new request starts) and is thrown with its status
 * and body. Progress lines go to stderr every 5 s.
 */
import { Agent, request } from 'node:http';
import { log } from '../tsbs/servers.js';
import type { Payload } from './payloads.js';

export interface PostResult {
  readonly requests: number;
  readonly items: number;
  readonly bytes: number;
  /** Wall time from the first request to the last response. */
  readonly seconds: number;
  /** CPU seconds this (client) process used meanwhile. */
  readonly clientCpuSeconds: number;
  /** Status codes seen, with counts. */
  readonly statuses: Readonly<Record<string, number>>;
}

export class PostError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly body: string,
  ) {
    super(message);
  }
}

function postOnce(agent: Agent, url: URL, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function postAll(
  label: string,
  url: string,
  headers: Record<string, string>,
  payloads: readonly Payload[],
  concurrency: number,
  unit: string,
): Promise<PostResult> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const total = payloads.reduce((n, p) => n + p.items, 0);
  const statuses: Record<string, number> = {};
  let next = 0;
  let done = 0;
  let bytes = 0;
  let failure: PostError | undefined;
  let lastReport = performance.now();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const i = next++;
      const p = payloads[i];
      if (p === undefined) return;
      let res: { status: number; body: string };
      try {
        res = await postOnce(agent, target, headers, p.body);
      } catch (e) {
        failure ??= new PostError(`${label}: request ${i + 1}/${payloads.length} failed: ${e instanceof Error ? e.message : String(e)}`, null, '');
        return;
      }
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status < 200 || res.status > 299) {
        failure ??= new PostError(`${label}: request ${i + 1}/${payloads.length} answered HTTP ${res.status}: ${res.body.slice(0, 2000)}`, res.status, res.body);
        return;
      }
      done += p.items;
      bytes += p.body.length;
      const now = performance.now();
      if (now - lastReport >= 5000) {
        lastReport = now;
        log(`${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${unit} (${((100 * done) / total).toFixed(0)}%), ${Math.round(done / ((now - t0) / 1000)).toLocaleString('en-US')} ${unit}/s`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (failure !== undefined) throw failure;
  return { requests: payloads.length, items: done, bytes, seconds, clientCpuSeconds: (cpu.user + cpu.system) / 1e6, statuses };
}
