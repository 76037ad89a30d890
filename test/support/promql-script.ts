/**
 * Prometheus's test-script format for PromQL (promql/test.go in 2.42, promql/promqltest later):
 * the parser of the scripts in test/promql-cases/ and the comparison of answers with their
 * expectations. Written for tsdb from the format's description; the runner that sends the scripts
 * to a server is test/integration/promql-scripts.test.ts.
 *
 * Commands (blank lines and `#` comment lines end a block, as in Prometheus):
 *   load <interval>                      then lines `<series> <values>` (expanding notation)
 *   clear                                wipes the storage
 *   eval[_fail|_ordered] instant at <duration> <expr>
 *                                        then expected lines: `<series> <value>` or one number (a scalar);
 *                                        after eval_fail, `expected_fail_message <text>` or
 *                                        `expected_fail_regexp <regexp>`
 *   eval[_fail] range from <d> to <d> step <d> <expr>
 *                                        then `<series> <values>` in expanding notation, one value per step
 * Values: `1`, `-2.5`, `Inf`, `-Inf`, `NaN`, `0x1f`, `stale` (Prometheus's stale marker), `_` (no
 * sample), `_x3` (three missing samples), `1x3` (1 four times), `1+2x3` (1 3 5 7), `10-1x2` (10 9 8).
 * Times are durations from the Unix epoch (`0`, `5m`, `1h30m`), as Prometheus's tests have them.
 */

/** A value of a sequence: a number, the stale marker, or no sample. */
export type SeqValue = number | typeof STALE | undefined;

export interface SeriesDesc {
  /** Labels including `__name__` when the line names a metric; keys sorted. */
  readonly labels: Readonly<Record<string, string>>;
  readonly values: readonly SeqValue[];
}

export interface LoadCommand {
  readonly kind: 'load';
  readonly line: number;
  readonly intervalMs: number;
  readonly series: readonly SeriesDesc[];
}

export interface ClearCommand {
  readonly kind: 'clear';
  readonly line: number;
}

export interface EvalCommand {
  readonly kind: 'eval';
  readonly line: number;
  readonly expr: string;
  readonly range: boolean;
  /** Instant: the evaluation time; range: the start. Milliseconds since the epoch. */
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly fail: boolean;
  readonly ordered: boolean;
  readonly failMessage?: string;
  readonly failRegexp?: RegExp;
  /** An instant query answering a scalar: its value. */
  readonly scalar?: number;
  /** Expected series, in the order written (the order matters for eval_ordered). */
  readonly series: readonly SeriesDesc[];
}

export type ScriptCommand = LoadCommand | ClearCommand | EvalCommand;

export class ScriptError extends Error {
  constructor(file: string, line: number, message: string) {
    super(`${file}:${line}: ${message}`);
  }
}

const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const DURATION_UNITS_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** Prometheus's model.ParseDuration (`1h30m`, `5m`, `0`, `1d`, `100ms`) in milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const m = DURATION.exec(text);
  if (m === null || text === '') throw new Error(`not a valid duration string: ${JSON.stringify(text)}`);
  let ms = 0;
  for (let i = 0; i < DURATION_UNITS_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * DURATION_UNITS_MS[i]!;
  return ms;
}

/**
 * The stale marker of a `load` sequence. It is kept as this token rather than as its NaN: V8
 * canonicalizes NaNs stored in double arrays, which would lose the marker's payload bits.
 */
export const STALE = 'stale';

// Series values have no hexadecimal form (`0x3` is 0 repeated, as in Prometheus's lexer); an
// expected scalar line may be hexadecimal.
const UNSIGNED_SRC = String.raw`(?:[iI][nN][fF]|[nN][aA][nN]|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)`;
const NUMBER_SRC = `[+-]?${UNSIGNED_SRC}`;
const NUMBER = new RegExp(`^[+-]?(?:0[xX][0-9a-fA-F]+|${UNSIGNED_SRC})$`);
const VALUE_ITEM = new RegExp(`^(${NUMBER_SRC}|stale)(?:([+-]${UNSIGNED_SRC})?x(\\d+))?$`);
const BLANK_ITEM = /^_(?:x(\d+))?$/;

/** A number as the scripts write it (Go's ParseInt base 0, else ParseFloat): `3`, `0x10`, `-Inf`, `NaN`, `1e3`. */
export function parseNumber(text: string): number {
  if (!NUMBER.test(text)) throw new Error(`not a number: ${JSON.stringify(text)}`);
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  if (/^inf$/i.test(body)) return sign * Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(body)) return Number.NaN;
  if (/^0[xX]/.test(body)) return sign * Number.parseInt(body.slice(2), 16);
  return sign * Number(body);
}

