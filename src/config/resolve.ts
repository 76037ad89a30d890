/**
 * Resolves a component's configuration from its schema and a list of assignments (environment
 * variables, then the config file, then flags: later ones win), filling defaults and computed
 * defaults in schema order. Every problem becomes an issue naming the option, the bad value and
 * where it came from; nothing is half-applied.
 */
import {
  DEFAULT_SOURCE,
  describeSource,
  MissingOption,
  type Field,
  type Infer,
  type Node,
  type RawInfo,
  type ResolveContext,
  type Section,
  type Source,
  type SystemInfo,
} from './schema.js';

export type PathSegment = string | number;

/** One value for one option, from one source. */
export interface Assignment {
  readonly path: readonly PathSegment[];
  /** The value, or TABLE when a table was declared (e.g. `[http]` with nothing in it). */
  readonly raw: unknown;
  readonly info: RawInfo;
  readonly source: Source;
}

/** Marks an assignment that declares a table rather than setting a value. */
export const TABLE: unique symbol = Symbol('table');

export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
  readonly source?: Source;
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.source && issue.source.kind !== 'default' ? ` (from ${describeSource(issue.source)})` : '';
  return `${issue.path ? `${issue.path}: ` : ''}${issue.message}${where}`;
}

/** Invalid configuration: one line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}

/** `storage.providers[0].bucket` */
export function pathText(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

/** The key of an option in `sources`: the dotted path, indices included (`storage.providers.0.bucket`). */
export function pathKey(path: readonly PathSegment[]): string {
  return path.join('.');
}

type Located =
  | { readonly ok: true; readonly node: Node; readonly canonical: PathSegment[]; readonly mapKey?: string }
  | { readonly ok: false; readonly message: string };

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function suggest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = levenshtein(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

function fieldNamed(section: Section, name: string): string | undefined {
  if (Object.hasOwn(section.fields, name)) return name;
  for (const [key, child] of Object.entries(section.fields)) {
    if (child.node === 'field' && child.aliases.includes(name)) return key;
  }
  return undefined;
}

/** Finds the schema node an assignment's path names, and its canonical path (aliases resolved). */
export function locate(schema: Section, path: readonly PathSegment[]): Located {
  let node: Node = schema;
  const canonical: PathSegment[] = [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const here = pathText(canonical) || '(top level)';
    switch (node.node) {
      case 'section': {
        if (typeof seg === 'number') return { ok: false, message: `${here} is a table, not a list; index ${seg} does not apply` };
        const name = fieldNamed(node, seg);
        if (name === undefined) {
          const full = pathText([...canonical, seg]);
          const close = suggest(seg, Object.keys(node.fields));
          const hint = close !== undefined ? `; did you mean "${pathText([...canonical, close])}"?` : '';
          return { ok: false, message: `unknown option "${full}"${hint}` };
        }
        canonical.push(name);
        node = node.fields[name]!;
        break;
      }
      case 'array': {
        if (typeof seg !== 'number') {
          return { ok: false, message: `${here} is a list of tables ([[${here}]]); expected an entry index before "${seg}"` };
        }
        canonical.push(seg);
        node = node.item;
        break;
      }
      case 'engines': {
        // `[[region_engine]]` entries carry an index in the file; entries are keyed by engine name.
        if (typeof seg === 'number') break;
        const engine = node.engines[seg] as Section | undefined;
        if (engine === undefined) {
          const names = Object.keys(node.engines).map((e) => `[${here}.${e}]`);
          return { ok: false, message: `unknown region engine "${seg}"; expected ${names.join(' or ')}` };
        }
        canonical.push(seg);
        node = engine;
        break;
      }
      case 'field': {
        if (node.parseEntry !== undefined && i === path.length - 1) {
          canonical.push(seg);
          return { ok: true, node, canonical, mapKey: String(seg) };
        }
        return { ok: false, message: `${here} is a value, not a table; "${pathText([...canonical, ...path.slice(i)])}" does not exist` };
      }
    }
  }
  return { ok: true, node, canonical };
}

interface SetValue {
  readonly value: unknown;
  readonly source: Source;
}

export interface ResolveOptions {
  readonly system: SystemInfo;
  /** Text appended to "required option is missing" for an option, e.g. how to set it. */
  readonly missingHint?: (path: readonly PathSegment[]) => string;
  /** Other components' schemas: an option unknown here but known there is named as such. */
  readonly otherSchemas?: ReadonlyArray<readonly [string, Section]>;
}

export interface Resolved<T> {
  readonly config: T;
  /** Where each explicitly set option came from (keys as pathKey); absent = default. */
  readonly sources: ReadonlyMap<string, Source>;
}

/** Resolves a configuration; throws ConfigError listing every problem. */
export function resolveConfig<S extends Section>(
  schema: S,
  assignments: readonly Assignment[],
  opts: ResolveOptions,
): Resolved<Infer<S>> {
  const issues: ConfigIssue[] = [];
  const values = new Map<string, SetValue>();
  const mapEntries = new Map<string, Map<string, SetValue>>();
  const arrayIndices = new Map<string, Set<number>>();

  for (const a of assignments) {
    const found = locate(schema, a.path);
    if (!found.ok) {
      // A table of unknown name and each key in it fail alike: say it once.
      const message = found.message + elsewhere(a.path, opts.otherSchemas);
      if (!issues.some((i) => i.message === message)) issues.push({ path: '', message, source: a.source });
      continue;
    }
    noteArrayIndices(schema, found.canonical, arrayIndices);
    const { node, canonical } = found;
    const shown = pathText(canonical);
    if (a.raw === TABLE) {
      if (node.node === 'field' && node.parseEntry === undefined) {
        issues.push({ path: shown, message: 'expected a value, got a table', source: a.source });
      }
      continue;
    }
    if (node.node === 'array' && Array.isArray(a.raw) && a.raw.length === 0) continue; // `providers = []`
    if (node.node !== 'field') {
      const kind = node.node === 'section' ? 'a table' : 'a list of tables';
      issues.push({ path: shown, message: `is ${kind}; set its options instead, e.g. ${exampleChild(node, shown)}`, source: a.source });
      continue;
    }
    try {
      if (found.mapKey !== undefined) {
        const value = node.parseEntry!(a.raw, a.info);
        const mapKeyText = pathKey(canonical.slice(0, -1));
        let entries = mapEntries.get(mapKeyText);
        if (entries === undefined) mapEntries.set(mapKeyText, (entries = new Map()));
        entries.set(found.mapKey, { value, source: a.source });
      } else {
        values.set(pathKey(canonical), { value: node.parse(a.raw, a.info), source: a.source });
      }
    } catch (err) {
      issues.push({ path: shown, message: (err as Error).message, source: a.source });
    }
  }

  const sources = new Map<string, Source>();
  const root: Record<string, unknown> = {};

  const buildSection = (section: Section, path: PathSegment[], target: Record<string, unknown>): void => {
    for (const [name, child] of Object.entries(section.fields)) {
      const p = [...path, name];
      switch (child.node) {
        case 'field':
          resolveField(child, p, target, name);
          break;
        case 'section': {
          const obj: Record<string, unknown> = {};
          target[name] = obj;
          buildSection(child, p, obj);
          break;
        }
        case 'array': {
          const list: Record<string, unknown>[] = [];
          target[name] = list;
          const indices = arrayIndices.get(pathKey(p)) ?? new Set<number>();
          const count = indices.size === 0 ? 0 : Math.max(...indices) + 1;
          for (let i = 0; i < count; i++) {
            if (!indices.has(i)) {
              issues.push({ path: pathText([...p, i]), message: `missing; entries of ${pathText(p)} are numbered from 0 without gaps` });
            }
            const obj: Record<string, unknown> = {};
            list.push(obj);
            buildSection(child.item, [...p, i], obj);
          }
          break;
        }
        case 'engines': {
          const obj: Record<string, unknown> = {};
          target[name] = obj;
          for (const [engine, engineSection] of Object.entries(child.engines as Record<string, Section>)) {
            const eobj: Record<string, unknown> = {};
            obj[engine] = eobj;
            buildSection(engineSection, [...p, engine], eobj);
          }
          break;
        }
      }
    }
  };

  const resolveField = (field: Field<unknown>, path: PathSegment[], target: Record<string, unknown>, name: string): void => {
    const key = pathKey(path);
    if (field.parseEntry !== undefined) {
      const map: Record<string, unknown> = { ...(field.default as Record<string, unknown> | undefined) };
      for (const [entry, set] of mapEntries.get(key) ?? []) {
        map[entry] = set.value;
        sources.set(`${key}.${entry}`, set.source);
      }
      target[name] = map;
      return;
    }
    const set = values.get(key);
    if (set !== undefined && !(field.emptyIsUnset && set.value === '')) {
      target[name] = set.value;
      sources.set(key, set.source);
      return;
    }
    if (field.default !== undefined) {
      target[name] = structuredClone(field.default);
      return;
    }
    if (field.computed !== undefined) {
      const ctx: ResolveContext = { system: opts.system, root, parent: target };
      try {
        target[name] = field.computed.resolve(ctx);
      } catch (err) {
        if (!(err instanceof MissingOption)) throw err;
        issues.push({ path: pathText(path), message: err.message + (opts.missingHint?.(path) ?? ''), source: set?.source });
      }
      return;
    }
    if (field.optional) {
      target[name] = undefined;
      return;
    }
    issues.push({ path: pathText(path), message: `required option is missing${opts.missingHint?.(path) ?? ''}`, source: set?.source });
  };

  buildSection(schema, [], root);
  if (issues.length > 0) throw new ConfigError(issues);
  return { config: root as Infer<S>, sources };
}

/** Records the entry indices of every list of tables an assignment's path passes through. */
function noteArrayIndices(schema: Section, canonical: readonly PathSegment[], out: Map<string, Set<number>>): void {
  let node: Node = schema;
  for (let i = 0; i < canonical.length; i++) {
    const seg = canonical[i]!;
    if (node.node === 'array' && typeof seg === 'number') {
      const key = pathKey(canonical.slice(0, i));
      let set = out.get(key);
      if (set === undefined) out.set(key, (set = new Set()));
      set.add(seg);
      node = node.item;
    } else if (node.node === 'section') {
      node = node.fields[seg as string]!;
    } else if (node.node === 'engines') {
      node = node.engines[seg as string]!;
    } else {
      return;
    }
  }
}

function exampleChild(node: Node, shown: string): string {
  if (node.node === 'section') {
    const first = Object.keys(node.fields)[0];
    return `"${shown}.${first}"`;
  }
  return `[[${shown}]]`;
}

function elsewhere(path: readonly PathSegment[], others: ResolveOptions['otherSchemas']): string {
  if (others === undefined) return '';
  const owners = others.filter(([, schema]) => {
    const found = locate(schema, path);
    return found.ok;
  });
  if (owners.length === 0) return '';
  return `; it is an option of ${owners.map(([name]) => name).join(', ')} only`;
}

/** The value set for a path, with its source; for messages of later validation. */
export function sourceOf(resolved: Pick<Resolved<unknown>, 'sources'>, path: readonly PathSegment[]): Source {
  return resolved.sources.get(pathKey(path)) ?? DEFAULT_SOURCE;
}
