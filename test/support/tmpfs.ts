/**
 * A small tmpfs that a test mounts for itself (tests run as root), to fill it and see how tsdb
 * meets a full disk. Unmounted when the test ends, also when it fails; the mount point is removed.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export function mountTmpfs(t: TestContext, sizeMiB: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}M`, 'tmpfs', dir]);
  t.after(() => {
    // A process still holding files there (a server the test failed to stop) would make a plain
    // umount fail: detach the mount anyway.
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/**
 * Fills the file system of `dir` with a file `path` until no byte more fits (ENOSPC); returns
 * its size. Deleting the file gives the space back.
 */
export function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1 << 20);
  let size = 0;
  try {
    for (let n = chunk.length; n >= 1; ) {
      try {
        size += writeSync(fd, chunk, 0, n);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        n = Math.floor(n / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}
