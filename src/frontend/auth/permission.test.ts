/** Tests of checkPermission: who may read and who may write. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { checkPermission } from './permission.js';
import type { Permission } from './user-provider.js';

const denied = (err: unknown): boolean =>
  err instanceof TsdbError && err.code === StatusCode.PermissionDenied && err.message === 'User is not authorized to perform this action';

test('read_write may read and write', () => {
  const user = { username: 'u', permission: 'read_write' as Permission };
  checkPermission(user, 'read');
  checkPermission(user, 'write');
});

test('read_only may read, not write', () => {
  const user = { username: 'u', permission: 'read_only' as Permission };
  checkPermission(user, 'read');
  assert.throws(() => checkPermission(user, 'write'), denied);
});

test('write_only may write, not read', () => {
  const user = { username: 'u', permission: 'write_only' as Permission };
  checkPermission(user, 'write');
  assert.throws(() => checkPermission(user, 'read'), denied);
});
