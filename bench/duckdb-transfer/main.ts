/**
 * memtable → DuckDB transfer benchmark: runs every candidate on every dataset, each in its own
 * process, for `--rounds` rounds (candidates interleaved, since the machine is shared and noisy),
 * and prints Markdown tables of medians and ratios.
 *
 *   node dist/bench/duckdb-transfer/main.js [--scale 1] [--reps 5] [--rounds 1]
 *        [--candidates c-scan,c-scan-strt] [--datasets single,tsbs] [--json out.json]
 *        [--include earlier.json,…] [--scan-rss]
 *
 * `--include` pools the repetitions of earlier runs (their `--json` files) with this one's;
 * `--scan-rss` also runs every candidate once with its loading and scan phases only, since a
 * process's peak RSS is otherwise set by its flushes.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { CANDIDATES } from './candidates.js';
import { median } from './measure.js';
import { DATASETS, type CandidateReport, type DatasetName } from './datasets.js';

const run = promisify(execFile);

/** Base sizes at `--scale 1`, as the question sets them. */
const DATASET_ROWS: Record<DatasetName, number> = { single: 5_000_000, 'single-dup': 5_000_000, tsbs: 1_000_000 };
const SERIES = 1_000;
/** The candidate the ratios are relative to. */
const REFERENCE = 'c-scan-strt';

/** Workloads of the summary: (name, phases whose medians add up to its cost per operation). */
function workloads(dataset: DatasetName, candidate: string): [string, string[]][] {
  const temp = candidate.startsWith('a-') || candidate.startsWith('b-');
  const load = (phase: string, fill = 'fill'): string[] => (temp ? [fill, phase] : [phase]);
  if (dataset === 'single-dup') {
    return [
      ['dedup-qualify', load('dedup-qualify')],
      ['dedup-argmax', load('dedup-argmax')],
      ['dedup-js', load('dedup-js', 'fill-dedup')],
    ];
  }
  return [
    ['aggregate', load('aggregate')],
    ['point', load('point')],
    ['point-pruned', load('point-pruned')],
    ['flush-sort', load('flush-sort')],
    ['flush-presorted', load('flush-presorted')],
  ];
}

/** What `--json` writes: every candidate process's report, and the scan-only peaks. */
interface RunOutput {
  readonly reports: CandidateReport[];
  readonly scanRss: CandidateReport[];
}

const SCAN_PHASES = 'aggregate,point,point-pruned';

interface Merged {
  readonly candidate: string;
  readonly dataset: DatasetName;
  readonly rows: number;
  readonly samples: Map<string, { ms: number[]; loop: number[]; rows: number }>;
  readonly checks: Record<string, string>;
  readonly peakRssMiB: number[];
  readonly baseRssMiB: number[];
}

function merge(reports: readonly CandidateReport[]): Merged[] {
  const byKey = new Map<string, Merged>();
  for (const r of reports) {
    const key = `${r.dataset}/${r.candidate}`;
    let m = byKey.get(key);
    if (m === undefined) {
      m = { candidate: r.candidate, dataset: r.dataset, rows: r.rows, samples: new Map(), checks: r.checks, peakRssMiB: [], baseRssMiB: [] };
      byKey.set(key, m);
    }
    m.peakRssMiB.push(r.peakRssMiB);
    m.baseRssMiB.push(r.baseRssMiB);
    for (const rep of r.reps) {
      for (const p of rep) {
        let s = m.samples.get(p.phase);
        if (s === undefined) {
          s = { ms: [], loop: [], rows: p.rows };
          m.samples.set(p.phase, s);
        }
        s.ms.push(p.ms);
        if (p.loopDelayMaxMs !== undefined) s.loop.push(p.loopDelayMaxMs);
      }
    }
  }
  return [...byKey.values()];
}

