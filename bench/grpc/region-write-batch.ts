/**
 * How fast a region write batch crosses the wire (src/servers/grpc/write-batch-ipc.ts): encode and
 * decode of a 10,000-row batch of 12 columns (3 string tags of 100, 4 and 10 values, an int64 time
 * index, 6 float64 fields one with NULLs, an int64 and a bool field), as Arrow IPC (what the region
 * service sends), then as a whole `Handle(RegionRequest{write})` message through proto-loader, and
 * for comparison as protobuf repeated fields (one message per column, 64-bit integers through
 * protobufjs). Each step: median and 10th percentile of `--reps` runs (default 200) after warm-up.
 *
 *   npm run build && node dist/bench/grpc/region-write-batch.js [--reps 200] [--rows 10000]
 */
import protobuf from 'protobufjs';
import type * as grpc from '@grpc/grpc-js';
import { decodeWriteBatchColumns, encodeWriteBatchColumns } from '../../src/servers/grpc/write-batch-ipc.js';
import { REGION_SERVICE_NAME, regionPackageDefinition, writeBatchMessage, writeBatchOf, type RegionRequestMessage } from '../../src/servers/grpc/region-messages.js';
import { OP_PUT, type Vector, type WriteBatch } from '../../src/types/write-batch.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const REPS = option('reps', 200);
const ROWS = option('rows', 10_000);

/** A fresh batch each time: strings are new objects, as the frontend's decoders make them. */
function batch(n: number): WriteBatch {
  const columns = new Map<number, Vector>();
  columns.set(0, { type: 'string', data: Array.from({ length: n }, (_, i) => `host_${i % 100}`) });
  columns.set(1, { type: 'string', data: Array.from({ length: n }, (_, i) => `us-west-${i % 4}`) });
  columns.set(2, { type: 'string', data: Array.from({ length: n }, (_, i) => `service-${i % 10}`) });
  columns.set(3, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => 1_700_000_000_000n + BigInt(i) * 10_000n) });
  for (let c = 4; c < 10; c++) {
    columns.set(c, {
      type: 'float64',
      data: Float64Array.from({ length: n }, (_, i) => ((i * 7919 + c) % 1000) / 10),
      ...(c === 4 && { valid: Uint8Array.from({ length: n }, (_, i) => (i % 7 === 0 ? 0 : 1)) }),
    });
  }
  columns.set(10, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000n) });
  columns.set(11, { type: 'bool', data: Uint8Array.from({ length: n }, (_, i) => i & 1) });
  return { op: OP_PUT, rowCount: n, columns };
}

function measure(name: string, prepare: () => unknown, run: (input: never) => unknown, reps = REPS): void {
  for (let i = 0; i < Math.min(20, reps); i++) run(prepare() as never);
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const input = prepare();
    const t = process.hrtime.bigint();
    run(input as never);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(48)} median ${times[reps >> 1]!.toFixed(2).padStart(7)} ms   p10 ${times[Math.floor(reps / 10)]!.toFixed(2).padStart(7)} ms`);
}

const sample = batch(ROWS);
const bytes = encodeWriteBatchColumns(sample.rowCount, sample.columns);
console.log(`${ROWS} rows × ${sample.columns.size} columns: Arrow IPC ${bytes.length} bytes`);
measure('Arrow IPC encode', () => batch(ROWS), (b: WriteBatch) => encodeWriteBatchColumns(b.rowCount, b.columns));
measure('Arrow IPC decode', () => bytes, (b: Uint8Array) => decodeWriteBatchColumns(b));

const handle = (regionPackageDefinition()[REGION_SERVICE_NAME] as grpc.ServiceDefinition)['Handle']!;
const request = (b: WriteBatch): RegionRequestMessage => ({ body: 'write', write: { region_id: '4398046511104', batch: writeBatchMessage(b) } });
const wire = handle.requestSerialize(request(sample));
measure('RegionRequest{write} encode (client side)', () => batch(ROWS), (b: WriteBatch) => handle.requestSerialize(request(b)));
measure('RegionRequest{write} decode (server side)', () => wire, (w: Buffer) => writeBatchOf((handle.requestDeserialize(w) as RegionRequestMessage).write!.batch));

// The alternative: one message per column, values as repeated fields.
const root = protobuf.parse(`syntax = "proto3";
message Column { uint32 id = 1; repeated double f64 = 2; repeated int64 i64 = 3; repeated uint64 u64 = 4; repeated bool b = 5; repeated string s = 6; repeated bool valid = 7; }
message Batch { uint32 op = 1; uint32 rows = 2; repeated Column columns = 3; }`).root;
const Batch = root.lookupType('Batch');
function toRepeated(b: WriteBatch): Record<string, unknown> {
  const columns = [...b.columns].map(([id, v]) => {
    const c: Record<string, unknown> = { id };
    if (v.type === 'float64') c.f64 = Array.from(v.data);
    else if (v.type === 'int64') c.i64 = Array.from(v.data, (x) => x.toString());
    else if (v.type === 'uint64') c.u64 = Array.from(v.data, (x) => x.toString());
    else if (v.type === 'bool') c.b = Array.from(v.data, (x) => x !== 0);
    else if (v.type === 'string') c.s = v.data;
    if ('valid' in v && v.valid !== undefined) c.valid = Array.from(v.valid, (x) => x !== 0);
    return c;
  });
  return { op: b.op, rows: b.rowCount, columns };
}
const repeated = Batch.encode(Batch.fromObject(toRepeated(sample))).finish();
console.log(`protobuf repeated fields: ${repeated.length} bytes`);
const reps = Math.max(10, Math.floor(REPS / 10));
measure('protobuf repeated fields encode', () => batch(ROWS), (b: WriteBatch) => Batch.encode(Batch.fromObject(toRepeated(b))).finish(), reps);
measure(
  'protobuf repeated fields decode',
  () => repeated,
  (w: Uint8Array) => {
    const m = Batch.toObject(Batch.decode(w), { longs: String }) as { columns: Array<{ f64?: number[]; i64?: string[]; b?: boolean[]; valid?: boolean[] }> };
    for (const c of m.columns) {
      if (c.f64?.length) Float64Array.from(c.f64);
      if (c.i64?.length) BigInt64Array.from(c.i64, BigInt);
      if (c.b?.length) Uint8Array.from(c.b, Number);
      if (c.valid?.length) Uint8Array.from(c.valid, Number);
    }
  },
  reps,
);
