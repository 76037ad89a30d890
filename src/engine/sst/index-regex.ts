/**
 * Regular expressions of queries (RE2 in DuckDB: `regexp_matches`, `regexp_full_match`, `~`)
 * evaluated in JavaScript over an inverted index's distinct values, so that the index can say
 * which values match. Only a subset whose meaning is the same in RE2 and in JavaScript's `u` mode
 * is translated: anything else (flags, lookarounds, `\s`, POSIX classes, `\p{…}`, a lone `{`) gives
 * undefined, and the index is not used for the term. A wrong translation would skip rows the
 * query wants; a refused one only costs speed.
 */

/** Characters JavaScript's `u` mode accepts escaped outside a class (RE2 reads them as literals too). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
/** Escapes with the same class in RE2 and JavaScript (`\s` differs: JavaScript's includes Unicode spaces). */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W']);

/** Whether `pattern` stays within the shared subset. */
function inSubset(pattern: string): boolean {
  const cs = [...pattern];
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
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
      i += [...m[0]].length - 1;
    } else if (c === '}' || c === ']') {
      return false;
    }
  }
  return true;
}

/**
 * A JavaScript RegExp matching exactly the strings RE2 matches with `pattern` (anywhere in the
 * string; the whole of it when `full`), or undefined when that cannot be vouched for.
 */
export function regexOf(pattern: string, full: boolean): RegExp | undefined {
  if (!inSubset(pattern)) return undefined;
  try {
    return new RegExp(full ? `^(?:${pattern})$` : pattern, 'u');
  } catch {
    return undefined;
  }
}

/**
 * The regular expression of a LIKE pattern (`%`: any run, `_`: one character), or undefined when
 * the pattern holds a backslash (an escape in some dialects, a literal in others).
 */
export function likeRegexOf(pattern: string): RegExp | undefined {
  if (pattern.includes('\\')) return undefined;
  let re = '';
  for (const c of pattern) re += c === '%' ? '[^]*' : c === '_' ? '[^]' : SYNTAX.has(c) ? `\\${c}` : c;
  return new RegExp(`^${re}$`, 'u');
}
