/**
 * Where tracing's CPU goes inside one server: a standalone under `--cpu-prof` takes the TSBS load
 * (line protocol, 4 in flight) and each TSBS query `--runs` times, with OTLP tracing at ratio 1.0
 * (`on`) or off (`off`); its main thread's profile is then split into start-up (module loading,
 * service set-up: left out) and work, and the work's samples whose stack holds a frame of the
 * OpenTelemetry SDK, gRPC, protobufjs or tsdb's tracing files are summed by what they were doing.
 * Unlike the two-server comparison of `main.ts`, the figure comes from one process's own samples,
 * so the machine's other load moves it much less. Run it with both arguments and compare: with
 * tracing off, the same stacks count too (tsdb's request hooks run under the HTTP tracing hook's
 * frame), which is the floor to subtract.
 *
 *   node dist/bench/observability/profile.js on|off [--hosts 100] [--hours 24] [--runs 10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generate, lineProtocolBatch, TSDB_CREATE_TABLE } from '../tsbs/data.js';
import { tsbsQueries } from '../tsbs/queries.js';
import { OtlpReceiver } from '../../test/support/otlp-receiver.js';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { hosts: { type: 'string', default: '100' }, hours: { type: 'string', default: '24' }, runs: { type: 'string', default: '10' } },
});
const mode = positionals[0];
if (mode !== 'on' && mode !== 'off') throw new Error('usage: profile.js on|off [--hosts N] [--hours N] [--runs N]');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const freePort = (): Promise<number> => new Promise((ok) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const a = s.address();
    s.close(() => ok(typeof a === 'object' && a !== null ? a.port : 0));
  });
});

/** Frames of tracing's code: the SDK, its exporter's gRPC and protobuf, tsdb's tracing files. */
const tracingFrame = (url: string): boolean =>
  url.includes('@opentelemetry') || url.includes('@grpc') || url.includes('protobufjs') || url.includes('/common/tracing/') || url.includes('-tracing.js') || url.includes('-spans.js');
/** Functions under which a sample is the server's start-up, not its work. */
const STARTUP = new Set(['Module._load', 'startComponent', 'ReflectionService', 'addToServer', 'addService', 'ModuleJob', 'loadESM']);

function kindOf(names: readonly string[]): string {
  const has = (x: string) => names.includes(x);
  if (has('createResolver') || has('Codegen') || has('ServiceClientImpl')) return 'first use (gRPC client, protobuf code generation)';
  if (has('_flushOneBatch') || has('_flushAll')) return 'export (serialize, send)';
  if (has('routing') || has('preRouting') || has('onEnd')) return 'HTTP server spans';
  if (has('withSpan') || has('withSpanSync') || has('startPhase')) return 'statement and ingest spans';
  return 'other (gRPC I/O, timers)';
}

function analyse(p: Profile): { work: number; traced: number; parts: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let work = 0;
  let traced = 0;
  const parts = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const d = p.timeDeltas[i] ?? 0;
    const leaf = byId.get(p.samples[i]!)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    const names: string[] = [];
    let inTracing = false;
    for (let cur: number | undefined = leaf.id; cur !== undefined; cur = parent.get(cur)) {
      const m = byId.get(cur)!;
      names.push(m.callFrame.functionName);
      if (tracingFrame(m.callFrame.url)) inTracing = true;
    }
    if (names.some((x) => STARTUP.has(x))) continue;
    work += d;
    if (!inTracing) continue;
    traced += d;
    const k = kindOf(names);
    parts.set(k, (parts.get(k) ?? 0) + d);
  }
  return { work, traced, parts };
}

async function main(): Promise<void> {
  const [hp, rp, mp, pp] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-bench-obs-prof-'));
  const profDir = join(dir, 'prof');
  const rx = await OtlpReceiver.start();
  const env = {
    ...process.env,
    ...(mode === 'on' && {
      TSDB_STANDALONE__LOGGING__ENABLE_OTLP_TRACING: 'true',
      TSDB_STANDALONE__LOGGING__OTLP_ENDPOINT: rx.address,
      TSDB_STANDALONE__LOGGING__TRACING_SAMPLE_RATIO__DEFAULT_RATIO: '1.0',
    }),
  };
  const args = ['--cpu-prof', `--cpu-prof-dir=${profDir}`, join(repoRoot, 'bin/tsdb'), 'standalone', 'start', '--http-addr', `127.0.0.1:${hp}`, '--rpc-addr', `127.0.0.1:${rp}`, '--mysql-addr', `127.0.0.1:${mp}`, '--postgres-addr', `127.0.0.1:${pp}`, '--data-home', join(dir, 'home')];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const post = (path: string, body: string, type: string): Promise<string> => new Promise((ok, fail) => {
    const r = http.request({ host: '127.0.0.1', port: hp, path, method: 'POST', agent, headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ((res.statusCode ?? 500) < 300 ? ok(Buffer.concat(chunks).toString()) : fail(new Error(Buffer.concat(chunks).toString().slice(0, 300)))));
    });
    r.on('error', fail);
    r.end(body);
  });
  const sql = (q: string) => post('/v1/sql?db=public', `sql=${encodeURIComponent(q)}`, 'application/x-www-form-urlencoded');
  try {
    for (let i = 0; ; i++) {
      try {
        await sql('SELECT 1');
        break;
      } catch (err) {
        if (i > 150) throw err;
        await new Promise((ok) => setTimeout(ok, 200));
      }
    }
    const ds = generate(Number(opts.hosts), Number(opts.hours), 123);
    await sql(TSDB_CREATE_TABLE('cpu'));
    const bodies: string[] = [];
    for (let i = 0; i < ds.rows; i += 5000) bodies.push(lineProtocolBatch(ds, i, Math.min(ds.rows, i + 5000)));
    let next = 0;
    await Promise.all([0, 1, 2, 3].map(async () => {
      for (let i = next++; i < bodies.length; i = next++) await post('/v1/influxdb/write?db=public', bodies[i]!, 'text/plain');
    }));
    const queries = tsbsQueries(ds, 123);
    for (const q of queries) for (let r = 0; r < Number(opts.runs); r++) await sql(q.sql);
    await new Promise((ok) => setTimeout(ok, 2000));
  } finally {
    child.kill('SIGINT');
    await new Promise((ok) => child.once('exit', ok));
  }
  console.log(`tracing ${mode}: TSBS cpu-only ${opts.hosts} hosts × ${opts.hours} h by line protocol, then each query ${opts.runs} times`);
  await rx.stop();
  const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).sort();
  // The first profile is the server's main thread (workers write theirs after).
  const main = analyse(JSON.parse(readFileSync(join(profDir, files[0]!), 'utf8')) as Profile);
  const ms = (us: number) => (us / 1000).toFixed(0);
  console.log(`spans received: ${rx.spans.length}`);
  console.log(`main thread, work after start-up: ${ms(main.work)} ms; under tracing frames: ${ms(main.traced)} ms (${((100 * main.traced) / main.work).toFixed(1)} %)`);
  for (const [k, v] of [...main.parts].sort((a, b) => b[1] - a[1])) console.log(`  ${k}: ${ms(v)} ms`);
  rmSync(dir, { recursive: true, force: true });
}

await main();
