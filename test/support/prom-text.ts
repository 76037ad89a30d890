/**
 * A reader of the Prometheus text exposition format (version 0.0.4) for tests: every sample by
 * name and labels, with the `# TYPE` of each family, strict enough to fail on a malformed line.
 * Also runs Debian's `promtool check metrics` over a body.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
  /** The value of the sample with exactly these labels; 0 when absent (a counter not yet touched). */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /** The sum of the samples of `name` whose labels include `labels`. */
  sum(name: string, labels?: Readonly<Record<string, string>>): number;
  /** Samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Readonly<Record<string, string>>): Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseLabels(text: string, line: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(i));
    assert.ok(m, `bad label in: ${line}`);
    i += m[0].length;
    let value = '';
    for (;;) {
      assert.ok(i < text.length, `unterminated label value in: ${line}`);
      const ch = text[i]!;
      if (ch === '"') break;
      if (ch === '\\') {
        const next = text[i + 1];
        value += next === 'n' ? '\n' : next === '\\' ? '\\' : next === '"' ? '"' : assert.fail(`bad escape in: ${line}`);
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    i++;
    out[m[1]!] = value;
    if (text[i] === ',') i++;
  }
  return out;
}

function includes(labels: Readonly<Record<string, string>>, want: Readonly<Record<string, string>>): boolean {
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

export function parsePromText(body: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of body.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
      assert.ok(m, `bad comment line: ${line}`);
      if (m[1] === 'TYPE') {
        assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(m[3]!), `bad type: ${line}`);
        assert.ok(!types.has(m[2]!), `family declared twice: ${m[2]}`);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    const name = NAME.exec(line)?.[0];
    assert.ok(name !== undefined, `bad sample line: ${line}`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const close = rest.lastIndexOf('}');
      assert.ok(close > 0, `bad sample line: ${line}`);
      labels = parseLabels(rest.slice(1, close), line);
      rest = rest.slice(close + 1);
    }
    const m = /^ (\S+)( -?\d+)?$/.exec(rest);
    assert.ok(m, `bad sample value: ${line}`);
    const raw = m[1]!;
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes `Nan`).
    const special: Record<string, number> = { nan: NaN, '+inf': Infinity, inf: Infinity, '-inf': -Infinity };
    const lower = raw.toLowerCase();
    const value = lower in special ? special[lower]! : Number(raw);
    assert.ok(!Number.isNaN(value) || lower === 'nan', `bad number: ${line}`);
    samples.push({ name, labels, value });
  }
  const find = (name: string, want: Readonly<Record<string, string>> = {}) => samples.filter((s) => s.name === name && includes(s.labels, want));
  return {
    samples,
    types,
    find,
    value(name, want = {}) {
      const keys = Object.keys(want).length;
      const s = samples.find((x) => x.name === name && Object.keys(x.labels).length === keys && includes(x.labels, want));
      return s?.value ?? 0;
    },
    sum: (name, want = {}) => find(name, want).reduce((n, s) => n + s.value, 0),
  };
}

/**
 * Runs `promtool check metrics` over `body`: a parse error fails; lint findings (exit status 3)
 * are returned for the caller to compare with the names it knows break a convention.
 */
export function promtoolLint(body: string): string[] {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  assert.ok(r.error === undefined, `promtool could not run: ${String(r.error)}`);
  assert.ok(r.status === 0 || r.status === 3, `promtool check metrics failed (${r.status}): ${r.stderr}${r.stdout}`);
  return `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
}
