/**
 * Time-series charts with uPlot: one x axis of times (seconds) shared by every series, values
 * `null` where a series has no point. Results are turned into that shape here: SQL rows (the
 * first timestamp column is x, every numeric column a line per combination of the string columns)
 * and PromQL matrices (a line per series).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Column, PromSeries } from './api.js';
import { h } from './dom.js';

export interface ChartData {
  readonly xs: number[];
  readonly series: Array<{ label: string; values: Array<number | null> }>;
}

/** More lines than this are not drawn (the table has them all). */
const MAX_SERIES = 40;
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

const TIME_DIVISORS: Readonly<Record<string, number>> = {
  TimestampSecond: 1,
  TimestampMillisecond: 1e3,
  TimestampMicrosecond: 1e6,
  TimestampNanosecond: 1e9,
};

export function isTimeType(type: string): boolean {
  return type in TIME_DIVISORS || type === 'Date';
}

function isNumericType(type: string): boolean {
  return /^(U?Int(8|16|32|64)|Float(32|64)|Decimal)/.test(type);
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** Seconds since the epoch of a cell of a timestamp column, or null. */
function toSeconds(v: unknown, type: string): number | null {
  if (type === 'Date') {
    const t = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v * 86400_000 : NaN;
    return Number.isFinite(t) ? t / 1000 : null;
  }
  const n = typeof v === 'string' && !/^-?\d+$/.test(v) ? Date.parse(v) / 1000 : toNumber(v);
  if (n === null || !Number.isFinite(n)) return null;
  return typeof v === 'string' && !/^-?\d+$/.test(v) ? n : n / TIME_DIVISORS[type]!;
}

/** A cell of a timestamp column as ISO-8601 UTC (undefined for other columns or a value that is no time). */
export function timeText(v: unknown, type: string): string | undefined {
  if (!(type in TIME_DIVISORS)) return undefined;
  const seconds = toSeconds(v, type);
  if (seconds === null) return undefined;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Puts points on the sorted union of their times. */
function align(points: Map<string, Map<number, number | null>>): ChartData {
  const times = new Set<number>();
  for (const p of points.values()) for (const t of p.keys()) times.add(t);
  const xs = [...times].sort((a, b) => a - b);
  const index = new Map(xs.map((t, i) => [t, i]));
  const series = [...points].slice(0, MAX_SERIES).map(([label, p]) => {
    const values = new Array<number | null>(xs.length).fill(null);
    for (const [t, v] of p) values[index.get(t)!] = v;
    return { label, values };
  });
  return { xs, series };
}

/** The chart of a SQL result, or undefined when it has no timestamp column or nothing numeric. */
export function sqlChartData(columns: readonly Column[], rows: readonly unknown[][]): ChartData | undefined {
  const time = columns.findIndex((c) => isTimeType(c.type));
  if (time < 0) return undefined;
  const timeType = columns[time]!.type;
  const numeric = columns.map((c, i) => (i !== time && isNumericType(c.type) ? i : -1)).filter((i) => i >= 0);
  const tags = columns.map((c, i) => (c.type === 'String' ? i : -1)).filter((i) => i >= 0);
  if (numeric.length === 0) return undefined;
  const points = new Map<string, Map<number, number | null>>();
  for (const row of rows) {
    const t = toSeconds(row[time], timeType);
    if (t === null) continue;
    const key = tags.map((i) => `${columns[i]!.name}=${String(row[i])}`).join(',');
    for (const i of numeric) {
      const label = key === '' ? columns[i]!.name : `${columns[i]!.name}{${key}}`;
      let p = points.get(label);
      if (p === undefined) {
        if (points.size >= MAX_SERIES) continue;
        points.set(label, (p = new Map()));
      }
      p.set(t, toNumber(row[i]));
    }
  }
  return points.size === 0 ? undefined : align(points);
}

export function promLabel(metric: Record<string, string>): string {
  const name = metric['__name__'] ?? '';
  const labels = Object.entries(metric)
    .filter(([k]) => k !== '__name__')
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ');
  return labels === '' ? name || '{}' : `${name}{${labels}}`;
}

export function promChartData(result: readonly PromSeries[]): ChartData {
  const points = new Map<string, Map<number, number | null>>();
  for (const s of result) {
    const p = new Map<number, number | null>();
    for (const [t, v] of s.values) p.set(t, toNumber(v));
    points.set(promLabel(s.metric), p);
  }
  return align(points);
}

/** Draws the chart into `parent`; redrawn to the parent's width when the window is resized. */
export function renderChart(parent: HTMLElement, data: ChartData): void {
  const box = h('div', { class: 'chart', 'data-testid': 'chart' });
  parent.append(box);
  const width = () => Math.max(300, parent.clientWidth - 16);
  const plot = new uPlot(
    {
      width: width(),
      height: 320,
      scales: { x: { time: true } },
      series: [{}, ...data.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length]!, width: 1.5, spanGaps: true }))],
      legend: { live: true },
    },
    [data.xs, ...data.series.map((s) => s.values)] as uPlot.AlignedData,
    box,
  );
  const onResize = () => {
    if (!box.isConnected) {
      window.removeEventListener('resize', onResize);
      plot.destroy();
      return;
    }
    plot.setSize({ width: width(), height: 320 });
  };
  window.addEventListener('resize', onResize);
}
