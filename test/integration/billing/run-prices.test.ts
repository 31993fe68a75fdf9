import { describe, expect } from 'vitest';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { OpenStream } from '../../helpers/sse.js';

/**
 * Every run a user.message starts is priced (issue 25, item 2): an execution interrupted
 * and sent a new input pays again, so one price no longer buys any number of runs. An
 * interrupted run keeps its charge. priced-ticker costs 2 Ds a run.
 */
const it = withServer({ SIGNUP_CREDITS: '10', RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const PRICE = 2;

const interrupt = (api: Client, user: TestUser, executionId: string) =>
  api.post(`/api/v1/executions/${executionId}/events`, {
    body: { events: [{ type: 'user.interrupt' }] },
    headers: session(user),
  });

/** One request that starts a run and interrupts it at once: the interrupt lands right after the claim. */
const startAndInterrupt = (api: Client, user: TestUser, executionId: string) =>
  api.post<{ data: { type: string }[] }>(`/api/v1/executions/${executionId}/events`, {
    body: { events: [{ type: 'user.message', content: [{ type: 'text', text: '200 20' }] }, { type: 'user.interrupt' }] },
    headers: session(user),
  });

const statusOf = async (api: Client, user: TestUser, executionId: string) =>
  (await api.get<{ status: string }>(`/api/v1/executions/${executionId}/status`, { headers: session(user) })).body.status;

async function historyCostOf(api: Client, user: TestUser, executionId: string): Promise<number | undefined> {
  const history = await api.get<{ items: { executionId: string; cost: number }[] }>('/api/v1/executions?limit=100', {
    headers: session(user),
  });
  return history.body.items.find((item) => item.executionId === executionId)?.cost;
}

async function ledgerSum(api: Client, user: TestUser): Promise<number> {
  return (await transactionsOf(api, user)).reduce((sum, entry) => sum + entry.amount, 0);
}

/** The execution's charges in the ledger, oldest first. */
async function chargesOf(api: Client, user: TestUser, executionId: string): Promise<number[]> {
  return (await transactionsOf(api, user))
    .filter((entry) => entry.executionId === executionId)
    .map((entry) => entry.amount)
    .reverse();
}

/** A stream of the execution from past its last event, so it carries the next run only. */
async function nextRunStream(api: Client, user: TestUser, executionId: string, seen: number): Promise<OpenStream> {
  return streamOf(api, user, executionId, `&lastSeq=${seen}`);
}

describe('an execution run again after an interrupt', () => {
  it('pays for each run: five inputs, five charges, then 402 with the execution left idle', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', 'first input');
    let seen = 0;
    for (let run = 1; run <= 5; run++) {
      const stream = await nextRunStream(api, person, created.id, seen);
      const started = await sendMessage(api, person, created.id, `200 ${20 + run}`);
      expect(started.status, `run ${run}`).toBe(200);
      // The first agent.message: the run has delivered part of its result.
      await stream.waitFor(3);
      expect(stream.events.map((event) => event.type).slice(0, 3)).toEqual([
        'user.message',
        'session.status_running',
        'agent.message',
      ]);
      expect((await interrupt(api, person, created.id)).status).toBe(200);
      await stream.ended;
      expect(stream.events.at(-1)?.payload.stop_reason).toEqual({ type: 'interrupt' });
      seen = stream.events.at(-1)?.sequence ?? seen;
      expect(await statusOf(api, person, created.id)).toBe('idle');
      expect(await balanceOf(api, person), `after run ${run}`).toMatchObject({
        balance: 10 - run * PRICE,
        totalSpent: run * PRICE,
      });
      expect(await historyCostOf(api, person, created.id), `cost after run ${run}`).toBe(run * PRICE);
    }

    // The balance is spent: the sixth input is refused before anything streams.
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, canExecute: false });
    const stream = await nextRunStream(api, person, created.id, seen);
    const refused = await sendMessage(api, person, created.id, 'one more');
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits to run this skill: buy a credit pack first' },
    });
    stream.close();
    expect(stream.events).toEqual([]);
    expect(await statusOf(api, person, created.id)).toBe('idle');
    expect(await chargesOf(api, person, created.id)).toEqual([-2, -2, -2, -2, -2]);
    expect(await ledgerSum(api, person)).toBe(0);
    expect(await historyCostOf(api, person, created.id)).toBe(5 * PRICE);
  });

  it("completes a later run with the execution's cost the sum of its runs", async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', '200 20');
    const first = await streamOf(api, person, created.id);
    expect((await sendMessage(api, person, created.id, '200 20')).status).toBe(200);
    await first.waitFor(3);
    expect((await interrupt(api, person, created.id)).status).toBe(200);
    await first.ended;

    const second = await nextRunStream(api, person, created.id, first.events.at(-1)?.sequence ?? 0);
    expect((await sendMessage(api, person, created.id, '2 0')).status).toBe(200);
    await second.ended;
    expect(second.events.find((event) => event.type === 'execution.result')?.payload.cost).toBe(2 * PRICE);
    expect(await statusOf(api, person, created.id)).toBe('completed');
    expect(await historyCostOf(api, person, created.id)).toBe(2 * PRICE);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 10 - 2 * PRICE, totalSpent: 2 * PRICE });
    expect(await ledgerSum(api, person)).toBe(10 - 2 * PRICE);
  });

  it('keeps the charge of a run interrupted right after its claim, in the same request', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', '200 20');
    for (let round = 1; round <= 3; round++) {
      const posted = await startAndInterrupt(api, person, created.id);
      expect(posted.status).toBe(200);
      expect(posted.body.data.map((event) => event.type)).toEqual(['user.message', 'session.status_running', 'user.interrupt']);
      expect(await statusOf(api, person, created.id)).toBe('idle');
      expect(await balanceOf(api, person)).toMatchObject({ balance: 10 - round * PRICE });
      expect(await historyCostOf(api, person, created.id)).toBe(round * PRICE);
    }
    expect(await chargesOf(api, person, created.id)).toEqual([-2, -2, -2]);
    expect(await ledgerSum(api, person)).toBe(10 - 3 * PRICE);
  });

  it('starts one run and holds one price when many messages race on the idle execution', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', '200 20');
    expect((await startAndInterrupt(api, person, created.id)).status).toBe(200);
    for (let round = 2; round <= 3; round++) {
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, index) => sendMessage(api, person, created.id, `200 ${20 + index}`)),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, 429, 429, 429, 429, 429]);
      expect(await balanceOf(api, person)).toMatchObject({ balance: 10 - round * PRICE });
      expect((await interrupt(api, person, created.id)).status).toBe(200);
      expect(await statusOf(api, person, created.id)).toBe('idle');
    }
    expect(await chargesOf(api, person, created.id)).toEqual([-2, -2, -2]);
    expect(await ledgerSum(api, person)).toBe(10 - 3 * PRICE);
    expect(await historyCostOf(api, person, created.id)).toBe(3 * PRICE);
  });

  it('charges each started run once when interrupts race the messages that start them', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'priced-ticker', '200 20');
    let started = 0;
    for (let round = 1; round <= 4; round++) {
      const [message, stop] = await Promise.all([
        sendMessage(api, person, created.id, '200 20'),
        interrupt(api, person, created.id),
      ]);
      expect(message.status, `round ${round}`).toBe(200);
      started += 1;
      // The interrupt either came first (409: nothing was running) or stopped the new run.
      expect([200, 409], `round ${round}`).toContain(stop.status);
      if (stop.status === 409) expect((await interrupt(api, person, created.id)).status).toBe(200);
      // In a cluster the stop reaches the run's worker through Redis, and a run may still be
      // on its way to a worker: a second of polling was too short on a loaded machine.
      await expect.poll(() => statusOf(api, person, created.id), { timeout: 10_000 }).toBe('idle');
    }
    expect(await chargesOf(api, person, created.id)).toEqual(Array.from({ length: started }, () => -PRICE));
    expect(await balanceOf(api, person)).toMatchObject({ balance: 10 - started * PRICE });
    expect(await ledgerSum(api, person)).toBe(10 - started * PRICE);
    expect(await historyCostOf(api, person, created.id)).toBe(started * PRICE);
    // Every run the store holds ended once, with the interrupt's idle after its running.
    const stream = await streamOf(api, person, created.id);
    const idles = () => stream.events.filter((event) => event.type === 'session.status_idle').length;
    await expect.poll(idles, { timeout: 10_000 }).toBe(started);
    stream.close();
    const endings = stream.events.filter(
      (event) => event.type === 'session.status_idle' || event.type === 'session.status_running',
    );
    expect(endings.map((event) => event.type)).toEqual(
      Array.from({ length: started }, () => ['session.status_running', 'session.status_idle']).flat(),
    );
  });

  it("is a stranger's 404, and charges the stranger nothing", async ({ api }) => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const created = await createExecution(api, owner, 'priced-ticker', '200 20');
    const posted = await sendMessage(api, stranger, created.id, '2 0');
    expect(posted.status).toBe(404);
    expect(await balanceOf(api, stranger)).toMatchObject({ balance: 10, totalSpent: 0 });
    expect(await balanceOf(api, owner)).toMatchObject({ balance: 10, totalSpent: 0 });
    expect(await statusOf(api, owner, created.id)).toBe('idle');
  });
});
