/**
 * A TOML configuration file as assignments, each with the line it is on.
 */
import { getStaticTOMLValue, parseTOML, type AST } from 'toml-eslint-parser';
import { ConfigError, TABLE, type Assignment, type PathSegment } from './resolve.js';

function keyPath(kv: AST.TOMLKeyValue): string[] {
  return kv.key.keys.map((k) => (k.type === 'TOMLBare' ? k.name : k.value));
}

/** Parses TOML text; throws ConfigError naming the file, line and column of a syntax error. */
export function fileAssignments(text: string, file: string): Assignment[] {
  let ast;
  try {
    ast = parseTOML(text, { tomlVersion: '1.0.0' });
  } catch (err) {
    const e = err as Error & { lineNumber?: number; column?: number };
    const where = e.lineNumber !== undefined ? `, line ${e.lineNumber}, column ${(e.column ?? 0) + 1}` : '';
    throw new ConfigError([{ path: '', message: `config file ${file}${where}: invalid TOML: ${e.message}` }]);
  }
  const out: Assignment[] = [];
  const source = (line: number) => ({ kind: 'file' as const, path: file, line });

  const visitValue = (path: PathSegment[], node: AST.TOMLContentNode, line: number): void => {
    if (node.type === 'TOMLInlineTable') {
      if (node.body.length === 0) out.push({ path, raw: TABLE, info: { textual: false }, source: source(line) });
      for (const kv of node.body) visitValue([...path, ...keyPath(kv)], kv.value, kv.loc.start.line);
      return;
    }
    if (node.type === 'TOMLArray' && node.elements.some((e) => e.type === 'TOMLInlineTable')) {
      node.elements.forEach((e, i) => visitValue([...path, i], e, e.loc.start.line));
      return;
    }
    const tomlKind = node.type === 'TOMLArray' ? 'array' : node.kind;
    out.push({ path, raw: getStaticTOMLValue(node), info: { textual: false, tomlKind }, source: source(line) });
  };

  for (const item of ast.body[0].body) {
    if (item.type === 'TOMLKeyValue') {
      visitValue(keyPath(item), item.value, item.loc.start.line);
      continue;
    }
    // A [table] or [[table]] header: declares the table even when it holds no keys.
    const prefix = item.resolvedKey;
    out.push({ path: prefix, raw: TABLE, info: { textual: false }, source: source(item.loc.start.line) });
    for (const kv of item.body) visitValue([...prefix, ...keyPath(kv)], kv.value, kv.loc.start.line);
  }
  return out;
}
