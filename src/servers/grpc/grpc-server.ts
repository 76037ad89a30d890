/**
 * The gRPC server on `grpc.addr` (reference api.md §6), on @grpc/grpc-js, without TLS (the spec
 * gives gRPC no TLS option). It serves what is registered with `addService` before `start`
 * (GreptimeDatabase and HealthCheck by the component; Arrow Flight beside them) and server
 * reflection over every registered package. Messages up to `maxReceiveMessageSize` (512 MiB, as
 * GreptimeDB's `grpc.max_recv_message_size`) are taken; a larger one is refused by grpc-js while it
 * arrives, before it is buffered whole, with RESOURCE_EXHAUSTED (grpc-js sends that status itself,
 * past any interceptor: it carries no `x-greptime-err-code` trailer). Shutdown stops
 * accepting, lets calls in flight finish within `shutdownTimeout`, then cancels what remains.
 *
 * `grpc.runtime_size` has no effect: Node serves every call on its one event loop.
 */
import * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import type { Logger } from '../../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../../common/net/address.js';
import { listenError, type Server } from '../server.js';
import { grpcMetricsInterceptor } from './grpc-metrics.js';
import { tracedImplementation } from './grpc-tracing.js';

export const DEFAULT_MAX_MESSAGE_SIZE = 512 * 1024 * 1024;

export interface GrpcServerOptions {
  readonly logger: Logger;
  /** Largest message received (bytes); default 512 MiB. */
  readonly maxReceiveMessageSize?: number;
  /** Largest message sent (bytes); default 512 MiB. */
  readonly maxSendMessageSize?: number;
  /** How long shutdown waits for calls in flight before cancelling them (ms); default 5 s. */
  readonly shutdownTimeout?: number;
}

export class GrpcServer implements Server {
  readonly name = 'gRPC';
  private server: grpc.Server | undefined;
  private bound: Address | undefined;
  private readonly services: Array<{ definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation }> = [];
  private readonly packages: protoLoader.PackageDefinition[] = [];
  private readonly log: Logger;
  private readonly shutdownListeners: Array<() => void> = [];

  constructor(private readonly opts: GrpcServerOptions) {
    this.log = opts.logger.child({ server: 'grpc' });
  }

  /**
   * Registers a service (before `start`); `packageDefinition`, when given, is offered by server
   * reflection (the proto-loader definition the service came from).
   */
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation, packageDefinition?: protoLoader.PackageDefinition): void {
    if (this.server !== undefined) throw new Error('gRPC services must be added before the server starts');
    this.services.push({ definition, implementation: tracedImplementation(definition, implementation) });
    if (packageDefinition !== undefined && !this.packages.includes(packageDefinition)) this.packages.push(packageDefinition);
  }

  /**
   * Calls `listener` when shutdown begins, before it waits for the calls in flight: services with
   * calls that never end on their own (subscriptions) end them there, so that shutdown does not
   * wait `shutdownTimeout` for them.
   */
  onShutdown(listener: () => void): void {
    this.shutdownListeners.push(listener);
  }

  async start(addr: string): Promise<void> {
    const { host, port } = parseAddress(addr, { bind: true });
    const server = new grpc.Server({
      'grpc.max_receive_message_length': this.opts.maxReceiveMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
      'grpc.max_send_message_length': this.opts.maxSendMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
      interceptors: [grpcMetricsInterceptor],
    });
    for (const s of this.services) server.addService(s.definition, s.implementation);
    if (this.packages.length > 0) new ReflectionService(Object.assign({}, ...this.packages) as protoLoader.PackageDefinition).addToServer(server);
    const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const boundPort = await new Promise<number>((resolve, reject) => {
      server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
    }).catch((err: unknown) => {
      server.forceShutdown();
      throw listenError(this.name, addr, bindErrno(err));
    });
    this.server = server;
    this.bound = { host, port: boundPort };
    this.log.info({ addr: formatAddress(this.bound) }, `${this.name} server listening on ${formatAddress(this.bound)}`);
  }

  async shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const timeout = this.opts.shutdownTimeout ?? 5000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn({ timeout_ms: timeout }, 'gRPC calls still running at the shutdown deadline are cancelled');
        server.forceShutdown();
        resolve();
      }, timeout);
      // Listening stops first, so that a client told its stream ended cannot open a new one here.
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
      for (const listener of this.shutdownListeners) {
        try {
          listener();
        } catch (err) {
          this.log.warn({ err }, 'a gRPC service failed to end its calls at shutdown');
        }
      }
    });
    this.log.info(`${this.name} server stopped`);
  }

  boundAddress(): Address | undefined {
    return this.bound;
  }
}

/** grpc-js reports bind failures as text ("No address added out of total 1 resolved: …EADDRINUSE…"); give listenError the errno code. */
function bindErrno(err: unknown): unknown {
  const text = (err as Error)?.message ?? String(err);
  const code = /EADDRINUSE|EACCES|EADDRNOTAVAIL/.exec(text)?.[0];
  return code !== undefined ? Object.assign(new Error(text), { code }) : err;
}
