/** Data directories: created when missing, checked writable, locked against a second process. */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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

/** PF_EXITING in the flags of /proc/<pid>/stat: the process is being torn down (e.g. after SIGKILL). */
const PF_EXITING = 0x4;
/** How long `acquire` waits for an owner that is exiting to be gone (its files closed). */
const EXITING_WAIT_MS = 10_000;

/**
 * What /proc/<pid>/stat says of process `pid`: its start time (field 22, clock ticks since boot),
 * whether it has exited and waits to be reaped (a zombie), whether it is exiting now. Undefined
 * where /proc cannot tell.
 */
function procStat(pid: number): { readonly start: string; readonly zombie: boolean; readonly exiting: boolean } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; fields follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]);
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  return { start, zombie: state === 'Z' || state === 'X', exiting: (flags & PF_EXITING) !== 0 };
}

/**
 * Whether the lock's owner still runs: the pid exists, has not exited (a zombie has: it only
 * waits for its parent), and, when the lock recorded a start time, is the same process and not a
 * later one that got its pid. `exiting`: it is being torn down and will be gone shortly.
 */
function ownerState(pid: number, start: string | undefined): 'alive' | 'exiting' | 'gone' {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  const proc = procStat(pid);
  // Without /proc (or not allowed to read it) the signal probe decides.
  if (proc === undefined) return 'alive';
  if (proc.zombie || (start !== undefined && proc.start !== start)) return 'gone';
  return proc.exiting ? 'exiting' : 'alive';
}

/**
 * Waits (synchronously: only at start) while the owner is being torn down, so that its files —
 * the metadata store's own lock among them — are closed before this process opens them.
 */
function settledOwnerState(pid: number, start: string | undefined): 'alive' | 'exiting' | 'gone' {
  const until = Date.now() + EXITING_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let state = ownerState(pid, start);
  while (state === 'exiting' && Date.now() < until) {
    Atomics.wait(pause, 0, 0, 20);
    state = ownerState(pid, start);
  }
  return state;
}

/**
 * An exclusive claim on a data directory, so that two servers never write the same files: a
 * `LOCK` file holding the owner's pid and start time (`<pid> <start>`). A lock whose owner no
 * longer runs (gone, a zombie, or its pid reused by another process) is taken over. The lock is
 * released when the process exits, after everything else, or by `release()`.
 */
export class DirLock {
  private readonly onExit = (): void => this.release();

  private constructor(readonly path: string) {
    process.once('exit', this.onExit);
  }

  static acquire(dir: string, option: string): DirLock {
    const path = join(dir, 'LOCK');
    const self = procStat(process.pid);
    const mine = self === undefined ? `${process.pid}\n` : `${process.pid} ${self.start}\n`;
    for (let attempt = 0; attempt < 3; attempt++) {
      // Written whole under a name of its own, then linked as LOCK: no process ever reads a LOCK
      // without its owner (and takes it for stale).
      const own = `${path}.${process.pid}`;
      try {
        writeFileSync(own, mine);
        try {
          linkSync(own, path);
          return new DirLock(path);
        } finally {
          rmSync(own, { force: true });
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new Error(`${option} "${dir}": cannot create lock file: ${reason(err)}`, { cause: err });
        }
      }
      let text: string | undefined;
      let owner = NaN;
      let ownerStart: string | undefined;
      try {
        text = readFileSync(path, 'utf8');
        const [pid, start] = text.trim().split(/\s+/);
        owner = Number.parseInt(pid ?? '', 10);
        ownerStart = start;
      } catch {
        // Vanished meanwhile: the next attempt tells.
        continue;
      }
      if (Number.isInteger(owner) && owner !== process.pid && settledOwnerState(owner, ownerStart) !== 'gone') {
        throw new Error(
          `${option} "${dir}" is in use by another tsdb process (pid ${owner}); stop it first, or remove ${path} if that process is not tsdb`,
        );
      }
      takeOver(path, text);
    }
    throw new Error(`${option} "${dir}": could not take the lock ${path}`);
  }

  release(): void {
    process.off('exit', this.onExit);
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

/** How long a takeover may hold its mutex before another start removes it as left by a crash. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes the stale lock `path` if it still holds `stale`, under a mutex (a directory beside it):
 * two starts that both found the same stale lock cannot both remove it — the second would remove
 * the first one's new lock. A start that finds the mutex taken waits a moment and tries again.
 */
function takeOver(path: string, stale: string): void {
  const mutex = `${path}.takeover`;
  try {
    mkdirSync(mutex);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(mutex).mtimeMs > TAKEOVER_STALE_MS) rmSync(mutex, { recursive: true, force: true });
    } catch {
      // Removed meanwhile.
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    return;
  }
  try {
    let now: string | undefined;
    try {
      now = readFileSync(path, 'utf8');
    } catch {
      now = undefined;
    }
    if (now === stale) unlinkSync(path);
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
}