/** Expands one value item of a series description. */
function expandItem(item: string): SeqValue[] {
  const blank = BLANK_ITEM.exec(item);
  if (blank !== null) return blank[1] === undefined ? [undefined] : Array.from({ length: Number(blank[1]) }, () => undefined);
  const m = VALUE_ITEM.exec(item);
  if (m === null) throw new Error(`bad series value ${JSON.stringify(item)}: expected a number, "stale", "_", "AxN", "A+BxN" or "A-BxN"`);
  if (m[1] === STALE) {
    if (m[3] !== undefined) throw new Error(`bad series value ${JSON.stringify(item)}: "stale" cannot repeat`);
    return [STALE];
  }
  let v = parseNumber(m[1]!);
  if (m[3] === undefined) return [v];
  const n = Number(m[3]);
  const inc = m[2] === undefined ? 0 : parseNumber(m[2]);
  const out: SeqValue[] = [];
  // Accumulating the increment (rather than v0 + i*inc) gives the float values Prometheus's parser gives.
  for (let i = 0; i <= n; i++) {
    out.push(v);
    if (inc !== 0) v += inc;
  }
  return out;
}

/** Reads a quoted label value (Go string syntax: "…", '…' or `…`) starting at `s[i]`; returns [value, next index]. */
function readQuoted(s: string, i: number): [string, number] {
  const q = s[i];
  if (q === '`') {
    const end = s.indexOf('`', i + 1);
    if (end < 0) throw new Error('unterminated raw string');
    return [s.slice(i + 1, end), end + 1];
  }
  if (q !== '"' && q !== "'") throw new Error(`expected a quoted label value at ${JSON.stringify(s.slice(i))}`);
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j]!;
    if (c === q) return [out, j + 1];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++j];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };
    if (e !== undefined && simple[e] !== undefined) out += simple[e];
    else if (e === 'x') {
      out += String.fromCharCode(Number.parseInt(s.slice(j + 1, j + 3), 16));
      j += 2;
    } else if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      out += String.fromCodePoint(Number.parseInt(s.slice(j + 1, j + 1 + len), 16));
      j += len;
    } else throw new Error(`unknown escape \\${e ?? ''}`);
  }
  throw new Error('unterminated string');
}

/** Parses `metric{a="b", c="d"} 1 2+3x4 _ stale` (the metric name or the braces may be absent). */
export function parseSeriesDesc(line: string): SeriesDesc {
  const labels: Record<string, string> = {};
  let i = 0;
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (name !== null && line[name[0].length] !== undefined && /[\s{]/.test(line[name[0].length]!)) {
    labels['__name__'] = name[0];
    i = name[0].length;
  } else if (name !== null && name[0].length === line.length) {
    labels['__name__'] = name[0];
    i = line.length;
  }
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (/\s/.test(line[i] ?? '')) i++;
      if (line[i] === '}') {
        i++;
        break;
      }
      const ln = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
      if (ln === null) throw new Error(`expected a label name at ${JSON.stringify(line.slice(i))}`);
      i += ln[0].length;
      while (/\s/.test(line[i] ?? '')) i++;
      if (line[i] !== '=') throw new Error(`expected "=" after label ${ln[0]}`);
      i++;
      while (/\s/.test(line[i] ?? '')) i++;
      const [value, next] = readQuoted(line, i);
      labels[ln[0]] = value;
      i = next;
      while (/\s/.test(line[i] ?? '')) i++;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`expected "," or "}" at ${JSON.stringify(line.slice(i))}`);
    }
  } else if (labels['__name__'] === undefined) {
    throw new Error(`expected a metric name or "{" at the start of ${JSON.stringify(line)}`);
  }
  const rest = line.slice(i).trim();
  const values = rest === '' ? [] : rest.split(/[\t ]+/).flatMap(expandItem);
  const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { labels: sorted, values };
}

const PAT_LOAD = /^load\s+(.+?)$/;
const PAT_INSTANT = /^eval(?:_(fail|ordered))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/;
const PAT_RANGE = /^eval(?:_(fail))?\s+range\s+from\s+(.+?)\s+to\s+(.+?)\s+step\s+(.+?)\s+(.+)$/;

