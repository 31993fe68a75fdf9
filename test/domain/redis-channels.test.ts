import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisChannels } from '../../src/realtime/redis-channels.js';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.js';

const redisUrl = TEST_REDIS_URL;

const reachable = await redisReachable('the Redis tests');

interface Note {
  from: string;
  n: number;
}

/** A log that keeps what it is told, so a test can see what was reported. */
function keptLog(): { warn(details: object, message: string): void; messages: string[] } {
  const messages: string[] = [];
  return { warn: (_details, message) => messages.push(message), messages };
}

describe.skipIf(!reachable)('Redis channels', () => {
  let admin: Redis;
  let prefix: string;
  const opened: RedisChannels<Note>[] = [];

  /** One node's channels, under this test's own prefix, so that concurrent runs keep apart. */
  function node(options: { prefix?: string } = {}): RedisChannels<Note> {
    const channels = RedisChannels.fromUrl<Note>(redisUrl, { prefix: options.prefix ?? prefix, log: pino({ level: 'silent' }) });
    opened.push(channels);
    return channels;
  }

  async function subscribers(channel: string, under = prefix): Promise<number> {
    const [, count] = (await admin.pubsub('NUMSUB', under + channel)) as [string, number];
    return Number(count);
  }

  beforeAll(() => {
    admin = new Redis(redisUrl);
  });
  afterAll(async () => {
    await admin.quit();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((channels) => channels.close()));
  });
  beforeEach(() => {
    prefix = `skillet-test:${randomUUID()}:`;
  });

  it("delivers each node's messages to both nodes, its own included, exactly once and in order (1,000 each)", async () => {
    const nodes = { a: node(), b: node() };
    const received = { a: [] as Note[], b: [] as Note[] };
    nodes.a.subscribe('run', (note) => received.a.push(note));
    nodes.b.subscribe('run', (note) => received.b.push(note));
    await Promise.all([nodes.a.ready(), nodes.b.ready()]);

    for (let n = 0; n < 1000; n += 1) {
      nodes.a.publish('run', { from: 'a', n });
      nodes.b.publish('run', { from: 'b', n });
    }
    // Each node's last message comes after all of its others: once both are in, everything is.
    nodes.a.publish('run', { from: 'a', n: -1 });
    nodes.b.publish('run', { from: 'b', n: -1 });
    const sequence = [...Array.from({ length: 1000 }, (_, n) => n), -1];
    for (const notes of [received.a, received.b]) {
      await vi.waitFor(() => expect(notes.filter((note) => note.n === -1)).toHaveLength(2), { timeout: 10_000 });
      expect(notes.filter((note) => note.from === 'a').map((note) => note.n)).toEqual(sequence);
      expect(notes.filter((note) => note.from === 'b').map((note) => note.n)).toEqual(sequence);
    }
  });

  it('has every local listener of a channel share one Redis subscription and one decoded message', async () => {
    const subscriber = new Redis(redisUrl);
    const subscribeCommands = vi.spyOn(subscriber, 'subscribe');
    const a = new RedisChannels<Note>({ publisher: new Redis(redisUrl), subscriber }, { prefix, log: keptLog() });
    opened.push(a);
    const b = node();
    const received: Note[] = [];
    for (let i = 0; i < 50; i += 1) a.subscribe('shared', (note) => received.push(note));
    b.subscribe('shared', () => undefined);
    await Promise.all([a.ready(), b.ready()]);
    expect(subscribeCommands).toHaveBeenCalledTimes(1);
    expect(await subscribers('shared')).toBe(2);

    a.publish('shared', { from: 'a', n: 1 });
    await vi.waitFor(() => expect(received).toHaveLength(50));
    expect(new Set(received).size).toBe(1);
  });

  it('unsubscribes in Redis when the last local listener leaves, and not before', async () => {
    const subscriber = new Redis(redisUrl);
    const unsubscribeCommands = vi.spyOn(subscriber, 'unsubscribe');
    const a = new RedisChannels<Note>({ publisher: new Redis(redisUrl), subscriber }, { prefix, log: keptLog() });
    opened.push(a);
    const first = () => undefined;
    const second = () => undefined;
    a.subscribe('leaving', first);
    a.subscribe('leaving', second);
    await a.ready();
    expect(await subscribers('leaving')).toBe(1);

    a.unsubscribe('leaving', first);
    await a.ready();
    expect(unsubscribeCommands).not.toHaveBeenCalled();
    expect(await subscribers('leaving')).toBe(1);
    a.unsubscribe('leaving', second);
    await a.ready();
    expect(unsubscribeCommands).toHaveBeenCalledTimes(1);
    expect(await subscribers('leaving')).toBe(0);
    expect(await admin.publish(`${prefix}leaving`, JSON.stringify({ from: 'x', n: 0 }))).toBe(0);
  });

  it('skips a listener taken off during a delivery, and lets one take itself off', async () => {
    const a = node();
    const received: Record<string, number[]> = { first: [], second: [], third: [], watcher: [] };
    const first = (note: Note) => {
      received.first?.push(note.n);
      a.unsubscribe('busy', first);
      a.unsubscribe('busy', third);
    };
    const third = (note: Note) => received.third?.push(note.n);
    a.subscribe('busy', first);
    a.subscribe('busy', (note) => received.second?.push(note.n));
    a.subscribe('busy', third);
    a.subscribe('busy', (note) => received.watcher?.push(note.n));
    await a.ready();

    a.publish('busy', { from: 'a', n: 1 });
    a.publish('busy', { from: 'a', n: 2 });
    await vi.waitFor(() => expect(received.watcher).toEqual([1, 2]));
    expect(received).toEqual({ first: [1], second: [1, 2], third: [], watcher: [1, 2] });
  });

  it('hands a message to the other listeners when one throws, and reports it', async () => {
    const log = keptLog();
    const a = new RedisChannels<Note>({ publisher: new Redis(redisUrl), subscriber: new Redis(redisUrl) }, { prefix, log });
    opened.push(a);
    const received: number[] = [];
    a.subscribe('faulty', () => {
      throw new Error('listener bug');
    });
    a.subscribe('faulty', (note) => received.push(note.n));
    await a.ready();

    a.publish('faulty', { from: 'a', n: 1 });
    a.publish('faulty', { from: 'a', n: 2 });
    await vi.waitFor(() => expect(received).toEqual([1, 2]));
    expect(log.messages).toEqual(['redis channels: a listener failed', 'redis channels: a listener failed']);
  });

  it('keeps channels of different prefixes apart', async () => {
    const [one, other] = [node({ prefix: `${prefix}one:` }), node({ prefix: `${prefix}other:` })];
    const received = { one: [] as number[], other: [] as number[] };
    one.subscribe('same-name', (note) => received.one.push(note.n));
    other.subscribe('same-name', (note) => received.other.push(note.n));
    await Promise.all([one.ready(), other.ready()]);

    one.publish('same-name', { from: 'one', n: 1 });
    await vi.waitFor(() => expect(received.one).toEqual([1]));
    // Redis sends to a connection in the order it handled the publishes: a leak would come first.
    other.publish('same-name', { from: 'other', n: 2 });
    await vi.waitFor(() => expect(received.other).toEqual([2]));
    expect(received.one).toEqual([1]);
  });

  it('restores its subscriptions after the subscriber connection is killed', async () => {
    const subscriber = new Redis(redisUrl, { retryStrategy: () => 50 });
    const a = new RedisChannels<Note>({ publisher: new Redis(redisUrl), subscriber }, { prefix, log: keptLog() });
    opened.push(a);
    const received: number[] = [];
    const id = await subscriber.client('ID');
    a.subscribe('kept', (note) => received.push(note.n));
    await a.ready();
    a.publish('kept', { from: 'a', n: 1 });
    await vi.waitFor(() => expect(received).toEqual([1]));

    const reconnected = once(subscriber, 'ready');
    await admin.client('KILL', 'ID', String(id));
    await reconnected;
    await vi.waitFor(() => expect(subscribers('kept')).resolves.toBe(1));
    a.publish('kept', { from: 'a', n: 2 });
    await vi.waitFor(() => expect(received).toEqual([1, 2]));
  });

  it('neither throws nor loses a message published while its publisher connection is being killed', async () => {
    const publisher = new Redis(redisUrl, { retryStrategy: () => 50 });
    const a = new RedisChannels<Note>({ publisher, subscriber: new Redis(redisUrl) }, { prefix, log: keptLog() });
    opened.push(a);
    const received: number[] = [];
    a.subscribe('queued', (note) => received.push(note.n));
    await a.ready();

    await admin.client('KILL', 'ID', String(await publisher.client('ID')));
    expect(() => a.publish('queued', { from: 'a', n: 1 })).not.toThrow();
    await vi.waitFor(() => expect(received).toEqual([1]));
  });

  it('reports, without throwing, a message it could not publish while Redis is unreachable, and still closes', async () => {
    const log = keptLog();
    const unreachable = () => new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 1, retryStrategy: () => 20 });
    const a = new RedisChannels<Note>({ publisher: unreachable(), subscriber: unreachable() }, { prefix, log });
    expect(() => a.publish('nowhere', { from: 'a', n: 1 })).not.toThrow();
    await vi.waitFor(() => expect(log.messages).toContain('redis channels: a message was not published'));
    await a.close();
  });

  it('leaves no open handle after close(), and ignores what is asked of it afterwards', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;
    const before = sockets();
    const a = RedisChannels.fromUrl<Note>(redisUrl, { prefix, log: keptLog() });
    const received: number[] = [];
    a.subscribe('last', (note) => received.push(note.n));
    await a.ready();
    a.publish('last', { from: 'a', n: 1 });
    await vi.waitFor(() => expect(received).toEqual([1]));
    expect(sockets()).toBe(before + 2);

    await a.close();
    expect(sockets()).toBe(before);
    expect(await subscribers('last')).toBe(0);
    expect(() => {
      a.publish('last', { from: 'a', n: 2 });
      a.subscribe('last', () => undefined);
      a.unsubscribe('last', () => undefined);
    }).not.toThrow();
    await a.close();
  });
});
