/**
 * The text a slow query is recorded with: what the statement was, without what it carried. The
 * values of `INSERT … VALUES` are cut (the statement's head says what was written where, the rows
 * are the user's data and may be megabytes), and literals that may be secrets are masked: those
 * given to a key named like a secret (`password = '…'`, `'secret_access_key' '…'`,
 * `IDENTIFIED BY '…'`), every literal of user statements (`CREATE USER`, `SET PASSWORD`, `GRANT`),
 * and the password or token inside connection strings (`postgres://u:pw@h`, `password=…`).
 *
 * It reads the text with its own small scanner rather than the SQL lexer: the text may be cut in
 * the middle of a literal (at MAX_SLOW_QUERY_TEXT), may not parse (a statement that failed), and a
 * record must never throw. Its cost is bounded by the cut, and it runs off the query path, when the
 * recorder writes (`slow-query-recorder.ts`).
 */

/** The longest text recorded (UTF-16 code units); a longer one is cut and ends with `…`. */
export const MAX_SLOW_QUERY_TEXT = 16 * 1024;

/** What a masked literal is replaced with. */
export const MASKED = '***';

/** Names of keys whose values are secrets (options, columns compared with a literal, JSON keys). */
const SECRET_KEY = /(password|passwd|passphrase|pwd|secret|token|credential|api_?key|access_?key|account_?key|private_?key|authorization|^auth$)/i;

/** First words of statements about users, every literal of which is masked. */
const USER_STATEMENTS: ReadonlyArray<readonly string[]> = [
  ['CREATE', 'USER'],
  ['ALTER', 'USER'],
  ['CREATE', 'ROLE'],
  ['ALTER', 'ROLE'],
  ['SET', 'PASSWORD'],
  ['GRANT'],
];

type TokenKind = 'word' | 'quoted' | 'string' | 'hex' | 'number' | 'op' | 'open' | 'close';

interface Tok {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  /** A word or quoted identifier's name, a string's content. */
  readonly value: string;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isWordStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 64 || c === 36 || c >= 0x80;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordPart = (c: number) => isWordStart(c) || isDigit(c);

/** The end of a quoted run starting at `pos` (its quote doubled stands for itself); the text's end when unterminated. */
function quotedEnd(s: string, pos: number): number {
  const q = s.charCodeAt(pos);
  let i = pos + 1;
  for (;;) {
    const at = s.indexOf(String.fromCharCode(q), i);
    if (at === -1) return s.length;
    if (s.charCodeAt(at + 1) === q) {
      i = at + 2;
      continue;
    }
    return at + 1;
  }
}

/**
 * The tokens of `s`, comments and whitespace skipped; never throws (unterminated runs end with the
 * text). With `untilValues`, stops after the first `VALUES` outside parentheses (an INSERT's body is
 * not read).
 */
function scan(s: string, untilValues = false): Tok[] {
  const out: Tok[] = [];
  const n = s.length;
  let pos = 0;
  let depth = 0;
  while (pos < n) {
    const c = s.charCodeAt(pos);
    const next = pos + 1 < n ? s.charCodeAt(pos + 1) : -1;
    if (isSpace(c)) {
      pos++;
      continue;
    }
    if (c === 45 && next === 45) {
      const nl = s.indexOf('\n', pos);
      pos = nl === -1 ? n : nl + 1;
      continue;
    }
    if (c === 47 && next === 42) {
      const close = s.indexOf('*/', pos + 2);
      pos = close === -1 ? n : close + 2;
      continue;
    }
    if (c === 39 || c === 34 || c === 96) {
      const end = quotedEnd(s, pos);
      const closed = end > pos + 1 && s.charCodeAt(end - 1) === c && end - 1 > pos;
      const q = String.fromCharCode(c);
      const value = s.slice(pos + 1, closed ? end - 1 : end).replaceAll(q + q, q);
      out.push({ kind: c === 39 ? 'string' : 'quoted', start: pos, end, value });
      pos = end;
      continue;
    }
    // E'…' (PostgreSQL escapes), X'…' (hex), N'…': the prefix letter belongs to the literal.
    if ((c === 69 || c === 101 || c === 88 || c === 120 || c === 78 || c === 110) && next === 39) {
      const end = quotedEnd(s, pos + 1);
      const hex = c === 88 || c === 120;
      out.push({ kind: hex ? 'hex' : 'string', start: pos, end, value: s.slice(pos + 2, Math.max(pos + 2, end - 1)) });
      pos = end;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(next))) {
      let i = pos + 1;
      while (i < n && (isWordPart(s.charCodeAt(i)) || s.charCodeAt(i) === 46)) i++;
      out.push({ kind: 'number', start: pos, end: i, value: s.slice(pos, i) });
      pos = i;
      continue;
    }
    if (isWordStart(c)) {
      let i = pos + 1;
      while (i < n && isWordPart(s.charCodeAt(i))) i++;
      const value = s.slice(pos, i);
      out.push({ kind: 'word', start: pos, end: i, value });
      pos = i;
      if (untilValues && depth === 0 && (value.length === 5 || value.length === 6) && /^values?$/i.test(value)) break;
      continue;
    }
    if (c === 40 || c === 41) {
      depth = c === 40 ? depth + 1 : Math.max(0, depth - 1);
      out.push({ kind: c === 40 ? 'open' : 'close', start: pos, end: pos + 1, value: s[pos]! });
      pos++;
      continue;
    }
    // `:=`, `=>`, `::` as one operator; anything else one character.
    const two = s.slice(pos, pos + 2);
    const len = two === ':=' || two === '=>' || two === '::' ? 2 : 1;
    out.push({ kind: 'op', start: pos, end: pos + len, value: s.slice(pos, pos + len) });
    pos += len;
  }
  return out;
}

