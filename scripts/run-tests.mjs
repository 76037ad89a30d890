// Runs every compiled test (dist/**/*.test.js) with the Node test runner, TAP output on stdout
// (its closing `# pass N` / `# fail N` lines are what CI reads), then prints a short summary last:
// the counts and each failed test's file, name and first error lines (from a second reporter,
// scripts/test-summary-reporter.mjs, written to a temporary file). Extra arguments are passed on,
// e.g. `node scripts/run-tests.mjs --test-name-pattern=config`. TSDB_TEST_FILTER=<substring>
// runs only the files whose path contains it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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
const summaryDir = mkdtempSync(join(tmpdir(), 'tsdb-test-summary-'));
const summaryFile = join(summaryDir, 'summary.txt');
const res = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'test-summary-reporter.mjs')}`,
    `--test-reporter-destination=${summaryFile}`,
    `--test-concurrency=${concurrency}`,
    ...process.argv.slice(2),
    ...files,
  ],
  { cwd: root, stdio: 'inherit' },
);
try {
  process.stdout.write(readFileSync(summaryFile, 'utf8'));
} catch {
  process.stdout.write(`\n# ==== test summary ====\n# no summary: the test runner ended with ${res.signal ?? `exit ${res.status}`}\n`);
}
rmSync(summaryDir, { recursive: true, force: true });
process.exit(res.status ?? 1);
