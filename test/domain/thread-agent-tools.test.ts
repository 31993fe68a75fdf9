import { Readable } from 'node:stream';
import { describe, expect } from 'vitest';
import { insertFiles, updateArtifact } from '../../src/artifacts/artifacts.store.js';
import type { AppContext } from '../../src/context.js';
import { runThreadTurn } from '../../src/threads/thread-agent.js';
import { threadRunOf } from '../../src/threads/thread-runs.store.js';
import { AGENT_CREDITS } from '../helpers/agent.js';
import { anArtifact, anExecution, aTeam, aUser } from '../helpers/rows.js';
import { aThread, historyOf, MemorySink, runEnded, said, withThreadAgent } from './thread-agent-fixture.js';

const it = withThreadAgent();

/** The tool results the model was answered with in a request to the fake Anthropic. */
function toolResultsIn(body: Record<string, unknown> | undefined): { tool_use_id: string; content: string; is_error: boolean }[] {
  const messages = (body?.messages ?? []) as { role: string; content: unknown }[];
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as { type: string; tool_use_id: string; content: string; is_error: boolean }[]).filter(
          (block) => block.type === 'tool_result',
        )
      : [],
  );
}

/** The agent.turn_end records the thread's store holds (turns the plumbing ran, not this test's sinks). */
async function turnEndsStored(ctx: AppContext, threadRowId: string): Promise<number> {
  const rows = await ctx.db
    .selectFrom('thread_records')
    .select('sequence')
    .where('thread_row_id', '=', threadRowId)
    .where('type', '=', 'agent.turn_end')
    .execute();
  return rows.length;
}

const executionsIn = (ctx: AppContext, workspaceId: string) =>
  ctx.db.selectFrom('executions').selectAll().where('workspace_id', '=', workspaceId).execute();

/** A completed run's text artifact in `user`'s workspace, with `text` as its one file. */
async function aTextArtifact(ctx: AppContext, user: Awaited<ReturnType<typeof aUser>>, text: string) {
  const artifact = await anArtifact(ctx.db, {
    execution: await anExecution(ctx.db, { user, status: 'completed' }),
    title: 'notes.md',
  });
  const staged = await ctx.blobs.stage(Readable.from([Buffer.from(text)]));
  await ctx.blobs.commit(staged);
  await insertFiles(ctx.db, [
    {
      artifact_id: artifact.id,
      path: 'notes.md',
      sha256: staged.sha256,
      size: staged.size,
      crc32: staged.crc32,
      mime_type: 'text/markdown',
    },
  ]);
  await updateArtifact(ctx.db, artifact.id, { main_path: 'notes.md', content_size: staged.size });
  return artifact;
}

describe('start_run', () => {
  it('asks for approval, then starts a real run, records it for the thread and tells the model its id', async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [
          { type: 'text', text: 'Starting the ticker.' },
          { type: 'tool_use', id: 'call_run', name: 'start_run', input: { skill: 'ticker', input: '2 10' } },
        ],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'It is running.' }] },
    );
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('tick twice')), sink, new AbortController().signal);

    // Chunks may come as one or several, as appends keep up: the order of the rest is fixed.
    expect(sink.records.map((record) => record.type).filter((type) => type !== 'agent.chunk')).toEqual([
      'agent.message',
      'tool.approval_request',
      'tool.result',
      'agent.message',
      'agent.turn_end',
    ]);
    expect(sink.records[0]?.type).toBe('agent.chunk');
    expect(sink.approvals).toEqual([{ tool: 'start_run', label: 'Run Ticker: 2 10', input: { skill: 'ticker', input: '2 10' } }]);
    const [execution] = await executionsIn(agentCtx, user.workspaceId);
    expect(execution).toMatchObject({ skill_slug: 'ticker', input_text: '2 10', user_id: user.id, interface: 'agent-thread' });
    const id = execution?.execution_id ?? '';
    expect(sink.of('tool.result')).toEqual([
      { type: 'tool.result', callId: 'call_run', tool: 'start_run', status: 'ok', summary: `Started ticker: execution ${id}` },
    ]);
    expect(await threadRunOf(agentCtx.db, id)).toMatchObject({ thread_row_id: thread.id, user_id: user.id });
    const [answer] = toolResultsIn(anthropic.requests[before + 1]?.body);
    expect(answer).toMatchObject({ tool_use_id: 'call_run', is_error: false });
    expect(JSON.parse(answer?.content ?? '{}')).toMatchObject({ executionId: id, status: 'working' });
    // The run's end is told to the thread, which wakes its agent for a turn of the plumbing's.
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text: 'The ticker finished.' }] });
    expect(await runEnded(agentCtx, id)).toMatchObject({ status: 'completed' });
    await expect.poll(() => turnEndsStored(agentCtx, thread.id), { timeout: 10_000 }).toBe(1);
    expect(anthropic.requests.length).toBe(before + 3);
    expect(JSON.stringify(anthropic.requests[before + 2]?.body.messages)).toContain(`Run ${id} of ticker completed`);
  });

  it('starts nothing when the person denies it, and tells the model so', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'call_no', name: 'start_run', input: { skill: 'ticker', input: '3 10' } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Understood, not running it.' }] },
    );
    const sink = new MemorySink(async () => false);
    await runThreadTurn(agentCtx, thread, historyOf(said('tick')), sink, new AbortController().signal);

    expect(sink.of('tool.result')).toMatchObject([{ callId: 'call_no', tool: 'start_run', status: 'denied' }]);
    expect(await executionsIn(agentCtx, user.workspaceId)).toEqual([]);
    const [answer] = toolResultsIn(anthropic.requests[before + 1]?.body);
    expect(answer?.content).toMatch(/denied/);
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
  });

  it('does not ask about a skill the workspace does not have', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'call_x', name: 'start_run', input: { skill: 'no-such-skill', input: 'x' } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'That skill does not exist.' }] },
    );
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('run it')), sink, new AbortController().signal);
    expect(sink.approvals).toEqual([]);
    expect(sink.of('tool.result')).toMatchObject([
      { status: 'error', summary: expect.stringMatching(/No skill with slug no-such-skill/) },
    ]);
  });

  it('ends the turn when it is aborted while the approval is awaited, starting nothing', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    anthropic.plan({
      kind: 'reply',
      blocks: [{ type: 'tool_use', id: 'call_wait', name: 'start_run', input: { skill: 'ticker', input: '1 1' } }],
    });
    const abort = new AbortController();
    const sink = new MemorySink(
      (_request, signal) =>
        new Promise<boolean>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          abort.abort();
        }),
    );
    await runThreadTurn(agentCtx, thread, historyOf(said('tick')), sink, abort.signal);
    expect(sink.records.at(-1)).toMatchObject({
      type: 'agent.turn_end',
      stopReason: 'error',
      reason: expect.stringMatching(/stopped/),
    });
    expect(sink.of('tool.result')).toEqual([]);
    expect(await executionsIn(agentCtx, user.workspaceId)).toEqual([]);
  });
});

