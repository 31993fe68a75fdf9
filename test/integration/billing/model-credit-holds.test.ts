import { describe, expect, it } from 'vitest';
import type { Env } from '../../../src/config.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../fakes/openai.js';
import { agentEnv, nextExchange, stopReasonOf } from '../../helpers/agent.js';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, streamOf } from '../../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { type Client, client } from '../../helpers/http.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { chat, sendToThread, type ThreadStreamReader } from '../../helpers/thread-streams.js';

/**
 * Prices that make a call's cost bound small and easy to reason about: output at 1 Ds a
 * token with a 16-token cap (16 Ds), input at 1 Ds per thousand tokens. A planned call of
 * 2000 input and 16 output tokens costs 18 Ds; its hold is 16 Ds plus its request's size
 * in thousands of bytes (about 21 Ds), so 50 Ds cover two holds at once and never three.
 */
const CALL_USAGE = { input: 2000, output: 16 };
const CALL_COST = 18;
const BALANCE = 50;

function holdEnv(extra: Env = {}): Env {
  return {
    MODEL_PRICES: JSON.stringify({ 'claude-test': { input: 1000, output: 1_000_000 } }),
    AGENT_MAX_OUTPUT_TOKENS: '16',
    SIGNUP_CREDITS: String(BALANCE),
    THREAD_TURNS_PER_USER: '10',
    ...extra,
  };
}

/** A server of the test's own on a fake Anthropic of its own (plans are not shared with other tests). */
async function holdServer(
  extra: Env = {},
): Promise<{ server: TestServer; api: Client; anthropic: FakeAnthropic; openai: FakeOpenAI; close(): Promise<void> }> {
  const anthropic = await startFakeAnthropic();
  const openai = await startFakeOpenAI();
  const server = await startServer(agentEnv({ anthropic: anthropic.url, openai: openai.url }, holdEnv(extra)));
  return {
    server,
    api: client(server.url),
    anthropic,
    openai,
    async close() {
      await server.close();
      await anthropic.close();
      await openai.close();
    },
  };
}

const reply = () => ({ kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'Answered.' }], usage: CALL_USAGE });

/** What the person was charged in all (a positive number), and their ledger's sum. */
async function ledger(api: Client, person: TestUser) {
  const rows = await transactionsOf(api, person);
  const charged = -rows.filter((row) => row.type === 'usage').reduce((sum, row) => sum + row.amount, 0);
  return { charged, sum: rows.reduce((sum, row) => sum + row.amount, 0) };
}

async function heldBy(server: TestServer, userId: string): Promise<number> {
  const row = await server.db.db.selectFrom('users').select('held').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.held;
}

async function turnEnd(stream: ThreadStreamReader) {
  expect(stream.status).toBe(200);
  const end = await stream.waitFor((frame) => frame.type === 'agent.turn_end');
  stream.close();
  return end;
}

/** Checks what the rounds must never break: every call paid in full, never more than there was, the ledger whole. */
async function expectCovered(setup: { api: Client; server: TestServer }, person: TestUser, calls: number) {
  const { charged, sum } = await ledger(setup.api, person);
  const { balance } = await balanceOf(setup.api, person);
  expect(calls * CALL_COST, `${calls} calls of ${CALL_COST} Ds made on a balance of ${BALANCE} Ds`).toBeLessThanOrEqual(BALANCE);
  expect(charged).toBe(calls * CALL_COST);
  expect(balance).toBe(BALANCE - charged);
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(balance).toBe(sum);
  expect(await heldBy(setup.server, person.user.id)).toBe(0);
}

