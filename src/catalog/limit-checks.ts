/**
 * Checks of names and sizes against `limits.ts`, made before anything is created or changed:
 * InvalidArguments (1004) with the offending name (cut when long) and the rule.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { MAX_COLUMNS_PER_TABLE, MAX_DATABASE_NAME_LENGTH, MAX_NAME_LENGTH, NAME_PATTERN } from './limits.js';

const RULE = 'a name starts with a letter, _, : or - and goes on with letters, digits, _, :, -, ., @ or #';

/**
 * A name for a message: as it is (GreptimeDB's messages), or JSON-quoted when it is empty, has
 * control characters, quotes or spaces at its ends; its middle cut when long.
 */
function shown(name: string): string {
  const text = name.length <= 64 ? name : `${name.slice(0, 32)}…${name.slice(-16)}`;
  const plain = text !== '' && text.trim() === text && JSON.stringify(text) === `"${text}"`;
  return (plain ? text : JSON.stringify(text)) + (name.length > 64 ? ` (${name.length} characters)` : '');
}

/** A database name: GreptimeDB's pattern, and short enough to be a directory name. */
export function checkDatabaseName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid database name: ${shown(name)}: ${RULE}`);
  if (name.length > MAX_DATABASE_NAME_LENGTH) {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid database name: ${shown(name)}: at most ${MAX_DATABASE_NAME_LENGTH} characters`);
  }
}

/** A table name: GreptimeDB's pattern (its message, `Invalid table name: <name>`, and the rule), and `MAX_NAME_LENGTH`. */
export function checkTableName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid table name: ${shown(name)}: ${RULE}`);
  if (name.length > MAX_NAME_LENGTH) throw new TsdbError(StatusCode.InvalidArguments, `Invalid table name: ${shown(name)}: at most ${MAX_NAME_LENGTH} characters`);
}

/** A column name of table `table`: at most `MAX_NAME_LENGTH` characters. */
export function checkColumnName(table: string, name: string): void {
  if (name.length > MAX_NAME_LENGTH) throw new TsdbError(StatusCode.InvalidArguments, `Invalid column name: ${shown(name)} of table ${shown(table)}: at most ${MAX_NAME_LENGTH} characters`);
}

/** The number of columns a table would have (`limit`: a physical metric table's is `MAX_COLUMNS_PER_REGION`). */
export function checkColumnCount(table: string, columns: number, limit = MAX_COLUMNS_PER_TABLE): void {
  if (columns > limit) {
    throw new TsdbError(StatusCode.InvalidArguments, `Too many columns: table ${shown(table)} would have ${columns} columns, at most ${limit}`);
  }
}
