import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineProtocolError, parseLineProtocol } from './line-protocol.js';
import { INLINE_PARSE_BYTES, ParsePool } from './parse-pool.js';

const NOW = 1_700_000_000_000_000_000n;

/** A body above the inline limit: series with some tags missing, every field type, some lines without a timestamp. */
function bigBody(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const dc = i % 3 === 0 ? '' : `,dc=d${i % 5}`;
    const ts = i % 7 === 0 ? '' : ` ${1_600_000_000_000_000_000n + BigInt(i)}`;
    out.push(`m${i % 2},host=h${i % 11}${dc} f=${i * 0.25},i=${i}i,u=${i}u,s="v ${i}",b=${i % 2 === 0}${i % 4 === 0 ? ',extra=1' : ''}${ts}`);
  }
  return out.join('\n');
}

test('the pool parses large bodies in a worker exactly as the main thread does; small ones inline', async (t) => {
  const pool = new ParsePool(2);
  t.after(() => pool.close());
  const body = bigBody(5000);
  assert.ok(Buffer.byteLength(body) > INLINE_PARSE_BYTES);
  const want = parseLineProtocol(body, { precision: 'ns', now: NOW });
  const got = await Promise.all([1, 2, 3].map(() => pool.parse(Buffer.from(body), 'ns', NOW)));
  for (const g of got) assert.deepEqual(g, want);
  assert.deepEqual(await pool.parse(Buffer.from('x,host=a v=1 1'), 'ns', NOW), parseLineProtocol('x,host=a v=1 1', { precision: 'ns', now: NOW }));
});

test('line errors, bad UTF-8 and a closed pool come back as errors', async () => {
  const pool = new ParsePool(1);
  const body = `${bigBody(4000)}\nm0,host=a f=abc 1\n`;
  await assert.rejects(pool.parse(Buffer.from(body), 'ns', NOW), (err: unknown) => err instanceof LineProtocolError && err.line === 4001 && /invalid field value "abc"/.test(err.message));
  const bad = Buffer.concat([Buffer.from(bigBody(4000)), Buffer.from([0xff, 0xfe])]);
  await assert.rejects(pool.parse(bad, 'ns', NOW), /not valid UTF-8/);
  await pool.close();
  // After close, parses run inline.
  assert.equal((await pool.parse(Buffer.from(bigBody(3000)), 'ns', NOW)).length, 2);
});
