/**
 * Runs the golden SQL cases (`test/cases/**\/*.sql`) against a real standalone server through
 * `POST /v1/sql` and compares each with its `.result` file. `npm run test:update-cases` rewrites
 * the `.result` files from what the server answers, so that a change of behaviour shows in diffs.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { parseJsonExact, renderResponse, splitCase } from '../support/sql-cases.js';
import { tempDir } from '../support/temp.js';
import { startTsdb } from '../support/tsdb-process.js';

const CASES = fileURLToPath(new URL('../../../test/cases/', import.meta.url));
const UPDATE = process.env['TSDB_UPDATE_CASES'] === '1';

function caseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? caseFiles(join(dir, e.name)) : e.name.endsWith('.sql') ? [join(dir, e.name)] : []))
    .sort();
}

test('golden SQL cases give their recorded results', async (t) => {
  const { baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--data-home', tempDir(t)]);
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
      if (UPDATE) writeFileSync(resultFile, actual);
      assert.ok(existsSync(resultFile), `${relative(CASES, file)} has no .result file yet: run npm run test:update-cases and review it`);
      assert.equal(actual, readFileSync(resultFile, 'utf8'), `${relative(CASES, file)} differs from its .result (npm run test:update-cases to accept the new output)`);
    });
  }
});
