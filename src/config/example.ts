/**
 * Writes `config/<component>.example.toml`: every option with its meaning and default. Options
 * whose default is computed, and options that are unset by default, are shown commented out, so
 * that loading the file gives exactly the defaults (a test checks it).
 */
import { stringify } from 'smol-toml';
import type { ComponentName } from './flags.js';
import { DEFAULT_ENV_PREFIX } from './flags.js';
import { loadConfig } from './load.js';
import type { Field, Node, Section, SystemInfo, TomlOut } from './schema.js';
import { GIB } from '../common/size/size.js';

/**
 * The machine the example files describe, so that computed defaults show a value and the files do
 * not change from one machine to another.
 */
export const EXAMPLE_SYSTEM: SystemInfo = { totalMemory: 16 * GIB, cpus: 8 };

function tomlValue(field: Field<unknown>, value: unknown): string {
  const formatted = field.format(value);
  if (field.typeName === 'float' && typeof formatted === 'number' && Number.isInteger(formatted)) {
    return formatted.toFixed(1);
  }
  return inlineToml(formatted);
}

/** A TOML value on one line. */
function inlineToml(v: TomlOut): string {
  if (Array.isArray(v)) return `[${v.map(inlineToml).join(', ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${tomlKey(k)} = ${inlineToml(x)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  // smol-toml writes a scalar as TOML; take the value part of `x = <value>`.
  return stringify({ x: v }).trim().slice(4);
}

function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
}

function docLines(doc: string, indent = ''): string[] {
  const words = doc.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line !== '' && line.length + 1 + w.length > 96) {
      lines.push(`${indent}## ${line}`);
      line = w;
    } else {
      line = line === '' ? w : `${line} ${w}`;
    }
  }
  if (line !== '') lines.push(`${indent}## ${line}`);
  return lines;
}

function fieldLines(key: string, field: Field<unknown>, resolved: unknown): string[] {
  const out = docLines(field.doc);
  if (field.default !== undefined) {
    out.push(`${key} = ${tomlValue(field, field.default)}`);
  } else if (field.computed !== undefined) {
    const machine = /memory|cores/.test(field.computed.doc);
    out.push(`## Default: ${field.computed.doc}${machine ? ` (shown for a machine with ${EXAMPLE_SYSTEM.totalMemory / GIB}GiB of memory and ${EXAMPLE_SYSTEM.cpus} cores)` : ''}.`);
    const shown = resolved !== undefined ? tomlValue(field, resolved) : field.example !== undefined ? JSON.stringify(field.example) : '""';
    out.push(`# ${key} = ${shown}`);
  } else if (field.optional) {
    out.push('## Unset by default.');
    out.push(`# ${key} = ${field.example !== undefined ? JSON.stringify(field.example) : '""'}`);
  } else {
    out.push('## Required; no default.');
    const shown = field.example !== undefined ? JSON.stringify(field.example) : field.typeName === 'integer' ? '0' : '""';
    out.push(`# ${key} = ${shown}`);
  }
  return out;
}

/**
 * Emits a section: its fields, then its sub-sections, as TOML tables under `path`. `resolved` is
 * the section's value in the default configuration (for computed defaults).
 */
function sectionLines(section: Section, path: string[], commented: boolean, resolved: any): string[] {
  const out: string[] = [];
  const prefix = commented ? '# ' : '';
  const entries = Object.entries(section.fields);
  for (const [key, node] of entries) {
    if (node.node !== 'field') continue;
    const lines = fieldLines(key, node, resolved?.[key]);
    out.push(...lines.map((l) => (commented && !l.startsWith('#') ? prefix + l : l)), '');
  }
  for (const [key, node] of entries) {
    if (node.node === 'field') continue;
    out.push(...nodeLines(key, node, path, commented, resolved?.[key]));
  }
  return out;
}

function nodeLines(key: string, node: Exclude<Node, Field<unknown>>, path: string[], commented: boolean, resolved: any): string[] {
  const p = [...path, key];
  const name = p.join('.');
  const prefix = commented ? '# ' : '';
  switch (node.node) {
    case 'section':
      return [...docLines(node.doc), `${prefix}[${name}]`, ...sectionLines(node, p, commented, resolved)];
    case 'array':
      // Empty by default: shown as a commented-out example entry.
      return [...docLines(node.doc), `# [[${name}]]`, ...sectionLines(node.item, p, true, undefined)];
    case 'engines': {
      const out = docLines(node.doc);
      for (const [engine, section] of Object.entries(node.engines as Record<string, Section>)) {
        out.push(`${prefix}[[${name}]]`, ...docLines(section.doc), `${prefix}[${name}.${engine}]`);
        out.push(...sectionLines(section, [...p, engine], commented, resolved?.[engine]));
      }
      return out;
    }
  }
}

/** The example file of a component; `defaults` is its default configuration on EXAMPLE_SYSTEM. */
export function exampleToml(component: ComponentName, schema: Section, defaults: unknown): string {
  const header = [
    `# ${schema.doc}`,
    `# Every option of \`tsdb ${component} start\`, with its meaning and default.`,
    '# Options shown commented out are unset by default or have a computed default (described above them).',
    `# Each option can also be set by an environment variable: ${DEFAULT_ENV_PREFIX[component]}__<SECTION>__<KEY>,`,
    '# e.g. [http] addr = … is ' + `${DEFAULT_ENV_PREFIX[component]}__HTTP__ADDR. Command-line options win over this file,`,
    '# and this file over the environment. Sizes are binary (1MB = 1MiB = 2^20 bytes).',
    '',
  ];
  return [...header, ...sectionLines(schema, [], false, defaults)].join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** The default configuration on the example machine (a datanode needs its required node id). */
export function exampleDefaults(component: ComponentName): unknown {
  const flags =
    component === 'datanode'
      ? [{ path: ['node_id'], raw: '0', info: { textual: true }, source: { kind: 'flag' as const, flag: '--node-id' } }]
      : [];
  return loadConfig({ component, env: {}, flags, system: EXAMPLE_SYSTEM }).config;
}
