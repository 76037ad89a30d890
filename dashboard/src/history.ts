/** Query history, newest first, in localStorage (per browser, not per user: it holds no results). */
export type Language = 'sql' | 'promql';

export interface HistoryEntry {
  readonly language: Language;
  readonly text: string;
  readonly db: string;
  readonly at: number;
}

const KEY = 'tsdb.dashboard.history';
const MAX = 100;

export function loadHistory(): HistoryEntry[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

/** Adds a query; the same query run again moves to the top. */
export function remember(entry: HistoryEntry): HistoryEntry[] {
  const list = [entry, ...loadHistory().filter((e) => e.language !== entry.language || e.text !== entry.text)].slice(0, MAX);
  localStorage.setItem(KEY, JSON.stringify(list));
  return list;
}

export function clearHistory(): void {
  localStorage.removeItem(KEY);
}
