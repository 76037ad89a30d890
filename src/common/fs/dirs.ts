/** Data directories: created when missing, checked writable, locked against a second process. */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a parent of it is a file, not a directory';
    case 'EEXIST':
      return 'it exists and is not a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return e.message;
  }
}

/**
 * Creates `dir` (with its parents) if needed and checks that files can be written in it, by
 * writing and removing a probe file. Throws an Error naming the option and the directory.
 */
export function ensureWritableDir(dir: string, option: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'EEXIST' });
    const probe = join(dir, `.tsdb-write-check-${process.pid}`);
    const fd = openSync(probe, 'w');
    closeSync(fd);
    rmSync(probe, { force: true });
  } catch (err) {
    throw new Error(`${option} "${dir}" is not a writable directory: ${reason(err)}`, { cause: err });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive claim on a data directory, so that two servers never write the same files:
 * a `LOCK` file holding the owner's pid. A lock left by a process that no longer runs is taken over.
 */
export class DirLock {
  private constructor(readonly path: string) {}

  static acquire(dir: string, option: string): DirLock {
    const path = join(dir, 'LOCK');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new DirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new Error(`${option} "${dir}": cannot create lock file: ${reason(err)}`, { cause: err });
        }
      }
      let owner = NaN;
      try {
        owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
      } catch {
        // Vanished meanwhile, or unreadable: treated as stale below.
      }
      if (Number.isInteger(owner) && owner !== process.pid && processAlive(owner)) {
        throw new Error(
          `${option} "${dir}" is in use by another tsdb process (pid ${owner}); stop it first, or remove ${path} if that process is not tsdb`,
        );
      }
      try {
        unlinkSync(path);
      } catch {
        // Another process took it over first; the next attempt tells.
      }
    }
    throw new Error(`${option} "${dir}": could not take the lock ${path}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
