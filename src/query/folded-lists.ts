/**
 * The literal lists folded out of one query's text (`sql/literal-lists.ts`), from DuckDB's parse to
 * the text DuckDB runs:
 *
 * - `inPlace`: each marker of the text must be, in DuckDB's parse tree, the one element of an IN
 *   list (a column reference), and appear nowhere else (not in a string, a comment, a PIVOT): else
 *   the caller runs the query as written;
 * - `listOf`, for the rewrites of literals: what they would have done to each element of a list —
 *   read its strings as timestamps in the session's zone (`session-time.ts`), its integers as epochs
 *   of a timestamp column's unit (`time-predicates.ts`);
 * - `restore`: the final query text with each marker replaced by its elements, rewritten so. A list
 *   of integers read as epochs becomes `SELECT <epoch>(x) FROM unnest([<elements>])` (the same
 *   conversion, DuckDB evaluates it over the list instead of binding a million function calls:
 *   3 s instead of 18 s for 1,000,000 elements); strings are converted here, element by element, in
 *   slices that leave the event loop free in between.
 */
import type { TimeUnit } from '../types/time-unit.js';
import { LIST_MARKER_PATTERN, LIST_MARKER_PREFIX, mapElements, stringValue, type LiteralList } from '../sql/literal-lists.js';
import { normalizeTimestampText } from './session-time.js';
import { isNode, type FoldedListOf, type FoldedListUse, type Json } from './sql-tree.js';
import { epochSql } from './time-predicates.js';
import { wideIntegerType } from './float-literals.js';

/** A number DuckDB parses as a DECIMAL: digits with a point, no exponent. */
const DECIMAL_LITERAL = /^[-+]?(?:\d+\.\d*|\.\d+)$/;

/** What the rewrites asked of one list. */
interface Reading {
  zone?: string;
  unit?: TimeUnit;
  /** Two rewrites asked for different readings: the caller runs the query as written. */
  conflict: boolean;
}

function occurrences(text: string, of: string): number {
  let n = 0;
  for (let i = text.indexOf(of); i >= 0; i = text.indexOf(of, i + of.length)) n++;
  return n;
}

/** Strips the quotes DuckDB may put around a marker. */
const markerOf = (m: string) => m.replaceAll('"', '');

export class FoldedLists {
  private readonly readings = new Map<string, Reading>();

  private constructor(
    private readonly lists: ReadonlyMap<string, LiteralList>,
    /** The markers of the query text, one entry per occurrence. */
    private readonly markers: readonly string[],
  ) {}

  /** The lists whose markers `sql` holds; undefined when it holds none. */
  static of(sql: string, lists: ReadonlyMap<string, LiteralList> | undefined): FoldedLists | undefined {
    if (lists === undefined || lists.size === 0 || !sql.includes(LIST_MARKER_PREFIX)) return undefined;
    const markers = (sql.match(LIST_MARKER_PATTERN) ?? []).map(markerOf);
    return new FoldedLists(lists, markers);
  }

  /**
   * Whether each marker of the text is the one element of an IN list of `tree` (DuckDB's parse of
   * the text; `treeJson` its JSON) and the tree names the markers nowhere else.
   */
  inPlace(tree: unknown, treeJson: string): boolean {
    let placed = 0;
    const walk = (n: Json): void => {
      if (Array.isArray(n)) {
        for (const x of n) walk(x);
        return;
      }
      if (!isNode(n)) return;
      if (n['class'] === 'OPERATOR' && (n['type'] === 'COMPARE_IN' || n['type'] === 'COMPARE_NOT_IN')) {
        const children = n['children'];
        if (Array.isArray(children) && children.length === 2 && this.markerAt(children[1]) !== undefined) placed++;
      }
      for (const v of Object.values(n)) walk(v);
    };
    walk(tree as Json);
    return placed === this.markers.length && occurrences(treeJson, LIST_MARKER_PREFIX) === placed;
  }

  /** The marker a node is a column reference to, else undefined. */
  private markerAt(n: Json | undefined): string | undefined {
    if (!isNode(n) || n['class'] !== 'COLUMN_REF') return undefined;
    const names = n['column_names'];
    if (!Array.isArray(names) || names.length !== 1 || typeof names[0] !== 'string') return undefined;
    return this.lists.has(names[0]) ? names[0] : undefined;
  }

