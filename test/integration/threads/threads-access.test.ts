import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';
import { answerApproval, chat, postStream, sendToThread, subscribe } from '../../helpers/thread-streams.js';

const it = withServer();

const notFound = { error: { code: 'NOT_FOUND', message: expect.any(String) } };
const invalid = { error: { code: 'INVALID_INPUT', message: expect.any(String) } };

describe('agent thread access', () => {
  it("answers 404 on every route for another workspace's thread, and for an unknown agent", async ({ api, server }) => {
    const [owner, stranger] = [await signUp(api), await signUp(api)];
    const threadId = `t-${randomUUID()}`;
    await sendToThread(api, owner, 'assistant', threadId, 'mine');
    const theirs = owner.user.personalWorkspaceId;

    const sent = await api.post('/api/v1/agents/assistant/send-message', {
      body: { resourceId: theirs, threadId, message: 'hello' },
      headers: session(stranger),
    });
    expect(sent.status).toBe(404);
    expect(sent.body).toEqual(notFound);

    const stream = await subscribe(server.url, stranger, 'assistant', threadId, { resourceId: theirs });
    expect(stream.status).toBe(404);
    expect(JSON.parse(stream.body)).toEqual(notFound);

    // The approvals route finds threads in the caller's workspace only.
    const approval = await answerApproval(api, stranger, threadId, randomUUID(), true);
    expect(approval.status).toBe(404);
    expect(approval.body).toEqual(notFound);

    for (const path of ['/api/v1/agents/nobody/send-message', '/api/v1/agents/nobody/subscribe-thread']) {
      const unknown = await api.post(path, { body: { resourceId: theirs, threadId, message: 'x' }, headers: session(owner) });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound);
    }
    const unknownChat = await chat(server.url, owner, 'nobody', { message: 'x' });
    expect(unknownChat.status).toBe(404);
    expect(JSON.parse(unknownChat.body)).toEqual(notFound);

    // Nothing of the stranger's reached the owner's thread.
    const mine = await subscribe(server.url, owner, 'assistant', threadId);
    await mine.waitFor((frame) => frame.type === 'user.message');
    expect(mine.frames.filter((frame) => frame.type === 'user.message').map((frame) => frame.text)).toEqual(['mine']);
    mine.close();
  });

  it('needs a credential', async ({ api, server }) => {
    const person = await signUp(api);
    const body = { resourceId: person.user.personalWorkspaceId, threadId: 't', message: 'x' };
    expect((await api.post('/api/v1/agents/assistant/send-message', { body })).status).toBe(401);
    expect((await api.get('/api/v1/agents')).status).toBe(401);
    expect((await postStream(`${server.url}/api/v1/agents/assistant/subscribe-thread`, body, {})).status).toBe(401);
  });

  it('answers malformed bodies and resume points with 400 in the envelope', async ({ api, server }) => {
    const person = await signUp(api);
    const resourceId = person.user.personalWorkspaceId;
    const headers = session(person);
    const bad: [string, unknown][] = [
      ['/api/v1/agents/assistant/send-message', { resourceId, threadId: 't' }],
      ['/api/v1/agents/assistant/send-message', { resourceId, threadId: 't', message: 42 }],
      ['/api/v1/agents/assistant/send-message', { resourceId, threadId: '', message: 'x' }],
      ['/api/v1/agents/assistant/subscribe-thread', { resourceId }],
      ['/api/v1/chat/assistant', { threadId: 't' }],
      ['/api/v1/chat/assistant', { message: '' }],
      [`/api/v1/agents/assistant/threads/t/approvals/${randomUUID()}`, { approved: 'yes' }],
    ];
    for (const [path, body] of bad) {
      const reply = await api.post(path, { body, headers });
      expect(reply.status, path).toBe(400);
      expect(reply.body, path).toEqual(invalid);
    }
    const notJson = await api.post('/api/v1/agents/assistant/send-message', { raw: '{"resourceId":', headers });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual(invalid);

    const garbled = await subscribe(server.url, person, 'assistant', 't-resume', { headers: { 'last-event-id': 'abc' } });
    expect(garbled.status).toBe(400);
    expect(JSON.parse(garbled.body)).toEqual(invalid);
    const beyond = await subscribe(server.url, person, 'assistant', 't-resume', { headers: { 'last-event-id': '7' } });
    expect(beyond.status).toBe(400);
    expect(JSON.parse(beyond.body)).toEqual(invalid);
  });

  it('sends a heartbeat comment every 25 s of the clock', async ({ onTestFinished }) => {
    // A server of its own: no other stream has started its heartbeat timer earlier.
    const server = await startServer();
    onTestFinished(() => server.close());
    const person = await signUp(client(server.url));
    const stream = await subscribe(server.url, person, 'assistant', `t-${randomUUID()}`);
    await stream.waitForComments(1);
    expect(stream.comments).toEqual(['connected']);
    server.clock.advance(24_999);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.comments).toEqual(['connected']);
    server.clock.advance(1);
    await stream.waitForComments(2);
    server.clock.advance(50_000);
    await stream.waitForComments(4);
    expect(stream.comments).toEqual(['connected', 'heartbeat', 'heartbeat', 'heartbeat']);
    stream.close();
  });

  it('answers an approval once: a second answer is 409, an unknown one 404', async ({ api, server }) => {
    const person = await signUp(api);
    const threadId = `t-${randomUUID()}`;
    await sendToThread(api, person, 'assistant', threadId, 'hi');
    const row = await server.db.db
      .selectFrom('agent_threads')
      .select('id')
      .where('thread_id', '=', threadId)
      .executeTakeFirstOrThrow();
    const approvalId = randomUUID();
    await server.db.db
      .insertInto('thread_approvals')
      .values({
        id: approvalId,
        thread_row_id: row.id,
        tool: 'start_run',
        input: JSON.stringify({ skill: 'ticker', input: '1 1' }),
        status: 'pending',
        created_at: server.clock.now().toISOString(),
        decided_at: null,
        decided_by: null,
      })
      .execute();
    const path = `/api/v1/agents/assistant/threads/${threadId}/approvals/${approvalId}`;
    const first = await api.post(path, { body: { approved: false }, headers: session(person) });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      approvalId,
      threadId,
      tool: 'start_run',
      input: { skill: 'ticker', input: '1 1' },
      status: 'denied',
      decidedAt: server.clock.now().toISOString(),
    });
    const second = await api.post(path, { body: { approved: true }, headers: session(person) });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: { code: 'CONFLICT', message: expect.any(String) } });
    const unknown = await answerApproval(api, person, threadId, randomUUID(), true);
    expect(unknown.status).toBe(404);
  });

  it('documents the thread routes in the OpenAPI document', async ({ api }) => {
    type Operation = { responses: Record<string, { content?: Record<string, unknown> }>; security?: unknown };
    const document = await api.get<{ paths: Record<string, Record<string, Operation>> }>('/openapi.json');
    const paths = document.body.paths;
    expect(Object.keys(paths['/api/v1/agents/{agentId}/send-message']?.post?.responses ?? {})).toContain('202');
    const subscribeThread = paths['/api/v1/agents/{agentId}/subscribe-thread']?.post;
    expect(Object.keys(subscribeThread?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(Object.keys(subscribeThread?.responses ?? {})).toEqual(expect.arrayContaining(['429', '4XX']));
    expect(paths['/api/v1/chat/{agentId}']?.post).toBeDefined();
    expect(paths['/api/v1/agents/{agentId}/threads/{threadId}/approvals/{approvalId}']?.post).toBeDefined();
    expect(paths['/api/v1/agents']?.get).toBeDefined();
  });

  it('counts a subscription once, when it opens, against the REST limit', async ({ api, server }) => {
    const person = await signUp(api);
    const stream = await subscribe(server.url, person, 'assistant', `t-${randomUUID()}`);
    const remaining = Number(stream.headers.get('x-ratelimit-remaining'));
    expect(stream.headers.get('x-ratelimit-limit')).toBe(String(server.config.rateLimits.restPerMinute));
    server.clock.advance(30_000);
    await stream.waitForComments(2);
    const next = await api.get('/api/v1/agents', { headers: session(person) });
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    stream.close();
  });
});
