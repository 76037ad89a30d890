/**
 * The status page: what `/status` and `/health` say, and figures read from `/metrics` (parsed here
 * from the Prometheus text format). A figure whose metric the server does not expose shows "—".
 */
import { apiFetch, errorText } from './api.js';
import { errorBox, fill, formatBytes, formatDuration, h } from './dom.js';
import { parsePromText, total, type Family } from './prom-text.js';

interface Status {
  version: string;
  commit: string;
  branch: string;
  build_date: string;
  node_version: string;
  hostname: string;
  component: string;
  start_time: string;
  uptime_seconds: number;
}

interface Health {
  ready?: boolean;
  degraded?: Array<{ source: string; message: string; since: string }>;
  log_lines_dropped?: number;
}

const DASH = '—';

async function getJson<T>(path: string): Promise<T> {
  const res = await apiFetch(path);
  if (!res.ok) throw new Error(`${path}: ${await errorText(res)}`);
  return (await res.json()) as T;
}

/** `/metrics`, or undefined when this server has none (404). */
async function getMetrics(): Promise<Map<string, Family> | undefined> {
  const res = await apiFetch('/metrics');
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`/metrics: ${await errorText(res)}`);
  return parsePromText(await res.text());
}

function fmt(value: number | undefined, as: (n: number) => string = (n) => n.toLocaleString('en-US')): string {
  return value === undefined || Number.isNaN(value) ? DASH : as(value);
}

export function statusPage(): { element: HTMLElement; refresh(): void } {
  const body = h('div', { class: 'status-body', 'data-testid': 'status' });

  function figure(label: string, value: string, testid?: string): HTMLElement {
    return h('div', { class: 'figure' }, h('div', { class: 'figure-label' }, label), h('div', { class: 'figure-value', ...(testid !== undefined && { 'data-testid': testid }) }, value));
  }

  async function refresh(): Promise<void> {
    fill(body, h('div', { class: 'muted' }, 'Loading…'));
    const [status, health, metrics] = await Promise.allSettled([getJson<Status>('/status'), getJson<Health>('/health'), getMetrics()]);
    const s = status.status === 'fulfilled' ? status.value : undefined;
    const m = metrics.status === 'fulfilled' ? metrics.value : undefined;
    const get = (name: string) => (m === undefined ? undefined : total(m, name));
    const startSeconds = get('process_start_time_seconds');
    const uptime = s?.uptime_seconds ?? (startSeconds !== undefined ? Date.now() / 1000 - startSeconds : undefined);
    const cacheBytes = get('tsdb_mito_cache_bytes');
    const hits = get('tsdb_mito_cache_hit');
    const misses = get('tsdb_mito_cache_miss');
    const healthText =
      health.status === 'rejected' ? DASH : (health.value.degraded?.length ?? 0) === 0 ? 'ok' : `degraded: ${health.value.degraded!.map((d) => `${d.source}: ${d.message}`).join('; ')}`;
    const tsdbFamilies = m === undefined ? [] : [...m.values()].filter((f) => f.name.startsWith('tsdb_')).sort((a, b) => a.name.localeCompare(b.name));

    fill(
      body,
      [status, health, metrics].flatMap((r) => (r.status === 'rejected' ? [errorBox(r.reason)] : [])),
      h(
        'div',
        { class: 'figures-grid' },
        figure('Version', s !== undefined ? `${s.version} (${s.commit.slice(0, 8)})` : DASH, 'status-version'),
        figure('Component', s?.component ?? DASH),
        figure('Host', s?.hostname ?? DASH),
        figure('Uptime', fmt(uptime, formatDuration), 'status-uptime'),
        figure('Health', healthText, 'status-health'),
        figure('Regions', fmt(get('tsdb_mito_region_count')), 'status-regions'),
        figure('Resident memory', fmt(get('process_resident_memory_bytes'), formatBytes), 'status-memory'),
        figure('Heap used', fmt(get('nodejs_heap_size_used_bytes'), formatBytes)),
        figure('Cache size', fmt(cacheBytes, formatBytes)),
        figure('Cache hit ratio', hits !== undefined && misses !== undefined && hits + misses > 0 ? `${((100 * hits) / (hits + misses)).toFixed(1)} %` : DASH, 'status-cache-ratio'),
        figure('Rows written', fmt(get('tsdb_mito_write_rows_total')), 'status-rows'),
        figure('Rows ingested', fmt(get('tsdb_servers_ingest_rows_total')), 'status-ingested'),
        figure('Bytes ingested', fmt(get('tsdb_servers_ingest_bytes_total'), formatBytes)),
        figure('Rejected rows', fmt(get('tsdb_servers_ingest_rejected_rows_total'))),
        figure('Series', fmt(get('tsdb_series'))),
        figure('Node.js', s?.node_version ?? DASH),
      ),
      h('h2', {}, 'tsdb metrics'),
      m === undefined
        ? h('div', { class: 'muted' }, 'This server has no /metrics.')
        : tsdbFamilies.length === 0
          ? h('div', { class: 'muted' }, 'No tsdb_* metrics yet.')
          : h(
              'table',
              { 'data-testid': 'metric-families' },
              h('thead', {}, h('tr', {}, h('th', {}, 'metric'), h('th', {}, 'type'), h('th', {}, 'value'), h('th', {}, 'help'))),
              h(
                'tbody',
                {},
                tsdbFamilies.map((f) => {
                  const count = f.samples.filter((x) => x.name === `${f.name}_count`).reduce((a, x) => a + x.value, 0);
                  const sum = f.samples.filter((x) => x.name === `${f.name}_sum`).reduce((a, x) => a + x.value, 0);
                  const value = f.type === 'histogram' || f.type === 'summary' ? `count ${count}, sum ${Number(sum.toPrecision(6))}` : fmt(total(m, f.name));
                  return h('tr', {}, h('td', {}, f.name), h('td', {}, f.type), h('td', { class: 'num' }, value), h('td', { class: 'muted' }, f.help));
                }),
              ),
            ),
    );
  }

  const element = h('section', { class: 'page status-page' }, h('div', { class: 'toolbar' }, h('h2', {}, 'Status'), h('span', { class: 'spacer' }), h('button', { onclick: () => void refresh() }, 'Refresh')), body);
  return { element, refresh: () => void refresh() };
}
