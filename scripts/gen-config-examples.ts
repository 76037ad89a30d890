// Writes config/<component>.example.toml from the configuration schema (`npm run gen:config`).
// src/config/example.test.ts fails when a checked-in file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { exampleDefaults, exampleToml } from '../src/config/example.js';
import type { ComponentName } from '../src/config/flags.js';
import { SCHEMAS } from '../src/config/load.js';

const root = new URL('../../', import.meta.url);
for (const component of Object.keys(SCHEMAS) as ComponentName[]) {
  const file = new URL(`config/${component}.example.toml`, root);
  writeFileSync(file, exampleToml(component, SCHEMAS[component], exampleDefaults(component)));
  console.log(`wrote ${file.pathname}`);
}
