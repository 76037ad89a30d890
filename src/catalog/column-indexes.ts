/**
 * A column's FULLTEXT and SKIPPING indexes as the catalog keeps them: their options checked and
 * completed with GreptimeDB's defaults (`datatypes::schema::FulltextOptions`,
 * `SkippingIndexOptions`), as SHOW CREATE TABLE shows them (`WITH(k = 'v', …)`, keys sorted).
 * tsdb's engine does not build these indexes (its SST files have an inverted index only); the
 * catalog records them so that the table shows and re-creates as it was defined.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

export type IndexOptions = Readonly<Record<string, string>>;

const DEFAULT_GRANULARITY = '10240';
const DEFAULT_FALSE_POSITIVE_RATE = '0.01';

function invalid(kind: 'fulltext' | 'skipping index', msg: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid ${kind} option: ${msg}`);
}

function lowerKeys(options: IndexOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(options).map(([k, v]) => [k.toLowerCase(), v]));
}

function granularity(kind: 'fulltext' | 'skipping index', value: string | undefined): string {
  if (value === undefined) return DEFAULT_GRANULARITY;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(n > 0 && n <= 0xffff_ffff)) throw invalid(kind, `Invalid granularity: ${value}, expected: positive integer`);
  return String(n);
}

function falsePositiveRate(kind: 'fulltext' | 'skipping index', value: string | undefined): string {
  if (value === undefined) return DEFAULT_FALSE_POSITIVE_RATE;
  const rate = Number(value);
  if (value.trim() === '' || !(rate > 0 && rate <= 1)) throw invalid(kind, `Invalid false positive rate: ${value}, expected: 0.0 < rate <= 1.0`);
  // Kept as GreptimeDB keeps it: in ten-thousandths.
  return String(Math.floor(rate * 10000) / 10000);
}

function flag(value: string | undefined, fallback: boolean): boolean | undefined {
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}

/** `FULLTEXT INDEX [WITH (…)]`'s options, completed; undefined when `enable = 'false'`. */
export function fulltextIndexOptions(options: IndexOptions): IndexOptions | undefined {
  const o = lowerKeys(options);
  const enable = flag(o['enable'], true);
  if (enable === undefined) throw invalid('fulltext', `${o['enable']}, expected: 'true' | 'false'`);
  const analyzer = (o['analyzer'] ?? 'English').toLowerCase();
  if (analyzer !== 'english' && analyzer !== 'chinese') throw invalid('fulltext', `${o['analyzer']}, expected: 'English' | 'Chinese'`);
  const caseSensitive = flag(o['case_sensitive'], false);
  if (caseSensitive === undefined) throw invalid('fulltext', `${o['case_sensitive']}, expected: 'true' | 'false'`);
  const backend = (o['backend'] ?? 'bloom').toLowerCase();
  if (backend !== 'bloom' && backend !== 'tantivy') throw invalid('fulltext', `${o['backend']}, expected: 'bloom' | 'tantivy'`);
  if (!enable) return undefined;
  const out: Record<string, string> = { analyzer: analyzer === 'english' ? 'English' : 'Chinese', backend, case_sensitive: String(caseSensitive) };
  if (backend === 'bloom') {
    out['false_positive_rate'] = falsePositiveRate('fulltext', o['false_positive_rate']);
    out['granularity'] = granularity('fulltext', o['granularity']);
  }
  return out;
}

/** `SKIPPING INDEX [WITH (…)]`'s options, completed (a bloom filter: `type = 'BLOOM'`). */
export function skippingIndexOptions(options: IndexOptions): IndexOptions {
  const o = lowerKeys(options);
  const type = (o['type'] ?? 'BLOOM').toUpperCase();
  const out = { false_positive_rate: falsePositiveRate('skipping index', o['false_positive_rate']), granularity: granularity('skipping index', o['granularity']), type };
  if (type !== 'BLOOM') throw invalid('skipping index', `Invalid index type: ${o['type']}, expected: 'BLOOM'`);
  return out;
}

/** A column's indexes as written after its type in SHOW CREATE TABLE: FULLTEXT, SKIPPING, INVERTED. */
export function indexClauses(c: { readonly fulltext_index?: IndexOptions; readonly skipping_index?: IndexOptions; readonly inverted_index?: boolean }): string {
  const withList = (o: IndexOptions) =>
    `WITH(${Object.keys(o)
      .sort()
      .map((k) => `${k} = '${o[k]}'`)
      .join(', ')})`;
  let out = '';
  if (c.fulltext_index !== undefined) out += ` FULLTEXT INDEX ${withList(c.fulltext_index)}`;
  if (c.skipping_index !== undefined) out += ` SKIPPING INDEX ${withList(c.skipping_index)}`;
  if (c.inverted_index === true) out += ' INVERTED INDEX';
  return out;
}

/** The column's FULLTEXT and SKIPPING index fields from its definition's indexes (none: absent). */
export function columnIndexFields(indexes: ReadonlyArray<{ readonly kind: string; readonly options: IndexOptions }>): { fulltext_index?: IndexOptions; skipping_index?: IndexOptions } {
  const fulltext = indexes.find((x) => x.kind === 'fulltext');
  const skipping = indexes.find((x) => x.kind === 'skipping');
  const ft = fulltext === undefined ? undefined : fulltextIndexOptions(fulltext.options);
  return { ...(ft !== undefined && { fulltext_index: ft }), ...(skipping !== undefined && { skipping_index: skippingIndexOptions(skipping.options) }) };
}
