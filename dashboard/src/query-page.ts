/**
 * The query page: a SQL and a PromQL editor, the result as a table and — when it has a time
 * column (SQL) or is a range query (PromQL) — as a chart, and the query history.
 */
import { promRange, queryRows, runSql, type Records } from './api.js';
import { promChartData, renderChart, sqlChartData } from './chart.js';
import { errorBox, fill, h } from './dom.js';
import { promqlEditor, sqlEditor, type QueryEditor } from './editor.js';
import { clearHistory, loadHistory, remember, type HistoryEntry, type Language } from './history.js';
import { renderTable } from './table.js';

const RANGES: ReadonlyArray<[string, number]> = [
  ['5m', 300],
  ['15m', 900],
  ['1h', 3600],
  ['6h', 6 * 3600],
  ['24h', 86400],
  ['7d', 7 * 86400],
  ['30d', 30 * 86400],
];

/** Rows a result brings to the browser at most (the server cuts the rest), so that a large result cannot freeze the page. */
const ROW_LIMIT = 10_000;

export interface QueryPage {
  readonly element: HTMLElement;
  /** Puts a query in an editor (and runs it when asked), e.g. from the table browser. */
  load(language: Language, text: string, run?: boolean): void;
  /** The database changed: refresh the SQL completion's tables. */
  setDatabase(db: string): void;
}

export function queryPage(db: () => string): QueryPage {
  let language: Language = 'sql';
  const result = h('div', { class: 'result', 'data-testid': 'result' });
  const historyList = h('ol', { class: 'history', 'data-testid': 'history' });
  const sqlBox = h('div', { class: 'editor', 'data-testid': 'sql-editor' });
  const promBox = h('div', { class: 'editor', 'data-testid': 'promql-editor', hidden: true });
  const range = h('select', { 'aria-label': 'range', 'data-testid': 'range' }, RANGES.map(([label, s]) => h('option', { value: s, selected: label === '1h' }, `last ${label}`)));
  const rangeBox = h('label', { class: 'range', hidden: true }, 'Range ', range);
  const runButton = h('button', { class: 'primary', 'data-testid': 'run', onclick: () => void run() }, 'Run');
  const tabs = {
    sql: h('button', { class: 'tab active', 'data-testid': 'tab-sql', onclick: () => select('sql') }, 'SQL'),
    promql: h('button', { class: 'tab', 'data-testid': 'tab-promql', onclick: () => select('promql') }, 'PromQL'),
  };

  const editors: Record<Language, QueryEditor> = {
    sql: sqlEditor(sqlBox, 'SHOW TABLES;', () => void run()),
    promql: promqlEditor(promBox, '', db, () => void run()),
  };
  const sqlEd = editors.sql as ReturnType<typeof sqlEditor>;

  function select(next: Language): void {
    language = next;
    tabs.sql.classList.toggle('active', next === 'sql');
    tabs.promql.classList.toggle('active', next === 'promql');
    sqlBox.hidden = next !== 'sql';
    promBox.hidden = next !== 'promql';
    rangeBox.hidden = next !== 'promql';
    editors[next].view.focus();
  }

  function showHistory(list: HistoryEntry[] = loadHistory()): void {
    fill(
      historyList,
      list.map((e) =>
        h(
          'li',
          { title: `${new Date(e.at).toLocaleString()} · ${e.db}` },
          h('button', { class: 'link', onclick: () => load(e.language, e.text) }, h('span', { class: 'lang' }, e.language === 'sql' ? 'SQL' : 'PromQL'), ' ', e.text),
        ),
      ),
    );
  }

  function load(lang: Language, text: string, andRun = false): void {
    select(lang);
    editors[lang].setText(text);
    if (andRun) void run();
  }

  function showRecords(records: Records): HTMLElement[] {
    const out: HTMLElement[] = [];
    const chart = sqlChartData(records.columns, records.rows);
    const holder = h('div');
    if (records.rows.length >= ROW_LIMIT) out.push(h('div', { class: 'muted' }, `The result was cut at ${ROW_LIMIT} rows: add a LIMIT or narrow the query.`));
    out.push(holder, renderTable(records.columns, records.rows));
    if (chart !== undefined) queueMicrotask(() => renderChart(holder, chart));
    return out;
  }

  let running = 0;
  async function run(): Promise<void> {
    const text = editors[language].text().trim();
    if (text === '') return;
    const database = db();
    const id = ++running;
    runButton.disabled = true;
    fill(result, h('div', { class: 'muted' }, 'Running…'));
    const started = performance.now();
    try {
      let content: HTMLElement[];
      if (language === 'sql') {
        const r = await runSql(text, database, ROW_LIMIT);
        content = r.outputs.flatMap((o, i) => [
          r.outputs.length > 1 ? h('h3', {}, `Statement ${i + 1}`) : null,
          ...(o.records !== undefined ? showRecords(o.records) : [h('div', { class: 'ok' }, `${o.affectedRows ?? 0} rows affected`)]),
        ].filter((e): e is HTMLElement => e !== null));
      } else {
        const seconds = Number(range.value);
        const end = Math.floor(Date.now() / 1000);
        const step = Math.max(1, Math.ceil(seconds / 300));
        const series = await promRange(text, database, end - seconds, end, step);
        const labelNames = [...new Set(series.flatMap((s) => Object.keys(s.metric)))].sort();
        const rows = series.map((s) => {
          const last = s.values[s.values.length - 1];
          return [...labelNames.map((l) => s.metric[l] ?? ''), last !== undefined ? new Date(last[0] * 1000).toISOString() : null, last !== undefined ? Number(last[1]) : null];
        });
        const holder = h('div');
        content = [
          holder,
          renderTable([...labelNames.map((name) => ({ name, type: 'String' })), { name: 'last time', type: 'String' }, { name: 'last value', type: 'Float64' }], rows),
        ];
        if (series.length > 0) queueMicrotask(() => renderChart(holder, promChartData(series)));
        if (series.length === 0) content.unshift(h('div', { class: 'muted' }, 'No series in this range.'));
      }
      if (id !== running) return;
      fill(result, h('div', { class: 'muted timing' }, `${Math.round(performance.now() - started)} ms`), content);
      showHistory(remember({ language, text, db: database, at: Date.now() }));
    } catch (err) {
      if (id === running) fill(result, errorBox(err));
    } finally {
      if (id === running) runButton.disabled = false;
    }
  }

  function setDatabase(database: string): void {
    // Tables and columns of the database for SQL completion; a failure only loses completion.
    queryRows(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = '${database.replaceAll("'", "''")}' ORDER BY table_name, ordinal_position`)
      .then((rows) => {
        const schema: Record<string, string[]> = {};
        for (const [t, c] of rows) (schema[String(t)] ??= []).push(String(c));
        sqlEd.setSchema(schema);
      })
      .catch(() => undefined);
  }

  showHistory();
  const element = h(
    'section',
    { class: 'page query-page' },
    h(
      'div',
      { class: 'query-main' },
      h('div', { class: 'toolbar' }, tabs.sql, tabs.promql, h('span', { class: 'spacer' }), rangeBox, runButton, h('span', { class: 'muted hint' }, 'Ctrl+Enter')),
      sqlBox,
      promBox,
      result,
    ),
    h(
      'aside',
      { class: 'query-side' },
      h('div', { class: 'side-head' }, h('h2', {}, 'History'), h('button', { class: 'link', onclick: () => (clearHistory(), showHistory([])) }, 'clear')),
      historyList,
    ),
  );
  return { element, load, setDatabase };
}
