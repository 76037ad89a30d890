/**
 * Renders result rows as an HTML table, at most MAX_ROWS of them (the count says how many more).
 * Timestamps are shown as ISO-8601 UTC, their number in the cell's title.
 */
import type { Column } from './api.js';
import { timeText } from './chart.js';
import { h } from './dom.js';

const MAX_ROWS = 1000;

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function renderTable(columns: readonly Column[], rows: readonly unknown[][]): HTMLElement {
  const shown = rows.slice(0, MAX_ROWS);
  const body = document.createElement('tbody');
  const types = columns.map((c) => c.type);
  for (const row of shown) {
    const tr = document.createElement('tr');
    for (let i = 0; i < columns.length; i++) {
      const td = document.createElement('td');
      const v = row[i];
      const time = v === null || v === undefined ? undefined : timeText(v, types[i]!);
      td.textContent = time ?? cell(v);
      if (time !== undefined) td.title = String(v);
      else if (v === null || v === undefined) td.className = 'null';
      else if (typeof v === 'number') td.className = 'num';
      tr.append(td);
    }
    body.append(tr);
  }
  return h(
    'div',
    { class: 'result-table' },
    h('div', { class: 'muted' }, rows.length > MAX_ROWS ? `${rows.length} rows (showing the first ${MAX_ROWS})` : `${rows.length} row${rows.length === 1 ? '' : 's'}`),
    h('div', { class: 'scroll' }, h('table', { 'data-testid': 'result-table' }, h('thead', {}, h('tr', {}, columns.map((c) => h('th', { title: c.type }, c.name)))), body)),
  );
}
