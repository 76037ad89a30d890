/**
 * config/<component>.example.toml documents every option with its default: loading each gives
 * exactly the defaults, each is what the schema generates, and each names every option.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { EXAMPLE_SYSTEM, exampleDefaults, exampleToml } from './example.js';
import type { ComponentName } from './flags.js';
import { loadConfig, SCHEMAS } from './load.js';
import type { Node } from './schema.js';

const COMPONENTS = Object.keys(SCHEMAS) as ComponentName[];
const exampleFile = (c: ComponentName) => new URL(`../../../config/${c}.example.toml`, import.meta.url).pathname;

/** Every option's dotted key, with `[]` for an entry of a list of tables. */
function leafKeys(node: Node, prefix: string): string[] {
  switch (node.node) {
    case 'field':
      return [prefix];
    case 'section':
      return Object.entries(node.fields as Record<string, Node>).flatMap(([k, child]) => leafKeys(child, prefix ? `${prefix}.${k}` : k));
    case 'array':
      return leafKeys(node.item, `${prefix}[]`);
    case 'engines':
      return Object.entries(node.engines as Record<string, Node>).flatMap(([k, child]) => leafKeys(child, `${prefix}.${k}`));
  }
}

for (const component of COMPONENTS) {
  test(`${component}.example.toml loads to exactly the defaults`, () => {
    for (const system of [EXAMPLE_SYSTEM, { totalMemory: 3 * 2 ** 30, cpus: 2 }]) {
      const flags =
        component === 'datanode'
          ? [{ path: ['node_id'], raw: '0', info: { textual: true }, source: { kind: 'flag' as const, flag: '--node-id' } }]
          : [];
      const fromFile = loadConfig({ component, configFile: exampleFile(component), env: {}, flags, system });
      const defaults = loadConfig({ component, env: {}, flags, system });
      assert.deepEqual(fromFile.config, defaults.config);
    }
  });

  test(`${component}.example.toml is what the schema generates (npm run gen:config)`, () => {
    const expected = exampleToml(component, SCHEMAS[component], exampleDefaults(component));
    assert.equal(readFileSync(exampleFile(component), 'utf8'), expected);
  });

  test(`${component}.example.toml names every option`, () => {
    const text = readFileSync(exampleFile(component), 'utf8');
    // Collect `key = ` lines (set or commented out) under their [table] headers.
    const seen = new Set<string>();
    let table = '';
    for (const raw of text.split('\n')) {
      const line = raw.replace(/^# /, '');
      const header = /^\[\[?([a-z_.]+)\]\]?$/.exec(line);
      if (header) {
        table = header[1]!;
        // A commented-out [[list]] entry documents the keys of each entry.
        if (raw.startsWith('# [[')) table += '[]';
        continue;
      }
      const kv = /^([a-z_]+) = /.exec(line);
      if (kv) seen.add(table ? `${table}.${kv[1]}` : kv[1]!);
    }
    const missing = leafKeys(SCHEMAS[component], '').filter((k) => !seen.has(k));
    assert.deepEqual(missing, []);
  });
}
