/**
 * Permission check of an authenticated user (reference api.md §3): a read-only user may not write
 * (DDL/DML) and a write-only user may not read (SELECT/SHOW/DESC); 7006 PermissionDenied otherwise.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { UserInfo } from './user-provider.js';

export type AccessKind = 'read' | 'write';

export function checkPermission(user: UserInfo, kind: AccessKind): void {
  const denied =
    (kind === 'write' && user.permission === 'read_only') || (kind === 'read' && user.permission === 'write_only');
  if (denied) throw new TsdbError(StatusCode.PermissionDenied, 'User is not authorized to perform this action');
}
