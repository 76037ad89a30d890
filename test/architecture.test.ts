/**
 * Layers (DESIGN.md, STYLE.md): imports point down. A layer may import itself or any layer below
 * it, never one above. Tests are outside the layers.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = new URL('../../src/', import.meta.url).pathname;

/**
 * Rank of each top-level folder of src/, and of a few sub-folders that sit lower than their
 * parent: lower ranks may import higher ranks only. A file's layer is the most specific key that
 * matches its path (`meta/kv` before `meta`).
 */
const RANK: Record<string, number> = {
  cli: 0,
  components: 1,
  servers: 2,
  frontend: 3,
  meta: 3,
  // Key-value backends: the catalog (rank 4) stores its metadata there.
  'meta/kv': 6,
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
    // Tests and shared suites (`x.suite.ts`, run only by tests) are outside the layers.
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.suite.ts') ? [p] : [];
  });
}

/** The longest RANK key made of the leading folders of `file`; else its first path segment under src/. */
function layerOf(file: string): string {
  const segments = relative(SRC, file).split('/');
  for (let n = segments.length - 1; n > 0; n--) {
    const key = segments.slice(0, n).join('/');
    if (RANK[key] !== undefined) return key;
  }
  return segments[0]!;
}

test('every folder of src/ has a rank', () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => RANK[f] === undefined), []);
});

test('a file is in the most specific layer that matches its path', () => {
  assert.equal(layerOf(join(SRC, 'meta/kv/level-kv-backend.ts')), 'meta/kv');
  assert.equal(layerOf(join(SRC, 'meta/kv/sub/x.ts')), 'meta/kv');
  assert.equal(layerOf(join(SRC, 'meta/metasrv.ts')), 'meta');
  assert.equal(layerOf(join(SRC, 'meta/kvx/x.ts')), 'meta', 'meta/kvx is not meta/kv');
  assert.equal(layerOf(join(SRC, 'catalog/kv/x.ts')), 'catalog', 'only meta/kv is ranked apart');
  assert.equal(layerOf(join(SRC, 'common/error/tsdb-error.ts')), 'common');
});

test('every sub-folder with its own rank exists, under a ranked folder', () => {
  for (const key of Object.keys(RANK).filter((k) => k.includes('/'))) {
    assert.ok(existsSync(join(SRC, key)) && statSync(join(SRC, key)).isDirectory(), `src/${key} is no folder`);
    assert.notEqual(RANK[key.split('/')[0]!], undefined, `${key} is under an unranked folder`);
  }
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
