// Runs every compiled test (dist/**/*.test.js) with the Node test runner, TAP output
// (its closing `# pass N` / `# fail N` lines are the summary). Extra arguments are passed on,
// e.g. `node scripts/run-tests.mjs --test-name-pattern=config`. TSDB_TEST_FILTER=<substring>
// runs only the files whose path contains it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');

function find(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...find(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filter = process.env.TSDB_TEST_FILTER;
// Only tests whose source still exists: tsc leaves the output of deleted sources behind.
const files = find(dist)
  .filter((f) => existsSync(join(root, relative(dist, f)).replace(/\.js$/, '.ts')))
  .filter((f) => !filter || f.includes(filter))
  .map((f) => relative(root, f))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/; run `npm run build` first');
  process.exit(1);
}
const concurrency = Math.max(2, availableParallelism());
const res = spawnSync(
  process.execPath,
  ['--test', '--test-reporter=tap', `--test-concurrency=${concurrency}`, ...process.argv.slice(2), ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(res.status ?? 1);
