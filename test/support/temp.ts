import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/** A fresh temporary directory, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'tsdb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `text` to `name` in a fresh temporary directory; returns the path. */
export function tempFile(t: TestContext, name: string, text: string): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, text);
  return path;
}
