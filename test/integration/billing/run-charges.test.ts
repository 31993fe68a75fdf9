import { describe, expect } from 'vitest';
import { BUILT_INS_ONLY } from '../../../src/sandbox/sandbox.js';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { type Client, client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

/**
 * A skill's price is held when its run starts, so nothing is delivered unpaid (issue 11,
 * finding 9), and given back when the service fails the run. Runs per user are capped
 * under a lock on the user (finding 8), checked here on both engines.
 */
const it = withServer({ SIGNUP_CREDITS: '2', RATE_LIMIT_REST_PER_MINUTE: '100000' });

const interrupt = (api: Client, user: TestUser, executionId: string) =>
  api.post(`/api/v1/executions/${executionId}/events`, {
    body: { events: [{ type: 'user.interrupt' }] },
    headers: session(user),
  });

describe('a priced run', () => {
  it('is refused before anything streams when only a BYOK key stands behind it (a fake one, here)', async ({ api }) => {
    const person = await signUp(api);
    const free = await createExecution(api, person, 'priced-ticker', '1 0');
    expect((await runToEnd(api, person, 'priced-ticker', '1 0')).stream.events.at(-1)?.payload.stop_reason).toEqual({
      type: 'end_turn',
    });
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });
    const stored = await api.put('/api/v1/byok', { body: { key: `sk-fake${'f'.repeat(40)}` }, headers: session(person) });
    expect(stored.status).toBe(200);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, canExecute: false });

    const created = await api.post('/api/v1/executions', {
      body: { skill_slug: 'priced-ticker', input: '3 0' },
      headers: session(person),
    });
    expect(created.status).toBe(402);
    expect(created.body).toEqual({ error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) } });

    // An execution made while there were credits cannot be started on the key alone either.
    const stream = await streamOf(api, person, free.id);
    const started = await sendMessage(api, person, free.id, '3 0');
    expect(started.status).toBe(402);
    stream.close();
    expect(stream.events).toEqual([]);
    expect((await transactionsOf(api, person)).map((entry) => entry.amount)).toEqual([-2, 2]);
  });

  it('holds the price while it runs, and keeps it when the run is interrupted: the next run pays again', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', '100 50');
    const live = await streamOf(api, person, created.id);
    expect((await sendMessage(api, person, created.id, '100 50')).status).toBe(200);
    await live.waitFor(3);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, totalSpent: 2 });
    expect((await interrupt(api, person, created.id)).status).toBe(200);
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) });
    expect(status.body.status).toBe('idle');
    await live.ended;

    // Issue 25, item 2: a run after an interrupt is a new run with its own price.
    const resumed = await streamOf(api, person, created.id, `&lastSeq=${live.events.at(-1)?.sequence ?? 0}`);
    const refused = await sendMessage(api, person, created.id, '2 0');
    expect(refused.status).toBe(402);
    resumed.close();
    expect(resumed.events).toEqual([]);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, totalSpent: 2 });
    expect((await transactionsOf(api, person)).map((entry) => entry.amount)).toEqual([-2, 2]);
  });

  it('keeps the price when the skill itself fails (its time limit, here)', async () => {
    const short = await startServer({ SIGNUP_CREDITS: '2', EXECUTION_TIMEOUT_MS: '300' });
    try {
      const api1 = client(short.url);
      const person = await signUp(api1);
      const { stream } = await runToEnd(api1, person, 'priced-ticker', '100 50');
      expect(stream.events.at(-1)?.payload.stop_reason).toEqual({ type: 'error' });
      expect(await balanceOf(api1, person)).toMatchObject({ balance: 0 });
    } finally {
      await short.close();
    }
  });

  it('is refunded when the service cannot run it: no sandbox for a skill that is not built in', async () => {
    const unsandboxed = await startServer({ SIGNUP_CREDITS: '2' }, { sandbox: BUILT_INS_ONLY });
    try {
      const api1 = client(unsandboxed.url);
      const person = await signUp(api1);
      const { stream } = await runToEnd(api1, person, 'priced-ticker', '3 0');
      expect(stream.events.map((event) => event.type)).toEqual([
        'user.message',
        'session.status_running',
        'agent.info',
        'session.status_idle',
      ]);
      expect(stream.events[2]?.payload.message).toMatch(
        /sandbox is not available.*apt-get install bubblewrap.*SKILL_SANDBOX=none/,
      );
      expect(stream.events[3]?.payload.stop_reason).toEqual({ type: 'error' });
      // Issue 50, item 8: what was given back was not spent, so totalSpent counts it back too.
      expect(await balanceOf(api1, person)).toMatchObject({ balance: 2, totalSpent: 0 });
      const ledger = await transactionsOf(api1, person);
      expect(ledger.map((entry) => [entry.type, entry.amount])).toEqual([
        ['purchase', 2],
        ['usage', -2],
        ['purchase', 2],
      ]);
      expect(ledger[0]?.description).toMatch(/^Refund of run /);
      // Built-in skills still run on the permission model alone.
      const builtIn = await runToEnd(api1, person, 'ticker', '2 0');
      expect(builtIn.stream.events.at(-1)?.payload.stop_reason).toEqual({ type: 'end_turn' });
      // A run that is not refunded counts as before, beside the one that was.
      const kept = await runToEnd(api1, person, 'text-stats', 'one two three');
      expect(kept.stream.events.at(-1)?.payload.stop_reason).toEqual({ type: 'end_turn' });
      expect(await balanceOf(api1, person)).toMatchObject({ balance: 1, totalSpent: 1 });
    } finally {
      await unsandboxed.close();
    }
  });
});

describe('runs per user', () => {
  it('are capped across workspaces, however many starts race (RUNS_PER_USER=2)', async ({ api }) => {
    const person = await signUp(api);
    const teams = await Promise.all([1, 2, 3, 4].map(() => createTeam(api, person)));
    for (let round = 0; round < 3; round++) {
      const headers = teams.map((team) => session(person, { 'x-workspace-id': team.id }));
      const created = await Promise.all(headers.map((auth) => createExecution(api, person, 'ticker', '100 50', {}, auth)));
      const starts = await Promise.all(
        created.map((execution, index) =>
          api.post<{ error?: string; message?: string }>(`/api/v1/executions/${execution.id}/events`, {
            body: { events: [{ type: 'user.message', content: [{ type: 'text', text: '100 50' }] }] },
            headers: headers[index],
          }),
        ),
      );
      expect(starts.map((reply) => reply.status).sort()).toEqual([200, 200, 429, 429]);
      for (const refused of starts.filter((reply) => reply.status === 429)) {
        expect(refused.body).toEqual({ error: 'EXECUTION_RUNNING', message: expect.stringMatching(/2 runs in progress/) });
      }
      await Promise.all(
        created.map(async (execution, index) => {
          if (starts[index]?.status !== 200) return;
          const reply = await api.post(`/api/v1/executions/${execution.id}/cancel`, { headers: headers[index] });
          expect(reply.status).toBe(200);
        }),
      );
    }
  });
});
