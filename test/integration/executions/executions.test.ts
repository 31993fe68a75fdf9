import { describe, expect } from 'vitest';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withServer({
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  EXECUTION_TIMEOUT_MS: '1500',
  // Warm script sandboxes on: after the first run most take one the pool started (script-pool.ts).
  SCRIPT_POOL_SIZE: '2',
}).extend('person', { scope: 'file' }, ({ api }) => signUp(api));

const status = (api: Client, id: string, user: TestUser) =>
  api.get<Record<string, unknown>>(`/api/v1/executions/${id}/status`, { headers: session(user) });

describe('POST /api/v1/executions', () => {
  it('creates an idle execution', async ({ api, person }) => {
    const reply = await api.post('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '2 10' },
      headers: session(person),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      skill_slug: 'ticker',
      skill_name: 'Ticker',
      status: 'idle',
    });
  });

  it('refuses an unknown skill (404), missing or empty input (400) and input over 100 KB (413)', async ({ api, person }) => {
    const unknown = await api.post('/api/v1/executions', { body: { skill_slug: 'nope', input: 'x' }, headers: session(person) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    for (const body of [
      { skill_slug: 'ticker' },
      { skill_slug: 'ticker', input: '' },
      { skill_slug: 'ticker', input: '   ' },
      { input: 'x' },
    ]) {
      const reply = await api.post('/api/v1/executions', { body, headers: session(person) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
    }
    const large = await api.post('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: 'é'.repeat(51_201) },
      headers: session(person),
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  it('answers a repeated Idempotency-Key with the first execution, and a reused key with another body with 409', async ({
    server,
    api,
    person,
  }) => {
    const headers = session(person, { 'idempotency-key': 'create-once' });
    const first = await api.post<{ id: string }>('/api/v1/executions', { body: { skill_slug: 'ticker', input: '1 1' }, headers });
    const again = await api.post<{ id: string }>('/api/v1/executions', { body: { skill_slug: 'ticker', input: '1 1' }, headers });
    expect(again.body.id).toBe(first.body.id);
    const other = await api.post('/api/v1/executions', { body: { skill_slug: 'ticker', input: '2 2' }, headers });
    expect(other.status).toBe(409);
    server.clock.advance(24 * 3_600_000);
    const later = await api.post<{ id: string }>('/api/v1/executions', { body: { skill_slug: 'ticker', input: '1 1' }, headers });
    expect(later.body.id).not.toBe(first.body.id);
  });
});

describe('a run, idle -> working -> completed', () => {
  it('streams user.message, session.status_running, the agent events, the result and session.status_idle', async ({
    api,
    person,
  }) => {
    const created = await createExecution(api, person, 'ticker', '3 5');
    const stream = await streamOf(api, person, created.id);
    const started = await sendMessage(api, person, created.id, '3 5');
    expect(started.body.data).toEqual([
      { id: expect.any(String), type: 'user.message', sequence: 1, payload: { content: [{ type: 'text', text: '3 5' }] } },
      { id: expect.any(String), type: 'session.status_running', sequence: 2, payload: {} },
    ]);
    await stream.ended;
    expect(stream.events.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'user.message'],
      [2, 'session.status_running'],
      [3, 'agent.message'],
      [4, 'agent.message'],
      [5, 'agent.message'],
      [6, 'execution.result'],
      [7, 'session.status_idle'],
    ]);
    expect(stream.frameIds).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(stream.events[2]?.payload).toEqual({ content: [{ type: 'text', text: 'tick 1 of 3' }] });
    expect(stream.events[5]?.payload).toEqual({
      summary: '3 ticks, 5 ms apart',
      cost: 0,
      tokenUsage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(stream.events[6]?.payload).toEqual({ stop_reason: { type: 'end_turn' } });

    const after = await status(api, created.id, person);
    expect(after.body).toEqual({
      executionId: created.id,
      status: 'completed',
      skillSlug: 'ticker',
      skillName: 'Ticker',
      startedAt: expect.any(String),
      outputBlocks: [1, 2, 3].map((tick) => ({ type: 'text', text: `tick ${tick} of 3` })),
    });
  });

  it('records the files a skill writes', async ({ api, person }) => {
    const { stream } = await runToEnd(api, person, 'text-stats', 'One sentence here. And another one!');
    expect(stream.events).toContainEqual(
      expect.objectContaining({
        type: 'agent.tool_use',
        payload: { name: 'write_file', tool: 'write_file', label: expect.stringContaining('stats.json') },
      }),
    );
    expect(stream.events.at(-2)).toMatchObject({ type: 'execution.result', payload: { cost: 1 } });
  });

  it('refuses a user.message to a completed execution with 409', async ({ api, person }) => {
    const { created } = await runToEnd(api, person, 'ticker', '1 1');
    const reply = await sendMessage(api, person, created.id, 'again');
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: { code: 'CONFLICT', message: expect.any(String) } });
  });
});

describe('runs that fail end with stop reason error and say why', () => {
  it.for<[string, string]>([
    ['crashes', 'Error: deliberate crash'],
    ['garbage', 'not a protocol message'],
    ['hangs', 'time limit of 1500 ms'],
    ['big-file', 'output limit'],
  ])('%s', async ([skill, why], { api, person }) => {
    const { created, stream } = await runToEnd(api, person, skill, 'go');
    const [info, idle] = stream.events.slice(-2);
    expect(info).toMatchObject({ type: 'agent.info', payload: { message: expect.stringContaining(why) } });
    expect(idle).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'error' } } });
    expect((await status(api, created.id, person)).body.status).toBe('failed');
    // The service is still up and the workspace free again.
    await runToEnd(api, person, 'ticker', '1 1');
  });
});