function fmt(ms: number): string {
  return Number.isNaN(ms) ? '—' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

function costOf(m: Merged, phases: readonly string[]): number {
  let total = 0;
  for (const p of phases) {
    const s = m.samples.get(p);
    if (s === undefined) return Number.NaN;
    total += median(s.ms);
  }
  return total;
}

function report(merged: readonly Merged[], scanRss: readonly CandidateReport[], datasets: readonly DatasetName[]): string {
  const lines: string[] = [];
  for (const dataset of datasets) {
    const ms = merged.filter((m) => m.dataset === dataset);
    if (ms.length === 0) continue;
    const names = workloads(dataset, REFERENCE).map(([w]) => w);
    lines.push(`#### ${dataset}: ${ms[0]!.rows.toLocaleString('en-US')} rows, ${SERIES} series`, '');
    lines.push('Cost per operation, ms (median; for a and b the fill of the temporary table is included):', '');
    const withScanRss = scanRss.some((r) => r.dataset === dataset);
    lines.push(`| candidate | ${names.join(' | ')} | peak RSS MiB (after data built)${withScanRss ? ' | peak RSS MiB, scans only' : ''} |`);
    lines.push(`|---|${names.map(() => '---:').join('|')}|---:|${withScanRss ? '---:|' : ''}`);
    for (const m of ms) {
      const costs = workloads(dataset, m.candidate).map(([, phases]) => fmt(costOf(m, phases)));
      const scan = scanRss.filter((r) => r.dataset === dataset && r.candidate === m.candidate).map((r) => r.peakRssMiB);
      const scanCell = withScanRss ? ` ${scan.length > 0 ? median(scan).toFixed(0) : '—'} |` : '';
      lines.push(`| ${m.candidate} | ${costs.join(' | ')} | ${median(m.peakRssMiB).toFixed(0)} (${median(m.baseRssMiB).toFixed(0)}) |${scanCell}`);
    }
    const ref = ms.find((m) => m.candidate === REFERENCE);
    if (ref !== undefined) {
      lines.push('', `Ratio to ${REFERENCE} (same run; > 1 is slower):`, '');
      lines.push(`| candidate | ${names.join(' | ')} |`);
      lines.push(`|---|${names.map(() => '---:').join('|')}|`);
      for (const m of ms) {
        const ratios = workloads(dataset, m.candidate).map(([, phases], i) => {
          const base = costOf(ref, workloads(dataset, REFERENCE)[i]![1]);
          const r = costOf(m, phases) / base;
          return Number.isNaN(r) ? '—' : `${r.toFixed(2)}×`;
        });
        lines.push(`| ${m.candidate} | ${ratios.join(' | ')} |`);
      }
    }
    lines.push('', 'Phases: median (min–max) ms over all timed repetitions, rows/s, worst event-loop delay (median over repetitions of each one\'s maximum; worst overall):', '');
    lines.push('| candidate | phase | n | median ms | min–max ms | rows/s | loop delay ms |');
    lines.push('|---|---|---:|---:|---:|---:|---:|');
    for (const m of ms) {
      for (const [phase, s] of m.samples) {
        const med = median(s.ms);
        const rate = s.rows > 0 ? `${((s.rows / med) * 1000 / 1e6).toFixed(1)}M` : '—';
        const loop = s.loop.length > 0 ? `${fmt(median(s.loop))} (${fmt(Math.max(...s.loop))})` : '—';
        lines.push(`| ${m.candidate} | ${phase} | ${s.ms.length} | ${fmt(med)} | ${fmt(Math.min(...s.ms))}–${fmt(Math.max(...s.ms))} | ${rate} | ${loop} |`);
      }
    }
    lines.push('');
    // Every candidate must produce the same results; list the distinct check strings per phase.
    const distinct = new Map<string, Set<string>>();
    for (const m of ms) {
      for (const [phase, digest] of Object.entries(m.checks)) {
        const kind = phase.startsWith('flush') ? 'flush' : phase.startsWith('dedup') ? 'dedup' : phase.replace('-pruned', '');
        if (!distinct.has(kind)) distinct.set(kind, new Set());
        distinct.get(kind)!.add(digest);
      }
    }
    lines.push('Result checks (one distinct value per kind means every candidate agreed):', '');
    for (const [kind, digests] of distinct) lines.push(`- ${kind}: ${[...digests].join(' ≠ ')}`);
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      reps: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '1' },
      candidates: { type: 'string' },
      datasets: { type: 'string' },
      json: { type: 'string' },
      include: { type: 'string' },
      'scan-rss': { type: 'boolean', default: false },
    },
  });
  const scale = Number(values.scale);
  const candidates = values.candidates?.split(',') ?? CANDIDATES.map((c) => c.name);
  const datasets = (values.datasets?.split(',') ?? DATASETS) as DatasetName[];
  const script = fileURLToPath(new URL('./run-candidate.js', import.meta.url));
  const output: RunOutput = { reports: [], scanRss: [] };
  for (const file of values.include?.split(',') ?? []) {
    const earlier = JSON.parse(readFileSync(file, 'utf8')) as RunOutput | CandidateReport[];
    if (Array.isArray(earlier)) output.reports.push(...earlier);
    else {
      output.reports.push(...earlier.reports);
      output.scanRss.push(...earlier.scanRss);
    }
  }
  const runOne = async (name: string, dataset: DatasetName, extra: readonly string[]): Promise<CandidateReport> => {
    const rows = Math.max(SERIES, Math.round(DATASET_ROWS[dataset] * scale));
    const args = [script, '--candidate', name, '--dataset', dataset, '--rows', String(rows), '--series', String(SERIES), ...extra];
    process.stderr.write(`${name} on ${dataset} (${rows} rows) ${extra.join(' ')}\n`);
    const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 2 ** 20 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as CandidateReport;
  };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const dataset of datasets) {
      for (const name of candidates) {
        const candidate = CANDIDATES.find((c) => c.name === name);
        if (candidate === undefined) throw new Error(`unknown candidate ${name}`);
        if (dataset === 'single-dup' && !candidate.dedupWorkloads) continue;
        output.reports.push(await runOne(name, dataset, ['--reps', values.reps]));
      }
    }
  }
  if (values['scan-rss']) {
    for (const dataset of datasets.filter((d) => d !== 'single-dup')) {
      for (const name of candidates) output.scanRss.push(await runOne(name, dataset, ['--reps', '1', '--phases', SCAN_PHASES]));
    }
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(output));
  process.stdout.write(report(merge(output.reports), output.scanRss, datasets));
}

await main();
