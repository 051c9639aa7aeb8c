import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addressAllowed, classifyAddress, DEFAULT_WEBHOOK_POLICY, failedTooLong, nextRetry, parseWebhookUrl, refusedAddress,
  retryDelay, signatureHeader, signingSecrets, subscriptionTakes, taskChanges,
} from './rules.js';

describe('webhook signatures', () => {
  it('sign "t.body" with HMAC-SHA256, one v1 per secret', () => {
    const body = '{"id":"evt_1"}';
    const expected = createHmac('sha256', 'whsec_a').update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(1700000000, body, ['whsec_a'])).toBe(`t=1700000000,v1=${expected}`);
    const two = signatureHeader(1700000000, body, ['whsec_a', 'whsec_b']).split(',');
    expect(two).toHaveLength(3);
    expect(two[1]).toBe(`v1=${expected}`);
    expect(two[2]).not.toBe(two[1]);
  });

  it('use the previous secret too until its overlap ends', () => {
    const w = { secret: 'new', previousSecret: 'old', previousSecretExpiresAt: 1000 };
    expect(signingSecrets(w, 999)).toEqual(['new', 'old']);
    expect(signingSecrets(w, 1000)).toEqual(['new']);
    expect(signingSecrets({ ...w, previousSecret: null }, 0)).toEqual(['new']);
  });
});

describe('the retry schedule', () => {
  const p = DEFAULT_WEBHOOK_POLICY;
  it('doubles from 30 s up to 4 h', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, p))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelay(12, p)).toBe(4 * 3_600_000);
    expect(retryDelay(1000, p)).toBe(4 * 3_600_000);
  });

  it('retries for at least 24 hours, and at most the window, then stops', () => {
    let now = 0;
    let attempts = 0;
    const times: number[] = [];
    for (;;) {
      attempts++;
      const wait = nextRetry(attempts, 0, now, p);
      if (wait === null) break;
      now += wait;
      times.push(now);
    }
    expect(now).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(now).toBeLessThanOrEqual(p.retryForMs);
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(40);
  });

  it('switches a subscription off after failing for the whole period', () => {
    expect(failedTooLong(null, 10 * 86_400_000, p)).toBe(false);
    expect(failedTooLong(0, 3 * 86_400_000 - 1, p)).toBe(false);
    expect(failedTooLong(0, 3 * 86_400_000, p)).toBe(true);
  });
});

describe('receiver addresses', () => {
  it.each([
    ['93.184.216.34', 'public'], ['2606:2800:220:1:248:1893:25c8:1946', 'public'], ['127.0.0.1', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.1.1', 'private'], ['fd12::1', 'private'], ['100.64.0.1', 'private'],
    ['169.254.10.10', 'link_local'], ['fe80::1', 'link_local'], ['169.254.169.254', 'metadata'], ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:169.254.169.254', 'metadata'], ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'reserved'], ['not-an-ip', 'invalid'],
  ])('%s is %s', (ip, kind) => expect(classifyAddress(ip)).toBe(kind));

  it('private networks pass only with WEBHOOK_ALLOW_PRIVATE; metadata and reserved never', () => {
    expect(addressAllowed('127.0.0.1', false).ok).toBe(false);
    expect(addressAllowed('127.0.0.1', true).ok).toBe(true);
    expect(addressAllowed('10.0.0.1', true).ok).toBe(true);
    expect(addressAllowed('169.254.169.254', true).ok).toBe(false);
    expect(addressAllowed('0.0.0.0', true).ok).toBe(false);
  });

  it('a host is refused when any of its addresses is', () => {
    expect(refusedAddress('h', ['93.184.216.34'], false)).toBeNull();
    expect(refusedAddress('h', ['93.184.216.34', '10.0.0.1'], false)).toMatch(/10\.0\.0\.1, a private address/);
    expect(refusedAddress('h', [], false)).toMatch(/does not resolve/);
  });

  it('URLs must be http(s) without credentials', () => {
    expect(parseWebhookUrl('https://[::1]:8443/x')).toMatchObject({ host: '::1', literal: true });
    expect(parseWebhookUrl('http://hooks.example.com/a?b=1')).toMatchObject({ host: 'hooks.example.com', literal: false });
    // The URL parser normalizes the odd IPv4 spellings, so they are classified as what they are.
    expect(parseWebhookUrl('http://0x7f.1/')).toMatchObject({ host: '127.0.0.1', literal: true });
    expect(() => parseWebhookUrl('ftp://x.example')).toThrow(/url: must use http or https/);
    expect(() => parseWebhookUrl('https://u:p@x.example')).toThrow(/url: must not carry/);
    expect(() => parseWebhookUrl('nope')).toThrow(/url: must be an absolute/);
  });
});

describe('event matching and changes', () => {
  it('a project-limited subscription hears only its projects, and no project-less events', () => {
    const all = { events: ['task.created', 'doc.created'], projectIds: null };
    const some = { events: ['task.created'], projectIds: ['p1'] };
    expect(subscriptionTakes(all, 'task.created', 'p9')).toBe(true);
    expect(subscriptionTakes(all, 'doc.created', null)).toBe(true);
    expect(subscriptionTakes(all, 'task.updated', 'p1')).toBe(false);
    expect(subscriptionTakes(some, 'task.created', 'p1')).toBe(true);
    expect(subscriptionTakes(some, 'task.created', 'p2')).toBe(false);
    expect(subscriptionTakes(some, 'task.created', null)).toBe(false);
  });

  it('lists the changed fields with their previous values', () => {
    const before = { title: 'a', labels: ['x'], priority: 'low', updatedAt: 1 };
    const after = { title: 'b', labels: ['x'], priority: 'high', updatedAt: 2 };
    expect(taskChanges(before, after)).toEqual({ changes: ['title', 'priority'], previous: { title: 'a', priority: 'low' } });
    expect(taskChanges(before, before).changes).toEqual([]);
  });
});
