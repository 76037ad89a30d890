#!/usr/bin/env node
// Compares tsdb's answers with GreptimeDB's own sqlness goldens, statement by statement, over HTTP.
//
//   node scripts/compare-sqlness.mjs --greptimedb <git dir of a GreptimeDB checkout or clone>
//        --url http://127.0.0.1:4000 [--filter <regex over the case paths>] [--out <dir>]
//
// Reads tests/cases/standalone/common/**/*.sql and their .result files from the GreptimeDB repository
// (with `git show HEAD:…`, so a bare mirror will do), runs each case's statements in order against a
// running tsdb (`tsdb standalone start` with an empty data home), renders each answer as the golden
// runner does (`test/support/sql-cases.ts`, so `npm run build` first) and counts the statements whose
// output is GreptimeDB's. A statement marked `-- SQLNESS PROTOCOL …` (another protocol's client) is
// not counted; `-- SQLNESS REPLACE` and `SORT_RESULT` are applied, and the reference's rename rule
// (`greptime` → `tsdb`) to statements and goldens alike. Writes per-case differences and a summary
// (case, statements, identical) into --out (default: ./sqlness-compare). Expected gaps: HTTP JSON
// carries no NaN or infinity (null) where sqlness prints them; an empty result is `++` in sqlness.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonExact, renderResponse } from '../dist/test/support/sql-cases.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
if (args.greptimedb === undefined || args.url === undefined) {
  console.error('usage: node scripts/compare-sqlness.mjs --greptimedb <repo> --url <tsdb http url> [--filter <regex>] [--out <dir>]');
  process.exit(2);
}
const repo = args.greptimedb;
const filter = new RegExp(args.filter ?? '.');
const out = args.out ?? 'sqlness-compare';
/** The rename rule of `../shared/reference/api.md`: GreptimeDB's names are tsdb's with `greptime` → `tsdb`. */
const renamed = (text) => text.replace(/GREPTIMEDB/g, 'TSDB').replace(/GreptimeDB/g, 'tsdb').replace(/Greptime/g, 'Tsdb').replace(/greptime/g, 'tsdb');
const git = (...a) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 1 << 28 });
const PREFIX = 'tests/cases/standalone/common/';

/** A case's statements, each with the SQLNESS directives written before it. */
function statements(text) {
  const out = [];
  let lines = [];
  let directives = [];
  for (const line of text.split('\n')) {
    if (lines.length === 0 && line.trim() === '') continue;
    if (lines.length === 0 && line.trim().startsWith('--')) {
      if (/SQLNESS/.test(line)) directives.push(line.trim());
      continue;
    }
    lines.push(line);
    if (line.trimEnd().endsWith(';')) {
      out.push({ sql: lines.join('\n').trim(), directives });
      lines = [];
      directives = [];
    }
  }
  return out;
}

/** A .result file's outputs, in statement order. */
function outputs(text) {
  const items = [];
  for (const chunk of text.split(/\n\n/)) {
    const t = chunk.replace(/^\n+|\n+$/g, '');
    if (t === '') continue;
    const body = t.split('\n').filter((l) => !l.trim().startsWith('--')).join('\n').trim();
    if (body.endsWith(';') && !/^[+|]/.test(body) && !/^(Error|Affected)/.test(body)) items.push([]);
    else if (items.length > 0) items.at(-1).push(t);
  }
  return items.map((parts) => parts.join('\n\n').trim());
}

function sortedTable(t) {
  const lines = t.split('\n');
  if (lines.length < 5 || !lines[0].startsWith('+')) return t;
  return [...lines.slice(0, 3), ...lines.slice(3, -1).sort(), lines.at(-1)].join('\n');
}

const cases = git('ls-tree', '-r', '--name-only', 'HEAD', PREFIX).split('\n').filter((f) => f.endsWith('.sql') && filter.test(f));
mkdirSync(out, { recursive: true });
const summary = [];
for (const file of cases) {
  let expected;
  try {
    expected = outputs(renamed(git('show', `HEAD:${file.replace(/\.sql$/, '.result')}`)));
  } catch {
    continue;
  }
  let db = 'public';
  let zone;
  let counted = 0;
  let same = 0;
  const diffs = [];
  for (const [i, s] of statements(renamed(git('show', `HEAD:${file}`))).entries()) {
    let actual;
    try {
      const res = await fetch(`${args.url}/v1/sql?db=${encodeURIComponent(db)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(zone !== undefined && { 'x-tsdb-timezone': zone }) },
        body: new URLSearchParams({ sql: s.sql }).toString(),
        signal: AbortSignal.timeout(60_000),
      });
      const json = parseJsonExact(await res.text());
      const use = /^use\s+("?)([^";\s]+)\1\s*;?$/i.exec(s.sql);
      if (use && json.code === 0) db = use[1] === '"' ? use[2] : use[2].toLowerCase();
      const tz = /^set\s+(?:time_zone|timezone|time\s+zone)\s*(?:=|to)?\s*'([^']*)'\s*;?$/i.exec(s.sql);
      if (tz && json.code === 0) zone = tz[1];
      actual = renderResponse(json);
    } catch (e) {
      actual = `(no answer: ${e.message})`;
    }
    for (const d of s.directives) {
      const m = /^--\s*SQLNESS\s+REPLACE\s+(\S+)\s+(.*)$/.exec(d);
      if (m !== null) {
        try {
          actual = actual.replace(new RegExp(m[1], 'g'), m[2]);
        } catch {
          // a pattern JavaScript does not read: left as it is
        }
      }
    }
    if (expected[i] === undefined || s.directives.some((d) => /SQLNESS\s+PROTOCOL/.test(d))) continue;
    const sort = s.directives.some((d) => /SQLNESS\s+SORT_RESULT/.test(d));
    const [want, got] = sort ? [sortedTable(expected[i]), sortedTable(actual.trim())] : [expected[i], actual.trim()];
    counted++;
    if (want === got) same++;
    else diffs.push(`--- ${s.sql}\nGreptimeDB:\n${expected[i]}\ntsdb:\n${actual}\n`);
  }
  const name = file.slice(PREFIX.length);
  summary.push(`${name}\t${counted}\t${same}`);
  writeFileSync(join(out, `${name.replaceAll('/', '__')}.diff`), diffs.join('\n'));
  process.stderr.write(`${name}: ${same}/${counted}\n`);
}
writeFileSync(join(out, 'summary.tsv'), `${summary.join('\n')}\n`);
const [total, identical] = summary.reduce((acc, l) => [acc[0] + Number(l.split('\t')[1]), acc[1] + Number(l.split('\t')[2])], [0, 0]);
console.log(`${cases.length} cases, ${total} statements, ${identical} identical (${((100 * identical) / Math.max(1, total)).toFixed(1)} %)`);
