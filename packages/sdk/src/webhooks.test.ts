import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './webhooks.js';

const body = JSON.stringify({ id: 'evt_1', type: 'task.created', createdAt: 1, workspaceId: 'ws_1', data: { task: { id: 't' } } });
const sign = (secret: string, t: number, payload = body) => createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex');
const T = 1_800_000_000;

describe('verifyWebhook', () => {
  it('returns the event when a v1 signature matches and the time is within the tolerance', async () => {
    const event = await verifyWebhook({ payload: body, signature: `t=${T},v1=${sign('whsec_a', T)}`, secret: 'whsec_a', now: T * 1000 + 200_000 });
    expect(event).toMatchObject({ id: 'evt_1', type: 'task.created' });
    // Bytes work too, and during a rotation any of the given secrets and any of the v1 values may match.
    const bytes = new TextEncoder().encode(body);
    const header = `t=${T},v1=${sign('whsec_new', T)},v1=${sign('whsec_old', T)}`;
    await expect(verifyWebhook({ payload: bytes, signature: header, secret: 'whsec_old', now: T * 1000 })).resolves.toMatchObject({ id: 'evt_1' });
    await expect(verifyWebhook({ payload: body, signature: `t=${T},v1=${sign('whsec_old', T)}`, secret: ['whsec_new', 'whsec_old'], now: T * 1000 })).resolves.toBeTruthy();
  });

  it.each([
    ['a changed body', { payload: body.replace('evt_1', 'evt_2') }, /no signature matches/],
    ['another secret', { secret: 'whsec_b' }, /no signature matches/],
    ['an old timestamp (replay)', { now: (T + 301) * 1000 }, /tolerance 300 s/],
    ['a timestamp from the future', { now: (T - 301) * 1000 }, /tolerance 300 s/],
    ['no header', { signature: undefined }, /missing x-tracker-signature/],
    ['no timestamp', { signature: `v1=${sign('whsec_a', T)}` }, /no timestamp/],
    ['no v1', { signature: `t=${T},v0=abc` }, /no v1 signature/],
  ])('refuses %s', async (_name, change, message) => {
    const o = { payload: body, signature: `t=${T},v1=${sign('whsec_a', T)}`, secret: 'whsec_a', now: T * 1000, ...change };
    const err = await verifyWebhook(o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as Error).message).toMatch(message);
  });

  it('takes a wider tolerance for skewed clocks', async () => {
    const o = { payload: body, signature: `t=${T},v1=${sign('whsec_a', T)}`, secret: 'whsec_a', now: (T + 600) * 1000 };
    await expect(verifyWebhook(o)).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook({ ...o, toleranceSeconds: 900 })).resolves.toBeTruthy();
  });
});
