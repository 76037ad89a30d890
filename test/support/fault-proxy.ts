/**
 * A TCP proxy on 127.0.0.1 in front of a server, for fault tests: it passes connections through,
 * or plays the server being unreachable — `refuse` (connections are reset at once, as when nothing
 * listens) or `silent` (connections are accepted and never answered, as a hung server or a dropped
 * route). Switching mode cuts the connections open now, so pooled keep-alive connections fail too.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'silent';

export interface FaultProxy {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  mode: ProxyMode;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const open = new Set<Socket>();
  let mode: ProxyMode = 'pass';
  let connections = 0;
  const server: Server = createServer((client) => {
    connections++;
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'silent') return; // read nothing, answer nothing
    const upstream = connect(target.port, target.host);
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    set mode(next: ProxyMode) {
      mode = next;
      for (const s of open) s.destroy();
      open.clear();
    },
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
