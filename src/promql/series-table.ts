/**
 * The evaluator's per-node series registry and step vectors. Every node numbers the label sets it
 * outputs once (ids index `SeriesTable.labels`), so the nodes above it cache what they derive from
 * a series (matching signature, group, output labels) by id instead of rebuilding label sets at
 * every step; a step's instant vector is then two parallel number arrays.
 */
import { labelsKey, type Labels } from './labels.js';

export class SeriesTable {
  readonly labels: Labels[] = [];
  private readonly byKey = new Map<string, number>();

  /** Adds a label set known to be distinct from those already held (a selector's series). */
  add(labels: Labels): number {
    this.labels.push(labels);
    return this.labels.length - 1;
  }

  /** The id of a label set, registering it when new. */
  intern(labels: Labels): number {
    const key = labelsKey(labels);
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.labels.length;
      this.labels.push(labels);
      this.byKey.set(key, id);
    }
    return id;
  }
}

/** One step's instant vector of one node: series ids and values, in the node's output order. */
export class StepVector {
  readonly ids: number[] = [];
  readonly vals: number[] = [];
  /** The samples' own times (only vector selectors fill it, for timestamp()). */
  readonly times: number[] = [];

  constructor(readonly table: SeriesTable) {}

  get length(): number {
    return this.ids.length;
  }

  clear(): void {
    this.ids.length = 0;
    this.vals.length = 0;
    this.times.length = 0;
  }

  push(id: number, v: number): void {
    this.ids.push(id);
    this.vals.push(v);
  }
}
