import { afterAll, expect } from 'vitest';
import type { Env } from '../../src/config.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai.js';
import type { ExchangeEnd } from '../fakes/streaming-vendor.js';
import { createExecution, sendMessage, streamOf } from './executions.js';
import { session, signUp, type TestUser } from './factories.js';
import { withServer } from './fixtures.js';
import { type Client, client } from './http.js';
import { startServer, type TestServer } from './server.js';
import type { StreamEvent } from './sse.js';

export const HOUSE_ANTHROPIC_KEY = `sk-ant-house-${'a'.repeat(24)}`;
export const HOUSE_OPENAI_KEY = `sk-house-${'b'.repeat(24)}`;

/**
 * What each new user starts with on an agent test server: at 1 Ds a token, a call's credit
 * hold (its output cap plus a byte per token of its request, model-budget.ts) is thousands
 * of Ds, which this covers many times over.
 */
export const AGENT_CREDITS = 1_000_000;

/**
 * Settings of a server whose house keys reach the fake vendors. Every token costs 1 Ds, so
 * a test reads a run's token cost straight off the usage it planned.
 */
export function agentEnv(vendors: { anthropic: string; openai: string }, extra: Env = {}): Env {
  return {
    SIGNUP_CREDITS: String(AGENT_CREDITS),
    ANTHROPIC_API_KEY: HOUSE_ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: vendors.anthropic,
    ANTHROPIC_MODEL: 'claude-test',
    OPENAI_API_KEY: HOUSE_OPENAI_KEY,
    OPENAI_BASE_URL: vendors.openai,
    OPENAI_MODEL: 'gpt-test',
    MODEL_MAX_RETRIES: '2',
    MODEL_PRICES: JSON.stringify({
      'claude-test': { input: 1_000_000, output: 1_000_000 },
      'gpt-test': { input: 1_000_000, output: 1_000_000 },
    }),
    RATE_LIMIT_REST_PER_MINUTE: '100000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
    ...extra,
  };
}

/**
 * Fake model vendors for a whole test file, closed after it, and the settings of a server
 * that reaches them: for helpers that take a server's settings up front (the CLI's, the
 * browser's) rather than as a fixture.
 */
export async function modelVendorsOfFile(extra: Env = {}): Promise<{ anthropic: FakeAnthropic; openai: FakeOpenAI; env: Env }> {
  const anthropic = await startFakeAnthropic();
  const openai = await startFakeOpenAI();
  afterAll(async () => {
    await anthropic.close();
    await openai.close();
  });
  return { anthropic, openai, env: agentEnv({ anthropic: anthropic.url, openai: openai.url }, extra) };
}

/** Creates an execution of `skill`, opens its stream and starts it; the run goes on. */
export async function startRun(api: Client, user: TestUser, skill: string, input: string) {
  const created = await createExecution(api, user, skill, input);
  const stream = await streamOf(api, user, created.id);
  expect((await sendMessage(api, user, created.id, input)).status).toBe(200);
  return { id: created.id, stream };
}

/** Runs `skill` to its end and returns its stream's events. */
export async function runAgent(api: Client, user: TestUser, skill: string, input: string): Promise<StreamEvent[]> {
  const { stream } = await startRun(api, user, skill, input);
  await stream.ended;
  return stream.events;
}

export const stopReasonOf = (events: StreamEvent[]) =>
  (events.at(-1)?.payload as { stop_reason?: { type: string } } | undefined)?.stop_reason?.type;

export const eventOf = (events: StreamEvent[], type: string) => events.find((event) => event.type === type);

export const infoOf = (events: StreamEvent[]) => String(eventOf(events, 'agent.info')?.payload.message);

/**
 * Waits until the fake vendor has a request past `count`; `ended` then tells how its
 * exchange ends (wrapped, since an async function would wait for a promise it returned).
 */
export async function nextExchange(
  fake: { requests: { ended: Promise<ExchangeEnd> }[] },
  count: number,
): Promise<{ ended: Promise<ExchangeEnd> }> {
  await expect.poll(() => fake.requests.length, { timeout: 10_000 }).toBeGreaterThan(count);
  return { ended: (fake.requests[count] as { ended: Promise<ExchangeEnd> }).ended };
}

export function cancel(api: Client, user: TestUser, id: string) {
  return api.post(`/api/v1/executions/${id}/cancel`, { headers: session(user) });
}

export function interrupt(api: Client, user: TestUser, id: string) {
  return api.post(`/api/v1/executions/${id}/events`, { body: { events: [{ type: 'user.interrupt' }] }, headers: session(user) });
}

/**
 * A test API for agent runs: a fake Anthropic and a fake OpenAI-compatible server for the
 * file, its server's house keys on them (agentEnv), a new `person` per test, and
 * `ownServer(env)` for a server of the test's own on the same fakes, closed after it.
 */
export function withAgentServer(env: Env = {}) {
  return (
    withServer()
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('anthropic', { scope: 'file' }, async ({}, { onCleanup }): Promise<FakeAnthropic> => {
        const fake = await startFakeAnthropic();
        onCleanup(() => fake.close());
        return fake;
      })
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('openai', { scope: 'file' }, async ({}, { onCleanup }): Promise<FakeOpenAI> => {
        const fake = await startFakeOpenAI();
        onCleanup(() => fake.close());
        return fake;
      })
      .extend('serverSettings', { scope: 'file' }, ({ anthropic, openai }) => ({
        env: agentEnv({ anthropic: anthropic.url, openai: openai.url }, env),
        parts: {},
      }))
      .extend('person', ({ api }) => signUp(api))
      .extend('ownServer', ({ anthropic, openai }, { onCleanup }) => {
        const started: TestServer[] = [];
        onCleanup(async () => {
          for (const server of started) await server.close();
        });
        return async (env: Env) => {
          const server = await startServer(agentEnv({ anthropic: anthropic.url, openai: openai.url }, env));
          started.push(server);
          return client(server.url);
        };
      })
  );
}

/** A scripted model reply that calls one tool. */
export const use = (id: string, name: string, input: Record<string, unknown>) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name, input }],
  usage: { input: 1, output: 1 },
});

/** A scripted model reply that ends the turn. */
export const done = {
  kind: 'reply' as const,
  blocks: [{ type: 'text' as const, text: 'Done.' }],
  usage: { input: 1, output: 1 },
};

interface ToolResultBlock {
  type: string;
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** The tool results the model was sent, by the id of the call they answer. */
export function resultsSent(anthropic: FakeAnthropic, from: number): Map<string, { text: string; isError: boolean }> {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const request of anthropic.requests.slice(from)) {
    const messages = request.body.messages as { role: string; content: unknown }[];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as ToolResultBlock[]) {
        if (block.type === 'tool_result') {
          results.set(block.tool_use_id, { text: String(block.content), isError: block.is_error === true });
        }
      }
    }
  }
  return results;
}
