import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIpv6, ipv4InRange, ipv4NumToString, ipv4StringToNum, ipv4ToCidr, ipv6InRange, ipv6NumToString, ipv6StringToNum, ipv6ToCidr, parseIpv4, parseIpv6 } from './ip-functions.js';

test('IPv4 addresses are read as Rust reads them: four decimal octets, no leading zeros', () => {
  assert.equal(parseIpv4('192.168.0.1'), 3232235521);
  assert.equal(parseIpv4('255.255.255.255'), 4294967295);
  for (const bad of ['192.168.01.1', '256.0.0.1', '1.2.3', '1.2.3.4.5', ' 1.2.3.4', '1..2.3', '']) assert.equal(parseIpv4(bad), undefined, bad);
  assert.equal(ipv4StringToNum('10.0.0.1'), 167772161);
  assert.throws(() => ipv4StringToNum('10.0.0'), /^TsdbError: Invalid function args: Invalid IPv4 address format: 10\.0\.0$|^Invalid function args: Invalid IPv4 address format: 10\.0\.0$/);
  assert.equal(ipv4NumToString(3232235521n), '192.168.0.1');
  assert.throws(() => ipv4NumToString(4294967296n), /Cast error: Can't cast value 4294967296 to type UInt32/);
  assert.throws(() => ipv4NumToString(-1n), /Cast error: Can't cast value -1 to type UInt32/);
});

test('IPv6 addresses are read and written as Rust does (RFC 5952, mapped IPv4)', () => {
  assert.deepEqual(parseIpv6('2001:db8::1'), [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(parseIpv6('::ffff:192.168.0.1'), [0, 0, 0, 0, 0, 0xffff, 0xc0a8, 1]);
  assert.deepEqual(parseIpv6('1:2:3:4:5:6:7::'), [1, 2, 3, 4, 5, 6, 7, 0]);
  for (const bad of ['2001:db8', '1::2::3', ':::', '12345::', '1:2:3:4:5:6:7:8::', 'fe80::1%eth0', '1.2.3.4::', '']) assert.equal(parseIpv6(bad), undefined, bad);
  assert.equal(formatIpv6([0x2001, 0, 0, 0, 0, 0, 0, 1]), '2001::1');
  assert.equal(formatIpv6([1, 0, 1, 0, 0, 1, 0, 0]), '1:0:1::1:0:0');
  assert.equal(formatIpv6([1, 0, 2, 3, 4, 5, 6, 7]), '1:0:2:3:4:5:6:7');
  assert.equal(formatIpv6([0, 0, 0, 0, 0, 0, 0, 0]), '::');
  assert.equal(ipv6NumToString('00000000000000000000FFFFC0A80001'), '::ffff:192.168.0.1');
  assert.throws(() => ipv6NumToString('abc'), /^TsdbError: Execution error: expecting 32 hex characters, got 3$|Execution error: expecting 32 hex characters, got 3/);
  assert.throws(() => ipv6NumToString('zz010db8000000000000000000000001'), /Invalid function args: Invalid hex characters in 'zz'/);
  assert.deepEqual([...ipv6StringToNum('10.0.0.1')], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, 1]);
  assert.throws(() => ipv6StringToNum('nope'), /Execution error: Invalid IPv6 address format: nope/);
});

test('CIDR of an address: given masks, guessed ones, partial addresses, GreptimeDB quirks', () => {
  assert.equal(ipv4ToCidr('192.168.1.1', 24), '192.168.1.0/24');
  assert.equal(ipv4ToCidr('192.168.1.1', undefined), '192.168.1.1/32');
  assert.equal(ipv4ToCidr('192.168.1.0', undefined), '192.168.1.0/24');
  assert.equal(ipv4ToCidr('192.168', undefined), '192.168.0.0/16');
  assert.equal(ipv4ToCidr('10', undefined), '10.0.0.0/8');
  assert.equal(ipv4ToCidr('0.0.0.0', undefined), '0.0.0.0/0');
  // u32::MAX.wrapping_shl(32 - mask): mask 0 keeps every bit, 40 keeps the first octet.
  assert.equal(ipv4ToCidr('192.168.1.1', 0), '192.168.1.1/0');
  assert.equal(ipv4ToCidr('192.168.1.1', 40), '192.0.0.0/40');
  assert.throws(() => ipv4ToCidr('', 8), /Execution error: empty IPv4 address/);
  assert.throws(() => ipv4ToCidr('1.2.3.4.5', 8), /Invalid function args: Invalid IPv4 address: 1\.2\.3\.4\.5/);
  assert.equal(ipv6ToCidr('2001:db8::1', undefined), '2001:db8::/32');
  assert.equal(ipv6ToCidr('2001:db8', undefined), '2001:db8::/32');
  assert.equal(ipv6ToCidr('fe80::1234', undefined), 'fe80::/16');
  assert.equal(ipv6ToCidr('fe80::1234', 10), 'fe80::/10');
  assert.equal(ipv6ToCidr('::ffff:192.168.0.1', 96), '::ffff:0.0.0.0/96');
  assert.equal(ipv6ToCidr('::ffff:192.168.0.1', undefined), '::ffff:192.168.0.1/128');
  assert.equal(ipv6ToCidr('2001:0:0:0:0:0:0:1', undefined), '2001::1/128');
  assert.equal(ipv6ToCidr('1:2:3:4:5:6:7:100', undefined), '1:2:3:4:5:6:7:100/120');
  assert.throws(() => ipv6ToCidr('zz::', 8), /Invalid function args: Invalid IPv6 address: zz::/);
});

test('range checks, with GreptimeDB error texts for bad ranges', () => {
  assert.equal(ipv4InRange('192.168.1.5', '192.168.1.0/24'), true);
  assert.equal(ipv4InRange('192.168.2.5', '192.168.1.0/24'), false);
  assert.equal(ipv4InRange('8.8.8.8', '0.0.0.0/0'), true);
  assert.equal(ipv4InRange('172.16.0.5', '172.16.0.0/12'), true);
  assert.throws(() => ipv4InRange('1.2.3.4', '1.2.3.0'), /Invalid CIDR notation: 1\.2\.3\.0/);
  assert.throws(() => ipv4InRange('1.2.3.4', '1.2.3.0/33'), /IPv4 prefix length must be <= 32, got 33/);
  assert.throws(() => ipv4InRange('1.2.3.4', '1.2.3.0/x'), /Invalid prefix length: x/);
  assert.throws(() => ipv4InRange('1.2.3.4', '1.2.3/8'), /Invalid IPv4 address in CIDR: 1\.2\.3/);
  assert.throws(() => ipv4InRange('', '1.2.3.0/8'), /Execution error: IP address or CIDR range cannot be empty/);
  assert.equal(ipv6InRange('2001:db8:1::5', '2001:db8:1::/48'), true);
  assert.equal(ipv6InRange('2001:db8:2::1', '2001:db8:1::/48'), false);
  assert.equal(ipv6InRange('fe80::5678', 'fe80::/10'), true);
  assert.equal(ipv6InRange('fec0::1', 'fe80::/10'), false);
  assert.throws(() => ipv6InRange('::1', '::/129'), /IPv6 prefix length must be <= 128, got 129/);
  assert.throws(() => ipv6InRange('1.2.3.4', '::/0'), /Invalid IPv6 address: 1\.2\.3\.4/);
});
