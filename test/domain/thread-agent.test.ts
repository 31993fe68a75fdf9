import { describe, expect } from 'vitest';
import { storeByokKey } from '../../src/billing/byok.js';
import { chargeThreadModelTokens } from '../../src/billing/charges.js';
import type { AppContext } from '../../src/context.js';
import { runThreadTurn } from '../../src/threads/thread-agent.js';
import { AGENT_CREDITS, HOUSE_ANTHROPIC_KEY } from '../helpers/agent.js';
import { aUser } from '../helpers/rows.js';
import { aThread, historyOf, ledgerOf, MemorySink, said, withThreadAgent } from './thread-agent-fixture.js';

const OWN_OPENAI_KEY = `sk-own-${'d'.repeat(24)}`;
const OWN_ANTHROPIC_KEY = `sk-ant-own-${'c'.repeat(24)}`;

const it = withThreadAgent();

function withoutHouseKeys(ctx: AppContext): AppContext {
  const { agent } = ctx.config;
  return {
    ...ctx,
    config: {
      ...ctx.config,
      agent: { ...agent, anthropic: { ...agent.anthropic, apiKey: undefined }, openai: { ...agent.openai, apiKey: undefined } },
    },
  };
}

/**
 * Output tokens at 1 Ds each, input free, and an output cap of `cap`: every call's credit
 * hold (model-budget.ts) is exactly `cap` Ds, so a test can set a balance around it.
 */
function withCallBound(ctx: AppContext, cap: number): AppContext {
  const prices = { 'claude-test': { input: 0, output: 1_000_000 }, 'gpt-test': { input: 0, output: 1_000_000 } };
  return { ...ctx, config: { ...ctx.config, agent: { ...ctx.config.agent, prices, maxOutputTokens: cap } } };
}

/** What a user has held for calls under way: the users.held column and the hold rows. */
async function heldBy(ctx: AppContext, userId: string) {
  const user = await ctx.db.selectFrom('users').select('held').where('id', '=', userId).executeTakeFirstOrThrow();
  const holds = await ctx.db.selectFrom('credit_holds').select('id').where('user_id', '=', userId).execute();
  return { held: Number(user.held), holds: holds.length };
}

describe('a thread turn', () => {
  it('streams a plain reply as chunks, then the message, then the turn end', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const sink = new MemorySink();
    const reply = 'Hello! I can list the skills of this workspace, run them and read what they wrote.';
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: reply }], deltaSize: 8 });
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);

    const types = sink.records.map((record) => record.type);
    expect(types.slice(-2)).toEqual(['agent.message', 'agent.turn_end']);
    expect(new Set(types.slice(0, -2))).toEqual(new Set(['agent.chunk']));
    const [message] = sink.of('agent.message');
    expect(message?.text).toBe(reply);
    expect(
      sink
        .of('agent.chunk')
        .map((chunk) => chunk.text)
        .join(''),
    ).toBe(reply);
    expect(sink.of('agent.chunk').every((chunk) => chunk.messageId === message?.messageId)).toBe(true);
    expect(sink.records.at(-1)).toEqual({ type: 'agent.turn_end', messageId: message?.messageId, stopReason: 'end_turn' });
    expect(sink.stored.map((stored) => stored.sequence)).toEqual(types.map((_, index) => index + 1));
  });

  it('hands on text while the answer is still streaming', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const sink = new MemorySink();
    // message_start, ping, content_block_start, then three 4-character deltas; then nothing.
    anthropic.plan({
      kind: 'hang',
      blocks: [{ type: 'text', text: 'abcdefghijklmnopqrstuvwxyz' }],
      deltaSize: 4,
      afterEvents: 6,
    });
    const abort = new AbortController();
    const turn = runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, abort.signal);
    await expect
      .poll(() =>
        sink
          .of('agent.chunk')
          .map((chunk) => chunk.text)
          .join(''),
      )
      .toBe('abcdefghijkl');
    expect(sink.of('agent.message')).toEqual([]);
    abort.abort();
    await turn;
    expect(sink.records.at(-1)).toMatchObject({ type: 'agent.turn_end', stopReason: 'error' });
    expect(sink.of('agent.message')).toEqual([]);
  });

  it("shows the model the thread's history: messages, notifications, replies and tool summaries", async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'It finished.' }] });
    const history = historyOf(
      said('run the ticker'),
      { type: 'agent.chunk', messageId: 'm1', text: 'Starting it.' },
      { type: 'agent.message', messageId: 'm1', text: 'Starting it.' },
      { type: 'tool.result', callId: 'c1', tool: 'start_run', status: 'ok', summary: 'Started ticker: execution e1' },
      { type: 'agent.turn_end', messageId: 'm1', stopReason: 'end_turn' },
      { type: 'notification', text: '<notification>Run e1 of ticker completed.</notification>', executionId: 'e1' },
    );
    await runThreadTurn(agentCtx, thread, history, new MemorySink(), new AbortController().signal);
    const body = anthropic.requests[before]?.body as { messages: unknown[]; system: string; tools: { name: string }[] };
    expect(body.messages).toEqual([
      { role: 'user', content: 'run the ticker' },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Starting it.\n\n[start_run ok: Started ticker: execution e1]' }],
      },
      { role: 'user', content: '<notification>Run e1 of ticker completed.</notification>' },
    ]);
    expect(body.system).toContain('assistant of Skillet');
    expect(body.tools.map((tool) => tool.name)).toEqual([
      'list_skills',
      'start_run',
      'get_execution',
      'list_artifacts',
      'read_artifact',
    ]);
  });
});

