import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { createExecution, sendMessage, streamOf, tickerRunTypes } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import { openStream } from '../../helpers/sse.js';

/** POST /runs (issue 51, item 4): create and start in one call, the input sent once, optionally waiting for the result. */
const it = withServer({ SIGNUP_CREDITS: '0', RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

interface RunAnswer {
  executionId: string;
  skillSlug: string;
  skillName: string;
  status: string;
  stopReason: { type: string } | string | null;
  cost: number;
  inputText: string;
  output: string;
  artifacts: { id: string }[];
  sseUrl: string;
  statusUrl: string;
  webUrl: string;
}

const run = (api: Client, user: TestUser, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
  api.post<RunAnswer>('/api/v1/runs', { body, headers: session(user, extra) });

const cancel = (api: Client, user: TestUser, id: string) =>
  api.post(`/api/v1/executions/${id}/cancel`, { headers: session(user) });

const history = async (api: Client, user: TestUser) =>
  (
    await api.get<{ items: { executionId: string; inputText: string; status: string }[] }>('/api/v1/executions', {
      headers: session(user),
    })
  ).body.items;

describe('POST /api/v1/runs', () => {
  it('without Prefer creates and starts at once: 202, working, with where to follow it', async ({ api, server }) => {
    const person = await signUp(api);
    const reply = await run(api, person, { skill_slug: 'ticker', input: '2 10' });
    expect(reply.status).toBe(202);
    expect(reply.headers.get('preference-applied')).toBeNull();
    const id = reply.body.executionId;
    expect(reply.body).toMatchObject({ skillSlug: 'ticker', skillName: 'Ticker', inputText: '2 10', artifacts: [] });
    expect(['working', 'completed']).toContain(reply.body.status);
    expect(reply.body.webUrl).toBe(`${server.url}/app/runs/${id}`);
    expect(reply.body.statusUrl).toBe(`${server.url}/api/v1/executions/${id}/status`);
    expect(reply.headers.get('location')).toBe(reply.body.statusUrl);
    // The stream replays from the start: nothing of the run is missed by opening it after.
    const stream = await openStream(reply.body.sseUrl);
    await stream.ended;
    expect(stream.events.map((event) => event.type)).toEqual(tickerRunTypes(2));
    const items = await history(api, person);
    expect(items[0]).toMatchObject({ executionId: id, inputText: '2 10', status: 'completed' });
  });

  it('with Prefer: wait answers 201 with the result once the run ended in time', async ({ api }) => {
    const person = await signUp(api);
    const reply = await run(api, person, { skill_slug: 'ticker', input: '3 5' }, { prefer: 'wait=30' });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('preference-applied')).toBe('wait=30');
    expect(reply.body).toMatchObject({ status: 'completed', stopReason: 'end_turn', inputText: '3 5' });
    expect(reply.body.output.split('\n')).toHaveLength(3);
    const capped = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'respond-async, WAIT=600' });
    expect([capped.status, capped.headers.get('preference-applied'), capped.body.status]).toEqual([201, 'wait=60', 'completed']);
    const bare = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'wait' });
    expect([bare.status, bare.headers.get('preference-applied')]).toEqual([201, 'wait=60']);
  });

  it('answers 202 with the current state when the wait runs out, and the run goes on', async ({ api, server }) => {
    const person = await signUp(api);
    const pending = run(api, person, { skill_slug: 'ticker', input: '600 50' }, { prefer: 'wait=2' });
    let settled = false;
    void pending.finally(() => {
      settled = true;
    });
    // The wait is counted on the server's clock, which the test moves.
    while (!settled) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      server.clock.advance(1000);
    }
    const reply = await pending;
    expect(reply.status).toBe(202);
    expect(reply.headers.get('preference-applied')).toBe('wait=2');
    expect(reply.body.status).toBe('working');
    const stream = await openStream(`${reply.body.sseUrl}&lastSeq=2`);
    expect((await cancel(api, person, reply.body.executionId)).status).toBe(200);
    await stream.ended;
    expect(stream.events[0]?.sequence).toBeGreaterThan(2);
  });

  it('does not stop the run when the client goes away during the wait', async ({ api, server }) => {
    const person = await signUp(api);
    const leave = new AbortController();
    const request = fetch(`${server.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'wait=60', ...session(person) },
      body: JSON.stringify({ skill_slug: 'ticker', input: '600 50' }),
      signal: leave.signal,
    }).catch(() => undefined);
    let running: { executionId: string; status: string } | undefined;
    while (running === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      running = (await history(api, person)).find((item) => item.status === 'working');
    }
    leave.abort();
    await request;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const status = await api.get<{ status: string }>(`/api/v1/executions/${running.executionId}/status`, {
      headers: session(person),
    });
    expect(status.body.status).toBe('working');
    expect((await cancel(api, person, running.executionId)).status).toBe(200);
  });

  it('refuses what a start refuses: too few credits (402), a second run in the workspace (429), in words', async ({ api }) => {
    const person = await signUp(api);
    const poor = await run(api, person, { skill_slug: 'text-stats', input: 'x' }, { prefer: 'wait=5' });
    expect(poor.status).toBe(402);
    expect(poor.body).toEqual({ error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) } });

    const first = await run(api, person, { skill_slug: 'ticker', input: '600 50' });
    expect(first.status).toBe(202);
    const second = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'wait' });
    expect(second.status).toBe(429);
    expect(second.body).toEqual({ error: 'EXECUTION_RUNNING', message: expect.stringMatching(/already running/) });
    // The refusal left nothing behind: the list holds the one run.
    expect((await history(api, person)).map((item) => item.executionId)).toEqual([first.body.executionId]);
    expect((await cancel(api, person, first.body.executionId)).status).toBe(200);
  });

  it('keeps to the workspace: another one’s run and files are not there', async ({ api }) => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const reply = await run(api, owner, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'wait=10' });
    expect(reply.status).toBe(201);
    const theirs = await api.get(new URL(reply.body.statusUrl).pathname, { headers: session(stranger) });
    expect(theirs.status).toBe(404);
    const withFile = await run(api, stranger, { skill_slug: 'shout-files', input: 'x', files: [{ fileId: randomUUID() }] });
    expect(withFile.status).toBe(404);
    expect(withFile.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('refuses a malformed Prefer wait, a bad body and an unknown skill in words', async ({ api }) => {
    const person = await signUp(api);
    for (const prefer of ['wait=abc', 'wait=0', 'wait=-3', 'wait=1.5', 'wait=']) {
      const reply = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer });
      expect([reply.status, reply.body], prefer).toEqual([
        400,
        { error: { code: 'INVALID_INPUT', message: expect.stringMatching(/^The Prefer header's wait must be/) } },
      ]);
    }
    for (const body of [{ skill_slug: 'ticker' }, { skill_slug: 'ticker', input: ' ' }, { input: 'x' }]) {
      expect((await run(api, person, body)).status).toBe(400);
    }
    expect((await run(api, person, { skill_slug: 'nope', input: 'x' })).status).toBe(404);
    expect(await history(api, person)).toEqual([]);
  });

  it('answers a retry with the same Idempotency-Key with the first run, not a second one', async ({ api }) => {
    const person = await signUp(api);
    const headers = { prefer: 'wait=10', 'idempotency-key': 'one-run' };
    const first = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, headers);
    const again = await run(api, person, { skill_slug: 'ticker', input: '1 1' }, headers);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.executionId).toBe(first.body.executionId);
    expect(await history(api, person)).toHaveLength(1);
  });
});

describe('the first user.message of an idle execution', () => {
  it('is the input the history shows, whatever create was given', async ({ api }) => {
    const person = await signUp(api);
    const created = await createExecution(api, person, 'ticker', '2 10');
    const stream = await streamOf(api, person, created.id);
    expect((await sendMessage(api, person, created.id, '1 10')).status).toBe(200);
    await stream.ended;
    expect(stream.events.filter((event) => event.type === 'agent.message')).toHaveLength(1);
    const item = (await history(api, person)).find((entry) => entry.executionId === created.id);
    expect(item?.inputText).toBe('1 10');
  });
});

const limited = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '2' });

describe('POST /api/v1/runs and the execution-start limit', () => {
  limited('counts once per call, with the other starts, and refuses past the limit', async ({ api }) => {
    const person = await signUp(api);
    expect((await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'wait=10' })).status).toBe(201);
    expect((await run(api, person, { skill_slug: 'ticker', input: '1 1' }, { prefer: 'wait=10' })).status).toBe(201);
    const third = await run(api, person, { skill_slug: 'ticker', input: '1 1' });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await history(api, person)).toHaveLength(2);
  });
});
