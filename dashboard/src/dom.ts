/**
 * A small element builder: the dashboard is plain DOM, and this keeps building it readable.
 * `on<event>` attributes given a function become listeners; `true`/`false` toggle an attribute.
 */
type Attr = string | number | boolean | undefined | ((event: Event) => void);
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (typeof v === 'boolean') el.toggleAttribute(k, v);
    else if (v !== undefined) el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Array<Child | Child[]>): void {
  el.replaceChildren(...children.flat().filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err));
}

/** Quotes a SQL identifier (tsdb accepts ANSI double quotes). */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes a SQL string literal. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(n) >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const parts = [d > 0 && `${d}d`, (d > 0 || hh > 0) && `${hh}h`, (d > 0 || hh > 0 || mm > 0) && `${mm}m`, `${s % 60}s`];
  return parts.filter(Boolean).join(' ');
}
