/**
 * EXPLAIN and EXPLAIN ANALYZE in GreptimeDB's result shapes (reference api.md §4): EXPLAIN is
 * `plan_type | plan` with a `logical_plan` row and a `physical_plan` row; EXPLAIN VERBOSE adds,
 * first, the plan before optimization as DataFusion labels it, `initial_logical_plan` (DataFusion
 * also shows the plan after each of its own rules, which DuckDB has no counterpart of; tsdb shows
 * only the plans DuckDB makes); EXPLAIN ANALYZE is
 * `stage | node | plan` (UInt32, UInt32, String) with the executed plan and its metrics at stage 0,
 * node 0, then `Total rows: N` (stage and node null). The plans themselves are DuckDB's (its
 * optimized logical plan and its physical plan, from `EXPLAIN (FORMAT JSON)`; tsdb has no
 * DataFusion to give DataFusion's), written in DataFusion's layout: one operator a line,
 * `NAME: key=value, …`, children indented by two spaces. DuckDB's catalog (`memory.main.`) never
 * shows: the relations a query reads are its own subqueries, and any catalog prefix is cut.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { records, type Cell, type Output } from './output.js';

interface PlanNode {
  readonly name?: string;
  readonly operator_name?: string;
  readonly operator_type?: string;
  readonly extra_info?: Readonly<Record<string, unknown>>;
  readonly children?: readonly PlanNode[];
  readonly operator_cardinality?: number;
  readonly operator_timing?: number;
}

/** Details left out: DuckDB's estimates, and the paths of the server's files (not the client's business). */
const LEFT_OUT = new Set(['Estimated Cardinality', 'Filename(s)']);

/** DuckDB's default catalog and schema, written before table names (`memory.main.t`). */
const DUCKDB_CATALOG = /\b"?memory"?\."?main"?\./g;

function clean(text: string): string {
  return text.replace(DUCKDB_CATALOG, '');
}

function detail(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => clean(String(v))).join(', ')}]`;
  return clean(String(value));
}

/** A duration as DataFusion's metrics print it: `12ns`, `3.4µs`, `1.2ms`, `2.5s`. */
function elapsed(seconds: number): string {
  const ns = seconds * 1e9;
  if (ns < 1000) return `${Math.round(ns)}ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1).replace(/\.0$/, '')}µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(1).replace(/\.0$/, '')}ms`;
  return `${(ns / 1e9).toFixed(1).replace(/\.0$/, '')}s`;
}

/** The operators of a plan tree, one a line, indented by depth; with `metrics`, each with its rows and time. */
export function planText(nodes: readonly PlanNode[], metrics = false): string {
  const lines: string[] = [];
  const walk = (node: PlanNode, depth: number): void => {
    const name = node.name ?? node.operator_name ?? node.operator_type ?? '?';
    const parts = Object.entries(node.extra_info ?? {})
      .filter(([k, v]) => !LEFT_OUT.has(k) && v !== '' && !(Array.isArray(v) && v.length === 0) && !(k === 'Function' && v === name))
      .map(([k, v]) => `${k}=${detail(v)}`);
    let line = `${'  '.repeat(depth)}${name.trim()}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
    if (metrics) line += ` metrics=[output_rows: ${node.operator_cardinality ?? 0}, elapsed_compute: ${elapsed(node.operator_timing ?? 0)}]`;
    lines.push(line);
    for (const child of node.children ?? []) walk(child, depth + 1);
  };
  for (const n of nodes) walk(n, 0);
  return lines.join('\n');
}

function parsed(cell: unknown): PlanNode[] {
  const value = JSON.parse(String(cell)) as PlanNode | PlanNode[];
  return Array.isArray(value) ? value : [value];
}

/**
 * Runs EXPLAIN of `sql` (the query as it runs) on `conn`: DuckDB's plans (its `explain_output` is
 * `all`, set when the database is made) as GreptimeDB's rows; `verbose` (EXPLAIN VERBOSE) with the
 * logical plan before DuckDB's optimizers too.
 */
export async function explainPlan(conn: DuckDBConnection, sql: string, verbose = false): Promise<Output> {
  const result = await conn.runAndReadAll(`EXPLAIN (FORMAT JSON) ${sql}`);
  const byType = new Map<string, Cell>(result.getRows().map((r) => [String(r[0]), String(r[1])]));
  const initial = byType.get('logical_plan');
  const logical = byType.get('logical_opt') ?? initial;
  const physical = byType.get('physical_plan');
  const rows: Cell[][] = [];
  if (verbose && initial !== undefined) rows.push(['initial_logical_plan', planText(parsed(initial))]);
  if (logical !== undefined) rows.push(['logical_plan', planText(parsed(logical))]);
  // DataFusion's physical plan text ends with a line break.
  if (physical !== undefined) rows.push(['physical_plan', `${planText(parsed(physical))}\n`]);
  return records(
    [
      { name: 'plan_type', data_type: 'String' },
      { name: 'plan', data_type: 'String' },
    ],
    rows,
  );
}

/** Runs EXPLAIN ANALYZE of `sql` on `conn`: the query runs, its operators' rows and times are shown. */
export async function explainAnalyze(conn: DuckDBConnection, sql: string): Promise<Output> {
  const result = await conn.runAndReadAll(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
  const profile = parsed(result.getRows()[0]?.[1])[0] ?? {};
  // The root's child is EXPLAIN_ANALYZE itself; below it, the query's plan.
  const top = (profile.children ?? []).flatMap((c) => ((c.operator_type ?? c.operator_name) === 'EXPLAIN_ANALYZE' ? (c.children ?? []) : [c]));
  const total = top.reduce((n, c) => n + (c.operator_cardinality ?? 0), 0);
  return records(
    [
      { name: 'stage', data_type: 'UInt32' },
      { name: 'node', data_type: 'UInt32' },
      { name: 'plan', data_type: 'String' },
    ],
    [
      [0, 0, `${planText(top, true)}\n`],
      [null, null, `Total rows: ${total}`],
    ],
  );
}
