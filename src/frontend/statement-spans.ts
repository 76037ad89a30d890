/**
 * The attributes of the frontend's spans (`sql`, `sql.parse`, `sql.execute`, `ingest`): database,
 * protocol, statement kind, row counts. Never a statement's text (an INSERT's values, a password
 * in CREATE USER-like options): only its kind. Every function returns at once with tracing off.
 */
import { currentProtocol, tracingEnabled, type Attributes, type Span } from '../common/tracing/tracing.js';
import type { Output } from '../query/output.js';
import type { Statement } from '../sql/ast.js';
import type { IngestTable } from './ingest-request.js';
import type { Session } from './session.js';

function protocolOf(session: Session): string {
  return session.protocol ?? currentProtocol() ?? 'internal';
}

export function sqlSpanAttributes(session: Session): Attributes | undefined {
  if (!tracingEnabled()) return undefined;
  return { 'db.system': 'tsdb', 'db.namespace': session.database, 'tsdb.protocol': protocolOf(session) };
}

export function statementSpanAttributes(stmt: Statement, session: Session): Attributes | undefined {
  if (!tracingEnabled()) return undefined;
  return { 'db.namespace': session.database, 'db.operation.name': stmt.kind, 'tsdb.statement.kind': stmt.kind };
}

export function tracedParse<T extends { readonly statements: readonly unknown[] }>(span: Span | undefined, parsed: T): T {
  span?.setAttribute('tsdb.statement.count', parsed.statements.length);
  return parsed;
}

/** The statement's output, with its row count put on `span`. */
export async function tracedOutput(span: Span | undefined, output: Promise<Output>): Promise<Output> {
  const out = await output;
  if (span !== undefined) {
    if (out.kind === 'affected') span.setAttribute('tsdb.affected_rows', out.rows);
    else span.setAttribute('db.response.returned_rows', out.arrow !== undefined ? out.arrow.batches.reduce((n, b) => n + b.numRows, 0) : out.rows.length);
  }
  return out;
}

export function ingestSpanAttributes(tables: readonly IngestTable[], session: Session): Attributes | undefined {
  if (!tracingEnabled()) return undefined;
  let rows = 0;
  for (const t of tables) rows += t.rowCount;
  return { 'db.namespace': session.database, 'tsdb.protocol': protocolOf(session), 'tsdb.ingest.tables': tables.length, 'tsdb.ingest.rows': rows };
}