/** Parses a whole script; `file` names it in errors. */
export function parseScript(text: string, file: string): ScriptCommand[] {
  const lines = text.split('\n').map((l) => {
    const t = l.trim();
    return t.startsWith('#') ? '' : t;
  });
  const cmds: ScriptCommand[] = [];
  const fail = (i: number, msg: string): never => {
    throw new ScriptError(file, i + 1, msg);
  };
  const wrap = <T>(i: number, f: () => T): T => {
    try {
      return f();
    } catch (err) {
      if (err instanceof ScriptError) throw err;
      return fail(i, err instanceof Error ? err.message : String(err));
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '') continue;
    const word = l.split(/[\t ]+/, 1)[0]!.toLowerCase();
    if (word === 'clear') {
      cmds.push({ kind: 'clear', line: i + 1 });
    } else if (word === 'load') {
      const m = PAT_LOAD.exec(l) ?? fail(i, 'invalid load command (load <interval>)');
      const intervalMs = wrap(i, () => parseDuration(m[1]!));
      const start = i;
      const series: SeriesDesc[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== '') {
        i++;
        series.push(wrap(i, () => parseSeriesDesc(lines[i]!)));
      }
      cmds.push({ kind: 'load', line: start + 1, intervalMs, series });
    } else if (word.startsWith('eval')) {
      const start = i;
      const inst = PAT_INSTANT.exec(l);
      const rng = inst === null ? PAT_RANGE.exec(l) : null;
      if (inst === null && rng === null) fail(i, 'invalid eval command: eval[_fail|_ordered] instant at <duration> <expr> or eval[_fail] range from <d> to <d> step <d> <expr>');
      const mod = inst !== null ? inst[1] : rng![1];
      const expr = inst !== null ? inst[3]! : rng![5]!;
      const startMs = wrap(i, () => parseDuration(inst !== null ? inst[2] ?? '0' : rng![2]!));
      const endMs = rng !== null ? wrap(i, () => parseDuration(rng[3]!)) : startMs;
      const stepMs = rng !== null ? wrap(i, () => parseDuration(rng[4]!)) : 0;
      if (rng !== null && (stepMs <= 0 || endMs < startMs)) fail(i, 'a range eval needs a positive step and end >= start');
      let failMessage: string | undefined;
      let failRegexp: RegExp | undefined;
      let scalar: number | undefined;
      const series: SeriesDesc[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== '') {
        i++;
        const d = lines[i]!;
        if (mod === 'fail' && d.startsWith('expected_fail_message')) {
          failMessage = d.slice('expected_fail_message'.length).trim();
          continue;
        }
        if (mod === 'fail' && d.startsWith('expected_fail_regexp')) {
          failRegexp = wrap(i, () => new RegExp(d.slice('expected_fail_regexp'.length).trim()));
          continue;
        }
        if (mod === 'fail') fail(i, 'an eval_fail takes only expected_fail_message or expected_fail_regexp lines');
        if (rng === null && NUMBER.test(d)) {
          scalar = parseNumber(d);
          break;
        }
        const s = wrap(i, () => parseSeriesDesc(d));
        if (rng === null && s.values.length !== 1) fail(i, 'an instant eval expects exactly one value per series');
        if (rng !== null && s.values.length > Math.floor((endMs - startMs) / stepMs) + 1) fail(i, `${s.values.length} values but the range has ${Math.floor((endMs - startMs) / stepMs) + 1} steps`);
        series.push(s);
      }
      cmds.push({
        kind: 'eval',
        line: start + 1,
        expr,
        range: rng !== null,
        startMs,
        endMs,
        stepMs,
        fail: mod === 'fail',
        ordered: mod === 'ordered',
        ...(failMessage !== undefined && { failMessage }),
        ...(failRegexp !== undefined && { failRegexp }),
        ...(scalar !== undefined && { scalar }),
        series,
      });
    } else {
      fail(i, `invalid command ${JSON.stringify(l)}`);
    }
  }
  return cmds;
}

const EPSILON = 0.000001;
const MIN_NORMAL = 2.2250738585072014e-308;

/** Prometheus's test comparison: NaN equals NaN, else a relative error below 1e-6. */
export function almostEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || diff < MIN_NORMAL) return diff < EPSILON * MIN_NORMAL;
  return diff / (Math.abs(a) + Math.abs(b)) < EPSILON;
}

/** An answer of `/api/v1/query` or `/api/v1/query_range`, decoded. */
export type QueryAnswer =
  | { readonly ok: true; readonly resultType: 'vector'; readonly series: ReadonlyArray<{ labels: Record<string, string>; value: number }> }
  | { readonly ok: true; readonly resultType: 'matrix'; readonly series: ReadonlyArray<{ labels: Record<string, string>; points: Array<[number, number]> }> }
  | { readonly ok: true; readonly resultType: 'scalar'; readonly value: number }
  | { readonly ok: true; readonly resultType: 'string'; readonly value: string }
  | { readonly ok: false; readonly status: number; readonly errorType: string; readonly error: string };