const isLiteral = (t: Tok | undefined) => t !== undefined && (t.kind === 'string' || t.kind === 'hex' || t.kind === 'number');
const isName = (t: Tok | undefined) => t !== undefined && (t.kind === 'word' || t.kind === 'quoted' || t.kind === 'string');
const wordIs = (t: Tok | undefined, w: string) => t !== undefined && t.kind === 'word' && t.value.toUpperCase() === w;

/** Whether the literal at `i` is given to a secret: `key = lit`, `key := lit`, `key => lit`, `key lit`, `IDENTIFIED BY lit`. */
function isSecretValue(toks: readonly Tok[], i: number): boolean {
  let k = i - 1;
  const prev = toks[k];
  if (prev !== undefined && prev.kind === 'op' && (prev.value === '=' || prev.value === ':=' || prev.value === '=>' || prev.value === ':')) k--;
  const key = toks[k];
  if (!isName(key)) return false;
  if (wordIs(key, 'BY') && wordIs(toks[k - 1], 'IDENTIFIED')) return true;
  return SECRET_KEY.test(key!.value);
}

/** Connection strings and key=value lists inside a literal: their password or token masked. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^/\s:@'"]*:)([^@\s'"/]+)(@)/gi;
const KEY_VALUE_SECRET = /((?<![a-z0-9])[a-z0-9_]*(?:password|passwd|pwd|secret|token|api_?key|access_?key|account_?key|private_?key)[a-z0-9_]*"?)(\s*[=:]\s*)("[^"]*"|[^\s;&,"}]+)/gi;

/** `text` with the passwords and tokens of connection strings in it masked. */
export function maskConnectionSecrets(text: string): string {
  return text
    .replace(URL_PASSWORD, (_m, head: string, _pw: string, at: string) => `${head}${MASKED}${at}`)
    .replace(KEY_VALUE_SECRET, (_m, key: string, sep: string, value: string) => `${key}${sep}${value.startsWith('"') ? `"${MASKED}"` : MASKED}`);
}

/** The SQL literal of `value`. */
const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The text of a SQL statement (or TQL) as a slow query records it: at most MAX_SLOW_QUERY_TEXT,
 * `INSERT|REPLACE … VALUES` cut after `VALUES`, secrets masked. Never throws.
 */
export function redactSql(text: string, maxLength = MAX_SLOW_QUERY_TEXT): string {
  // Trimmed without copying the whole text (an INSERT may be megabytes): only its first part is read.
  let from = 0;
  while (from < text.length && isSpace(text.charCodeAt(from))) from++;
  const cut = text.trimEnd().length - from > maxLength;
  const s = cut ? text.slice(from, from + maxLength) : text.slice(from).trimEnd();
  const head = /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*(\w+)/.exec(s)?.[1]?.toUpperCase() ?? '';
  const toks = scan(s, head === 'INSERT' || head === 'REPLACE');
  const first = toks[0]?.kind === 'word' ? toks[0].value.toUpperCase() : '';
  let end = s.length;
  let valuesCut = false;
  if (first === 'INSERT' || first === 'REPLACE') {
    let depth = 0;
    for (const t of toks) {
      if (t.kind === 'open') depth++;
      else if (t.kind === 'close') depth = Math.max(0, depth - 1);
      else if (depth === 0 && t.kind === 'word') {
        const w = t.value.toUpperCase();
        if (w === 'VALUES' || w === 'VALUE') {
          end = t.end;
          valuesCut = true;
          break;
        }
        // INSERT … SELECT: the query is kept (it is what was slow), its literals checked below.
        if (w === 'SELECT' || w === 'WITH') break;
      }
    }
  }
  const userStatement = USER_STATEMENTS.some((words) => words.every((w, i) => wordIs(toks[i], w)));
  let out = '';
  let copied = 0;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.start >= end) break;
    let replacement: string | undefined;
    if (isLiteral(t) && (userStatement || isSecretValue(toks, i))) replacement = t.kind === 'number' ? MASKED : `'${MASKED}'`;
    else if (t.kind === 'string') {
      const masked = maskConnectionSecrets(t.value);
      if (masked !== t.value) replacement = sqlString(masked);
    }
    if (replacement === undefined) continue;
    out += s.slice(copied, t.start) + replacement;
    copied = t.end;
  }
  out += s.slice(copied, end);
  if (valuesCut) return `${out} …`;
  return cut ? `${out}…` : out;
}

/** The PromQL text of a query as recorded: at most MAX_SLOW_QUERY_TEXT (label values are kept: they are what was selected). */
export function redactPromql(text: string, maxLength = MAX_SLOW_QUERY_TEXT): string {
  const t = text.trim();
  return t.length > maxLength ? `${t.slice(0, maxLength)}…` : t;
}
