/**
 * Environment variables as assignments: `<PREFIX>__<SECTION>__<KEY>`, upper case, `__` between
 * nesting levels. Entries of a list of tables take their index as a level
 * (`TSDB_DATANODE__STORAGE__PROVIDERS__0__BUCKET`); region engines take the engine name
 * (`TSDB_DATANODE__REGION_ENGINE__MITO__NUM_WORKERS`, or with an index, `…__REGION_ENGINE__0__MITO__…`).
 */
import { ConfigError, type Assignment, type PathSegment } from './resolve.js';

export function envAssignments(env: NodeJS.ProcessEnv, prefix: string): Assignment[] {
  const head = `${prefix.toUpperCase()}__`;
  const out: Assignment[] = [];
  const names = Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith(head))
    .sort();
  for (const name of names) {
    const value = env[name];
    if (value === undefined) continue;
    const segments = name.slice(head.length).split('__');
    if (segments.some((s) => s === '')) {
      throw new ConfigError([
        { path: '', message: `malformed name; levels are separated by exactly two underscores`, source: { kind: 'env', name } },
      ]);
    }
    const path: PathSegment[] = segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s.toLowerCase()));
    out.push({ path, raw: value, info: { textual: true }, source: { kind: 'env', name } });
  }
  return out;
}