/** A sample value of the API (`"1.5"`, `"NaN"`, `"+Inf"`). */
export function apiNumber(s: unknown): number {
  if (s === '+Inf' || s === 'Inf') return Number.POSITIVE_INFINITY;
  if (s === '-Inf') return Number.NEGATIVE_INFINITY;
  if (s === 'NaN') return Number.NaN;
  if (typeof s !== 'string' || s === '' || Number.isNaN(Number(s))) throw new Error(`not an API sample value: ${JSON.stringify(s)}`);
  return Number(s);
}

/** Decodes an API body (throws on a body that is not Prometheus's envelope). */
export function decodeAnswer(status: number, body: string): QueryAnswer {
  let j: { status?: string; data?: { resultType?: string; result?: unknown }; errorType?: string; error?: string };
  try {
    j = JSON.parse(body) as typeof j;
  } catch {
    throw new Error(`HTTP ${status}, not JSON: ${body.slice(0, 500)}`);
  }
  if (j.status === 'error') return { ok: false, status, errorType: String(j.errorType), error: String(j.error) };
  if (j.status !== 'success' || j.data === undefined) throw new Error(`HTTP ${status}, not a Prometheus envelope: ${body.slice(0, 500)}`);
  const r = j.data.result;
  switch (j.data.resultType) {
    case 'vector':
      return { ok: true, resultType: 'vector', series: (r as Array<{ metric: Record<string, string>; value: [number, string] }>).map((s) => ({ labels: s.metric, value: apiNumber(s.value[1]) })) };
    case 'matrix':
      return {
        ok: true,
        resultType: 'matrix',
        series: (r as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>).map((s) => ({
          labels: s.metric,
          points: s.values.map(([t, v]) => [Math.round(t * 1000), apiNumber(v)] as [number, number]),
        })),
      };
    case 'scalar':
      return { ok: true, resultType: 'scalar', value: apiNumber((r as [number, string])[1]) };
    case 'string':
      return { ok: true, resultType: 'string', value: String((r as [number, string])[1]) };
    default:
      throw new Error(`HTTP ${status}, unknown resultType: ${body.slice(0, 500)}`);
  }
}

