import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '@tt/domain';
import { createRedisChangeFeed } from './change-feed.js';
import type { Log } from './queue.js';

// Needs TEST_REDIS_URL (CI sets it).
const redisUrl = process.env.TEST_REDIS_URL;
const run = redisUrl ? describe : describe.skip;
const silent: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };
const task = (n: number): Change => ({ kind: 'task', workspaceId: 'ws_1', id: `task_${n}`, key: `WEB-${n}` });

run('the change feed on Redis', () => {
  let redis: Redis;
  let raw: Redis;
  const prefix = `feed-${randomBytes(4).toString('hex')}`;
  const messages: Change[][] = [];

  beforeAll(async () => {
    redis = new Redis(redisUrl!);
    raw = new Redis(redisUrl!);
    raw.on('message', (_ch: string, m: string) => void messages.push(JSON.parse(m) as Change[]));
    await raw.subscribe(`${prefix}:changes`);
  });
  afterAll(() => {
    redis?.disconnect();
    raw?.disconnect();
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  };

  it('sends the notes of one turn as one message, in order; the next turn\'s as the next; other processes hear each note', async () => {
    messages.length = 0;
    const mine = createRedisChangeFeed({ redis, prefix, log: silent });
    const otherRedis = new Redis(redisUrl!);
    const other = createRedisChangeFeed({ redis: otherRedis, prefix, log: silent });
    const heard: string[] = [];
    other.subscribe((c) => void heard.push(c.kind === 'task' ? c.key : c.kind));
    await new Promise((r) => setTimeout(r, 100)); // its subscriber connection subscribes
    mine.publish([task(1)]);
    mine.publish([task(2), task(3)]);
    mine.publish([]);
    await new Promise((r) => setImmediate(r));
    mine.publish([task(4)]);
    await until(() => messages.length >= 2 && heard.length >= 4);
    expect(messages.map((m) => m.map((c) => (c.kind === 'task' ? c.key : c.kind)))).toEqual([['WEB-1', 'WEB-2', 'WEB-3'], ['WEB-4']]);
    expect(heard).toEqual(['WEB-1', 'WEB-2', 'WEB-3', 'WEB-4']);
    await mine.close();
    await other.close();
    otherRedis.disconnect();
  });

  it('sends what is noted before it closes', async () => {
    messages.length = 0;
    const feed = createRedisChangeFeed({ redis, prefix, log: silent });
    feed.publish([task(5)]);
    await feed.close();
    await until(() => messages.length >= 1);
    expect(messages).toEqual([[task(5)]]);
  });
});
