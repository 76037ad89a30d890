/**
 * One lifecycle for every protocol server (GreptimeDB `src/servers/src/server.rs`):
 * start on an address, report the bound address (port 0 binds a free port), shut down.
 */
import type { Address } from '../common/net/address.js';

export interface Server {
  /** Human name used in logs: `HTTP`, `MySQL`… */
  readonly name: string;
  /** Binds `addr` (`ip:port`) and starts serving; throws a clear error when it cannot bind. */
  start(addr: string): Promise<void>;
  /** Stops accepting, finishes in-flight requests within the server's bound, closes. */
  shutdown(): Promise<void>;
  /** Where the server listens, once started. */
  boundAddress(): Address | undefined;
}

/** A clear error for a server that cannot bind its address. */
export function listenError(name: string, addr: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EADDRINUSE'
      ? 'address already in use (another tsdb or another program listens there)'
      : code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges)'
        : code === 'EADDRNOTAVAIL'
          ? 'address not available on this machine'
          : (err as Error).message;
  return new Error(`${name} server cannot listen on ${addr}: ${why}`, { cause: err });
}
