import { describe, expect } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { runSteps } from '../../../src/db/statement-steps.js';
import { MemoryRateLimitStore } from '../../../src/identity/rate-limit-store.js';
import { appendEvents } from '../../../src/runs/events.store.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { createTeam, session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

describe('one running execution per workspace', () => {
  it('of 10 simultaneous starts in one workspace exactly one runs and nine get the 429 shape, 5 times over', async ({ api }) => {
    for (let round = 0; round < 5; round++) {
      const owner = await signUp(api);
      // A run that outlasts every start: a short one could end (on a loaded machine) before
      // the last start arrived, and a start after it is rightly let through.
      const input = '600 50';
      const executions = await Promise.all(Array.from({ length: 10 }, () => createExecution(api, owner, 'ticker', input)));
      const replies = await Promise.all(executions.map((execution) => sendMessage(api, owner, execution.id, input)));
      expect(
        replies.filter((reply) => reply.status === 200),
        `round ${round}`,
      ).toHaveLength(1);
      for (const reply of replies.filter((r) => r.status !== 200)) {
        expect(reply.status).toBe(429);
        expect(reply.body).toEqual({ error: 'EXECUTION_RUNNING', message: expect.any(String) });
      }
      const winner = executions[replies.findIndex((reply) => reply.status === 200)];
      const stream = await streamOf(api, owner, winner?.id ?? '');
      expect((await api.post(`/api/v1/executions/${winner?.id}/cancel`, { headers: session(owner) })).status).toBe(200);
      await stream.ended;
    }
  });

  it('lets two workspaces of one person run at the same time', async ({ api }) => {
    const owner = await signUp(api);
    const team = await createTeam(api, owner);
    const personal = await createExecution(api, owner, 'ticker', '20 20');
    const teamRun = await api.post<{ id: string }>('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '20 20' },
      headers: session(owner, { 'x-workspace-id': team.id }),
    });
    expect((await sendMessage(api, owner, personal.id, '20 20')).status).toBe(200);
    const second = await api.post(`/api/v1/executions/${teamRun.body.id}/events`, {
      body: { events: [{ type: 'user.message', content: [{ type: 'text', text: '20 20' }] }] },
      headers: session(owner, { 'x-workspace-id': team.id }),
    });
    expect(second.status).toBe(200);
    const statuses = await Promise.all([
      api.get<{ status: string }>(`/api/v1/executions/${personal.id}/status`, { headers: session(owner) }),
      api.get<{ status: string }>(`/api/v1/executions/${teamRun.body.id}/status`, {
        headers: session(owner, { 'x-workspace-id': team.id }),
      }),
    ]);
    expect(statuses.map((reply) => reply.body.status)).toEqual(['working', 'working']);
    await api.post(`/api/v1/executions/${personal.id}/cancel`, { headers: session(owner) });
    await api.post(`/api/v1/executions/${teamRun.body.id}/cancel`, { headers: session(owner, { 'x-workspace-id': team.id }) });
  });
});

describe('start-up after a crash', () => {
  it('ends executions left working as failed, with their closing events, so their streams end', async ({ server, api }) => {
    const owner = await signUp(api);
    const created = await createExecution(api, owner, 'ticker', '1 1');
    // As a process killed mid-run leaves it: working, with its opening events stored.
    await server.db.db.transaction().execute((trx) =>
      runSteps(
        trx,
        appendEvents(
          trx,
          created.id,
          [
            { type: 'user.message', payload: { content: [{ type: 'text', text: '1 1' }] } },
            { type: 'session.status_running', payload: {} },
          ],
          server.clock.now().toISOString(),
          { status: 'working', owner_node: server.config.nodeId },
        ),
      ),
    );
    const restarted = await buildApp({
      config: server.config,
      database: server.db,
      clock: server.clock,
      rateLimits: new MemoryRateLimitStore(),
    });
    await restarted.ready();
    await restarted.close();

    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(owner) });
    expect(status.body.status).toBe('failed');
    const stream = await streamOf(api, owner, created.id);
    await stream.ended;
    expect(stream.events.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'user.message'],
      [2, 'session.status_running'],
      [3, 'agent.info'],
      [4, 'session.status_idle'],
    ]);
    expect(stream.events[3]?.payload).toEqual({ stop_reason: { type: 'error' } });
  });
});

describe('the execution start limit', () => {
  it('allows 30 starts a minute per credential, then 429 in the rate-limit envelope', async () => {
    const limited = await startServer();
    try {
      const limitedApi = client(limited.url);
      const owner = await signUp(limitedApi);
      for (let i = 0; i < 30; i++) {
        const reply = await limitedApi.post('/api/v1/executions', {
          body: { skill_slug: 'ticker', input: '1 1' },
          headers: session(owner),
        });
        expect(reply.status).toBe(200);
      }
      const refused = await limitedApi.post('/api/v1/executions', {
        body: { skill_slug: 'ticker', input: '1 1' },
        headers: session(owner),
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
      expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});
