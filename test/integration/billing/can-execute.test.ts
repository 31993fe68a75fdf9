import { describe, expect } from 'vitest';
import { withAgentServer } from '../../helpers/agent.js';
import { createExecution, sendMessage } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';

/**
 * Issue 50, item 7. canExecute and a start agree, skill by skill: a start on the house key
 * needs free credits for its price and for its first model call's hold (at 1 Ds a token, the
 * output cap alone is 8,192 Ds), and one that cannot afford them is refused with 402 before
 * anything is stored, instead of being accepted and stopping at once with limit_reached.
 */
const it = withAgentServer();

const OWN_ANTHROPIC_KEY = `sk-ant-own-${'c'.repeat(24)}`;

async function canExecute(api: Client, person: TestUser, skill?: string): Promise<boolean> {
  const query = skill === undefined ? '' : `?skill=${encodeURIComponent(skill)}`;
  const reply = await api.get<{ canExecute: boolean }>(`/api/v1/billing/balance${query}`, { headers: session(person) });
  expect(reply.status).toBe(200);
  return reply.body.canExecute;
}

function create(api: Client, person: TestUser, skill: string, input = 'Do it.') {
  return api.post<{ error: { code: string; message: string } }>('/api/v1/executions', {
    body: { skill_slug: skill, input },
    headers: session(person),
  });
}

async function executionsOf(api: Client, person: TestUser): Promise<{ status: string }[]> {
  const history = await api.get<{ items: { status: string }[] }>('/api/v1/executions', { headers: session(person) });
  return history.body.items;
}

describe('canExecute and a start of a house-key agent run', () => {
  it('with 3 Ds: both say no, before anything is stored or any model is called; a free script skill still runs', async ({
    ownServer,
    anthropic,
    openai,
  }) => {
    const api = await ownServer({ SIGNUP_CREDITS: '3' });
    const person = await signUp(api);
    const calls = anthropic.requests.length + openai.requests.length;
    expect(await canExecute(api, person)).toBe(false);
    expect(await canExecute(api, person, 'agent-plain')).toBe(false);
    expect(await canExecute(api, person, 'agent-priced')).toBe(false);

    const refused = await create(api, person, 'agent-plain');
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) } });
    expect(refused.body.error.message).toMatch(
      /^Not enough credits to run this skill: its first model call needs up to \d+ Ds, and you have 3 Ds free\. Buy a credit pack, or add your own model key/,
    );
    const priced = await create(api, person, 'agent-priced');
    expect(priced.status).toBe(402);
    expect(priced.body.error.message).toMatch(/needs up to \d+ Ds on top of its price of 2 Ds, and you have 3 Ds free/);
    expect(await executionsOf(api, person)).toEqual([]);
    expect(anthropic.requests.length + openai.requests.length).toBe(calls);

    expect(await canExecute(api, person, 'echo-summary')).toBe(true);
    expect((await create(api, person, 'echo-summary', 'hello')).status).toBe(200);
  });

  it('with 0 Ds: a free agent skill is refused up front; with an own key it is let through, and canExecute says so', async ({
    ownServer,
  }) => {
    const api = await ownServer({ SIGNUP_CREDITS: '0' });
    const person = await signUp(api);
    expect(await canExecute(api, person, 'agent-plain')).toBe(false);
    expect((await create(api, person, 'agent-plain')).status).toBe(402);

    const stored = await api.put('/api/v1/byok', { body: { key: OWN_ANTHROPIC_KEY }, headers: session(person) });
    expect(stored.status).toBe(200);
    expect(await canExecute(api, person, 'agent-plain')).toBe(true);
    // The price is still paid in credits: a BYOK key pays only for the model.
    expect(await canExecute(api, person, 'agent-priced')).toBe(false);
    expect(await canExecute(api, person)).toBe(false);
    const idle = await createExecution(api, person, 'agent-plain', 'Do it.');

    // Without the key the idle execution's start is refused as its creation would be, and it stays idle.
    expect((await api.delete('/api/v1/byok', { headers: session(person) })).status).toBe(200);
    const started = await sendMessage(api, person, idle.id, 'Do it.');
    expect(started.status).toBe(402);
    expect(started.body).toEqual({ error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) } });
    const status = await api.get<{ status: string }>(`/api/v1/executions/${idle.id}/status`, { headers: session(person) });
    expect(status.body.status).toBe('idle');
  });

  it('with credits enough: both say yes', async ({ api, person }) => {
    expect(await canExecute(api, person)).toBe(true);
    expect(await canExecute(api, person, 'agent-plain')).toBe(true);
    expect(await canExecute(api, person, 'agent-priced')).toBe(true);
    expect((await create(api, person, 'agent-plain')).status).toBe(200);
  });

  it('a skill the workspace does not have is a 404 in the usual envelope', async ({ api, person }) => {
    const reply = await api.get('/api/v1/billing/balance?skill=no-such-skill', { headers: session(person) });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No skill with slug no-such-skill in this workspace' } });
  });
});
