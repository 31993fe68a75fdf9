import { describe, expect } from 'vitest';
import { NEVER_STARTED_LISTED_MS } from '../../../src/runs/executions.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServerPerTest } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withServerPerTest({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

interface Listed {
  executionId: string;
  status: string;
}

async function listed(api: Client, user: TestUser, query = ''): Promise<Listed[]> {
  const reply = await api.get<{ items: Listed[] }>(`/api/v1/executions?limit=50${query}`, { headers: session(user) });
  expect(reply.status).toBe(200);
  return reply.body.items;
}

/** Starts a long ticker run and waits until the server says it works. */
async function startLongRun(api: Client, user: TestUser): Promise<string> {
  const created = await createExecution(api, user, 'ticker', '100 200');
  const stream = await streamOf(api, user, created.id);
  expect((await sendMessage(api, user, created.id, '100 200')).status).toBe(200);
  stream.close();
  return created.id;
}

describe('history: which runs are going, and attempts that never started', () => {
  it('statuses=working answers the run going in the workspace, and only it', async ({ api }) => {
    const person = await signUp(api);
    const other = await signUp(api);
    const waiting = await createExecution(api, person, 'ticker', '1 1');
    const running = await startLongRun(api, person);
    await startLongRun(api, other);

    expect((await listed(api, person, '&statuses=working')).map((item) => item.executionId)).toEqual([running]);
    expect((await listed(api, person, '&statuses=idle')).map((item) => item.executionId)).toEqual([waiting.id]);
    expect(await listed(api, person, '&statuses=idle,working')).toHaveLength(2);
    expect(await listed(api, person, '&statuses=completed,failed')).toEqual([]);

    await api.post(`/api/v1/executions/${running}/cancel`, { headers: session(person) });
    expect(await listed(api, person, '&statuses=working')).toEqual([]);
  });

  it('refuses a status that does not exist instead of answering an empty list', async ({ api }) => {
    const person = await signUp(api);
    for (const statuses of ['runing', 'working,', ',idle', 'working;drop', 'x'.repeat(101)]) {
      const reply = await api.get(`/api/v1/executions?statuses=${encodeURIComponent(statuses)}`, { headers: session(person) });
      expect(reply.status, statuses).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
    }
  });

  it('lists a never-started execution for a while, then leaves it out; a run that started stays', async ({ api, server }) => {
    const person = await signUp(api);
    const abandoned = await createExecution(api, person, 'ticker', '1 1');
    const interrupted = await startLongRun(api, person);
    await api.post(`/api/v1/executions/${interrupted}/events`, {
      body: { events: [{ type: 'user.interrupt' }] },
      headers: session(person),
    });
    await expect.poll(async () => (await listed(api, person, '&statuses=working')).length).toBe(0);

    server.clock.advance(NEVER_STARTED_LISTED_MS - 1000);
    expect((await listed(api, person)).map((item) => item.executionId).sort()).toEqual([abandoned.id, interrupted].sort());

    server.clock.advance(2000);
    const later = await listed(api, person);
    expect(later.map((item) => [item.executionId, item.status])).toEqual([[interrupted, 'idle']]);
    // Hidden from the list only: its own page still answers, and it can still be started.
    const own = await api.get<{ status: string }>(`/api/v1/executions/${abandoned.id}/status`, { headers: session(person) });
    expect([own.status, own.body.status]).toEqual([200, 'idle']);
    expect((await sendMessage(api, person, abandoned.id, '1 1')).status).toBe(200);
    expect((await listed(api, person)).map((item) => item.executionId)).toContain(abandoned.id);
  });
});