describe('interrupt, cancel and resume', () => {
  it('user.interrupt stops the run with stop reason interrupt; a later user.message starts a new run', async ({
    api,
    person,
  }) => {
    const created = await createExecution(api, person, 'ticker', '200 20');
    const stream = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, '200 20');
    await stream.waitFor(4);
    const interrupted = await api.post<{ data: { type: string }[] }>(`/api/v1/executions/${created.id}/events`, {
      body: { events: [{ type: 'user.interrupt' }] },
      headers: session(person),
    });
    expect(interrupted.body.data.map((event) => event.type)).toEqual(['user.interrupt']);
    await stream.ended;
    expect(stream.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect((await status(api, created.id, person)).body.status).toBe('idle');

    const lastSequence = stream.events.at(-1)?.sequence ?? 0;
    const resumed = await sendMessage(api, person, created.id, '2 1');
    expect(resumed.body.data[0]).toMatchObject({ type: 'user.message', sequence: lastSequence + 1 });
    const rest = await streamOf(api, person, created.id, `&lastSeq=${lastSequence}`);
    await rest.ended;
    expect(rest.events.map((event) => event.type).slice(-2)).toEqual(['execution.result', 'session.status_idle']);
    expect((await status(api, created.id, person)).body.status).toBe('completed');
  });

  it('cancel kills the process and reports the status it left; cancelling an idle execution does nothing', async ({
    api,
    person,
  }) => {
    const created = await createExecution(api, person, 'ticker', '200 20');
    const stream = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, '200 20');
    await stream.waitFor(3);
    const cancelled = await api.post(`/api/v1/executions/${created.id}/cancel`, { headers: session(person) });
    expect(cancelled.body).toEqual({ success: true, message: expect.any(String), processKilled: true, actualStatus: 'idle' });
    await stream.ended;
    const again = await api.post(`/api/v1/executions/${created.id}/cancel`, { headers: session(person) });
    expect(again.body).toEqual({ success: false, message: expect.any(String), processKilled: false, actualStatus: 'idle' });
  });

  it('interrupting an execution that is not running is 409', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const reply = await api.post(`/api/v1/executions/${created.id}/events`, {
      body: { events: [{ type: 'user.interrupt' }] },
      headers: session(person),
    });
    expect(reply.status).toBe(409);
  });
});

describe('rerun', () => {
  it('starts a child of a completed execution at once', async ({ api, person }) => {
    const { created } = await runToEnd(api, person, 'ticker', '1 1');
    const reply = await api.post<{ executionId: string }>(`/api/v1/executions/${created.id}/rerun`, {
      body: { input: '2 1' },
      headers: session(person),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      executionId: expect.any(String),
      parentExecutionId: created.id,
      skillName: 'Ticker',
      status: 'started',
      message: expect.any(String),
    });
    const child = await streamOf(api, person, reply.body.executionId);
    await child.ended;
    expect(child.events[0]).toMatchObject({ type: 'user.message', payload: { content: [{ type: 'text', text: '2 1' }] } });
  });

  it('refuses a rerun of an execution that is not completed (409) and one without input (400)', async ({ api, person }) => {
    const idle = await createExecution(api, person, 'ticker', '1 1');
    expect(
      (await api.post(`/api/v1/executions/${idle.id}/rerun`, { body: { input: 'x' }, headers: session(person) })).status,
    ).toBe(409);
    const { created: failed } = await runToEnd(api, person, 'crashes', 'x');
    expect(
      (await api.post(`/api/v1/executions/${failed.id}/rerun`, { body: { input: 'x' }, headers: session(person) })).status,
    ).toBe(409);
    expect((await api.post(`/api/v1/executions/${idle.id}/rerun`, { body: {}, headers: session(person) })).status).toBe(400);
  });
});

