/**
 * Label sets: arrays of `{name, value}` sorted by name, no empty values (Prometheus's
 * `labels.Labels`). Build them with `labelsFrom`; never mutate one that was handed out.
 */
import { METRIC_NAME } from './ast.js';

export interface Label {
  readonly name: string;
  readonly value: string;
}

export type Labels = readonly Label[];

const byName = (a: Label, b: Label): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A label set from name/value pairs: sorted, empty values dropped, the last of duplicates kept. */
export function labelsFrom(pairs: Iterable<readonly [string, string]> | Record<string, string>): Labels {
  const map = new Map<string, string>(Symbol.iterator in pairs ? (pairs as Iterable<readonly [string, string]>) : Object.entries(pairs));
  const out: Label[] = [];
  for (const [name, value] of map) if (value !== '') out.push({ name, value });
  return out.sort(byName);
}

export function getLabel(labels: Labels, name: string): string {
  for (const l of labels) if (l.name === name) return l.value;
  return '';
}

/** The labels without `__name__`. */
export function dropMetricName(labels: Labels): Labels {
  return labels.some((l) => l.name === METRIC_NAME) ? labels.filter((l) => l.name !== METRIC_NAME) : labels;
}

/** A copy with `name` set to `value` (removed when `value` is empty). */
export function withLabel(labels: Labels, name: string, value: string): Labels {
  const out = labels.filter((l) => l.name !== name);
  if (value !== '') out.push({ name, value });
  return out.sort(byName);
}

/** Only the named labels (`on`/`by`) or all but them (`ignoring`/`without`; which also drops `__name__`). */
export function keepLabels(labels: Labels, names: readonly string[], keep: boolean): Labels {
  const set = new Set(names);
  return keep ? labels.filter((l) => set.has(l.name)) : labels.filter((l) => !set.has(l.name) && l.name !== METRIC_NAME);
}

/** A string that is equal for equal label sets (map key). */
export function labelsKey(labels: Labels): string {
  let s = '';
  for (const l of labels) s += `${l.name}\u0000${l.value}\u0001`;
  return s;
}

/** `{a="b", c="d"}` as Prometheus prints a label set (the name in front when present). */
export function formatLabels(labels: Labels): string {
  const name = getLabel(labels, METRIC_NAME);
  const rest = labels.filter((l) => l.name !== METRIC_NAME).map((l) => `${l.name}=${JSON.stringify(l.value)}`);
  return `${name}{${rest.join(', ')}}`;
}

/** Compares label sets the way Prometheus sorts series (label by label, names then values). */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i]!.name !== b[i]!.name) return a[i]!.name < b[i]!.name ? -1 : 1;
    if (a[i]!.value !== b[i]!.value) return a[i]!.value < b[i]!.value ? -1 : 1;
  }
  return a.length - b.length;
}

/** `labelsObject` for JSON answers: `{"__name__": "up", "job": "x"}`. */
export function labelsObject(labels: Labels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of labels) out[l.name] = l.value;
  return out;
}
