/** The datasets of the benchmark and the report one candidate process prints. */
import type { PhaseResult } from './candidates.js';
import type { DatasetShape } from './memtable-fixture.js';

/** `single`: one tag, three fields; `single-dup`: the same with 10% duplicates; `tsbs`: TSBS cpu-like. */
export type DatasetName = 'single' | 'single-dup' | 'tsbs';
export const DATASETS: readonly DatasetName[] = ['single', 'single-dup', 'tsbs'];

export function datasetShape(dataset: DatasetName): { shape: DatasetShape; duplicateFraction: number } {
  return dataset === 'tsbs'
    ? { shape: 'tsbs', duplicateFraction: 0 }
    : { shape: 'single', duplicateFraction: dataset === 'single-dup' ? 0.1 : 0 };
}

export interface CandidateReport {
  readonly candidate: string;
  readonly dataset: DatasetName;
  readonly rows: number;
  readonly series: number;
  /** Timed repetitions, warm-up excluded. */
  readonly reps: PhaseResult[][];
  /** Results checked on the warm-up repetition, by phase. */
  readonly checks: Record<string, string>;
  /** RSS once the memtable (and, for d, the arrival batches) exist, MiB. */
  readonly baseRssMiB: number;
  /** Peak RSS of the whole process, MiB. */
  readonly peakRssMiB: number;
}
