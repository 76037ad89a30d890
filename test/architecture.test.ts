/**
 * Layers (DESIGN.md, STYLE.md): imports point down. A layer may import itself or any layer below
 * it, never one above. Tests are outside the layers. Three rules more (the seam, DESIGN.md D13):
 * above the engine only the region server of this process (datanode/) reaches into engine/; only
 * the wiring (components/) reaches into datanode/, so the frontend sees regions through the
 * `RegionServer` interface alone; and types/, the vocabulary both sides of that seam share,
 * imports nothing but itself (and Arrow).
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
  // The region server over the engine in this process (standalone, datanode).
  datanode: 4,
  engine: 5,
  storage: 6,
  config: 7,
  common: 8,
  types: 9,
};

/** Layers above the engine that reach regions only through the region server interface (DESIGN.md D13). */
const ABOVE_ENGINE = ['frontend', 'query', 'sql', 'promql', 'catalog', 'servers', 'meta'];

/** The layers that may import datanode/ (the region server of this process): the wiring alone. */
const DATANODE_IMPORTERS = ['components', 'cli', 'datanode'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    // Tests and shared suites (`x.suite.ts`, run only by tests) are outside the layers.
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.suite.ts') ? [p] : [];
  });
}

/** The module specifiers a source imports or re-exports: `… from 'x'`, `import 'x'`, `import('x')`. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\b(?:import|export)\b[^'"]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm)].map((m) => m[2]!);
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

test('the import scan sees static, side-effect and dynamic imports and re-exports', () => {
  const text = [
    "import { a } from './a.js';",
    'import type {',
    '  B,',
    "} from '../b.js';",
    "import './c.js';",
    "const d = await import('./d.js');",
    "export { e } from './e.js';",
    "export * from 'f';",
    '// nothing imported from this comment line',
  ].join('\n');
  assert.deepEqual(specifiers(text), ['./a.js', '../b.js', './c.js', './d.js', './e.js', 'f']);
});

test('imports point down the layers', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    for (const spec of specifiers(readFileSync(file, 'utf8')).filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(SRC)) {
        violations.push(`${relative(SRC, file)} imports ${spec} outside src/`);
        continue;
      }
      const to = layerOf(target);
      if (RANK[to]! < RANK[from]!) violations.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to}, a layer above)`);
    }
  }
  assert.deepEqual(violations, []);
});

/** The files of src/ that `file` imports, as paths relative to src/. */
function importedFiles(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8'))
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(SRC, resolve(dirname(file), s)));
}

test('above the engine, nothing imports engine/ (regions are reached through the RegionServer interface)', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    if (!ABOVE_ENGINE.includes(path.split('/')[0]!)) continue;
    violations.push(...importedFiles(file).filter((t) => t.startsWith('engine/')).map((t) => `${path} imports ${t}`));
  }
  assert.deepEqual(violations, []);
});

test('only the wiring imports datanode/ (the frontend sees no region server implementation)', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    if (DATANODE_IMPORTERS.includes(path.split('/')[0]!)) continue;
    violations.push(...importedFiles(file).filter((t) => t.startsWith('datanode/')).map((t) => `${path} imports ${t}`));
  }
  assert.deepEqual(violations, []);
});

/** Packages types/ may name: Arrow's record batches are what region queries answer (DESIGN.md D13). */
const TYPES_PACKAGES = ['apache-arrow'];

test('types/ imports only types/ (and Arrow)', () => {
  const violations: string[] = [];
  for (const file of sources(join(SRC, 'types'))) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const inside = spec.startsWith('.') ? resolve(dirname(file), spec).startsWith(join(SRC, 'types') + '/') : TYPES_PACKAGES.includes(spec);
      if (!inside) violations.push(`${relative(SRC, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(violations, []);
});
