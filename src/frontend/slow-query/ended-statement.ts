/**
 * What the slow query recorder is told of a SQL statement that ended (`FrontendInstance.executeSql`):
 * its own text (a long literal list folded out of it while it ran shows its first elements; a
 * bound prepared query, its values without their marks: `sql/parameter-marks.ts`), who
 * ran it where, and for TQL the PromQL evaluation's range and step when its parameters are literals.
 */
import type { Statement, TqlParam } from '../../sql/ast.js';
import { LIST_MARKER_PATTERN, type LiteralList } from '../../sql/literal-lists.js';
import { withoutParameterMarks } from '../../sql/parameter-marks.js';
import { parseDurationMs } from '../../promql/parser.js';
import type { Session } from '../session.js';
import type { EndedStatement } from './slow-query-recorder.js';

/** Characters of a folded literal list shown in the recorded text. */
const LIST_SHOWN = 64;

/** Seconds (a number, or a string holding one or an RFC 3339 time) as ms; undefined for SQL expressions. */
function timeMs(p: TqlParam): number | undefined {
  if (p.kind === 'sql') return undefined;
  const text = p.kind === 'number' ? p.text : p.value;
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n)) return n * 1000;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}

/** A step: seconds, or a PromQL duration (`'5s'`); undefined when neither. */
function stepMs(p: TqlParam): number | undefined {
  if (p.kind === 'sql') return undefined;
  if (p.kind === 'number') return Number(p.text) * 1000;
  const n = Number(p.value);
  if (p.value.trim() !== '' && Number.isFinite(n)) return n * 1000;
  const d = parseDurationMs(p.value);
  return typeof d === 'number' ? d : undefined;
}

/** The ended statement `stmt` of `session`; `lists` are the literal lists folded out of its text. */
export function endedSql(stmt: Statement, session: Session, lists: ReadonlyMap<string, LiteralList> | undefined): EndedStatement {
  const query =
    lists === undefined
      ? withoutParameterMarks(stmt.text)
      : withoutParameterMarks(stmt.text).replace(LIST_MARKER_PATTERN, (m) => {
          const source = lists.get(m.replaceAll('"', ''))?.source ?? m;
          return source.length > LIST_SHOWN ? `${source.slice(0, LIST_SHOWN)} …` : source;
        });
  let promql: EndedStatement['promql'];
  if (stmt.kind === 'tql' && stmt.params !== undefined) {
    const start = timeMs(stmt.params.start);
    const end = timeMs(stmt.params.end);
    const step = stepMs(stmt.params.step);
    if (start !== undefined && end !== undefined && step !== undefined) promql = { startMs: start, endMs: end, stepMs: step };
  }
  return {
    language: 'sql',
    query,
    catalog: session.catalog,
    database: session.database,
    user: session.user.username,
    protocol: session.protocol ?? 'http',
    ...(stmt.kind === 'tql' && { tql: true }),
    ...(promql !== undefined && { promql }),
  };
}
