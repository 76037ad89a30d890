// Writes dist/build-info.json: version, git commit, branch and build date, for `tsdb --version`
// and `GET /status`. Outside a git checkout the commit is "unknown".
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
};
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const commit = git('rev-parse', 'HEAD') || 'unknown';
const info = {
  version: pkg.version,
  commit,
  commit_short: commit === 'unknown' ? 'unknown' : commit.slice(0, 8),
  branch: git('rev-parse', '--abbrev-ref', 'HEAD') || 'unknown',
  clean: commit !== 'unknown' && git('status', '--porcelain', '--untracked-files=no') === '',
  build_date: new Date().toISOString(),
};
mkdirSync(new URL('dist/', root), { recursive: true });
writeFileSync(new URL('dist/build-info.json', root), JSON.stringify(info, null, 2) + '\n');
