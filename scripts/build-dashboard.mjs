// Builds the dashboard (dashboard/ → dist/dashboard/): type-checks the browser code with its own
// tsconfig (lib dom), bundles it with esbuild (minified, content-hashed names under assets/),
// writes index.html naming those files, and gzips every file beside it (`<file>.gz`) so that the
// server sends the compressed bytes without compressing per request. Prints the bundle's sizes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const src = join(root, 'dashboard');
const out = join(root, 'dist', 'dashboard');

const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', src, '--noEmit'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: [join(src, 'src', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => join(root, p));
const script = outputs.find((p) => p.endsWith('.js'));
const style = outputs.find((p) => p.endsWith('.css'));
if (script === undefined || style === undefined) throw new Error(`esbuild wrote no script or stylesheet: ${outputs.join(', ')}`);
const html = readFileSync(join(src, 'index.html'), 'utf8')
  .replace('%SCRIPT%', `assets/${basename(script)}`)
  .replace('%STYLE%', `assets/${basename(style)}`);
writeFileSync(join(out, 'index.html'), html);

let raw = 0;
let gz = 0;
for (const file of [join(out, 'index.html'), ...outputs]) {
  const body = readFileSync(file);
  const zipped = gzipSync(body, { level: constants.Z_BEST_COMPRESSION });
  writeFileSync(`${file}.gz`, zipped);
  raw += body.length;
  gz += zipped.length;
}
mkdirSync(out, { recursive: true });
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`dashboard: ${outputs.length + 1} files, ${kib(raw)} (${kib(gz)} gzipped) in dist/dashboard`);