/** `{a="b", c="d"}` with `__name__` in front as a metric name. */
export function formatSeries(labels: Readonly<Record<string, string>>): string {
  const name = labels['__name__'] ?? '';
  const rest = Object.entries(labels)
    .filter(([k]) => k !== '__name__')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${name}{${rest.join(', ')}}`;
}

const fmtNum = (v: SeqValue) => (v === undefined ? '_' : v === STALE ? 'stale' : Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));

function seriesKey(labels: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The expectation of an eval written out (for failure messages). */
export function formatExpected(cmd: EvalCommand): string {
  if (cmd.fail) return `an error${cmd.failMessage !== undefined ? ` with message ${JSON.stringify(cmd.failMessage)}` : ''}${cmd.failRegexp !== undefined ? ` matching ${String(cmd.failRegexp)}` : ''}`;
  if (cmd.scalar !== undefined) return `scalar ${fmtNum(cmd.scalar)}`;
  if (cmd.series.length === 0) return '(no series)';
  return cmd.series.map((s) => `  ${formatSeries(s.labels)} ${s.values.map(fmtNum).join(' ')}`).join('\n');
}

/** An answer written out in the script's notation (for failure messages and for reviewing cases). */
export function formatAnswer(a: QueryAnswer, cmd?: EvalCommand): string {
  if (!a.ok) return `error (HTTP ${a.status}, ${a.errorType}): ${a.error}`;
  if (a.resultType === 'scalar') return `scalar ${fmtNum(a.value)}`;
  if (a.resultType === 'string') return `string ${JSON.stringify(a.value)}`;
  if (a.series.length === 0) return '(no series)';
  if (a.resultType === 'vector') return a.series.map((s) => `  ${formatSeries(s.labels)} ${fmtNum(s.value)}`).join('\n');
  return a.series
    .map((s) => {
      if (cmd === undefined || !cmd.range) return `  ${formatSeries(s.labels)} ${s.points.map(([t, v]) => `${fmtNum(v)}@${t}`).join(' ')}`;
      const byT = new Map(s.points);
      const vals: string[] = [];
      for (let t = cmd.startMs; t <= cmd.endMs; t += cmd.stepMs) vals.push(byT.has(t) ? fmtNum(byT.get(t)!) : '_');
      while (vals.at(-1) === '_') vals.pop();
      return `  ${formatSeries(s.labels)} ${vals.join(' ')}`;
    })
    .join('\n');
}

/** An expected value as a number (an expected `stale` is a NaN: the API shows no marker). */
function expectedNumber(v: SeqValue): number {
  return v === undefined || v === STALE ? Number.NaN : v;
}

/**
 * Compares an answer with an eval's expectation as Prometheus's test does: labels exact, values
 * almostEqual, series order only for eval_ordered; returns the problems (empty when it matches).
 */
export function compareAnswer(cmd: EvalCommand, a: QueryAnswer): string[] {
  if (cmd.fail) {
    if (a.ok) return ['expected an error, got a result'];
    const out: string[] = [];
    // A query error is a Prometheus envelope with a 4xx (400 bad_data, 422 execution), not a missing endpoint or a crash.
    if (a.status < 400 || a.status >= 500 || a.errorType === 'no answer') out.push(`expected a query error (HTTP 4xx with an error envelope), got HTTP ${a.status}: ${a.error}`);
    if (cmd.failMessage !== undefined && a.error !== cmd.failMessage) out.push(`error message ${JSON.stringify(a.error)}, expected ${JSON.stringify(cmd.failMessage)}`);
    if (cmd.failRegexp !== undefined && !cmd.failRegexp.test(a.error)) out.push(`error message ${JSON.stringify(a.error)} does not match ${String(cmd.failRegexp)}`);
    return out;
  }
  if (!a.ok) return [`unexpected error (HTTP ${a.status}, ${a.errorType}): ${a.error}`];
  if (a.resultType === 'string') return [`unexpected string result ${JSON.stringify(a.value)}`];
  if (a.resultType === 'scalar') {
    if (cmd.scalar === undefined) return [`got scalar ${fmtNum(a.value)}, expected a vector`];
    return almostEqual(cmd.scalar, a.value) ? [] : [`expected scalar ${fmtNum(cmd.scalar)}, got ${fmtNum(a.value)}`];
  }
  if (cmd.scalar !== undefined) return [`expected scalar ${fmtNum(cmd.scalar)}, got a ${a.resultType}`];
  const expected = new Map(cmd.series.map((s, i) => [seriesKey(s.labels), { s, pos: i }]));
  const out: string[] = [];
  const seen = new Set<string>();
  if (a.resultType === 'vector') {
    if (cmd.range) return ['expected a matrix, got a vector'];
    a.series.forEach((got, pos) => {
      const k = seriesKey(got.labels);
      const e = expected.get(k);
      if (seen.has(k)) out.push(`duplicate series ${formatSeries(got.labels)}`);
      seen.add(k);
      if (e === undefined) return out.push(`unexpected series ${formatSeries(got.labels)} ${fmtNum(got.value)}`);
      if (cmd.ordered && e.pos !== pos) out.push(`${formatSeries(got.labels)} at position ${pos + 1}, expected at ${e.pos + 1}`);
      if (!almostEqual(expectedNumber(e.s.values[0]), got.value)) out.push(`${formatSeries(got.labels)}: expected ${fmtNum(e.s.values[0])}, got ${fmtNum(got.value)}`);
      return undefined;
    });
  } else {
    if (!cmd.range) return ['got a range vector (matrix) for an instant eval'];
    for (const got of a.series) {
      const k = seriesKey(got.labels);
      const e = expected.get(k);
      if (seen.has(k)) out.push(`duplicate series ${formatSeries(got.labels)}`);
      seen.add(k);
      if (e === undefined) {
        out.push(`unexpected series ${formatSeries(got.labels)} ${got.points.map(([t, v]) => `${fmtNum(v)}@${t}`).join(' ')}`);
        continue;
      }
      const want: Array<[number, number]> = [];
      e.s.values.forEach((v, i) => {
        if (v !== undefined) want.push([cmd.startMs + i * cmd.stepMs, expectedNumber(v)]);
      });
      const same = want.length === got.points.length && want.every(([t, v], i) => got.points[i]![0] === t && almostEqual(v, got.points[i]![1]));
      if (!same) out.push(`${formatSeries(got.labels)}: expected ${want.map(([t, v]) => `${fmtNum(v)}@${t}`).join(' ')}, got ${got.points.map(([t, v]) => `${fmtNum(v)}@${t}`).join(' ')}`);
    }
  }
  for (const [k, e] of expected) if (!seen.has(k)) out.push(`missing series ${formatSeries(e.s.labels)} ${e.s.values.map(fmtNum).join(' ')}`);
  return out;
}
