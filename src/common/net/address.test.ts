import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAddress, parseAddress } from './address.js';

test('parses bind addresses: ip:port, IPv6 in brackets, port 0', () => {
  assert.deepEqual(parseAddress('127.0.0.1:4000', { bind: true }), { host: '127.0.0.1', port: 4000 });
  assert.deepEqual(parseAddress('0.0.0.0:0', { bind: true }), { host: '0.0.0.0', port: 0 });
  assert.deepEqual(parseAddress('[::1]:4001', { bind: true }), { host: '::1', port: 4001 });
  assert.equal(formatAddress(parseAddress('[::1]:4001', { bind: true })), '[::1]:4001');
});

test('client addresses may name a host; bind addresses may not', () => {
  assert.deepEqual(parseAddress('meta-0.meta.svc:3002', { bind: false }), { host: 'meta-0.meta.svc', port: 3002 });
  assert.throws(() => parseAddress('localhost:4000', { bind: true }), /not an IP address/);
});

test('rejects malformed addresses with a message naming the value', () => {
  const bad: Array<[string, boolean, RegExp]> = [
    ['4000', true, /expected ip:port/],
    [':4000', true, /expected ip:port/],
    ['127.0.0.1', true, /expected ip:port/],
    ['127.0.0.1:', true, /port "" is not a number/],
    ['127.0.0.1:http', true, /port "http" is not a number/],
    ['127.0.0.1:70000', true, /out of range/],
    ['127.0.0.1:0', false, /out of range/],
    ['256.1.1.1:80', true, /not an IP address/],
    ['::1:4000', true, /IPv6 address in brackets/],
    ['[::1:4000', true, /expected ip:port/],
    ['[1.2.3.4]:4000', true, /not an IPv6 address/],
    ['bad_host!:80', false, /not a valid host name/],
  ];
  for (const [text, bind, re] of bad) {
    assert.throws(() => parseAddress(text, { bind }), (err: Error) => re.test(err.message) && err.message.includes(text), text);
  }
});
