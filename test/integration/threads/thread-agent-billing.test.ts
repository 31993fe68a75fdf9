import { describe, expect } from 'vitest';
import { AGENT_CREDITS, agentEnv, HOUSE_ANTHROPIC_KEY, withAgentServer } from '../../helpers/agent.js';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type Client, client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';
import { chat, recordsOf, type ThreadStreamReader } from '../../helpers/thread-streams.js';

const OWN_OPENAI_KEY = `sk-own-${'d'.repeat(24)}`;

const it = withAgentServer();

/** Chats with the assistant on a new thread and waits for the turn to end. */
async function chatToEnd(baseUrl: string, person: TestUser, message: string) {
  const stream: ThreadStreamReader = await chat(baseUrl, person, 'assistant', { message });
  expect(stream.status).toBe(200);
  const end = await stream.waitFor((frame) => frame.type === 'agent.turn_end');
  stream.close();
  return { threadId: String(stream.frames[0]?.threadId), end, records: recordsOf(stream) };
}

async function ledgerSum(api: Client, person: TestUser): Promise<number> {
  return (await transactionsOf(api, person)).reduce((sum, entry) => sum + entry.amount, 0);
}

describe("an agent thread's model calls", () => {
  it('are charged on the house key to the person, in a usage row naming the thread and no execution', async ({
    api,
    server,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'That costs a little.' }], usage: { input: 12, output: 3 } });
    const { threadId, end } = await chatToEnd(server.url, person, 'hello');
    expect(end).toMatchObject({ stopReason: 'end_turn' });
    expect(anthropic.requests[before]?.headers.authorization).toBe(`Bearer ${HOUSE_ANTHROPIC_KEY}`);

    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 15, totalSpent: 15 });
    const [charge] = await transactionsOf(api, person);
    expect(charge).toMatchObject({
      amount: -15,
      type: 'usage',
      executionId: null,
      description: expect.stringMatching(new RegExp(`^Agent thread assistant/${threadId} \\(.+\\), model call: 15 Ds$`)),
    });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS - 15);
  });

  it("ride on the person's own key at no charge, to that key's provider", async ({ api, server, anthropic, openai, person }) => {
    expect((await api.put('/api/v1/byok', { body: { key: OWN_OPENAI_KEY }, headers: session(person) })).status).toBe(200);
    const [beforeOpenAI, beforeAnthropic] = [openai.requests.length, anthropic.requests.length];
    openai.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Free for you.' }], usage: { prompt: 400, completion: 100 } });
    const { end, records } = await chatToEnd(server.url, person, 'hello');
    expect(end).toMatchObject({ stopReason: 'end_turn' });
    expect(records.find((record) => record.type === 'agent.message')).toMatchObject({ text: 'Free for you.' });
    expect(openai.requests[beforeOpenAI]?.headers.authorization).toBe(`Bearer ${OWN_OPENAI_KEY}`);
    expect(anthropic.requests.length).toBe(beforeAnthropic);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS, totalSpent: 0 });
    expect(await transactionsOf(api, person)).not.toContainEqual(expect.objectContaining({ type: 'usage' }));
  });

  it('end the turn with an error saying how to add a key when the server has none', async ({ anthropic, openai }) => {
    const own = await startServer(
      agentEnv({ anthropic: anthropic.url, openai: openai.url }, { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }),
    );
    try {
      const person = await signUp(client(own.url));
      const { end } = await chatToEnd(own.url, person, 'hello');
      expect(end).toMatchObject({ stopReason: 'error', reason: expect.stringContaining('Your own model key') });
    } finally {
      await own.close();
    }
  });

  it('end the turn with limit_reached, calling no model, when the person has no credits', async ({ anthropic, openai }) => {
    const own = await startServer(agentEnv({ anthropic: anthropic.url, openai: openai.url }, { SIGNUP_CREDITS: '0' }));
    try {
      const person = await signUp(client(own.url));
      const before = anthropic.requests.length;
      const { end } = await chatToEnd(own.url, person, 'hello');
      expect(end).toMatchObject({ stopReason: 'limit_reached', reason: expect.stringMatching(/Out of credits/) });
      expect(anthropic.requests.length).toBe(before);
    } finally {
      await own.close();
    }
  });
});