describe('credits held for house-key model calls', () => {
  it('keep 10 concurrent thread turns within the balance, 20 rounds running', async () => {
    const setup = await holdServer();
    try {
      for (let round = 1; round <= 20; round++) {
        const person = await signUp(setup.api);
        setup.anthropic.plan(...Array.from({ length: 10 }, reply));
        const before = setup.anthropic.requests.length;
        const streams = await Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            chat(setup.server.url, person, 'assistant', { message: `round ${round}, turn ${n}` }),
          ),
        );
        const ends = await Promise.all(streams.map(turnEnd));
        const calls = setup.anthropic.requests.length - before;
        await expectCovered(setup, person, calls);
        expect(calls).toBeGreaterThan(0);
        for (const end of ends) {
          if (end.stopReason === 'end_turn') continue;
          expect(end).toMatchObject({
            stopReason: 'limit_reached',
            reason: expect.stringMatching(
              /^Out of credits: the next model call needs up to \d+ Ds and \d+ Ds are free .*Buy a credit pack/,
            ),
          });
        }
        expect(ends.filter((end) => end.stopReason === 'end_turn')).toHaveLength(calls);
      }
    } finally {
      await setup.close();
    }
  });

  it("let a turn's hold go when its model call fails", async () => {
    const setup = await holdServer();
    try {
      const person = await signUp(setup.api);
      // The first try and MODEL_MAX_RETRIES (2) more: the call fails.
      setup.anthropic.plan(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 500 })), reply(), reply());
      const failed = await turnEnd(await chat(setup.server.url, person, 'assistant', { message: 'fail' }));
      expect(failed).toMatchObject({ stopReason: 'error', reason: expect.stringMatching(/The model call failed/) });
      expect(await heldBy(setup.server, person.user.id)).toBe(0);
      expect(await balanceOf(setup.api, person)).toMatchObject({ balance: BALANCE });
      // Two holds fit only if the failed call's is gone.
      const ends = await Promise.all(
        ['one', 'two'].map(async (message) => turnEnd(await chat(setup.server.url, person, 'assistant', { message }))),
      );
      expect(ends.map((end) => end.stopReason)).toEqual(['end_turn', 'end_turn']);
      await expectCovered(setup, person, 2);
    } finally {
      await setup.close();
    }
  });

  it("let a run's hold go when the run is interrupted mid-call", async () => {
    const setup = await holdServer();
    try {
      const person = await signUp(setup.api);
      setup.anthropic.plan({ kind: 'hang', blocks: [{ type: 'text', text: 'Thinking for ever...' }], afterEvents: 2 });
      const before = setup.anthropic.requests.length;
      const created = await createExecution(setup.api, person, 'agent-plain', 'go');
      const stream = await streamOf(setup.api, person, created.id);
      const started = await setup.api.post(`/api/v1/executions/${created.id}/events`, {
        body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'go' }] }] },
        headers: session(person),
      });
      expect(started.status).toBe(200);
      const exchange = await nextExchange(setup.anthropic, before);
      expect(await heldBy(setup.server, person.user.id)).toBeGreaterThan(CALL_COST);
      const interrupted = await setup.api.post(`/api/v1/executions/${created.id}/events`, {
        body: { events: [{ type: 'user.interrupt' }] },
        headers: session(person),
      });
      expect(interrupted.status).toBe(200);
      expect(await exchange.ended).toBe('client_closed');
      await stream.ended;
      await expect.poll(() => heldBy(setup.server, person.user.id)).toBe(0);
      expect(await balanceOf(setup.api, person)).toMatchObject({ balance: BALANCE });
    } finally {
      await setup.close();
    }
  });

  it("keep an agent skill's runs in two workspaces of one person within the balance", async () => {
    const setup = await holdServer();
    try {
      for (let round = 1; round <= 5; round++) {
        const person = await signUp(setup.api);
        const team = await createTeam(setup.api, person);
        // Every answer asks for a tool: each run calls the model for as long as credits let it.
        const toolCall = (id: string) => ({
          kind: 'reply' as const,
          blocks: [{ type: 'tool_use' as const, id, name: 'list_files', input: {} }],
          usage: CALL_USAGE,
        });
        setup.anthropic.plan(...Array.from({ length: 6 }, (_, n) => toolCall(`t${n}`)));
        const before = setup.anthropic.requests.length;
        const runs = await Promise.all(
          [session(person), session(person, { 'x-workspace-id': team.id })].map(async (headers) => {
            const created = await createExecution(setup.api, person, 'agent-plain', 'go', {}, headers);
            const stream = await streamOf(setup.api, person, created.id, '', headers);
            const started = await setup.api.post(`/api/v1/executions/${created.id}/events`, {
              body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'go' }] }] },
              headers,
            });
            // A start checks what is free, held credits counted (issue 50): the second may be
            // refused up front when the first already holds its call's credits. That is within
            // the balance too, and it starts nothing.
            expect([200, 402]).toContain(started.status);
            if (started.status === 402) stream.close();
            return { stream, started: started.status === 200 };
          }),
        );
        const started = runs.filter((run) => run.started);
        expect(started.length).toBeGreaterThanOrEqual(1);
        await Promise.all(started.map((run) => run.stream.ended));
        await expectCovered(setup, person, setup.anthropic.requests.length - before);
        expect(started.map((run) => stopReasonOf(run.stream.events))).toEqual(started.map(() => 'limit_reached'));
      }
    } finally {
      await setup.close();
    }
  });
});

