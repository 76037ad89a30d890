/**
 * Shutdown that always ends, and a data-directory lock that belongs to a live process or to nobody
 * (issue 13 item 3): SIGTERM interrupts a runaway query and the process exits in bounded time;
 * a second server is refused while the first is still shutting down; a restart right after a
 * SIGKILL succeeds, also while the killed process is a zombie nobody has reaped yet.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/temp.js';
import { runTsdb, startTsdb, TSDB_BIN, withFreePorts } from '../support/tsdb-process.js';

/** Fields after the command name of /proc/<pid>/stat; undefined once the pid is gone. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, clock ticks) the process has used. */
function cpuTicks(pid: number): number {
  const f = procStat(pid)!;
  return Number(f[11]) + Number(f[12]);
}

async function until(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function lockOwner(dir: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(join(dir, 'LOCK'), 'utf8'), 10);
  } catch {
    return undefined;
  }
}

test('SIGTERM during a runaway query: the query is interrupted, the process exits 0 in bounded time, then the lock is gone', async (t) => {
  const dir = tempDir(t);
  const { proc, baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  assert.equal(lockOwner(dir), proc.pid);
  const idle = cpuTicks(proc.pid);
  const query = fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: new URLSearchParams({ sql: 'SELECT count(*) FROM range(1000000000000)' }) });
  // The query runs once the server burns CPU time (half a second of it): an observable state.
  await until(() => cpuTicks(proc.pid) - idle >= 50, 'the query to run');
  const signalled = Date.now();
  process.kill(proc.pid, 'SIGTERM');
  const exited = await Promise.race([proc.wait(), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000).unref())]);
  const elapsed = Date.now() - signalled;
  assert.deepEqual(exited, { code: 0, signal: null }, `the process did not exit within 30 s of SIGTERM:\n${proc.lines.map((l) => JSON.stringify(l)).join('\n')}`);
  assert.ok(elapsed < 20_000, `exited ${elapsed} ms after SIGTERM`);
  const res = await query;
  const body = (await res.json()) as { code: number; error: string };
  assert.equal(body.code, 1005);
  assert.equal(body.error, 'Query execution was cancelled: the server is shutting down');
  assert.ok(proc.lines.some((l) => l.msg === 'interrupted 1 running statement(s)'));
  assert.ok(!existsSync(join(dir, 'LOCK')), 'the lock is released at exit');
});

/** A raw HTTP connection: what the server sent so far, and when it closed. */
async function rawConnection(addr: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const i = addr.lastIndexOf(':');
  const socket = connect({ host: addr.slice(0, i), port: Number(addr.slice(i + 1)) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let data = '';
  socket.on('data', (c: Buffer) => (data += c.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => data, closed };
}

test('while a server is shutting down it keeps its lock: a second server on the same data home is refused until the first has exited', async (t) => {
  const dir = tempDir(t);
  const first = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--http-timeout', '60s', '--data-home', dir]);
  // A request in flight holds the shutdown open (the HTTP server answers it first): its headers
  // are in once the server sends "100 Continue", the body only when the test sends it.
  const conn = await rawConnection(first.http);
  const body = 'x'.repeat(100);
  conn.socket.write(`POST /health HTTP/1.1\r\nHost: ${first.http}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
  await until(() => conn.received().startsWith('HTTP/1.1 100 Continue\r\n'), 'the server to take the request');
  process.kill(first.proc.pid, 'SIGTERM');
  await first.proc.waitForLog((l) => l.msg === 'received SIGTERM, shutting down');
  await first.proc.waitForLog((l) => l.msg === 'PostgreSQL server stopped');
  assert.ok(first.proc.running);
  assert.equal(lockOwner(dir), first.proc.pid, 'the lock is held while shutting down');

  const second = await runTsdb(['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`storage.data_home "${dir}" is in use by another tsdb process \\(pid ${first.proc.pid}\\)`));
  assert.ok(first.proc.running, 'the first is still shutting down');

  conn.socket.write(body);
  assert.deepEqual(await first.proc.wait(), { code: 0, signal: null });
  await conn.closed;
  assert.match(conn.received(), /HTTP\/1\.1 200 OK\r\n/);
  assert.ok(!existsSync(join(dir, 'LOCK')));
  const third = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  assert.deepEqual(await third.proc.stop(), { code: 0, signal: null });
});

test('a restart right after SIGKILL succeeds, again and again, and keeps every acknowledged row', async (t) => {
  const dir = tempDir(t);
  const args = ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir];
  for (let round = 0; round < 3; round++) {
    const { proc, baseUrl } = await startTsdb(t, args);
    const res = await fetch(`${baseUrl}/v1/influxdb/write?db=public&precision=ms`, { method: 'POST', body: `m,round=r${round} v=${round}i ${1_700_000_000_000 + round}` });
    assert.equal(res.status, 204);
    const count = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: new URLSearchParams({ sql: 'SELECT count(*) FROM m' }) });
    assert.deepEqual(((await count.json()) as { output: Array<{ records: { rows: number[][] } }> }).output[0]!.records.rows, [[round + 1]]);
    // Killed, and the next one started at once, without waiting for the exit.
    process.kill(proc.pid, 'SIGKILL');
  }
  const last = await startTsdb(t, args);
  assert.deepEqual(await last.proc.stop(), { code: 0, signal: null });
});

test('a restart succeeds while the killed server is a zombie its parent has not reaped', async (t) => {
  const dir = tempDir(t);
  const args = withFreePorts(['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  // `sh` starts tsdb, then becomes a `sleep` that never reaps it: once killed, tsdb stays a zombie.
  const parent = spawn('sh', ['-c', '"$0" "$@" & echo "$!" >&2; exec sleep 120', process.execPath, TSDB_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => parent.kill('SIGKILL'));
  const pid = Number.parseInt(await new Promise<string>((resolve) => parent.stderr.once('data', (c: Buffer) => resolve(c.toString()))), 10);
  t.after(() => {
    if (procStat(pid) !== undefined) process.kill(pid, 'SIGKILL');
  });
  let out = '';
  parent.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await until(() => / started"/.test(out), 'the first server to start');
  assert.equal(lockOwner(dir), pid);
  process.kill(pid, 'SIGKILL');
  await until(() => procStat(pid)?.[0] === 'Z', 'the killed server to be a zombie');
  // The pid still answers signal 0, as a zombie does, and the LOCK file names it.
  assert.doesNotThrow(() => process.kill(pid, 0));
  assert.equal(lockOwner(dir), pid);
  const next = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  assert.equal(lockOwner(dir), next.proc.pid);
  assert.deepEqual(await next.proc.stop(), { code: 0, signal: null });
});
