import { describe, expect } from 'vitest';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServerPerTest } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withServerPerTest({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const statusOf = async (api: Client, user: TestUser, id: string) =>
  (await api.get<{ status: string }>(`/api/v1/executions/${id}/status`, { headers: session(user) })).body.status;

/** Starts a run and waits for its first message, so the run is under way (a worker took it, in a cluster). */
async function startedRun(api: Client, user: TestUser, skill: string, input: string) {
  const created = await createExecution(api, user, skill, input);
  const stream = await streamOf(api, user, created.id);
  expect((await sendMessage(api, user, created.id, input)).status).toBe(200);
  await stream.waitFor(3);
  return { id: created.id, stream };
}

describe('graceful shutdown (app.drain, what SIGTERM calls before close)', () => {
  it('lets a run shorter than the grace period finish, and refuses new starts meanwhile', async ({ api, server }) => {
    const person = await signUp(api);
    const other = await signUp(api);
    const waiting = await createExecution(api, other, 'ticker', '1 1');
    const run = await startedRun(api, person, 'ticker', '4 250');

    const started = Date.now();
    const drained = server.app.drain(10_000);
    const refused = await sendMessage(api, other, waiting.id, '1 1');
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('shutting down') } });
    const ready = await api.get<{ status: string; checks: Record<string, string> }>('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.shutdown).toBe('shutting down');
    expect(await statusOf(api, other, waiting.id)).toBe('idle');

    await drained;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await statusOf(api, person, run.id)).toBe('completed');
    await run.stream.ended;
    expect(run.stream.events.at(-1)).toMatchObject({
      type: 'session.status_idle',
      payload: { stop_reason: { type: 'end_turn' } },
    });
  });

  it('stops a run longer than the grace period at the end of it: it ends interrupted', async ({ api, server }) => {
    const person = await signUp(api);
    const run = await startedRun(api, person, 'ticker', '100 100');

    const started = Date.now();
    await server.app.drain(400);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(5000);
    await run.stream.ended;
    expect(run.stream.events.at(-1)).toMatchObject({
      type: 'session.status_idle',
      payload: { stop_reason: { type: 'interrupt' } },
    });
    expect(await statusOf(api, person, run.id)).toBe('idle');
  });

  it('gives back what a run it stopped cost, and says so: the person did not stop it', async ({ api, server }) => {
    const person = await signUp(api);
    const { balance } = await balanceOf(api, person);
    const run = await startedRun(api, person, 'priced-ticker', '100 100');
    expect((await balanceOf(api, person)).balance).toBe(balance - 2);

    await server.app.drain(200);
    await run.stream.ended;
    expect(run.stream.events.slice(-2)).toMatchObject([
      { type: 'agent.info', payload: { message: expect.stringContaining('it costs you nothing') } },
      { type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } },
    ]);
    expect((await balanceOf(api, person)).balance).toBe(balance);
    const [refund] = await transactionsOf(api, person);
    expect(refund).toMatchObject({
      type: 'purchase',
      amount: 2,
      executionId: run.id,
      description: expect.stringMatching(/^Refund of run .*: the server shut down before it finished/),
    });
    const execution = await server.db.db
      .selectFrom('executions')
      .select(['status', 'cost'])
      .where('execution_id', '=', run.id)
      .executeTakeFirstOrThrow();
    expect(execution).toEqual({ status: 'idle', cost: 0 });
  });

  it('with nothing running, ends at once', async ({ server }) => {
    const started = Date.now();
    await server.app.drain(30_000);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
