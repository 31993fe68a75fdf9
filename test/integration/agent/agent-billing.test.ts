import { describe, expect } from 'vitest';
import {
  AGENT_CREDITS,
  eventOf,
  HOUSE_OPENAI_KEY,
  infoOf,
  interrupt,
  nextExchange,
  runAgent,
  startRun,
  stopReasonOf,
  withAgentServer,
} from '../../helpers/agent.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';

const OWN_ANTHROPIC_KEY = `sk-ant-own-${'c'.repeat(24)}`;
const OWN_OPENAI_KEY = `sk-own-${'d'.repeat(24)}`;

const it = withAgentServer();

async function storeKey(api: Client, person: TestUser, key: string) {
  const stored = await api.put('/api/v1/byok', { body: { key }, headers: session(person) });
  expect(stored.status).toBe(200);
}

/** The ledger's sum for a user: what their balance must always equal. */
async function ledgerSum(api: Client, person: TestUser): Promise<number> {
  return (await transactionsOf(api, person)).reduce((sum, entry) => sum + entry.amount, 0);
}

describe('routing model calls', () => {
  it('sends an sk-ant- key of the user to Anthropic, charging only the skill price', async ({ api, anthropic, person }) => {
    await storeKey(api, person, OWN_ANTHROPIC_KEY);
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'On your key.' }], usage: { input: 50, output: 50 } });
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('end_turn');
    expect(anthropic.requests[before]?.headers.authorization).toBe(`Bearer ${OWN_ANTHROPIC_KEY}`);
    expect(eventOf(events, 'execution.result')?.payload).toMatchObject({
      cost: 2,
      tokenUsage: { input_tokens: 50, output_tokens: 50 },
    });
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 2 });
  });

  it('sends any other sk- key to the OpenAI-compatible server, whatever the skill names', async ({ api, openai, person }) => {
    await storeKey(api, person, OWN_OPENAI_KEY);
    const before = openai.requests.length;
    openai.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Via OpenAI.' }], usage: { prompt: 40, completion: 10 } });
    const events = await runAgent(api, person, 'agent-plain', 'hello');
    expect(stopReasonOf(events)).toBe('end_turn');
    const request = openai.requests[before];
    expect(request?.headers.authorization).toBe(`Bearer ${OWN_OPENAI_KEY}`);
    expect(request?.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } });
    expect(eventOf(events, 'execution.result')?.payload).toMatchObject({
      cost: 0,
      tokenUsage: { input_tokens: 40, output_tokens: 10 },
    });
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS });
  });

  it('charges house keys at the price table, on the provider the skill names', async ({ api, openai, person }) => {
    const before = openai.requests.length;
    openai.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'House OpenAI.' }], usage: { prompt: 7, completion: 3 } });
    const events = await runAgent(api, person, 'agent-gpt', 'hello');
    expect(openai.requests[before]?.headers.authorization).toBe(`Bearer ${HOUSE_OPENAI_KEY}`);
    expect(eventOf(events, 'execution.result')?.payload).toMatchObject({ cost: 10 });
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 10, totalSpent: 10 });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS - 10);
  });

  it('without any key, ends with error and says how to add one, refunding the price', async ({ ownServer }) => {
    const api = await ownServer({ ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' });
    const person = await signUp(api);
    const events = await runAgent(api, person, 'agent-priced', 'count');
    expect(stopReasonOf(events)).toBe('error');
    expect(infoOf(events)).toMatch(/Your own model key/);
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS });
  });
});

describe('an execution run again after an interrupt', () => {
  it("charges the new run's model calls after the first run's, and completes", async ({ api, anthropic, person }) => {
    anthropic.plan(
      { kind: 'reply', blocks: [{ type: 'tool_use', id: 't1', name: 'list_files', input: {} }], usage: { input: 2, output: 1 } },
      { kind: 'hang', blocks: [{ type: 'text', text: 'Still thinking...' }], afterEvents: 2 },
    );
    const exchanges = anthropic.requests.length;
    const first = await startRun(api, person, 'agent-plain', 'go');
    const second = await nextExchange(anthropic, exchanges + 1);
    expect((await interrupt(api, person, first.id)).status).toBe(200);
    expect(await second.ended).toBe('client_closed');
    await first.stream.ended;

    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Done at last.' }], usage: { input: 4, output: 1 } });
    const again = await streamOf(api, person, first.id, `&lastSeq=${first.stream.events.length}`);
    expect((await sendMessage(api, person, first.id, 'go on')).status).toBe(200);
    await again.ended;
    expect(stopReasonOf(again.events)).toBe('end_turn');
    expect(eventOf(again.events, 'execution.result')?.payload).toMatchObject({ cost: 3 + 5 });
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 8 });
    expect(await ledgerSum(api, person)).toBe(AGENT_CREDITS - 8);
  });
});

