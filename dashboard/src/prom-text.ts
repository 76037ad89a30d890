/**
 * A parser of the Prometheus text exposition format (what `/metrics` answers), enough for the
 * status page: families with their type and help, and samples with labels and values. Samples of
 * a histogram or summary (`_bucket`, `_sum`, `_count`) belong to the family declared before them.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  type: string;
  help: string;
  readonly samples: Sample[];
}

function unescape(text: string): string {
  return text.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;

export function parsePromText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (f === undefined) families.set(name, (f = { name, type: 'untyped', help: '', samples: [] }));
    return f;
  };
  let current: Family | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s*(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(line);
      if (m === null) continue;
      current = family(m[2]!);
      if (m[1] === 'TYPE') current.type = m[3]!;
      else current.help = unescape(m[3]!);
      continue;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (nameMatch === null) continue;
    const name = nameMatch[0];
    let pos = name.length;
    const labels: Record<string, string> = {};
    if (line[pos] === '{') {
      pos++;
      LABEL.lastIndex = pos;
      let m: RegExpExecArray | null;
      while ((m = LABEL.exec(line)) !== null) {
        labels[m[1]!] = unescape(m[2]!);
        pos = LABEL.lastIndex;
      }
      const close = line.indexOf('}', pos);
      if (close < 0) continue;
      pos = close + 1;
    }
    const value = parseValue(line.slice(pos).trim().split(/\s+/)[0] ?? '');
    const owner = current !== undefined && (name === current.name || (name.startsWith(current.name) && /^_(bucket|sum|count|total|created)$/.test(name.slice(current.name.length)))) ? current : family(name);
    owner.samples.push({ name, labels, value });
  }
  return families;
}

/** The sum of a family's plain samples (not a histogram's buckets), or undefined when absent. */
export function total(families: Map<string, Family>, name: string): number | undefined {
  const f = families.get(name);
  if (f === undefined) return undefined;
  const plain = f.samples.filter((s) => s.name === name || s.name === `${name}_total`);
  if (plain.length === 0) return undefined;
  return plain.reduce((sum, s) => sum + s.value, 0);
}
