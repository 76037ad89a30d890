/**
 * An OTLP/gRPC trace receiver for tests: serves `opentelemetry.proto.collector.trace.v1.TraceService/Export`
 * (proto/opentelemetry/…, OTLP's field numbers) on 127.0.0.1 and keeps every span it is sent,
 * flattened with its resource's attributes and its attributes as plain values. No collector package
 * exists in Debian or npm that a test could start, so the receiver decodes the protocol itself.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

export type AttributeValue = string | number | boolean | Buffer | AttributeValue[] | { [key: string]: AttributeValue } | null;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind name, e.g. `SPAN_KIND_SERVER`. */
  readonly kind: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, AttributeValue>;
  readonly resource: Record<string, AttributeValue>;
  readonly scope: string;
  /** `STATUS_CODE_UNSET`, `STATUS_CODE_OK` or `STATUS_CODE_ERROR`. */
  readonly status: string;
  readonly statusMessage: string;
}

interface AnyValueMessage {
  value?: string;
  string_value?: string;
  bool_value?: boolean;
  int_value?: string | number;
  double_value?: number;
  array_value?: { values?: AnyValueMessage[] };
  kvlist_value?: { values?: KeyValueMessage[] };
  bytes_value?: Buffer;
}
interface KeyValueMessage {
  key: string;
  value?: AnyValueMessage;
}
interface SpanMessage {
  trace_id: Buffer;
  span_id: Buffer;
  parent_span_id: Buffer;
  name: string;
  kind: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  attributes?: KeyValueMessage[];
  status?: { code?: string; message?: string };
}
interface ExportRequest {
  resource_spans?: Array<{
    resource?: { attributes?: KeyValueMessage[] };
    scope_spans?: Array<{ scope?: { name?: string }; spans?: SpanMessage[] }>;
  }>;
}

function valueOf(v: AnyValueMessage | undefined): AttributeValue {
  if (v === undefined) return null;
  switch (v.value) {
    case 'string_value':
      return v.string_value ?? '';
    case 'bool_value':
      return v.bool_value ?? false;
    case 'int_value':
      return Number(v.int_value ?? 0);
    case 'double_value':
      return v.double_value ?? 0;
    case 'array_value':
      return (v.array_value?.values ?? []).map(valueOf);
    case 'kvlist_value':
      return attributesOf(v.kvlist_value?.values);
    case 'bytes_value':
      return v.bytes_value ?? Buffer.alloc(0);
    default:
      return null;
  }
}

function attributesOf(kvs: KeyValueMessage[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of kvs ?? []) out[kv.key] = valueOf(kv.value);
  return out;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Export calls received. */
  exports = 0;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: grpc.Server,
    /** `127.0.0.1:<port>`. */
    readonly address: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const definition = protoLoader.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', {
      includeDirs: [PROTO_ROOT],
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { opentelemetry: { proto: { collector: { trace: { v1: { TraceService: grpc.ServiceClientConstructor } } } } } };
    const service = pkg.opentelemetry.proto.collector.trace.v1.TraceService.service;
    const server = new grpc.Server();
    let receiver: OtlpReceiver | undefined;
    server.addService(service, {
      Export: (call: grpc.ServerUnaryCall<ExportRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        receiver?.received(call.request);
        callback(null, {});
      },
    });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    receiver = new OtlpReceiver(server, `127.0.0.1:${port}`);
    return receiver;
  }

  private received(req: ExportRequest): void {
    this.exports += 1;
    for (const rs of req.resource_spans ?? []) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const ss of rs.scope_spans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.trace_id.toString('hex'),
            spanId: s.span_id.toString('hex'),
            parentSpanId: s.parent_span_id.toString('hex'),
            name: s.name,
            kind: s.kind,
            startNs: BigInt(s.start_time_unix_nano),
            endNs: BigInt(s.end_time_unix_nano),
            attributes: attributesOf(s.attributes),
            resource,
            scope: ss.scope?.name ?? '',
            status: s.status?.code ?? 'STATUS_CODE_UNSET',
            statusMessage: s.status?.message ?? '',
          });
        }
      }
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once `test` holds of the spans received (checked at each export), or fails after `timeoutMs`. */
  async waitFor(test: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs = 15_000, what = 'the expected spans'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.spans)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`OTLP receiver: ${what} did not arrive within ${timeoutMs} ms; got ${this.spans.length} spans: ${[...new Set(this.spans.map((s) => s.name))].join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }
}
