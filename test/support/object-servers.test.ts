/**
 * The fake object servers and fault endpoints of object-servers.ts, spoken to directly over HTTP:
 * the details OpenDAL relies on and the provider tests cannot see (error forms, ranges, tokens).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OpendalObjectStore } from '../../src/storage/opendal-object-store.js';
import { opendalOptions, type ObjectStoreOptions } from '../../src/storage/create-object-store.js';
import { refusedEndpoint, startFakeGcs, startFakeOss, startSilentServer, startStorageServer, type FakeGcs, type RemoteStorageType } from './object-servers.js';

describe('fake GCS server', () => {
  let gcs: FakeGcs;
  let token = '';
  before(async () => {
    gcs = await startFakeGcs('b', { pageSize: 2 });
    const res = await fetch(`${gcs.endpoint}/token`, { method: 'POST', body: JSON.stringify({ subjectToken: gcs.subjectToken }) });
    assert.equal(res.status, 200);
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  after(() => gcs?.stop());
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${gcs.endpoint}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });

  test('a wrong subject token gets no token; a request without the token is refused in GCS error form', async () => {
    const denied = await fetch(`${gcs.endpoint}/token`, { method: 'POST', body: JSON.stringify({ subjectToken: 'wrong' }) });
    assert.equal(denied.status, 400);
    const anon = await fetch(`${gcs.endpoint}/storage/v1/b/b/o/x`);
    assert.equal(anon.status, 401);
    const body = (await anon.json()) as { error: { code: number; errors: Array<{ reason: string }> } };
    assert.equal(body.error.code, 401);
    assert.equal(body.error.errors[0]!.reason, 'required');
  });

  test('objects: insert, metadata, ranged reads, 404 and 416 in GCS error form, delete', async () => {
    const put = await call('/upload/storage/v1/b/b/o?uploadType=media&name=d%2Fobj', { method: 'POST', body: '0123456789' });
    assert.equal(put.status, 200);
    const meta = (await (await call('/storage/v1/b/b/o/d%2Fobj')).json()) as { name: string; size: string };
    assert.deepEqual([meta.name, meta.size], ['d/obj', '10']);
    const whole = await call('/storage/v1/b/b/o/d%2Fobj?alt=media');
    assert.equal(await whole.text(), '0123456789');
    const mid = await call('/storage/v1/b/b/o/d%2Fobj?alt=media', { headers: { range: 'bytes=2-4' } });
    assert.equal(mid.status, 206);
    assert.equal(mid.headers.get('content-range'), 'bytes 2-4/10');
    assert.equal(await mid.text(), '234');
    const tail = await call('/storage/v1/b/b/o/d%2Fobj?alt=media', { headers: { range: 'bytes=-3' } });
    assert.equal(await tail.text(), '789');
    const open = await call('/storage/v1/b/b/o/d%2Fobj?alt=media', { headers: { range: 'bytes=8-100' } });
    assert.equal(await open.text(), '89');
    const past = await call('/storage/v1/b/b/o/d%2Fobj?alt=media', { headers: { range: 'bytes=10-' } });
    assert.equal(past.status, 416);
    const missing = await call('/storage/v1/b/b/o/nope?alt=media');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: number } }).error.code, 404);
    assert.equal((await call('/storage/v1/b/b/o/d%2Fobj', { method: 'DELETE' })).status, 204);
    assert.equal((await call('/storage/v1/b/b/o/d%2Fobj', { method: 'DELETE' })).status, 404);
  });

  test('listing pages through nextPageToken in name order; a delimiter gives prefixes', async () => {
    for (const name of ['l/c', 'l/a', 'l/b/1', 'l/b/2', 'l/d']) {
      await call(`/upload/storage/v1/b/b/o?uploadType=media&name=${encodeURIComponent(name)}`, { method: 'POST', body: name });
    }
    const listAll = async (query: string): Promise<{ names: string[]; prefixes: string[] }> => {
      const names: string[] = [];
      const prefixes: string[] = [];
      let pageToken = '';
      for (let pages = 0; pages < 10; pages++) {
        const res = await call(`/storage/v1/b/b/o?${query}${pageToken === '' ? '' : `&pageToken=${pageToken}`}`);
        const page = (await res.json()) as { items?: Array<{ name: string }>; prefixes?: string[]; nextPageToken?: string };
        assert.ok((page.items ?? []).length + (page.prefixes ?? []).length <= 2, 'a page holds at most pageSize entries');
        names.push(...(page.items ?? []).map((i) => i.name));
        prefixes.push(...(page.prefixes ?? []));
        if (page.nextPageToken === undefined) return { names, prefixes };
        pageToken = encodeURIComponent(page.nextPageToken);
      }
      assert.fail('the listing never ended');
    };
    assert.deepEqual(await listAll('prefix=l%2F'), { names: ['l/a', 'l/b/1', 'l/b/2', 'l/c', 'l/d'], prefixes: [] });
    assert.deepEqual(await listAll('prefix=l%2F&delimiter=%2F'), { names: ['l/a', 'l/c', 'l/d'], prefixes: ['l/b/'] });
    assert.deepEqual(await listAll('prefix=zzz'), { names: [], prefixes: [] });
  });
});

describe('fake OSS server', () => {
  test('requests must address the bucket by host and be signed; errors are OSS XML', async (t) => {
    const oss = await startFakeOss();
    t.after(() => oss.stop());
    const port = new URL(oss.endpoint).port;
    const unsigned = await fetch(`http://127.0.0.1:${port}/x`);
    assert.equal(unsigned.status, 403);
    const xml = await unsigned.text();
    assert.match(xml, /<Error>\s*<Code>AccessDenied<\/Code>/);
    assert.match(xml, /<RequestId>[0-9A-F]+<\/RequestId>/);
    const forged = await fetch(`http://127.0.0.1:${port}/x`, { headers: { authorization: `OSS ${oss.accessKeyId}:AAAA`, date: new Date().toUTCString() } });
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
    const wrongHost = await fetch(`http://localhost:${port}/x`);
    assert.match(await wrongHost.text(), /<Code>InvalidBucketName<\/Code>/);
  });
});

describe('fault endpoints', () => {
  test('refusedEndpoint: nothing listens', async () => {
    const endpoint = await refusedEndpoint();
    await assert.rejects(fetch(endpoint), (err: Error) => {
      assert.equal((err.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('startSilentServer: connects, never answers', async (t) => {
    const silent = await startSilentServer();
    t.after(() => silent.stop());
    const result = await Promise.race([fetch(silent.endpoint).then(() => 'answered'), new Promise((r) => setTimeout(() => r('silent'), 300))]);
    assert.equal(result, 'silent');
    assert.equal(silent.accepted(), 1);
  });
});

describe('startStorageServer', () => {
  for (const type of ['S3', 'Azblob', 'Gcs', 'Oss'] as RemoteStorageType[]) {
    test(`${type}: tsdb's storage keys reach a working store`, async (t) => {
      const started = await startStorageServer(type);
      t.after(() => started.stop());
      const keys = started.storage('tsdb-data');
      assert.equal(keys['type'], type);
      const store = new OpendalObjectStore(opendalOptions({ data_home: '/unused', ...keys } as ObjectStoreOptions));
      await store.write('a/b', Buffer.from('through tsdb keys'));
      assert.equal(Buffer.from(await store.read('a/b')).toString(), 'through tsdb keys');
      assert.deepEqual(await store.list(''), [{ path: 'a/b', size: 17 }]);
    });
  }
});
