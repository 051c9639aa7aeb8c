import { describe, expect, it } from 'vitest';
import { ipAllowed, isValidIpRule, parseIp } from './cidr.js';

describe('parseIp', () => {
  it('parses IPv4 and IPv6 addresses', () => {
    expect(parseIp('10.0.0.5')?.kind()).toBe('ipv4');
    expect(parseIp('10.0.0.5')?.toString()).toBe('10.0.0.5');
    expect(parseIp('2001:db8::1')?.kind()).toBe('ipv6');
    expect(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')?.toString()).toBe('2001:db8::1');
  });

  it('turns an IPv4-mapped IPv6 address into IPv4', () => {
    const addr = parseIp('::ffff:10.0.0.5');
    expect(addr?.kind()).toBe('ipv4');
    expect(addr?.toString()).toBe('10.0.0.5');
  });

  it('returns null for anything that is not an address', () => {
    expect(parseIp('')).toBeNull();
    expect(parseIp('garbage')).toBeNull();
    expect(parseIp('10.0.0.256')).toBeNull();
    expect(parseIp('10.0.0.0/24')).toBeNull();
    expect(parseIp('2001:db8:::1')).toBeNull();
  });
});

describe('isValidIpRule', () => {
  it('accepts single addresses and CIDR ranges of both families', () => {
    for (const rule of ['10.0.0.5', '10.0.0.0/24', '10.0.0.5/32', '0.0.0.0/0', '2001:db8::1', '2001:db8::/32', '::/0', '::ffff:10.0.0.0/104']) {
      expect(isValidIpRule(rule), rule).toBe(true);
    }
  });

  it('rejects garbage, out-of-range prefixes and malformed ranges', () => {
    for (const rule of ['', 'abc', 'abc/24', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/x', '/24', '2001:db8::/129', '300.0.0.1', ' 10.0.0.1', '10.0.0.1 ']) {
      expect(isValidIpRule(rule), JSON.stringify(rule)).toBe(false);
    }
  });
});

describe('ipAllowed', () => {
  it('matches a single IPv4 address exactly', () => {
    expect(ipAllowed('10.0.0.5', ['10.0.0.5'])).toBe(true);
    expect(ipAllowed('10.0.0.6', ['10.0.0.5'])).toBe(false);
  });

  it('matches IPv4 CIDR ranges', () => {
    expect(ipAllowed('192.168.1.1', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('192.168.1.255', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('192.168.2.1', ['192.168.1.0/24'])).toBe(false);
    expect(ipAllowed('10.0.0.5', ['10.0.0.5/32'])).toBe(true);
    expect(ipAllowed('10.0.0.4', ['10.0.0.5/32'])).toBe(false);
    expect(ipAllowed('203.0.113.9', ['0.0.0.0/0'])).toBe(true);
  });

  it('does not let an IPv4 /0 admit IPv6 clients', () => {
    expect(ipAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
  });

  it('matches a single IPv6 address regardless of notation', () => {
    expect(ipAllowed('2001:db8::1', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('2001:0db8:0000:0000:0000:0000:0000:0001', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('2001:DB8::1', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('2001:db8::2', ['2001:db8::1'])).toBe(false);
  });

  it('matches IPv6 CIDR ranges', () => {
    expect(ipAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db8:ffff:ffff::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('10.0.0.5', ['2001:db8::/32'])).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 client against IPv4 rules', () => {
    expect(ipAllowed('::ffff:10.0.0.5', ['10.0.0.5'])).toBe(true);
    expect(ipAllowed('::ffff:10.0.0.5', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:10.0.0.5', ['10.0.1.0/24'])).toBe(false);
    expect(ipAllowed('::ffff:11.0.0.5', ['10.0.0.0/8'])).toBe(false);
  });

  it('matches an IPv4 client against IPv4-mapped IPv6 rules', () => {
    expect(ipAllowed('10.0.0.5', ['::ffff:10.0.0.5'])).toBe(true);
    expect(ipAllowed('10.200.0.5', ['::ffff:10.0.0.0/104'])).toBe(true); // = 10.0.0.0/8
    expect(ipAllowed('11.0.0.5', ['::ffff:10.0.0.0/104'])).toBe(false);
    expect(ipAllowed('10.0.0.200', ['::ffff:10.0.0.0/120'])).toBe(true); // = 10.0.0.0/24
    expect(ipAllowed('10.0.1.5', ['::ffff:10.0.0.0/120'])).toBe(false);
  });

  it('allows when any rule matches and denies when none does', () => {
    const rules = ['192.168.0.0/16', '2001:db8::/32', '10.0.0.5'];
    expect(ipAllowed('10.0.0.5', rules)).toBe(true);
    expect(ipAllowed('192.168.44.3', rules)).toBe(true);
    expect(ipAllowed('2001:db8:1::1', rules)).toBe(true);
    expect(ipAllowed('172.16.0.1', rules)).toBe(false);
    expect(ipAllowed('2001:db9::1', rules)).toBe(false);
  });

  it('denies everything with an empty rule list', () => {
    expect(ipAllowed('10.0.0.5', [])).toBe(false);
  });

  it('denies a missing or unparseable client address', () => {
    expect(ipAllowed(undefined, ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('garbage', ['0.0.0.0/0', '::/0'])).toBe(false);
    expect(ipAllowed('10.0.0.999', ['0.0.0.0/0'])).toBe(false);
  });

  it('ignores invalid single-address rules', () => {
    expect(ipAllowed('10.0.0.5', ['not-an-ip'])).toBe(false);
    expect(ipAllowed('10.0.0.5', ['not-an-ip', '10.0.0.5'])).toBe(true);
  });
});