describe('the limits of a turn', () => {
  it('ends with limit_reached at AGENT_MAX_TURNS model calls', async ({ agentCtx, anthropic }) => {
    const ctx: AppContext = { ...agentCtx, config: { ...agentCtx.config, agent: { ...agentCtx.config.agent, maxTurns: 2 } } };
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    const listing = (id: string) => ({
      kind: 'reply' as const,
      blocks: [{ type: 'tool_use' as const, id, name: 'list_skills', input: {} }],
    });
    anthropic.plan(listing('call_1'), listing('call_2'));
    const sink = new MemorySink();
    await runThreadTurn(ctx, thread, historyOf(said('loop')), sink, new AbortController().signal);
    expect(anthropic.requests.length).toBe(before + 2);
    expect(sink.of('tool.result')).toHaveLength(2);
    expect(sink.records.at(-1)).toMatchObject({
      type: 'agent.turn_end',
      stopReason: 'limit_reached',
      reason: expect.stringContaining('AGENT_MAX_TURNS'),
    });
    const request = anthropic.requests[before];
    if (!request) throw new Error('the vendor got no request');
    expect((request.body as { max_tokens: number }).max_tokens).toBe(ctx.config.agent.maxOutputTokens);
  });
});

describe('paying for a turn', () => {
  it("charges the house key's tokens to the payer, in ledger rows of the thread with no execution", async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Sure.' }], usage: { input: 20, output: 7 } });
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), new MemorySink(), new AbortController().signal);
    expect(anthropic.requests[before]?.headers.authorization).toBe(`Bearer ${HOUSE_ANTHROPIC_KEY}`);
    const ledger = await ledgerOf(agentCtx, user.id);
    expect(ledger.balance).toBe(AGENT_CREDITS - 27);
    expect(ledger.sum).toBe(ledger.balance);
    expect(ledger.rows.at(-1)).toMatchObject({
      amount: -27,
      type: 'usage',
      execution_id: null,
      description: `Agent thread assistant/${thread.threadId} (${thread.id}), model call: 27 Ds`,
    });
  });

  it("costs nothing on the payer's own key, and goes to that key's provider", async ({ agentCtx, anthropic, openai }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    await storeByokKey(agentCtx, user.id, OWN_OPENAI_KEY);
    const thread = await aThread(agentCtx, user);
    const [beforeOpenAI, beforeAnthropic] = [openai.requests.length, anthropic.requests.length];
    openai.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'On your key.' }], usage: { prompt: 500, completion: 500 } });
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.of('agent.message')).toMatchObject([{ text: 'On your key.' }]);
    expect(openai.requests[beforeOpenAI]?.headers.authorization).toBe(`Bearer ${OWN_OPENAI_KEY}`);
    expect(anthropic.requests.length).toBe(beforeAnthropic);
    expect((await ledgerOf(agentCtx, user.id)).balance).toBe(AGENT_CREDITS);
  });

  it('works on an own key with no house keys at all', async ({ agentCtx, anthropic }) => {
    const ctx = withoutHouseKeys(agentCtx);
    const user = await aUser(ctx.db, { credits: 0 });
    await storeByokKey(ctx, user.id, OWN_ANTHROPIC_KEY);
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'Free.' }] });
    const sink = new MemorySink();
    await runThreadTurn(ctx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(anthropic.requests[before]?.headers.authorization).toBe(`Bearer ${OWN_ANTHROPIC_KEY}`);
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
  });

  it('ends the turn with an error telling how to add a key when there is none', async ({ agentCtx, anthropic }) => {
    const ctx = withoutHouseKeys(agentCtx);
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    const sink = new MemorySink();
    await runThreadTurn(ctx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.records).toEqual([
      {
        type: 'agent.turn_end',
        messageId: expect.any(String),
        stopReason: 'error',
        reason: expect.stringContaining('Your own model key'),
      },
    ]);
    expect(anthropic.requests.length).toBe(before);
  });

  it('ends with limit_reached before a call the payer cannot pay for', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: 0 });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.records).toEqual([
      {
        type: 'agent.turn_end',
        messageId: expect.any(String),
        stopReason: 'limit_reached',
        reason: expect.stringMatching(/Out of credits/),
      },
    ]);
    expect(anthropic.requests.length).toBe(before);
  });

  it('starts no call whose upper cost the free balance cannot hold', async ({ agentCtx, anthropic }) => {
    const ctx = withCallBound(agentCtx, 10);
    const user = await aUser(ctx.db, { credits: 14 });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan({
      kind: 'reply',
      blocks: [{ type: 'tool_use', id: 'call_1', name: 'list_skills', input: {} }],
      usage: { input: 10, output: 5 },
    });
    const sink = new MemorySink();
    await runThreadTurn(ctx, thread, historyOf(said('what can I run?')), sink, new AbortController().signal);
    expect(sink.records.map((record) => record.type)).toEqual(['tool.result', 'agent.turn_end']);
    expect(sink.of('agent.turn_end')).toMatchObject([
      {
        stopReason: 'limit_reached',
        reason: expect.stringContaining('Out of credits: the next model call needs up to 10 Ds and 9 Ds are free'),
      },
    ]);
    expect(anthropic.requests.length).toBe(before + 1);
    expect(await ledgerOf(ctx, user.id)).toMatchObject({ balance: 9, sum: 9 });
    expect(await heldBy(ctx, user.id)).toEqual({ held: 0, holds: 0 });
  });

  it('takes the balance to zero, never below, when a vendor reports more than the call could cost', async ({
    agentCtx,
    anthropic,
  }) => {
    const ctx = withCallBound(agentCtx, 10);
    const user = await aUser(ctx.db, { credits: 10 });
    const thread = await aThread(ctx, user);
    // 27 output tokens past a cap of 10: the hold covered 10, the charge stops at the balance.
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'A long answer.' }], usage: { input: 20, output: 27 } });
    const sink = new MemorySink();
    await runThreadTurn(ctx, thread, historyOf(said('tell me everything')), sink, new AbortController().signal);
    expect(sink.records.map((record) => record.type)).toEqual(['agent.chunk', 'agent.message', 'agent.turn_end']);
    expect(sink.of('agent.turn_end')).toMatchObject([
      { stopReason: 'limit_reached', reason: expect.stringMatching(/Out of credits/) },
    ]);
    const ledger = await ledgerOf(ctx, user.id);
    expect(ledger).toMatchObject({ balance: 0, sum: 0 });
    expect(ledger.rows.at(-1)).toMatchObject({ amount: -10, type: 'usage', execution_id: null });
    expect(await heldBy(ctx, user.id)).toEqual({ held: 0, holds: 0 });
  });

  it('lets concurrent thread charges take no more than the balance between them', async ({ agentCtx }) => {
    const user = await aUser(agentCtx.db, { credits: 10 });
    const thread = await aThread(agentCtx, user);
    const short = await Promise.all(
      Array.from({ length: 5 }, () => chargeThreadModelTokens(agentCtx, user.id, thread.id, 4, `assistant/${thread.threadId}`)),
    );
    expect(short.reduce((sum, left) => sum + left, 0)).toBe(10);
    const ledger = await ledgerOf(agentCtx, user.id);
    expect(ledger).toMatchObject({ balance: 0, sum: 0 });
    expect(ledger.rows.filter((row) => row.type === 'usage').every((row) => row.execution_id === null && row.amount < 0)).toBe(
      true,
    );
  });

  it('is not charged to an admin', async ({ agentCtx, anthropic }) => {
    const admin = await aUser(agentCtx.db, { credits: 0, isAdmin: true });
    const thread = await aThread(agentCtx, admin);
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'On the house.' }] });
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    expect((await ledgerOf(agentCtx, admin.id)).rows).toEqual([]);
  });
});
