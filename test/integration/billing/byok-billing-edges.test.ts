import { describe, expect } from 'vitest';
import {
  AGENT_CREDITS,
  HOUSE_ANTHROPIC_KEY,
  infoOf,
  runAgent,
  startRun,
  stopReasonOf,
  withAgentServer,
} from '../../helpers/agent.js';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, sendMessage } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';

/**
 * Issue 25, item 10. A BYOK key pays for model tokens, never a skill's price: it does not
 * make canExecute true, so the balance view and the 402 agree. A run whose first model call
 * is refused because the payer's own key is bad did no work, and is refunded; a house key
 * refused is the service's failure, refunded too. agent-priced costs 2 Ds a run.
 */
const it = withAgentServer();

const OWN_ANTHROPIC_KEY = `sk-ant-own-${'e'.repeat(24)}`;
const OWN_OPENAI_KEY = `sk-own-${'f'.repeat(24)}`;

async function storeKey(api: Client, person: TestUser, key: string) {
  const stored = await api.put('/api/v1/byok', { body: { key }, headers: session(person) });
  expect(stored.status).toBe(200);
}

async function ledgerSum(api: Client, person: TestUser): Promise<number> {
  return (await transactionsOf(api, person)).reduce((sum, entry) => sum + entry.amount, 0);
}

async function historyCostOf(api: Client, user: TestUser, executionId: string): Promise<number | undefined> {
  const history = await api.get<{ items: { executionId: string; cost: number }[] }>('/api/v1/executions?limit=100', {
    headers: session(user),
  });
  return history.body.items.find((item) => item.executionId === executionId)?.cost;
}

describe('canExecute', () => {
  it('is false with a BYOK key and no credits, as creating and starting a priced run are refused', async ({ ownServer }) => {
    const api = await ownServer({ SIGNUP_CREDITS: '2' });
    const person = await signUp(api);
    // The key first: on the house key, two credits cover no first model call (issue 50, item 7).
    await storeKey(api, person, OWN_ANTHROPIC_KEY);
    const earlier = await createExecution(api, person, 'agent-priced', 'count');
    // Spends the two credits on a run of another execution.
    const spender = await createExecution(api, person, 'agent-priced', 'count');
    await api.post(`/api/v1/executions/${spender.id}/events`, {
      body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'count' }] }, { type: 'user.interrupt' }] },
      headers: session(person),
    });
    expect(await balanceOf(api, person)).toEqual({ balance: 0, totalSpent: 2, canExecute: false, isAdmin: false });

    const created = await api.post('/api/v1/executions', {
      body: { skill_slug: 'agent-priced', input: 'count' },
      headers: session(person),
    });
    expect(created.status).toBe(402);
    expect((await sendMessage(api, person, earlier.id, 'count')).status).toBe(402);

    // A skill with no price still runs on the key alone: canExecute speaks of priced runs.
    const free = await api.post('/api/v1/executions', {
      body: { skill_slug: 'agent-plain', input: 'hi' },
      headers: session(person),
    });
    expect(free.status).toBe(200);
  });

  it('is true once there are credits, whatever key is stored', async ({ api, person }) => {
    await storeKey(api, person, OWN_OPENAI_KEY);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS, canExecute: true });
  });
});

describe('a model key refused', () => {
  it("refunds the price when the payer's own key is refused on the first call, and says to replace it", async ({
    api,
    anthropic,
    person,
  }) => {
    await storeKey(api, person, OWN_ANTHROPIC_KEY);
    anthropic.plan({ kind: 'status', status: 401, message: 'invalid x-api-key' });
    const run = await startRun(api, person, 'agent-priced', 'count');
    await run.stream.ended;
    const events = run.stream.events;
    expect(stopReasonOf(events)).toBe('error');
    const info = infoOf(events);
    expect(info).toMatch(/^Your own provider key was refused by Anthropic: replace it in Billing, or remove it to use credits/);
    expect(info).toContain('401');
    expect(info).not.toContain(OWN_ANTHROPIC_KEY);
    // The price came back, so it was not spent (issue 50, item 8).
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS, totalSpent: 0 });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS);
    expect(await historyCostOf(api, person, run.id)).toBe(0);
    const refund = (await transactionsOf(api, person))[0];
    expect(refund).toMatchObject({ type: 'purchase', amount: 2 });
    expect(refund?.description).toMatch(/^Refund of run .*: your own model key was refused/);
  });

  it('refunds the price on a 403 of an OpenAI key, too', async ({ api, openai, person }) => {
    await storeKey(api, person, OWN_OPENAI_KEY);
    openai.plan({ kind: 'status', status: 403, message: 'project not allowed' });
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('error');
    expect(infoOf(events)).toMatch(/^Your own provider key was refused by OpenAI: replace it in Billing/);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS);
  });

  it('keeps the price when the own key is refused after the run did work', async ({ api, anthropic, person }) => {
    await storeKey(api, person, OWN_ANTHROPIC_KEY);
    anthropic.plan(
      { kind: 'reply', blocks: [{ type: 'tool_use', id: 't1', name: 'list_files', input: {} }], usage: { input: 2, output: 1 } },
      { kind: 'status', status: 401, message: 'key revoked' },
    );
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('error');
    expect(infoOf(events)).toMatch(/replace it in Billing/);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 2 });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS - 2);
  });

  it("refunds the price when the house key is refused: the service's failure", async ({ api, anthropic, person }) => {
    anthropic.plan({ kind: 'status', status: 401, message: 'invalid x-api-key' });
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('error');
    expect(infoOf(events)).toMatch(/server's own Anthropic key was refused, so the run was not charged: ask the operator/);
    expect(infoOf(events)).not.toContain(HOUSE_ANTHROPIC_KEY);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS);
  });

  it('keeps the price when the vendor fails otherwise on an own key (a 400 is the request, not the key)', async ({
    api,
    anthropic,
    person,
  }) => {
    await storeKey(api, person, OWN_ANTHROPIC_KEY);
    anthropic.plan({ kind: 'status', status: 400, message: 'prompt too long' });
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('error');
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 2 });
  });
});
