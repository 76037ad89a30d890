// A Node test-runner reporter that writes only a short summary once the run ends: the counts
// and, for each failed test, its file, its name (with its suites) and the first lines of its
// error. scripts/run-tests.mjs runs it beside the TAP reporter and prints its output last, so a
// failure is found without reading thousands of TAP lines.
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ERROR_LINES = 8;
const LINE_WIDTH = 160;

/** `dist/test/x.test.js` → `test/x.test.ts` (the source the reader edits). */
function sourceOf(file) {
  if (!file) return '(unknown file)';
  const rel = relative(root, file);
  return rel.startsWith('dist/') && rel.endsWith('.js') ? rel.slice(5, -3) + '.ts' : rel;
}

function errorLines(error) {
  // The runner wraps what the test threw in ERR_TEST_FAILURE; the cause is what the reader wants.
  const e = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  let text;
  if (e instanceof Error || (e && typeof e === 'object' && 'message' in e)) {
    text = `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}`;
  } else {
    text = String(e);
  }
  const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');
  const shown = lines.slice(0, ERROR_LINES).map((l) => (l.length > LINE_WIDTH ? l.slice(0, LINE_WIDTH) + '…' : l));
  if (lines.length > ERROR_LINES) shown.push(`… (${lines.length - ERROR_LINES} more lines in the TAP output above)`);
  return shown;
}

export default async function* summaryReporter(source) {
  const counts = new Map();
  const failures = [];
  const stacks = new Map(); // file → names of the tests now running at each nesting level
  const stderr = new Map(); // file → its process's stderr lines (why a file failed to load or crashed)
  for await (const event of source) {
    const data = event.data;
    switch (event.type) {
      case 'test:start': {
        const stack = stacks.get(data.file) ?? [];
        stack.length = data.nesting;
        stack.push(data.name);
        stacks.set(data.file, stack);
        break;
      }
      case 'test:fail': {
        // A suite that fails only because a test inside it failed adds nothing to that test.
        if (data.details?.error?.failureType === 'subtestsFailed') break;
        const stack = stacks.get(data.file) ?? [];
        const path = [...stack.slice(0, data.nesting), data.name];
        // At nesting 0 of a file run in its own process the name is the file itself.
        const whole = data.nesting === 0 && data.file !== undefined && data.name === data.file;
        const name = whole ? '(the file itself)' : path.join(' › ');
        failures.push({
          file: sourceOf(data.file),
          where: data.file && data.line ? `${relative(root, data.file)}:${data.line}` : undefined,
          name,
          kind: data.details?.error?.failureType,
          lines: errorLines(data.details?.error),
          // The file's process failed outside any test: what it printed says why.
          stderrOf: whole ? data.file : undefined,
        });
        break;
      }
      case 'test:stderr': {
        const lines = stderr.get(data.file) ?? [];
        lines.push(...String(data.message).split('\n').filter((l) => l.trim() !== ''));
        if (lines.length > 40) lines.splice(0, lines.length - 40); // the error comes last
        stderr.set(data.file, lines);
        break;
      }
      case 'test:diagnostic': {
        // The run's closing diagnostics: "tests 12", "pass 11", "fail 1", … (the last one wins).
        const m = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(data.message);
        if (m && data.nesting === 0) counts.set(m[1], Number(m[2]));
        break;
      }
    }
  }
  const n = (k) => counts.get(k) ?? 0;
  const out = ['', '# ==== test summary ===='];
  out.push(
    `# ${n('tests')} tests: ${n('pass')} passed, ${n('fail')} failed, ${n('cancelled')} cancelled, ` +
      `${n('skipped')} skipped, ${n('todo')} todo, in ${Math.round(n('duration_ms') / 1000)} s`,
  );
  if (failures.length === 0) {
    out.push(n('fail') + n('cancelled') === 0 ? '# no failures' : '# (failures counted but none reported; see the TAP output above)');
  } else {
    out.push(`# failed (${failures.length}):`);
    for (const f of failures) {
      out.push(`# ✗ ${f.file} › ${f.name}${f.kind && f.kind !== 'testCodeFailure' ? ` [${f.kind}]` : ''}`);
      if (f.where) out.push(`#     at ${f.where}`);
      const stderrLines = f.stderrOf !== undefined ? (stderr.get(f.stderrOf) ?? []) : [];
      const lines = stderrLines.length > 0 ? errorLines(stderrLines.join('\n')) : f.lines;
      for (const l of lines) out.push(`#     ${l}`);
    }
  }
  yield out.join('\n') + '\n';
}
