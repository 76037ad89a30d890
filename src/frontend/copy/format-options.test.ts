import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compressionSuffix, duckdbPattern, formatOptionsOf } from './format-options.js';

test("COPY's format options as GreptimeDB reads them: compression names, the delimiter's byte code, chrono patterns", () => {
  assert.deepEqual(formatOptionsOf({}), { delimiter: ',' });
  assert.deepEqual(formatOptionsOf({ compression_type: 'GZ' }), { delimiter: ',', compression: 'gzip' });
  assert.deepEqual(formatOptionsOf({ compression_type: 'zst' }), { delimiter: ',', compression: 'zstd' });
  assert.deepEqual(formatOptionsOf({ compression_type: '' }), { delimiter: ',' });
  assert.throws(() => formatOptionsOf({ compression_type: 'bzip2' }), /Unsupported compression type: BZIP2/);
  assert.throws(() => formatOptionsOf({ compression_type: 'snappy' }), /Unsupported compression type: SNAPPY/);
  assert.equal(formatOptionsOf({ delimiter: '9' }).delimiter, '\t');
  assert.equal(formatOptionsOf({ delimiter: '59' }).delimiter, ';');
  assert.equal(formatOptionsOf({ delimiter: '|' }).delimiter, '|');
  assert.throws(() => formatOptionsOf({ delimiter: '256' }), /Failed to parse format delimiter with value: 256/);
  assert.throws(() => formatOptionsOf({ delimiter: '10' }), /Failed to parse format delimiter/);
  assert.equal(duckdbPattern('%Y-%m-%d %H:%M:%S%.3f'), '%Y-%m-%d %H:%M:%S.%g');
  assert.equal(duckdbPattern('%H:%M:%S.%6f'), '%H:%M:%S.%f');
  assert.equal(formatOptionsOf({ timestamp_format: '%m-%d-%Y', date_format: '%Y/%m/%d' }).dateFormat, '%Y/%m/%d');
  assert.equal(compressionSuffix(formatOptionsOf({ compression_type: 'zstd' })), '.zst');
  assert.equal(compressionSuffix(formatOptionsOf({})), '');
});
