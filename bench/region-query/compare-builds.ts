/**
 * Standalone TSBS query times of two builds of tsdb, measured in one session: runs bench/tsbs's
 * tsdb system (`dist/bench/tsbs/main.js --systems tsdb`) of each build alternately (old, new, old,
 * new, … for --rounds), each run with its own server, data and JSON file, then prints per query
 * the median of each build's run medians and their ratio new/old. Alternating spreads the drift of
 * a shared machine over both builds; the per-run medians are printed too, to show the spread.
 *
 *   node dist/bench/region-query/compare-builds.js --old /work/wt-old [--new <repo>] [--rounds 2]
 *     [--hosts 100 --hours 24 --runs 5] [--json out.json]
 *
 * Each build runs its own copy of bench/tsbs, so both must have it built (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../tsbs/load.js';
import { log } from '../tsbs/servers.js';

const { values: opts } = parseArgs({
  options: {
    old: { type: 'string' },
    new: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    hosts: { type: 'string', default: '100' },
    hours: { type: 'string', default: '24' },
    runs: { type: 'string', default: '5' },
    single: { type: 'string', default: '10' },
    json: { type: 'string' },
  },
});

if (opts.old === undefined) throw new Error('--old <repo dir of the build to compare with> is required');
const NEW = resolve(opts.new ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'));
const OLD = resolve(opts.old);
const ROUNDS = Number(opts.rounds);
const BUILDS = { old: OLD, new: NEW } as const;
type Build = keyof typeof BUILDS;
for (const dir of Object.values(BUILDS)) {
  if (!existsSync(join(dir, 'dist', 'bench', 'tsbs', 'main.js'))) throw new Error(`${dir}/dist/bench/tsbs/main.js not found: build it first`);
}

interface TsbsQueryResult {
  readonly medianMs: number | null;
  readonly resultSize: number | null;
  readonly error?: string;
}
interface TsbsJson {
  readonly results: { readonly tsdb?: { readonly version: string; readonly queries: Record<string, TsbsQueryResult>; readonly error?: string } };
}

function git(dir: string): string {
  const r = spawnSync('git', ['-C', dir, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().slice(0, 80) : 'unknown';
}

const work = mkdtempSync(join(tmpdir(), 'compare-builds-'));
/** build → query → the median of each of its runs. */
const medians: Record<Build, Map<string, number[]>> = { old: new Map(), new: new Map() };
const sizes = new Map<string, Set<string>>();
const order: string[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of ['old', 'new'] as const) {
      const out = join(work, `${build}-${round}.json`);
      log(`round ${round + 1}/${ROUNDS}: ${build} (${BUILDS[build]})`);
      const r = spawnSync(process.execPath, [
        join(BUILDS[build], 'dist', 'bench', 'tsbs', 'main.js'), '--systems', 'tsdb', '--hosts', opts.hosts, '--hours', opts.hours,
        '--runs', opts.runs, '--single', opts.single, '--json', out,
      ], { stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`${build} run ${round + 1} exited with ${r.status ?? r.signal}`);
      const parsed = JSON.parse(readFileSync(out, 'utf8')) as TsbsJson;
      const t = parsed.results.tsdb;
      if (t === undefined || t.error !== undefined) throw new Error(`${build} run ${round + 1}: ${t?.error ?? 'no tsdb result'}`);
      for (const [name, q] of Object.entries(t.queries)) {
        if (!order.includes(name)) order.push(name);
        if (q.error !== undefined || q.medianMs === null) throw new Error(`${build} run ${round + 1}: ${name}: ${q.error ?? 'no time'}`);
        const list = medians[build].get(name) ?? [];
        list.push(q.medianMs);
        medians[build].set(name, list);
        // The same data and queries: both builds must answer with as many rows.
        const s = sizes.get(name) ?? new Set<string>();
        s.add(String(q.resultSize));
        sizes.set(name, s);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const lines: string[] = [];
lines.push(`## Standalone TSBS query times, old vs new build: ${opts.hosts} hosts × ${opts.hours} h`);
lines.push('');
lines.push(`old: ${OLD} (${git(OLD)}); new: ${NEW} (${git(NEW)}). ${ROUNDS} round(s) of old then new; each run: 1 warm-up + median of ${opts.runs}; the table gives the median of the runs' medians.`);
lines.push('');
lines.push('| query | rows | old ms | new ms | new/old | old runs | new runs |');
lines.push('|---|---:|---:|---:|---:|---|---|');
let worst = 0;
for (const name of order) {
  const o = median(medians.old.get(name) ?? []);
  const n = median(medians.new.get(name) ?? []);
  worst = Math.max(worst, n / o);
  const rows = [...(sizes.get(name) ?? [])];
  lines.push(`| ${name} | ${rows.length === 1 ? rows[0] : `**differ: ${rows.join(' / ')}**`} | ${fmt(o)} | ${fmt(n)} | ${(n / o).toFixed(2)}× | ${(medians.old.get(name) ?? []).map(fmt).join(', ')} | ${(medians.new.get(name) ?? []).map(fmt).join(', ')} |`);
}
lines.push('');
lines.push(`Largest new/old: ${worst.toFixed(2)}×.`);
process.stdout.write(`${lines.join('\n')}\n`);
if (opts.json !== undefined) {
  writeFileSync(opts.json, JSON.stringify({ old: OLD, new: NEW, rounds: ROUNDS, hosts: opts.hosts, hours: opts.hours, runs: opts.runs, medians: { old: Object.fromEntries(medians.old), new: Object.fromEntries(medians.new) } }, null, 2));
}
