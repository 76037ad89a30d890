/**
 * The effective configuration as TOML (`GET /config`, `--print-config`), secrets masked.
 * The output loads back as a configuration file giving the same configuration.
 */
import { stringify } from 'smol-toml';
import type { Node, Section, TomlOut } from './schema.js';

/** The TOML-shaped value of a configuration, in schema order, unset options left out. */
export function toToml(node: Node, value: unknown, opts: { mask: boolean }): TomlOut | undefined {
  switch (node.node) {
    case 'field': {
      if (value === undefined) return undefined;
      const shown = opts.mask && node.mask ? node.mask(value) : value;
      return shown === undefined ? undefined : node.format(shown);
    }
    case 'section': {
      const out: Record<string, TomlOut> = {};
      const obj = value as Record<string, unknown>;
      for (const [key, child] of Object.entries(node.fields as Record<string, Node>)) {
        const v = toToml(child, obj[key], opts);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'array':
      return (value as unknown[]).map((item) => toToml(node.item, item, opts)!);
    case 'engines': {
      // Written as GreptimeDB writes it: one `[[region_engine]]` entry per engine.
      const obj = value as Record<string, unknown>;
      return Object.entries(node.engines as Record<string, Section>).map(([engine, section]) => ({
        [engine]: toToml(section, obj[engine], opts)!,
      }));
    }
  }
}

export function renderConfig(schema: Section, config: unknown, opts: { mask: boolean } = { mask: true }): string {
  return stringify(toToml(schema, config, opts) as Record<string, unknown>);
}
