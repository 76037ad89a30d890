/**
 * The catalogue browser: databases, their tables (with information_schema's row count) and a
 * table's columns, exact row count and series count — the number of distinct combinations of its
 * tag columns, counted on demand and bounded (SERIES_BOUND) so that a table of millions of series
 * costs one bounded scan, not an unbounded aggregation.
 */
import { databases, queryRows } from './api.js';
import { errorBox, fill, h, ident, literal } from './dom.js';

export const SERIES_BOUND = 100_000;

export interface BrowsePage {
  readonly element: HTMLElement;
  refresh(): void;
}

export function browsePage(openQuery: (sql: string, db: string) => void): BrowsePage {
  const dbList = h('ul', { class: 'list', 'data-testid': 'db-list' });
  const tableList = h('div', { class: 'tables', 'data-testid': 'table-list' });
  const detail = h('div', { class: 'detail', 'data-testid': 'table-detail' });

  async function refresh(): Promise<void> {
    try {
      const dbs = await databases();
      fill(dbList, dbs.map((d) => h('li', {}, h('button', { class: 'link', 'data-db': d, onclick: () => void showDb(d) }, d))));
    } catch (err) {
      fill(dbList, errorBox(err));
    }
  }

  async function showDb(db: string): Promise<void> {
    for (const b of dbList.querySelectorAll('button')) b.classList.toggle('active', b.dataset['db'] === db);
    fill(tableList, h('div', { class: 'muted' }, 'Loading…'));
    fill(detail);
    try {
      const rows = await queryRows(`SELECT table_name, table_type, engine, table_rows FROM information_schema.tables WHERE table_schema = ${literal(db)} ORDER BY table_name`);
      if (rows.length === 0) {
        fill(tableList, h('h2', {}, db), h('div', { class: 'muted' }, 'No tables.'));
        return;
      }
      fill(
        tableList,
        h('h2', {}, db),
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, h('th', {}, 'table'), h('th', {}, 'type'), h('th', {}, 'engine'), h('th', {}, 'rows'))),
          h(
            'tbody',
            {},
            rows.map(([name, type, engine, count]) =>
              h(
                'tr',
                {},
                h('td', {}, h('button', { class: 'link', 'data-table': String(name), onclick: () => void showTable(db, String(name)) }, String(name))),
                h('td', {}, String(type ?? '')),
                h('td', {}, String(engine ?? '')),
                h('td', { class: 'num' }, count === null || count === undefined ? '—' : String(count)),
              ),
            ),
          ),
        ),
      );
    } catch (err) {
      fill(tableList, errorBox(err));
    }
  }

  async function showTable(db: string, table: string): Promise<void> {
    for (const b of tableList.querySelectorAll<HTMLButtonElement>('button[data-table]')) b.classList.toggle('active', b.dataset['table'] === table);
    fill(detail, h('div', { class: 'muted' }, 'Loading…'));
    try {
      const columns = await queryRows(
        `SELECT column_name, tsdb_data_type, semantic_type, is_nullable FROM information_schema.columns WHERE table_schema = ${literal(db)} AND table_name = ${literal(table)} ORDER BY ordinal_position`,
      );
      const tags = columns.filter((c) => c[2] === 'TAG').map((c) => String(c[0]));
      const time = columns.find((c) => c[2] === 'TIMESTAMP')?.[0];
      const qualified = `${ident(db)}.${ident(table)}`;
      const rowsCell = h('dd', { 'data-testid': 'row-count' }, '…');
      const seriesCell = h('dd', { 'data-testid': 'series-count' }, '…');
      const sample = `SELECT * FROM ${qualified}${time !== undefined ? ` ORDER BY ${ident(String(time))} DESC` : ''} LIMIT 100`;
      fill(
        detail,
        h('h2', {}, `${db}.${table}`),
        h('dl', { class: 'figures' }, h('dt', {}, 'rows'), rowsCell, h('dt', {}, `series (distinct ${tags.length > 0 ? tags.join(', ') : 'tags'})`), seriesCell),
        h('button', { 'data-testid': 'query-table', onclick: () => openQuery(sample, db) }, 'Query this table'),
        h(
          'table',
          { 'data-testid': 'columns' },
          h('thead', {}, h('tr', {}, h('th', {}, 'column'), h('th', {}, 'type'), h('th', {}, 'semantic type'), h('th', {}, 'nullable'))),
          h('tbody', {}, columns.map((c) => h('tr', {}, c.map((v) => h('td', {}, String(v ?? '')))))),
        ),
      );
      queryRows(`SELECT count(*) FROM ${qualified}`, db)
        .then((r) => fill(rowsCell, String(r[0]?.[0] ?? 0)))
        .catch((err: unknown) => fill(rowsCell, errorBox(err)));
      seriesCount(db, qualified, tags)
        .then((n) => fill(seriesCell, n > SERIES_BOUND ? `more than ${SERIES_BOUND}` : String(n)))
        .catch((err: unknown) => fill(seriesCell, errorBox(err)));
    } catch (err) {
      fill(detail, errorBox(err));
    }
  }

  async function seriesCount(db: string, qualified: string, tags: string[]): Promise<number> {
    if (tags.length === 0) {
      // Without tags every row is of the one series (if there are rows).
      const r = await queryRows(`SELECT count(*) FROM (SELECT 1 FROM ${qualified} LIMIT 1) AS t`, db);
      return Number(r[0]?.[0] ?? 0);
    }
    const r = await queryRows(`SELECT count(*) FROM (SELECT DISTINCT ${tags.map(ident).join(', ')} FROM ${qualified} LIMIT ${SERIES_BOUND + 1}) AS s`, db);
    return Number(r[0]?.[0] ?? 0);
  }

  const element = h(
    'section',
    { class: 'page browse-page' },
    h('aside', { class: 'side' }, h('h2', {}, 'Databases'), dbList),
    h('div', { class: 'browse-main' }, tableList, detail),
  );
  return { element, refresh: () => void refresh() };
}
