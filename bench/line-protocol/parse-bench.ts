/**
 * InfluxDB line protocol parser benchmark: parses generated TSBS-cpu-like lines (10 tags, 10 float
 * fields, ns timestamps, one line per host every 10 s) several times and prints lines/s, plus two
 * variants: integer fields, and lines that mix measurements, value types and escapes. Each as one
 * body, then as the bodies of `--batch` lines a TSBS loader would send (each request its own parse).
 *
 *   npm run build && node dist/bench/line-protocol/parse-bench.js [--lines 200000] [--hosts 1000] [--runs 7] [--batch 5000]
 */
import { parseArgs } from 'node:util';
import { parseLineProtocol } from '../../src/servers/influxdb/line-protocol.js';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    hosts: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '7' },
    batch: { type: 'string', default: '5000' },
  },
});
const LINES = Number(values.lines);
const HOSTS = Number(values.hosts);
const RUNS = Number(values.runs);
const BATCH = Number(values.batch);

const REGIONS = ['us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-southeast-2', 'ap-northeast-1', 'sa-east-1'];
const OS = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'];
const ARCH = ['x64', 'x86'];
const TEAM = ['SF', 'NYC', 'LON', 'CHI'];
const ENV = ['production', 'staging', 'test'];
const FIELDS = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait', 'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice'];
const START_NS = 1451606400000000000n;

/** A small seeded PRNG (mulberry32), so every run parses the same bytes. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostTags(h: number, rnd: () => number): string {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const region = pick(REGIONS);
  return (
    `hostname=host_${h},region=${region},datacenter=${region}${pick(['a', 'b', 'c'])},rack=${Math.floor(rnd() * 100)},` +
    `os=${pick(OS)},arch=${pick(ARCH)},team=${pick(TEAM)},service=${Math.floor(rnd() * 20)},` +
    `service_version=${Math.floor(rnd() * 2)},service_environment=${pick(ENV)}`
  );
}

/** TSBS cpu-only: `cpu,<10 tags> <10 fields> <ns>`, floats with 2 decimals or integers. */
function cpuLines(integers: boolean): string[] {
  const rnd = prng(42);
  const tags = Array.from({ length: HOSTS }, (_, h) => hostTags(h, rnd));
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const h = i % HOSTS;
    const ts = START_NS + BigInt(Math.floor(i / HOSTS)) * 10_000_000_000n;
    const fields = FIELDS.map((f) => `${f}=${integers ? `${Math.floor(rnd() * 100)}i` : (Math.floor(rnd() * 10000) / 100).toString()}`).join(',');
    out.push(`cpu,${tags[h]} ${fields} ${ts}`);
  }
  return out;
}

/** Several measurements, every value type, escaped names and strings, some lines without timestamp. */
function mixedLines(): string[] {
  const rnd = prng(7);
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const h = i % HOSTS;
    const ts = START_NS + BigInt(i) * 1_000_000n;
    switch (i % 4) {
      case 0:
        out.push(`mem,host=host_${h},region=eu-west-1 total=8589934592i,used_percent=${(rnd() * 100).toFixed(3)},available=${Math.floor(rnd() * 8e9)}u ${ts}`);
        break;
      case 1:
        out.push(`disk\\ io,host=host_${h},path=/var/lib\\ data reads=${Math.floor(rnd() * 1e6)}i,ok=${rnd() < 0.5 ? 't' : 'false'},err="none" ${ts}`);
        break;
      case 2:
        out.push(`log,host=host_${h},level=warn msg="disk \\"sda\\" at ${Math.floor(rnd() * 100)}%",code=${Math.floor(rnd() * 600)}i`);
        break;
      default:
        out.push(`net,host=host_${h},iface=eth0 bytes_in=${(rnd() * 1e9).toExponential(4)},bytes_out=${Math.floor(rnd() * 1e12)}i,drop=-${(rnd() * 10).toFixed(1)} ${ts}`);
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function bench(name: string, lines: string[], batch: number): void {
  // Decoded from bytes, as a server gets them: flat strings (a joined one would be a rope).
  const bodies: string[] = [];
  for (let i = 0; i < lines.length; i += batch) bodies.push(Buffer.from(lines.slice(i, i + batch).join('\n') + '\n').toString('utf8'));
  const opts = { precision: 'ns' as const, now: START_NS };
  const parseAll = () => bodies.reduce((n, body) => n + parseLineProtocol(body, opts).reduce((m, t) => m + t.rowCount, 0), 0);
  // Warm up (JIT), and check the row count once.
  const rows = parseAll();
  if (rows !== LINES) throw new Error(`${name}: parsed ${rows} rows, expected ${LINES}`);
  const rates: number[] = [];
  const cpuRates: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    parseAll();
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    rates.push(LINES / secs);
    cpuRates.push(LINES / ((cpu.user + cpu.system) / 1e6));
  }
  const mb = bodies.reduce((n, b) => n + Buffer.byteLength(b), 0) / 1e6;
  const fmt = (x: number) => `${(x / 1e6).toFixed(2)}M`;
  const shape = bodies.length === 1 ? 'one body' : `${bodies.length} bodies`;
  // Lines per CPU second as well: on a shared machine, wall time also counts other processes.
  console.log(
    `${name.padEnd(26)} ${LINES} lines in ${shape.padEnd(10)} ${mb.toFixed(1)} MB: median ${fmt(median(rates))} lines/s (best ${fmt(Math.max(...rates))}), ` +
      `${((median(rates) * mb) / LINES).toFixed(0)} MB/s; per CPU second: median ${fmt(median(cpuRates))} (best ${fmt(Math.max(...cpuRates))})`,
  );
}

/**
 * For scale on a given machine: one loop over the body's char codes that only counts commas, the
 * least any parser reading every char must do.
 */
function baseline(lines: string[]): void {
  const body = Buffer.from(lines.join('\n') + '\n').toString('utf8');
  const rates: number[] = [];
  let commas = 0;
  for (let r = 0; r <= RUNS; r++) {
    const t0 = process.hrtime.bigint();
    commas = 0;
    for (let i = 0; i < body.length; i++) if (body.charCodeAt(i) === 44) commas++;
    if (r > 0) rates.push(LINES / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  console.log(`${'(one pass counting commas)'.padEnd(26)} ${LINES} lines in one body: median ${(median(rates) / 1e6).toFixed(2)}M lines/s (${commas} commas)`);
}

console.log(`node ${process.version}, ${RUNS} runs each`);
// One workload at a time: the lines of the others would only make the garbage collector's work larger.
const workloads: [string, () => string[]][] = [
  ['tsbs cpu (float fields)', () => cpuLines(false)],
  ['tsbs cpu (integer fields)', () => cpuLines(true)],
  ['mixed types and escapes', mixedLines],
];
for (const [name, generate] of workloads) {
  const lines = generate();
  if (name.startsWith('tsbs cpu (float')) baseline(lines);
  bench(name, lines, LINES);
  bench(name, lines, BATCH);
}
