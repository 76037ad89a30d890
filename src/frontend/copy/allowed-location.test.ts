import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedLocation } from '../statement/copy.js';

test('an object storage location is allowed when it lies under a configured prefix, .. resolved first', () => {
  const prefixes = ['s3://backups/tsdb/', 'S3://other/dir'];
  assert.equal(allowedLocation('s3://backups/tsdb/a.parquet', prefixes), true);
  assert.equal(allowedLocation('s3://backups/tsdb/db/', prefixes), true);
  assert.equal(allowedLocation('s3://backups/tsdb', prefixes), true);
  assert.equal(allowedLocation('s3://other/dir/x.csv', prefixes), true);
  assert.equal(allowedLocation('s3://other/dirx/x.csv', prefixes), false);
  assert.equal(allowedLocation('s3://backups/tsdb/../secret/x', prefixes), false);
  assert.equal(allowedLocation('s3://backups/tsdb/./db/../a.parquet', prefixes), true);
  assert.equal(allowedLocation('s3://backups/../../x', prefixes), false);
  assert.equal(allowedLocation('s3://Backups/tsdb/a', prefixes), false);
  assert.equal(allowedLocation('oss://backups/tsdb/a', prefixes), false);
  assert.equal(allowedLocation('s3://backups/tsdb/a', []), false);
});
