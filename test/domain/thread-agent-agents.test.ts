import { describe, expect } from 'vitest';
import { findThreadAgent, listThreadAgents, runThreadTurn } from '../../src/threads/thread-agent.js';
import { AGENT_CREDITS } from '../helpers/agent.js';
import { aUser } from '../helpers/rows.js';
import { aThread, historyOf, MemorySink, said, withThreadAgent } from './thread-agent-fixture.js';

const it = withThreadAgent();

describe('the agents of a workspace', () => {
  it('are the assistant and every agent skill, by slug', async ({ agentCtx }) => {
    const user = await aUser(agentCtx.db);
    const agents = await listThreadAgents(agentCtx, user.workspaceId);
    expect(agents[0]).toMatchObject({ id: 'assistant', name: 'Assistant' });
    expect(agents.map((agent) => agent.id)).toEqual(expect.arrayContaining(['agent-plain', 'agent-gpt', 'agent-priced']));
    expect(agents.map((agent) => agent.id)).not.toContain('ticker');
    expect(await findThreadAgent(agentCtx, user.workspaceId, 'agent-plain')).toMatchObject({ id: 'agent-plain' });
    expect(await findThreadAgent(agentCtx, user.workspaceId, 'ticker')).toBeUndefined();
    expect(await findThreadAgent(agentCtx, user.workspaceId, 'nope')).toBeUndefined();
  });

  it("answer an agent skill's thread with its instructions and its model", async ({ agentCtx, openai }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user, 'agent-gpt');
    const before = openai.requests.length;
    openai.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'As the skill.' }] });
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    const body = openai.requests[before]?.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.messages[0]?.role).toBe('system');
    expect(body.model).toBe('gpt-test');
    expect(body.messages[0]?.content).toContain('You are the agent "agent-gpt"');
    expect(body.messages[0]?.content).toContain("Answer the user's request.");
    expect(body.messages[0]?.content).toContain('start_run');
  });

  it('use the workspace tools through the OpenAI-compatible API too', async ({ agentCtx, openai }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user, 'agent-gpt');
    const before = openai.requests.length;
    openai.plan(
      { kind: 'reply', blocks: [{ type: 'tool_use', id: 'call_gpt', name: 'list_artifacts', input: { limit: 5 } }] },
      { kind: 'reply', blocks: [{ type: 'text', text: 'You have none yet.' }] },
    );
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('what did I make?')), sink, new AbortController().signal);
    expect(sink.of('tool.result')).toEqual([
      { type: 'tool.result', callId: 'call_gpt', tool: 'list_artifacts', status: 'ok', summary: '0 of 0 artifacts' },
    ]);
    const request = openai.requests[before + 1];
    if (!request) throw new Error('the vendor got no second request');
    const messages = (request.body as { messages: { role: string; tool_call_id?: string; content: string }[] }).messages;
    const answer = messages.find((message) => message.role === 'tool');
    expect(answer?.tool_call_id).toBe('call_gpt');
    expect(JSON.parse(answer?.content ?? '{}')).toEqual({ items: [], total: 0, limit: 5, offset: 0 });
    expect(sink.of('agent.message').at(-1)).toMatchObject({ text: 'You have none yet.' });
  });
});
