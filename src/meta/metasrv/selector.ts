/**
 * How the metasrv chooses datanodes for new regions (a CREATE TABLE, a failover), among the
 * datanodes whose lease is current (reference internals.md §6.4):
 *
 * - `round_robin`: the datanodes sorted by id, taken in turn from a counter kept across calls.
 * - `lease_based`: at random, each datanode weighted 1.
 * - `load_based`: at random, weighted `max − regions + (max − min)` by the regions each reported,
 *   so the least loaded node is likeliest and the most loaded still possible (all equal: weight 1).
 *
 * A call for more regions than there are datanodes uses them all, then reuses them in the same
 * order; the random ones choose without replacement up to the number of datanodes.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Peer } from '../../catalog/table-route.js';
import type { MetasrvOptions } from '../../config/options.js';

export type SelectorName = MetasrvOptions['selector'];

/** A datanode the selector may choose: its peer and the regions it reported last. */
export interface Candidate {
  readonly peer: Peer;
  readonly regionCount: number;
}

export interface Selector {
  readonly name: SelectorName;
  /** `count` peers for `count` regions (repeating peers when there are fewer candidates). `candidates` is not empty. */
  select(candidates: readonly Candidate[], count: number): Peer[];
}

/** Fills `count` slots from `chosen`, in order, starting over when they run out. */
function cycle(chosen: readonly Peer[], count: number): Peer[] {
  return Array.from({ length: count }, (_, i) => chosen[i % chosen.length]!);
}

/** Chooses up to `count` distinct candidates at random, each with probability proportional to its weight. */
function weightedSample(candidates: readonly Candidate[], weights: readonly number[], count: number, random: () => number): Peer[] {
  const pool = candidates.map((c, i) => ({ peer: c.peer, weight: weights[i]! }));
  const out: Peer[] = [];
  while (out.length < count && pool.length > 0) {
    const total = pool.reduce((s, p) => s + p.weight, 0);
    let i = 0;
    if (total > 0) {
      let x = random() * total;
      while (i < pool.length - 1 && x >= pool[i]!.weight) x -= pool[i++]!.weight;
    } else i = Math.min(pool.length - 1, Math.floor(random() * pool.length));
    out.push(pool.splice(i, 1)[0]!.peer);
  }
  return out;
}

class RoundRobinSelector implements Selector {
  readonly name = 'round_robin' as const;
  private counter = 0;

  select(candidates: readonly Candidate[], count: number): Peer[] {
    const sorted = [...candidates].sort((a, b) => a.peer.id - b.peer.id);
    return Array.from({ length: count }, () => sorted[this.counter++ % sorted.length]!.peer);
  }
}

class LeaseBasedSelector implements Selector {
  readonly name = 'lease_based' as const;
  constructor(private readonly random: () => number) {}

  select(candidates: readonly Candidate[], count: number): Peer[] {
    return cycle(weightedSample(candidates, candidates.map(() => 1), count, this.random), count);
  }
}

class LoadBasedSelector implements Selector {
  readonly name = 'load_based' as const;
  constructor(private readonly random: () => number) {}

  select(candidates: readonly Candidate[], count: number): Peer[] {
    const counts = candidates.map((c) => c.regionCount);
    const max = Math.max(...counts);
    const min = Math.min(...counts);
    const weights = max === min ? counts.map(() => 1) : counts.map((n) => max - n + (max - min));
    return cycle(weightedSample(candidates, weights, count, this.random), count);
  }
}

/** The selector of a name; `random` (default Math.random) drives the random ones. */
export function createSelector(name: SelectorName, random: () => number = Math.random): Selector {
  switch (name) {
    case 'round_robin':
      return new RoundRobinSelector();
    case 'lease_based':
      return new LeaseBasedSelector(random);
    case 'load_based':
      return new LoadBasedSelector(random);
    default:
      throw new TsdbError(StatusCode.InvalidArguments, `unknown selector ${JSON.stringify(name)}: expected round_robin, lease_based or load_based`);
  }
}
