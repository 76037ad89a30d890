import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DirLock } from './dirs.js';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-dirs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Field 22 of /proc/<pid>/stat: the process's start time in clock ticks since boot. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** A live process (a sleep), killed when the test ends. */
function liveProcess(t: TestContext): number {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  return child.pid!;
}

test('the LOCK file records pid and start time, and is removed by release()', (t) => {
  const dir = tempDir(t);
  const lock = DirLock.acquire(dir, 'storage.data_home');
  assert.equal(readFileSync(join(dir, 'LOCK'), 'utf8'), `${process.pid} ${startTime(process.pid)}\n`);
  lock.release();
  assert.ok(!existsSync(join(dir, 'LOCK')));
});

test('a lock of a live process is refused; of the same pid with another start time (pid reused), taken over', (t) => {
  const dir = tempDir(t);
  const pid = liveProcess(t);
  writeFileSync(join(dir, 'LOCK'), `${pid} ${startTime(pid)}\n`);
  assert.throws(() => DirLock.acquire(dir, 'storage.data_home'), {
    message: `storage.data_home "${dir}" is in use by another tsdb process (pid ${pid}); stop it first, or remove ${join(dir, 'LOCK')} if that process is not tsdb`,
  });
  // An old lock format (pid only) of a live process is refused too.
  writeFileSync(join(dir, 'LOCK'), `${pid}\n`);
  assert.throws(() => DirLock.acquire(dir, 'storage.data_home'), /is in use by another tsdb process/);
  // The pid now belongs to a process started at another time: the owner is gone.
  writeFileSync(join(dir, 'LOCK'), `${pid} ${Number(startTime(pid)) - 1}\n`);
  DirLock.acquire(dir, 'storage.data_home').release();
});

test('a lock of a process that has exited but is not reaped yet (a zombie) is taken over', async (t) => {
  const dir = tempDir(t);
  // `sh` starts a short sleep, then becomes a long sleep that never reaps it: a zombie.
  const child = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => child.kill('SIGKILL'));
  const zombie = Number.parseInt(await new Promise<string>((resolve) => child.stdout.once('data', (c: Buffer) => resolve(c.toString()))), 10);
  const start = startTime(zombie);
  while (state(zombie) !== 'Z') await new Promise((r) => setTimeout(r, 10));
  // process.kill(pid, 0) still succeeds on a zombie: that alone would call it alive.
  assert.doesNotThrow(() => process.kill(zombie, 0));
  writeFileSync(join(dir, 'LOCK'), `${zombie} ${start}\n`);
  DirLock.acquire(dir, 'storage.data_home').release();
});

test('a lock of a pid that no longer exists is taken over', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'LOCK'), '2147483646 12345\n');
  DirLock.acquire(dir, 'storage.data_home').release();
});

test('the lock is released when the process exits, even without release()', async (t) => {
  const dir = tempDir(t);
  const dirsModule = new URL('./dirs.js', import.meta.url).pathname;
  const script = `import { DirLock } from ${JSON.stringify(dirsModule)}; DirLock.acquire(${JSON.stringify(dir)}, 'x'); console.log('locked'); setTimeout(() => process.exit(0), 50);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  assert.ok(existsSync(join(dir, 'LOCK')), 'held while the process runs');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.ok(!existsSync(join(dir, 'LOCK')), 'removed at exit');
});

test('starts racing for the same stale lock: exactly one takes it, the others are told it is in use', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'LOCK'), '2147483646 12345\n');
  const dirsModule = new URL('./dirs.js', import.meta.url).pathname;
  // Each holds what it took for a second, so that the others meet it.
  // All start at the same instant (a busy wait), so that they meet in the takeover.
  const at = Date.now() + 1500;
  const script = `import { DirLock } from ${JSON.stringify(dirsModule)};
while (Date.now() < ${at});
try { DirLock.acquire(${JSON.stringify(dir)}, 'x'); console.log('locked'); setTimeout(() => process.exit(0), 1000); }
catch (e) { console.log(/in use by another tsdb process/.test(e.message) ? 'refused' : 'error: ' + e.message); }`;
  const outcomes = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      t.after(() => child.kill('SIGKILL'));
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((resolve) => child.on('close', resolve));
      return out.trim();
    }),
  );
  assert.equal(outcomes.filter((o) => o === 'locked').length, 1, outcomes.join(', '));
  assert.equal(outcomes.filter((o) => o === 'refused').length, 5, outcomes.join(', '));
});
