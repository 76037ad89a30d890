/**
 * Prometheus remote write decode throughput, in samples/s, on TSBS-cpu-like requests: each host has
 * 10 labels (TSBS's hostname … service_environment), each of the 10 usage_* fields is a metric
 * (`cpu_usage_user` …), so a request holds hosts × 10 series with `__name__` plus 10 labels each.
 *
 * For each request shape it times:
 * - `snappy only`: the block decompression every path pays;
 * - `protobufjs decode`: snappy + protobufjs into message objects, no tables (the library alone);
 * - `protobufjs + tables`: that plus grouping into IngestTables (`protobufjs-decode.ts`);
 * - `decodeRemoteWrite`: the hand-written decoder tsdb uses (snappy, decode, UTF-8 check, tables).
 *
 *   npm run build; node dist/bench/prom-codec/decode-bench.js [--seconds 1] [--runs 5]
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { uncompressSync } from 'snappy';
import { FIELDS, generate, TAGS } from '../tsbs/data.js';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { decodeRemoteWrite, encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { protobufjsDecodeOnly, protobufjsDecodeRemoteWrite } from './protobufjs-decode.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
  },
});
const SECONDS = Number(args.seconds);
const RUNS = Number(args.runs);

interface Shape {
  readonly name: string;
  readonly hosts: number;
  readonly samplesPerSeries: number;
}

const SHAPES: readonly Shape[] = [
  { name: 'TSBS 100 hosts × 10 metrics, 1 sample/series', hosts: 100, samplesPerSeries: 1 },
  { name: 'TSBS 100 hosts × 10 metrics, 10 samples/series', hosts: 100, samplesPerSeries: 10 },
  { name: '5,000 series × 1 sample (500 hosts)', hosts: 500, samplesPerSeries: 1 },
  { name: '500 series × 10 samples (50 hosts)', hosts: 50, samplesPerSeries: 10 },
];

/** One request: every host × metric series with `samplesPerSeries` consecutive 10 s samples. */
function request(shape: Shape): { body: Buffer; samples: number; series: number } {
  const hours = Math.max(1, Math.ceil((shape.samplesPerSeries * 10) / 3600));
  const ds = generate(shape.hosts, hours, 42);
  const series: ReadSeries[] = [];
  for (let f = 0; f < FIELDS.length; f++) {
    for (let h = 0; h < shape.hosts; h++) {
      const labels = [{ name: '__name__', value: `cpu_${FIELDS[f]}` }, ...TAGS.map((t, k) => ({ name: t, value: ds.tagValues[h]![k]! }))];
      labels.sort((a, b) => (a.name < b.name ? -1 : 1)); // as Prometheus sends them
      const samples = [];
      for (let s = 0; s < shape.samplesPerSeries; s++) {
        const row = s * ds.hosts + h;
        samples.push({ value: ds.values[row * FIELDS.length + f]!, timestampMs: ds.startMs + s * 10_000 });
      }
      series.push({ labels, samples });
    }
  }
  return { body: encodeWriteRequest(series), samples: series.length * shape.samplesPerSeries, series: series.length };
}

/** Samples/s of one run of about SECONDS. */
function run(fn: (body: Buffer) => unknown, body: Buffer, samples: number): number {
  const start = process.hrtime.bigint();
  let n = 0;
  let elapsed = 0;
  do {
    fn(body);
    n++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < SECONDS);
  return (n * samples) / elapsed;
}

/**
 * Median samples/s of each candidate over RUNS runs, after a warm-up run; the candidates take turns
 * run by run, so that load from other processes on the machine hits them alike.
 */
function measure(fns: ReadonlyArray<(body: Buffer) => unknown>, body: Buffer, samples: number): number[] {
  const rates = fns.map(() => [] as number[]);
  for (let r = -1; r < RUNS; r++) {
    fns.forEach((fn, i) => {
      const rate = run(fn, body, samples);
      if (r >= 0) rates[i]!.push(rate);
    });
  }
  return rates.map((rs) => rs.sort((a, b) => a - b)[Math.floor(rs.length / 2)]!);
}

const fmt = (v: number): string => `${(v / 1e6).toFixed(2)} M`;

console.log(`# Prometheus remote write decode, samples/s (median of ${RUNS} × ${SECONDS} s)`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores\n`);
console.log('| request | series | samples | body KiB | raw KiB | snappy only | protobufjs decode | protobufjs + tables | decodeRemoteWrite | speed-up vs protobufjs + tables |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const shape of SHAPES) {
  const { body, samples, series } = request(shape);
  const raw = uncompressSync(body) as Buffer;
  // Same answer from both paths before timing them.
  const a = decodeRemoteWrite(body);
  const b = protobufjsDecodeRemoteWrite(body);
  if (a.samples !== samples || b.samples !== samples || a.groups.length !== FIELDS.length || b.groups.length !== FIELDS.length) {
    throw new Error(`decoders disagree on ${shape.name}`);
  }
  const [snappy, pbOnly, pbTables, ours] = measure(
    [(x) => uncompressSync(x), protobufjsDecodeOnly, protobufjsDecodeRemoteWrite, decodeRemoteWrite],
    body,
    samples,
  ) as [number, number, number, number];
  console.log(
    `| ${shape.name} | ${series} | ${samples} | ${(body.length / 1024).toFixed(0)} | ${(raw.length / 1024).toFixed(0)} | ${fmt(snappy)} | ${fmt(pbOnly)} | ${fmt(pbTables)} | ${fmt(ours)} | ${(ours / pbTables).toFixed(1)}× |`,
  );
}