describe('the cap on a person’s thread turns at once', () => {
  it('refuses the turn past THREAD_TURNS_PER_USER with a 429 that costs nothing, and takes turns again once one ends', async () => {
    const setup = await holdServer({
      THREAD_TURNS_PER_USER: '2',
      SIGNUP_CREDITS: '1000',
      MODEL_TIMEOUT_MS: '3000',
      MODEL_MAX_RETRIES: '0',
    });
    try {
      const person = await signUp(setup.api);
      const hang = { kind: 'hang' as const, blocks: [{ type: 'text' as const, text: 'Still writing...' }], afterEvents: 2 };
      setup.anthropic.plan(hang, hang);
      const before = setup.anthropic.requests.length;
      const first = await chat(setup.server.url, person, 'assistant', { message: 'one' });
      const second = await chat(setup.server.url, person, 'assistant', { message: 'two' });
      await nextExchange(setup.anthropic, before + 1);

      const third = await chat(setup.server.url, person, 'assistant', { message: 'three' });
      expect(third.status).toBe(429);
      expect(JSON.parse(third.body)).toEqual({
        error: {
          code: 'TOO_MANY_AT_ONCE',
          message: 'You already have 2 replies being written; wait for one to finish, then send this message again',
        },
      });
      // The same through send-message, and nothing was stored or asked of the model for either.
      const sent = await setup.api.post('/api/v1/agents/assistant/send-message', {
        body: { resourceId: person.user.personalWorkspaceId, threadId: 'refused-thread', message: 'four' },
        headers: session(person),
      });
      expect(sent.status).toBe(429);
      expect(sent.body).toMatchObject({ error: { code: 'TOO_MANY_AT_ONCE' } });
      expect(setup.anthropic.requests.length).toBe(before + 2);
      const messages = await setup.server.db.db
        .selectFrom('thread_records')
        .select('sequence')
        .where('frame', 'like', '%four%')
        .execute();
      expect(messages).toHaveLength(0);

      // Another person is not held back by this one's turns.
      const other = await signUp(setup.api);
      setup.anthropic.plan(reply());
      expect((await turnEnd(await chat(setup.server.url, other, 'assistant', { message: 'mine' }))).stopReason).toBe('end_turn');

      // The hanging calls time out, their turns end, and the person may ask again.
      await Promise.all([turnEnd(first), turnEnd(second)]);
      expect(await heldBy(setup.server, person.user.id)).toBe(0);
      setup.anthropic.plan(reply());
      const again = await sendToThread(setup.api, person, 'assistant', 'refused-thread', 'four, again');
      expect(again.threadId).toBe('refused-thread');
      await expect.poll(async () => (await ledger(setup.api, person)).charged).toBe(CALL_COST);
      expect(await balanceOf(setup.api, person)).toMatchObject({ balance: 1000 - CALL_COST });
      expect((await ledger(setup.api, person)).sum).toBe(1000 - CALL_COST);
    } finally {
      await setup.close();
    }
  });
});
