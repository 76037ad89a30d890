/**
 * Runs one candidate on one dataset in this process (so that its peak RSS is its own) and prints
 * one JSON line with every repetition's phase times. Started by `main.ts`; runnable alone:
 *
 *   node dist/bench/duckdb-transfer/run-candidate.js --candidate c-scan-strt --dataset single --rows 500000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { arrivalRows } from './arrival-batches.js';
import { CANDIDATES, type PhaseResult, type RunContext } from './candidates.js';
import { DATASETS, datasetShape, type CandidateReport, type DatasetName } from './datasets.js';
import { buildMemtable } from './memtable-fixture.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      candidate: { type: 'string' },
      dataset: { type: 'string', default: 'single' },
      rows: { type: 'string', default: '5000000' },
      series: { type: 'string', default: '1000' },
      reps: { type: 'string', default: '5' },
      threads: { type: 'string' },
      phases: { type: 'string' },
    },
  });
  const candidate = CANDIDATES.find((c) => c.name === values.candidate);
  if (candidate === undefined) throw new Error(`unknown candidate ${String(values.candidate)}; one of ${CANDIDATES.map((c) => c.name).join(', ')}`);
  const dataset = values.dataset as DatasetName;
  if (!DATASETS.includes(dataset)) throw new Error(`unknown dataset ${dataset}`);
  const { shape, duplicateFraction } = datasetShape(dataset);
  const mt = buildMemtable({ shape, rows: Number(values.rows), series: Number(values.series), duplicateFraction });
  const arrival = candidate.name.startsWith('d-') ? arrivalRows(mt) : undefined;

  const instance = await DuckDBInstance.create(':memory:', values.threads === undefined ? {} : { threads: values.threads });
  const con = await instance.connect();
  const dir = mkdtempSync(join(tmpdir(), 'duckdb-transfer-'));
  const baseRssMiB = process.memoryUsage().rss / 2 ** 20;
  const reps: PhaseResult[][] = [];
  let checks: Record<string, string> = {};
  try {
    const only = values.phases === undefined ? undefined : new Set(values.phases.split(','));
    const base: Omit<RunContext, 'verify'> = { con, mt, dup: duplicateFraction > 0, dir, arrival, only };
    await candidate.setup({ ...base, verify: false });
    const total = Number(values.reps) + 1;
    for (let rep = 0; rep < total; rep++) {
      const results = await candidate.runRep({ ...base, verify: rep === 0 });
      if (rep === 0) checks = Object.fromEntries(results.flatMap((r) => (r.digest === undefined ? [] : [[r.phase, r.digest]])));
      else reps.push(results);
      process.stderr.write(`${candidate.name} ${dataset} rep ${rep}: ${results.map((r) => `${r.phase} ${r.ms.toFixed(0)}ms`).join(', ')}\n`);
    }
  } finally {
    con.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
  const report: CandidateReport = {
    candidate: candidate.name,
    dataset,
    rows: mt.rowCount,
    series: mt.series.length,
    reps,
    checks,
    baseRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