describe('the reading tools', () => {
  it("answer an execution of another workspace as not found, and the thread's own with its status and output", async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const stranger = await aUser(agentCtx.db);
    const theirs = await anExecution(agentCtx.db, { user: stranger, status: 'completed' });
    const ours = await anExecution(agentCtx.db, { user, status: 'completed' });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [
          { type: 'tool_use', id: 'call_theirs', name: 'get_execution', input: { executionId: theirs.execution_id } },
          { type: 'tool_use', id: 'call_ours', name: 'get_execution', input: { executionId: ours.execution_id } },
        ],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('look')), sink, new AbortController().signal);
    expect(sink.of('tool.result')).toMatchObject([
      { callId: 'call_theirs', status: 'error', summary: 'NOT_FOUND: Execution not found' },
      { callId: 'call_ours', status: 'ok', summary: `Execution ${ours.execution_id}: completed` },
    ]);
    const [notFound, found] = toolResultsIn(anthropic.requests[before + 1]?.body);
    expect(notFound).toMatchObject({ is_error: true, content: 'NOT_FOUND: Execution not found' });
    expect(JSON.parse(found?.content ?? '{}')).toMatchObject({ executionId: ours.execution_id, status: 'completed', output: '' });
  });

  it("list the workspace's skills and artifacts and read an artifact's text, never another workspace's", async ({
    agentCtx,
    anthropic,
  }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const team = await aTeam(agentCtx.db, { owner: user });
    const artifact = await aTextArtifact(agentCtx, user, '# Notes\nThe answer is 42.');
    const thread = await aThread(agentCtx, user, 'assistant', team.id);
    const before = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [
          { type: 'tool_use', id: 'call_skills', name: 'list_skills', input: {} },
          { type: 'tool_use', id: 'call_list', name: 'list_artifacts', input: {} },
          { type: 'tool_use', id: 'call_read', name: 'read_artifact', input: { artifactId: artifact.id } },
        ],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Nothing in this team.' }] },
    );
    const sink = new MemorySink();
    await runThreadTurn(agentCtx, thread, historyOf(said('what is here?')), sink, new AbortController().signal);
    const [skills, listed, read] = toolResultsIn(anthropic.requests[before + 1]?.body);
    const slugs = (JSON.parse(skills?.content ?? '{}') as { skills: { slug: string }[] }).skills.map((skill) => skill.slug);
    expect(slugs).toEqual(expect.arrayContaining(['ticker', 'agent-plain']));
    expect(JSON.parse(listed?.content ?? '{}')).toMatchObject({ items: [], total: 0 });
    expect(read).toMatchObject({ is_error: true, content: 'NOT_FOUND: Artifact not found' });

    // The same artifact read from a thread of its own workspace.
    const home = await aThread(agentCtx, user);
    const next = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'call_read', name: 'read_artifact', input: { artifactId: artifact.id } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'It says 42.' }] },
    );
    await runThreadTurn(agentCtx, home, historyOf(said('read it')), new MemorySink(), new AbortController().signal);
    const [mine] = toolResultsIn(anthropic.requests[next + 1]?.body);
    expect(JSON.parse(mine?.content ?? '{}')).toMatchObject({
      id: artifact.id,
      title: 'notes.md',
      content: '# Notes\nThe answer is 42.',
    });
  });
});

describe('stopping a turn', () => {
  it('ends it with a turn end when the signal aborts mid-answer', async ({ agentCtx, anthropic }) => {
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'hang', blocks: [{ type: 'text', text: 'I will never finish this sentence' }], afterEvents: 3 });
    const abort = new AbortController();
    const sink = new MemorySink();
    const turn = runThreadTurn(agentCtx, thread, historyOf(said('hi')), sink, abort.signal);
    await expect.poll(() => anthropic.requests.length).toBeGreaterThan(before);
    abort.abort();
    await turn;
    expect(sink.records).toEqual([
      {
        type: 'agent.turn_end',
        messageId: expect.any(String),
        stopReason: 'error',
        reason: 'The turn was stopped before it finished',
      },
    ]);
    expect(await anthropic.requests[before]?.ended).toBe('client_closed');
  });
});
