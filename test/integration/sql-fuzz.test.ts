/**
 * SQL fuzzing of `POST /v1/sql`: mutants of the golden cases' statements (`test/support/sql-fuzz.ts`)
 * are sent to one real standalone server, over the tables the golden cases create. A user's
 * mistake must never be an internal error: the test fails listing every statement answered with
 * HTTP 5xx or status 1000 (Unknown) / 1003 (Internal), or not answered at all, with the seed and
 * the server's log lines of that statement. Afterwards the server must still answer /health and
 * `SELECT 1`.
 *
 * Deterministic for a seed: the statements depend only on the seed and the count (the time bound
 * is a safety net that stops a slow run early and says so). Environment:
 *   TSDB_FUZZ_SEED     the seed (default 20261125)
 *   TSDB_FUZZ_COUNT    how many statements (default 7000, about 20 s on 2 cores)
 *   TSDB_FUZZ_SECONDS  stop after this long whatever the count (default 60)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { splitCase } from '../support/sql-cases.js';
import { mutants, type Mutant } from '../support/sql-fuzz.js';
import { tempDir } from '../support/temp.js';
import { startTsdb, type LogLine } from '../support/tsdb-process.js';

const CASES = fileURLToPath(new URL('../../../test/cases/', import.meta.url));

function envInt(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, not ${raw}`);
  return n;
}

const SEED = envInt('TSDB_FUZZ_SEED', 20261125);
const COUNT = envInt('TSDB_FUZZ_COUNT', 7000);
const SECONDS = envInt('TSDB_FUZZ_SECONDS', 60);
/** The fixture's database and tables are created again every so many statements (mutants drop and rename them). */
const RESTORE_EVERY = 200;

interface Answer {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

function caseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? caseFiles(join(dir, e.name)) : e.name.endsWith('.sql') ? [join(dir, e.name)] : []))
    .sort();
}

/** JSON text of a statement for the report (control bytes escaped), long ones cut in the middle. */
function shown(sql: string, max = 400): string {
  const text = sql.length <= max ? sql : `${sql.slice(0, max / 2)}…[${sql.length - max} more chars]…${sql.slice(-max / 2)}`;
  return JSON.stringify(text);
}

test('mutated SQL never gets an internal error or a 5xx, and the server survives it', { timeout: (SECONDS + 120) * 1000 }, async (t) => {
  const { proc, baseUrl } = await startTsdb(t, ['standalone', 'start', '--http-addr', '127.0.0.1:0', '--http-timeout', '10', '--data-home', tempDir(t)]);

  const post = async (sql: string, db = 'public'): Promise<Answer | { error: string }> => {
    try {
      const res = await fetch(`${baseUrl}/v1/sql?db=${db}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ sql }).toString(),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let json: { code?: unknown; error?: unknown };
      try {
        json = JSON.parse(text) as { code?: unknown; error?: unknown };
      } catch {
        return { error: `HTTP ${res.status} with a body that is not JSON: ${shown(text, 200)}` };
      }
      return { status: res.status, code: Number(json.code), message: String(json.error ?? '') };
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      return { error: `no answer: ${String(err)}${cause !== undefined ? ` (${String(cause)})` : ''}` };
    }
  };

  const files = caseFiles(CASES);
  const corpus = files.flatMap((f) => splitCase(readFileSync(f, 'utf8')));
  assert.ok(corpus.length > 100, `only ${corpus.length} statements in ${CASES}`);
  // The fixture: what the golden cases create and write, without their DROPs.
  const fixture = corpus.filter((s) => !/^\s*(drop|use)\b/i.test(s));
  const creates = fixture.filter((s) => /^\s*create\s+(table|database|schema)\b/i.test(s));
  for (const s of fixture) await post(s);

  const failures: string[] = [];
  /** Answers by status code, to see how deep the mutants reach. */
  const codes = new Map<string, number>();
  const started = Date.now();
  let ran = 0;
  let stoppedEarly = false;
  const report = (i: number, m: Mutant, what: string, logs: readonly LogLine[]) => {
    const errors = logs.filter((l) => l.level === 'error').map((l) => {
      const err = l['err'] as { message?: string } | undefined;
      return `      log: ${l.msg}${err?.message !== undefined ? `: ${err.message.split('\n')[0]!.slice(0, 300)}` : ''}`;
    });
    failures.push([`  #${i} (${m.ops.join(', ')} of corpus statement ${m.base}) ${shown(m.sql)}`, `      → ${what}`, ...errors].join('\n'));
  };

  let i = 0;
  for (const m of mutants(SEED, corpus, COUNT)) {
    if (Date.now() - started > SECONDS * 1000) {
      stoppedEarly = true;
      break;
    }
    if (i > 0 && i % RESTORE_EVERY === 0) {
      // A mutant may have dropped `public` itself, which every request names.
      await post('CREATE DATABASE IF NOT EXISTS public', 'information_schema');
      for (const s of creates) await post(s);
    }
    const logFrom = proc.lines.length;
    const answer = await post(m.sql);
    ran++;
    const key = 'error' in answer ? 'none' : String(answer.code);
    codes.set(key, (codes.get(key) ?? 0) + 1);
    const failed = 'error' in answer || answer.status >= 500 || answer.code === 1000 || answer.code === 1003;
    // The server logs an internal error before answering, but its stdout may reach us after the answer.
    if (failed) for (let w = 0; w < 20 && proc.running && !proc.lines.slice(logFrom).some((l) => l.level === 'error'); w++) await sleep(25);
    if ('error' in answer) {
      report(i, m, answer.error, proc.lines.slice(logFrom));
      if (!proc.running) {
        failures.push(`  the server exited (${String(proc.child.exitCode ?? proc.child.signalCode)}) after statement #${i}; stderr:\n${proc.stderr.slice(-2000)}`);
        break;
      }
    } else if (failed) {
      report(i, m, `HTTP ${answer.status}, code ${answer.code}: ${answer.message.slice(0, 300)}`, proc.lines.slice(logFrom));
    }
    i++;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  t.diagnostic(`seed ${SEED}: ${ran} of ${COUNT} statements in ${seconds} s${stoppedEarly ? ` (stopped by TSDB_FUZZ_SECONDS=${SECONDS})` : ''}`);
  t.diagnostic(`answers by code: ${[...codes].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}: ${n}`).join(', ')}`);

  if (proc.running) {
    const health = await fetch(`${baseUrl}/health`);
    assert.equal(health.status, 200, 'the server answers /health after fuzzing');
    const res = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'sql=SELECT+1' });
    const body = (await res.json()) as { output?: Array<{ records?: { rows?: unknown[][] } }> };
    assert.deepEqual(body.output?.[0]?.records?.rows, [[1]], 'the server answers SELECT 1 after fuzzing');
  }
  assert.equal(
    failures.length,
    0,
    `${failures.length} fuzzed statements got an internal error, a 5xx or no answer (seed ${SEED}; replay with TSDB_FUZZ_SEED=${SEED} TSDB_FUZZ_COUNT=<#+1>):\n${failures.join('\n')}`,
  );
  assert.ok(proc.running, 'the server is still running');
});
