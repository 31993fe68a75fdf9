import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';
import { sendToThread, subscribe } from '../../helpers/thread-streams.js';

const it = withServer();

interface Listed {
  items: { threadId: string; agentId: string; title: string; createdAt: string; updatedAt: string }[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** A message into a new thread, waited on until its turn has ended, then the clock moved on a minute. */
async function converse(api: Client, server: TestServer, who: TestUser, message: string): Promise<string> {
  const threadId = `t-${randomUUID()}`;
  const watching = await subscribe(server.url, who, 'assistant', threadId);
  await sendToThread(api, who, 'assistant', threadId, message);
  await watching.waitFor((frame) => frame.type === 'agent.turn_end');
  watching.close();
  server.clock.advance(60_000);
  return threadId;
}

describe('listing conversations', () => {
  it('lists the workspace’s threads, the latest active first, each named by its first message', async ({ api, server }) => {
    const person = await signUp(api);
    const first = await converse(api, server, person, 'Make me a QR code');
    const second = await converse(api, server, person, `  Summarise\n\nthis ${'long '.repeat(40)}text`);
    // Subscribed to but never written in: nothing to list.
    const empty = await subscribe(server.url, person, 'assistant', `t-${randomUUID()}`);
    empty.close();

    const listed = await api.get<Listed>('/api/v1/agents/assistant/threads', { headers: session(person) });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 2, limit: 20, offset: 0, hasMore: false });
    expect(listed.body.items.map((item) => item.threadId)).toEqual([second, first]);
    const [latest, earlier] = listed.body.items;
    expect(earlier?.title).toBe('Make me a QR code');
    expect(latest?.title).toMatch(/^Summarise this long long .*…$/);
    expect(latest?.title.length).toBe(80);
    expect(Date.parse(latest?.updatedAt ?? '')).toBeGreaterThan(Date.parse(earlier?.updatedAt ?? ''));

    // A new message moves a thread to the top.
    await sendToThread(api, person, 'assistant', first, 'And another');
    server.clock.advance(60_000);
    await expect
      .poll(async () => (await api.get<Listed>('/api/v1/agents/assistant/threads?limit=1', { headers: session(person) })).body)
      .toMatchObject({ items: [{ threadId: first }], total: 2, limit: 1, hasMore: true });
    const next = await api.get<Listed>('/api/v1/agents/assistant/threads?limit=1&offset=1', { headers: session(person) });
    expect(next.body).toMatchObject({ items: [{ threadId: second }], offset: 1, hasMore: false });
  });

  it('shows no one another workspace’s threads, 404s an unknown agent, and refuses a page size in words', async ({
    api,
    server,
  }) => {
    const [owner, stranger] = [await signUp(api), await signUp(api)];
    await converse(api, server, owner, 'private plans');
    const theirs = await api.get<Listed>('/api/v1/agents/assistant/threads', { headers: session(stranger) });
    expect(theirs.body).toMatchObject({ items: [], total: 0 });

    const unknown = await api.get('/api/v1/agents/nobody/threads', { headers: session(owner) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND' } });

    for (const limit of ['0', '101']) {
      const refused = await api.get(`/api/v1/agents/assistant/threads?limit=${limit}`, { headers: session(owner) });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: { code: 'INVALID_INPUT', message: 'Ask for 1 to 100 conversations at a time.' },
      });
    }
  });
});