/**
 * Prices that keep a call's credit hold small: output at 1 Ds a token under a 16-token cap,
 * input at 1 Ds per thousand tokens, so a call's hold is about 21 Ds (16, plus its request
 * in thousands of bytes and the vendor's framing).
 */
const CHEAP_INPUT = {
  MODEL_PRICES: JSON.stringify({ 'claude-test': { input: 1000, output: 1_000_000 } }),
  AGENT_MAX_OUTPUT_TOKENS: '16',
};

describe('running out of credits', () => {
  it('stops before a call whose hold the balance cannot cover, never below zero', async ({ anthropic, ownServer }) => {
    const api = await ownServer({ ...CHEAP_INPUT, SIGNUP_CREDITS: '30' });
    const person = await signUp(api);
    const before = anthropic.requests.length;
    // The first call costs 17 and asks for a tool; the next needs about 21 held, and 13 Ds are left.
    anthropic.plan({
      kind: 'reply',
      blocks: [{ type: 'tool_use', id: 't1', name: 'list_files', input: {} }],
      usage: { input: 1000, output: 16 },
    });
    const events = await runAgent(api, person, 'agent-plain', 'go');
    expect(stopReasonOf(events)).toBe('limit_reached');
    expect(infoOf(events)).toMatch(/^Out of credits: the next model call needs up to \d+ Ds and 13 Ds are free/);
    expect(anthropic.requests.length - before).toBe(1);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 13 });
    expect(await ledgerSum(api, person)).toBe(13);
  });

  it('takes a call the vendor counts above its hold down to zero and ends with limit_reached', async ({
    anthropic,
    ownServer,
  }) => {
    const api = await ownServer({ ...CHEAP_INPUT, SIGNUP_CREDITS: '30' });
    const person = await signUp(api);
    // 100,000 input tokens (100 Ds): far more than the request's bytes, which the hold counted.
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Expensive.' }], usage: { input: 100_000, output: 1 } });
    const events = await runAgent(api, person, 'agent-plain', 'go');
    expect(stopReasonOf(events)).toBe('limit_reached');
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, totalSpent: 30 });
    expect(await ledgerSum(api, person)).toBe(0);
  });
});

describe('a skill in the open Agent Skills format', () => {
  it('installs from an artifact and runs unchanged: references read, its script run', async ({ api, anthropic, person }) => {
    const files = [
      {
        path: 'word-counter/SKILL.md',
        text: [
          '---',
          'name: word-counter',
          'description: Counts the words of a text. Use when the user asks how long a text is.',
          'license: Apache-2.0',
          'metadata:',
          '  author: example',
          '---',
          '# Word counter',
          '',
          'Read [the guide](references/GUIDE.md) first.',
          'Then run `scripts/count.sh` with the text on standard input and report its answer.',
        ].join('\n'),
      },
      { path: 'word-counter/references/GUIDE.md', text: 'Answer with the number only.\n' },
      { path: 'word-counter/scripts/count.sh', text: '#!/bin/bash\nwc -w | tr -d " "\n' },
    ];
    const { artifactId } = await runForArtifact(api, person, 'writer', JSON.stringify({ files }));
    const installed = await api.post(`/api/v1/artifacts/${artifactId}/install`, { headers: session(person) });
    expect(installed.status).toBe(200);

    const before = anthropic.requests.length;
    anthropic.plan(
      { kind: 'reply', blocks: [{ type: 'tool_use', id: 'g', name: 'read_file', input: { path: 'references/GUIDE.md' } }] },
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 's', name: 'run_script', input: { path: 'scripts/count.sh', stdin: 'a b c d' } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: '4' }] },
    );
    const events = await runAgent(api, person, 'word-counter', 'a b c d');
    expect(stopReasonOf(events)).toBe('end_turn');
    expect(String(anthropic.requests[before]?.body.system)).toContain('Read [the guide](references/GUIDE.md) first.');
    expect(JSON.stringify(anthropic.requests[before + 1]?.body.messages)).toContain('Answer with the number only.');
    expect(JSON.stringify(anthropic.requests[before + 2]?.body.messages)).toContain('exit code: 0\\nstdout:\\n4\\n');
  });
});
