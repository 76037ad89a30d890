/**
 * One HTTP request with a client-side deadline (node:http over a keep-alive agent): past the
 * deadline the request is destroyed and the outcome says so, so that a server that never answers
 * (a runaway query nobody cancels) costs the benchmark one slot for `timeoutMs`, not forever.
 */
import { type Agent, request } from 'node:http';

export type Outcome =
  | { readonly kind: 'answered'; readonly status: number; readonly body: string; readonly ms: number }
  | { readonly kind: 'client-timeout'; readonly ms: number }
  | { readonly kind: 'connection-error'; readonly code: string; readonly ms: number };

export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly timeoutMs: number;
  /** Keep at most this many bytes of the answer (a runaway's answer may be huge). */
  readonly maxBodyBytes?: number;
}

export function send(agent: Agent, spec: RequestSpec): Promise<Outcome> {
  const t0 = performance.now();
  const ms = (): number => performance.now() - t0;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const headers: Record<string, string> = { ...(spec.headers ?? {}) };
    if (spec.body !== undefined) headers['content-length'] = String(spec.body.length);
    const req = request(spec.url, { method: spec.method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const limit = spec.maxBodyBytes ?? 1 << 20;
      res.on('data', (c: Buffer) => {
        if (kept < limit) {
          chunks.push(c);
          kept += c.length;
        }
      });
      res.on('end', () => settle({ kind: 'answered', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: ms() }));
      res.on('error', (e: NodeJS.ErrnoException) => settle({ kind: 'connection-error', code: e.code ?? e.message, ms: ms() }));
      res.on('aborted', () => settle({ kind: 'connection-error', code: 'response aborted', ms: ms() }));
    });
    const timer = setTimeout(() => {
      settle({ kind: 'client-timeout', ms: ms() });
      req.destroy();
    }, spec.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => settle({ kind: 'connection-error', code: e.code ?? e.message, ms: ms() }));
    req.end(spec.body);
  });
}

/** The tsdb error code of a JSON error answer (`{"code": 4001, "error": …}`), if any. */
export function tsdbCode(body: string): number | undefined {
  try {
    const v = JSON.parse(body) as { code?: unknown };
    return typeof v.code === 'number' ? v.code : undefined;
  } catch {
    return undefined;
  }
}
