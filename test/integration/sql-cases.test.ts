/**
 * Runs the golden SQL cases (`test/cases/**\/*.sql`) against a real standalone server through
 * `POST /v1/sql` and compares each with its `.result` file. `npm run test:update-cases` rewrites
 * the `.result` files from what the server answers, so that a change of behaviour shows in diffs.
 * The same cases run a second time with the regions on a datanode, reached through the remote
 * region client (gRPC region requests, Flight region queries): the answers must be the same.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { parseJsonExact, renderResponse, splitCase } from '../support/sql-cases.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type Started } from '../support/tsdb-process.js';
import { startCluster } from '../support/cluster.js';

const CASES = fileURLToPath(new URL('../../../test/cases/', import.meta.url));
const UPDATE = process.env['TSDB_UPDATE_CASES'] === '1';
const REMOTE_STANDALONE = fileURLToPath(new URL('../support/remote-standalone-child.js', import.meta.url));

function caseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? caseFiles(join(dir, e.name)) : e.name.endsWith('.sql') ? [join(dir, e.name)] : []))
    .sort();
}

/** Runs every case against the server at `baseUrl`; with `update`, rewrites the `.result` files. */
async function runCases(t: TestContext, baseUrl: string, update: boolean): Promise<void> {
  const files = caseFiles(CASES);
  assert.ok(files.length > 0, `no cases in ${CASES}`);
  for (const file of files) {
    await t.test(relative(CASES, file), async () => {
      let db = 'public';
      let timezone: string | undefined;
      const parts: string[] = [];
      for (const sql of splitCase(readFileSync(file, 'utf8'))) {
        const res = await fetch(`${baseUrl}/v1/sql?db=${encodeURIComponent(db)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(timezone !== undefined && { 'x-tsdb-timezone': timezone }) },
          body: new URLSearchParams({ sql }).toString(),
        });
        const json = parseJsonExact(await res.text());
        // Each request is a session of its own: the runner carries USE and SET time_zone over, as a client would.
        const use = /^use\s+("?)([^";\s]+)\1\s*;?$/i.exec(sql);
        if (use && json['code'] === 0) db = use[1] === '"' ? use[2]! : use[2]!.toLowerCase();
        const zone = /^set\s+(?:time_zone|timezone|time\s+zone)\s*(?:=|to)?\s*'([^']*)'\s*;?$/i.exec(sql);
        if (zone && json['code'] === 0) timezone = zone[1]!;
        parts.push(`${sql}\n\n${renderResponse(json)}\n\n`);
      }
      const actual = parts.join('');
      const resultFile = file.replace(/\.sql$/, '.result');
      if (update) writeFileSync(resultFile, actual);
      assert.ok(existsSync(resultFile), `${relative(CASES, file)} has no .result file yet: run npm run test:update-cases and review it`);
      assert.equal(actual, readFileSync(resultFile, 'utf8'), `${relative(CASES, file)} differs from its .result (npm run test:update-cases to accept the new output)`);
    });
  }
}

test('golden SQL cases give their recorded results', async (t) => {
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  await runCases(t, baseUrl, UPDATE);
});

test('golden SQL cases give the same results with the regions on a datanode, through the remote region client', async (t) => {
  const datanode: Started = await startTsdb(t, ['datanode', 'start', '--node-id', '1', '--http-addr', '127.0.0.1:0', '--rpc-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
  assert.ok(datanode.grpc !== undefined, 'the datanode serves its region service');
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)], { script: REMOTE_STANDALONE, scriptArgs: [datanode.grpc] });
  await runCases(t, baseUrl, false);
});

test('golden SQL cases give the same results through the frontend of a cluster (metasrv, 3 datanodes)', async (t) => {
  // COPY's files in a directory of this test's (a frontend's default is shared by every process).
  const cluster = await startCluster(t, { datanodes: 3, frontendEnv: { TSDB_FRONTEND__COPY__DIR: join(tempDir(t), 'copy') } });
  await runCases(t, cluster.url, false);
});
