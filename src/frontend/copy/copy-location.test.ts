/**
 * `resolveCopyLocation`: local paths in the copy directory only (relative, absolute inside it,
 * through links that stay inside), everything else refused with 7006; object storage URLs parsed
 * into a store, its bucket and path.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { resolveCopyLocation } from './copy-location.js';

test('local locations: in the copy directory, or refused with 7006 before anything is touched', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'tsdb-copy-loc-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'copy');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'in'), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(root, 'out-link'));
  symlinkSync(join(root, 'in'), join(root, 'in-link'));

  const ok = async (loc: string, path: string, directory: boolean) => {
    const r = await resolveCopyLocation(loc, {}, root);
    assert.ok(r.kind === 'local');
    assert.equal(r.path, path, loc);
    assert.equal(r.directory, directory, loc);
  };
  await ok('a.parquet', join(root, 'a.parquet'), false);
  await ok('new/dir/', join(root, 'new', 'dir'), true);
  await ok('./x.csv', join(root, 'x.csv'), false);
  await ok(join(root, 'abs.csv'), join(root, 'abs.csv'), false);
  await ok(`file://${join(root, 'url.csv')}`, join(root, 'url.csv'), false);
  await ok('in-link/y.csv', join(root, 'in-link', 'y.csv'), false);

  const denied = async (loc: string, why: RegExp, dir: string | null = root) => {
    await assert.rejects(resolveCopyLocation(loc, {}, dir ?? undefined), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.PermissionDenied && why.test(e.message), loc);
  };
  await denied('../x.csv', /a path may not contain \.\.: \.\.\/x\.csv$/);
  await denied('in/../../x.csv', /may not contain \.\./);
  await denied(join(outside, 'x.csv'), /outside the copy directory/);
  await denied(`${root}-sibling/x.csv`, /outside the copy directory/);
  await denied(`file://${join(outside, 'x.csv')}`, /outside the copy directory/);
  await denied('out-link/x.csv', /a symbolic link leads outside the copy directory/);
  await denied('out-link/', /a symbolic link leads outside/);
  await denied('.tsdb-staging/x.csv', /tsdb's own/);
  await denied('x.csv', /no copy directory is configured/, null);
});

test('object storage locations: scheme, bucket and path; CONNECTION only with them; unknown schemes refused', async () => {
  const s3 = await resolveCopyLocation('s3://bucket/backups/db/', { endpoint: 'http://127.0.0.1:1', region: 'us-east-1', access_key_id: 'k', secret_access_key: 's' }, undefined);
  assert.ok(s3.kind === 'remote');
  assert.equal(s3.path, 'backups/db/');
  assert.equal(s3.directory, true);
  assert.equal(s3.store.description, 'S3(bucket)');
  const file = await resolveCopyLocation('s3://bucket/t.parquet', { endpoint: 'http://127.0.0.1:1' }, undefined);
  assert.ok(file.kind === 'remote' && file.path === 't.parquet' && !file.directory);
  const invalid = (loc: string, conn: Record<string, string>, message: RegExp) =>
    assert.rejects(resolveCopyLocation(loc, conn, '/tmp'), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && message.test(e.message), loc);
  await invalid('http://example.com/x.csv', {}, /unsupported location scheme http:\/\//);
  await invalid('s3:///x.csv', {}, /no bucket/);
  await invalid('s3://b/../x.csv', {}, /may not contain \.\./);
  await invalid('x.csv', { region: 'x' }, /CONNECTION is only for object storage locations/);
});
