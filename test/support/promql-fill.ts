/**
 * A tool for writing PromQL case files: runs a script on a real Prometheus 2.42 and prints it with
 * each eval's expectation replaced by what Prometheus answered, for the author to review (diff it
 * against the file) before taking it. Errors where a result was expected come out as `# ERROR`
 * comments. Not a test: `node dist/test/support/promql-fill.js test/promql-cases/<file>.test`.
 */
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { parseScript, STALE, type QueryAnswer, type SeqValue } from './promql-script.js';
import { runScript } from './promql-targets.js';

const fmt = (v: SeqValue): string => (v === undefined ? '_' : v === STALE ? 'stale' : Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Inf' : v === -Infinity ? '-Inf' : String(v));

/** `1 1 1 _ _` as `1x2 _x2`: runs of one value written with `x`. */
function compress(vals: SeqValue[]): string {
  const out: string[] = [];
  for (let i = 0; i < vals.length; ) {
    let j = i;
    while (j + 1 < vals.length && fmt(vals[j + 1]) === fmt(vals[i])) j++;
    const n = j - i + 1;
    if (vals[i] === undefined) out.push(n === 1 ? '_' : `_x${n}`);
    else out.push(n === 1 ? fmt(vals[i]) : n === 2 ? `${fmt(vals[i])} ${fmt(vals[i])}` : `${fmt(vals[i])}x${n - 1}`);
    i = j + 1;
  }
  return out.join(' ');
}

function seriesText(labels: Record<string, string>): string {
  // A name that is not an identifier (label_join can make one) stays a label inside the braces.
  const plain = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(labels['__name__'] ?? '');
  const name = plain ? labels['__name__']! : '';
  const rest = Object.entries(labels).filter(([k]) => k !== '__name__' || !plain).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${name}{${rest.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}}`;
}

function expectation(a: QueryAnswer, range: { startMs: number; endMs: number; stepMs: number } | undefined, fail: boolean): string[] {
  if (!a.ok) return fail ? [`  expected_fail_message ${a.error}`] : [`# ERROR (HTTP ${a.status}, ${a.errorType}): ${a.error}`];
  if (fail) return ['# ERROR: eval_fail but Prometheus answered'];
  if (a.resultType === 'scalar') return [`  ${fmt(a.value)}`];
  if (a.resultType === 'string') return [`# STRING ${JSON.stringify(a.value)}`];
  if (a.resultType === 'vector') return a.series.map((s) => `  ${seriesText(s.labels)} ${fmt(s.value)}`);
  return a.series.map((s) => {
    if (range === undefined) return `# MATRIX ${seriesText(s.labels)}`;
    const byT = new Map(s.points);
    const vals: SeqValue[] = [];
    for (let t = range.startMs; t <= range.endMs; t += range.stepMs) vals.push(byT.get(t));
    while (vals.length > 0 && vals.at(-1) === undefined) vals.pop();
    return `  ${seriesText(s.labels)} ${compress(vals)}`;
  });
}

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node dist/test/support/promql-fill.js <case file>');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');
const lines = text.split('\n');
const cmds = parseScript(text, file);
const hooks: Array<() => unknown> = [];
const t = { after: (fn: () => unknown) => void hooks.push(fn) } as unknown as TestContext;
const answers = new Map<number, string[]>();
try {
  await runScript(t, 'prometheus', cmds, async (o) => {
    answers.set(o.cmd.line, expectation(o.answer, o.cmd.range ? o.cmd : undefined, o.cmd.fail));
  });
} finally {
  for (const h of hooks) await h();
}
const out: string[] = [];
for (let i = 0; i < lines.length; i++) {
  out.push(lines[i]!);
  const a = answers.get(i + 1);
  if (a === undefined) continue;
  // Skip the old expectation block (up to the next blank or comment line).
  while (i + 1 < lines.length && lines[i + 1]!.trim() !== '' && !lines[i + 1]!.trim().startsWith('#')) i++;
  out.push(...a);
}
process.stdout.write(out.join('\n'));