  private reading(marker: string): Reading {
    let r = this.readings.get(marker);
    if (r === undefined) this.readings.set(marker, (r = { conflict: false }));
    return r;
  }

  /** For the rewrites of literals (`SessionTime.foldedList`, `rewriteTimeLiterals`). */
  readonly listOf: FoldedListOf = (n) => {
    const marker = this.markerAt(n);
    if (marker === undefined) return undefined;
    const r = this.reading(marker);
    const use: FoldedListUse = {
      stringsAreTimestamps: (zone) => {
        if (r.zone !== undefined && r.zone !== zone) r.conflict = true;
        r.zone = zone;
      },
      integersAreEpochs: (unit) => {
        if (r.unit !== undefined && r.unit !== unit) r.conflict = true;
        r.unit = unit;
      },
    };
    return use;
  };

  /** Whether a rewrite asked for two readings of one list. */
  get conflicting(): boolean {
    return [...this.readings.values()].some((r) => r.conflict);
  }

  /** Whether `text` (of a part of the tree) holds a marker. */
  static within(text: string): boolean {
    return text.includes(LIST_MARKER_PREFIX);
  }

  /** Whether `text` (of a part of the tree) holds a list whose elements the rewrites change. */
  rewritesWithin(text: string): boolean {
    for (const m of text.match(LIST_MARKER_PATTERN) ?? []) {
      const r = this.readings.get(markerOf(m));
      const list = this.lists.get(markerOf(m));
      if (r !== undefined && list !== undefined && ((r.zone !== undefined && list.strings > 0) || (r.unit !== undefined && list.integers > 0))) return true;
    }
    return false;
  }

  /** Marker → a short text for error messages (which should never show one). */
  shortNames(): Map<string, string> {
    const out = new Map<string, string>();
    for (const m of new Set(this.markers)) {
      const list = this.lists.get(m);
      if (list !== undefined) out.set(m, `${list.source.slice(0, 40)}, … (${list.elements} elements)`);
    }
    return out;
  }

  /** The text of a list's elements as the rewrites read them. */
  private async elementsText(list: LiteralList): Promise<string> {
    const r = this.readings.get(list.marker);
    const zone = r?.zone !== undefined && list.strings > 0 ? r.zone : undefined;
    const unit = r?.unit !== undefined && list.integers > 0 ? r.unit : undefined;
    if (zone === undefined && unit === undefined) return list.source;
    if (unit !== undefined && list.integers === list.elements) return `SELECT ${epochSql('__tsdb_epoch', unit)} FROM unnest([${list.source}]) AS __tsdb_epochs(__tsdb_epoch)`;
    return mapElements(list, (kind, text) => {
      if (kind === 'string' && zone !== undefined) {
        const value = stringValue(text);
        const utc = normalizeTimestampText(value, zone);
        return utc !== undefined && utc !== value ? `'${utc}'` : text;
      }
      if (kind === 'integer' && unit !== undefined) return epochSql(text, unit);
      // A number with a point is a DOUBLE, an integer beyond BIGINT a UBIGINT or a DOUBLE, as in the
      // tree (`float-literals.ts`). (Elsewhere a list's elements stay DuckDB's: an IN list compares
      // them alike either way.)
      if (kind === 'number' && DECIMAL_LITERAL.test(text)) return `CAST('${text}' AS DOUBLE)`;
      if (kind === 'number' && /^[-+]?\d+$/.test(text)) return `CAST('${text}' AS ${wideIntegerType(BigInt(text))})`;
      return text;
    });
  }

  /** `text` (the query DuckDB runs) with each marker replaced by its list's elements, as the rewrites read them. */
  async restore(text: string): Promise<string> {
    const texts = new Map<string, string>();
    for (const m of new Set((text.match(LIST_MARKER_PATTERN) ?? []).map(markerOf))) {
      const list = this.lists.get(m);
      if (list !== undefined) texts.set(m, await this.elementsText(list));
    }
    return text.replace(LIST_MARKER_PATTERN, (m) => texts.get(markerOf(m)) ?? m);
  }
}
