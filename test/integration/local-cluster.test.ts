/**
 * `scripts/local-cluster.mjs` (`npm run cluster`): one command starts etcd, a metasrv, datanodes
 * and a frontend that answer SQL, and Ctrl-C (SIGINT) stops every one of them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/local-cluster.mjs', import.meta.url));

test('the local cluster starts etcd, a metasrv, 2 datanodes and a frontend that stores rows, and stops them all', async (t) => {
  // Ports 2379…5002 moved by an offset unlikely to be taken, below the ephemeral range tests bind free ports in.
  const offset = 20000 + Math.floor(Math.random() * 700) * 10;
  const child = spawn(process.execPath, [SCRIPT, '--datanodes', '2', '--dir', tempDir(t), '--port-offset', String(offset)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const deadline = Date.now() + 60_000;
  while (!out.includes('Ctrl-C stops it.')) {
    assert.ok(child.exitCode === null && Date.now() < deadline, `the cluster did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.match(out, new RegExp(`etcd on 127\\.0\\.0\\.1:${2379 + offset}`));
  const url = `http://127.0.0.1:${4000 + offset}/v1/sql`;
  const sql = async (q: string) => (await (await fetch(url, { method: 'POST', body: new URLSearchParams({ sql: q }) })).json()) as { code: number; output: Array<{ records?: { rows: unknown[][] } }> };
  assert.equal((await sql('CREATE TABLE cpu (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, usage DOUBLE)')).code, 0);
  assert.equal((await sql("INSERT INTO cpu VALUES ('a', 1000, 1.5)")).code, 0);
  assert.deepEqual((await sql('SELECT host, usage FROM cpu')).output[0]!.records!.rows, [['a', 1.5]]);
  const nodes = (await (await fetch(`http://127.0.0.1:${3000 + offset}/admin/nodes`)).json()) as { nodes: Array<{ role: string; alive: boolean }> };
  assert.deepEqual(nodes.nodes.map((n) => n.role).sort(), ['datanode', 'datanode', 'frontend', 'metasrv']);

  child.kill('SIGINT');
  assert.equal(await exited, 0, out);
  for (const name of ['frontend', 'datanode2', 'datanode1', 'metasrv', 'etcd']) assert.match(out, new RegExp(`  ${name} stopped`));
});
