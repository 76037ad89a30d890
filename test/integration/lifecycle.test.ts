/**
 * Each component started for real on free loopback ports: health, status, effective configuration,
 * logging, limits over a real socket, and graceful shutdown on SIGTERM and SIGINT.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseToml } from 'smol-toml';
import { tempDir } from '../support/temp.js';
import { spawnTsdb, startTsdb } from '../support/tsdb-process.js';

type Component = 'standalone' | 'frontend' | 'datanode' | 'metasrv';

/** `metasrv`: the address of a metasrv the frontend or datanode joins. */
function argsFor(component: Component, dir: string, metasrv = ''): { args: string[]; env: NodeJS.ProcessEnv } {
  const logs = ['--log-dir', join(dir, 'logs')];
  switch (component) {
    case 'standalone':
      return { args: ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', join(dir, 'home'), ...logs], env: {} };
    case 'frontend':
      return {
        args: ['frontend', 'start', '--http-addr', '127.0.0.1:0', '--metasrv-addr', metasrv, ...logs],
        env: { TSDB_FRONTEND__USER_PROVIDER: 'static_user_provider:cmd:admin=hunter2' },
      };
    case 'datanode':
      return { args: ['datanode', 'start', '--node-id', '42', '--http-addr', '127.0.0.1:0', '--data-home', join(dir, 'home'), '--metasrv-addrs', metasrv, ...logs], env: {} };
    case 'metasrv':
      return { args: ['metasrv', 'start', '--http-addr', '127.0.0.1:0', '--use-memory-store', ...logs], env: { TSDB_METASRV__DATA_HOME: join(dir, 'home') } };
  }
}

for (const component of ['standalone', 'frontend', 'datanode', 'metasrv'] as const) {
  test(`${component}: starts, serves /health, /status and /config, stops on SIGTERM with exit 0`, async (t) => {
    const dir = tempDir(t);
    // A frontend or datanode joins a cluster: its metasrv first.
    const metasrv = component === 'frontend' || component === 'datanode' ? await startTsdb(t, ['metasrv', 'start', '--bind-addr', '127.0.0.1:0', '--http-addr', '127.0.0.1:0', '--use-memory-store'], { env: { TSDB_METASRV__DATA_HOME: tempDir(t) } }) : undefined;
    const { args, env } = argsFor(component, dir, metasrv?.grpc);
    const { proc, baseUrl, http } = await startTsdb(t, args, { env });

    const health = await fetch(`${baseUrl}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), {});

    const status = (await (await fetch(`${baseUrl}/status`)).json()) as Record<string, unknown>;
    assert.equal(status['component'], component);
    assert.match(String(status['version']), /^\d+\.\d+\.\d+$/);
    assert.match(String(status['commit']), /^([0-9a-f]{40}|unknown)$/);
    assert.equal(typeof status['uptime'], 'string');
    assert.equal(typeof status['uptime_seconds'], 'number');
    assert.equal(status['pid'], proc.pid);

    const configRes = await fetch(`${baseUrl}/config`);
    assert.equal(configRes.headers.get('content-type'), 'text/plain; charset=utf-8');
    const configText = await configRes.text();
    const config = parseToml(configText) as Record<string, any>;
    assert.equal(config['http'].addr, '127.0.0.1:0');
    assert.equal(config['logging'].dir, join(dir, 'logs'));
    if (component === 'frontend') {
      assert.equal(config['user_provider'], 'static_user_provider:cmd:admin=******');
      assert.ok(!configText.includes('hunter2'), 'the password is masked');
    }
    if (component === 'datanode') assert.equal(config['node_id'], 42);

    // The start log names the listen address and the data paths.
    assert.ok(proc.lines.some((l) => l.msg === `HTTP server listening on ${http}`));
    if (component !== 'frontend') {
      const dirs = proc.lines.find((l) => l.msg === `${component}: data directories ready`);
      assert.ok(dirs, 'data directories are logged');
      assert.ok(existsSync(join(dir, 'home')), 'the home directory was created');
    }
    if (component === 'standalone' || component === 'datanode') assert.ok(existsSync(join(dir, 'home', 'wal')));

    const exit = await proc.stop('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(proc.lines.some((l) => l.msg === 'received SIGTERM, shutting down'));
    assert.ok(proc.lines.some((l) => l.msg === `tsdb ${component} stopped`));
    // Daily files: every line in tsdb.<date>.<n>.log.
    const files = readdirSync(join(dir, 'logs'));
    const main = files.find((f) => /^tsdb\.\d{4}-\d{2}-\d{2}\.\d+\.log$/.test(f));
    assert.ok(main, `a daily log file in ${files.join(', ')}`);
    assert.ok(files.some((f) => /^tsdb-err\.\d{4}-\d{2}-\d{2}\.\d+\.log$/.test(f)), 'an error log file');
    const fileText = readFileSync(join(dir, 'logs', main), 'utf8');
    assert.ok(fileText.includes(`"msg":"tsdb ${component} stopped"`), 'the log file holds the last line');
  });
}

test('SIGINT stops the server gracefully too', async (t) => {
  const dir = tempDir(t);
  const { proc } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  assert.deepEqual(await proc.stop('SIGINT'), { code: 0, signal: null });
  assert.ok(!existsSync(join(dir, 'LOCK')), 'the data directory is unlocked');
});

/** Opens a raw HTTP connection and collects what the server sends. */
async function rawConnection(addr: string): Promise<{
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  /** Resolves once what was received matches `re`; rejects if the connection closes first. */
  receivedMatch: (re: RegExp) => Promise<void>;
}> {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  const socket = connect({ host, port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let data = '';
  let isClosed = false;
  const waiters = new Set<() => void>();
  socket.on('data', (c: Buffer) => {
    data += c.toString();
    for (const w of waiters) w();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => {
    isClosed = true;
    for (const w of waiters) w();
    resolve();
  }));
  const receivedMatch = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (re.test(data)) resolve();
        else if (isClosed) reject(new Error(`connection closed before ${re} was received; received ${JSON.stringify(data)}`));
        else return;
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { socket, received: () => data, closed, receivedMatch };
}

test('graceful shutdown: a request in flight at SIGTERM is answered, then the process exits 0', async (t) => {
  const dir = tempDir(t);
  const { proc, http } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  const conn = await rawConnection(http);
  const body = 'x'.repeat(1000);
  // Headers and half the body now; the rest after SIGTERM. The server's `100 Continue` says it has
  // read the headers and started the request: only then is the request in flight. (A fixed pause
  // instead let SIGTERM overtake a request the server had not yet read when the machine was busy,
  // and the server rightly closed the idle connection.)
  conn.socket.write(
    `POST /health HTTP/1.1\r\nHost: ${http}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n` +
      `Expect: 100-continue\r\n\r\n${body.slice(0, 500)}`,
  );
  await conn.receivedMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
  process.kill(proc.pid, 'SIGTERM');
  await proc.waitForLog((l) => l.msg === 'received SIGTERM, shutting down');
  // The server must still be waiting for the rest of the body: give a wrong one the chance to exit.
  await sleep(200);
  assert.ok(proc.running, 'the server waits for the request in flight');
  conn.socket.write(body.slice(500));
  const exit = await proc.wait();
  await conn.closed;
  assert.match(conn.received(), /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  assert.match(conn.received(), /\r\n\r\n\{\}$/);
  assert.deepEqual(exit, { code: 0, signal: null });
});

test('http.body_limit: a too-large body is refused with 413 from its Content-Length, before it is sent', async (t) => {
  const dir = tempDir(t);
  const { http } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir], {
    env: { TSDB_STANDALONE__HTTP__BODY_LIMIT: '1KB' },
  });
  const conn = await rawConnection(http);
  // Announce 1 GiB and send only the headers: the answer must not wait for the body.
  conn.socket.write(`POST /health HTTP/1.1\r\nHost: ${http}\r\nContent-Type: text/plain\r\nContent-Length: ${2 ** 30}\r\n\r\n`);
  await conn.closed;
  assert.match(conn.received(), /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.match(conn.received(), /x-tsdb-err-code: 1004\r\n/);
  assert.ok(conn.received().includes('"error":"Request body is larger than http.body_limit (1KiB)"'));

  // A chunked body without a length is cut off once it passes the limit.
  const chunked = await rawConnection(http);
  chunked.socket.write(`POST /health HTTP/1.1\r\nHost: ${http}\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n`);
  for (let i = 0; i < 4; i++) chunked.socket.write(`200\r\n${'y'.repeat(512)}\r\n`);
  await chunked.closed;
  assert.match(chunked.received(), /^HTTP\/1\.1 413 Payload Too Large\r\n/);

  const ok = await fetch(`http://${http}/health`, { method: 'POST', body: 'z'.repeat(1024), headers: { 'content-type': 'text/plain' } });
  assert.equal(ok.status, 200);
});

test('http.timeout (--http-timeout, in seconds): a request that does not complete is answered 408', async (t) => {
  const dir = tempDir(t);
  const { http } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir, '--http-timeout', '1']);
  const conn = await rawConnection(http);
  const started = Date.now();
  conn.socket.write(`POST /health HTTP/1.1\r\nHost: ${http}\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly a part`);
  await conn.closed;
  const elapsed = Date.now() - started;
  assert.match(conn.received(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.ok(conn.received().includes('"code":1008,"error":"Request timed out after 1s"'));
  assert.ok(elapsed >= 900 && elapsed < 10_000, `answered after ${elapsed}ms`);
});

test('--log-level debug logs each request', async (t) => {
  const dir = tempDir(t);
  const debug = await startTsdb(t, ['--log-level', 'debug', 'standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', dir]);
  await fetch(`${debug.baseUrl}/health`);
  await debug.proc.waitForLog((l) => l.msg === 'request' && l['url'] === '/health' && l['status'] === 200);
  assert.equal((await debug.proc.stop()).code, 0);
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

test('logging.append_stdout = false: nothing on stdout, everything in the log files', async (t) => {
  const dir = tempDir(t);
  const port = await freePort();
  const proc = spawnTsdb(t, ['standalone', 'start', '--http-addr', `127.0.0.1:${port}`, '--data-home', dir], {
    env: { TSDB_STANDALONE__LOGGING__APPEND_STDOUT: 'false' },
  });
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
    if (status !== 200) await sleep(100);
  }
  assert.equal(status, 200);
  assert.equal((await proc.stop()).code, 0);
  assert.deepEqual(proc.lines, []);
  const main = readdirSync(join(dir, 'logs')).find((f) => f.startsWith('tsdb.'))!;
  const text = readFileSync(join(dir, 'logs', main), 'utf8');
  assert.ok(text.includes(`"msg":"HTTP server listening on 127.0.0.1:${port}"`));
  assert.ok(text.includes('"msg":"tsdb standalone stopped"'));
});
