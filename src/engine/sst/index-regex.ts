/**
 * Regular expressions of queries (RE2 in DuckDB: `regexp_matches`, `regexp_full_match`, `~`)
 * evaluated in JavaScript over an inverted index's distinct values, so that the index can say
 * which values match. Only a subset whose meaning is the same in RE2 and in JavaScript's `u` mode
 * is translated: anything else (flags, lookarounds, `\s`, POSIX classes, `\p{…}`, a lone `{`) gives
 * undefined, and the index is not used for the term. A wrong translation would skip rows the
 * query wants; a refused one only costs speed.
 *
 * JavaScript's engine backtracks where RE2 does not, and it runs on the event loop: a pattern such
 * as `(.*)*x` takes time exponential in a value's length, which would stall the whole server on a
 * query any reader may send. So the subset has no quantified groups, at most three quantifiers
 * of which two unbounded (`*`, `+`, `{n,}`) and `{n,m}` ranges of at most 16, and values longer
 * than `MAX_TESTED_LENGTH` are not tested (they count as matching: their row groups are read): the
 * work per value stays within ~17·n² steps of a short value. LIKE patterns are matched without a RegExp, in time linear in value × pattern.
 */

/** Characters JavaScript's `u` mode accepts escaped outside a class (RE2 reads them as literals too). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
/** Escapes with the same class in RE2 and JavaScript (`\s` differs: JavaScript's includes Unicode spaces). */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W']);

/** Values longer than this are not tested against a regular expression (see the file header). */
export const MAX_TESTED_LENGTH = 256;

/** Quantifiers a pattern may have (`{n}` aside), of which unbounded ones (see the file header). */
const MAX_QUANTIFIERS = 3;
const MAX_UNBOUNDED = 2;
/** The widest `{n,m}` (m - n) a pattern may have. */
const MAX_RANGE = 16;

/** Whether `pattern` stays within the shared subset, and within the bounds on backtracking. */
function inSubset(pattern: string): boolean {
  const cs = [...pattern];
  let quantifiers = 0;
  let unbounded = 0;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    // A quantifier of a group: `(a+)+`, `(a|aa)*` backtrack exponentially in JavaScript.
    if ((c === '*' || c === '+' || c === '?' || c === '{') && cs[i - 1] === ')') return false;
    // `?` after a quantifier makes it lazy: no quantifier of its own.
    if (c === '?' && i > 0 && '*+?}'.includes(cs[i - 1]!) && cs[i - 2] !== '\\') continue;
    if (c === '*' || c === '+' || c === '?') {
      if (++quantifiers > MAX_QUANTIFIERS || (c !== '?' && ++unbounded > MAX_UNBOUNDED)) return false;
      continue;
    }
    if (c === '\\') {
      const next = cs[++i];
      if (next === undefined || !(SYNTAX.has(next) || CLASS_ESCAPES.has(next))) return false;
    } else if (c === '(') {
      // `(?…)`: flags, non-capturing groups and named groups differ in syntax or meaning.
      if (cs[i + 1] === '?') return false;
    } else if (c === '[') {
      let j = i + 1;
      if (cs[j] === '^') j++;
      // `[]a]` is a class of `]` and `a` in RE2, an empty class in JavaScript.
      if (cs[j] === ']') return false;
      for (; j < cs.length && cs[j] !== ']'; j++) {
        if (cs[j] === '[' || cs[j] === '\\') return false;
      }
      if (j >= cs.length) return false;
      i = j;
    } else if (c === '{') {
      const m = /^\{\d+(,\d*)?\}/.exec(cs.slice(i).join(''));
      if (m === null) return false;
      const [low, high] = m[0].slice(1, -1).split(',');
      if (high !== undefined) {
        // `{n,}` is unbounded; `{n,m}` may backtrack over m - n choices: a few at most.
        if (++quantifiers > MAX_QUANTIFIERS) return false;
        if (high === '' ? ++unbounded > MAX_UNBOUNDED : Number(high) - Number(low) > MAX_RANGE) return false;
      }
      i += [...m[0]].length - 1;
    } else if (c === '}' || c === ']') {
      return false;
    }
  }
  return true;
}

/**
 * A test of values matching exactly the strings RE2 matches with `pattern` (anywhere in the
 * string; the whole of it when `full`), values too long to test counting as matching; undefined
 * when that cannot be vouched for.
 */
export function regexMatcher(pattern: string, full: boolean): ((value: string) => boolean) | undefined {
  if (!inSubset(pattern)) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(full ? `^(?:${pattern})$` : pattern, 'u');
  } catch {
    return undefined;
  }
  return (v) => v.length > MAX_TESTED_LENGTH || re.test(v);
}

/**
 * A test of values matching a LIKE pattern (`%`: any run, `_`: one character), or undefined when
 * the pattern holds a backslash (an escape in some dialects, a literal in others). Wildcard
 * matching that goes back only to the last `%`: at most value × pattern steps.
 */
export function likeMatcher(pattern: string): ((value: string) => boolean) | undefined {
  if (pattern.includes('\\')) return undefined;
  const p = [...pattern];
  return (value) => {
    const s = [...value];
    let i = 0;
    let j = 0;
    let star = -1;
    let mark = 0;
    while (i < s.length) {
      if (j < p.length && p[j] !== '%' && (p[j] === '_' || p[j] === s[i])) {
        i++;
        j++;
      } else if (j < p.length && p[j] === '%') {
        star = j++;
        mark = i;
      } else if (star >= 0) {
        j = star + 1;
        i = ++mark;
      } else {
        return false;
      }
    }
    while (j < p.length && p[j] === '%') j++;
    return j === p.length;
  };
}
