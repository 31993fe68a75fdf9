import { describe, expect } from 'vitest';
import type { ThreadRecord } from '../../src/ports/thread-records.js';
import { runThreadTurn } from '../../src/threads/thread-agent.js';
import { AGENT_CREDITS } from '../helpers/agent.js';
import { aTeam, aUser } from '../helpers/rows.js';
import { aThread, historyOf, MemorySink, said, withThreadAgent } from './thread-agent-fixture.js';

const it = withThreadAgent();

/** A sink whose store fails once, on the first append of a record of `type`. */
class FailingOnceSink extends MemorySink {
  #failed = false;

  constructor(private readonly type: ThreadRecord['type']) {
    super();
  }

  override async append(records: ThreadRecord[]) {
    if (!this.#failed && records.some((record) => record.type === this.type)) {
      this.#failed = true;
      throw new Error('the store is down');
    }
    return super.append(records);
  }
}

describe('a turn that cannot go on', () => {
  it('starts no run when the person left the workspace before approving it', async ({ agentCtx, anthropic }) => {
    const owner = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const member = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const team = await aTeam(agentCtx.db, { owner, members: [{ user: member, role: 'member' }] });
    const thread = await aThread(agentCtx, member, 'assistant', team.id);
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'call_late', name: 'start_run', input: { skill: 'ticker', input: '1 1' } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'It could not start.' }] },
    );
    const sink = new MemorySink(async () => {
      await agentCtx.db
        .deleteFrom('workspace_members')
        .where('workspace_id', '=', team.id)
        .where('user_id', '=', member.id)
        .execute();
      return true;
    });
    await runThreadTurn(agentCtx, thread, historyOf(said('tick')), sink, new AbortController().signal);
    expect(sink.of('tool.result')).toMatchObject([{ status: 'error', summary: expect.stringMatching(/no longer a member/) }]);
    const started = await agentCtx.db
      .selectFrom('executions')
      .select('execution_id')
      .where('workspace_id', '=', team.id)
      .execute();
    expect(started).toEqual([]);
  });

  it('ends with an error, calling no model, for a person no longer a member of the workspace', async ({
    agentCtx,
    anthropic,
  }) => {
    const owner = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const gone = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const team = await aTeam(agentCtx.db, { owner });
    const thread = await aThread(agentCtx, gone, 'assistant', team.id);
    const before = anthropic.requests.length;
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(sink.records).toEqual([
      {
        type: 'agent.turn_end',
        messageId: expect.any(String),
        stopReason: 'error',
        reason: expect.stringMatching(/no longer a member/),
      },
    ]);
    expect(anthropic.requests.length).toBe(before);
  });

  it('makes no further model call once its records cannot be stored, and still tries to end the turn', async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan({
      kind: 'reply',
      blocks: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'call_1', name: 'list_skills', input: {} },
      ],
    });
    const sink = new FailingOnceSink('agent.chunk');
    await runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, new AbortController().signal);
    expect(anthropic.requests.length).toBe(before + 1);
    expect(sink.records.at(-1)).toMatchObject({
      type: 'agent.turn_end',
      stopReason: 'error',
      reason: 'The turn failed inside the service',
    });
  });
});
