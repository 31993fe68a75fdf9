import { once } from 'node:events';
import { describe, expect, vi } from 'vitest';
import WebSocket from 'ws';
import { runForArtifact } from '../../helpers/artifacts.js';
import { buyWithLocalCheckout } from '../../helpers/billing.js';
import { createKey, createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

/**
 * Every change the app shows in a list is announced on the control plane as a
 * cache-invalidate naming what changed, to the workspaces that see it and no others.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

interface Heard {
  keys: string[];
  workspaceId: string;
}

async function listen(api: Client, person: TestUser): Promise<{ heard: Heard[]; close: () => void }> {
  const reply = await api.get<{ url: string }>('/api/v1/events/subscribe-url', { headers: session(person) });
  const socket = new WebSocket(reply.body.url);
  const heard: Heard[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string } & Heard;
    if (message.type === 'cache-invalidate') heard.push({ keys: message.keys, workspaceId: message.workspaceId });
  });
  await once(socket, 'open');
  return { heard, close: () => socket.close() };
}

async function expectHeard(listener: { heard: Heard[] }, key: string): Promise<void> {
  await vi.waitFor(() => expect(listener.heard.flatMap((each) => each.keys)).toContain(key));
}

describe('cache-invalidate on the control plane', () => {
  it('names keys when a key is made or revoked, and only to its person', async ({ api }) => {
    const [person, stranger] = [await signUp(api), await signUp(api)];
    const [mine, theirs] = [await listen(api, person), await listen(api, stranger)];
    const key = await createKey(api, person, 'cli');
    await expectHeard(mine, 'keys');
    mine.heard.length = 0;
    expect((await api.delete(`/api/v1/keys/${key.id}`, { headers: session(person) })).status).toBe(200);
    await expectHeard(mine, 'keys');
    expect(theirs.heard).toEqual([]);
    mine.close();
    theirs.close();
  });

  it('names byok when a key is stored or removed', async ({ api }) => {
    const person = await signUp(api);
    const mine = await listen(api, person);
    await api.put('/api/v1/byok', { body: { key: `sk-ant-${'x'.repeat(40)}` }, headers: session(person) });
    await expectHeard(mine, 'byok');
    mine.heard.length = 0;
    await api.delete('/api/v1/byok', { headers: session(person) });
    await expectHeard(mine, 'byok');
    mine.close();
  });

  it('names workspaces to a person added to a team, in their own workspace too', async ({ api }) => {
    const [owner, newcomer] = [await signUp(api), await signUp(api)];
    const [owners, newcomers] = [await listen(api, owner), await listen(api, newcomer)];
    const team = await createTeam(api, owner);
    await expectHeard(owners, 'workspaces');
    const added = await api.post(`/api/v1/workspaces/${team.id}/members`, {
      body: { email: newcomer.email, role: 'member' },
      headers: session(owner),
    });
    expect(added.status).toBeLessThan(300);
    await expectHeard(newcomers, 'workspaces');
    expect(newcomers.heard[0]?.workspaceId).toBe(newcomer.user.personalWorkspaceId);
    owners.close();
    newcomers.close();
  });

  it('names balance and transactions when a purchase is granted', async ({ api, server }) => {
    const person = await signUp(api);
    const mine = await listen(api, person);
    await buyWithLocalCheckout(api, server.url, person);
    await expectHeard(mine, 'balance');
    expect(mine.heard.flatMap((each) => each.keys)).toContain('transactions');
    mine.close();
  });

  it('names artifacts when a run makes one, and when it is published, unpublished or deleted', async ({ api }) => {
    const person = await signUp(api);
    const mine = await listen(api, person);
    const { artifactId } = await runForArtifact(api, person, 'text-stats', 'One fish. Two fish.');
    await expectHeard(mine, 'artifacts');
    for (const [method, path] of [
      ['post', `/api/v1/artifacts/${artifactId}/publish`],
      ['post', `/api/v1/artifacts/${artifactId}/unpublish`],
      ['delete', `/api/v1/artifacts/${artifactId}`],
    ] as const) {
      mine.heard.length = 0;
      expect((await api[method](path, { headers: session(person) })).status).toBe(200);
      await expectHeard(mine, 'artifacts');
    }
    mine.close();
  });
});
