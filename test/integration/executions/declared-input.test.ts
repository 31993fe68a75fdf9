import { describe, expect } from 'vitest';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const TICKER_WORDS = 'Ticker cannot run on this input. Give two whole numbers: how many messages (1 to 10,000)';

const balanceOf = async (api: Client, user: TestUser) =>
  (await api.get<{ balance: number }>('/api/v1/billing/balance', { headers: session(user) })).body.balance;

const historyOf = async (api: Client, user: TestUser) =>
  (await api.get<{ items: { inputText: string; status: string }[] }>('/api/v1/executions?limit=50', { headers: session(user) }))
    .body.items;

describe('a skill that declares its input', () => {
  it('lists its examples and schema beside its input sentence; a skill without them has none', async ({ api }) => {
    const person = await signUp(api);
    const page = await api.get<{ items: Record<string, unknown>[] }>('/api/v1/marketplace/skills?limit=100', {
      headers: session(person),
    });
    const bySlug = new Map(page.body.items.map((item) => [item.slug, item]));
    expect(bySlug.get('ticker')).toMatchObject({
      defaultInput: '10 500',
      examples: ['10 500', '5 200', '100 50'],
      inputSchema: { type: 'string', pattern: expect.any(String) },
    });
    expect(bySlug.get('priced-form')).toMatchObject({
      examples: ['{"city":"Lisbon","days":3}'],
      inputSchema: {
        type: 'object',
        required: ['city', 'days'],
        properties: { days: { type: 'integer', minimum: 1, maximum: 14 } },
      },
    });
    expect(bySlug.get('text-stats')).toMatchObject({ examples: [], inputSchema: null });
  });

  it('refuses an input that does not fit, in the skill author’s words, and creates nothing', async ({ api }) => {
    const person = await signUp(api);
    for (const input of ['hello world', '99999 1', '0 500', '10 500 and more']) {
      const reply = await api.post('/api/v1/executions', { body: { skill_slug: 'ticker', input }, headers: session(person) });
      expect(reply.status, input).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringContaining(TICKER_WORDS) } });
    }
    expect(await historyOf(api, person)).toEqual([]);
  });

  it('refuses a first message that does not fit, leaving the execution waiting; a fitting one starts it', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'ticker', '2 10');
    const refused = await sendMessage(api, person, created.id, 'hello world');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringContaining(TICKER_WORDS) } });
    const status = await api.get<{ status: string; startedAt: string | null }>(`/api/v1/executions/${created.id}/status`, {
      headers: session(person),
    });
    expect(status.body).toMatchObject({ status: 'idle', startedAt: null });
    const stream = await streamOf(api, person, created.id);
    expect((await sendMessage(api, person, created.id, '2 10')).status).toBe(200);
    await stream.ended;
    expect(stream.events.map((event) => event.type)).not.toContain('session.error');
  });

  it('refuses a rerun on an input that does not fit, starting no child', async ({ api }) => {
    const person = await signUp(api);
    const { created } = await runToEnd(api, person, 'ticker', '1 1');
    const rerun = await api.post(`/api/v1/executions/${created.id}/rerun`, { body: { input: '5' }, headers: session(person) });
    expect(rerun.status).toBe(400);
    expect((await historyOf(api, person)).map((item) => item.inputText)).toEqual(['1 1']);
  });

  it('names each field of a form input that is wrong, and charges nothing for a refused run', async ({ api }) => {
    const person = await signUp(api);
    const before = await balanceOf(api, person);
    const cases: [string, string][] = [
      ['Lisbon', 'The input must be a JSON object with the fields “City”, “Days”, “Units”'],
      ['{"city":"Lisbon"}', '“Days” is missing'],
      [
        '{"city":"Lisbon","days":30,"units":"kelvin"}',
        '“Days” must be a whole number from 1 to 14; “Units” must be one of “metric”, “imperial”',
      ],
    ];
    for (const [input, words] of cases) {
      const reply = await api.post<{ error: { message: string } }>('/api/v1/executions', {
        body: { skill_slug: 'priced-form', input },
        headers: session(person),
      });
      expect(reply.status, input).toBe(400);
      expect(reply.body.error.message).toBe(`Weather form cannot run on this input. ${words}.`);
    }
    expect(await balanceOf(api, person)).toBe(before);
    const { stream } = await runToEnd(api, person, 'priced-form', '{"city":"Porto","days":2,"units":"imperial"}');
    const said = stream.events.find((event) => event.type === 'agent.message');
    expect(JSON.stringify(said?.payload)).toContain('Porto for 2 days in imperial');
    expect(await balanceOf(api, person)).toBe(before - 3);
  });
});
