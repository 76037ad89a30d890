/**
 * Layers (DESIGN.md, STYLE.md): imports point down. A layer may import itself or any layer below
 * it, never one above. Tests are outside the layers.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Rank of each top-level folder of src/: lower ranks may import higher ranks only. */
const RANK: Record<string, number> = {
  cli: 0,
  components: 1,
  servers: 2,
  frontend: 3,
  meta: 3,
  sql: 4,
  promql: 4,
  query: 4,
  catalog: 4,
  engine: 5,
  storage: 6,
  config: 7,
  common: 8,
  types: 9,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

test('every folder of src/ has a rank', () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => RANK[f] === undefined), []);
});

test('imports point down the layers', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      const target = resolve(dirname(file), m[1]!);
      if (!target.startsWith(SRC)) {
        violations.push(`${relative(SRC, file)} imports ${m[1]} outside src/`);
        continue;
      }
      const to = layerOf(target);
      if (RANK[to]! < RANK[from]!) violations.push(`${relative(SRC, file)} (${from}) imports ${m[1]} (${to}, a layer above)`);
    }
  }
  assert.deepEqual(violations, []);
});
