import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { withAgentServer } from '../../helpers/agent.js';
import { createKey, session } from '../../helpers/factories.js';
import { reply } from '../../helpers/thread-plans.js';
import { answerApproval, chat, recordsOf, sendToThread, subscribe, typesOf } from '../../helpers/thread-streams.js';

const it = withAgentServer();

describe('agent threads', () => {
  it('lists the workspace agents: the assistant and the agent skills', async ({ api, person }) => {
    const listed = await api.get<{ agents: { id: string; name: string }[] }>('/api/v1/agents', { headers: session(person) });
    expect(listed.status).toBe(200);
    expect(listed.body.agents[0]).toMatchObject({ id: 'assistant' });
    expect(listed.body.agents.map((agent) => agent.id)).toContain('agent-plain');
  });

  it('shows a subscriber the reply to a message another client sent', async ({ api, server, anthropic, person }) => {
    const threadId = `t-${randomUUID()}`;
    const subscriber = await subscribe(server.url, person, 'assistant', threadId);
    expect(subscriber.status).toBe(200);
    expect(subscriber.headers.get('content-type')).toContain('text/event-stream');

    anthropic.plan(reply('Hello from the agent.'));
    const key = await createKey(api, person);
    const sent = await api.post<{ messageId: string; threadId: string }>('/api/v1/agents/assistant/send-message', {
      body: { resourceId: person.user.personalWorkspaceId, threadId, message: 'Hi there' },
      headers: { 'x-api-key': key.key },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ messageId: expect.any(String), threadId });

    const end = await subscriber.waitFor((frame) => frame.type === 'agent.turn_end');
    expect(end).toMatchObject({ stopReason: 'end_turn' });
    const records = recordsOf(subscriber);
    expect(records[0]).toMatchObject({ type: 'user.message', messageId: sent.body.messageId, text: 'Hi there', sequence: 1 });
    expect(records.find((record) => record.type === 'agent.message')).toMatchObject({ text: 'Hello from the agent.' });
    expect(records.map((record) => record.sequence)).toEqual(records.map((_, i) => i + 1));
    expect(subscriber.ids).toEqual(records.map((record) => String(record.sequence)));
    expect(end.through).toBe(1);
    subscriber.close();
  });

  it('streams a chat: a new thread named in the first frame, the reply, and the end after the turn', async ({
    server,
    anthropic,
    person,
  }) => {
    anthropic.plan(reply('Chat answer.'));
    const stream = await chat(server.url, person, 'assistant', { message: 'Hello?' });
    expect(stream.status).toBe(200);
    await stream.ended;
    const [first] = stream.frames;
    expect(first).toMatchObject({ type: 'thread', threadId: expect.any(String), agentId: 'assistant' });
    expect(stream.headers.get('x-thread-id')).toBe(first?.threadId);
    expect(typesOf(stream)[0]).toBe('user.message');
    expect(typesOf(stream).at(-1)).toBe('agent.turn_end');
    expect(recordsOf(stream).find((record) => record.type === 'agent.message')).toMatchObject({ text: 'Chat answer.' });

    // The same thread goes on: a chat naming it sees only what follows.
    anthropic.plan(reply('Second answer.'));
    const again = await chat(server.url, person, 'assistant', { threadId: String(first?.threadId), message: 'And?' });
    await again.ended;
    expect(recordsOf(again)[0]).toMatchObject({ type: 'user.message', text: 'And?' });
    expect(recordsOf(again)[0]?.sequence).toBeGreaterThan(Number(recordsOf(stream).at(-1)?.sequence));
    expect(recordsOf(again).find((record) => record.type === 'agent.message')).toMatchObject({ text: 'Second answer.' });
  });

  it('answers a message sent during a turn with the next turn', async ({ api, server, anthropic, person }) => {
    const threadId = `t-${randomUUID()}`;
    const subscriber = await subscribe(server.url, person, 'assistant', threadId);
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'First, slowly.' }], deltaSize: 1 }, reply('Second.'));
    await sendToThread(api, person, 'assistant', threadId, 'one');
    await subscriber.waitFor((frame) => frame.type === 'agent.chunk' || frame.type === 'agent.message');
    await sendToThread(api, person, 'assistant', threadId, 'two');
    await subscriber.waitFor((frame) => frame.type === 'agent.turn_end' && Number(frame.through) >= 2);
    const ends = recordsOf(subscriber).filter((record) => record.type === 'agent.turn_end');
    expect(ends).toHaveLength(2);
    const messages = recordsOf(subscriber).filter((record) => record.type === 'user.message');
    expect(messages.map((record) => record.text)).toEqual(['one', 'two']);
    // The second turn started after the first ended, and saw the second message.
    expect(Number(ends[1]?.through)).toBeGreaterThanOrEqual(Number(messages[1]?.sequence));
    expect(Number(ends[0]?.sequence)).toBeLessThan(Number(ends[1]?.sequence));
    subscriber.close();
  });

  it('resumes a dropped subscription after Last-Event-ID, without loss or repeat', async ({ api, server, anthropic, person }) => {
    const threadId = `t-${randomUUID()}`;
    const first = await subscribe(server.url, person, 'assistant', threadId);
    anthropic.plan(reply('One.'));
    await sendToThread(api, person, 'assistant', threadId, 'first');
    await first.waitFor((frame) => frame.type === 'agent.turn_end');
    const lastId = first.ids.at(-1) as string;
    first.close();

    // Written while nobody listens.
    anthropic.plan(reply('Two.'));
    await sendToThread(api, person, 'assistant', threadId, 'second');
    const watcher = await subscribe(server.url, person, 'assistant', threadId);
    await watcher.waitFor((frame) => frame.type === 'agent.turn_end' && Number(frame.through) > Number(lastId));
    watcher.close();

    const resumed = await subscribe(server.url, person, 'assistant', threadId, { headers: { 'last-event-id': lastId } });
    await resumed.waitFor((frame) => frame.type === 'agent.turn_end');
    const all = [...first.ids, ...resumed.ids].map(Number);
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(resumed.ids[0]).toBe(String(Number(lastId) + 1));
    expect(recordsOf(resumed)[0]).toMatchObject({ type: 'user.message', text: 'second' });
    resumed.close();
  });

  it('ends a chat sent during a turn after the next turn, the one that saw its message', async ({
    api,
    server,
    anthropic,
    person,
  }) => {
    const threadId = `t-${randomUUID()}`;
    const watcher = await subscribe(server.url, person, 'assistant', threadId);
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'c1', name: 'start_run', input: { skill: 'ticker', input: '1 1' } }],
        usage: { input: 1, output: 1 },
      },
      reply('No run then.'),
      reply('Answer to two.'),
    );
    await sendToThread(api, person, 'assistant', threadId, 'one');
    // The first turn waits on this approval: the chat's message arrives during it.
    const request = await watcher.waitFor((frame) => frame.type === 'tool.approval_request');
    const chatting = await chat(server.url, person, 'assistant', { threadId, message: 'two' });
    const two = await chatting.waitFor((frame) => frame.type === 'user.message');
    await answerApproval(api, person, threadId, request.approvalId, false);
    await chatting.ended;
    const ends = recordsOf(chatting).filter((frame) => frame.type === 'agent.turn_end');
    expect(ends).toHaveLength(2);
    expect(Number(ends[0]?.through)).toBeLessThan(two.sequence);
    expect(Number(ends[1]?.through)).toBeGreaterThanOrEqual(two.sequence);
    expect(recordsOf(chatting).at(-1)).toEqual(ends[1]);
    expect(
      recordsOf(chatting)
        .filter((frame) => frame.type === 'agent.message')
        .map((frame) => frame.text),
    ).toEqual(['No run then.', 'Answer to two.']);
    watcher.close();
  });
});