describe('GET /api/v1/executions', () => {
  it('pages newest first and filters by channels (source) and interfaces', async ({ api }) => {
    const owner = await signUp(api);
    await createExecution(api, owner, 'ticker', '1 1');
    await createExecution(api, owner, 'ticker', '2 2', { source: 'ci', interface: 'ci-bot' });
    await createExecution(api, owner, 'ticker', '3 3', { interface: 'mcp-zed' });
    const page = await api.get<{ items: Record<string, unknown>[]; hasMore: boolean }>('/api/v1/executions?limit=2', {
      headers: session(owner),
    });
    expect(page.body).toMatchObject({ hasMore: true, offset: 0, limit: 2 });
    expect(page.body.items.map((item) => item.inputText)).toEqual(['3 3', '2 2']);
    expect(page.body.items[0]).toEqual({
      id: expect.any(Number),
      executionId: expect.any(String),
      skillSlug: 'ticker',
      skillName: 'Ticker',
      status: 'idle',
      cost: 0,
      source: 'api',
      interface: 'mcp-zed',
      inputText: '3 3',
      startedAt: null,
      completedAt: null,
    });
    const rest = await api.get<{ items: unknown[]; hasMore: boolean }>('/api/v1/executions?limit=2&offset=2', {
      headers: session(owner),
    });
    expect(rest.body).toMatchObject({ hasMore: false, items: [expect.objectContaining({ inputText: '1 1' })] });
    const ci = await api.get<{ items: { inputText: string }[] }>('/api/v1/executions?channels=ci', { headers: session(owner) });
    expect(ci.body.items.map((item) => item.inputText)).toEqual(['2 2']);
    const mcp = await api.get<{ items: { inputText: string }[] }>('/api/v1/executions?interfaces=mcp-zed,ci-bot', {
      headers: session(owner),
    });
    expect(mcp.body.items.map((item) => item.inputText)).toEqual(['3 3', '2 2']);
    expect((await api.get('/api/v1/executions?limit=0', { headers: session(owner) })).status).toBe(400);
    expect((await api.get('/api/v1/executions?limit=ten', { headers: session(owner) })).status).toBe(400);
  });
});

describe('workspace scoping', () => {
  it("answers 404 for another workspace's execution on every route", async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const stranger = await signUp(api);
    const headers = session(stranger);
    const replies = [
      await api.get(`/api/v1/executions/${created.id}/status`, { headers }),
      await api.get(`/api/v1/executions/${created.id}/stream-token`, { headers }),
      await api.post(`/api/v1/executions/${created.id}/events`, { body: { events: [{ type: 'user.interrupt' }] }, headers }),
      await api.post(`/api/v1/executions/${created.id}/cancel`, { headers }),
      await api.post(`/api/v1/executions/${created.id}/rerun`, { body: { input: 'x' }, headers }),
    ];
    for (const reply of replies) expect(reply.status).toBe(404);
    const team = await createTeam(api, person);
    const inTeam = await api.get(`/api/v1/executions/${created.id}/status`, {
      headers: session(person, { 'x-workspace-id': team.id }),
    });
    expect(inTeam.status).toBe(404);
  });
});

describe('GET /api/v1/marketplace/skills', () => {
  it('lists the installed skills with limit and offset', async ({ api, person }) => {
    const all = await api.get<{ items: { slug: string }[]; total: number }>('/api/v1/marketplace/skills?limit=100', {
      headers: session(person),
    });
    expect(all.body.items.map((skill) => skill.slug)).toEqual(expect.arrayContaining(['ticker', 'text-stats', 'crashes']));
    expect(all.body.items.find((skill) => skill.slug === 'ticker')).toEqual({
      slug: 'ticker',
      name: 'Ticker',
      description: expect.any(String),
      runtime: 'script',
      price: 0,
      installed: true,
      source: 'server',
      input: expect.stringContaining('"N MS"'),
      defaultInput: '10 500',
      examples: expect.arrayContaining(['10 500']),
      inputSchema: expect.objectContaining({ type: 'string' }),
      takesFiles: false,
      modelUse: null,
    });
    // A skill that names no input sentence and no default: its description, and null.
    expect(all.body.items.find((skill) => skill.slug === 'crashes')).toMatchObject({
      input: 'Test skill that says one thing and then throws.',
      defaultInput: null,
    });
    const page = await api.get<{ items: unknown[]; hasMore: boolean; total: number }>(
      '/api/v1/marketplace/skills?limit=1&offset=1',
      {
        headers: session(person),
      },
    );
    expect(page.body).toMatchObject({ limit: 1, offset: 1, hasMore: true, total: all.body.total });
    expect(page.body.items).toHaveLength(1);
  });
});
