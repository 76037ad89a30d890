/**
 * Line-protocol ingest: lines pasted or a file chosen, sent to tsdb's InfluxDB write endpoints
 * (`/v1/influxdb/api/v2/write` or `/v1/influxdb/write`) in the chosen database and precision.
 */
import { apiFetch, errorText } from './api.js';
import { errorBox, fill, h } from './dom.js';

const PRECISIONS = ['ns', 'us', 'ms', 's'] as const;

export interface IngestPage {
  readonly element: HTMLElement;
  setDatabases(dbs: readonly string[], current: string): void;
}

export function ingestPage(): IngestPage {
  const db = h('select', { 'data-testid': 'ingest-db' });
  const precision = h('select', { 'data-testid': 'ingest-precision' }, PRECISIONS.map((p) => h('option', { value: p }, p)));
  const api = h(
    'select',
    { 'data-testid': 'ingest-api' },
    h('option', { value: 'v2' }, 'InfluxDB v2 (/v1/influxdb/api/v2/write)'),
    h('option', { value: 'v1' }, 'InfluxDB v1 (/v1/influxdb/write)'),
  );
  const text = h('textarea', {
    'data-testid': 'ingest-text',
    rows: 14,
    spellcheck: 'false',
    placeholder: 'cpu,host=web-1 usage_user=12.5,usage_system=3.1 1700000000000000000',
  });
  const file = h('input', { type: 'file', 'data-testid': 'ingest-file', accept: '.txt,.lp,.line,text/plain' });
  const status = h('div', { class: 'ingest-status', 'data-testid': 'ingest-status' });
  const send = h('button', { class: 'primary', 'data-testid': 'ingest-send', onclick: () => void submit() }, 'Write');

  async function submit(): Promise<void> {
    const chosen = file.files?.[0];
    const body: Blob | string = chosen ?? text.value;
    if (chosen === undefined && text.value.trim() === '') {
      fill(status, errorBox('Nothing to write: paste lines or choose a file.'));
      return;
    }
    const params =
      api.value === 'v2'
        ? new URLSearchParams({ bucket: db.value, precision: precision.value })
        : new URLSearchParams({ db: db.value, precision: precision.value[0] === 'n' ? 'n' : precision.value === 'us' ? 'u' : precision.value });
    const path = api.value === 'v2' ? '/v1/influxdb/api/v2/write' : '/v1/influxdb/write';
    send.disabled = true;
    fill(status, h('span', { class: 'muted' }, 'Writing…'));
    const started = performance.now();
    try {
      const res = await apiFetch(`${path}?${params}`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body });
      if (!res.ok) throw new Error(await errorText(res));
      const size = typeof body === 'string' ? new TextEncoder().encode(body).length : body.size;
      const lines = typeof body === 'string' ? body.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).length : undefined;
      fill(
        status,
        h('div', { class: 'ok' }, `Written${lines !== undefined ? ` ${lines} line${lines === 1 ? '' : 's'}` : ''} (${size} bytes) to ${db.value} in ${Math.round(performance.now() - started)} ms.`),
      );
    } catch (err) {
      fill(status, errorBox(err));
    } finally {
      send.disabled = false;
    }
  }

  const element = h(
    'section',
    { class: 'page ingest-page' },
    h('h2', {}, 'Write line protocol'),
    h(
      'div',
      { class: 'form-row' },
      h('label', {}, 'Database ', db),
      h('label', {}, 'Precision ', precision),
      h('label', {}, 'Endpoint ', api),
    ),
    text,
    h('div', { class: 'form-row' }, h('label', {}, 'or a file ', file), h('button', { class: 'link', onclick: () => (file.value = '') }, 'clear file'), h('span', { class: 'spacer' }), send),
    status,
  );
  return {
    element,
    setDatabases: (dbs, current) => fill(db, dbs.filter((d) => d !== 'information_schema').map((d) => h('option', { value: d, selected: d === current }, d))),
  };
}
