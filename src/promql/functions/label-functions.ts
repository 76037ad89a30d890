/**
 * label_replace and label_join as Prometheus 2.42 computes them: anchored regex, Go's
 * `Regexp.Expand` template syntax (`$1`, `${1}`, `$name`, `$$`), an empty result removes the
 * destination label, a non-matching source leaves the series as it is; `__name__` is kept.
 */
import { PromqlError } from '../errors.js';
import { getLabel, withLabel } from '../labels.js';
import { compileMatcherRegex } from '../regex.js';
import type { Labels } from '../labels.js';
import type { Vector } from '../values.js';
import type { InstantFunction } from './types.js';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The fully anchored regex of label_replace: the shared RE2 translation of the matchers (so a
 * hostile pattern runs in linear time here too). Returns null when the pattern is not valid RE2.
 */
export function compileLabelReplaceRegex(re: string): RegExp | null {
  try {
    return compileMatcherRegex(re);
  } catch {
    return null;
  }
}

const isLetterOrDigit = /^[\p{L}\p{Nd}_]$/u;

/** Go's regexp.Expand of `template` with the match `m`. */
export function expandTemplate(template: string, m: RegExpExecArray): string {
  let out = '';
  let rest = template;
  for (;;) {
    const at = rest.indexOf('$');
    if (at < 0) break;
    out += rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (rest.startsWith('$')) {
      out += '$';
      rest = rest.slice(1);
      continue;
    }
    const ref = extractRef(rest);
    if (ref === undefined) {
      out += '$';
      continue;
    }
    rest = ref.rest;
    if (ref.num >= 0) {
      if (ref.num < m.length && m[ref.num] !== undefined) out += m[ref.num];
    } else {
      const g = m.groups?.[ref.name];
      if (g !== undefined) out += g;
    }
  }
  return out + rest;
}

/** Go's regexp `extract`: `name` or `{name}` after a `$`; num is -1 unless the name is a number without leading zeros. */
function extractRef(s: string): { name: string; num: number; rest: string } | undefined {
  if (s === '') return undefined;
  let brace = false;
  if (s[0] === '{') {
    brace = true;
    s = s.slice(1);
  }
  let i = 0;
  for (const ch of s) {
    if (!isLetterOrDigit.test(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = s.slice(0, i);
  if (brace) {
    if (i >= s.length || s[i] !== '}') return undefined;
    i++;
  }
  let num = 0;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 48 || c > 57 || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c - 48);
  }
  if (name[0] === '0' && name.length > 1) num = -1;
  return { name, num, rest: s.slice(i) };
}

const labelReplace: InstantFunction = {
  kind: 'instant',
  apply: (args) => {
    const vec = args[0] as Vector;
    const dst = args[1] as string;
    const repl = args[2] as string;
    const src = args[3] as string;
    const reStr = args[4] as string;
    const re = compileLabelReplaceRegex(reStr);
    if (re === null) throw new PromqlError('execution', `invalid regular expression in label_replace(): ${reStr}`);
    if (!LABEL_NAME.test(dst)) throw new PromqlError('execution', `invalid destination label name in label_replace(): ${dst}`);
    const memo = new Map<Labels, Labels>();
    const out: Vector = new Array(vec.length);
    for (let i = 0; i < vec.length; i++) {
      const s = vec[i]!;
      let labels = memo.get(s.labels);
      if (labels === undefined) {
        const m = re.exec(getLabel(s.labels, src));
        labels = m === null ? s.labels : withLabel(s.labels, dst, expandTemplate(repl, m));
        memo.set(s.labels, labels);
      }
      out[i] = { labels, t: s.t, v: s.v };
    }
    return out;
  },
};

const labelJoin: InstantFunction = {
  kind: 'instant',
  apply: (args) => {
    const vec = args[0] as Vector;
    const dst = args[1] as string;
    const sep = args[2] as string;
    const srcs = args.slice(3) as string[];
    for (const src of srcs) if (!LABEL_NAME.test(src)) throw new PromqlError('execution', `invalid source label name in label_join(): ${src}`);
    if (!LABEL_NAME.test(dst)) throw new PromqlError('execution', `invalid destination label name in label_join(): ${dst}`);
    const out: Vector = new Array(vec.length);
    for (let i = 0; i < vec.length; i++) {
      const s = vec[i]!;
      const joined = srcs.map((n) => getLabel(s.labels, n)).join(sep);
      out[i] = { labels: withLabel(s.labels, dst, joined), t: s.t, v: s.v };
    }
    return out;
  },
};

export const LABEL_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['label_replace', labelReplace],
  ['label_join', labelJoin],
]);
