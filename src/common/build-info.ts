/**
 * What this build is: version, git commit and build date, written to `dist/build-info.json` by
 * `scripts/write-build-info.mjs` at build time.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
  readonly commit_short: string;
  readonly branch: string;
  /** Whether the work tree had no uncommitted changes when built. */
  readonly clean: boolean;
  readonly build_date: string;
}

let cached: BuildInfo | undefined;

function readJson(url: URL): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function buildInfo(): BuildInfo {
  if (cached !== undefined) return cached;
  // This module is dist/src/common/build-info.js; the build writes dist/build-info.json.
  const written = readJson(new URL('../../build-info.json', import.meta.url));
  const pkg = readJson(new URL('../../../package.json', import.meta.url));
  const text = (v: unknown, fallback: string) => (typeof v === 'string' && v !== '' ? v : fallback);
  cached = Object.freeze({
    version: text(written?.['version'], text(pkg?.['version'], '0.0.0')),
    commit: text(written?.['commit'], 'unknown'),
    commit_short: text(written?.['commit_short'], 'unknown'),
    branch: text(written?.['branch'], 'unknown'),
    clean: written?.['clean'] === true,
    build_date: text(written?.['build_date'], 'unknown'),
  });
  return cached;
}

/** The text of `tsdb --version`. */
export function versionText(): string {
  const b = buildInfo();
  return [
    `tsdb ${b.version}`,
    `commit: ${b.commit}${b.clean ? '' : ' (with uncommitted changes)'}`,
    `branch: ${b.branch}`,
    `build date: ${b.build_date}`,
    `node: ${process.version}`,
  ].join('\n');
}

export function host(): string {
  return hostname();
}
