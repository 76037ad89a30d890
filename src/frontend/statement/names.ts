/**
 * Table names of statements resolved against the session: `t` → the session's database,
 * `db.t`, `catalog.db.t` (only the `tsdb` catalog exists).
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { ObjectName } from '../../sql/ast.js';
import type { Session } from '../session.js';

export function resolveName(name: ObjectName, session: Session): { database: string; table: string } {
  const p = name.parts;
  if (p.length === 1) return { database: session.database, table: p[0]! };
  if (p.length === 2) return { database: p[0]!, table: p[1]! };
  if (p.length === 3) {
    if (p[0] !== session.catalog) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${p.join('.')}`);
    return { database: p[1]!, table: p[2]! };
  }
  throw new TsdbError(StatusCode.InvalidArguments, `Invalid table name: ${p.join('.')}`);
}
