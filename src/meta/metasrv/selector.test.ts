import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSelector, type Candidate } from './selector.js';

/** A seeded PRNG (mulberry32): the same draws every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nodes(...regionCounts: number[]): Candidate[] {
  return regionCounts.map((regionCount, i) => ({ peer: { id: i + 1, addr: `n${i + 1}` }, regionCount }));
}

/** How often each node id is chosen first over `n` selections of one region. */
function firstChoices(select: () => Array<{ id: number }>, n: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const id = select()[0]!.id;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

test('round_robin: the nodes sorted by id in turn, the counter kept across calls; more regions than nodes reuse them', () => {
  const s = createSelector('round_robin');
  const shuffled = [nodes(0, 0, 0)[2]!, nodes(0, 0, 0)[0]!, nodes(0, 0, 0)[1]!];
  assert.deepEqual(s.select(shuffled, 2).map((p) => p.id), [1, 2]);
  assert.deepEqual(s.select(shuffled, 5).map((p) => p.id), [3, 1, 2, 3, 1]);
  assert.deepEqual(s.select(shuffled.slice(0, 2), 1).map((p) => p.id), [3], 'counter 7 over nodes 1 and 3: the second');
});

test('lease_based: uniform at random; distinct nodes while there are enough, then reused in the same order', () => {
  const s = createSelector('lease_based', seeded(7));
  const counts = firstChoices(() => s.select(nodes(0, 50, 100), 1), 30_000);
  for (const id of [1, 2, 3]) assert.ok(Math.abs(counts.get(id)! / 30_000 - 1 / 3) < 0.02, `node ${id}: ${counts.get(id)}`);
  for (let i = 0; i < 100; i++) {
    const three = s.select(nodes(0, 0, 0), 3).map((p) => p.id);
    assert.deepEqual([...three].sort(), [1, 2, 3]);
    const five = s.select(nodes(0, 0), 5).map((p) => p.id);
    assert.deepEqual(five.slice(2), [five[0], five[1], five[0]]);
    assert.notEqual(five[0], five[1]);
  }
});

test('load_based: weight max − regions + (max − min): fewer regions, likelier; equal loads: uniform', () => {
  const s = createSelector('load_based', seeded(11));
  // Regions 0, 10, 20: weights 40, 30, 20.
  const counts = firstChoices(() => s.select(nodes(0, 10, 20), 1), 45_000);
  const expected = new Map([
    [1, 4 / 9],
    [2, 3 / 9],
    [3, 2 / 9],
  ]);
  for (const [id, p] of expected) assert.ok(Math.abs(counts.get(id)! / 45_000 - p) < 0.015, `node ${id}: ${counts.get(id)} of 45000, expected ${p}`);
  const equal = firstChoices(() => s.select(nodes(5, 5), 1), 20_000);
  assert.ok(Math.abs(equal.get(1)! / 20_000 - 0.5) < 0.02);
  // Two regions on three nodes: distinct.
  for (let i = 0; i < 100; i++) assert.equal(new Set(s.select(nodes(0, 10, 20), 2).map((p) => p.id)).size, 2);
});
