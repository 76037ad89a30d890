/** `[slow_query]`: the reference's defaults per component, and what is refused or warned about. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempFile } from '../../test/support/temp.js';
import { GIB } from '../common/size/size.js';
import { loadConfig } from './load.js';
import { ConfigError } from './resolve.js';

const SYSTEM = { totalMemory: 16 * GIB, cpus: 8 };

test('defaults: off in a standalone server, on in a frontend (system_table, 30s, 1.0, 90d)', () => {
  const s = loadConfig({ component: 'standalone', env: {}, system: SYSTEM }).config.slow_query;
  assert.deepEqual(s, { enable: false, record_type: 'system_table', threshold: 30_000, sample_ratio: 1, ttl: 90 * 86_400_000 });
  const f = loadConfig({ component: 'frontend', env: {}, system: SYSTEM }).config.slow_query;
  assert.deepEqual(f, { enable: true, record_type: 'system_table', threshold: 30_000, sample_ratio: 1, ttl: 90 * 86_400_000 });
  const d = loadConfig({ component: 'datanode', env: {}, system: SYSTEM, flags: [{ path: ['node_id'], raw: '0', info: { textual: true }, source: { kind: 'flag', flag: '--node-id' } }] }).config;
  assert.equal('slow_query' in d, false);
});

test('from a file and the environment', (t) => {
  const file = tempFile(t, 'c.toml', '[slow_query]\nenable = true\nrecord_type = "log"\nthreshold = "250ms"\nsample_ratio = 0.25\nttl = "7d"\n');
  const s = loadConfig({ component: 'standalone', configFile: file, env: {}, system: SYSTEM }).config.slow_query;
  assert.deepEqual(s, { enable: true, record_type: 'log', threshold: 250, sample_ratio: 0.25, ttl: 7 * 86_400_000 });
  const e = loadConfig({ component: 'standalone', env: { TSDB_STANDALONE__SLOW_QUERY__ENABLE: 'true', TSDB_STANDALONE__SLOW_QUERY__THRESHOLD: '1s' }, system: SYSTEM }).config.slow_query;
  assert.equal(e.enable, true);
  assert.equal(e.threshold, 1000);
});

test('bad values are refused; a ratio of 0 is warned about', (t) => {
  const bad = (body: string): string => {
    const file = tempFile(t, 'c.toml', `[slow_query]\n${body}\n`);
    try {
      loadConfig({ component: 'standalone', configFile: file, env: {}, system: SYSTEM });
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.message;
    }
    assert.fail(`accepted: ${body}`);
  };
  assert.match(bad('record_type = "table"'), /slow_query\.record_type.*"system_table", "log"/);
  assert.match(bad('sample_ratio = 1.5'), /slow_query\.sample_ratio.*between 0 and 1/);
  assert.match(bad('threshold = "soon"'), /slow_query\.threshold/);
  assert.match(bad('ttl = "10ms"'), /slow_query\.ttl: must be 0s \(keep forever\) or at least 1s/);
  const file = tempFile(t, 'c.toml', '[slow_query]\nenable = true\nsample_ratio = 0.0\n');
  const { warnings } = loadConfig({ component: 'standalone', configFile: file, env: {}, system: SYSTEM });
  assert.ok(warnings.some((w) => w.includes('slow_query.sample_ratio is 0')), warnings.join('\n'));
});
