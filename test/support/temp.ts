import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * A fresh temporary directory, removed when the test ends. A test's after-hooks run in the order they
 * were added, so a server or engine opened after this call is closed after the removal: a file it
 * writes meanwhile makes the removal retry (ENOTEMPTY) rather than fail the test.
 */
export function tempDir(t: TestContext, prefix = 'tsdb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return dir;
}

/** Writes `text` to `name` in a fresh temporary directory; returns the path. */
export function tempFile(t: TestContext, name: string, text: string): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, text);
  return path;
}
