import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempFile } from '../../test/support/temp.js';
import { loadConfig, SCHEMAS } from './load.js';
import { renderConfig } from './render.js';

const SYSTEM = { totalMemory: 8 * 2 ** 30, cpus: 4 };

test('the effective configuration renders as TOML that loads back to the same configuration', (t) => {
  const env = {
    TSDB_STANDALONE__HTTP__TIMEOUT: '1m30s',
    TSDB_STANDALONE__STORAGE__DATA_HOME: '/srv/tsdb',
    TSDB_STANDALONE__STORAGE__PROVIDERS__0__TYPE: 'S3',
    TSDB_STANDALONE__STORAGE__PROVIDERS__0__BUCKET: 'b',
    TSDB_STANDALONE__STORAGE__PROVIDERS__0__SECRET_ACCESS_KEY: 'very-secret',
    TSDB_STANDALONE__EXPORT_METRICS__REMOTE_WRITE__HEADERS__AUTHORIZATION: 'Basic c2VjcmV0',
    TSDB_STANDALONE__DEFAULT_TIMEZONE: 'Asia/Tokyo',
  };
  const first = loadConfig({ component: 'standalone', env, system: SYSTEM });
  const text = renderConfig(SCHEMAS.standalone, first.config, { mask: false });
  const file = tempFile(t, 'effective.toml', text);
  const second = loadConfig({ component: 'standalone', configFile: file, env: {}, system: SYSTEM });
  assert.deepEqual(second.config, first.config);
  assert.match(text, /\[\[region_engine\]\]\n\[region_engine\.mito\]/);
  assert.match(text, /timeout = "1m30s"/);
});

test('secrets are masked in the rendered configuration', () => {
  const env = {
    TSDB_DATANODE__NODE_ID: '1',
    TSDB_DATANODE__STORAGE__TYPE: 'Azblob',
    TSDB_DATANODE__STORAGE__CONTAINER: 'c',
    TSDB_DATANODE__STORAGE__ACCOUNT_KEY: 'account-key-secret',
    TSDB_DATANODE__STORAGE__SAS_TOKEN: 'sas-token-secret',
    TSDB_DATANODE__WAL__DIR: '/wal',
    TSDB_DATANODE__STORAGE__PROVIDERS__0__TYPE: 'S3',
    TSDB_DATANODE__STORAGE__PROVIDERS__0__BUCKET: 'b',
    TSDB_DATANODE__STORAGE__PROVIDERS__0__SECRET_ACCESS_KEY: 's3-secret',
    TSDB_DATANODE__EXPORT_METRICS__REMOTE_WRITE__HEADERS__AUTHORIZATION: 'Basic header-secret',
    TSDB_DATANODE__EXPORT_METRICS__REMOTE_WRITE__URL: 'http://metrics:url-secret@127.0.0.1:9090/api/v1/write',
  };
  const text = renderConfig(SCHEMAS.datanode, loadConfig({ component: 'datanode', env, system: SYSTEM }).config);
  for (const secret of ['account-key-secret', 'sas-token-secret', 's3-secret', 'header-secret', 'url-secret']) {
    assert.ok(!text.includes(secret), `${secret} is shown`);
  }
  assert.match(text, /account_key = "\*\*\*\*\*\*"/);
  assert.match(text, /sas_token = "\*\*\*\*\*\*"/);
  assert.match(text, /secret_access_key = "\*\*\*\*\*\*"/);
  assert.match(text, /authorization = "\*\*\*\*\*\*"/);
  assert.match(text, /url = "http:\/\/metrics:\*\*\*\*\*\*@127\.0\.0\.1:9090\/api\/v1\/write"/);

  const fe = loadConfig({
    component: 'frontend',
    env: { TSDB_FRONTEND__USER_PROVIDER: 'static_user_provider:cmd:alice=pw1,bob=pw2' },
    system: SYSTEM,
  });
  const feText = renderConfig(SCHEMAS.frontend, fe.config);
  assert.match(feText, /user_provider = "static_user_provider:cmd:alice=\*\*\*\*\*\*,bob=\*\*\*\*\*\*"/);
  assert.ok(!feText.includes('pw1') && !feText.includes('pw2'));
});
